//! The geometric random-walk kernel and its node-labeled variant: the public
//! type here, per-graph data in `prep.rs`, the CPU's pairs in `pairs.rs`, the
//! GPU in `backend.rs` and `gpu_pairs.rs` (the device code in `gpu/`).
//!
//! It shares the marginalized graph kernel's result types, errors and
//! weight scaling ([`crate::mgk`]) and, for the pairs the series does not
//! cover, its GPU engine (as the `KronSystem::random_walk(λ)` instance).

use crate::graph::{Graph, Label};
use crate::mgk::system::{scale_pow2, unit_weights};
use crate::mgk::{Matrix, MgkError, Progress, SolverProgress};

/// The public Gram methods of the random-walk kernels ([`RandomWalkKernel`]
/// and [`WalkSeriesKernel`]), one implementation for both: each type has
/// `unlabeled_grams(x, y, grad)` and `labeled_grams(x, y, grad)` returning
/// the Gram matrix and its derivative in `log λ`; `$errors` is the text of
/// the methods' `# Errors` section and `$gradient` the description of
/// `gram_with_gradient`.
macro_rules! walk_gram_methods {
    ($errors:literal, $gradient:literal) => {
        /// The Gram matrix of one list (symmetric; each pair once).
        ///
        /// # Errors
        #[doc = $errors]
        pub fn gram<N: Label, E: Label>(&self, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
            Ok(self.unlabeled_grams(x, None, false)?.0)
        }

        /// The cross Gram matrix `k(X_a, Y_b)`.
        ///
        /// # Errors
        #[doc = $errors]
        pub fn gram_xy<N: Label, E: Label>(&self, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
            Ok(self.unlabeled_grams(x, Some(y), false)?.0)
        }

        /// The node-labeled Gram matrix of one list: walks restricted to node
        /// pairs with equal labels (labels compared with `==`).
        ///
        /// # Errors
        #[doc = $errors]
        pub fn gram_labeled<N: Label + PartialEq, E: Label>(&self, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
            Ok(self.labeled_grams(x, None, false)?.0)
        }

        /// The node-labeled cross Gram matrix.
        ///
        /// # Errors
        #[doc = $errors]
        pub fn gram_xy_labeled<N: Label + PartialEq, E: Label>(
            &self,
            x: &[Graph<N, E>],
            y: &[Graph<N, E>],
        ) -> Result<Matrix, MgkError> {
            Ok(self.labeled_grams(x, Some(y), false)?.0)
        }

        /// The Gram matrix of `x` (against `y` when given; `labeled` as
        /// [`gram_labeled`](Self::gram_labeled)) and its derivative in `log λ`,
        #[doc = $gradient]
        ///
        /// # Errors
        #[doc = $errors]
        pub fn gram_with_gradient<N: Label + PartialEq, E: Label>(
            &self,
            x: &[Graph<N, E>],
            y: Option<&[Graph<N, E>]>,
            labeled: bool,
        ) -> Result<(Matrix, Matrix), MgkError> {
            if labeled {
                self.labeled_grams(x, y, true)
            } else {
                self.unlabeled_grams(x, y, true)
            }
        }
    };
}

mod backend;
pub(crate) mod gpu;
mod gpu_pairs;
mod pairs;
mod prep;
mod series_gpu;
#[cfg(test)]
mod series_terms_tests;
mod variants;

pub use series_gpu::{AUTO_CPU_GPU_RATIO, AUTO_MATCHED_PER_THREAD};
pub use variants::{WalkSeriesKernel, WalkWeights, MAX_STEPS, MAX_WALK_TERMS};

use pairs::RwFail;
use prep::{bounds_of, rw_scale, series_terms, RwScale, MAX_TERMS, SERIES_TAIL};

