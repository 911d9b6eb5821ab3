//! [`MarginalizedGraphKernel`]: Gram matrices, diagonals, nodal similarity
//! and gradients.

use super::system::{degrees, length_one_term, pair_diagonal, start_product, unit_weights};
use super::{Gradient, Matrix, MgkError, Progress, SolverProgress};
use crate::basekernel::{BaseKernel, Bounds, Hyperparameter, KernelError};
use crate::graph::reorder::{self, Method, Permutation};
use crate::graph::{Graph, Label};
use crate::kron::{CachedKron, Diag, KronProduct, KronScalar, Octiles, ShiftedKron};
use crate::solver::{
    bicgstab_or_fixed_point, cg, BicgstabParams, CgParams, LinOp, Monitor, Preconditioner, SolveInfo, SolverError,
    Workspace,
};
use rayon::prelude::*;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The start probability `p_i` of the random walks.
pub enum StartProbability<N> {
    /// The same value for every node (GraphDot's default is 1).
    Uniform(f64),
    /// The graph's own start probabilities
    /// ([`Graph::start_probabilities`]); 1 for graphs that have none.
    FromGraph,
    /// A function of the node label.
    PerNode(Arc<dyn Fn(&N) -> f64 + Send + Sync>),
}

impl<N> Clone for StartProbability<N> {
    fn clone(&self) -> Self {
        match self {
            StartProbability::Uniform(p) => StartProbability::Uniform(*p),
            StartProbability::FromGraph => StartProbability::FromGraph,
            StartProbability::PerNode(f) => StartProbability::PerNode(f.clone()),
        }
    }
}

impl<N> fmt::Debug for StartProbability<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartProbability::Uniform(p) => write!(f, "Uniform({p})"),
            StartProbability::FromGraph => write!(f, "FromGraph"),
            StartProbability::PerNode(_) => write!(f, "PerNode(..)"),
        }
    }
}

/// The floating-point precision of the solves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// Double precision (default tolerance `1e-12`).
    #[default]
    F64,
    /// Single precision (default tolerance `1e-5`).
    F32,
}

/// The marginalized graph kernel (Kashima et al. 2003, in GraphDot's
/// formulation): see the [module documentation](super) for the math.
///
/// `N` and `E` are the node and edge label types, `KV: BaseKernel<N>` the
/// node kernel and `KE: BaseKernel<E>` the edge kernel; both are concrete
/// types, so the hot loop is monomorphized.
///
/// # Examples
/// ```
/// use kronograph::graph::{Direction, GraphBuilder};
/// use kronograph::kron::Unlabeled;
/// use kronograph::mgk::MarginalizedGraphKernel;
/// let g = GraphBuilder::<(), ()>::new(3, Direction::Undirected)
///     .node_labels(vec![(); 3]).edge(0, 1, 1.0, ()).edge(1, 2, 1.0, ()).build().unwrap();
/// let mgk = MarginalizedGraphKernel::new(Unlabeled, Unlabeled, 0.05).unwrap();
/// let k = mgk.gram(&[g.clone(), g]).unwrap();
/// assert!((k.get(0, 1) - k.get(0, 0)).abs() < 1e-9 * k.get(0, 0));
/// ```
pub struct MarginalizedGraphKernel<N, E, KV, KE> {
    node_kernel: KV,
    edge_kernel: KE,
    q: f64,
    q_bounds: Bounds,
    lmin: u32,
    start: StartProbability<N>,
    precision: Precision,
    tol: Option<f64>,
    max_iters: usize,
    edge_cache_limit: usize,
    reorder: Option<Method>,
    progress: Option<Progress>,
    solver_progress: Option<SolverProgress>,
    _labels: PhantomData<fn(&N, &E)>,
}

impl<N, E, KV: Clone, KE: Clone> Clone for MarginalizedGraphKernel<N, E, KV, KE> {
    fn clone(&self) -> Self {
        MarginalizedGraphKernel {
            node_kernel: self.node_kernel.clone(),
            edge_kernel: self.edge_kernel.clone(),
            q: self.q,
            q_bounds: self.q_bounds,
            lmin: self.lmin,
            start: self.start.clone(),
            precision: self.precision,
            tol: self.tol,
            max_iters: self.max_iters,
            edge_cache_limit: self.edge_cache_limit,
            reorder: self.reorder,
            progress: self.progress.clone(),
            solver_progress: self.solver_progress.clone(),
            _labels: PhantomData,
        }
    }
}

impl<N, E, KV: fmt::Debug, KE: fmt::Debug> fmt::Debug for MarginalizedGraphKernel<N, E, KV, KE> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MarginalizedGraphKernel")
            .field("node_kernel", &self.node_kernel)
            .field("edge_kernel", &self.edge_kernel)
            .field("q", &self.q)
            .field("q_bounds", &self.q_bounds)
            .field("lmin", &self.lmin)
            .field("start", &self.start)
            .field("precision", &self.precision)
            .field("tol", &self.tol)
            .field("max_iters", &self.max_iters)
            .field("reorder", &self.reorder)
            .finish()
    }
}

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

