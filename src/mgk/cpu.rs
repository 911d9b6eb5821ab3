//! The CPU backend of the marginalized graph kernel: each pair solved by
//! preconditioned conjugate gradients (BiCGSTAB for directed graphs) on the
//! lazy Kronecker product of [`crate::kron`], pairs in parallel (rayon).

use super::engine::{PairEngine, PairOut, Want};
use super::system::{floor_node_kernel, node_kernel_floor, pair_diagonal, start_product};
use super::{MarginalizedGraphKernel as Mgk, MgkError};
use crate::backend::Precision;
use crate::basekernel::{BaseKernel, Hyperparameter};
use crate::graph::reorder::{self, Method, Permutation};
use crate::graph::{Graph, Label};
use crate::kron::{Diag, KronProduct, KronScalar, LowRankKron, Octiles, SellKron, SellPattern, ShiftedKron};
use crate::solver::{
    bicgstab_or_fixed_point, cg, BicgstabParams, CgParams, IterParams, LinOp, Monitor, Precond, SolveInfo, SolverError,
    Workspace,
};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The CPU engine.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cpu;

impl<N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>> PairEngine<N, E, KV, KE> for Cpu {
    fn solve_pairs(
        &self,
        k: &Mgk<N, E, KV, KE>,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        pairs: &[(usize, usize)],
        want: Want,
    ) -> Result<Vec<PairOut>, MgkError> {
        match k.precision() {
            Precision::F64 => run::<f64, N, E, KV, KE>(k, x, y, pairs, want.gradient, want.nodal),
            Precision::F32 => run::<f32, N, E, KV, KE>(k, x, y, pairs, want.gradient, want.nodal),
        }
    }
}

/// Why one pair failed (mapped to [`MgkError`] with the pair's indices).
enum PairFail {
    Solver(SolverError),
    Kernel { kernel: &'static str, at: (usize, usize), value: f64 },
}

impl From<SolverError> for PairFail {
    fn from(e: SolverError) -> Self {
        PairFail::Solver(e)
    }
}

/// Pairs of graphs with fewer product nodes than this are solved on the
/// edge-pair table (when it fits [`Mgk::edge_cache_limit`]); graphs of fewer
/// than its square root nodes are numbered by decreasing degree.
const SMALL_DIM: usize = 1 << 17;

/// Work memory of one worker thread, reused across pairs.
struct PairWorkspace<T> {
    solver: Workspace<Vec<T>>,
    values: Vec<T>,
    table: Vec<f64>,
    slots: Vec<T>,
    gather: Vec<T>,
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
            table: Vec::new(),
            slots: Vec::new(),
            gather: Vec::new(),
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
    /// The arcs packed for the SIMD edge-pair product (as `G'`).
    sell: SellPattern,
    deg: Vec<f64>,
    p: Vec<f64>,
}

fn prepare<'g, T: KronScalar, N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>>(
    k: &Mgk<N, E, KV, KE>,
    x: &'g [Graph<N, E>],
) -> Result<Vec<Prepared<'g, T, N, E>>, MgkError> {
    x.par_iter()
        .enumerate()
        .map(|(i, g)| {
            // the exact power-of-two weight scaling of every backend (the kernel is scale invariant)
            let g =
                k.config().system().scaled_weights(g).map_err(|source| MgkError::WeightRange { graph: i, source })?;
            let (g, perm) = match k.config().reorder {
                // small graphs (pairs solved on the edge-pair table): nodes by decreasing degree,
                // so that the rows of each chunk of 8 of the SIMD product have similar lengths
                Method::Natural if g.num_nodes() * g.num_nodes() < SMALL_DIM => {
                    let mut order: Vec<usize> = (0..g.num_nodes()).collect();
                    order.sort_by_key(|&i| std::cmp::Reverse(g.out_degree(i)));
                    let perm = Permutation::from_order(order).expect("a sorted list of all nodes is a permutation");
                    let h = perm.apply(&g).expect("a permutation of the graph's nodes fits it");
                    (Cow::Owned(h), Some(perm))
                }
                Method::Natural => (g, None),
                method => {
                    let (h, perm) = reorder::reorder(&g, method);
                    (Cow::Owned(h), Some(perm))
                }
            };
            let (oct, deg, p) = (Octiles::new(&g), k.config().system().node_degrees(&g), k.start_probabilities(&g, i)?);
            let sell = SellPattern::new(&oct);
            Ok(Prepared { g, perm, oct, sell, deg, p })
        })
        // all results first, so that the error reported is the first graph's in order
        // whatever the number of threads
        .collect::<Vec<Result<_, MgkError>>>()
        .into_iter()
        .collect()
}

