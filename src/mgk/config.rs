//! [`MgkConfig`]: the one configuration of the marginalized graph kernel,
//! with one set of defaults and one validation, for every backend.

use super::gpu_params::GpuGramParams;
use super::system::KronSystem;
use super::MgkError;
use crate::backend::Precision;
use crate::graph::reorder::Method;

/// The smallest stop probability `q` (on every backend): below it the
/// system's margin of positive definiteness (about `2q`) is lost to
/// rounding and the system is singular.
pub const MIN_Q: f64 = 1e-10;

/// The smallest relative-residual tolerance a solve in `precision` can
/// reach (`1e-15` in `f64`, `1e-7` in `f32`), on every backend.
pub fn min_tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => 1e-15,
        Precision::F32 => 1e-7,
    }
}

/// The message for a tolerance below [`min_tolerance`], if it is.
pub(crate) fn tolerance_below_floor(tol: f64, precision: Precision) -> Option<String> {
    let floor = min_tolerance(precision);
    (tol < floor).then(|| {
        format!(
            "tolerance {tol:e} is below what {precision:?} arithmetic can reach: use a tolerance (--tol) of at least \
             {floor:e}"
        )
    })
}

/// How the batched kernel applies the off-diagonal operator
/// y += ((W ⊗ W′) ⊙ E×) p, the XMV of each PCG iteration (see the header of
/// `kernels/mgk_pcg.cu`); the GPU backend only (the CPU has one product). Both compute the same product, with the operator's
/// weights w w′ κe computed on the fly; they differ in how the work is cut
/// and what is staged in shared memory. Only the value kernels (`gram`,
/// `gram_xy`, `diag`, `nodal`) follow it; the gradient kernel and the
/// single-large-pair path have their own XMV.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum XmvScheme {
    /// The row scheme (the default, 2–5× faster than
    /// [`TilePairs`](Self::TilePairs) on every reference data set): G staged
    /// by rows, G′ as its list of nonzeros in octile order; a warp takes a
    /// row i of G and a chunk of `32 · MGK_LANE_NZ` nonzeros of G′, sums
    /// over row i in registers and adds with one shared atomic per nonzero
    /// of G′. Work O(nnz · nnz′) per product, independent of how the
    /// nonzeros fall into octiles.
    #[default]
    Rows,
    /// The tile-pair scheme (the earlier design, kept for comparison and
    /// study): both graphs staged as octiles; the warps share out the pairs
    /// of non-empty octiles, and each tile pair uses a row-structured
    /// ("dense") primitive when nnz(T) · nnz(T′) ≥ the dense threshold
    /// ([`Tuning::dense_min`](super::Tuning::dense_min), default 64, compiled into the kernel),
    /// else a sparse one (lanes share out the nonzero pairs, one shared
    /// atomic per product). Every tile pair is visited, so a product costs
    /// at least nt · nt′ warp steps: slower on sparse graphs whose octiles
    /// hold few nonzeros.
    TilePairs,
}

impl std::str::FromStr for XmvScheme {
    type Err = String;

    /// Parses `rows` or `tiles` / `tile-pairs`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "rows" => Ok(XmvScheme::Rows),
            "tiles" | "tile-pairs" | "tilepairs" => Ok(XmvScheme::TilePairs),
            _ => Err(format!("unknown XMV scheme {s:?}: expected rows or tiles")),
        }
    }
}