/// Why one pair failed (mapped to [`MgkError`] with the pair's indices).
enum PairFail {
    Solver(SolverError),
    Kernel { kernel: &'static str, at: (usize, usize), value: f64 },
    Value { value: f64, detail: String },
}

impl From<SolverError> for PairFail {
    fn from(e: SolverError) -> Self {
        PairFail::Solver(e)
    }
}

/// Default of [`MarginalizedGraphKernel::with_edge_cache_limit`].
const DEFAULT_EDGE_CACHE: usize = 1 << 21;

/// Work memory of one worker thread, reused across pairs.
struct PairWorkspace<T> {
    solver: Workspace<Vec<T>>,
    values: Vec<T>,
    dx: Vec<T>,
    diag: Vec<T>,
    r: Vec<T>,
    px: Vec<T>,
    y: Vec<T>,
    kgrad: Vec<f64>,
}

impl<T: KronScalar> PairWorkspace<T> {
    fn new() -> Self {
        PairWorkspace {
            solver: Workspace::new(),
            values: Vec::new(),
            dx: Vec::new(),
            diag: Vec::new(),
            r: Vec::new(),
            px: Vec::new(),
            y: Vec::new(),
            kgrad: Vec::new(),
        }
    }
}

/// A graph prepared once for all its pairs.
struct Prepared<'g, T, N: Clone, E: Clone> {
    g: Cow<'g, Graph<N, E>>,
    /// The reordering applied to `g`, if any.
    perm: Option<Permutation>,
    oct: Octiles<T, E>,
    deg: Vec<f64>,
    p: Vec<f64>,
}

/// What one pair gives.
struct PairOut {
    value: f64,
    grad: Vec<f64>,
    nodal: Option<Vec<f64>>,
}

impl<N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>> MarginalizedGraphKernel<N, E, KV, KE> {
    /// A marginalized graph kernel with node kernel `node_kernel`, edge
    /// kernel `edge_kernel` and stop probability `q`; start probability 1,
    /// `lmin = 0`, `q` fixed (not trained), `f64`.
    ///
    /// # Errors
    /// [`MgkError::NodeKernelRange`] unless `0 < κv ≤ 1`,
    /// [`MgkError::EdgeKernelRange`] unless `0 ≤ κe ≤ 1`,
    /// [`MgkError::InvalidQ`] unless `0 < q < 1`.
    pub fn new(node_kernel: KV, edge_kernel: KE, q: f64) -> Result<Self, MgkError> {
        let k = MarginalizedGraphKernel {
            node_kernel,
            edge_kernel,
            q,
            q_bounds: Bounds::Fixed,
            lmin: 0,
            start: StartProbability::Uniform(1.0),
            precision: Precision::F64,
            tol: None,
            max_iters: 10_000,
            edge_cache_limit: DEFAULT_EDGE_CACHE,
            reorder: None,
            progress: None,
            solver_progress: None,
            _labels: PhantomData,
        };
        k.check()?;
        Ok(k)
    }

    /// Sets `lmin` (0: all walks; 1: walks of length ≥ 1, i.e. the length-one
    /// term `Σ p p' κv` is subtracted).
    ///
    /// # Errors
    /// [`MgkError::InvalidLmin`] for other values.
    pub fn with_lmin(mut self, lmin: u32) -> Result<Self, MgkError> {
        if lmin > 1 {
            return Err(MgkError::InvalidLmin(lmin));
        }
        self.lmin = lmin;
        Ok(self)
    }

