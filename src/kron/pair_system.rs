//! Your own pair system through the batched solver: a [`PairSystem`] states,
//! for graphs `G` and `G'`, the diagonal `d`, the right-hand side `b` and the
//! output functional `o` of
//!
//! ```text
//! (diag(d) − c (W ⊗ W') ⊙ κe) x = b,      value = oᵀ x
//! ```
//!
//! (product node `(i, i')` at `i·n' + i'`), and [`solve_pairs`] solves it for
//! a list of pairs on the backend [`PairSolve::backend`] names (the CPU in
//! parallel, or a CUDA device in one batched launch), with the nodal
//! outputs `o ⊙ x` and the gradient of the value with respect to the
//! system's own parameters by one adjoint solve per pair:
//!
//! ```text
//! ∂value/∂θ = (∂o)ᵀ x + yᵀ (∂b − diag(∂d) x + ∂c (W ⊗ W') ⊙ κe x),   Aᵀ y = o.
//! ```
//!
//! The edge kernel κe is applied lazily ([`KronProduct`], bound to record
//! labels where it meets them); the systems of undirected graphs are solved
//! by Jacobi-preconditioned CG, those of directed graphs by BiCGSTAB (with
//! the Jacobi iteration as fallback on the CPU). The system must be non-singular, and
//! symmetric positive definite for CG: strict diagonal dominance,
//! `d_(i,i') > |c| Σ_(j,j') w_ij w'_i'j' κe`, is enough.
//!
//! `examples/own_system.rs` walks through a whole system (checked against a
//! dense solve and finite differences).

use super::{Diag, KronApply, KronProduct, Octiles, ShiftedKron};
use crate::backend::{Backend, Precision};
use crate::basekernel::{BaseKernel, KernelError};
use crate::cuda::GpuLabel;
use crate::graph::{Graph, Label};
use crate::solver::{
    bicgstab_or_fixed_point, cg, BicgstabParams, CgParams, IterParams, Precond, SolverError, Workspace,
};
use rayon::prelude::*;

/// A linear system over a pair of graphs `G`, `G'`,
///
/// ```text
/// (diag(d) − c (W ⊗ W') ⊙ κe) x = b,      value = oᵀ x,
/// ```
///
/// solved by [`solve_pairs`] for a list of pairs, with the nodal outputs
/// `o ⊙ x` and the gradient with respect to the system's own parameters θ
/// by one adjoint solve per pair (`Aᵀ y = o`):
/// `∂value/∂θ = (∂o)ᵀ x + yᵀ (∂b − diag(∂d) x + ∂c (W ⊗ W') ⊙ κe x)`.
///
/// Every vector is indexed by the product node `(i, i')` at `i·n' + i'`
/// (`n'` the number of nodes of `h`) and handed in zeroed, of length `n·n'`.
/// The system must be non-singular, and symmetric positive definite on
/// undirected graphs (solved by Jacobi-preconditioned CG; directed ones by
/// BiCGSTAB): strict diagonal dominance,
/// `d_(i,i') > |c| Σ_(j,j') w_ij w'_i'j' κe`, is enough.
/// `examples/own_system.rs` walks through a whole system.
///
/// Compared with [`mgk::KronSystem`](crate::mgk::KronSystem) (the
/// marginalized graph kernel's shape `(s D× V×⁻¹ − A×) r = s D× 1`, with its
/// own batched CPU and GPU solvers), a `PairSystem` takes any diagonal,
/// right-hand side and output; [`solve_pairs`] solves it on any backend
/// (labels with a device layout), [`solve_pairs_cpu`] on the CPU for any
/// labels. The marginalized graph kernel itself is one such system:
/// [`mgk::MgkPairSystem`](crate::mgk::MgkPairSystem).
pub trait PairSystem<N: Label, E: Label>: Sync {
    /// The edge kernel κe of the off-diagonal part.
    type EdgeKernel: BaseKernel<E>;

    /// κe.
    fn edge_kernel(&self) -> &Self::EdgeKernel;

    /// The coupling `c` of the off-diagonal part `c (W ⊗ W') ⊙ κe`.
    fn coupling(&self) -> f64;

    /// The diagonal `d` of the pair `(g, h)`.
    fn diagonal(&self, g: &Graph<N, E>, h: &Graph<N, E>, d: &mut [f64]);