fn run<T: KronScalar, N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>>(
    k: &Mgk<N, E, KV, KE>,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
    pairs: &[(usize, usize)],
    grad: bool,
    nodal: bool,
) -> Result<Vec<PairOut>, MgkError> {
    let px = prepare::<T, N, E, KV, KE>(k, x)?;
    let py = match y {
        Some(y) => Some(prepare::<T, N, E, KV, KE>(k, y)?),
        None => None,
    };
    let pb = py.as_deref().unwrap_or(&px);
    let total = pairs.len();
    let done = AtomicUsize::new(0);
    pairs
        .par_iter()
        .map_init(PairWorkspace::<T>::new, |ws, &(a, b)| {
            let mut out = solve_pair(k, &px[a], &pb[b], (a, b), ws, grad, nodal).map_err(|e| match e {
                PairFail::Solver(source) => MgkError::Solver { pair: (a, b), advice: advice(k, &source), source },
                PairFail::Kernel { kernel: "node", at, value } if value < 0.0 => {
                    MgkError::NodeKernelNegative { pair: (a, b), at, value }
                }
                PairFail::Kernel { kernel, at, value } => MgkError::KernelValue {
                    kernel,
                    needs: if kernel == "node" { "0 ≤ κv ≤ 1" } else { "0 ≤ κe ≤ 1" },
                    pair: (a, b),
                    at,
                    value,
                },
            })?;
            if let Some(r) = out.nodal.as_mut() {
                unpermute_nodal(r, px[a].perm.as_ref(), pb[b].perm.as_ref());
            }
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(p) = k.progress() {
                p(d, total);
            }
            Ok(out)
        })
        .collect()
}

/// What a solver error means for this kernel and what to change.
fn advice<N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>>(k: &Mgk<N, E, KV, KE>, e: &SolverError) -> String {
    let small_q = if k.q() < 1e-3 {
        format!("; the stop probability q = {:e} is small, which makes the system nearly singular: raise q", k.q())
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
            k.tolerance(),
            k.precision()
        ),
        SolverError::Breakdown { .. } | SolverError::Preconditioner(_) => "a value overflowed or became NaN: a \
             weight or a kernel hyperparameter under- or overflows (e.g. a tiny sqexp length scale); check the \
             weights and the node and edge kernels' hyperparameters"
            .to_string(),
        _ => "internal error".to_string(),
    }
}

/// After a failed solve: the first edge-kernel value that is not finite or
/// negative, if any (`O(nnz·nnz')`, only on failure).
fn diagnose<T: KronScalar, N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>>(
    k: &Mgk<N, E, KV, KE>,
    a: &Prepared<'_, T, N, E>,
    b: &Prepared<'_, T, N, E>,
) -> Option<PairFail> {
    for (i, la) in a.g.edge_labels().iter().enumerate() {
        for (j, lb) in b.g.edge_labels().iter().enumerate() {
            let value = k.edge_kernel().value(la, lb);
            if !(value.is_finite() && value >= 0.0) {
                return Some(PairFail::Kernel { kernel: "edge", at: (i, j), value });
            }
        }
    }
    None
}

