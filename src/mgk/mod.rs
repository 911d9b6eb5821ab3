//! The marginalized graph kernel ([`MarginalizedGraphKernel`]) on the lazy
//! Kronecker product, its result types and errors (which the geometric
//! random-walk kernel, [`crate::rw`], shares).
//!
//! # The marginalized graph kernel
//!
//! For graphs `G` (`n` nodes, symmetric weights `w_ij ≥ 0`, node labels
//! `v_i`, edge labels `e_ij`) and `G'`, with degrees `d_i = Σ_j w_ij` (1 where
//! that sum is 0), start probabilities `p_i` (default 1) and stop probability
//! `q ∈ (0, 1)` (GraphDot 0.8.1's formulation):
//!
//! ```text
//! D× = (D ⊗ D') / (1 − q)²,   V× = diag(κv(v_i, v'_i')),
//! E×[(i,i'),(j,j')] = κe(e_ij, e'_i'j'),
//! A r = D× 1  with  A = D× V×⁻¹ − (W ⊗ W') ⊙ E×,
//! K(G, G') = Σ_{i,i'} p_i p'_i' r_ii'   −  lmin · Σ_{i,i'} p_i p'_i' κv(v_i, v'_i')
//! ```
//!
//! (product node `(i, i')` at index `i·n' + i'`). When `0 < κv ≤ 1` and
//! `0 ≤ κe ≤ 1`, `A` is symmetric and strictly diagonally dominant with a
//! positive diagonal, hence positive definite: it is solved by conjugate
//! gradients with the Jacobi preconditioner (the diagonal `D× V×⁻¹`, less
//! self-loop terms, is known). The kernel's ranges and `q` are checked when
//! the kernel is built. Directed graphs give a non-symmetric `A`, solved by
//! BiCGSTAB.
//!
//! The nodal similarity is `K_ii' = p_i p'_i' r_ii' − lmin p_i p'_i' κv(v_i, v'_i')`;
//! the normalized kernel is `K̃(G, G') = K(G, G') / √(K(G, G) K(G', G'))`.
//!
//! ## Gradient
//!
//! With `p× = p ⊗ p'` and `K = p×ᵀ r = p×ᵀ A⁻¹ b`, for a hyperparameter θ
//! (derivatives with respect to `log θ`, written `∂`):
//!
//! ```text
//! ∂K = p×ᵀ A⁻¹ (∂b − ∂A r) = yᵀ (∂b − ∂A r),   where  A y = p×
//! ```
//!
//! (`A` is symmetric, so the adjoint solve `Aᵀ y = p×` is a second solve
//! with the same operator: GraphDot's "duo" solve). Then
//! - node kernel: `∂A = −D× V×⁻² ∂V×`, `∂b = 0`, so
//!   `∂K = Σ y_ii' r_ii' D×_ii' ∂κv(v_i, v'_i') / κv² − lmin Σ p_i p'_i' ∂κv`;
//! - edge kernel: `∂A = −(W ⊗ W') ⊙ ∂E×`, so
//!   `∂K = Σ_{(i,j),(i',j')} y_ii' w_ij w'_i'j' ∂κe(e_ij, e'_i'j') r_jj'`;
//! - `q` (when its bounds are not fixed): `∂D×/∂log q = 2q/(1−q) D×` and
//!   `∂b = ∂D× 1`, so `∂K = 2q/(1−q) Σ y_ii' D×_ii' (1 − r_ii'/κv)`.
//!
//! Each pair costs one extra solve and `O(nnz·nnz'·h)` for `h` edge-kernel
//! hyperparameters. The same sums run on the GPU in one batched launch
//! ([`gram_with_gradient_on`](MarginalizedGraphKernel::gram_with_gradient_on),
//! `kernels/mgk_grad.cu`). Gradients of the normalized kernel follow from
//! `∂K̃_ab = ∂K_ab / √(K_aa K_bb) − K̃_ab (∂K_aa / K_aa + ∂K_bb / K_bb) / 2`.
//!
//! ## Precision
//!
//! [`Precision::F64`] solves to a relative residual of `1e-12` by default;
//! [`Precision::F32`] packs weights and vectors in `f32` (half the memory
//! traffic) and defaults to `1e-6` (on every backend:
//! [`Precision::default_tolerance`]): `f32` rounding (about `6e-8`) bounds
//! how far the true residual can fall, and the kernel values then agree with
//! `f64` to about `1e-5` relative. Reductions (dot products, `K`) accumulate
//! in `f64` in both.
//!
//! ## Backends
//!
//! One configuration ([`MgkConfig`]) and one API: every computation
//! (`gram`, `gram_xy`, `diag`, `nodal`, the normalized forms and the
//! gradients) enumerates its pairs and hands them to a backend engine ("solve
//! these pairs with these outputs"), the CPU's or the CUDA device's, then
//! assembles and normalizes the result in one place. The plain methods run on
//! the CPU; the `_on` methods take a [`Backend`](crate::Backend).
//! Everything that defines a pair's system (degrees, `D×`, `V×`, start
//! vectors, the length-one term, the pairs of a call, the normalization) is
//! in [`system`], shared by the backends and the tests' references.
//!
//! ## Extreme values and failures
//!
//! - Scale invariance: `K` does not change when all weights of a graph are
//!   multiplied by `c > 0` (`D` and `W` scale together; isolated nodes keep
//!   degree 1 and `r_ii' = κv`). Every backend passes every graph through
//!   [`KronSystem::scaled_weights`], i.e. [`system::unit_weights`] (an
//!   exact power-of-two scaling when the largest weight is outside
//!   `[2⁻²⁰, 2²⁰]`) for systems with weighted degrees, so extreme weights give the
//!   same values as moderate ones; gradients are invariant too.
//! - Values are checked: a pair's `K` that is not finite, or negative beyond
//!   the solve's tolerance, is [`MgkError::InvalidValue`] naming the pair
//!   (tiny negatives from rounding a zero become 0). A graph with no nodes
//!   has `K = 0` with every graph (defined: there are no walks);
//!   normalizing by a `K(G, G)` that is 0 (or not finite) is
//!   [`MgkError::ZeroNorm`] naming the graph, never NaN.
//! - What the solvers rely on is checked before solving: `q ≥ 1e-10`
//!   ([`MgkError::QTooSmall`]; the system's margin of positive definiteness
//!   is about `2q`), a tolerance the precision can reach, κv finite and
//!   non-negative on every pair of labels (a κv that underflows towards 0 is
//!   raised to a tiny floor, [`system::floor_node_kernel`], so that the
//!   kernel is its limit there; a NaN is [`MgkError::KernelValue`], which also
//!   names an edge kernel that becomes NaN when a solve fails). Solver
//!   failures carry advice in the kernel's terms ([`MgkError::Solver`]).
//! - Directed graphs are solved by BiCGSTAB, which falls back to the Jacobi
//!   iteration (convergent on these strictly diagonally dominant systems)
//!   where it breaks down.
//! - Long single pairs can report every solver iteration on the CPU
//!   ([`MarginalizedGraphKernel::with_solver_progress`]).
//! - The value and normalization checks are made once, in the API, for
//!   every backend; the `q` and tolerance floors are part of
//!   [`MgkConfig::validate`], which every backend runs before solving.

