//! Preconditioned conjugate gradients.

use super::{
    check_dims, krylov_start, precondition, report, LinOp, Monitor, Preconditioner, SolveInfo, SolverError, Start,
    Vector, Workspace,
};

/// Parameters of [`cg`].
#[derive(Clone, Debug, PartialEq)]
pub struct CgParams {
    /// Stop when `‖r‖₂ ≤ tol ‖b‖₂` (default `1e-12`; use about `1e-5` for
    /// `f32` vectors).
    pub tol: f64,
    /// Iteration limit (default 1000).
    pub max_iters: usize,
    /// The preconditioner (default [`Preconditioner::Identity`]).
    pub precond: Preconditioner,
    /// Start from `x = 0` (default `true`); else from the `x` given.
    pub zero_initial_guess: bool,
    /// Record the relative residual after every iteration in
    /// [`SolveInfo::history`] (default `false`).
    pub record_history: bool,
    /// Called after every iteration with the iteration and the relative
    /// residual (default `None`).
    pub monitor: Option<Monitor>,
}

impl Default for CgParams {
    fn default() -> Self {
        CgParams {
            tol: 1e-12,
            max_iters: 1000,
            precond: Preconditioner::Identity,
            zero_initial_guess: true,
            record_history: false,
            monitor: None,
        }
    }
}

/// Solves `A x = b` for a symmetric positive definite `A` by preconditioned
/// conjugate gradients.
///
/// Each iteration applies `A` once and the preconditioner once, and does
/// three dot products and three vector updates: `O(apply + n)`. In exact
/// arithmetic CG converges in at most `n` iterations; in practice in
/// `O(√κ log(1/tol))` for condition number `κ` of `M⁻¹A`.
///
/// `x` holds the initial guess on entry (ignored when
/// [`CgParams::zero_initial_guess`]) and the solution on return. `ws` is
/// grown to the system size once and reused.
///
/// # Errors
/// - [`SolverError::DimensionMismatch`] for inconsistent sizes;
/// - [`SolverError::NonPositiveDefinite`] when `pᵀ A p ≤ 0` is met;
/// - [`SolverError::NoConvergence`] (with the residuals reached) at the
///   iteration limit;
/// - [`SolverError::Breakdown`] on a non-finite residual;
/// - [`SolverError::Preconditioner`] for Jacobi without a usable diagonal.
pub fn cg<V: Vector>(
    op: &impl LinOp<V>,
    b: &V,
    x: &mut V,
    params: &CgParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    cg_impl(op, b, x, params, ws)
}

fn cg_impl<V: Vector>(
    op: &dyn LinOp<V>,
    b: &V,
    x: &mut V,
    params: &CgParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    let n = check_dims(op, b, x)?;
    ws.ensure(n, 4);
    ws.setup_precond(op, params.precond)?;
    let Workspace { vecs, inv_diag } = ws;
    let [r, z, p, ap, ..] = vecs;
    let (bnorm, mut rnorm) = match krylov_start(op, b, x, r, ap, params.zero_initial_guess, params.tol)? {
        Start::Solved(info) => return Ok(info),
        Start::Residual { bnorm, rnorm } => (bnorm, rnorm),
    };
    let mut history = Vec::new();
    precondition(params.precond, inv_diag, r, z);
    p.copy_from(z);
    let mut rz = r.dot(z);
    // β of the previous iteration: `p ← z + βp` runs inside the next direction step
    let mut beta = None;
    for it in 0..params.max_iters {
        let pap = op.xpay_apply_dot(beta.map(|b| (&*z, b)), p, ap)?;
        if pap.is_nan() {
            return Err(SolverError::Breakdown { iteration: it, what: "pᵀAp is NaN" });
        }
        if pap <= 0.0 {
            return Err(SolverError::NonPositiveDefinite { iteration: it, curvature: pap });
        }
        let alpha = rz / pap;
        // x += αp, r −= αAp, z = M⁻¹r and the two reductions in one pass
        let m = matches!(params.precond, Preconditioner::Jacobi).then_some(&*inv_diag);
        let (rr, rz_new) = V::cg_update(x, r, z, p, ap, m, alpha);
        rnorm = rr.sqrt();
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
        beta = Some(rz_new / rz);
        rz = rz_new;
    }
    Err(SolverError::NoConvergence {
        iterations: params.max_iters,
        abs_residual: rnorm,
        rel_residual: rnorm / bnorm,
        tol: params.tol,
    })
}