/// The configuration of the marginalized graph kernel, the same on every
/// backend (see the [module documentation](super) for the system solved).
///
/// [`MarginalizedGraphKernel`](super::MarginalizedGraphKernel) holds one
/// (its builder methods set the fields); the GPU's
/// `GpuGram` (feature `cuda`) takes one directly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MgkConfig {
    /// Stop probability q ∈ (0, 1) (default 0.05).
    pub q: f64,
    /// 0 (the default): the full kernel; 1: subtract the length-one term Σ p p′ κv.
    pub lmin: u32,
    /// Relative residual tolerance of the solves (‖r‖ ≤ tol ‖b‖). `None`:
    /// the precision's [default](Precision::default_tolerance), `1e-12` in
    /// `f64`, `1e-6` in `f32`.
    pub tol: Option<f64>,
    /// Most solver iterations per pair (default 10 000).
    pub max_iter: u32,
    /// Precision of the arithmetic (default `f64`).
    pub precision: Precision,
    /// Node reordering applied to each graph before packing, to gather its
    /// nonzeros into fewer, denser octiles (K is invariant under it; nodal
    /// outputs are mapped back to the original order). Default `Natural`
    /// (none): the GPU's default row scheme's speed does not depend on the
    /// number of tiles (on an H100 natural, RCM and PBR orders ran within
    /// 10 % of each other on NWS96, BA96, MUTAG and PROTEINS), while PBR
    /// costs time (0.15 s on BA96). With [`XmvScheme::TilePairs`], RCM or PBR
    /// pay (fewer tile pairs; docs/PERFORMANCE.md).
    pub reorder: Method,
    /// How the GPU's batched value kernel applies the operator in each PCG
    /// iteration ([`XmvScheme`]; default [`XmvScheme::Rows`]). The results
    /// agree to rounding; only the speed differs. The CPU ignores it.
    pub xmv: XmvScheme,
    /// The Kronecker system solved per pair; `None` (the default): the
    /// marginalized graph kernel's, [`KronSystem::marginalized`]`(q)`. Another
    /// system (e.g. [`KronSystem::random_walk`]) runs through the same API on
    /// every backend; gradients are defined for the default only.
    pub system: Option<KronSystem>,
    /// The GPU backend's paths and kernel tuning ([`GpuGramParams`];
    /// default: the automatic choices). They change speed, not values; the
    /// CPU ignores them.
    pub gpu: GpuGramParams,
}

impl Default for MgkConfig {
    fn default() -> Self {
        MgkConfig {
            q: 0.05,
            lmin: 0,
            tol: None,
            max_iter: 10_000,
            precision: Precision::F64,
            reorder: Method::Natural,
            xmv: XmvScheme::Rows,
            system: None,
            gpu: GpuGramParams::default(),
        }
    }
}

impl MgkConfig {
    /// The tolerance in use: [`tol`](Self::tol) or the precision's default.
    pub fn tolerance(&self) -> f64 {
        self.tol.unwrap_or(self.precision.default_tolerance())
    }

    /// The system in use: [`system`](Self::system) or the marginalized graph
    /// kernel's for `q`.
    pub fn system(&self) -> KronSystem {
        self.system.unwrap_or(KronSystem::marginalized(self.q))
    }

    /// Checks `q ∈ (0, 1)` and `q ≥` [`MIN_Q`], `lmin ∈ {0, 1}`,
    /// `tol ∈ (0, 1)` and not below what the precision reaches
    /// ([`min_tolerance`]), `max_iter ≥ 1`, and a custom system's scale
    /// (finite, > 0). Every backend runs this check before solving.
    ///
    /// # Errors
    /// [`MgkError::InvalidQ`], [`MgkError::QTooSmall`],
    /// [`MgkError::InvalidLmin`] or [`MgkError::InvalidParameter`] naming the
    /// parameter, its range and what to change.
    pub fn validate(&self) -> Result<(), MgkError> {
        if !(self.q > 0.0 && self.q < 1.0) {
            return Err(MgkError::InvalidQ(self.q));
        }
        if self.q < MIN_Q {
            return Err(MgkError::QTooSmall(self.q));
        }
        if self.lmin > 1 {
            return Err(MgkError::InvalidLmin(self.lmin));
        }
        let tol = self.tolerance();
        if !(tol > 0.0 && tol < 1.0) {
            return Err(MgkError::InvalidParameter(format!("tolerance {tol} must lie in (0, 1)")));
        }
        if let Some(msg) = tolerance_below_floor(tol, self.precision) {
            return Err(MgkError::InvalidParameter(msg));
        }
        if let Some(s) = self.system {
            if !(s.scale.is_finite() && s.scale > 0.0) {
                return Err(MgkError::InvalidParameter(format!(
                    "the Kronecker system's scale {} must be finite and > 0",
                    s.scale
                )));
            }
        }
        if self.max_iter == 0 {
            return Err(MgkError::InvalidParameter("max_iter = 0: allow at least one iteration".into()));
        }
        self.gpu.validate()
    }
}