mod api;
mod config;
mod cpu;
mod engine;
pub(crate) mod gpu;
mod gpu_params;
mod kernel;
mod node_values;
pub mod system;

pub(crate) use self::config::tolerance_below_floor;
pub use self::config::{min_tolerance, MgkConfig, XmvScheme, MIN_Q};
pub use self::engine::MgkPairSystem;
pub use self::gpu_params::{GpuGramParams, Tuning};
pub use self::kernel::{MarginalizedGraphKernel, StartProbability};
pub use self::system::{check_values, normalize_gram};
pub use self::system::{DegreeRule, KronSystem};
pub use crate::backend::Precision;
/// The random-walk kernel at its former path (it lives in [`crate::rw`]).
pub use crate::rw::{RandomWalkKernel, RwMethod};

// The GPU Gram and its outputs (the GPU code lives in `gpu/`), and for tests
// and benchmarks (feature `testing`) its code generation, batch packer and
// CPU reference.
pub use self::gpu::output::{GramGradient, GramOutput, NodalOutput};
#[cfg(feature = "testing")]
pub use self::gpu::{bake, codegen, pack, reference};
#[cfg(feature = "cuda")]
pub use self::gpu::{GpuGram, GpuGraphs};

use crate::basekernel::KernelError;
use crate::solver::SolverError;
use std::sync::Arc;

/// A progress callback: called with `(pairs done, pairs in total)` after
/// each pair, from any worker thread.
pub type Progress = Arc<dyn Fn(usize, usize) + Send + Sync>;

/// A per-iteration progress callback for long single pairs: called with
/// `((a, b), iteration, relative residual)` after every solver iteration of
/// pair `(a, b)`, from the worker thread solving it. It should return
/// quickly (throttle any drawing).
pub type SolverProgress = Arc<dyn Fn((usize, usize), usize, f64) + Send + Sync>;

