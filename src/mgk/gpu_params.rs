//! The GPU backend's knobs: [`GpuGramParams`] (which path each pair of a
//! Gram call takes) and [`Tuning`] (the code generation's and launches'
//! knobs), fields of [`MgkConfig::gpu`](super::MgkConfig::gpu). They change
//! speed, never values (beyond rounding), and the library reads no
//! environment for them: a program that wants environment overrides reads
//! them itself (as `bench_gpu` does) and sets these fields.
//!
//! ```
//! use kronograph::mgk::{GpuGramParams, MgkConfig, Tuning};
//! let tuning = Tuning::default().with_lane_nz(Some(2)).with_fast_math(false);
//! let gpu = GpuGramParams::default().with_tuning(tuning).with_spread_threads(Some(4));
//! let config = MgkConfig { gpu, ..MgkConfig::default() };
//! assert!(config.validate().is_ok());
//! assert_eq!(config.gpu.tuning.lane_nz(kronograph::backend::Precision::F64), 2);
//! let bad = MgkConfig { gpu: GpuGramParams::default().with_tuning(Tuning::default().with_block(Some(100))), ..config };
//! assert!(bad.validate().is_err()); // not a multiple of 32
//! ```

use super::MgkError;
use crate::backend::Precision;

/// Which path each pair of a GPU Gram call takes, and the kernels'
/// [`Tuning`]: the paths change speed, never values (beyond rounding).
/// A field of [`MgkConfig`](super::MgkConfig) (`config.gpu`), so it reaches
/// every GPU call from the user's configuration
/// ([`MarginalizedGraphKernel::with_gpu_params`](super::MarginalizedGraphKernel::with_gpu_params),
/// `GpuGram::new`); `GpuGram::gram_params_mut` changes a built `GpuGram`'s.
/// The CPU ignores it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GpuGramParams {
    /// Every pair goes to the single-large-pair path (a host PCG loop over
    /// device vectors, one XMV launch over all tile pairs per iteration),
    /// not only the pairs too large for the batched kernel. Default `false`.
    pub large_pair_path: bool,
    /// Pairs of more than this many product nodes keep the PCG vectors p
    /// and y in global memory (the mid-size path) even where they would fit
    /// in shared memory. Default `None`: only the pairs whose vectors do not
    /// fit (and, when at most a quarter of a call's pairs have over 32 KiB
    /// of vectors, those).
    pub shared_vector_limit: Option<usize>,
    /// The pairs that keep their vectors in global memory stage their
    /// graphs in global memory too, as pairs whose graphs do not fit in
    /// shared memory always do. Default `false`.
    pub global_staging: bool,
    /// Every batched value launch runs the kernel with all vector
    /// placements, even when every pair keeps its vectors in shared memory
    /// (for comparing the two kernels). Default `false`.
    pub any_placement: bool,
    /// Host threads per device of a Gram spread over devices in chunks
    /// (each prepares its next launch while another's runs), 1 to 16;
    /// `None`: 2.
    pub spread_threads: Option<usize>,
    /// One device runs every pair of a call in one launch, however many
    /// (as before device sets), rather than in chunks on pipelined host
    /// threads from a million pairs on. Default `false`.
    pub one_launch: bool,
    /// The kernels' code-generation and launch knobs.
    pub tuning: Tuning,
}

impl GpuGramParams {
    /// Sets [`large_pair_path`](Self::large_pair_path).
    #[must_use]
    pub fn with_large_pair_path(mut self, on: bool) -> Self {
        self.large_pair_path = on;
        self
    }

    /// Sets [`shared_vector_limit`](Self::shared_vector_limit).
    #[must_use]
    pub fn with_shared_vector_limit(mut self, limit: Option<usize>) -> Self {
        self.shared_vector_limit = limit;
        self
    }

    /// Sets [`global_staging`](Self::global_staging).
    #[must_use]
    pub fn with_global_staging(mut self, on: bool) -> Self {
        self.global_staging = on;
        self
    }

    /// Sets [`any_placement`](Self::any_placement).
    #[must_use]
    pub fn with_any_placement(mut self, on: bool) -> Self {
        self.any_placement = on;
        self
    }

    /// Sets [`spread_threads`](Self::spread_threads).
    #[must_use]
    pub fn with_spread_threads(mut self, threads: Option<usize>) -> Self {
        self.spread_threads = threads;
        self
    }

    /// Sets [`one_launch`](Self::one_launch).
    #[must_use]
    pub fn with_one_launch(mut self, on: bool) -> Self {
        self.one_launch = on;
        self
    }

    /// Sets [`tuning`](Self::tuning).
    #[must_use]
    pub fn with_tuning(mut self, tuning: Tuning) -> Self {
        self.tuning = tuning;
        self
    }

