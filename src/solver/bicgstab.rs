//! BiCGSTAB for general (non-symmetric) systems.

use super::{
    check_dims, krylov_start, precondition, IterParams, LinOp, Precond, Preconditioner, SolveInfo, SolverError, Start,
    Vector, Workspace,
};

/// Parameters of [`bicgstab`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BicgstabParams {
    /// Tolerance, iteration limit (each iteration applies `A` twice),
    /// initial guess, history and monitor (default
    /// [`IterParams::default`]: `tol = 1e-12`, 1000 iterations).
    pub iter: IterParams,
    /// The built-in (right) preconditioner [`bicgstab`] uses (default
    /// [`Precond::Identity`]; [`bicgstab_with`] takes any [`Preconditioner`]).
    pub precond: Precond,
}

impl BicgstabParams {
    /// The defaults with tolerance `tol` and preconditioner `precond`.
    pub fn new(tol: f64, precond: Precond) -> Self {
        BicgstabParams { iter: IterParams { tol, ..Default::default() }, precond }
    }
}

/// Solves `A x = b` for a general non-singular `A` by right-preconditioned
/// BiCGSTAB (van der Vorst, 1992).
///
/// Each iteration applies `A` and the preconditioner twice, and does four
/// dot products: `O(2 apply + n)`. Used for directed graphs, whose Kronecker
/// systems are not symmetric.
///
/// # Errors
/// - [`SolverError::DimensionMismatch`] for inconsistent sizes;
/// - [`SolverError::Breakdown`] when `r̂ᵀr`, `r̂ᵀv` or `ω` vanishes (try
///   another initial guess or a direct method) or a value is not finite;
/// - [`SolverError::NoConvergence`] at the iteration limit;
/// - [`SolverError::Preconditioner`] for Jacobi without a usable diagonal.
pub fn bicgstab<V: Vector>(
    op: &impl LinOp<V>,
    b: &V,
    x: &mut V,
    params: &BicgstabParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    ws.with_precond(params.precond, |pre, vecs| bicgstab_impl(op, b, x, pre, params, vecs))
}

/// [`bicgstab`] with your own (right) [`Preconditioner`] `pre`;
/// [`BicgstabParams::precond`] is ignored.
///
/// # Errors
/// As [`bicgstab`], and whatever `pre` reports.
pub fn bicgstab_with<V: Vector>(
    op: &impl LinOp<V>,
    b: &V,
    x: &mut V,
    pre: &mut impl Preconditioner<V>,
    params: &BicgstabParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    bicgstab_impl(op, b, x, pre, params, &mut ws.vecs)
}

/// [`bicgstab`], and where it breaks down (a vanishing `r̂ᵀr` or `r̂ᵀv`,
/// which happens for instance on the Kronecker system of a directed cycle),
/// the [`fixed_point`](super::fixed_point) iteration with the same
/// preconditioner from `x = 0`, with twice the iteration limit (BiCGSTAB
/// applies `A` twice per iteration). The fixed-point iteration converges
/// whenever the spectral radius of `I − M⁻¹A` is below one: for `I − λ W⊗W'`
/// with `λ ρ(W) ρ(W') < 1` (identity preconditioner), and for the strictly
/// diagonally dominant systems of the marginalized graph kernel (Jacobi).
/// The caller checks that condition.
///
/// # Errors
/// As [`bicgstab`] and [`fixed_point`](super::fixed_point); a breakdown is
/// only reported when the fixed-point iteration fails too.
pub fn bicgstab_or_fixed_point<V: Vector>(
    op: &impl LinOp<V>,
    b: &V,
    x: &mut V,
    params: &BicgstabParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    match bicgstab(op, b, x, params, ws) {
        Err(SolverError::Breakdown { .. }) => {
            let fp = super::FixedPointParams {
                iter: IterParams {
                    max_iters: params.iter.max_iters.saturating_mul(2),
                    zero_initial_guess: true,
                    ..params.iter.clone()
                },
                omega: 1.0,
                precond: params.precond,
            };
            super::fixed_point(op, b, x, &fp, ws)
        }
        r => r,
    }
}

/// Relative size below which a BiCGSTAB denominator counts as zero.
const BREAKDOWN: f64 = 1e-300;

fn bicgstab_impl<V: Vector>(
    op: &dyn LinOp<V>,
    b: &V,
    x: &mut V,
    pre: &mut dyn Preconditioner<V>,
    params: &BicgstabParams,
    vecs: &mut [V; 7],
) -> Result<SolveInfo, SolverError> {
    let n = check_dims(op, b, x)?;
    vecs.iter_mut().for_each(|v| v.resize(n));
    pre.setup(op)?;
    let [r, rhat, p, v, s, t, y] = vecs;
    let it = &params.iter;
    let (bnorm, mut rnorm) = match krylov_start(op, b, x, r, v, it.zero_initial_guess, it.tol)? {
        Start::Solved(info) => return Ok(info),
        Start::Residual { bnorm, rnorm } => (bnorm, rnorm),
    };
    let mut history = Vec::new();
    rhat.copy_from(r);
    p.fill(num_traits::Zero::zero());
    v.fill(num_traits::Zero::zero());
    let (mut rho, mut alpha, mut omega) = (1.0f64, 1.0f64, 1.0f64);
    let rhat_norm = rnorm;
    for k in 0..it.max_iters {
        let rho_new = rhat.dot(r);
        if !rho_new.is_finite() || rho_new.abs() <= BREAKDOWN * rhat_norm * rnorm.max(f64::MIN_POSITIVE) {
            return Err(SolverError::Breakdown { iteration: k, what: "r̂ᵀr vanished" });
        }
        let beta = (rho_new / rho) * (alpha / omega);
        rho = rho_new;
        // p ← r + β (p − ω v)
        p.axpy(-omega, v);
        p.xpay(r, beta);
        // y ← M⁻¹ p ; v ← A y
        precondition(&*pre, p, y)?;
        op.apply(y, v)?;
        let rv = rhat.dot(v);
        if !rv.is_finite() || rv.abs() <= BREAKDOWN * rhat_norm * v.norm().max(f64::MIN_POSITIVE) {
            return Err(SolverError::Breakdown { iteration: k, what: "r̂ᵀv vanished" });
        }
        alpha = rho / rv;
        x.axpy(alpha, y);
        // s ← r − α v
        s.copy_from(r);
        s.axpy(-alpha, v);
        let snorm = s.norm();
        if snorm <= it.tol * bnorm {
            r.copy_from(s);
            if it.record_history {
                history.push(snorm / bnorm);
            }
            return Ok(it.finish(k + 1, snorm, bnorm, history));
        }
        // y ← M⁻¹ s ; t ← A y
        precondition(&*pre, s, y)?;
        op.apply(y, t)?;
        let tt = t.dot(t);
        if tt.is_nan() || tt <= 0.0 || !tt.is_finite() {
            return Err(SolverError::Breakdown { iteration: k, what: "‖A M⁻¹ s‖ vanished or is not finite" });
        }
        omega = t.dot(s) / tt;
        x.axpy(omega, y);
        r.copy_from(s);
        r.axpy(-omega, t);
        rnorm = r.norm();
        if let Some(info) = it.step(k + 1, rnorm, bnorm, &mut history)? {
            return Ok(info);
        }
        if omega == 0.0 {
            return Err(SolverError::Breakdown { iteration: k, what: "ω vanished" });
        }
    }
    Err(it.no_convergence(rnorm, bnorm))
}
