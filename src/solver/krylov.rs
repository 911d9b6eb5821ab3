//! The pieces every iterative solver shares, public so that a user's own
//! solver reuses them: the common parameters ([`IterParams`]), the size
//! check ([`check_dims`]), the start of a Krylov method ([`krylov_start`],
//! [`Start`]), the progress report ([`report`]), the finishing
//! [`SolveInfo`]/[`SolverError::NoConvergence`] ([`IterParams::finish`],
//! [`IterParams::no_convergence`]) and the symmetry probe
//! ([`symmetry_defect`]).
//!
//! # Examples
//! A Richardson iteration `x ← x + ω (b − A x)` written with these helpers:
//! ```
//! use kronograph::solver::{check_dims, krylov_start, DenseOp, IterParams, LinOp, SolveInfo, SolverError, Start, Vector};
//! fn richardson(op: &dyn LinOp<Vec<f64>>, b: &Vec<f64>, x: &mut Vec<f64>, omega: f64, it: &IterParams)
//!     -> Result<SolveInfo, SolverError> {
//!     let n = check_dims(op, b, x)?;
//!     let (mut r, mut ax) = (vec![0.0; n], vec![0.0; n]);
//!     let (bnorm, mut rnorm) = match krylov_start(op, b, x, &mut r, &mut ax, it.zero_initial_guess, it.tol)? {
//!         Start::Solved(info) => return Ok(info),
//!         Start::Residual { bnorm, rnorm } => (bnorm, rnorm),
//!     };
//!     let mut history = Vec::new();
//!     for k in 1..=it.max_iters {
//!         x.axpy(omega, &r);
//!         op.apply(x, &mut ax)?;
//!         r.copy_from(b);
//!         r.axpy(-1.0, &ax);
//!         rnorm = r.norm();
//!         if let Some(info) = it.step(k, rnorm, bnorm, &mut history)? {
//!             return Ok(info);
//!         }
//!     }
//!     Err(it.no_convergence(rnorm, bnorm))
//! }
//! let a = DenseOp::new(2, vec![1.0, 0.2, 0.1, 1.0]);
//! let mut x = vec![0.0; 2];
//! let info = richardson(&a, &vec![1.0, 1.0], &mut x, 1.0, &IterParams::default())?;
//! assert!(info.rel_residual <= 1e-12);
//! # Ok::<(), SolverError>(())
//! ```

use super::{LinOp, Monitor, SolveInfo, SolverError, Vector};

/// The parameters every iterative solver shares (the `iter` field of
/// [`CgParams`](super::CgParams), [`BicgstabParams`](super::BicgstabParams)
/// and [`FixedPointParams`](super::FixedPointParams)).
#[derive(Clone, Debug, PartialEq)]
pub struct IterParams {
    /// Stop when `‖r‖₂ ≤ tol ‖b‖₂` (default `1e-12`; use about `1e-5` for
    /// `f32` vectors).
    pub tol: f64,
    /// Iteration limit (default 1000).
    pub max_iters: usize,
    /// Start from `x = 0` (default `true`); else from the `x` given.
    pub zero_initial_guess: bool,
    /// Record the relative residual after every iteration in
    /// [`SolveInfo::history`] (default `false`).
    pub record_history: bool,
    /// Called after every iteration with the iteration and the relative
    /// residual (default `None`).
    pub monitor: Option<Monitor>,
}

impl Default for IterParams {
    fn default() -> Self {
        IterParams { tol: 1e-12, max_iters: 1000, zero_initial_guess: true, record_history: false, monitor: None }
    }
}

impl IterParams {
    /// The defaults with tolerance `tol` and iteration limit `max_iters`.
    pub fn new(tol: f64, max_iters: usize) -> Self {
        IterParams { tol, max_iters, ..Default::default() }
    }

    /// The bookkeeping after iteration `iteration` (1-based) with residual
    /// norm `rnorm` of a right-hand side of norm `bnorm`: records the
    /// history (when asked), calls the monitor, and returns the final
    /// [`SolveInfo`] once `rnorm ≤ tol · bnorm`.
    ///
    /// # Errors
    /// [`SolverError::Breakdown`] for a non-finite `rnorm`.
    pub fn step(
        &self,
        iteration: usize,
        rnorm: f64,
        bnorm: f64,
        history: &mut Vec<f64>,
    ) -> Result<Option<SolveInfo>, SolverError> {
        if !rnorm.is_finite() {
            return Err(SolverError::Breakdown { iteration: iteration.saturating_sub(1), what: "non-finite residual" });
        }
        if self.record_history {
            history.push(rnorm / bnorm);
        }
        report(&self.monitor, iteration, rnorm / bnorm);
        Ok((rnorm <= self.tol * bnorm).then(|| self.finish(iteration, rnorm, bnorm, std::mem::take(history))))
    }

    /// The [`SolveInfo`] of a solve that stopped after `iterations` with
    /// residual norm `rnorm`.
    pub fn finish(&self, iterations: usize, rnorm: f64, bnorm: f64, history: Vec<f64>) -> SolveInfo {
        SolveInfo { iterations, abs_residual: rnorm, rel_residual: rnorm / bnorm, history }
    }