/// Solves one pair (and its adjoint when `grad`); the value is checked by
/// the API, with the size of its terms.
fn solve_pair<T: KronScalar, N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>>(
    k: &Mgk<N, E, KV, KE>,
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
    let PairWorkspace { solver, values, table, slots, gather, dx, diag, r, px, y, kgrad } = ws;
    pair_diagonal(&a.deg, &b.deg, la, lb, k.node_kernel(), k.config().system().scale, dx, diag)
        .map_err(|(i, ip, value)| PairFail::Kernel { kernel: "node", at: (i, ip), value })?;
    start_product(&a.p, &b.p, px);
    // the kernel is bound to the labels' schema by the API
    let kron = KronProduct::prebound(&a.oct, &b.oct, k.edge_kernel());
    r.resize(dim, T::zero());
    let directed = a.g.is_directed() || b.g.is_directed();
    // an edge kernel of low rank (delta on labels, constants, their sums and products):
    // Σ_r (W ⊙ U_r) X (W' ⊙ V_r)ᵀ where that costs fewer multiply–adds than the nnz·nnz' of
    // the entry-by-entry product
    let pairs_cost = a.oct.entries().len() * b.oct.entries().len();
    let low_rank = (!kron.is_factorized())
        .then(|| LowRankKron::for_kernel(&a.oct, &b.oct, k.edge_kernel()))
        .flatten()
        .filter(|l| l.cost() < pairs_cost);
    // the edge-pair table (|E|·|E'| values): κe once per pair of edges, not per iteration
    let table_len = a.oct.num_edge_ids() * b.oct.num_edge_ids();
    let cached = low_rank.is_none() && !kron.is_factorized() && table_len <= k.edge_cache_limit() && dim < SMALL_DIM;
    // laid out for the SIMD product (SELL-8 slots of G', `SellKron`)
    if cached {
        SellKron::table(&a.oct, &b.oct, &b.sell, k.edge_kernel(), slots, table, values);
    }
    let cached_op = cached.then(|| SellKron::new(&a.oct, &b.sell, slots, std::mem::take(gather)));
    let op_lazy = ShiftedKron::of(Diag::Vec(diag), T::one(), &kron);
    let op_cached = cached_op.as_ref().map(|c| ShiftedKron::of(Diag::Vec(diag), T::one(), c));
    let op_low = low_rank.as_ref().map(|l| ShiftedKron::of(Diag::Vec(diag), T::one(), l));
    let op: &dyn LinOp<Vec<T>> = match (&op_low, &op_cached) {
        (Some(op), _) => op,
        (None, Some(op)) => op,
        (None, None) => &op_lazy,
    };
    // lmin = 1: solve for s = r − κ× itself, M s = A× κ× (A× = (W ⊗ W') ⊙ E×, since
    // M κ× = D× 1 − A× κ×), and K = p×ᵀ s: the length-one term is never subtracted
    // from a total it nearly equals (as q → 1, s → 0 and r → κ×), so K keeps its
    // relative accuracy
    let lmin1 = k.lmin() == 1;
    let kappa: Vec<T> = if lmin1 { dx.iter().zip(diag.iter()).map(|(&d, &g)| d / g).collect() } else { Vec::new() };
    let mut rhs_l1 = Vec::new();
    if lmin1 {
        rhs_l1.resize(dim, T::zero());
        kron.apply(&kappa, &mut rhs_l1).map_err(PairFail::Solver)?;
    }
    let rhs: &Vec<T> = if lmin1 { &rhs_l1 } else { dx };
    if rhs.iter().all(|v| *v == T::zero()) {
        // no walk of length >= 1 (a pair without edges): s = 0
        r.iter_mut().for_each(|v| *v = T::zero());
    } else if let Err(e) = solve(k, op, rhs, r, solver, directed, pair) {
        return Err(diagnose(k, a, b).unwrap_or(PairFail::Solver(e)));
    }
    let value = crate::solver::Vector::dot(px, r);
    let nodal = nodal.then(|| px.iter().zip(r.iter()).map(|(p, r)| p.as_f64() * r.as_f64()).collect());
    if lmin1 && grad {
        // the gradient's formulas take the full r = s + κ×
        r.iter_mut().zip(&kappa).for_each(|(r, &kv)| *r += kv);
    }
    let mut g = Vec::new();
    if grad {
        y.resize(dim, T::zero());
        solve(k, &op, px, y, solver, directed, pair)?;
        g = pair_gradient(k, a, b, r, y, dx, diag, kgrad);
    }
    if let Some(s) = cached_op {
        *gather = s.into_buffer();
    }
    Ok(PairOut { value, grad: g, nodal, magnitude: Some(value.abs()) })
}

