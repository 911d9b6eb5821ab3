//! Preconditioned conjugate gradients.

use super::{
    check_dims, krylov_start, precondition, symmetry_defect, symmetry_tolerance, IterParams, LinOp, Precond,
    PrecondShape, Preconditioner, SolveInfo, SolverError, Start, Vector, Workspace,
};

/// Parameters of [`cg`].
#[derive(Clone, Debug, PartialEq)]
pub struct CgParams {
    /// Tolerance, iteration limit, initial guess, history and monitor
    /// (default [`IterParams::default`]: `tol = 1e-12`, 1000 iterations).
    pub iter: IterParams,
    /// The built-in preconditioner [`cg`] uses (default
    /// [`Precond::Identity`]; [`cg_with`] takes any [`Preconditioner`]).
    pub precond: Precond,
    /// Before iterating, probe the operator's symmetry on `b` and `A b`
    /// ([`symmetry_defect`], two applications of `A`) and refuse a
    /// non-symmetric one with [`SolverError::NotSymmetric`] (default
    /// `true`). Switch it off for operators symmetric by construction when
    /// the two applications matter; a failing solve probes anyway.
    pub check_symmetry: bool,
}

impl Default for CgParams {
    fn default() -> Self {
        CgParams { iter: IterParams::default(), precond: Precond::Identity, check_symmetry: true }
    }
}

impl CgParams {
    /// The defaults with tolerance `tol` and preconditioner `precond`.
    pub fn new(tol: f64, precond: Precond) -> Self {
        CgParams { iter: IterParams { tol, ..Default::default() }, precond, ..Default::default() }
    }
}

/// Solves `A x = b` for a symmetric positive definite `A` by preconditioned
/// conjugate gradients, with the built-in preconditioner
/// [`CgParams::precond`] (see [`cg_with`] for your own).
///
/// Each iteration applies `A` once and the preconditioner once, and does
/// three dot products and three vector updates: `O(apply + n)`. In exact
/// arithmetic CG converges in at most `n` iterations; in practice in
/// `O(√κ log(1/tol))` for condition number `κ` of `M⁻¹A`.
///
/// `x` holds the initial guess on entry (ignored when
/// [`IterParams::zero_initial_guess`]) and the solution on return. `ws` is
/// grown to the system size once and reused.
///
/// # Errors
/// - [`SolverError::DimensionMismatch`] for inconsistent sizes;
/// - [`SolverError::NotSymmetric`] when the operator is detectably not
///   symmetric (checked up front with [`CgParams::check_symmetry`], and
///   whenever the iteration fails);
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
    ws.with_precond(params.precond, |pre, vecs| cg_impl(op, b, x, pre, params, vecs))
}

/// [`cg`] with your own [`Preconditioner`] `pre` (symmetric positive
/// definite, as CG needs); [`CgParams::precond`] is ignored.
///
/// # Errors
/// As [`cg`], and whatever `pre` reports.
pub fn cg_with<V: Vector>(
    op: &impl LinOp<V>,
    b: &V,
    x: &mut V,
    pre: &mut impl Preconditioner<V>,
    params: &CgParams,
    ws: &mut Workspace<V>,
) -> Result<SolveInfo, SolverError> {
    cg_impl(op, b, x, pre, params, &mut ws.vecs)
}

fn cg_impl<V: Vector>(
    op: &dyn LinOp<V>,
    b: &V,
    x: &mut V,
    pre: &mut dyn Preconditioner<V>,
    params: &CgParams,
    vecs: &mut [V; 7],
) -> Result<SolveInfo, SolverError> {
    let n = check_dims(op, b, x)?;
    vecs.iter_mut().take(4).for_each(|v| v.resize(n));
    let [r, z, p, ap, ..] = vecs;
    if params.check_symmetry && b.norm() > 0.0 {
        // u = b, w = A b: wᵀAu − uᵀAw = bᵀ(A − Aᵀ)A b, zero for symmetric A
        // and for b an eigenvector (where CG is exact in one step)
        op.apply(b, p)?;
        refuse_asymmetric(op, b, p, z, ap)?;
    }
    pre.setup(op)?;
    let it = &params.iter;
    let (bnorm, mut rnorm) = match krylov_start(op, b, x, r, ap, it.zero_initial_guess, it.tol)? {
        Start::Solved(info) => return Ok(info),
        Start::Residual { bnorm, rnorm } => (bnorm, rnorm),
    };
    let mut history = Vec::new();
    precondition(&*pre, r, z)?;
    p.copy_from(z);
    let mut rz = r.dot(z);
    // β of the previous iteration: `p ← z + βp` runs inside the next direction step
    let mut beta = None;
    for k in 0..it.max_iters {
        let pap = op.xpay_apply_dot(beta.map(|b| (&*z, b)), p, ap)?;
        if pap.is_nan() || pap <= 0.0 {
            // a failing CG on a non-symmetric operator: say so (b and p span
            // the Krylov space the iteration saw)
            refuse_asymmetric(op, b, p, r, z)?;
            return Err(if pap.is_nan() {
                SolverError::Breakdown { iteration: k, what: "pᵀAp is NaN" }
            } else {
                SolverError::NonPositiveDefinite { iteration: k, curvature: pap }
            });
        }
        let alpha = rz / pap;
        // x += αp, r −= αAp, z = M⁻¹r and the two reductions in one pass
        let (rr, rz_new) = match pre.shape() {
            PrecondShape::Identity => V::cg_update(x, r, z, p, ap, None, alpha),
            PrecondShape::InverseDiagonal(d) => V::cg_update(x, r, z, p, ap, Some(d), alpha),
            PrecondShape::General => {
                let (rr, _) = V::cg_update(x, r, z, p, ap, None, alpha);
                pre.apply(r, z)?;
                (rr, r.dot(z))
            }
        };
        rnorm = rr.sqrt();
        if let Some(info) = it.step(k + 1, rnorm, bnorm, &mut history)? {
            return Ok(info);
        }
        beta = Some(rz_new / rz);
        rz = rz_new;
    }
    refuse_asymmetric(op, b, p, r, z)?;
    Err(it.no_convergence(rnorm, bnorm))
}

/// [`SolverError::NotSymmetric`] when the symmetry defect of `op` on `u`
/// and `w` (using `s1`, `s2` as scratch) exceeds the scalar's tolerance.
fn refuse_asymmetric<V: Vector>(op: &dyn LinOp<V>, u: &V, w: &V, s1: &mut V, s2: &mut V) -> Result<(), SolverError> {
    let defect = symmetry_defect(op, u, w, s1, s2)?;
    if defect > symmetry_tolerance::<V::Scalar>() {
        return Err(SolverError::NotSymmetric { defect });
    }
    Ok(())
}