    /// The right-hand side `b` of the pair.
    fn rhs(&self, g: &Graph<N, E>, h: &Graph<N, E>, b: &mut [f64]);

    /// The output functional `o`: the pair's value is `oᵀ x`.
    fn output(&self, g: &Graph<N, E>, h: &Graph<N, E>, o: &mut [f64]);

    /// The number of parameters θ the gradient is taken with respect to
    /// (default 0).
    fn num_params(&self) -> usize {
        0
    }

    /// The derivatives of `d`, `b` and `o` with respect to parameter `t`
    /// (written into the zeroed slices), and `∂c/∂θ_t` returned. The default
    /// is all zeros.
    fn derivatives(
        &self,
        g: &Graph<N, E>,
        h: &Graph<N, E>,
        t: usize,
        dd: &mut [f64],
        db: &mut [f64],
        d_o: &mut [f64],
    ) -> f64 {
        let _ = (g, h, t, dd, db, d_o);
        0.0
    }
}

/// What [`solve_pairs`] computes besides the values, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct PairSolve {
    /// Where to solve: [`solve_pairs`] takes any backend (`Auto`: the first
    /// GPU if there is one, else the CPU; a device set: its first device);
    /// [`solve_pairs_cpu`] takes [`Backend::Cpu`] and [`Backend::Auto`]
    /// (both the CPU). Default `Auto`.
    pub backend: Backend,
    /// The precision of the device solve (default [`Precision::F64`]; f32
    /// vectors reach a relative residual of about `1e-6` at best, so set
    /// `tol` accordingly). The CPU always solves in f64.
    pub precision: Precision,
    /// Relative residual tolerance of every solve (default `1e-12`).
    pub tol: f64,
    /// Iteration limit of every solve (default 1000).
    pub max_iters: usize,
    /// Compute the gradient (one adjoint solve more per pair; default `false`).
    pub gradient: bool,
    /// Keep the nodal outputs `o ⊙ x` (default `false`).
    pub nodal: bool,
}

impl Default for PairSolve {
    fn default() -> Self {
        PairSolve {
            backend: Backend::Auto,
            precision: Precision::F64,
            tol: 1e-12,
            max_iters: 1000,
            gradient: false,
            nodal: false,
        }
    }
}

/// One pair's result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairSolution {
    /// `oᵀ x`.
    pub value: f64,
    /// `∂value/∂θ_t` for `t < num_params()`; empty unless asked.
    pub grad: Vec<f64>,
    /// `o ⊙ x` (`n × n'`, row-major); `None` unless asked.
    pub nodal: Option<Vec<f64>>,
    /// Iterations of the forward solve.
    pub iterations: usize,
}

/// Errors of [`solve_pairs`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PairSystemError {
    /// A pair names a graph that is not in its list.
    #[error("pair {pair:?} names graph {index}, but the {list} list has {len} graphs")]
    PairIndex {
        /// The pair.
        pair: (usize, usize),
        /// The index out of range.
        index: usize,
        /// `"first"` or `"second"`.
        list: &'static str,
        /// The list's length.
        len: usize,
    },
    /// The edge kernel does not fit the graphs' edge labels (or, on a
    /// device, has no CUDA form).
    #[error("edge kernel: {0}")]
    Kernel(#[from] KernelError),
    /// A solve failed.
    #[error("pair {pair:?}: {source}; check that the system is non-singular (diagonally dominant for CG)")]
    Solver {
        /// The pair.
        pair: (usize, usize),
        /// The solver's report.
        #[source]
        source: SolverError,
    },
    /// The system gave a value or derivative that is not finite.
    #[error("pair {pair:?}: the {what} has a non-finite entry at product node {at}")]
    NotFinite {
        /// The pair.
        pair: (usize, usize),
        /// Which vector.
        what: &'static str,
        /// The product node.
        at: usize,
    },
    /// Gradients of directed pairs need the transposed operator, which is
    /// not implemented.
    #[error("pair {pair:?}: gradients of systems on directed graphs are not supported; ask for values only")]
    DirectedGradient {
        /// The pair.
        pair: (usize, usize),
    },
    /// [`solve_pairs_cpu`] was asked to run on a CUDA device.
    #[error(
        "solve_pairs_cpu runs on the CPU: call kron::solve_pairs for a CUDA backend (its labels need a device \
         layout: primitive types, Record, or a struct declared with kronograph::label_struct!)"
    )]
    GpuNotSupported,
    /// The CUDA backend failed (no device, a compile or driver error, a
    /// graph the device path does not take).
    #[error("CUDA: {0}")]
    Cuda(#[source] Box<crate::cuda::CudaError>),
}

