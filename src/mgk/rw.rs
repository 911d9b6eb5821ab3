//! The geometric random-walk kernel and its node-labeled variant.

use super::system::{scale_pow2, unit_weights};
use super::{Matrix, MgkError, Progress, SolverProgress};
use crate::graph::{Graph, Label};
use crate::kron::{ClassPacking, Diag, KronApply, KronProduct, MatchedKron, Octiles, ShiftedKron, Unlabeled};
use crate::solver::{
    bicgstab_or_fixed_point, cg, BicgstabParams, CgParams, LinOp, Monitor, Preconditioner, SolverError, Workspace,
};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

mod backend;
mod gpu_pairs;

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
    /// [`KronProduct`] (BiCGSTAB for directed graphs).
    Solver,
}

/// Largest number of series terms before falling back to the solver.
const MAX_TERMS: usize = 400;

/// The bound on the series' tail, relative to the kernel, that the number
/// of terms is chosen for.
const SERIES_TAIL: f64 = 1e-16;

/// The truncation rule of the moment series, for both backends (the GPU
/// evaluates the same formula with these constants passed at launch): with
/// `r = λ ρ̂ ρ̂'` (scaled weights), the terms `k = 0..=K` for
/// `K = ⌈ln(SERIES_TAIL (1 − r)) / ln r⌉` (1 when `r = 0`) leave a tail
/// below `SERIES_TAIL` relative to the kernel; `None` when `r ≥ 1` or
/// `K > MAX_TERMS` (the pair is solved instead).
fn series_terms(r: f64) -> Option<usize> {
    if r.is_nan() || r >= 1.0 {
        return None;
    }
    let terms = if r == 0.0 { 1 } else { ((SERIES_TAIL * (1.0 - r)).ln() / r.ln()).ceil() as usize };
    (terms <= MAX_TERMS).then_some(terms)
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
/// by CG on the compact [`MatchedKron`]. This is the standard definition and
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
/// [`system::unit_weights`](super::system::unit_weights)) and `λ` by
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

/// Per-graph data of the unlabeled kernel.
struct RwGraph<E> {
    n: usize,
    scale: RwScale,
    /// `m_k / ρ̂^k`, `k = 0..=MAX_TERMS` (only when the series may apply).
    moments: Vec<f64>,
    oct: Octiles<f64, E>,
}

/// What the convergence check needs of a graph whose weights were scaled
/// by `2^−exp` (the bounds are those of the scaled weights).
#[derive(Clone, Copy, Debug)]
struct RwScale {
    exp: i32,
    lo: f64,
    hi: f64,
    directed: bool,
}

/// Why a pair failed.
enum RwFail {
    Solver(SolverError),
    Lambda(String),
    Value(f64),
}

impl From<SolverError> for RwFail {
    fn from(e: SolverError) -> Self {
        RwFail::Solver(e)
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
        if let Some(msg) = super::config::tolerance_below_floor(tol, crate::backend::Precision::F64) {
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

    /// The Gram matrix of one list (symmetric; each pair once).
    ///
    /// # Errors
    /// As [`pair`](Self::pair).
    pub fn gram<N: Label, E: Label>(&self, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let prep = self.prepare(x)?;
        let pairs = upper(x.len());
        let v = self
            .run_pairs(&pairs, |ws, a, b| self.unlabeled_pair(&prep[a], &prep[b], (a, b), ws).map_err(|e| (a, b, e)))?;
        Ok(fill(x.len(), x.len(), &pairs, &v, true))
    }

    /// The cross Gram matrix `k(X_a, Y_b)`.
    ///
    /// # Errors
    /// As [`pair`](Self::pair).
    pub fn gram_xy<N: Label, E: Label>(&self, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let (px, py) = (self.prepare(x)?, self.prepare(y)?);
        let pairs = all(x.len(), y.len());
        let v =
            self.run_pairs(&pairs, |ws, a, b| self.unlabeled_pair(&px[a], &py[b], (a, b), ws).map_err(|e| (a, b, e)))?;
        Ok(fill(x.len(), y.len(), &pairs, &v, false))
    }

    /// The node-labeled Gram matrix of one list: walks restricted to node
    /// pairs with equal labels (labels compared with `==`).
    ///
    /// # Errors
    /// As [`pair`](Self::pair).
    pub fn gram_labeled<N: Label + PartialEq, E: Label>(&self, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let classes = node_classes(x.iter());
        let packs = labeled_packs(x.iter().collect(), &classes)?;
        let pairs = upper(x.len());
        let v = self
            .run_pairs(&pairs, |ws, a, b| self.labeled_pair(&packs[a], &packs[b], (a, b), ws).map_err(|e| (a, b, e)))?;
        Ok(fill(x.len(), x.len(), &pairs, &v, true))
    }

    /// The node-labeled cross Gram matrix.
    ///
    /// # Errors
    /// As [`pair`](Self::pair).
    pub fn gram_xy_labeled<N: Label + PartialEq, E: Label>(
        &self,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
    ) -> Result<Matrix, MgkError> {
        let classes = node_classes(x.iter().chain(y));
        let packs = labeled_packs(x.iter().chain(y).collect(), &classes)?;
        let (px, py) = packs.split_at(x.len());
        let pairs = all(x.len(), y.len());
        let v =
            self.run_pairs(&pairs, |ws, a, b| self.labeled_pair(&px[a], &py[b], (a, b), ws).map_err(|e| (a, b, e)))?;
        Ok(fill(x.len(), y.len(), &pairs, &v, false))
    }

    // ----------------------------------------------------------- internals

    fn use_series(&self) -> bool {
        self.method != RwMethod::Solver
    }

    fn prepare<N: Label, E: Label>(&self, x: &[Graph<N, E>]) -> Result<Vec<RwGraph<E>>, MgkError> {
        x.par_iter()
            .enumerate()
            .map(|(i, g)| {
                let (g, scale) = rw_scale(g, i)?;
                let series = self.use_series()
                    && !scale.directed
                    && scale_pow2(self.lambda, 2 * scale.exp) * scale.hi * scale.hi < 1.0;
                let moments = if series { scaled_moments(&g, scale.hi) } else { Vec::new() };
                let oct = Octiles::new(&g);
                Ok(RwGraph { n: g.num_nodes(), scale, moments, oct })
            })
            .collect::<Vec<Result<_, MgkError>>>()
            .into_iter()
            .collect()
    }

    /// λ for the pair's scaled weights, `λ 2^(e + e')`, after checking
    /// `λ ρ ρ' < 1` (see the type's documentation).
    fn pair_lambda(&self, a: &RwScale, b: &RwScale) -> Result<f64, RwFail> {
        let lam = scale_pow2(self.lambda, a.exp + b.exp);
        let limit = scale_pow2(1.0 / (a.hi * b.hi), -(a.exp + b.exp));
        let advice = if limit > 0.0 && limit.is_finite() {
            format!("use λ < {limit:.6e} (--lambda) for this pair")
        } else {
            "no λ representable in double precision works: scale the weights towards 1".to_string()
        };
        if !lam.is_finite() || lam * a.lo * b.lo >= 1.0 {
            return Err(RwFail::Lambda(format!(
                "λ ρ(W) ρ(W') ≥ {:.6} (ρ between Collatz–Wielandt bounds), so the series diverges; {advice}",
                lam * a.lo * b.lo
            )));
        }
        if (a.directed || b.directed) && lam * a.hi * b.hi >= 1.0 {
            return Err(RwFail::Lambda(format!(
                "λ ρ(W) ρ(W') < 1 cannot be certified for these directed graphs (upper bound {:.6}); {advice}",
                lam * a.hi * b.hi
            )));
        }
        Ok(lam)
    }

    /// The solver's monitor for pair `(a, b)`, if a callback is set.
    fn monitor(&self, pair: (usize, usize)) -> Option<Monitor> {
        self.solver_progress.clone().map(|f| Monitor::new(move |it, res| f(pair, it, res)))
    }

    fn run_pairs<F>(&self, pairs: &[(usize, usize)], f: F) -> Result<Vec<f64>, MgkError>
    where
        F: Fn(&mut Workspace<Vec<f64>>, usize, usize) -> Result<f64, (usize, usize, RwFail)> + Sync,
    {
        let total = pairs.len();
        let done = AtomicUsize::new(0);
        pairs
            .par_iter()
            .map_init(Workspace::new, |ws, &(a, b)| {
                let v = f(ws, a, b).map_err(|(a, b, e)| self.map_error(a, b, e))?;
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(p) = &self.progress {
                    p(d, total);
                }
                Ok(v)
            })
            .collect()
    }

    fn map_error(&self, a: usize, b: usize, e: RwFail) -> MgkError {
        match e {
            RwFail::Lambda(detail) => MgkError::LambdaTooLarge { lambda: self.lambda, pair: (a, b), detail },
            RwFail::Value(value) => MgkError::InvalidValue {
                pair: (a, b),
                value,
                detail: "not finite or negative: λ ρ(W) ρ(W') is too close to 1 for the solve; lower λ (--lambda)"
                    .into(),
            },
            RwFail::Solver(source) => {
                let advice = match &source {
                    SolverError::NoConvergence { iterations, .. } => format!(
                        "no convergence within {iterations} iterations: λ ρ(W) ρ(W') is close to 1; lower λ \
                         (--lambda) or raise the tolerance"
                    ),
                    SolverError::Breakdown { .. } => "a value overflowed or became NaN: lower λ (--lambda) or \
                         check the weights"
                        .to_string(),
                    _ => "internal error".to_string(),
                };
                MgkError::Solver { pair: (a, b), source, advice }
            }
        }
    }

    /// The value of a pair, checked: finite and non-negative.
    fn checked(v: f64) -> Result<f64, RwFail> {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(RwFail::Value(v))
        }
    }

    /// CG's loss of positive definiteness means `λ ρ ρ' ≥ 1` (undirected).
    fn not_pd(&self, e: SolverError, a: &RwScale, b: &RwScale) -> RwFail {
        match e {
            SolverError::NonPositiveDefinite { curvature, iteration } => {
                let limit = scale_pow2(1.0 / (a.hi * b.hi), -(a.exp + b.exp));
                RwFail::Lambda(format!(
                    "I − λ W⊗W' is not positive definite (pᵀAp = {curvature:e} at CG iteration {iteration}); \
                     λ < {limit:.6e} (--lambda) works for this pair"
                ))
            }
            e => RwFail::Solver(e),
        }
    }

    fn unlabeled_pair<E: Label>(
        &self,
        a: &RwGraph<E>,
        b: &RwGraph<E>,
        pair: (usize, usize),
        ws: &mut Workspace<Vec<f64>>,
    ) -> Result<f64, RwFail> {
        let lam = self.pair_lambda(&a.scale, &b.scale)?;
        let r = lam * a.scale.hi * b.scale.hi;
        if self.use_series() && !a.moments.is_empty() && !b.moments.is_empty() {
            if let Some(terms) = series_terms(r) {
                let mut s = 0.0;
                let mut rk = 1.0;
                for k in 0..=terms {
                    s += rk * a.moments[k] * b.moments[k];
                    rk *= r;
                }
                return Self::checked(s);
            }
        }
        let kron = KronProduct::new(&a.oct, &b.oct, &Unlabeled);
        let op = ShiftedKron::new(Diag::Const(1.0), lam, &kron);
        debug_assert_eq!(op.nrows(), a.n * b.n);
        let v = self
            .solve_ones(&op, ws, a.scale.directed || b.scale.directed, pair)
            .map_err(|e| self.not_pd(e, &a.scale, &b.scale))?;
        Self::checked(v)
    }

    fn labeled_pair(
        &self,
        a: &(ClassPacking<f64>, RwScale),
        b: &(ClassPacking<f64>, RwScale),
        pair: (usize, usize),
        ws: &mut Workspace<Vec<f64>>,
    ) -> Result<f64, RwFail> {
        let ((a, sa), (b, sb)) = (a, b);
        let kron = MatchedKron::new(a, b);
        if kron.dim() == 0 {
            return Ok(0.0);
        }
        let lam = self.pair_lambda(sa, sb)?;
        let op = ShiftedKron::new(Diag::Const(1.0), lam, &kron);
        let v = self.solve_ones(&op, ws, sa.directed || sb.directed, pair).map_err(|e| self.not_pd(e, sa, sb))?;
        Self::checked(v)
    }

    /// Solves `op x = 1` and returns `1ᵀ x`.
    fn solve_ones<K: KronApply<f64>>(
        &self,
        op: &ShiftedKron<'_, f64, K>,
        ws: &mut Workspace<Vec<f64>>,
        directed: bool,
        pair: (usize, usize),
    ) -> Result<f64, SolverError> {
        let n = op.nrows();
        let b = vec![1.0; n];
        let mut x = vec![0.0; n];
        let monitor = self.monitor(pair);
        if directed {
            let p = BicgstabParams { tol: self.tol, max_iters: self.max_iters, monitor, ..Default::default() };
            bicgstab_or_fixed_point(op, &b, &mut x, &p, ws)?;
        } else {
            let p = CgParams {
                tol: self.tol,
                max_iters: self.max_iters,
                precond: Preconditioner::Identity,
                monitor,
                ..Default::default()
            };
            cg(op, &b, &mut x, &p, ws)?;
        }
        Ok(x.iter().sum())
    }
}

/// The graph with its weights scaled by `2^−e` and its [`RwScale`].
fn rw_scale<N: Label, E: Label>(
    g: &Graph<N, E>,
    index: usize,
) -> Result<(std::borrow::Cow<'_, Graph<N, E>>, RwScale), MgkError> {
    let (s, exp) = unit_weights(g).map_err(|source| MgkError::WeightRange { graph: index, source })?;
    let (lo, hi) = bounds_of(&s);
    let directed = s.is_directed();
    Ok((s, RwScale { exp, lo, hi, directed }))
}

/// The class packings of the scaled graphs, with their scales.
fn labeled_packs<N: Label, E: Label>(
    graphs: Vec<&Graph<N, E>>,
    classes: &[Vec<u32>],
) -> Result<Vec<(ClassPacking<f64>, RwScale)>, MgkError> {
    graphs
        .par_iter()
        .zip(classes)
        .enumerate()
        .map(|(i, (g, c))| {
            let (s, scale) = rw_scale(g, i)?;
            Ok((ClassPacking::new(&s, c), scale))
        })
        .collect::<Vec<Result<_, MgkError>>>()
        .into_iter()
        .collect()
}

/// Collatz–Wielandt bounds `(lo, hi)` on `ρ(W)` (see
/// [`RandomWalkKernel::spectral_radius_bounds`]).
fn bounds_of<N: Label, E: Label>(g: &Graph<N, E>) -> (f64, f64) {
    let n = g.num_nodes();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mut v = vec![1.0; n];
    let mut wv = vec![0.0; n];
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    for _ in 0..200 {
        spmv(g, &v, &mut wv);
        let (mut l, mut h) = (f64::INFINITY, 0.0f64);
        for (a, b) in wv.iter().zip(&v) {
            let q = a / b;
            l = l.min(q);
            h = h.max(q);
        }
        lo = lo.max(l);
        hi = hi.min(h);
        if hi - lo <= 1e-9 * hi {
            break;
        }
        let mut s = 0.0f64;
        for (x, w) in v.iter_mut().zip(&wv) {
            *x += w;
            s = s.max(*x);
        }
        if s == 0.0 || !s.is_finite() {
            break;
        }
        v.iter_mut().for_each(|x| *x /= s);
        if v.iter().any(|&x| x < 1e-250) {
            break;
        }
    }
    (lo, hi)
}

/// `y ← W x`.
fn spmv<N: Label, E: Label>(g: &Graph<N, E>, x: &[f64], y: &mut [f64]) {
    for (i, yi) in y.iter_mut().enumerate() {
        let r = g.row_range(i);
        *yi = g.indices()[r.clone()].iter().zip(&g.weights()[r]).map(|(&j, &w)| w * x[j]).sum();
    }
}

/// `m_k / ρ̂^k = 1ᵀ (W/ρ̂)^k 1` for `k = 0..=MAX_TERMS` (zeros after `k = 0`
/// when `ρ̂ = 0`).
fn scaled_moments<N: Label, E: Label>(g: &Graph<N, E>, rho: f64) -> Vec<f64> {
    let n = g.num_nodes();
    let mut m = vec![0.0; MAX_TERMS + 1];
    m[0] = n as f64;
    if rho == 0.0 {
        return m;
    }
    let mut v = vec![1.0; n];
    let mut w = vec![0.0; n];
    for mk in m.iter_mut().skip(1) {
        spmv(g, &v, &mut w);
        w.iter_mut().for_each(|x| *x /= rho);
        std::mem::swap(&mut v, &mut w);
        *mk = v.iter().sum();
    }
    m
}

/// Class ids `0..C` for the node labels of all graphs (equal labels, equal
/// ids). `O(total nodes × C)`.
fn node_classes<'g, N: Label + PartialEq + 'g, E: Label + 'g>(
    graphs: impl Iterator<Item = &'g Graph<N, E>>,
) -> Vec<Vec<u32>> {
    let mut distinct: Vec<N> = Vec::new();
    graphs
        .map(|g| {
            g.node_labels()
                .iter()
                .map(|l| match distinct.iter().position(|d| d == l) {
                    Some(k) => k as u32,
                    None => {
                        distinct.push(l.clone());
                        (distinct.len() - 1) as u32
                    }
                })
                .collect()
        })
        .collect()
}

fn upper(n: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (a..n).map(move |b| (a, b))).collect()
}

fn all(n: usize, m: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (0..m).map(move |b| (a, b))).collect()
}

fn fill(n: usize, m: usize, pairs: &[(usize, usize)], v: &[f64], sym: bool) -> Matrix {
    let mut k = Matrix::zeros(n, m);
    for (&(a, b), &x) in pairs.iter().zip(v) {
        k.set(a, b, x);
        if sym {
            k.set(b, a, x);
        }
    }
    k
}
