//! [`solve_pairs`] and [`solve_pairs_cpu`]: a [`PairSystem`] solved for a
//! list of pairs on the CPU (each pair in parallel) or on a CUDA device (one
//! batched launch, `pair_gpu.rs`).

use super::pair_factored::bind_factored;
use super::pair_system::{cg_params, check_pairs, finish, inputs, wants_gradient};
use super::{
    Diag, Factored, KronApply, KronProduct, Octiles, PairSolution, PairSolve, PairSystem, PairSystemError, ShiftedKron,
};
use crate::backend::Backend;
use crate::cuda::GpuLabel;
use crate::graph::{Graph, Label};
use crate::solver::{bicgstab_or_fixed_point, cg, BicgstabParams, IterParams, Precond, Workspace};
use rayon::prelude::*;

/// Solves `system` for each pair `(a, b)` of `pairs` (graph `a` of `x`,
/// graph `b` of `y`, of `x` when `y` is `None`) on the backend of `opts`;
/// results in the order of `pairs`.
///
/// - On the CPU ([`Backend::Cpu`], or `Auto` without a GPU): as
///   [`solve_pairs_cpu`], in parallel, f64.
/// - On a CUDA device: the graphs are uploaded once (octiles, as the
///   marginalized graph kernel packs them) and every pair is solved in ONE
///   batched launch of a kernel generated for the edge kernel's CUDA form
///   (persistent blocks, one pair per block, the MGK's staging and
///   product): Jacobi PCG for undirected pairs, Jacobi BiCGSTAB for pairs
///   with a directed graph; the gradient's adjoint solve and `K x` run in
///   the same launch. A system with a [factored form](PairSystem::factored)
///   has its diagonals, right-hand sides and outputs generated inside the
///   kernel from its per-node vectors (three numbers per node cross the
///   bus, and the node-label kernel's CUDA form is generated into the
///   kernel); the dense ones of any other system are evaluated on the host
///   (in parallel) and uploaded (`3·n·n'` numbers per pair). Precision
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
    let form = system.factored().map(|f| bind_factored(f, x, Some(y))).transpose()?;
    pairs
        .par_iter()
        .map_init(Workspace::new, |ws, &(a, b)| {
            solve_pair(system, form.as_ref(), (&x[a], &px[a]), (&y[b], &py[b]), (a, b), opts, ws)
        })
        .collect()
}

fn solve_pair<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    form: Option<&Factored<N>>,
    (g, pg): (&Graph<N, E>, &Octiles<f64, E>),
    (h, ph): (&Graph<N, E>, &Octiles<f64, E>),
    pair: (usize, usize),
    opts: &PairSolve,
    ws: &mut Workspace<Vec<f64>>,
) -> Result<PairSolution, PairSystemError> {
    let dim = g.num_nodes() * h.num_nodes();
    let directed = g.is_directed() || h.is_directed();
    let want_grad = wants_gradient(system, directed, pair, opts)?;
    let (d, rhs, o) = inputs(system, form, g, h, pair)?;
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