/// The CUDA C++ source of the moment series on the GPU
/// (`kernels/rw_series.cu`, compiled by NVRTC at first use), for tests that
/// compile it with NVRTC (feature `testing`).
#[cfg(feature = "testing")]
pub const SERIES_CUDA_SOURCE: &str = self::gpu::series::SOURCE;
/// The CUDA C++ source of the fixed-point iteration (directed graphs, plain
/// and node-labeled; `kernels/rw_fixed.cu`), for tests that compile it with
/// NVRTC (feature `testing`).
#[cfg(feature = "testing")]
pub const FIXED_CUDA_SOURCE: &str = self::gpu::fixed::SOURCE;

/// How [`RandomWalkKernel`] computes unlabeled pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RwMethod {
    /// [`Series`](Self::Series) where it applies (undirected graphs, a
    /// rigorous truncation bound within 400 terms), else
    /// [`Solver`](Self::Solver).
    #[default]
    Auto,
    /// The moment series `k = Σ_k λ^k m_k m'_k` with `m_k = 1ᵀ W^k 1`
    /// (see [`RandomWalkKernel`]); falls back to the solver where it does
    /// not apply.
    Series,
    /// Conjugate gradients on `(I − λ W ⊗ W') x = 1` through the lazy
    /// [`KronProduct`](crate::kron::KronProduct) (BiCGSTAB for directed graphs).
    Solver,
}

/// The geometric random-walk kernel (Gärtner et al. 2003; Vishwanathan et
/// al. 2010), what GraKeL's `RandomWalk` computes:
///
/// ```text
/// k(G, G') = 1ᵀ (I − λ W ⊗ W')⁻¹ 1 = Σ_{k≥0} λ^k 1ᵀ (W ⊗ W')^k 1
/// ```
///
/// defined when `λ ρ(W) ρ(W') < 1` (then `I − λ W⊗W'` is positive definite
/// for undirected graphs and the series converges).
///
/// The node-labeled variant ([`gram_labeled`](Self::gram_labeled)) restricts
/// the product graph to node pairs with equal labels (walks that match
/// label by label): `k = 1ᵀ (I − λ P(W ⊗ W')P)⁻¹ 1` on that subspace, solved
/// by CG on the compact [`MatchedKron`](crate::kron::MatchedKron). This is the standard definition and
/// GraKeL's `RandomWalkLabeled` with `method_type="baseline"`; GraKeL
/// 0.1.11's `"fast"` method matches labels crosswise (a transpose is
/// missing there), so its values differ slightly.
///
/// # The moment series (unlabeled, undirected)
///
/// Since `1ᵀ (W ⊗ W')^k 1 = (1ᵀ W^k 1)(1ᵀ W'^k 1) = m_k m'_k`, the kernel
/// is `Σ_k λ^k m_k m'_k`: the moments are computed once per graph (`K`
/// sparse products, `O(K·nnz)`), and a pair costs `O(K)` instead of a solve.
/// This is the Kronecker-spectral idea of Vishwanathan et al. without an
/// eigendecomposition. All terms are non-negative (no cancellation), and
/// with upper bounds `ρ̂ ≥ ρ(W)` (Collatz–Wielandt: `ρ(W) ≤ max_i (Wv)_i / v_i`
/// for any `v > 0`, taken after a few power steps) the tail after `K` terms
/// is below `(λρ̂ρ̂')^{K+1} / (1 − λρ̂ρ̂')` relative to `k ≥ n n'`; `K` is
/// chosen to make it `≤ 1e-16`. Where `λρ̂ρ̂'` is too close to 1 (more than
/// 400 terms) the pair is solved by CG instead.
///
/// # Convergence and extreme weights
///
/// The kernel is defined only when `λ ρ(W) ρ(W') < 1`. Spectral radii are
/// bracketed by Collatz–Wielandt bounds `min_i (Wv)_i/v_i ≤ ρ(W) ≤
/// max_i (Wv)_i/v_i` (any `v > 0`, here after power steps on `W + I`,
/// [`spectral_radius_bounds`](Self::spectral_radius_bounds)). A pair is
/// refused with [`MgkError::LambdaTooLarge`], naming the largest λ that
/// works, when the lower bounds already give `λ ρ ρ' ≥ 1`; for directed
/// graphs also when the upper bounds cannot certify `λ ρ ρ' < 1` (BiCGSTAB
/// itself would return a finite but meaningless solution there); for
/// undirected graphs CG detects the loss of positive definiteness. Directed
/// pairs are solved by BiCGSTAB, which falls back to the fixed-point
/// iteration `x ← 1 + λ (W⊗W') x` (convergent when `λ ρ ρ' < 1`) where it
/// breaks down (e.g. on a directed cycle).
///
/// The kernel is not invariant to scaling the weights, but it depends on
/// `λ` and `W ⊗ W'` only through `λ W ⊗ W'`: each graph's weights are
/// scaled by an exact power of two `2^−e` (see
/// [`system::unit_weights`](crate::mgk::system::unit_weights)) and `λ` by
/// `2^(e + e')`, so that weights of `1e±150` neither overflow nor
/// underflow. Where `λ 2^(e+e')` underflows to 0 the walk terms are below
/// `2⁻¹⁰⁷⁴` of the first one and `k = n n'` to rounding; where it
/// overflows, the pair is refused. Values that are negative or not finite
/// are never returned.
#[derive(Clone)]
pub struct RandomWalkKernel {
    lambda: f64,
    precision: crate::backend::Precision,
    method: RwMethod,
    tol: f64,
    max_iters: usize,
    progress: Option<Progress>,
    solver_progress: Option<SolverProgress>,
}