    /// Checks `spread_threads` (1 to 16) and the [`Tuning`].
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] naming the field and its range.
    pub fn validate(&self) -> Result<(), MgkError> {
        if let Some(t) = self.spread_threads {
            if !(1..=16).contains(&t) {
                return Err(MgkError::InvalidParameter(format!(
                    "spread_threads = {t}: use 1 to 16 host threads per device"
                )));
            }
        }
        self.tuning.validate()
    }
}

/// The GPU kernels' code-generation and launch knobs (a field of
/// [`GpuGramParams`]). They change speed, never values. Every field that
/// changes a kernel's source is part of the generated source, so of its
/// name and cache key: two calls with different tunings in one process
/// never share a compiled module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Tuning {
    /// Nonzeros of the second graph each lane holds in the batched XMV
    /// (`MGK_LANE_NZ`, 1 to 4); `None` (the default): 4 in `f32`, 2 in
    /// `f64` (the fastest without register spills on an H100).
    pub lane_nz: Option<u32>,
    /// Nonzero products `nnz(T)·nnz(T′)` from which a tile pair uses the
    /// row-structured primitive rather than the sparse one (tile-pair XMV,
    /// compiled into the batched kernel; the single-large-pair path and the
    /// device Kronecker operator take it at launch). Default 64.
    pub dense_min: u32,
    /// Threads per block of the batched kernels (a multiple of 32 up to
    /// 1024; launch time, not in the source); `None` (the default): by the
    /// mean pair size.
    pub block: Option<u32>,
    /// Copies of the global-vector PCG in the batched value kernel (1 or
    /// 2; default 1): 2 inlines one copy for graphs staged in shared memory
    /// and one for graphs staged in global memory; 1 has one copy for both
    /// (generic loads of the graphs, less to compile).
    pub global_copies: u32,
    /// NVRTC's fast math for the `f32` value kernels (batched and large
    /// pair) whose label kernels divide or call `exp`, `log`, `pow` or
    /// `sqrt` (default `true`): those are evaluated once per nonzero
    /// product of every XMV (see `src/mgk/gpu/codegen.rs`).
    pub fast_math: bool,
    /// The row-scheme XMV's G′ in row-major order, a lane's nonzeros
    /// consecutive and summed per row before one atomic (default `false`;
    /// `kernels/mgk_xmv.cu`, `MGK_XMV_CSR`); `false`: octile order, every
    /// 32nd nonzero per lane. On an H100 (issue 31) `true` was 4 % faster
    /// on BA96L and 5 % slower on NWS96L, 10–25 % slower on NWS96, BA96 and
    /// MUTAG.
    pub xmv_csr: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning { lane_nz: None, dense_min: 64, block: None, global_copies: 1, fast_math: true, xmv_csr: false }
    }
}

impl Tuning {
    /// The lane count in use for `precision`.
    pub fn lane_nz(&self, precision: Precision) -> u32 {
        self.lane_nz.unwrap_or(match precision {
            Precision::F32 => 4,
            Precision::F64 => 2,
        })
    }

    /// Sets [`lane_nz`](Self::lane_nz).
    #[must_use]
    pub fn with_lane_nz(mut self, lane_nz: Option<u32>) -> Self {
        self.lane_nz = lane_nz;
        self
    }

    /// Sets [`dense_min`](Self::dense_min).
    #[must_use]
    pub fn with_dense_min(mut self, dense_min: u32) -> Self {
        self.dense_min = dense_min;
        self
    }

    /// Sets [`block`](Self::block).
    #[must_use]
    pub fn with_block(mut self, block: Option<u32>) -> Self {
        self.block = block;
        self
    }

    /// Sets [`global_copies`](Self::global_copies).
    #[must_use]
    pub fn with_global_copies(mut self, copies: u32) -> Self {
        self.global_copies = copies;
        self
    }

    /// Sets [`fast_math`](Self::fast_math).
    #[must_use]
    pub fn with_fast_math(mut self, on: bool) -> Self {
        self.fast_math = on;
        self
    }

    /// Sets [`xmv_csr`](Self::xmv_csr).
    #[must_use]
    pub fn with_xmv_csr(mut self, on: bool) -> Self {
        self.xmv_csr = on;
        self
    }

    /// Checks `lane_nz` (1 to 4), `block` (a multiple of 32 from 32 to
    /// 1024) and `global_copies` (1 or 2).
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] naming the field and its range.
    pub fn validate(&self) -> Result<(), MgkError> {
        if let Some(k) = self.lane_nz {
            if !(1..=4).contains(&k) {
                return Err(MgkError::InvalidParameter(format!("tuning lane_nz = {k}: use 1 to 4")));
            }
        }
        if let Some(b) = self.block {
            if !((32..=1024).contains(&b) && b % 32 == 0) {
                return Err(MgkError::InvalidParameter(format!(
                    "tuning block = {b}: use a multiple of 32 from 32 to 1024 threads"
                )));
            }
        }
        if !(1..=2).contains(&self.global_copies) {
            return Err(MgkError::InvalidParameter(format!(
                "tuning global_copies = {}: use 1 or 2",
                self.global_copies
            )));
        }
        Ok(())
    }
}
