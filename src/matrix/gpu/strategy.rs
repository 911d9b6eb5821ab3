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
    /// Chosen per call (per BFS level) by a cost model of the frontier's
    /// term count (the sum of its degrees, known on the device) against the
    /// output size (see [`GpuMergeStrategy::choose`]).
    #[default]
    Auto,
}

impl GpuMergeStrategy {
    /// The strategy `Auto` runs for `terms` expanded terms (the frontier's
    /// out-arcs) into an output of size `n`: the smallest of
    /// [`GpuMergeStrategy::costs`].
    pub fn choose(terms: usize, n: usize) -> GpuMergeStrategy {
        let c = Self::costs(terms, n);
        let best = (0..3).min_by(|&a, &b| c[a].total_cmp(&c[b])).unwrap_or(0);
        [GpuMergeStrategy::Scatter, GpuMergeStrategy::MergeSort, GpuMergeStrategy::RadixSort][best]
    }

    /// The modelled microseconds of `[Scatter, MergeSort, RadixSort]` for
    /// `terms` terms into an output of size `n`, each a BFS level's time
    /// (the product, the visit and the next frontier's degree scan):
    /// scatter `s₀ + s₁·n + s₂·terms` (it clears, scans and compacts the
    /// whole output), merge sort `m₀ + (m₁ + m₂·terms)·⌈log₂ terms⌉` (a
    /// launch per pass), radix sort `r₀ + (r₁ + r₂·terms)·⌈bits(n)/4⌉` (a
    /// host synchronization per digit), with the coefficients of
    /// [`SCATTER_US`](Self::SCATTER_US), [`MERGE_US`](Self::MERGE_US) and
    /// [`RADIX_US`](Self::RADIX_US). They were fitted (least squares of the
    /// relative error) to 847 push levels timed under each strategy by
    /// `bench_graphblas --calibrate` on one H100 (R-MAT 18, 20, 22 and the
    /// SNAP graphs, do and push BFS; docs/PERFORMANCE.md): under this model
    /// the levels' total is within 1–10 % of the best choice per level.
    pub fn costs(terms: usize, n: usize) -> [f64; 3] {
        let (t, nf) = (terms as f64, n as f64);
        let passes = t.max(2.0).log2().ceil();
        let digits = ((usize::BITS - n.leading_zeros()) as f64 / 4.0).ceil();
        let [s0, s1, s2] = Self::SCATTER_US;
        let [m0, m1, m2] = Self::MERGE_US;
        let [r0, r1, r2] = Self::RADIX_US;
        [s0 + s1 * nf + s2 * t, m0 + (m1 + m2 * t) * passes, r0 + (r1 + r2 * t) * digits]
    }

    /// Scatter's `[s₀, s₁, s₂]` in [`costs`](Self::costs) (µs, µs per output, µs per term).
    pub const SCATTER_US: [f64; 3] = [117.8, 2.90e-5, 6.65e-5];
    /// Merge sort's `[m₀, m₁, m₂]` (µs, µs per pass, µs per term and pass).
    pub const MERGE_US: [f64; 3] = [78.5, 10.8, 1.98e-5];
    /// Radix sort's `[r₀, r₁, r₂]` (µs, µs per digit, µs per term and digit).
    pub const RADIX_US: [f64; 3] = [171.7, 28.5, 4.84e-5];
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

    /// The cost of one hash probe in merge steps, for [`choose`](Self::choose):
    /// on one H100 a probe of the hash form took 4.6–7.6 times a merge step
    /// of the dot form (triangle counting on R-MAT 18–22 and the SNAP
    /// graphs, docs/PERFORMANCE.md).
    pub const HASH_PROBE_COST: f64 = 8.0;
}
