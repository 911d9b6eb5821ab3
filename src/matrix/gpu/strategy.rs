//! [`GpuMergeStrategy`]: how the GPU SpMSpV merges its terms.

/// How SpMSpV merges the terms that land on the same output (Yang, Wang &
/// Owens): all three give the same entries; they differ in cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GpuMergeStrategy {
    /// No sorting: each term is combined atomically into a dense
    /// accumulator (`O(n)` to clear and compact, `O(terms)` atomics).
    Scatter,
    /// Stable bottom-up merge sort of the `(index, term)` pairs (`log₂ terms`
    /// passes), then a segmented fold in increasing `k`.
    MergeSort,
    /// Stable LSD radix sort (4-bit digits, `⌈log₂(n+1)/4⌉` passes), then
    /// the segmented fold.
    RadixSort,
    /// Chosen per call by a cost model of the frontier's term count against
    /// the output size (see [`GpuMergeStrategy::choose`]).
    #[default]
    Auto,
}

impl GpuMergeStrategy {
    /// The strategy `Auto` runs for `terms` expanded terms into an output of
    /// size `n`: the cost model counts memory passes — scatter: clearing and
    /// compacting `n` (about `3n` element moves plus 6 launches), radix:
    /// `⌈bits/4⌉` passes of about `4·terms` moves plus 4 launches each;
    /// a launch is worth about 20 000 element moves on current GPUs. Merge
    /// sort (`log₂ terms` passes) never wins this model; it is kept for
    /// measurement. The bench (`bench_graphblas`) checks the choice against
    /// the measured best.
    pub fn choose(terms: usize, n: usize) -> GpuMergeStrategy {
        const LAUNCH: f64 = 20_000.0;
        let bits = (usize::BITS - n.leading_zeros()) as f64;
        let passes = (bits / 4.0).ceil();
        let scatter = 3.0 * n as f64 + 2.0 * terms as f64 + 6.0 * LAUNCH;
        let radix = passes * (4.0 * terms as f64 + 4.0 * LAUNCH) + 3.0 * terms as f64 + 3.0 * LAUNCH;
        if radix < scatter {
            GpuMergeStrategy::RadixSort
        } else {
            GpuMergeStrategy::Scatter
        }
    }
}