    /// Sets the start probability.
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] for a non-positive or non-finite
    /// uniform value (per-node values are checked when used).
    pub fn with_start(mut self, start: StartProbability<N>) -> Result<Self, MgkError> {
        if let StartProbability::Uniform(p) = start {
            if !(p.is_finite() && p > 0.0) {
                return Err(MgkError::InvalidParameter(format!(
                    "uniform start probability {p} must be finite and > 0"
                )));
            }
        }
        self.start = start;
        Ok(self)
    }

    /// Makes `q` a trained hyperparameter with the given bounds
    /// ([`Bounds::Fixed`], the default, keeps it fixed).
    ///
    /// # Errors
    /// [`MgkError::InvalidQ`] when the bounds leave `(0, 1)` or exclude `q`;
    /// [`MgkError::QTooSmall`] for a lower bound below `1e-10`.
    pub fn with_q_bounds(mut self, bounds: Bounds) -> Result<Self, MgkError> {
        if let Bounds::Range(lo, hi) = bounds {
            if lo > 0.0 && lo < MIN_Q {
                return Err(MgkError::QTooSmall(lo));
            }
            if !(lo > 0.0 && hi < 1.0 && lo <= self.q && self.q <= hi) {
                return Err(MgkError::InvalidQ(if lo <= 0.0 { lo } else { hi }));
            }
        }
        self.q_bounds = bounds;
        Ok(self)
    }

    /// Sets the precision of the solves.
    pub fn with_precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    /// Sets the relative-residual tolerance (default `1e-12` in `f64`,
    /// `1e-5` in `f32`).
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] unless `0 < tol < 1`, or when `tol` is
    /// below what the current precision can reach (`1e-15` in `f64`, `1e-7`
    /// in `f32`; checked again when solving, in case the precision changes).
    pub fn with_tolerance(mut self, tol: f64) -> Result<Self, MgkError> {
        if !(tol > 0.0 && tol < 1.0) {
            return Err(MgkError::InvalidParameter(format!("tolerance {tol} must lie in (0, 1)")));
        }
        self.tol = Some(tol);
        self.check_tolerance()?;
        Ok(self)
    }

    /// The tolerance against the precision's floor.
    pub(super) fn check_tolerance(&self) -> Result<(), MgkError> {
        match tolerance_below_floor(self.tolerance(), self.precision) {
            Some(msg) => Err(MgkError::InvalidParameter(msg)),
            None => Ok(()),
        }
    }

    /// Sets a per-iteration progress callback for long single pairs (see
    /// [`SolverProgress`]): called after every solver iteration with the
    /// pair, the iteration and the relative residual.
    pub fn with_solver_progress(mut self, progress: SolverProgress) -> Self {
        self.solver_progress = Some(progress);
        self
    }

    /// Sets the iteration limit of each solve (default 10 000).
    pub fn with_max_iters(mut self, max_iters: usize) -> Self {
        self.max_iters = max_iters;
        self
    }

    /// Sets the largest `nnz·nnz'` for which the entry values
    /// `w w' κe` of a pair are computed once and cached for its solves
    /// (default 2²¹ values, 16 MiB in `f64` per worker thread); 0 evaluates
    /// κe on the fly in every iteration. Constant edge kernels never need
    /// the cache (their product factorizes).
    pub fn with_edge_cache_limit(mut self, values: usize) -> Self {
        self.edge_cache_limit = values;
        self
    }

    /// Reorders every graph with `method` before packing it into octiles
    /// (`None`, the default on the CPU, keeps the given order). Reordering
    /// gathers nonzeros into fewer, denser 8×8 tiles (see
    /// [`graph::reorder`](crate::graph::reorder)); kernel values do not
    /// change (up to rounding), and nodal outputs are mapped back to the
    /// original node order. The permutation is computed on every call, for
    /// each graph of the call: `O(n)`–`O(n log n)` for RCM, more for PBR.
    pub fn with_reorder(mut self, method: Option<Method>) -> Self {
        self.reorder = method;
        self
    }

    /// The reordering applied before packing, if any.
    pub fn reorder(&self) -> Option<Method> {
        self.reorder
    }

    /// Sets a progress callback, called with `(pairs done, total)`.
    pub fn with_progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The node kernel.
    pub fn node_kernel(&self) -> &KV {
        &self.node_kernel
    }

    /// The edge kernel.
    pub fn edge_kernel(&self) -> &KE {
        &self.edge_kernel
    }

    /// The stop probability.
    pub fn q(&self) -> f64 {
        self.q
    }

    /// `lmin`.
    pub fn lmin(&self) -> u32 {
        self.lmin
    }

    /// The precision.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The most solver iterations per pair.
    pub fn max_iters(&self) -> usize {
        self.max_iters
    }

    /// The relative-residual tolerance in use.
    pub fn tolerance(&self) -> f64 {
        self.tol.unwrap_or(match self.precision {
            Precision::F64 => 1e-12,
            Precision::F32 => 1e-5,
        })
    }

    /// All hyperparameters: the node kernel's (prefixed `node.`), the edge
    /// kernel's (prefixed `edge.`), then `q`. Fixed ones included.
    pub fn hyperparameters(&self) -> Vec<Hyperparameter> {
        let mut h: Vec<Hyperparameter> =
            self.node_kernel.hyperparameters().into_iter().map(|h| h.prefixed("node")).collect();
        h.extend(self.edge_kernel.hyperparameters().into_iter().map(|h| h.prefixed("edge")));
        h.push(Hyperparameter::new("q", self.q, self.q_bounds));
        h
    }

    /// The hyperparameter values, in the order of
    /// [`hyperparameters`](Self::hyperparameters).
    pub fn theta(&self) -> Vec<f64> {
        self.hyperparameters().iter().map(|h| h.value).collect()
    }

    /// Sets all hyperparameter values (order of
    /// [`hyperparameters`](Self::hyperparameters)) and re-checks the ranges.
    ///
    /// # Errors
    /// [`MgkError::Kernel`] for a wrong length or an out-of-bounds value;
    /// the range errors of [`new`](Self::new). On error the kernel is unchanged.
    pub fn set_theta(&mut self, theta: &[f64]) -> Result<(), MgkError> {
        let nv = self.node_kernel.num_hyperparameters();
        let ne = self.edge_kernel.num_hyperparameters();
        if theta.len() != nv + ne + 1 {
            return Err(KernelError::ThetaLength { expected: nv + ne + 1, found: theta.len() }.into());
        }
        let q = theta[nv + ne];
        if !self.q_bounds.contains(q) {
            return Err(KernelError::OutOfBounds { name: "q".into(), value: q, bounds: self.q_bounds }.into());
        }
        let mut next = self.clone();
        next.node_kernel.set_theta(&theta[..nv])?;
        next.edge_kernel.set_theta(&theta[nv..nv + ne])?;
        next.q = q;
        next.check()?;
        *self = next;
        Ok(())
    }

    fn check(&self) -> Result<(), MgkError> {
        let (lo, hi) = self.node_kernel.range();
        if !(lo > 0.0 && hi <= 1.0) {
            return Err(MgkError::NodeKernelRange { min: lo, max: hi });
        }
        let (lo, hi) = self.edge_kernel.range();
        if !(lo >= 0.0 && hi <= 1.0) {
            return Err(MgkError::EdgeKernelRange { min: lo, max: hi });
        }
        if !(self.q > 0.0 && self.q < 1.0) {
            return Err(MgkError::InvalidQ(self.q));
        }
        if self.q < MIN_Q {
            return Err(MgkError::QTooSmall(self.q));
        }
        Ok(())
    }

    /// The start probabilities of graph `g` (number `index` in its list).
    ///
    /// # Errors
    /// [`MgkError::InvalidStart`] for a negative or non-finite value.
    pub fn start_probabilities(&self, g: &Graph<N, E>, index: usize) -> Result<Vec<f64>, MgkError> {
        let p: Vec<f64> = match &self.start {
            StartProbability::Uniform(p) => vec![*p; g.num_nodes()],
            StartProbability::FromGraph => {
                g.start_probabilities().map(<[f64]>::to_vec).unwrap_or_else(|| vec![1.0; g.num_nodes()])
            }
            StartProbability::PerNode(f) => g.node_labels().iter().map(|l| f(l)).collect(),
        };
        if let Some((node, &value)) = p.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
            return Err(MgkError::InvalidStart { graph: index, node, value });
        }
        Ok(p)
    }

    // ----------------------------------------------------------------- API

    /// `K(G, G')` for one pair.
    ///
    /// # Errors
    /// [`MgkError::Solver`] when a solve fails; [`MgkError::InvalidStart`].
    pub fn pair(&self, g: &Graph<N, E>, h: &Graph<N, E>) -> Result<f64, MgkError> {
        let k = self.gram_xy(std::slice::from_ref(g), std::slice::from_ref(h))?;
        Ok(k.get(0, 0))
    }

    /// The nodal similarity of one pair: the `n × n'` matrix
    /// `K_ii' = p_i p'_i' r_ii' − lmin p_i p'_i' κv(v_i, v'_i')`, whose sum is `K(G, G')`.
    ///
    /// # Errors
    /// As [`pair`](Self::pair).
    pub fn nodal(&self, g: &Graph<N, E>, h: &Graph<N, E>) -> Result<Matrix, MgkError> {
        let out = match self.precision {
            Precision::F64 => {
                self.run::<f64>(std::slice::from_ref(g), Some(std::slice::from_ref(h)), &[(0, 0)], false, true)
            }
            Precision::F32 => {
                self.run::<f32>(std::slice::from_ref(g), Some(std::slice::from_ref(h)), &[(0, 0)], false, true)
            }
        }?;
        let data = out.into_iter().next().and_then(|o| o.nodal).expect("nodal requested");
        Ok(Matrix { rows: g.num_nodes(), cols: h.num_nodes(), data })
    }

    /// The Gram matrix `K(X_a, X_b)` of one list: symmetric; each pair
    /// `a ≤ b` is solved once. Pairs run in parallel (rayon).
    ///
    /// Cost: `N(N+1)/2` solves of `O(iterations · nnz·nnz')` each.
    ///
    /// # Errors
    /// [`MgkError::Solver`] naming the first failing pair; [`MgkError::InvalidStart`].
    pub fn gram(&self, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let pairs = upper_pairs(x.len());
        let out = self.dispatch(x, None, &pairs, false)?;
        let mut m = Matrix::zeros(x.len(), x.len());
        for (&(a, b), o) in pairs.iter().zip(&out) {
            m.set(a, b, o.value);
            m.set(b, a, o.value);
        }
        Ok(m)
    }

    /// The cross Gram matrix `K(X_a, Y_b)`, `|X| × |Y|`.
    ///
    /// # Errors
    /// As [`gram`](Self::gram).
    pub fn gram_xy(&self, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let pairs: Vec<(usize, usize)> = (0..x.len()).flat_map(|a| (0..y.len()).map(move |b| (a, b))).collect();
        let out = self.dispatch(x, Some(y), &pairs, false)?;
        let mut m = Matrix::zeros(x.len(), y.len());
        for (&(a, b), o) in pairs.iter().zip(&out) {
            m.set(a, b, o.value);
        }
        Ok(m)
    }

    /// The diagonal `K(X_a, X_a)`.
    ///
    /// # Errors
    /// As [`gram`](Self::gram).
    pub fn diag(&self, x: &[Graph<N, E>]) -> Result<Vec<f64>, MgkError> {
        let pairs: Vec<(usize, usize)> = (0..x.len()).map(|a| (a, a)).collect();
        Ok(self.dispatch(x, None, &pairs, false)?.into_iter().map(|o| o.value).collect())
    }

    /// The normalized Gram matrix `K(a, b) / √(K(a, a) K(b, b))` (unit
    /// diagonal).
    ///
    /// # Errors
    /// As [`gram`](Self::gram).
    pub fn gram_normalized(&self, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let mut k = self.gram(x)?;
        let d: Vec<f64> = (0..x.len()).map(|a| k.get(a, a)).collect();
        normalize(&mut k, &d, &d)?;
        Ok(k)
    }

    /// The normalized cross Gram matrix (solves the diagonals of both lists
    /// too).
    ///
    /// # Errors
    /// As [`gram`](Self::gram).
    pub fn gram_xy_normalized(&self, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let mut k = self.gram_xy(x, y)?;
        let (dx, dy) = (self.diag(x)?, self.diag(y)?);
        normalize(&mut k, &dx, &dy)?;
        Ok(k)
    }

    /// The Gram matrix and its gradient with respect to the log of every
    /// active hyperparameter (see the module documentation). One extra
    /// (adjoint) solve per pair. With `normalized`, both are those of the
    /// normalized kernel.
    ///
    /// # Errors
    /// As [`gram`](Self::gram); [`MgkError::Unsupported`] for directed graphs.
    pub fn gram_with_gradient(&self, x: &[Graph<N, E>], normalized: bool) -> Result<(Matrix, Gradient), MgkError> {
        if x.iter().any(|g| g.is_directed()) {
            return Err(MgkError::Unsupported("gradients for directed graphs"));
        }
        let names: Vec<String> =
            self.hyperparameters().into_iter().filter(Hyperparameter::is_active).map(|h| h.name).collect();
        let nt = names.len();
        let n = x.len();
        let pairs = upper_pairs(n);
        let out = self.dispatch(x, None, &pairs, true)?;
        let mut k = Matrix::zeros(n, n);
        let mut g = Gradient { rows: n, cols: n, names, data: vec![0.0; n * n * nt] };
        for (&(a, b), o) in pairs.iter().zip(&out) {
            k.set(a, b, o.value);
            k.set(b, a, o.value);
            for t in 0..nt {
                g.data[(a * n + b) * nt + t] = o.grad[t];
                g.data[(b * n + a) * nt + t] = o.grad[t];
            }
        }
        if normalized {
            normalize_square_with_gradient(&mut k, &mut g)?;
        }
        Ok((k, g))
    }

    /// The cross Gram matrix `K(X_a, Y_b)` and its gradient with respect to
    /// the log of every active hyperparameter (one extra solve per pair).
    /// With `normalized`, both are those of the normalized kernel (which
    /// solves the diagonals of both lists too).
    ///
    /// # Errors
    /// As [`gram`](Self::gram); [`MgkError::Unsupported`] for directed graphs.
    pub fn gram_xy_with_gradient(
        &self,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
        normalized: bool,
    ) -> Result<(Matrix, Gradient), MgkError> {
        if x.iter().chain(y).any(|g| g.is_directed()) {
            return Err(MgkError::Unsupported("gradients for directed graphs"));
        }
        let names: Vec<String> =
            self.hyperparameters().into_iter().filter(Hyperparameter::is_active).map(|h| h.name).collect();
        let nt = names.len();
        let (n, m) = (x.len(), y.len());
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|a| (0..m).map(move |b| (a, b))).collect();
        let out = self.dispatch(x, Some(y), &pairs, true)?;
        let mut k = Matrix::zeros(n, m);
        let mut g = Gradient { rows: n, cols: m, names, data: vec![0.0; n * m * nt] };
        for (&(a, b), o) in pairs.iter().zip(&out) {
            k.set(a, b, o.value);
            g.data[(a * m + b) * nt..(a * m + b + 1) * nt].copy_from_slice(&o.grad);
        }
        if normalized {
            let (dx, gx) = self.diag_with_gradient(x)?;
            let (dy, gy) = self.diag_with_gradient(y)?;
            normalize_with_gradient(&mut k, &mut g, (&dx, &gx), (&dy, &gy))?;
        }
        Ok((k, g))
    }

    /// The diagonal `K(X_a, X_a)` and its gradient (`|X| × k` row-major, the
    /// active hyperparameters in the order of [`Gradient::names`]).
    ///
    /// # Errors
    /// As [`gram_with_gradient`](Self::gram_with_gradient).
    pub fn diag_with_gradient(&self, x: &[Graph<N, E>]) -> Result<(Vec<f64>, Vec<f64>), MgkError> {
        if x.iter().any(|g| g.is_directed()) {
            return Err(MgkError::Unsupported("gradients for directed graphs"));
        }
        let pairs: Vec<(usize, usize)> = (0..x.len()).map(|a| (a, a)).collect();
        let out = self.dispatch(x, None, &pairs, true)?;
        let d = out.iter().map(|o| o.value).collect();
        let g = out.into_iter().flat_map(|o| o.grad).collect();
        Ok((d, g))
    }

    // ----------------------------------------------------------- internals

    fn dispatch(
        &self,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        pairs: &[(usize, usize)],
        grad: bool,
    ) -> Result<Vec<PairOut>, MgkError> {
        self.check_tolerance()?;
        match self.precision {
            Precision::F64 => self.run::<f64>(x, y, pairs, grad, false),
            Precision::F32 => self.run::<f32>(x, y, pairs, grad, false),
        }
    }

    fn prepare<'g, T: KronScalar>(&self, x: &'g [Graph<N, E>]) -> Result<Vec<Prepared<'g, T, N, E>>, MgkError> {
        x.par_iter()
            .enumerate()
            .map(|(i, g)| {
                let (g, _) = unit_weights(g).map_err(|source| MgkError::WeightRange { graph: i, source })?;
                let (g, perm) = match self.reorder {
                    Some(method) => {
                        let (h, perm) = reorder::reorder(&g, method);
                        (Cow::Owned(h), Some(perm))
                    }
                    None => (g, None),
                };
                let (oct, deg, p) = (Octiles::new(&g), degrees(&g), self.start_probabilities(&g, i)?);
                Ok(Prepared { g, perm, oct, deg, p })
            })
            // all results first, so that the error reported is the first graph's in order
            // whatever the number of threads
            .collect::<Vec<Result<_, MgkError>>>()
            .into_iter()
            .collect()
    }

    fn run<T: KronScalar>(
        &self,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        pairs: &[(usize, usize)],
        grad: bool,
        nodal: bool,
    ) -> Result<Vec<PairOut>, MgkError> {
        let px = self.prepare::<T>(x)?;
        let py = match y {
            Some(y) => Some(self.prepare::<T>(y)?),
            None => None,
        };
        let pb = py.as_deref().unwrap_or(&px);
        let total = pairs.len();
        let done = AtomicUsize::new(0);
        pairs
            .par_iter()
            .map_init(PairWorkspace::<T>::new, |ws, &(a, b)| {
                let mut out = self.solve_pair(&px[a], &pb[b], (a, b), ws, grad, nodal).map_err(|e| match e {
                    PairFail::Solver(source) => MgkError::Solver { pair: (a, b), advice: self.advice(&source), source },
                    PairFail::Kernel { kernel, at, value } => MgkError::KernelValue {
                        kernel,
                        needs: if kernel == "node" { "0 < κv ≤ 1" } else { "0 ≤ κe ≤ 1" },
                        pair: (a, b),
                        at,
                        value,
                    },
                    PairFail::Value { value, detail } => MgkError::InvalidValue { pair: (a, b), value, detail },
                })?;
                if let Some(r) = out.nodal.as_mut() {
                    unpermute_nodal(r, px[a].perm.as_ref(), pb[b].perm.as_ref());
                }
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(p) = &self.progress {
                    p(d, total);
                }
                Ok(out)
            })
            .collect()
    }

    /// What a solver error means for this kernel and what to change.
    fn advice(&self, e: &SolverError) -> String {
        let small_q = if self.q < 1e-3 {
            format!("; the stop probability q = {:e} is small, which makes the system nearly singular: raise q", self.q)
        } else {
            String::new()
        };
        match e {
            SolverError::NoConvergence { iterations, rel_residual, .. } => format!(
                "no convergence within {iterations} iterations (relative residual {rel_residual:e}): raise the \
                 iteration limit or the tolerance (--tol){small_q}"
            ),
            SolverError::NonPositiveDefinite { .. } => format!(
                "the system is positive definite in exact arithmetic but rounding broke that: the tolerance {:e} \
                 is too tight for {:?} arithmetic (raise --tol){small_q}",
                self.tolerance(),
                self.precision
            ),
            SolverError::Breakdown { .. } | SolverError::Preconditioner(_) => "a value overflowed or became NaN: \
                 a weight or a kernel hyperparameter under- or overflows (e.g. a tiny sqexp length scale); check \
                 the weights and the node and edge kernels' hyperparameters"
                .to_string(),
            _ => "internal error".to_string(),
        }
    }

    /// Solves one pair (and its adjoint when `grad`); checks the value.
    fn solve_pair<T: KronScalar>(
        &self,
        a: &Prepared<'_, T, N, E>,
        b: &Prepared<'_, T, N, E>,
        pair: (usize, usize),
        ws: &mut PairWorkspace<T>,
        grad: bool,
        nodal: bool,
    ) -> Result<PairOut, PairFail> {
        let (la, lb) = (a.g.node_labels(), b.g.node_labels());
        let (n, m) = (a.g.num_nodes(), b.g.num_nodes());
        let dim = n * m;
        let PairWorkspace { solver, values, dx, diag, r, px, y, kgrad } = ws;
        pair_diagonal(&a.deg, &b.deg, la, lb, &self.node_kernel, self.q, dx, diag)
            .map_err(|(i, ip, value)| PairFail::Kernel { kernel: "node", at: (i, ip), value })?;
        start_product(&a.p, &b.p, px);
        let kron = KronProduct::new(&a.oct, &b.oct, &self.edge_kernel);
        r.resize(dim, T::zero());
        let directed = a.g.is_directed() || b.g.is_directed();
        let pairs_nnz = a.oct.entries().len() * b.oct.entries().len();
        let cached = !kron.is_factorized() && pairs_nnz <= self.edge_cache_limit && dim < (1 << 17);
        if cached {
            kron.edge_values(values);
        }
        let empty: [T; 0] = [];
        let cached_op = CachedKron::new_unchecked(&kron, if cached { values } else { &empty });
        let op_lazy = ShiftedKron::new(Diag::Vec(diag), T::one(), &kron);
        let op_cached = ShiftedKron::new(Diag::Vec(diag), T::one(), &cached_op);
        let op: &dyn LinOp<Vec<T>> = if cached { &op_cached } else { &op_lazy };
        if let Err(e) = self.solve(op, dx, r, solver, directed, pair) {
            return Err(self.diagnose(a, b).unwrap_or(PairFail::Solver(e)));
        }
        let lmin_term = if self.lmin == 1 { length_one_term(&a.p, &b.p, la, lb, &self.node_kernel) } else { 0.0 };
        let total = crate::solver::Vector::dot(px, r);
        let value = self.checked_value(total, lmin_term)?;
        let nodal = nodal.then(|| {
            let mut v: Vec<f64> = px.iter().zip(r.iter()).map(|(p, r)| p.as_f64() * r.as_f64()).collect();
            if self.lmin == 1 {
                for i in 0..n {
                    for ip in 0..m {
                        v[i * m + ip] -= a.p[i] * b.p[ip] * self.node_kernel.value(&la[i], &lb[ip]);
                    }
                }
            }
            v
        });
        let mut g = Vec::new();
        if grad {
            y.resize(dim, T::zero());
            self.solve(&op, px, y, solver, directed, pair)?;
            g = self.pair_gradient(a, b, r, y, dx, diag, kgrad);
        }
        Ok(PairOut { value, grad: g, nodal })
    }

    /// After a failed solve: the first edge-kernel value that is not finite
    /// or negative, if any (`O(nnz·nnz')`, only on failure).
    fn diagnose<T: KronScalar>(&self, a: &Prepared<'_, T, N, E>, b: &Prepared<'_, T, N, E>) -> Option<PairFail> {
        for (i, la) in a.g.edge_labels().iter().enumerate() {
            for (j, lb) in b.g.edge_labels().iter().enumerate() {
                let value = self.edge_kernel.value(la, lb);
                if !(value.is_finite() && value >= 0.0) {
                    return Some(PairFail::Kernel { kernel: "edge", at: (i, j), value });
                }
            }
        }
        None
    }

    /// `K = p×ᵀ r − lmin term`, checked: finite, and non-negative (a
    /// negative value within the solve's tolerance of the total is rounding
    /// of a zero and becomes 0).
    fn checked_value(&self, total: f64, lmin_term: f64) -> Result<f64, PairFail> {
        let value = total - lmin_term;
        if !value.is_finite() {
            return Err(PairFail::Value {
                value,
                detail: "not finite: a weight or a kernel hyperparameter over- or underflows; check the weights \
                         and the node and edge kernels' hyperparameters"
                    .into(),
            });
        }
        if value < 0.0 {
            let slack = 10.0 * self.tolerance().max(f64::EPSILON) * total.abs().max(lmin_term.abs());
            if -value <= slack {
                return Ok(0.0);
            }
            return Err(PairFail::Value {
                value,
                detail: format!(
                    "negative, which a kernel value cannot be: the solve stopped short of the solution; lower \
                     the tolerance (now {:e}) or use double precision",
                    self.tolerance()
                ),
            });
        }
        Ok(value)
    }

    /// Solves `op x = rhs`: CG for undirected graphs, BiCGSTAB (falling back
    /// to the Jacobi iteration, which converges on these diagonally dominant
    /// systems, where BiCGSTAB breaks down) for directed ones.
    fn solve<T: KronScalar>(
        &self,
        op: &dyn LinOp<Vec<T>>,
        rhs: &Vec<T>,
        x: &mut Vec<T>,
        ws: &mut Workspace<Vec<T>>,
        directed: bool,
        pair: (usize, usize),
    ) -> Result<SolveInfo, SolverError> {
        let tol = self.tolerance();
        let monitor = self.solver_progress.clone().map(|f| Monitor::new(move |it, res| f(pair, it, res)));
        if directed {
            let p = BicgstabParams {
                tol,
                max_iters: self.max_iters,
                precond: Preconditioner::Jacobi,
                monitor,
                ..Default::default()
            };
            bicgstab_or_fixed_point(&op, rhs, x, &p, ws)
        } else {
            let p = CgParams {
                tol,
                max_iters: self.max_iters,
                precond: Preconditioner::Jacobi,
                monitor,
                ..Default::default()
            };
            cg(&op, rhs, x, &p, ws)
        }
    }

    /// The gradient entries of one pair, active hyperparameters only.
    #[allow(clippy::too_many_arguments)]
    fn pair_gradient<T: KronScalar>(
        &self,
        a: &Prepared<'_, T, N, E>,
        b: &Prepared<'_, T, N, E>,
        r: &[T],
        y: &[T],
        dx: &[T],
        diag: &[T],
        buf: &mut Vec<f64>,
    ) -> Vec<f64> {
        let hv = self.node_kernel.hyperparameters();
        let he = self.edge_kernel.hyperparameters();
        let (nv, ne) = (hv.len(), he.len());
        let mut full = vec![0.0; nv + ne + 1];
        let (la, lb) = (a.g.node_labels(), b.g.node_labels());
        let m = b.g.num_nodes();
        // node kernel
        if hv.iter().any(Hyperparameter::is_active) {
            buf.resize(nv, 0.0);
            for (i, va) in la.iter().enumerate() {
                for (ip, vb) in lb.iter().enumerate() {
                    let k = i * m + ip;
                    let kv = self.node_kernel.gradient(va, vb, buf);
                    let f = y[k].as_f64() * r[k].as_f64() * dx[k].as_f64() / (kv * kv);
                    let l1 = if self.lmin == 1 { a.p[i] * b.p[ip] } else { 0.0 };
                    for t in 0..nv {
                        full[t] += (f - l1) * buf[t];
                    }
                }
            }
        }
        // edge kernel
        if he.iter().any(Hyperparameter::is_active) {
            buf.resize(ne, 0.0);
            for (ea, lea) in a.oct.entries().iter().zip(a.oct.labels()) {
                let (yi, xj) = (ea.row as usize * m, ea.col as usize * m);
                for (eb, leb) in b.oct.entries().iter().zip(b.oct.labels()) {
                    self.edge_kernel.gradient(lea, leb, buf);
                    let f = y[yi + eb.row as usize].as_f64()
                        * ea.weight.as_f64()
                        * eb.weight.as_f64()
                        * r[xj + eb.col as usize].as_f64();
                    for t in 0..ne {
                        full[nv + t] += f * buf[t];
                    }
                }
            }
        }
        // q
        if self.q_bounds.is_active() {
            let c = 2.0 * self.q / (1.0 - self.q);
            let mut s = 0.0;
            for k in 0..r.len() {
                s += y[k].as_f64() * (dx[k].as_f64() - diag[k].as_f64() * r[k].as_f64());
            }
            full[nv + ne] = c * s;
        }
        hv.iter()
            .chain(he.iter())
            .map(Hyperparameter::is_active)
            .chain([self.q_bounds.is_active()])
            .zip(full)
            .filter_map(|(act, v)| act.then_some(v))
            .collect()
    }
}

