//! BiCGSTAB for general (non-symmetric) systems.

use super::{
    check_dims, krylov_start, precondition, report, LinOp, Monitor, Preconditioner, SolveInfo, SolverError, Start,
    Vector, Workspace,
};

/// Parameters of [`bicgstab`].
#[derive(Clone, Debug, PartialEq)]
pub struct BicgstabParams {
    /// Stop when `‖r‖₂ ≤ tol ‖b‖₂` (default `1e-12`).
    pub tol: f64,
    /// Iteration limit (default 1000; each iteration applies `A` twice).
    pub max_iters: usize,
    /// The (right) preconditioner (default [`Preconditioner::Identity`]).
    pub precond: Preconditioner,
    /// Start from `x = 0` (default `true`); else from the `x` given.
    pub zero_initial_guess: bool,
    /// Record the relative residual after every iteration (default `false`).
    pub record_history: bool,
    /// Called after every iteration with the iteration and the relative
    /// residual (default `None`).
    pub monitor: Option<Monitor>,
}

impl Default for BicgstabParams {
    fn default() -> Self {
        BicgstabParams {
            tol: 1e-12,
            max_iters: 1000,
            precond: Preconditioner::Identity,
            zero_initial_guess: true,
            record_history: false,
            monitor: None,
        }
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
    bicgstab_impl(op, b, x, params, ws)
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
    match bicgstab_impl(op, b, x, params, ws) {
        Err(SolverError::Breakdown { .. }) => {
            let fp = super::FixedPointParams {
                tol: params.tol,
                max_iters: params.max_iters.saturating_mul(2),
                omega: 1.0,
                precond: params.precond,
                zero_initial_guess: true,
                record_history: params.record_history,
                monitor: params.monitor.clone(),
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
    params: &BicgstabParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    let n = check_dims(op, b, x)?;
    ws.ensure(n, 7);
    ws.setup_precond(op, params.precond)?;
    let Workspace { vecs, inv_diag } = ws;
    let [r, rhat, p, v, s, t, y] = vecs;
    let (bnorm, mut rnorm) = match krylov_start(op, b, x, r, v, params.zero_initial_guess, params.tol)? {
        Start::Solved(info) => return Ok(info),
        Start::Residual { bnorm, rnorm } => (bnorm, rnorm),
    };
    let mut history = Vec::new();
    rhat.copy_from(r);
    p.fill(num_traits::Zero::zero());
    v.fill(num_traits::Zero::zero());
    let (mut rho, mut alpha, mut omega) = (1.0f64, 1.0f64, 1.0f64);
    let rhat_norm = rnorm;
    for it in 0..params.max_iters {
        let rho_new = rhat.dot(r);
        if !rho_new.is_finite() || rho_new.abs() <= BREAKDOWN * rhat_norm * rnorm.max(f64::MIN_POSITIVE) {
            return Err(SolverError::Breakdown { iteration: it, what: "r̂ᵀr vanished" });
        }
        let beta = (rho_new / rho) * (alpha / omega);
        rho = rho_new;
        // p ← r + β (p − ω v)
        p.axpy(-omega, v);
        p.xpay(r, beta);
        // y ← M⁻¹ p ; v ← A y
        precondition(params.precond, inv_diag, p, y);
        op.apply(y, v)?;
        let rv = rhat.dot(v);
        if !rv.is_finite() || rv.abs() <= BREAKDOWN * rhat_norm * v.norm().max(f64::MIN_POSITIVE) {
            return Err(SolverError::Breakdown { iteration: it, what: "r̂ᵀv vanished" });
        }
        alpha = rho / rv;
        x.axpy(alpha, y);
        // s ← r − α v
        s.copy_from(r);
        s.axpy(-alpha, v);
        let snorm = s.norm();
        if snorm <= params.tol * bnorm {
            r.copy_from(s);
            if params.record_history {
                history.push(snorm / bnorm);
            }
            return Ok(SolveInfo { iterations: it + 1, abs_residual: snorm, rel_residual: snorm / bnorm, history });
        }
        // y ← M⁻¹ s ; t ← A y
        precondition(params.precond, inv_diag, s, y);
        op.apply(y, t)?;
        let tt = t.dot(t);
        if tt.is_nan() || tt <= 0.0 || !tt.is_finite() {
            return Err(SolverError::Breakdown { iteration: it, what: "‖A M⁻¹ s‖ vanished or is not finite" });
        }
        omega = t.dot(s) / tt;
        x.axpy(omega, y);
        r.copy_from(s);
        r.axpy(-omega, t);
        rnorm = r.norm();
        if !rnorm.is_finite() {
            return Err(SolverError::Breakdown { iteration: it, what: "non-finite residual" });
        }
        if params.record_history {
            history.push(rnorm / bnorm);
        }
        report(&params.monitor, it + 1, rnorm / bnorm);
        if rnorm <= params.tol * bnorm {
            return Ok(SolveInfo { iterations: it + 1, abs_residual: rnorm, rel_residual: rnorm / bnorm, history });
        }
        if omega == 0.0 {
            return Err(SolverError::Breakdown { iteration: it, what: "ω vanished" });
        }
    }
    Err(SolverError::NoConvergence {
        iterations: params.max_iters,
        abs_residual: rnorm,
        rel_residual: rnorm / bnorm,
        tol: params.tol,
    })
}