impl std::fmt::Debug for RandomWalkKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RandomWalkKernel")
            .field("lambda", &self.lambda)
            .field("method", &self.method)
            .field("precision", &self.precision)
            .field("tol", &self.tol)
            .field("max_iters", &self.max_iters)
            .finish()
    }
}

impl RandomWalkKernel {
    /// The kernel with decay `λ > 0`; method [`RwMethod::Auto`], relative
    /// residual `1e-12`.
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] unless `λ` is finite and positive.
    pub fn new(lambda: f64) -> Result<Self, MgkError> {
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(MgkError::InvalidParameter(format!("random-walk λ = {lambda} must be finite and > 0")));
        }
        Ok(RandomWalkKernel {
            lambda,
            precision: crate::backend::Precision::F64,
            method: RwMethod::Auto,
            tol: 1e-12,
            max_iters: 10_000,
            progress: None,
            solver_progress: None,
        })
    }

    /// Sets the precision of the GPU backend's solves (the CPU computes in
    /// `f64`). Also sets the tolerance to the precision's default
    /// ([`Precision::default_tolerance`](crate::backend::Precision::default_tolerance));
    /// call [`with_tolerance`](Self::with_tolerance) after it to change that.
    pub fn with_precision(mut self, precision: crate::backend::Precision) -> Self {
        self.precision = precision;
        self.tol = precision.default_tolerance();
        self
    }

    /// Sets the method for unlabeled pairs.
    pub fn with_method(mut self, method: RwMethod) -> Self {
        self.method = method;
        self
    }

    /// Sets the relative-residual tolerance of the solves (default `1e-12`).
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] unless `1e-15 ≤ tol < 1` (smaller
    /// tolerances are below what double precision reaches).
    pub fn with_tolerance(mut self, tol: f64) -> Result<Self, MgkError> {
        if !(tol > 0.0 && tol < 1.0) {
            return Err(MgkError::InvalidParameter(format!("tolerance {tol} must lie in (0, 1)")));
        }
        if let Some(msg) = crate::mgk::tolerance_below_floor(tol, crate::backend::Precision::F64) {
            return Err(MgkError::InvalidParameter(msg));
        }
        self.tol = tol;
        Ok(self)
    }

    /// Sets the iteration limit of each solve (default 10 000).
    pub fn with_max_iters(mut self, max_iters: usize) -> Self {
        self.max_iters = max_iters;
        self
    }

    /// Sets a progress callback, called with `(pairs done, total)`.
    pub fn with_progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Sets a per-iteration progress callback for long single pairs (see
    /// [`SolverProgress`]).
    pub fn with_solver_progress(mut self, progress: SolverProgress) -> Self {
        self.solver_progress = Some(progress);
        self
    }

    /// λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// An upper bound on the spectral radius `ρ(W)` of a graph's weighted
    /// adjacency: the upper end of
    /// [`spectral_radius_bounds`](Self::spectral_radius_bounds).
    pub fn spectral_radius_bound<N: Label, E: Label>(g: &Graph<N, E>) -> f64 {
        Self::spectral_radius_bounds(g).1
    }

    /// Bounds `lo ≤ ρ(W) ≤ hi` on the spectral radius of a graph's weighted
    /// adjacency (directed or not): Collatz–Wielandt bounds
    /// `min_i (Wv)_i / v_i ≤ ρ(W) ≤ max_i (Wv)_i / v_i`, valid for any
    /// non-negative `W` and `v > 0`, taken after up to 200 power steps on
    /// `W + I` (the shift keeps `v > 0` and makes the iteration converge on
    /// periodic graphs such as directed cycles), stopping once
    /// `hi − lo ≤ 1e-9 hi`. `O(200 (n + nnz))`. The weights are scaled by a
    /// power of two first, so extreme weights do not overflow (the bounds
    /// themselves may, as `f64`).
    pub fn spectral_radius_bounds<N: Label, E: Label>(g: &Graph<N, E>) -> (f64, f64) {
        match unit_weights(g) {
            Ok((s, e)) => {
                let (lo, hi) = bounds_of(&s);
                (scale_pow2(lo, e), scale_pow2(hi, e))
            }
            Err(_) => bounds_of(g),
        }
    }

    /// A safe bound `1 / (ρ̂(W) ρ̂(W'))` (with the upper bounds of
    /// [`spectral_radius_bound`](Self::spectral_radius_bound)): every
    /// `λ` below it is valid for the pair.
    pub fn lambda_limit<N: Label, E: Label>(g: &Graph<N, E>, h: &Graph<N, E>) -> f64 {
        match (unit_weights(g), unit_weights(h)) {
            (Ok((a, ea)), Ok((b, eb))) => scale_pow2(1.0 / (bounds_of(&a).1 * bounds_of(&b).1), -(ea + eb)),
            _ => 1.0 / (Self::spectral_radius_bound(g) * Self::spectral_radius_bound(h)),
        }
    }

    /// `k(G, G')` for one pair.
    ///
    /// # Errors
    /// [`MgkError::LambdaTooLarge`] when `I − λ W⊗W'` is not positive
    /// definite; [`MgkError::Solver`] when a solve fails otherwise.
    pub fn pair<N: Label, E: Label>(&self, g: &Graph<N, E>, h: &Graph<N, E>) -> Result<f64, MgkError> {
        Ok(self.gram_xy(std::slice::from_ref(g), std::slice::from_ref(h))?.get(0, 0))
    }

    walk_gram_methods!(
        "As [`pair`](Self::pair).",
        "`λ ∂k/∂λ = λ 1ᵀ A⁻¹ W× A⁻¹ 1` with `A = I − λ W×`, on the CPU:

- moment series: `Σ_k k λ^k m_k m'_k` beside `Σ_k λ^k m_k m'_k`;
- undirected pairs solved by CG: `λ xᵀ W× x` with `A x = 1`
  (`A` is symmetric), one product with `W×` after the solve;
- directed pairs: `λ 1ᵀ z` with `A z = W× x`, a second solve.

Every term of the walk series is non-negative, so the derivative is
too (`Σ_k k λ^k 1ᵀ W×^k 1`)."
    );
}