impl From<crate::cuda::CudaError> for PairSystemError {
    /// The edge kernel's own error as on the CPU ([`PairSystemError::Kernel`]),
    /// any other as [`PairSystemError::Cuda`].
    fn from(e: crate::cuda::CudaError) -> Self {
        match e {
            crate::cuda::CudaError::Kernel { source, .. } => PairSystemError::Kernel(source),
            e => PairSystemError::Cuda(Box::new(e)),
        }
    }
}

/// Solves `system` for each pair `(a, b)` of `pairs` (graph `a` of `x`,
/// graph `b` of `y`, of `x` when `y` is `None`) on the backend of `opts`;
/// results in the order of `pairs`.
///
/// - On the CPU ([`Backend::Cpu`], or `Auto` without a GPU): as
///   [`solve_pairs_cpu`], in parallel, f64.
/// - On a CUDA device: the graphs are uploaded once (octiles, as the
///   marginalized graph kernel packs them), the user's diagonals,
///   right-hand sides and outputs are evaluated on the host (in parallel)
///   and uploaded, and every pair is solved in ONE batched launch of a
///   kernel generated for the edge kernel's CUDA form (persistent blocks,
///   one pair per block, the MGK's staging and product): Jacobi PCG for
///   undirected pairs, Jacobi BiCGSTAB for pairs with a directed graph; the
///   gradient's adjoint solve and `K x` run in the same launch. Precision
///   [`PairSolve::precision`].
///
/// # Examples
/// The random-walk-like system `(2 I − 0.1 (W ⊗ W')) x = 1`, value `1ᵀx`,
/// on every pair of two graphs, on the first GPU if there is one (else the
/// CPU), with the nodal outputs:
/// ```
/// use kronograph::graph::{Direction, Graph, GraphBuilder};
/// use kronograph::kron::{solve_pairs, PairSolve, PairSystem, Unlabeled};
/// use kronograph::{Backend, Precision};
///
/// struct Walk;
/// impl PairSystem<(), ()> for Walk {
///     type EdgeKernel = Unlabeled;
///     fn edge_kernel(&self) -> &Unlabeled { &Unlabeled }
///     fn coupling(&self) -> f64 { 0.1 }
///     fn diagonal(&self, _: &Graph<(), ()>, _: &Graph<(), ()>, d: &mut [f64]) { d.fill(2.0) }
///     fn rhs(&self, _: &Graph<(), ()>, _: &Graph<(), ()>, b: &mut [f64]) { b.fill(1.0) }
///     fn output(&self, _: &Graph<(), ()>, _: &Graph<(), ()>, o: &mut [f64]) { o.fill(1.0) }
/// }
///
/// let path = |n: usize| {
///     let mut b = GraphBuilder::<(), ()>::new(n, Direction::Undirected).node_labels(vec![(); n]);
///     (1..n).for_each(|i| b.push_edge(i - 1, i, 1.0, ()));
///     b.build()
/// };
/// let graphs = vec![path(3)?, path(5)?];
/// let opts = PairSolve { backend: Backend::Auto, precision: Precision::F64, nodal: true, ..Default::default() };
/// let out = solve_pairs(&Walk, &graphs, None, &[(0, 0), (0, 1), (1, 1)], &opts)?;
/// // no edge: x = b / 2 on every product node; edges only add (W ≥ 0)
/// assert!(out[1].value > 15.0 / 2.0);
/// assert_eq!(out[1].nodal.as_ref().map(Vec::len), Some(15));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`PairSystemError`] naming the failing pair; [`PairSystemError::Cuda`]
/// when the device cannot be used (no device for `Cuda(i)`, no `cuda`
/// feature, an edge kernel without a CUDA form, a graph the device cannot
/// hold).
pub fn solve_pairs<N: GpuLabel, E: GpuLabel, S: PairSystem<N, E>>(
    system: &S,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
    pairs: &[(usize, usize)],
    opts: &PairSolve,
) -> Result<Vec<PairSolution>, PairSystemError> {
    match crate::backend::resolve_backend(opts.backend)? {
        None => solve_pairs_cpu(system, x, y, pairs, &PairSolve { backend: Backend::Cpu, ..opts.clone() }),
        #[cfg(feature = "cuda")]
        Some(ordinal) => super::pair_gpu::solve_pairs_device(system, x, y, pairs, opts, ordinal),
        #[cfg(not(feature = "cuda"))]
        Some(_) => Err(crate::cuda::CudaError::NotCompiled.into()),
    }
}

