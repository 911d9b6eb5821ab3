//! Fixed-point (preconditioned Richardson) iteration.

use super::{
    check_dims, precondition, zero_rhs, IterParams, LinOp, Precond, Preconditioner, SolveInfo, SolverError, Vector,
    Workspace,
};

/// Parameters of [`fixed_point`].
#[derive(Clone, Debug, PartialEq)]
pub struct FixedPointParams {
    /// Tolerance (on `‖b − A x‖₂ ≤ tol ‖b‖₂`), iteration limit, initial
    /// guess, history and monitor (default: [`IterParams::default`] with
    /// 10 000 iterations).
    pub iter: IterParams,
    /// Relaxation factor ω (default 1).
    pub omega: f64,
    /// The built-in preconditioner `M` [`fixed_point`] uses (default
    /// [`Precond::Jacobi`], which makes this the Jacobi method;
    /// [`fixed_point_with`] takes any [`Preconditioner`]).
    pub precond: Precond,
}

impl Default for FixedPointParams {
    fn default() -> Self {
        FixedPointParams {
            iter: IterParams { max_iters: 10_000, ..Default::default() },
            omega: 1.0,
            precond: Precond::Jacobi,
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
    ws.with_precond(params.precond, |pre, vecs| fixed_point_impl(op, b, x, pre, params, vecs))
}

/// [`fixed_point`] with your own [`Preconditioner`] `pre`;
/// [`FixedPointParams::precond`] is ignored.
///
/// # Errors
/// As [`fixed_point`], and whatever `pre` reports.
pub fn fixed_point_with<V: Vector>(
    op: &impl LinOp<V>,
    b: &V,
    x: &mut V,
    pre: &mut impl Preconditioner<V>,
    params: &FixedPointParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    fixed_point_impl(op, b, x, pre, params, &mut ws.vecs)
}

fn fixed_point_impl<V: Vector>(
    op: &dyn LinOp<V>,
    b: &V,
    x: &mut V,
    pre: &mut dyn Preconditioner<V>,
    params: &FixedPointParams,
    vecs: &mut [V; 7],
) -> Result<SolveInfo, SolverError> {
    let n = check_dims(op, b, x)?;
    vecs.iter_mut().take(2).for_each(|v| v.resize(n));
    pre.setup(op)?;
    let [r, z, ..] = vecs;
    let it = &params.iter;
    let mut history = Vec::new();
    let bnorm = b.norm();
    if let Some(info) = zero_rhs(bnorm, x) {
        return Ok(info);
    }
    if it.zero_initial_guess {
        x.fill(num_traits::Zero::zero());
    }
    let mut rnorm = f64::INFINITY;
    for k in 0..=it.max_iters {
        // r ← b − A x
        op.apply(x, r)?;
        r.xpay(b, -1.0);
        rnorm = r.norm();
        if !rnorm.is_finite() {
            return Err(SolverError::Breakdown { iteration: k, what: "non-finite residual (the iteration diverges)" });
        }
        if k > 0 {
            if let Some(info) = it.step(k, rnorm, bnorm, &mut history)? {
                return Ok(info);
            }
        } else if rnorm <= it.tol * bnorm {
            return Ok(it.finish(0, rnorm, bnorm, history));
        }
        if k == it.max_iters {
            break;
        }
        precondition(&*pre, r, z)?;
        x.axpy(params.omega, z);
    }
    Err(it.no_convergence(rnorm, bnorm))
}
