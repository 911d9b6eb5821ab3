//! Fixed-point (preconditioned Richardson) iteration.

use super::{
    check_dims, precondition, report, zero_rhs, LinOp, Monitor, Preconditioner, SolveInfo, SolverError, Vector,
    Workspace,
};

/// Parameters of [`fixed_point`].
#[derive(Clone, Debug, PartialEq)]
pub struct FixedPointParams {
    /// Stop when `‖b − A x‖₂ ≤ tol ‖b‖₂` (default `1e-12`).
    pub tol: f64,
    /// Iteration limit (default 10 000).
    pub max_iters: usize,
    /// Relaxation factor ω (default 1).
    pub omega: f64,
    /// The preconditioner `M` (default [`Preconditioner::Jacobi`], which makes
    /// this the Jacobi method).
    pub precond: Preconditioner,
    /// Start from `x = 0` (default `true`); else from the `x` given.
    pub zero_initial_guess: bool,
    /// Record the relative residual after every iteration (default `false`).
    pub record_history: bool,
    /// Called after every iteration with the iteration and the relative
    /// residual (default `None`).
    pub monitor: Option<Monitor>,
}

impl Default for FixedPointParams {
    fn default() -> Self {
        FixedPointParams {
            tol: 1e-12,
            max_iters: 10_000,
            omega: 1.0,
            precond: Preconditioner::Jacobi,
            zero_initial_guess: true,
            record_history: false,
            monitor: None,
        }
    }
}

/// Solves `A x = b` by the fixed-point iteration
/// `x ← x + ω M⁻¹ (b − A x)`.
///
/// With `M = diag(A)` and `ω = 1` this is the Jacobi method; it converges
/// when the spectral radius of `I − ω M⁻¹ A` is below one (for instance for
/// strictly diagonally dominant `A`, such as the marginalized graph kernel's
/// system, or `I − λ W` with `λ ρ(W) < 1`). Each iteration applies `A` once:
/// `O(apply + n)`. Convergence is linear, so CG is usually faster on
/// symmetric positive definite systems.
///
/// # Errors
/// - [`SolverError::DimensionMismatch`] for inconsistent sizes;
/// - [`SolverError::NoConvergence`] at the iteration limit;
/// - [`SolverError::Breakdown`] when the iterates diverge to non-finite values;
/// - [`SolverError::Preconditioner`] for Jacobi without a usable diagonal.
pub fn fixed_point<V: Vector>(
    op: &impl LinOp<V>,
    b: &V,
    x: &mut V,
    params: &FixedPointParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    fixed_point_impl(op, b, x, params, ws)
}

fn fixed_point_impl<V: Vector>(
    op: &dyn LinOp<V>,
    b: &V,
    x: &mut V,
    params: &FixedPointParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    let n = check_dims(op, b, x)?;
    ws.ensure(n, 2);
    ws.setup_precond(op, params.precond)?;
    let Workspace { vecs, inv_diag } = ws;
    let [r, z, ..] = vecs;
    let mut history = Vec::new();
    let bnorm = b.norm();
    if let Some(info) = zero_rhs(bnorm, x) {
        return Ok(info);
    }
    if params.zero_initial_guess {
        x.fill(num_traits::Zero::zero());
    }
    let mut rnorm = f64::INFINITY;
    for it in 0..=params.max_iters {
        // r ← b − A x
        op.apply(x, r)?;
        r.xpay(b, -1.0);
        rnorm = r.norm();
        if !rnorm.is_finite() {
            return Err(SolverError::Breakdown { iteration: it, what: "non-finite residual (the iteration diverges)" });
        }
        if params.record_history && it > 0 {
            history.push(rnorm / bnorm);
        }
        if it > 0 {
            report(&params.monitor, it, rnorm / bnorm);
        }
        if rnorm <= params.tol * bnorm {
            return Ok(SolveInfo { iterations: it, abs_residual: rnorm, rel_residual: rnorm / bnorm, history });
        }
        if it == params.max_iters {
            break;
        }
        precondition(params.precond, inv_diag, r, z);
        x.axpy(params.omega, z);
    }
    Err(SolverError::NoConvergence {
        iterations: params.max_iters,
        abs_residual: rnorm,
        rel_residual: rnorm / bnorm,
        tol: params.tol,
    })
}