trait BoundsExt {
    fn is_active(&self) -> bool;
}

impl BoundsExt for Bounds {
    fn is_active(&self) -> bool {
        *self != Bounds::Fixed
    }
}

/// The pairs `(a, b)` with `a ≤ b < n`.
fn upper_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (a..n).map(move |b| (a, b))).collect()
}

/// The normalized kernel `K_ab / √(dx_a dy_b)` and its gradient
/// `∂K_ab/√(dx_a dy_b) − ½ K̂_ab (∂dx_a/dx_a + ∂dy_b/dy_b)`, in place;
/// `dx`, `dy` are the diagonals with their gradients (`len × k` row-major).
///
/// # Errors
/// [`MgkError::ZeroNorm`] and [`MgkError::InvalidValue`] as [`normalize`].
pub(super) fn normalize_with_gradient(
    k: &mut Matrix,
    g: &mut Gradient,
    dx: (&[f64], &[f64]),
    dy: (&[f64], &[f64]),
) -> Result<(), MgkError> {
    let nt = g.names.len();
    let (n, m) = (k.rows, k.cols);
    let ((dx, gx), (dy, gy)) = (dx, dy);
    check_norms(dx, "")?;
    check_norms(dy, " of the second list")?;
    for a in 0..n {
        for b in 0..m {
            let p = dx[a] * dy[b];
            let s = if p.is_finite() && p > 0.0 { p.sqrt() } else { dx[a].sqrt() * dy[b].sqrt() };
            let kn = k.get(a, b) / s;
            let cell = &mut g.data[(a * m + b) * nt..(a * m + b + 1) * nt];
            for ((v, ga), gb) in cell.iter_mut().zip(&gx[a * nt..(a + 1) * nt]).zip(&gy[b * nt..(b + 1) * nt]) {
                *v = *v / s - 0.5 * kn * (ga / dx[a] + gb / dy[b]);
            }
        }
    }
    normalize(k, dx, dy)
}

