//! Your own pair system through the batched solver: a [`PairSystem`] states,
//! for graphs `G` and `G'`, the diagonal `d`, the right-hand side `b` and the
//! output functional `o` of
//!
//! ```text
//! (diag(d) − c (W ⊗ W') ⊙ κe) x = b,      value = oᵀ x
//! ```
//!
//! (product node `(i, i')` at `i·n' + i'`), and [`solve_pairs`] solves it for
//! a list of pairs in parallel, with the nodal outputs `o ⊙ x` and the
//! gradient of the value with respect to the system's own parameters by one
//! adjoint solve per pair:
//!
//! ```text
//! ∂value/∂θ = (∂o)ᵀ x + yᵀ (∂b − diag(∂d) x + ∂c (W ⊗ W') ⊙ κe x),   Aᵀ y = o.
//! ```
//!
//! The edge kernel κe is applied lazily ([`KronProduct`], bound to record
//! labels where it meets them); the systems of undirected graphs are solved
//! by Jacobi-preconditioned CG, those of directed graphs by BiCGSTAB (with
//! the Jacobi iteration as fallback). The system must be non-singular, and
//! symmetric positive definite for CG: strict diagonal dominance,
//! `d_(i,i') > |c| Σ_(j,j') w_ij w'_i'j' κe`, is enough.
//!
//! `examples/own_system.rs` walks through a whole system (checked against a
//! dense solve and finite differences).

use super::{Diag, KronApply, KronProduct, Octiles, ShiftedKron};
use crate::backend::Backend;
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
/// right-hand side and output; [`solve_pairs`] solves it on the CPU,
/// [`solve_pairs_gpu`] on a CUDA device (labels with a device layout).
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
    /// Where to solve. [`solve_pairs`] takes [`Backend::Cpu`] or
    /// [`Backend::Auto`] (both the CPU; a CUDA device is
    /// [`PairSystemError::GpuNotSupported`] there); [`solve_pairs_gpu`]
    /// takes any backend (`Auto`: the first GPU if there is one, else the
    /// CPU). Default `Auto`.
    pub backend: Backend,
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
        PairSolve { backend: Backend::Auto, tol: 1e-12, max_iters: 1000, gradient: false, nodal: false }
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
    /// The edge kernel does not fit the graphs' edge labels.
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
    /// [`solve_pairs`] (the CPU solver) was asked to run on a CUDA device.
    #[error(
        "solve_pairs runs on the CPU: call kron::solve_pairs_gpu for a CUDA backend (its labels need a device \
         layout: primitive types, Record, or a struct declared with kronograph::label_struct!)"
    )]
    GpuNotSupported,
    /// The CUDA backend failed (no device, a compile or driver error, a
    /// graph the device path does not take).
    #[error("CUDA: {0}")]
    Cuda(#[source] Box<crate::cuda::CudaError>),
}

impl From<crate::cuda::CudaError> for PairSystemError {
    fn from(e: crate::cuda::CudaError) -> Self {
        PairSystemError::Cuda(Box::new(e))
    }
}

/// [`solve_pairs`] on the backend of `opts`: on a CUDA device (f64 vectors)
/// the graphs are uploaded once, the product kernel is generated for the
/// edge kernel's CUDA form, and each pair is solved by the same
/// Jacobi-preconditioned [`cg`] over device vectors
/// ([`DeviceVec`](crate::cuda::DeviceVec)), one pair after the other, with
/// the gradient by an adjoint solve on the device; the user's diagonal,
/// right-hand side, output and derivatives are evaluated on the host. On
/// the CPU (`Backend::Cpu`, or `Auto` without a GPU) it is [`solve_pairs`].
///
/// # Errors
/// As [`solve_pairs`]; [`PairSystemError::Cuda`] when the device cannot be
/// used, without the `cuda` feature for a CUDA backend, and for directed
/// graphs on the device (the device path is undirected only).
pub fn solve_pairs_gpu<N: GpuLabel, E: GpuLabel, S: PairSystem<N, E>>(
    system: &S,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
    pairs: &[(usize, usize)],
    opts: &PairSolve,
) -> Result<Vec<PairSolution>, PairSystemError> {
    match crate::backend::resolve_backend(opts.backend)? {
        None => solve_pairs(system, x, y, pairs, &PairSolve { backend: Backend::Cpu, ..opts.clone() }),
        #[cfg(feature = "cuda")]
        Some(ordinal) => super::pair_gpu::solve_pairs_device(system, x, y, pairs, opts, ordinal),
        #[cfg(not(feature = "cuda"))]
        Some(_) => Err(crate::cuda::CudaError::NotCompiled.into()),
    }
}