    /// The [`SolverError::NoConvergence`] of a solve that reached
    /// [`max_iters`](Self::max_iters) with residual norm `rnorm`.
    pub fn no_convergence(&self, rnorm: f64, bnorm: f64) -> SolverError {
        SolverError::NoConvergence {
            iterations: self.max_iters,
            abs_residual: rnorm,
            rel_residual: rnorm / bnorm,
            tol: self.tol,
        }
    }
}

/// Calls `monitor`, if any, with the iteration (1-based) and the relative
/// residual.
#[inline]
pub fn report(monitor: &Option<Monitor>, iteration: usize, rel_residual: f64) {
    if let Some(m) = monitor {
        m.report(iteration, rel_residual);
    }
}

/// How a Krylov solve starts ([`krylov_start`]): already solved, or with the
/// norms of `b` and of the initial residual.
#[derive(Clone, Debug, PartialEq)]
pub enum Start {
    /// `b = 0` (then `x = 0`), or the initial guess already meets the tolerance.
    Solved(SolveInfo),
    /// `‖b‖₂` and `‖r₀‖₂`, with `r₀ = b − A x₀` in the residual vector.
    Residual {
        /// `‖b‖₂` (positive).
        bnorm: f64,
        /// `‖b − A x₀‖₂`.
        rnorm: f64,
    },
}

/// For `b = 0` (`bnorm == 0`): sets `x = 0` and returns the (exact) answer's
/// info; else `None`.
pub fn zero_rhs<V: Vector>(bnorm: f64, x: &mut V) -> Option<SolveInfo> {
    (bnorm == 0.0).then(|| {
        x.fill(num_traits::Zero::zero());
        SolveInfo { iterations: 0, abs_residual: 0.0, rel_residual: 0.0, history: Vec::new() }
    })
}

/// The common start of a Krylov solver: handles `b = 0`, zeroes `x` when
/// `zero_guess`, forms `r = b − A x` (using `scratch` for `A x`), and stops
/// at once when `‖r‖ ≤ tol ‖b‖`. `r` and `scratch` must have the system's
/// length.
///
/// # Errors
/// Whatever the operator reports.
pub fn krylov_start<V: Vector>(
    op: &dyn LinOp<V>,
    b: &V,
    x: &mut V,
    r: &mut V,
    scratch: &mut V,
    zero_guess: bool,
    tol: f64,
) -> Result<Start, SolverError> {
    let bnorm = b.norm();
    if let Some(info) = zero_rhs(bnorm, x) {
        return Ok(Start::Solved(info));
    }
    if zero_guess {
        x.fill(num_traits::Zero::zero());
        r.copy_from(b);
    } else {
        op.apply(x, scratch)?;
        r.copy_from(b);
        r.axpy(-1.0, scratch);
    }
    let rnorm = r.norm();
    if rnorm <= tol * bnorm {
        return Ok(Start::Solved(SolveInfo {
            iterations: 0,
            abs_residual: rnorm,
            rel_residual: rnorm / bnorm,
            history: Vec::new(),
        }));
    }
    Ok(Start::Residual { bnorm, rnorm })
}

/// Checks the sizes of `A` (square), `b` and `x`; returns the system size.
///
/// # Errors
/// [`SolverError::DimensionMismatch`] naming the vector or dimension.
pub fn check_dims<V: Vector>(op: &dyn LinOp<V>, b: &V, x: &V) -> Result<usize, SolverError> {
    let n = op.nrows();
    if op.ncols() != n {
        return Err(SolverError::DimensionMismatch { what: "operator columns", expected: n, found: op.ncols() });
    }
    if b.len() != n {
        return Err(SolverError::DimensionMismatch { what: "right-hand side b", expected: n, found: b.len() });
    }
    if x.len() != n {
        return Err(SolverError::DimensionMismatch { what: "solution x", expected: n, found: x.len() });
    }
    Ok(n)
}

/// The relative symmetry defect of `A` on `u` and `w`:
/// `|wᵀ A u − uᵀ A w| / (‖w‖ ‖A u‖ + ‖u‖ ‖A w‖)` (0 when the denominator
/// is), computed with two applications of `A` into `au` and `aw`. A
/// symmetric `A` gives rounding only (about `√n ε`); CG refuses operators
/// whose defect exceeds `√ε` of the scalar type.
///
/// # Errors
/// Whatever the operator reports.
pub fn symmetry_defect<V: Vector>(op: &dyn LinOp<V>, u: &V, w: &V, au: &mut V, aw: &mut V) -> Result<f64, SolverError> {
    op.apply(u, au)?;
    op.apply(w, aw)?;
    let scale = w.norm() * au.norm() + u.norm() * aw.norm();
    let d = (w.dot(au) - u.dot(aw)).abs();
    Ok(if scale > 0.0 && scale.is_finite() { d / scale } else { 0.0 })
}

/// The largest [`symmetry_defect`] that still counts as rounding for the
/// scalar type `T`: `√ε`.
pub fn symmetry_tolerance<T: super::Real>() -> f64 {
    T::epsilon().as_f64().sqrt()
}