/// A dense row-major matrix of kernel values.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// A `rows × cols` matrix of zeros.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Matrix { rows, cols, data: vec![0.0; rows * cols] }
    }

    /// A `rows × cols` matrix of the row-major entries `data`
    /// (`data.len() == rows * cols`).
    pub(crate) fn from_row_major(rows: usize, cols: usize, data: Vec<f64>) -> Self {
        debug_assert_eq!(data.len(), rows * cols);
        Matrix { rows, cols, data }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Entry `(i, j)`.
    ///
    /// # Panics
    /// If `(i, j)` is out of range.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        assert!(i < self.rows && j < self.cols, "Matrix::get out of range");
        self.data[i * self.cols + j]
    }

    /// Sets entry `(i, j)`.
    ///
    /// # Panics
    /// If `(i, j)` is out of range.
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, v: f64) {
        assert!(i < self.rows && j < self.cols, "Matrix::set out of range");
        self.data[i * self.cols + j] = v;
    }

    /// The entries, row-major.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// The entries, row-major.
    pub fn into_vec(self) -> Vec<f64> {
        self.data
    }
}

/// Gradients of a kernel matrix with respect to the log of each active
/// hyperparameter: a `rows × cols × k` array (GraphDot's layout), entry
/// `(i, j, t)` at `(i·cols + j)·k + t`.
#[derive(Clone, Debug, PartialEq)]
pub struct Gradient {
    rows: usize,
    cols: usize,
    names: Vec<String>,
    data: Vec<f64>,
}

impl Gradient {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The hyperparameter paths, in the order of the last axis
    /// (e.g. `node.h`, `edge.length.scale`, `q`).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// `∂K_ij / ∂ log θ_t`.
    #[inline]
    pub fn get(&self, i: usize, j: usize, t: usize) -> f64 {
        let k = self.names.len();
        assert!(i < self.rows && j < self.cols && t < k, "Gradient::get out of range");
        self.data[(i * self.cols + j) * k + t]
    }

    /// The entries, in `(i, j, t)` order.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }
}

/// What makes a kernel with values in `[min, max]` fit `[0, 1]`: only
/// suggestions that work.
fn range_hint(min: f64, max: f64, which: &str) -> String {
    let mut h = Vec::new();
    if min < 0.0 {
        h.push(format!(
            "the {which} kernel takes negative values: use a kernel with positive values, e.g. exp of an \
             expression (sqexp, a Laplacian), delta with h > 0, or a product of such"
        ));
    }
    if max <= 0.0 {
        h.push(format!("the {which} kernel is never positive: use one whose values are positive"));
    }
    if max > 1.0 && max.is_finite() {
        h.push(format!("its maximum is {max}: multiply it by 1/{max} (c * k with c = {})", 1.0 / max));
    } else if max > 1.0 {
        h.push(format!(
            "it is unbounded above: normalize it (the SPEC normalize(k); in Rust k.normalized()) or use a bounded \
             {which} kernel"
        ));
    }
    h.join("; ")
}