/// Solves `system` for each pair `(a, b)` of `pairs`: graph `a` of `x` and
/// graph `b` of `y` (of `x` when `y` is `None`), in parallel (rayon, one
/// workspace per thread); results in the order of `pairs`. `O(iterations ·
/// nnz(W) nnz(W'))` per pair.
///
/// # Errors
/// [`PairSystemError`] naming the failing pair, or
/// [`PairSystemError::GpuNotSupported`] for an explicit CUDA backend.
pub fn solve_pairs<N: Label, E: Label, S: PairSystem<N, E>>(
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
    let filled = |what: &'static str, f: &dyn Fn(&mut [f64])| {
        let mut v = vec![0.0; dim];
        f(&mut v);
        match v.iter().position(|e| !e.is_finite()) {
            Some(at) => Err(PairSystemError::NotFinite { pair, what, at }),
            None => Ok(v),
        }
    };
    Ok((
        filled("diagonal", &|v| system.diagonal(g, h, v))?,
        filled("right-hand side", &|v| system.rhs(g, h, v))?,
        filled("output functional", &|v| system.output(g, h, v))?,
    ))
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
mod tests {
    use super::*;
    use crate::basekernel::{Field, KroneckerDelta};
    use crate::graph::{Direction, FieldKind, GraphBuilder, Record, Schema, Value};
    use crate::solver::dense_solve;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;

    type G = Graph<u8, Record>;

    fn random_graph(n: usize, directed: bool, seed: u64) -> G {
        let s = Arc::new(Schema::new().with("label", FieldKind::Int));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let dir = if directed { Direction::Directed } else { Direction::Undirected };
        let labels = (0..n).map(|_| rng.random_range(0..3u8)).collect();
        let mut b = GraphBuilder::new(n, dir).node_labels(labels);
        for i in 0..n {
            for j in 0..n {
                if (directed || i < j) && i != j && rng.random_bool(0.5) {
                    let l = Record::new(s.clone(), [Value::Int(rng.random_range(0..2))]).unwrap();
                    b.push_edge(i, j, rng.random_range(0.5..2.0), l);
                }
            }
        }
        b.build().unwrap()
    }

    /// (D ⊗ D' + 1 − c (W ⊗ W') ⊙ κe) x = b with b_(i,i') = 1 + β [v_i = v'_i'],
    /// value Σ_(i,i') x · (1 + i'), θ = (c, β).
    struct Own {
        kernel: Field<KroneckerDelta>,
        c: f64,
        beta: f64,
    }

    impl PairSystem<u8, Record> for Own {
        type EdgeKernel = Field<KroneckerDelta>;
        fn edge_kernel(&self) -> &Self::EdgeKernel {
            &self.kernel
        }
        fn coupling(&self) -> f64 {
            self.c
        }
        fn diagonal(&self, g: &G, h: &G, d: &mut [f64]) {
            let (dg, dh) = (g.degrees(), h.degrees());
            for (k, v) in d.iter_mut().enumerate() {
                *v = dg[k / h.num_nodes()] * dh[k % h.num_nodes()] + 1.0;
            }
        }
        fn rhs(&self, g: &G, h: &G, b: &mut [f64]) {
            let m = h.num_nodes();
            for (k, v) in b.iter_mut().enumerate() {
                let same = g.node_labels()[k / m] == h.node_labels()[k % m];
                *v = 1.0 + if same { self.beta } else { 0.0 };
            }
        }
        fn output(&self, _g: &G, h: &G, o: &mut [f64]) {
            let m = h.num_nodes();
            for (k, v) in o.iter_mut().enumerate() {
                *v = 1.0 + (k % m) as f64;
            }
        }
        fn num_params(&self) -> usize {
            2
        }
        fn derivatives(&self, g: &G, h: &G, t: usize, _dd: &mut [f64], db: &mut [f64], _do: &mut [f64]) -> f64 {
            if t == 0 {
                return 1.0;
            }
            let m = h.num_nodes();
            for (k, v) in db.iter_mut().enumerate() {
                *v = if g.node_labels()[k / m] == h.node_labels()[k % m] { 1.0 } else { 0.0 };
            }
            0.0
        }
    }

    fn own(c: f64, beta: f64) -> Own {
        Own { kernel: Field::new("label", KroneckerDelta::new(0.5)), c, beta }
    }