/// [`normalize_with_gradient`] of a square Gram matrix by its own diagonal.
pub(super) fn normalize_square_with_gradient(k: &mut Matrix, g: &mut Gradient) -> Result<(), MgkError> {
    let (n, nt) = (k.rows, g.names.len());
    let d: Vec<f64> = (0..n).map(|a| k.get(a, a)).collect();
    let dg: Vec<f64> = (0..n).flat_map(|a| (0..nt).map(move |t| (a, t))).map(|(a, t)| g.get(a, a, t)).collect();
    normalize_with_gradient(k, g, (&d, &dg), (&d, &dg))
}

/// Normalizes a square Gram matrix of `n × n` values (row-major) by its own
/// diagonal, in place: `K̃_ab = K_ab / √(K_aa K_bb)`, so `K̃_aa = 1`. For
/// results computed elsewhere (e.g. the GPU's).
///
/// The normalized kernel is undefined for a graph with `K(G, G) = 0` (no
/// nodes, or all start probabilities 0): that is an error, not a NaN.
///
/// # Errors
/// [`MgkError::InvalidParameter`] when `values` does not hold `n × n`
/// entries; [`MgkError::ZeroNorm`] for a diagonal entry that is not finite
/// and positive; [`MgkError::InvalidValue`] for an entry that is not finite.
pub fn normalize_gram(values: &mut Vec<f64>, n: usize) -> Result<(), MgkError> {
    if n.checked_mul(n) != Some(values.len()) {
        return Err(MgkError::InvalidParameter(format!(
            "normalize_gram: {} values for a {n} × {n} matrix",
            values.len()
        )));
    }
    let mut k = Matrix { rows: n, cols: n, data: std::mem::take(values) };
    let d: Vec<f64> = (0..n).map(|a| k.get(a, a)).collect();
    let r = normalize(&mut k, &d, &d);
    *values = k.data;
    r
}