/// Errors of the graph kernels.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MgkError {
    /// The node kernel can leave `[0, 1]` (its values must be positive and
    /// at most 1).
    #[error(
        "the node kernel's range [{min}, {max}] is not inside [0, 1]: the marginalized graph kernel needs \
         0 < κv ≤ 1 for its system to be positive definite ({})",
        range_hint(*min, *max, "node")
    )]
    NodeKernelRange {
        /// Smallest value of κv.
        min: f64,
        /// Largest value of κv.
        max: f64,
    },
    /// The edge kernel can leave `[0, 1]`.
    #[error(
        "the edge kernel's range [{min}, {max}] is not inside [0, 1]: the marginalized graph kernel needs \
         0 ≤ κe ≤ 1 for its system to be positive definite ({})",
        range_hint(*min, *max, "edge")
    )]
    EdgeKernelRange {
        /// Smallest value of κe.
        min: f64,
        /// Largest value of κe.
        max: f64,
    },
    /// `q` outside `(0, 1)`.
    #[error("stop probability q = {0} must lie strictly between 0 and 1")]
    InvalidQ(f64),
    /// `q` so small that the system is singular in floating point.
    #[error(
        "stop probability q = {0:e} is too small: the system becomes singular as q → 0 (its margin of positive \
         definiteness is about 2q, lost to rounding below 1e-10); use q ≥ 1e-10 (typical values are 0.01 to 0.1)"
    )]
    QTooSmall(f64),
    /// A graph whose weights cannot be scaled into range.
    #[error("graph {graph}: {source}")]
    WeightRange {
        /// Graph index in its list.
        graph: usize,
        /// What was found.
        #[source]
        source: system::WeightRange,
    },
    /// A node kernel declared in `[−1, 1]` (such as a normalized dot
    /// product) is negative on some pair of labels of the data.
    #[error(
        "the node kernel is {value} on node {} of graph {} and node {} of graph {}; a node kernel that can be \
         negative (its declared range reaches below 0, e.g. a normalized dot product, the cosine) is accepted only \
         where its values on the data are > 0 (the system needs 0 < κv ≤ 1): use non-negative features (then the \
         cosine is in [0, 1]), or a kernel with values in [0, 1] (delta, sqexp, exp of an expression)",
        at.0, pair.0, at.1, pair.1
    )]
    NodeKernelNegative {
        /// The pair of graphs.
        pair: (usize, usize),
        /// The nodes `(i, i')`.
        at: (usize, usize),
        /// The value found.
        value: f64,
    },
    /// The node kernel evaluates to 0, NaN or infinity (or the edge kernel
    /// to NaN, infinity or a negative value) on some pair of labels although
    /// its declared range is fine: a hyperparameter under- or overflows.
    #[error(
        "the {kernel} kernel is {value} on {kernel} {} of graph {} and {kernel} {} of graph {}; the marginalized \
         graph kernel needs {needs}: a hyperparameter under- or overflows there (a sqexp or rq length scale whose \
         square underflows gives 0/0 = NaN for equal labels); use a larger length scale or rescale the labels",
        at.0, pair.0, at.1, pair.1
    )]
    KernelValue {
        /// `"node"` or `"edge"`.
        kernel: &'static str,
        /// What the kernel must satisfy (`0 < κv ≤ 1` or `0 ≤ κe ≤ 1`).
        needs: &'static str,
        /// The pair of graphs.
        pair: (usize, usize),
        /// The nodes `(i, i')`, or the stored entries (arcs) of the two graphs.
        at: (usize, usize),
        /// The value found.
        value: f64,
    },
    /// A kernel value that is not finite, or negative beyond rounding.
    #[error("the kernel value of pair ({}, {}) is {value}: {detail}", pair.0, pair.1)]
    InvalidValue {
        /// The pair of graphs.
        pair: (usize, usize),
        /// The value found.
        value: f64,
        /// Why, and what to change.
        detail: String,
    },
    /// Normalization by a diagonal value that is zero, negative or not
    /// finite.
    #[error(
        "cannot normalize: K(G, G) = {value} for graph {graph}{list}; K̃ = K(G, G′)/√(K(G, G) K(G′, G′)) is \
         undefined when K(G, G) is 0 (a graph with no nodes, or whose start probabilities are all 0, has no \
         walks): remove that graph or use the unnormalized kernel"
    )]
    ZeroNorm {
        /// Graph index in its list.
        graph: usize,
        /// Which list (empty, or " of the second list").
        list: &'static str,
        /// The diagonal value.
        value: f64,
    },
    /// `lmin` other than 0 or 1.
    #[error("lmin = {0}: only 0 and 1 are supported")]
    InvalidLmin(u32),
    /// A start probability that is negative or not finite.
    #[error("start probability of node {node} of graph {graph} is {value}; it must be finite and >= 0")]
    InvalidStart {
        /// Graph index in its list.
        graph: usize,
        /// Node.
        node: usize,
        /// Value found.
        value: f64,
    },
    /// An invalid parameter.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// Something not supported.
    #[error("not supported: {0}")]
    Unsupported(&'static str),
    /// A base kernel refused (e.g. a hyperparameter outside its bounds).
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// A base kernel does not fit the data set's labels (a field it reads is
    /// missing or of the wrong kind), found when the kernel met the data.
    #[error("the {which} kernel does not fit the {which} labels of graph {graph}: {source}")]
    Binding {
        /// `"node"` or `"edge"`.
        which: &'static str,
        /// The graph (index in its list; `x` first, then `y`) whose labels were read.
        graph: usize,
        /// What does not fit: the field, and the fields the labels have.
        #[source]
        source: Box<KernelError>,
    },
    /// `λ` too large for the random-walk kernel: the series diverges.
    #[error(
        "random-walk λ = {lambda} is too large for pair ({}, {}): {detail}; the kernel needs \
         λ < 1 / (ρ(W) ρ(W')) (see RandomWalkKernel::lambda_limit)", pair.0, pair.1
    )]
    LambdaTooLarge {
        /// λ.
        lambda: f64,
        /// The pair of graphs.
        pair: (usize, usize),
        /// What was found.
        detail: String,
    },
    /// The GPU backend failed (see [`CudaError`](crate::cuda::CudaError)).
    #[error(transparent)]
    Cuda(Box<crate::cuda::CudaError>),
    /// The solver failed on a pair of graphs.
    #[error("solving the pair ({}, {}): {advice} (solver: {source})", pair.0, pair.1)]
    Solver {
        /// Indices of the two graphs (in the first and second list).
        pair: (usize, usize),
        /// The solver's error.
        #[source]
        source: SolverError,
        /// What went wrong and what to change, in terms of the kernel's
        /// parameters.
        advice: String,
    },
}

impl From<crate::cuda::CudaError> for MgkError {
    fn from(e: crate::cuda::CudaError) -> Self {
        MgkError::Cuda(Box::new(e))
    }
}