    /// The dense solve of the same system: the value.
    fn dense_value(s: &Own, g: &G, h: &G) -> f64 {
        let dim = g.num_nodes() * h.num_nodes();
        let (pg, ph) = (Octiles::<f64, _>::new(g), Octiles::<f64, _>::new(h));
        let k = KronProduct::new(&pg, &ph, &s.kernel).unwrap().to_dense();
        let (mut d, mut b, mut o) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
        s.diagonal(g, h, &mut d);
        s.rhs(g, h, &mut b);
        s.output(g, h, &mut o);
        let mut a: Vec<f64> = k.iter().map(|v| -s.c * v).collect();
        for i in 0..dim {
            a[i * dim + i] += d[i];
        }
        let x = dense_solve(dim, &a, &b).unwrap();
        o.iter().zip(&x).map(|(o, x)| o * x).sum()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Values equal the dense solve (relative 1e-10, CG at tol 1e-13),
        /// directed pairs too (BiCGSTAB); gradients equal central finite
        /// differences of the dense values (relative 1e-5).
        #[test]
        fn pair_system_matches_dense(n in 1usize..6, m in 1usize..6, seed in any::<u64>(), directed in any::<bool>(),
                                     c in 0.05f64..0.9, beta in 0.0f64..2.0) {
            let gs = vec![random_graph(n, directed, seed), random_graph(m, directed, seed ^ 9)];
            let s = own(c, beta);
            let opts = PairSolve { tol: 1e-13, gradient: !directed, nodal: true, ..Default::default() };
            let out = solve_pairs(&s, &gs, None, &[(0, 1), (1, 1)], &opts).unwrap();
            for (r, &(a, b)) in out.iter().zip(&[(0usize, 1usize), (1, 1)]) {
                let want = dense_value(&s, &gs[a], &gs[b]);
                prop_assert!((r.value - want).abs() <= 1e-10 * want.abs().max(1.0), "{} vs {}", r.value, want);
                let nodal: f64 = r.nodal.as_ref().unwrap().iter().sum();
                prop_assert!((nodal - r.value).abs() <= 1e-12 * r.value.abs().max(1.0));
                if !directed {
                    let hstep = 1e-5;
                    let fd_c = (dense_value(&own(c + hstep, beta), &gs[a], &gs[b])
                        - dense_value(&own(c - hstep, beta), &gs[a], &gs[b])) / (2.0 * hstep);
                    let fd_b = (dense_value(&own(c, beta + hstep), &gs[a], &gs[b])
                        - dense_value(&own(c, beta - hstep), &gs[a], &gs[b])) / (2.0 * hstep);
                    prop_assert!((r.grad[0] - fd_c).abs() <= 1e-5 * fd_c.abs().max(1.0), "{} vs {}", r.grad[0], fd_c);
                    prop_assert!((r.grad[1] - fd_b).abs() <= 1e-5 * fd_b.abs().max(1.0), "{} vs {}", r.grad[1], fd_b);
                }
            }
        }
    }

    /// Each typed error of `solve_pairs`.
    #[test]
    fn pair_system_errors() {
        let gs = vec![random_graph(4, false, 1), random_graph(3, false, 2)];
        let s = own(0.3, 1.0);
        let cuda = PairSolve { backend: Backend::Cuda(0), ..Default::default() };
        assert!(matches!(solve_pairs(&s, &gs, None, &[(0, 1)], &cuda), Err(PairSystemError::GpuNotSupported)));
        let e = solve_pairs(&s, &gs, None, &[(0, 2)], &PairSolve::default()).unwrap_err();
        assert!(matches!(e, PairSystemError::PairIndex { index: 2, list: "second", len: 2, .. }), "{e}");
        let bad = Own { kernel: Field::new("lable", KroneckerDelta::new(0.5)), c: 0.3, beta: 1.0 };
        let e = solve_pairs(&bad, &gs, None, &[(0, 1)], &PairSolve::default()).unwrap_err();
        assert!(matches!(e, PairSystemError::Kernel(_)) && e.to_string().contains("lable"), "{e}");
        let nan = own(0.3, f64::NAN);
        let e = solve_pairs(&nan, &gs, None, &[(0, 1)], &PairSolve::default()).unwrap_err();
        assert!(matches!(e, PairSystemError::NotFinite { what: "right-hand side", .. }), "{e}");
        let dg = vec![random_graph(3, true, 4)];
        let grad = PairSolve { gradient: true, ..Default::default() };
        let e = solve_pairs(&s, &dg, None, &[(0, 0)], &grad).unwrap_err();
        assert!(matches!(e, PairSystemError::DirectedGradient { pair: (0, 0) }), "{e}");
        // a singular-ish system that CG cannot solve in 2 iterations
        let few = PairSolve { max_iters: 1, tol: 1e-15, ..Default::default() };
        let e = solve_pairs(&own(0.9, 1.0), &gs, None, &[(0, 0)], &few).unwrap_err();
        assert!(matches!(e, PairSystemError::Solver { pair: (0, 0), .. }), "{e}");
    }
}