/// Solves `op x = rhs`: CG for undirected graphs, BiCGSTAB (falling back to
/// the Jacobi iteration, which converges on these diagonally dominant
/// systems, where BiCGSTAB breaks down) for directed ones; reports every
/// iteration to the kernel's solver progress callback, if any.
fn solve<T: KronScalar, N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>>(
    k: &Mgk<N, E, KV, KE>,
    op: &dyn LinOp<Vec<T>>,
    rhs: &Vec<T>,
    x: &mut Vec<T>,
    ws: &mut Workspace<Vec<T>>,
    directed: bool,
    pair: (usize, usize),
) -> Result<SolveInfo, SolverError> {
    let tol = k.tolerance();
    let monitor = k.solver_progress().cloned().map(|f| Monitor::new(move |it, res| f(pair, it, res)));
    let iter = IterParams { monitor, ..IterParams::new(tol, k.max_iters()) };
    if directed {
        let p = BicgstabParams { iter, precond: Precond::Jacobi };
        bicgstab_or_fixed_point(&op, rhs, x, &p, ws)
    } else {
        // symmetric by construction: no probe
        let p = CgParams { iter, precond: Precond::Jacobi, check_symmetry: false };
        cg(&op, rhs, x, &p, ws)
    }
}

/// The gradient entries of one pair, active hyperparameters only.
#[allow(clippy::too_many_arguments)]
fn pair_gradient<T: KronScalar, N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>>(
    k: &Mgk<N, E, KV, KE>,
    a: &Prepared<'_, T, N, E>,
    b: &Prepared<'_, T, N, E>,
    r: &[T],
    y: &[T],
    dx: &[T],
    diag: &[T],
    buf: &mut Vec<f64>,
) -> Vec<f64> {
    let hv = k.node_kernel().hyperparameters();
    let he = k.edge_kernel().hyperparameters();
    let floor = node_kernel_floor::<T>();
    let (nv, ne) = (hv.len(), he.len());
    let mut full = vec![0.0; nv + ne + 1];
    let (la, lb) = (a.g.node_labels(), b.g.node_labels());
    let m = b.g.num_nodes();
    // node kernel
    if hv.iter().any(Hyperparameter::is_active) {
        buf.resize(nv, 0.0);
        for (i, va) in la.iter().enumerate() {
            for (ip, vb) in lb.iter().enumerate() {
                let at = i * m + ip;
                let kv = floor_node_kernel(k.node_kernel().gradient(va, vb, buf), floor);
                let f = y[at].as_f64() * r[at].as_f64() * dx[at].as_f64() / (kv * kv);
                let l1 = if k.lmin() == 1 { a.p[i] * b.p[ip] } else { 0.0 };
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
                k.edge_kernel().gradient(lea, leb, buf);
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
    if k.q_active() {
        let c = 2.0 * k.q() / (1.0 - k.q());
        let mut s = 0.0;
        for at in 0..r.len() {
            s += y[at].as_f64() * (dx[at].as_f64() - diag[at].as_f64() * r[at].as_f64());
        }
        full[nv + ne] = c * s;
    }
    hv.iter()
        .chain(he.iter())
        .map(Hyperparameter::is_active)
        .chain([k.q_active()])
        .zip(full)
        .filter_map(|(act, v)| act.then_some(v))
        .collect()
}

/// Maps a nodal similarity computed on reordered graphs (indexed by new
/// node ids, `k·n' + k'`) back to the original node order in place. Both
/// graphs of a pair are reordered, or neither.
fn unpermute_nodal(r: &mut Vec<f64>, pa: Option<&Permutation>, pb: Option<&Permutation>) {
    if let (Some(pa), Some(pb)) = (pa, pb) {
        *r = pa.apply_inverse_pairs(pb, r).expect("a nodal output has n·n' entries");
    }
}