/// [`solve_pairs`] on the CPU, for labels without a device layout too:
/// each pair in parallel (rayon, one workspace per thread). `O(iterations ·
/// nnz(W) nnz(W'))` per pair.
///
/// # Errors
/// [`PairSystemError`] naming the failing pair, or
/// [`PairSystemError::GpuNotSupported`] for an explicit CUDA backend.
pub fn solve_pairs_cpu<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
    pairs: &[(usize, usize)],
    opts: &PairSolve,
) -> Result<Vec<PairSolution>, PairSystemError> {
    if !matches!(opts.backend, Backend::Cpu | Backend::Auto) {
        return Err(PairSystemError::GpuNotSupported);
    }
    let y = y.unwrap_or(x);
    check_pairs(pairs, x.len(), y.len())?;
    let px: Vec<Octiles<f64, E>> = x.par_iter().map(Octiles::new).collect();
    let py: Option<Vec<Octiles<f64, E>>> = (!std::ptr::eq(x, y)).then(|| y.par_iter().map(Octiles::new).collect());
    let py = py.as_deref().unwrap_or(&px);
    pairs
        .par_iter()
        .map_init(Workspace::new, |ws, &(a, b)| solve_pair(system, (&x[a], &px[a]), (&y[b], &py[b]), (a, b), opts, ws))
        .collect()
}

/// The pair's diagonal, right-hand side and output functional, each checked
/// to be finite (shared by the CPU and GPU paths).
pub(super) type Inputs = (Vec<f64>, Vec<f64>, Vec<f64>);

/// [`Inputs`] of the pair `(g, h)` from `system`.
pub(super) fn inputs<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    g: &Graph<N, E>,
    h: &Graph<N, E>,
    pair: (usize, usize),
) -> Result<Inputs, PairSystemError> {
    let dim = g.num_nodes() * h.num_nodes();
    let (mut d, mut b, mut o) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
    fill_inputs(system, (g, h), pair, (&mut d, &mut b, &mut o))?;
    Ok((d, b, o))
}

/// Writes the diagonal, right-hand side and output functional of the pair
/// `(g, h)` into the zeroed slices (`n·n'` long each), each checked to be
/// finite.
pub(super) fn fill_inputs<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    (g, h): (&Graph<N, E>, &Graph<N, E>),
    pair: (usize, usize),
    (d, b, o): (&mut [f64], &mut [f64], &mut [f64]),
) -> Result<(), PairSystemError> {
    let finite = |what: &'static str, v: &[f64]| match v.iter().position(|e| !e.is_finite()) {
        Some(at) => Err(PairSystemError::NotFinite { pair, what, at }),
        None => Ok(()),
    };
    system.diagonal(g, h, d);
    finite("diagonal", d)?;
    system.rhs(g, h, b);
    finite("right-hand side", b)?;
    system.output(g, h, o);
    finite("output functional", o)
}

