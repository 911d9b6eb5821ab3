//! The sieve's speed knobs ([`MotifTuning`], a field of
//! [`MotifOptions`](super::MotifOptions)): they change how a run is laid out
//! on the CPU or compiled on a device, never its values. The library reads
//! no environment for them; a program that wants environment overrides
//! reads them itself (as `bench_motif` does) and sets these fields.
//!
//! ```
//! use kronograph::cuda::Backend;
//! use kronograph::motif::{CpuPlan, MotifOptions, MotifTuning};
//! let tuning = MotifTuning::default().with_line_words(Some(4)).with_plan(Some(CpuPlan::Sweep));
//! let opts = MotifOptions { backend: Backend::Cpu, tuning, ..Default::default() };
//! assert!(opts.validate().is_ok());
//! let bad = MotifOptions { tuning: MotifTuning::default().with_group_size(Some(9)), ..opts };
//! assert!(bad.validate().is_err()); // at most 8 levels per pass
//! ```

use super::MotifError;

/// How the CPU sieve lays a run out over threads and memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CpuPlan {
    /// Lines of points in parallel, each thread with its own `k · n` lines;
    /// a vertex's level sums all pairs of lower levels at once (chosen for
    /// small instances).
    LinesInParallel,
    /// One line of points at a time, all threads on its vertices; level `s`
    /// is built by `s − 1` sweeps, sweep `s2` reading level `s2` at random
    /// (chosen for large instances, whose levels then stay in the cache).
    Sweep,
}

/// The sieve's speed knobs; each `None` or `false` is the library's choice
/// (the default). Results do not depend on them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MotifTuning {
    /// GPU: the most levels one pass of the recurrence accumulates (the
    /// kernels `motif_pass1` … `motif_pass8`), 1 to 8. `None`: 8 (eight
    /// accumulators of 8 planes stay in registers at two blocks of 256
    /// threads per SM).
    pub group_size: Option<usize>,
    /// GPU: the products by α as masked ANDs (a module of its own) rather
    /// than integer products of the planes by α's bits on the FMA pipe.
    /// Default `false`.
    pub mask_products: bool,
    /// CPU, GF(2^8): 64-bit words per bit plane of a line of points, 1, 2, 4
    /// or 8. `None`: chosen by the instance's size (8 for small instances,
    /// the widest whose level of lines stays within 8 MiB for large ones;
    /// never more points than the 2^k there are).
    pub line_words: Option<usize>,
    /// CPU: the plan. `None`: chosen by size ([`CpuPlan::LinesInParallel`]
    /// while one thread's `k · n` lines fit 8 MiB, else [`CpuPlan::Sweep`]).
    pub plan: Option<CpuPlan>,
}

impl MotifTuning {
    /// Sets [`group_size`](Self::group_size).
    #[must_use]
    pub fn with_group_size(mut self, levels: Option<usize>) -> Self {
        self.group_size = levels;
        self
    }

    /// Sets [`mask_products`](Self::mask_products).
    #[must_use]
    pub fn with_mask_products(mut self, on: bool) -> Self {
        self.mask_products = on;
        self
    }

    /// Sets [`line_words`](Self::line_words).
    #[must_use]
    pub fn with_line_words(mut self, words: Option<usize>) -> Self {
        self.line_words = words;
        self
    }

    /// Sets [`plan`](Self::plan).
    #[must_use]
    pub fn with_plan(mut self, plan: Option<CpuPlan>) -> Self {
        self.plan = plan;
        self
    }

    /// The levels per pass on a device: [`group_size`](Self::group_size) or 8.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn levels_per_pass(&self) -> usize {
        self.group_size.unwrap_or(8)
    }

    /// Checks every knob.
    ///
    /// # Errors
    /// [`MotifError::GroupSize`] for a group size outside 1..=8,
    /// [`MotifError::LineWords`] for line words other than 1, 2, 4, 8.
    pub fn validate(&self) -> Result<(), MotifError> {
        if let Some(g) = self.group_size.filter(|g| !(1..=8).contains(g)) {
            return Err(MotifError::GroupSize { group_size: g });
        }
        if let Some(w) = self.line_words.filter(|w| ![1, 2, 4, 8].contains(w)) {
            return Err(MotifError::LineWords { line_words: w });
        }
        Ok(())
    }
}