/// Checks kernel values computed elsewhere (e.g. on the GPU) as the CPU
/// solver checks its own: an entry that is not finite is an error; negative
/// entries within `10 · tol` of the largest entry are rounding of 0 and
/// become 0, more negative ones are an error. `cols` is the number of
/// columns of the row-major matrix (for naming the pair), `None` for a
/// diagonal (entry `i` is pair `(i, i)`).
///
/// # Errors
/// [`MgkError::InvalidValue`] naming the first bad pair.
pub fn check_values(values: &mut [f64], cols: Option<usize>, tol: f64) -> Result<(), MgkError> {
    let largest = values.iter().copied().filter(|v| v.is_finite()).fold(0.0, |m: f64, v| m.max(v.abs()));
    let slack = 10.0 * tol * largest;
    for (i, v) in values.iter_mut().enumerate() {
        if !v.is_finite() || *v < -slack {
            let pair = match cols {
                Some(c) => (i / c.max(1), i % c.max(1)),
                None => (i, i),
            };
            return Err(MgkError::InvalidValue {
                pair,
                value: *v,
                detail: "not finite or negative: a weight or a kernel hyperparameter over- or underflows, or the \
                         tolerance is too loose for the precision; check them, or compute on the CPU to see which"
                    .into(),
            });
        }
        if *v < 0.0 {
            *v = 0.0;
        }
    }
    Ok(())
}