/// The solved pair's result from the forward solution `xs`, and for the
/// gradient the adjoint solution `ys` (`Aᵀ y = o`) and `kx = (W ⊗ W') ⊙ κe x`
/// (shared by the CPU and GPU paths).
#[allow(clippy::too_many_arguments)]
pub(super) fn finish<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    (g, h): (&Graph<N, E>, &Graph<N, E>),
    pair: (usize, usize),
    o: &[f64],
    xs: &[f64],
    adjoint: Option<(&[f64], &[f64])>,
    iterations: usize,
    opts: &PairSolve,
) -> Result<PairSolution, PairSystemError> {
    let dim = xs.len();
    let value: f64 = o.iter().zip(xs).map(|(o, x)| o * x).sum();
    if !value.is_finite() {
        return Err(PairSystemError::NotFinite { pair, what: "value", at: 0 });
    }
    let nodal = opts.nodal.then(|| o.iter().zip(xs).map(|(o, x)| o * x).collect());
    let mut grad = Vec::new();
    if let Some((ys, kx)) = adjoint {
        for t in 0..system.num_params() {
            let (mut dd, mut db, mut d_o) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
            let dc = system.derivatives(g, h, t, &mut dd, &mut db, &mut d_o);
            let mut s = 0.0;
            for k in 0..dim {
                s += d_o[k] * xs[k] + ys[k] * (db[k] - dd[k] * xs[k] + dc * kx[k]);
            }
            if !s.is_finite() {
                return Err(PairSystemError::NotFinite { pair, what: "gradient", at: t });
            }
            grad.push(s);
        }
    }
    Ok(PairSolution { value, grad, nodal, iterations })
}

/// Whether the pair needs the adjoint solve (gradient asked, parameters
/// there); refuses directed pairs then.
pub(super) fn wants_gradient<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    directed: bool,
    pair: (usize, usize),
    opts: &PairSolve,
) -> Result<bool, PairSystemError> {
    let want = opts.gradient && system.num_params() > 0;
    if directed && want {
        return Err(PairSystemError::DirectedGradient { pair });
    }
    Ok(want)
}

/// Checks that every pair names graphs of its lists.
pub(super) fn check_pairs(pairs: &[(usize, usize)], nx: usize, ny: usize) -> Result<(), PairSystemError> {
    for &pair in pairs {
        if pair.0 >= nx {
            return Err(PairSystemError::PairIndex { pair, index: pair.0, list: "first", len: nx });
        }
        if pair.1 >= ny {
            return Err(PairSystemError::PairIndex { pair, index: pair.1, list: "second", len: ny });
        }
    }
    Ok(())
}

/// The Jacobi-preconditioned solver parameters of every solve.
pub(super) fn cg_params(opts: &PairSolve) -> CgParams {
    CgParams { iter: IterParams::new(opts.tol, opts.max_iters), precond: Precond::Jacobi, check_symmetry: false }
}

fn solve_pair<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    (g, pg): (&Graph<N, E>, &Octiles<f64, E>),
    (h, ph): (&Graph<N, E>, &Octiles<f64, E>),
    pair: (usize, usize),
    opts: &PairSolve,
    ws: &mut Workspace<Vec<f64>>,
) -> Result<PairSolution, PairSystemError> {
    let dim = g.num_nodes() * h.num_nodes();
    let directed = g.is_directed() || h.is_directed();
    let want_grad = wants_gradient(system, directed, pair, opts)?;
    let (d, rhs, o) = inputs(system, g, h, pair)?;
    let kron = KronProduct::new(pg, ph, system.edge_kernel())?;
    let c = system.coupling();
    let op = ShiftedKron::new(Diag::Vec(&d), c, &kron).map_err(|source| PairSystemError::Solver { pair, source })?;
    let solve = |b: &Vec<f64>, x: &mut Vec<f64>, ws: &mut Workspace<Vec<f64>>| {
        let r = if directed {
            let iter = IterParams::new(opts.tol, opts.max_iters);
            bicgstab_or_fixed_point(&op, b, x, &BicgstabParams { iter, precond: Precond::Jacobi }, ws)
        } else {
            cg(&op, b, x, &cg_params(opts), ws)
        };
        r.map_err(|source| PairSystemError::Solver { pair, source })
    };
    let mut xs = vec![0.0; dim];
    let info = solve(&rhs, &mut xs, ws)?;
    let (mut ys, mut kx) = (Vec::new(), Vec::new());
    if want_grad {
        // Aᵀ y = o (A is symmetric for undirected pairs)
        ys = vec![0.0; dim];
        solve(&o, &mut ys, ws)?;
        // K x = (W ⊗ W') ⊙ κe x, for ∂c
        kx = vec![0.0; dim];
        kron.apply_add(1.0, &xs, &mut kx);
    }
    let adjoint = want_grad.then_some((ys.as_slice(), kx.as_slice()));
    finish(system, (g, h), pair, &o, &xs, adjoint, info.iterations, opts)
}

#[cfg(test)]
#[path = "pair_system_tests.rs"]
mod tests;
