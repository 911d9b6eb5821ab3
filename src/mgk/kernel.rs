//! [`MarginalizedGraphKernel`]: its configuration, hyperparameters and
//! start probabilities (the computations are in [`super::api`], the
//! backends in [`super::cpu`] and [`super::gpu`]).

use super::{MgkConfig, MgkError, Progress, SolverProgress};
use crate::backend::Precision;
use crate::basekernel::{BaseKernel, Bounds, Hyperparameter, KernelError};
use crate::graph::reorder::Method;
use crate::graph::{Graph, Label};
use std::fmt;
use std::marker::PhantomData;
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

/// The first graph of `graphs` whose `label` has a schema, and the schema.
fn first_schema<'g, N: Label + 'g, E: 'g, L: Label + 'g>(
    graphs: &[&'g Graph<N, E>],
    label: impl Fn(&'g Graph<N, E>) -> Option<&'g L>,
) -> Option<(usize, Arc<crate::graph::Schema>)> {
    graphs.iter().enumerate().find_map(|(i, g)| label(g).and_then(|l| l.schema()).map(|s| (i, s.clone())))
}

/// Checks that the labels of every graph have `schema`.
fn same_schema<'g, N: 'g, E: 'g, L: Label + 'g>(
    graphs: &[&'g Graph<N, E>],
    schema: &Arc<crate::graph::Schema>,
    which: &'static str,
    label: impl Fn(&'g Graph<N, E>) -> Option<&'g L>,
) -> Result<(), MgkError> {
    for (i, g) in graphs.iter().enumerate() {
        if let Some(s) = label(g).and_then(|l| l.schema()) {
            if !Arc::ptr_eq(s, schema) && **s != **schema {
                return Err(MgkError::Binding {
                    which,
                    graph: i,
                    source: Box::new(KernelError::InvalidParameter(format!(
                        "its labels have fields {}, the first graph's have {}; every graph needs the same fields",
                        s.describe(),
                        schema.describe()
                    ))),
                });
            }
        }
    }
    Ok(())
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
    config: MgkConfig,
    q_bounds: Bounds,
    start: StartProbability<N>,
    edge_cache_limit: usize,
    progress: Option<Progress>,
    solver_progress: Option<SolverProgress>,
    _labels: PhantomData<fn(&N, &E)>,
}

impl<N, E, KV: Clone, KE: Clone> Clone for MarginalizedGraphKernel<N, E, KV, KE> {
    fn clone(&self) -> Self {
        MarginalizedGraphKernel {
            node_kernel: self.node_kernel.clone(),
            edge_kernel: self.edge_kernel.clone(),
            config: self.config,
            q_bounds: self.q_bounds,
            start: self.start.clone(),
            edge_cache_limit: self.edge_cache_limit,
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
            .field("config", &self.config)
            .field("q_bounds", &self.q_bounds)
            .field("start", &self.start)
            .finish()
    }
}

/// Default of [`MarginalizedGraphKernel::with_edge_cache_limit`].
const DEFAULT_EDGE_CACHE: usize = 1 << 21;

impl<N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>> MarginalizedGraphKernel<N, E, KV, KE> {
    /// A marginalized graph kernel with node kernel `node_kernel`, edge
    /// kernel `edge_kernel` and stop probability `q`; start probability 1,
    /// `lmin = 0`, `q` fixed (not trained), `f64`.
    ///
    /// # Errors
    /// [`MgkError::NodeKernelRange`] unless `0 ≤ κv ≤ 1` (values that reach 0
    /// are reported when they occur),
    /// [`MgkError::EdgeKernelRange`] unless `0 ≤ κe ≤ 1`,
    /// [`MgkError::InvalidQ`] unless `0 < q < 1`,
    /// [`MgkError::QTooSmall`] for `q` below [`MIN_Q`](super::MIN_Q).
    pub fn new(node_kernel: KV, edge_kernel: KE, q: f64) -> Result<Self, MgkError> {
        let k = MarginalizedGraphKernel {
            node_kernel,
            edge_kernel,
            config: MgkConfig { q, ..MgkConfig::default() },
            q_bounds: Bounds::Fixed,
            start: StartProbability::Uniform(1.0),
            edge_cache_limit: DEFAULT_EDGE_CACHE,
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
        MgkConfig { lmin, ..self.config }.validate()?;
        self.config.lmin = lmin;
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
    /// [`MgkError::QTooSmall`] for a lower bound below
    /// [`MIN_Q`](super::MIN_Q).
    pub fn with_q_bounds(mut self, bounds: Bounds) -> Result<Self, MgkError> {
        if let Bounds::Range(lo, hi) = bounds {
            if lo > 0.0 && lo < 1.0 {
                // a lower bound is a q the kernel may be trained to: it must pass the floor
                MgkConfig { q: lo, ..self.config }.validate()?;
            }
            if !(lo > 0.0 && hi < 1.0 && lo <= self.config.q && self.config.q <= hi) {
                return Err(MgkError::InvalidQ(if lo <= 0.0 { lo } else { hi }));
            }
        }
        self.q_bounds = bounds;
        Ok(self)
    }

    /// Sets the precision of the solves.
    pub fn with_precision(mut self, precision: Precision) -> Self {
        self.config.precision = precision;
        self
    }

    /// Sets the relative-residual tolerance (default
    /// [`Precision::default_tolerance`]: `1e-12` in `f64`, `1e-6` in `f32`).
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] unless `0 < tol < 1`, or when `tol` is
    /// below what the current precision can reach
    /// ([`min_tolerance`](super::min_tolerance): `1e-15` in `f64`, `1e-7` in
    /// `f32`; checked again when solving, in case the precision changes).
    pub fn with_tolerance(mut self, tol: f64) -> Result<Self, MgkError> {
        MgkConfig { tol: Some(tol), ..self.config }.validate()?;
        self.config.tol = Some(tol);
        Ok(self)
    }

    /// Sets a per-iteration progress callback for long single pairs (see
    /// [`SolverProgress`]): called after every solver iteration with the
    /// pair, the iteration and the relative residual (on the CPU; the GPU's
    /// batched solves do not report iterations).
    pub fn with_solver_progress(mut self, progress: SolverProgress) -> Self {
        self.solver_progress = Some(progress);
        self
    }

    /// Sets the iteration limit of each solve (default 10 000; values above
    /// `u32::MAX` are `u32::MAX`).
    pub fn with_max_iters(mut self, max_iters: usize) -> Self {
        self.config.max_iter = u32::try_from(max_iters).unwrap_or(u32::MAX);
        self
    }

    /// Sets the largest `|E|·|E'|` (pairs of edges, a quarter of the pairs
    /// of stored entries of two undirected graphs) for which the values
    /// `w w' κe` of a pair are computed once and cached for its solves
    /// ([`EdgePairKron`](crate::kron::EdgePairKron); default 2²¹ values,
    /// 16 MiB in `f64` per worker thread); 0 evaluates κe on the fly in
    /// every iteration. Constant edge kernels never need the cache (their
    /// product factorizes), nor do edge kernels of low rank where the
    /// factorized product is cheaper
    /// ([`BaseKernel::low_rank`](crate::basekernel::BaseKernel::low_rank)).
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
        self.config.reorder = method.unwrap_or(Method::Natural);
        self
    }

    /// The reordering applied before packing, if any.
    pub fn reorder(&self) -> Option<Method> {
        (self.config.reorder != Method::Natural).then_some(self.config.reorder)
    }

    /// Sets how the GPU applies the operator ([`XmvScheme`](super::XmvScheme);
    /// the CPU ignores it).
    pub fn with_xmv(mut self, xmv: super::XmvScheme) -> Self {
        self.config.xmv = xmv;
        self
    }

    /// Sets the GPU backend's paths and kernel tuning
    /// ([`MgkConfig::gpu`](super::MgkConfig::gpu)): speed only, the values
    /// do not depend on them; the CPU ignores them.
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] for a field out of its range
    /// ([`GpuGramParams::validate`](super::GpuGramParams::validate)).
    pub fn with_gpu_params(mut self, gpu: super::GpuGramParams) -> Result<Self, MgkError> {
        gpu.validate()?;
        self.config.gpu = gpu;
        Ok(self)
    }

    /// Solves `system` per pair instead of the marginalized graph kernel's
    /// own ([`KronSystem`](super::KronSystem); `None`: the own one), on every
    /// backend. Gradients are then unsupported.
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] for a scale that is not finite and > 0.
    pub fn with_system(mut self, system: Option<super::KronSystem>) -> Result<Self, MgkError> {
        MgkConfig { system, ..self.config }.validate()?;
        self.config.system = system;
        Ok(self)
    }

    /// The configuration (q, lmin, precision, tolerance, iteration cap,
    /// reordering, XMV scheme), as every backend uses it.
    pub fn config(&self) -> &MgkConfig {
        &self.config
    }

    /// The edge-cache limit of the CPU backend.
    pub(crate) fn edge_cache_limit(&self) -> usize {
        self.edge_cache_limit
    }

    /// The progress callback, if any.
    pub(crate) fn progress(&self) -> Option<&Progress> {
        self.progress.as_ref()
    }

    /// The per-iteration solver progress callback, if any.
    pub(crate) fn solver_progress(&self) -> Option<&SolverProgress> {
        self.solver_progress.as_ref()
    }

    /// Whether `q` is trained.
    pub(crate) fn q_active(&self) -> bool {
        self.q_bounds != Bounds::Fixed
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
        self.config.q
    }

    /// `lmin`.
    pub fn lmin(&self) -> u32 {
        self.config.lmin
    }

    /// The precision.
    pub fn precision(&self) -> Precision {
        self.config.precision
    }

    /// The most solver iterations per pair.
    pub fn max_iters(&self) -> usize {
        self.config.max_iter as usize
    }

    /// The relative-residual tolerance in use.
    pub fn tolerance(&self) -> f64 {
        self.config.tolerance()
    }

    /// All hyperparameters: the node kernel's (prefixed `node.`), the edge
    /// kernel's (prefixed `edge.`), then `q`. Fixed ones included.
    pub fn hyperparameters(&self) -> Vec<Hyperparameter> {
        let mut h: Vec<Hyperparameter> =
            self.node_kernel.hyperparameters().into_iter().map(|h| h.prefixed("node")).collect();
        h.extend(self.edge_kernel.hyperparameters().into_iter().map(|h| h.prefixed("edge")));
        h.push(Hyperparameter::new("q", self.config.q, self.q_bounds));
        h
    }

    /// The hyperparameter at path `name` (e.g. `node.label.h`, `edge.0.h`, `q`).
    pub fn hyperparameter(&self, name: &str) -> Option<Hyperparameter> {
        self.hyperparameters().into_iter().find(|h| h.name == name)
    }

    /// The trained (non-fixed) hyperparameters, in the order of
    /// [`theta_log`](Self::theta_log) and of the gradients' last axis
    /// ([`Gradient::names`](super::Gradient::names)).
    pub fn active_hyperparameters(&self) -> Vec<Hyperparameter> {
        self.hyperparameters().into_iter().filter(Hyperparameter::is_active).collect()
    }

    /// θ as scikit-learn has it: the logarithms of the trained
    /// hyperparameters, in the order of the gradients
    /// ([`active_hyperparameters`](Self::active_hyperparameters)); the
    /// gradients are ∂K/∂θ in this θ.
    pub fn theta_log(&self) -> Vec<f64> {
        crate::basekernel::theta_log(&self.hyperparameters())
    }

    /// The bounds of [`theta_log`](Self::theta_log), in log space: `(ln lo,
    /// ln hi)` per trained hyperparameter (a lower bound 0 gives −∞).
    pub fn bounds_log(&self) -> Vec<(f64, f64)> {
        crate::basekernel::bounds_log(&self.hyperparameters())
    }

    /// Sets the trained hyperparameters from their logarithms (the order of
    /// [`theta_log`](Self::theta_log)); fixed ones keep their values.
    ///
    /// # Errors
    /// As [`set_theta`](Self::set_theta); on error the kernel is unchanged.
    pub fn set_theta_log(&mut self, theta_log: &[f64]) -> Result<(), MgkError> {
        let theta = crate::basekernel::theta_from_log(&self.hyperparameters(), theta_log)?;
        self.set_theta(&theta)
    }

    /// A copy with the trained hyperparameters set from their logarithms
    /// (scikit-learn's `clone_with_theta`).
    ///
    /// # Errors
    /// As [`set_theta_log`](Self::set_theta_log).
    pub fn clone_with_theta(&self, theta_log: &[f64]) -> Result<Self, MgkError> {
        let mut k = self.clone();
        k.set_theta_log(theta_log)?;
        Ok(k)
    }

    /// Sets the hyperparameter at path `name` to `value` (linear scale).
    ///
    /// # Errors
    /// [`KernelError::UnknownHyperparameter`] naming the known paths;
    /// otherwise as [`set_theta`](Self::set_theta).
    pub fn set_hyperparameter(&mut self, name: &str, value: f64) -> Result<(), MgkError> {
        let hs = self.hyperparameters();
        let Some(i) = hs.iter().position(|h| h.name == name) else {
            return Err(KernelError::UnknownHyperparameter {
                name: name.to_string(),
                available: hs.iter().map(|h| h.name.as_str()).collect::<Vec<_>>().join(", "),
            }
            .into());
        };
        let mut theta: Vec<f64> = hs.iter().map(|h| h.value).collect();
        theta[i] = value;
        self.set_theta(&theta)
    }

    /// The hyperparameter values, linear and fixed ones included, in the
    /// order of [`hyperparameters`](Self::hyperparameters) (for scikit-learn's
    /// θ, see [`theta_log`](Self::theta_log)).
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
        next.config.q = q;
        next.check()?;
        *self = next;
        Ok(())
    }

    /// A copy whose node and edge kernels are bound
    /// ([`BaseKernel::bind`]) to the schema of the labels of `x` and `y`,
    /// when the labels have one ([`Label::schema`]: records and
    /// [`label_struct!`](crate::label_struct) types); `None` for labels
    /// without a schema. Every graph's labels must have the schema of the
    /// first labelled graph.
    ///
    /// # Errors
    /// [`MgkError::Binding`] naming the kernel, the graph, the field and the
    /// fields the labels have, for a field that is missing or of the wrong
    /// kind, or for graphs whose labels have different schemas.
    pub fn bound_to(&self, x: &[Graph<N, E>], y: Option<&[Graph<N, E>]>) -> Result<Option<Self>, MgkError> {
        let graphs: Vec<&Graph<N, E>> = x.iter().chain(y.unwrap_or(&[])).collect();
        let node = first_schema(&graphs, |g| g.node_labels().first());
        let edge = first_schema(&graphs, |g| g.edge_labels().first());
        if node.is_none() && edge.is_none() {
            return Ok(None);
        }
        let mut k = self.clone();
        if let Some((graph, schema)) = &node {
            k.node_kernel.bind(schema).map_err(|source| MgkError::Binding {
                which: "node",
                graph: *graph,
                source: Box::new(source),
            })?;
            same_schema(&graphs, schema, "node", |g| g.node_labels().first())?;
        }
        if let Some((graph, schema)) = &edge {
            k.edge_kernel.bind(schema).map_err(|source| MgkError::Binding {
                which: "edge",
                graph: *graph,
                source: Box::new(source),
            })?;
            same_schema(&graphs, schema, "edge", |g| g.edge_labels().first())?;
        }
        Ok(Some(k))
    }

    fn check(&self) -> Result<(), MgkError> {
        super::system::check_ranges(&self.node_kernel, &self.edge_kernel)?;
        self.config.validate()
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
}
