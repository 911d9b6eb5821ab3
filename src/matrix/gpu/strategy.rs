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
    /// size `n`, by a cost model in units of 4-byte element moves, fitted to
    /// the H100 measurements of `bench_graphblas` (docs/PERFORMANCE.md): a
    /// kernel launch costs about 2·10⁶ moves and a host synchronization
    /// (reading a scan's total) about 1.5·10⁷. Scatter: clearing and
    /// compacting `n` (about `3n` moves), `2·terms` atomics, 2 synchronizations
    /// and 6 launches; radix sort: `⌈log₂(n+1)/4⌉` passes of `4·terms` moves,
    /// one synchronization and 5 launches each, then the fold. Merge sort
    /// (`log₂ terms` passes) never wins this model and is kept for
    /// measurement. On graphs up to a few million nodes this picks scatter,
    /// as measured; radix sort wins only for tiny frontiers into huge outputs.
    pub fn choose(terms: usize, n: usize) -> GpuMergeStrategy {
        const LAUNCH: f64 = 2.0e6;
        const SYNC: f64 = 1.5e7;
        let bits = (usize::BITS - n.leading_zeros()) as f64;
        let passes = (bits / 4.0).ceil();
        let scatter = 3.0 * n as f64 + 2.0 * terms as f64 + 2.0 * SYNC + 6.0 * LAUNCH;
        let radix = passes * (4.0 * terms as f64 + SYNC + 5.0 * LAUNCH) + 3.0 * terms as f64 + SYNC + 3.0 * LAUNCH;
        if radix < scatter {
            GpuMergeStrategy::RadixSort
        } else {
            GpuMergeStrategy::Scatter
        }
    }
}

/// How the GPU masked matrix product `C⟨M⟩ = A ⊕.⊗ B` computes its entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GpuMxmStrategy {
    /// Dot products at the mask's positions (a thread per position merging
    /// `A(i,:)` and `B(:,j)`); a plain (not complemented) mask only.
    Dot,
    /// Gustavson by rows with a hash accumulator (a warp per row, its table
    /// in shared memory, or in global memory for a long row); any mask,
    /// complemented or not.
    Hash,
    /// [`Hash`](Self::Hash) for a complemented mask, else the one of smaller
    /// cost ([`GpuMxmStrategy::choose`]).
    #[default]
    Auto,
}

impl GpuMxmStrategy {
    /// The form `Auto` runs for a plain mask, from the operation counts of
    /// each: `dot` = `Σ_{(i,j) ∈ M} |A(i,:)| + |B(:,j)|` (merge lengths),
    /// `hash` = `Σ_i |M(i,:)| + Σ_{k ∈ A(i,:)} |B(k,:)|` (hash probes), a
    /// probe weighted as [`HASH_PROBE_COST`](Self::HASH_PROBE_COST) merge steps.
    pub fn choose(dot: u64, hash: u64) -> GpuMxmStrategy {
        if (hash as f64) * Self::HASH_PROBE_COST < dot as f64 {
            GpuMxmStrategy::Hash
        } else {
            GpuMxmStrategy::Dot
        }
    }

    /// The cost of one hash probe in merge steps, for [`choose`](Self::choose).
    pub const HASH_PROBE_COST: f64 = 2.0;
}
