//! Your own pair system through the batched solver: a [`PairSystem`] states,
//! for graphs `G` and `G'`, the diagonal `d`, the right-hand side `b` and the
//! output functional `o` of
//!
//! ```text
//! (diag(d) − c (W ⊗ W') ⊙ κe) x = b,      value = oᵀ x
//! ```
//!
//! (product node `(i, i')` at `i·n' + i'`), and [`solve_pairs`](super::solve_pairs) solves it for
//! a list of pairs on the backend [`PairSolve::backend`] names (the CPU in
//! parallel, or a CUDA device in one batched launch), with the nodal
//! outputs `o ⊙ x` and the gradient of the value with respect to the
//! system's own parameters by one adjoint solve per pair:
//!
//! ```text
//! ∂value/∂θ = (∂o)ᵀ x + yᵀ (∂b − diag(∂d) x + ∂c (W ⊗ W') ⊙ κe x),   Aᵀ y = o.
//! ```
//!
//! The edge kernel κe is applied lazily ([`KronProduct`](super::KronProduct), bound to record
//! labels where it meets them); the systems of undirected graphs are solved
//! by Jacobi-preconditioned CG, those of directed graphs by BiCGSTAB (with
//! the Jacobi iteration as fallback on the CPU). The system must be non-singular, and
//! symmetric positive definite for CG: strict diagonal dominance,
//! `d_(i,i') > |c| Σ_(j,j') w_ij w'_i'j' κe`, is enough.
//!
//! `examples/own_system.rs` walks through a whole system (checked against a
//! dense solve and finite differences).

use super::pair_factored::bind_factored;
use super::{Factored, Part};
use crate::backend::{Backend, Precision};
use crate::basekernel::{BaseKernel, KernelError};
use crate::graph::{Graph, Label};
use crate::solver::{CgParams, IterParams, Precond, SolverError};

/// A linear system over a pair of graphs `G`, `G'`,
///
/// ```text
/// (diag(d) − c (W ⊗ W') ⊙ κe) x = b,      value = oᵀ x,
/// ```
///
/// solved by [`solve_pairs`](super::solve_pairs) for a list of pairs, with the nodal outputs
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
/// right-hand side and output; [`solve_pairs`](super::solve_pairs) solves it on any backend
/// (labels with a device layout), [`solve_pairs_cpu`](super::solve_pairs_cpu) on the CPU for any
/// labels. The marginalized graph kernel itself is one such system:
/// [`mgk::MgkPairSystem`](crate::mgk::MgkPairSystem).
pub trait PairSystem<N: Label, E: Label>: Sync {
    /// The edge kernel κe of the off-diagonal part.
    type EdgeKernel: BaseKernel<E>;

    /// κe.
    fn edge_kernel(&self) -> &Self::EdgeKernel;

    /// The coupling `c` of the off-diagonal part `c (W ⊗ W') ⊙ κe`.
    fn coupling(&self) -> f64;

    /// The diagonal `d` of the pair `(g, h)`. The default evaluates the
    /// [`factored`](Self::factored) form (NaN without one, which the
    /// solvers report as [`PairSystemError::NotFinite`]): implement either
    /// the three dense methods or the factored form.
    fn diagonal(&self, g: &Graph<N, E>, h: &Graph<N, E>, d: &mut [f64]) {
        dense_part(self, Part::Diagonal, (g, h), d)
    }

    /// The right-hand side `b` of the pair (default: as
    /// [`diagonal`](Self::diagonal)'s).
    fn rhs(&self, g: &Graph<N, E>, h: &Graph<N, E>, b: &mut [f64]) {
        dense_part(self, Part::Rhs, (g, h), b)
    }

    /// The output functional `o`: the pair's value is `oᵀ x` (default: as
    /// [`diagonal`](Self::diagonal)'s).
    fn output(&self, g: &Graph<N, E>, h: &Graph<N, E>, o: &mut [f64]) {
        dense_part(self, Part::Output, (g, h), o)
    }

    /// The factored form of `d`, `b` and `o`, if the system has one
    /// (default `None`): `v_(i,i') = s · f_i · f'_i' · κv(v_i, v'_i')^k` per
    /// part, `f` from [`node_factor`](Self::node_factor). The solvers then
    /// use it instead of the dense methods: on a device the entries are
    /// generated inside the batched kernel from the per-graph vectors (no
    /// `n·n'` values per pair cross the bus), which is what makes the
    /// generic path as fast as the marginalized graph kernel's engine. Where
    /// both are implemented they must agree.
    fn factored(&self) -> Option<Factored<N>> {
        None
    }