/// A diagonal usable for normalization: finite and positive.
fn check_norms(d: &[f64], list: &'static str) -> Result<(), MgkError> {
    match d.iter().position(|&v| !(v.is_finite() && v > 0.0)) {
        Some(graph) => Err(MgkError::ZeroNorm { graph, list, value: d[graph] }),
        None => Ok(()),
    }
}

/// `K_ab ← K_ab / √(dx_a dy_b)` (as `K_ab / √dx_a / √dy_b` where the
/// product over- or underflows).
///
/// # Errors
/// [`MgkError::ZeroNorm`] for a diagonal value that is not finite and
/// positive; [`MgkError::InvalidValue`] for a result that is not finite.
fn normalize(k: &mut Matrix, dx: &[f64], dy: &[f64]) -> Result<(), MgkError> {
    check_norms(dx, "")?;
    check_norms(dy, " of the second list")?;
    let cols = k.cols;
    for (a, (row, &da)) in k.data.chunks_mut(cols.max(1)).zip(dx).enumerate() {
        for (b, (v, &db)) in row.iter_mut().zip(dy).enumerate() {
            let p = da * db;
            let x = if p.is_finite() && p > 0.0 { *v / p.sqrt() } else { *v / da.sqrt() / db.sqrt() };
            if !x.is_finite() {
                return Err(MgkError::InvalidValue {
                    pair: (a, b),
                    value: *v,
                    detail: "not finite; the normalized kernel is undefined".into(),
                });
            }
            *v = x;
        }
    }
    Ok(())
}

/// Maps a nodal similarity computed on reordered graphs (indexed by new
/// node ids, `k·n' + k'`) back to the original node order in place. Both
/// graphs of a pair are reordered, or neither.
fn unpermute_nodal(r: &mut Vec<f64>, pa: Option<&Permutation>, pb: Option<&Permutation>) {
    if let (Some(pa), Some(pb)) = (pa, pb) {
        *r = pa.apply_inverse_pairs(pb, r).expect("a nodal output has n·n' entries");
    }
}
