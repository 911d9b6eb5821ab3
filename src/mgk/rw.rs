//! The geometric random-walk kernel and its node-labeled variant.

use super::{KronSystem, MarginalizedGraphKernel, Matrix, MgkError, Progress};
use crate::backend::{resolve_backend, Backend};
use crate::basekernel::Constant;
use crate::cuda::GpuLabel;
use crate::graph::{Graph, Label};
use crate::kron::{ClassPacking, Diag, KronApply, KronProduct, MatchedKron, Octiles, ShiftedKron, Unlabeled};
use crate::solver::{bicgstab, cg, BicgstabParams, CgParams, LinOp, Preconditioner, SolverError, Workspace};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

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
#[derive(Clone)]
pub struct RandomWalkKernel {
    lambda: f64,
    precision: crate::backend::Precision,
    method: RwMethod,
    tol: f64,
    max_iters: usize,
    progress: Option<Progress>,
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
    rho: f64,
    /// `m_k / ρ̂^k`, `k = 0..=MAX_TERMS` (only when the series may apply).
    moments: Vec<f64>,
    oct: Octiles<f64, E>,
    directed: bool,
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
    /// [`MgkError::InvalidParameter`] unless `0 < tol < 1`.
    pub fn with_tolerance(mut self, tol: f64) -> Result<Self, MgkError> {
        if !(tol > 0.0 && tol < 1.0) {
            return Err(MgkError::InvalidParameter(format!("tolerance {tol} must lie in (0, 1)")));
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

    /// λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// An upper bound on the spectral radius `ρ(W)` of a graph's weighted
    /// adjacency (Collatz–Wielandt after 50 power steps on `W + I`):
    /// `O(50·(n + nnz))`.
    pub fn spectral_radius_bound<N: Label, E: Label>(g: &Graph<N, E>) -> f64 {
        let n = g.num_nodes();
        let mut v = vec![1.0; n];
        let mut wv = vec![0.0; n];
        let mut best = f64::INFINITY;
        for _ in 0..50 {
            spmv(g, &v, &mut wv);
            let bound = wv.iter().zip(&v).map(|(a, b)| a / b).fold(0.0, f64::max);
            best = best.min(bound);
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
        if n == 0 {
            0.0
        } else {
            best
        }
    }

    /// A safe bound `1 / (ρ̂(W) ρ̂(W'))` (with the upper bounds of
    /// [`spectral_radius_bound`](Self::spectral_radius_bound)): every
    /// `λ` below it is valid for the pair.
    pub fn lambda_limit<N: Label, E: Label>(g: &Graph<N, E>, h: &Graph<N, E>) -> f64 {
        1.0 / (Self::spectral_radius_bound(g) * Self::spectral_radius_bound(h))
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
        let prep = self.prepare(x);
        let pairs = upper(x.len());
        let v =
            self.run_pairs(&pairs, |ws, a, b| self.unlabeled_pair(&prep[a], &prep[b], ws).map_err(|e| (a, b, e)))?;
        Ok(fill(x.len(), x.len(), &pairs, &v, true))
    }

    /// The cross Gram matrix `k(X_a, Y_b)`.
    ///
    /// # Errors
    /// As [`pair`](Self::pair).
    pub fn gram_xy<N: Label, E: Label>(&self, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let (px, py) = (self.prepare(x), self.prepare(y));
        let pairs = all(x.len(), y.len());
        let v = self.run_pairs(&pairs, |ws, a, b| self.unlabeled_pair(&px[a], &py[b], ws).map_err(|e| (a, b, e)))?;
        Ok(fill(x.len(), y.len(), &pairs, &v, false))
    }

    /// The node-labeled Gram matrix of one list: walks restricted to node
    /// pairs with equal labels (labels compared with `==`).
    ///
    /// # Errors
    /// As [`pair`](Self::pair).
    pub fn gram_labeled<N: Label + PartialEq, E: Label>(&self, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let classes = node_classes(x.iter());
        let packs: Vec<ClassPacking<f64>> = x.par_iter().zip(&classes).map(|(g, c)| ClassPacking::new(g, c)).collect();
        let pairs = upper(x.len());
        let v =
            self.run_pairs(&pairs, |ws, a, b| self.labeled_pair(&packs[a], &packs[b], ws).map_err(|e| (a, b, e)))?;
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
        let packs: Vec<ClassPacking<f64>> = x
            .iter()
            .chain(y)
            .collect::<Vec<_>>()
            .par_iter()
            .zip(&classes)
            .map(|(g, c)| ClassPacking::new(*g, c))
            .collect();
        let (px, py) = packs.split_at(x.len());
        let pairs = all(x.len(), y.len());
        let v = self.run_pairs(&pairs, |ws, a, b| self.labeled_pair(&px[a], &py[b], ws).map_err(|e| (a, b, e)))?;
        Ok(fill(x.len(), y.len(), &pairs, &v, false))
    }

    // ----------------------------------------------------------- internals

    fn use_series(&self) -> bool {
        self.method != RwMethod::Solver
    }

    fn prepare<N: Label, E: Label>(&self, x: &[Graph<N, E>]) -> Vec<RwGraph<E>> {
        x.par_iter()
            .map(|g| {
                let directed = g.is_directed();
                let rho = if directed { f64::INFINITY } else { Self::spectral_radius_bound(g) };
                let series = self.use_series() && !directed && self.lambda * rho * rho < 1.0;
                let moments = if series { scaled_moments(g, rho) } else { Vec::new() };
                let oct = Octiles::new(g);
                RwGraph { n: g.num_nodes(), rho, moments, oct, directed }
            })
            .collect()
    }

    fn run_pairs<F>(&self, pairs: &[(usize, usize)], f: F) -> Result<Vec<f64>, MgkError>
    where
        F: Fn(&mut Workspace<Vec<f64>>, usize, usize) -> Result<f64, (usize, usize, SolverError)> + Sync,
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

    fn map_error(&self, a: usize, b: usize, e: SolverError) -> MgkError {
        match e {
            SolverError::NonPositiveDefinite { curvature, iteration } => MgkError::LambdaTooLarge {
                lambda: self.lambda,
                pair: (a, b),
                detail: format!(
                    "I − λ W⊗W' is not positive definite (pᵀAp = {curvature:e} at CG iteration {iteration})"
                ),
            },
            e => MgkError::Solver { pair: (a, b), source: e },
        }
    }

    fn unlabeled_pair<E: Label>(
        &self,
        a: &RwGraph<E>,
        b: &RwGraph<E>,
        ws: &mut Workspace<Vec<f64>>,
    ) -> Result<f64, SolverError> {
        let r = self.lambda * a.rho * b.rho;
        if self.use_series() && !a.moments.is_empty() && !b.moments.is_empty() && r < 1.0 {
            let terms = if r == 0.0 { 1 } else { ((1e-16 * (1.0 - r)).ln() / r.ln()).ceil() as usize };
            if terms <= MAX_TERMS {
                let mut s = 0.0;
                let mut rk = 1.0;
                for k in 0..=terms {
                    s += rk * a.moments[k] * b.moments[k];
                    rk *= r;
                }
                return Ok(s);
            }
        }
        let kron = KronProduct::new(&a.oct, &b.oct, &Unlabeled);
        let op = ShiftedKron::new(Diag::Const(1.0), self.lambda, &kron);
        debug_assert_eq!(op.nrows(), a.n * b.n);
        self.solve_ones(&op, ws, a.directed || b.directed)
    }

    fn labeled_pair(
        &self,
        a: &ClassPacking<f64>,
        b: &ClassPacking<f64>,
        ws: &mut Workspace<Vec<f64>>,
    ) -> Result<f64, SolverError> {
        let kron = MatchedKron::new(a, b);
        if kron.dim() == 0 {
            return Ok(0.0);
        }
        let op = ShiftedKron::new(Diag::Const(1.0), self.lambda, &kron);
        self.solve_ones(&op, ws, a.is_directed() || b.is_directed())
    }

    /// Solves `op x = 1` and returns `1ᵀ x`.
    fn solve_ones<K: KronApply<f64>>(
        &self,
        op: &ShiftedKron<'_, f64, K>,
        ws: &mut Workspace<Vec<f64>>,
        directed: bool,
    ) -> Result<f64, SolverError> {
        let n = op.nrows();
        let b = vec![1.0; n];
        let mut x = vec![0.0; n];
        if directed {
            let p = BicgstabParams { tol: self.tol, max_iters: self.max_iters, ..Default::default() };
            bicgstab(op, &b, &mut x, &p, ws)?;
        } else {
            let p = CgParams {
                tol: self.tol,
                max_iters: self.max_iters,
                precond: Preconditioner::Identity,
                ..Default::default()
            };
            cg(op, &b, &mut x, &p, ws)?;
        }
        Ok(x.iter().sum())
    }
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

/// The kernel on a backend chosen per call ([`Backend`]): the CPU computes
/// as the plain methods do; a CUDA device solves the unlabeled kernel's
/// system `(I − λ W ⊗ W') x = 1` as an instance of the Kronecker systems of
/// [`MarginalizedGraphKernel`](super::MarginalizedGraphKernel)
/// ([`KronSystem::random_walk`]: κv = κe = 1, unit degrees, scale `1/λ`,
/// `p = 1`) by the batched PCG of the GPU, in this kernel's precision, to its
/// tolerance. The GPU needs undirected graphs and `λ ρ̂(W) ρ̂(W') < 1` for
/// every pair (the bounds of
/// [`spectral_radius_bound`](Self::spectral_radius_bound), so that the
/// system is positive definite).
///
/// # Errors (every `_on` method)
/// [`MgkError::LambdaTooLarge`] naming the pair with the largest bound;
/// [`crate::Error::Cuda`] (or [`crate::Error::CudaNotCompiled`]) from the
/// GPU; the CPU methods' errors.
impl RandomWalkKernel {
    /// [`gram`](Self::gram) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_on<N: GpuLabel, E: GpuLabel>(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<Matrix> {
        match resolve_backend(backend)? {
            None => Ok(self.gram(x)?),
            Some(d) => {
                self.check_gpu_lambda(x, x)?;
                self.as_system()?.gram_on(Backend::Cuda(d), x)
            }
        }
    }

    /// [`gram_xy`](Self::gram_xy) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_xy_on<N: GpuLabel, E: GpuLabel>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
    ) -> crate::Result<Matrix> {
        match resolve_backend(backend)? {
            None => Ok(self.gram_xy(x, y)?),
            Some(d) => {
                self.check_gpu_lambda(x, y)?;
                self.as_system()?.gram_xy_on(Backend::Cuda(d), x, y)
            }
        }
    }

    /// [`gram_labeled`](Self::gram_labeled) on `backend`: the CPU only for
    /// now (`Auto` runs on the CPU).
    ///
    /// # Errors
    /// [`MgkError::Unsupported`] for an explicit CUDA device; the CPU's errors.
    pub fn gram_labeled_on<N: Label + PartialEq, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
    ) -> crate::Result<Matrix> {
        match backend {
            Backend::Cuda(_) => Err(MgkError::Unsupported("the node-labeled random-walk kernel on the GPU").into()),
            _ => Ok(self.gram_labeled(x)?),
        }
    }

    /// The kernel as a Kronecker system of the marginalized graph kernel.
    fn as_system<N: Label, E: Label>(&self) -> Result<MarginalizedGraphKernel<N, E, Constant, Constant>, MgkError> {
        // q is not used by a custom system; any valid value
        MarginalizedGraphKernel::new(Constant::new(1.0), Constant::new(1.0), 0.5)?
            .with_system(Some(KronSystem::random_walk(self.lambda)))?
            .with_precision(self.precision)
            .with_tolerance(self.tol)
            .map(|k| k.with_max_iters(self.max_iters))
    }

    /// Rejects a λ for which some pair's system may not be positive definite
    /// (the GPU's PCG has no curvature check).
    fn check_gpu_lambda<N: Label, E: Label>(&self, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> Result<(), MgkError> {
        let best = |v: &[Graph<N, E>]| {
            v.par_iter()
                .map(Self::spectral_radius_bound)
                .enumerate()
                .reduce(|| (0, 0.0), |a, b| if b.1 > a.1 { b } else { a })
        };
        let ((a, ra), (b, rb)) = (best(x), best(y));
        if self.lambda * ra * rb >= 1.0 {
            return Err(MgkError::LambdaTooLarge {
                lambda: self.lambda,
                pair: (a, b),
                detail: format!("λ ρ̂ ρ̂' = {:.3} ≥ 1 (the GPU needs it below 1)", self.lambda * ra * rb),
            });
        }
        Ok(())
    }
}