    /// The per-node vector `f` of `part` for graph `g` (`out` of length
    /// `n`, handed in zeroed), for the [`factored`](Self::factored) form.
    /// The default is all ones.
    fn node_factor(&self, g: &Graph<N, E>, part: Part, out: &mut [f64]) {
        let _ = (g, part);
        out.fill(1.0);
    }

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

/// What [`solve_pairs`](super::solve_pairs) computes besides the values, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct PairSolve {
    /// Where to solve: [`solve_pairs`](super::solve_pairs) takes any backend (`Auto`: the first
    /// GPU if there is one, else the CPU; a device set: its first device);
    /// [`solve_pairs_cpu`](super::solve_pairs_cpu) takes [`Backend::Cpu`] and [`Backend::Auto`]
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
    /// The device kernel's code-generation and launch knobs (default
    /// [`Tuning::default()`](crate::mgk::Tuning), as the marginalized graph
    /// kernel's); they change speed, never values beyond rounding. The CPU
    /// ignores them.
    pub tuning: crate::mgk::Tuning,
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
            tuning: crate::mgk::Tuning::default(),
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

/// Errors of [`solve_pairs`](super::solve_pairs).
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
    /// [`solve_pairs_cpu`](super::solve_pairs_cpu) was asked to run on a CUDA device.
    #[error(
        "solve_pairs_cpu runs on the CPU: call kron::solve_pairs for a CUDA backend (its labels need a device \
         layout: primitive types, Record, or a struct declared with kronograph::label_struct!)"
    )]
    GpuNotSupported,
    /// The CUDA backend failed (no device, a compile or driver error, a
    /// graph the device path does not take).
    #[error("CUDA: {0}")]
    Cuda(#[source] Box<crate::cuda::CudaError>),
    /// A knob of [`PairSolve::tuning`] out of range (checked before a
    /// device solve).
    #[error("PairSolve::tuning: {0}")]
    Tuning(#[source] crate::mgk::MgkError),
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
/// The pair's diagonal, right-hand side and output functional, each checked
/// to be finite (shared by the CPU and GPU paths).
pub(super) type Inputs = (Vec<f64>, Vec<f64>, Vec<f64>);

/// [`Inputs`] of the pair `(g, h)` from `system`.
pub(super) fn inputs<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    form: Option<&Factored<N>>,
    g: &Graph<N, E>,
    h: &Graph<N, E>,
    pair: (usize, usize),
) -> Result<Inputs, PairSystemError> {
    let dim = g.num_nodes() * h.num_nodes();
    let (mut d, mut b, mut o) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
    fill_inputs(system, form, (g, h), pair, (&mut d, &mut b, &mut o))?;
    Ok((d, b, o))
}

/// Writes the diagonal, right-hand side and output functional of the pair
/// `(g, h)` into the zeroed slices (`n·n'` long each), each checked to be
/// finite: from the factored form `form` (bound to the labels) when the
/// system has one, else from its dense methods.
pub(super) fn fill_inputs<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    form: Option<&Factored<N>>,
    (g, h): (&Graph<N, E>, &Graph<N, E>),
    pair: (usize, usize),
    (d, b, o): (&mut [f64], &mut [f64], &mut [f64]),
) -> Result<(), PairSystemError> {
    let finite = |what: &'static str, v: &[f64]| match v.iter().position(|e| !e.is_finite()) {
        Some(at) => Err(PairSystemError::NotFinite { pair, what, at }),
        None => Ok(()),
    };
    match form {
        Some(form) => fill_factored(system, form, (g, h), [&mut *d, &mut *b, &mut *o]),
        None => {
            system.diagonal(g, h, d);
            system.rhs(g, h, b);
            system.output(g, h, o);
        }
    }
    finite("diagonal", d)?;
    finite("right-hand side", b)?;
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

/// The per-node vector of `part` for `g` from `system`.
pub(super) fn node_vector<N: Label, E: Label, S: PairSystem<N, E> + ?Sized>(
    system: &S,
    g: &Graph<N, E>,
    part: Part,
) -> Vec<f64> {
    let mut f = vec![0.0; g.num_nodes()];
    system.node_factor(g, part, &mut f);
    f
}

/// Writes `d`, `b` and `o` of the pair `(g, h)` from the (bound) factored
/// form (the CPU's inputs of a factored system).
fn fill_factored<N: Label, E: Label, S: PairSystem<N, E> + ?Sized>(
    system: &S,
    form: &Factored<N>,
    (g, h): (&Graph<N, E>, &Graph<N, E>),
    out: [&mut [f64]; 3],
) {
    for (part, out) in Part::ALL.into_iter().zip(out) {
        let (fg, fh) = (node_vector(system, g, part), node_vector(system, h, part));
        form.fill(part, (g, h), &fg, &fh, out);
    }
}

/// The default of the dense methods of [`PairSystem`]: `part` from the
/// factored form, NaN without one (or with a label kernel that does not fit
/// the labels).
fn dense_part<N: Label, E: Label, S: PairSystem<N, E> + ?Sized>(
    system: &S,
    part: Part,
    (g, h): (&Graph<N, E>, &Graph<N, E>),
    out: &mut [f64],
) {
    let form = system.factored().map(|f| bind_factored(f, std::slice::from_ref(g), Some(std::slice::from_ref(h))));
    match form {
        Some(Ok(form)) => {
            let (fg, fh) = (node_vector(system, g, part), node_vector(system, h, part));
            form.fill(part, (g, h), &fg, &fh, out)
        }
        _ => out.fill(f64::NAN),
    }
}
