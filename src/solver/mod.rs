//! Matrix-free linear operators and iterative solvers.
//!
//! - [`LinOp`]: a linear operator `A` of size `nrows × ncols` that can apply
//!   itself, `y ← A x`, and may know its diagonal.
//! - [`Vector`]: the handful of vector operations the solvers need (copy,
//!   fill, axpy, dot, norm, element-wise product). It is implemented for
//!   `Vec<f64>` and `Vec<f32>` (`vector.rs`) and, in the CUDA layer, for
//!   device buffers ([`DeviceVec`](crate::cuda::DeviceVec)`<f64>` and
//!   `<f32>`, each operation a kernel): the same solver code runs on a GPU
//!   over the device Kronecker product (`kron::DeviceKron`, used by
//!   [`kron::solve_pairs`](crate::kron::solve_pairs) on a CUDA backend) or a user's
//!   operator. The marginalized graph kernel's batched GPU path does not use
//!   these solvers: it runs its own PCG inside one CUDA kernel per batch of
//!   pairs (`kernels/mgk_pcg.cu`), with the same stopping rule.
//! - Solvers: preconditioned conjugate gradients [`cg`] (symmetric positive
//!   definite `A`), [`fixed_point`] (preconditioned Richardson / Jacobi
//!   iteration) and [`bicgstab`] (general non-singular `A`, e.g. directed
//!   graphs). Each takes a parameter struct with [`Default`]
//!   ([`CgParams`], [`FixedPointParams`], [`BicgstabParams`]), reports a
//!   [`SolveInfo`] and fails with a typed [`SolverError`].
//!
//! All solvers stop when the relative residual `‖b − A x‖₂ / ‖b‖₂` drops to
//! the tolerance `tol`. Scalars in the recurrences (α, β, ω, residual norms)
//! are kept in `f64` whatever the vector precision.
//!
//! As in faer, the public functions take `&impl LinOp<V>` and forward at once
//! to one inner function over `&dyn LinOp<V>`, so each solver is compiled once
//! per vector type, not once per operator. Work vectors live in a
//! caller-owned [`Workspace`], allocated (or grown) before the iteration and
//! reused across solves; nothing is allocated inside the iteration loop
//! (except the residual history when asked for).
//!
//! # Examples
//! ```
//! use kronograph::solver::{cg, CgParams, DenseOp, Workspace};
//! // A = [[4, 1], [1, 3]], b = [1, 2]
//! let a = DenseOp::new(2, vec![4.0, 1.0, 1.0, 3.0]);
//! let b = vec![1.0, 2.0];
//! let mut x = vec![0.0f64; 2];
//! let mut ws = Workspace::new();
//! let info = cg(&a, &b, &mut x, &CgParams::default(), &mut ws).unwrap();
//! assert!(info.rel_residual <= 1e-12);
//! assert!((x[0] - 1.0 / 11.0).abs() < 1e-12 && (x[1] - 7.0 / 11.0).abs() < 1e-12);
//! ```

mod bicgstab;
mod cg;
mod dense;
mod fixed_point;
mod krylov;
mod precond;
mod vector;

pub use self::bicgstab::{bicgstab, bicgstab_or_fixed_point, bicgstab_with, BicgstabParams};
pub use self::cg::{cg, cg_with, CgParams};
pub use self::dense::{dense_solve, DenseOp};
pub use self::fixed_point::{fixed_point, fixed_point_with, FixedPointParams};
pub use self::krylov::{
    check_dims, krylov_start, report, symmetry_defect, symmetry_tolerance, zero_rhs, IterParams, Start,
};
pub(crate) use self::precond::precondition;
pub use self::precond::{Identity, Jacobi, Precond, PrecondShape, Preconditioner};
pub use self::vector::{Real, Vector};

/// A linear operator `A`: `nrows × ncols`, applied matrix-free.
///
/// Object safe: the solvers work on `&dyn LinOp<V>`.
pub trait LinOp<V: Vector>: Sync {
    /// Number of rows of `A` (length of `y`).
    fn nrows(&self) -> usize;

    /// Number of columns of `A` (length of `x`).
    fn ncols(&self) -> usize;

    /// `y ← A x`. `x` has [`ncols`](Self::ncols) entries, `y`
    /// [`nrows`](Self::nrows) (already of that length; its old content is
    /// overwritten).
    ///
    /// # Errors
    /// Whatever the operator reports, usually wrapped in
    /// [`SolverError::Operator`].
    fn apply(&self, x: &V, y: &mut V) -> Result<(), SolverError>;

    /// Writes the diagonal of `A` into `d` (of length `nrows`) and returns
    /// `true`, or returns `false` when the operator does not know it (the
    /// default).
    ///
    /// # Errors
    /// Whatever the operator reports.
    fn diagonal(&self, _d: &mut V) -> Result<bool, SolverError> {
        Ok(false)
    }

    /// CG's direction step, which an operator may fuse into one sweep:
    /// `p ← z + β p` (when `z` is given as `(z, β)`; [`Vector::xpay`]),
    /// then `q ← A p`; returns `pᵀ q` (accumulated in `f64`). The default
    /// runs the three operations one after the other.
    ///
    /// # Errors
    /// As [`apply`](Self::apply).
    fn xpay_apply_dot(&self, z: Option<(&V, f64)>, p: &mut V, q: &mut V) -> Result<f64, SolverError> {
        if let Some((z, beta)) = z {
            p.xpay(z, beta);
        }
        self.apply(p, q)?;
        Ok(p.dot(q))
    }
}

impl<V: Vector, L: LinOp<V> + ?Sized> LinOp<V> for &L {
    fn nrows(&self) -> usize {
        (**self).nrows()
    }
    fn ncols(&self) -> usize {
        (**self).ncols()
    }
    fn apply(&self, x: &V, y: &mut V) -> Result<(), SolverError> {
        (**self).apply(x, y)
    }
    fn diagonal(&self, d: &mut V) -> Result<bool, SolverError> {
        (**self).diagonal(d)
    }
    fn xpay_apply_dot(&self, z: Option<(&V, f64)>, p: &mut V, q: &mut V) -> Result<f64, SolverError> {
        (**self).xpay_apply_dot(z, p, q)
    }
}

/// A progress callback of the iterative solvers: called after every
/// iteration with the iteration count (1-based) and the relative residual
/// `‖r‖₂ / ‖b‖₂`, from the solving thread. Set it in a parameter struct
/// (`monitor: Some(Monitor::new(…))`); it should return quickly.
#[derive(Clone)]
pub struct Monitor(std::sync::Arc<dyn Fn(usize, f64) + Send + Sync>);

impl Monitor {
    /// A monitor calling `f(iteration, relative residual)`.
    pub fn new(f: impl Fn(usize, f64) + Send + Sync + 'static) -> Self {
        Monitor(std::sync::Arc::new(f))
    }

    /// Calls the callback.
    #[inline]
    pub fn report(&self, iteration: usize, rel_residual: f64) {
        (self.0)(iteration, rel_residual)
    }
}

impl std::fmt::Debug for Monitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Monitor(..)")
    }
}

/// Two monitors are equal when they share the same callback.
impl PartialEq for Monitor {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What a successful solve reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveInfo {
    /// Iterations taken (applications of `A` for CG and fixed point; BiCGSTAB
    /// applies `A` twice per iteration).
    pub iterations: usize,
    /// Final absolute residual `‖r‖₂` (the recurrence residual for CG and
    /// BiCGSTAB, which equals `‖b − A x‖₂` up to rounding).
    pub abs_residual: f64,
    /// Final relative residual `‖r‖₂ / ‖b‖₂` (0 when `b = 0`).
    pub rel_residual: f64,
    /// Relative residual after each iteration, when
    /// `record_history` was set in the parameters; else empty.
    pub history: Vec<f64>,
}

/// Errors of the iterative solvers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SolverError {
    /// Vectors or operator of inconsistent sizes.
    #[error("dimension mismatch: {what} has {found} entries, expected {expected}")]
    DimensionMismatch {
        /// Which vector or operator dimension.
        what: &'static str,
        /// Expected size.
        expected: usize,
        /// Size found.
        found: usize,
    },
    /// The iteration limit was reached before the tolerance.
    #[error(
        "no convergence after {iterations} iterations: relative residual {rel_residual:e} \
         (absolute {abs_residual:e}) did not reach the tolerance {tol:e}; raise max_iters or the tolerance"
    )]
    NoConvergence {
        /// Iterations taken.
        iterations: usize,
        /// Absolute residual reached.
        abs_residual: f64,
        /// Relative residual reached.
        rel_residual: f64,
        /// The tolerance asked for.
        tol: f64,
    },
    /// CG met a direction `p` with `pᵀ A p ≤ 0`: `A` is not symmetric
    /// positive definite.
    #[error(
        "the operator is not positive definite: pᵀAp = {curvature:e} <= 0 at iteration {iteration} \
         (CG needs a symmetric positive definite operator)"
    )]
    NonPositiveDefinite {
        /// The iteration (0-based).
        iteration: usize,
        /// The value of `pᵀ A p` found.
        curvature: f64,
    },
    /// CG was given an operator that is detectably not symmetric
    /// ([`symmetry_defect`] above [`symmetry_tolerance`]).
    #[error(
        "the operator is not symmetric: uᵀAw and wᵀAu differ by {defect:e} (relative) on two probe vectors; \
         CG needs a symmetric positive definite operator: use bicgstab for a general one"
    )]
    NotSymmetric {
        /// The relative defect found.
        defect: f64,
    },
    /// A division by (near) zero in BiCGSTAB, or a non-finite value.
    #[error("solver breakdown at iteration {iteration}: {what}")]
    Breakdown {
        /// The iteration (0-based).
        iteration: usize,
        /// What vanished or overflowed.
        what: &'static str,
    },
    /// The preconditioner cannot be built: for Jacobi, the operator does not
    /// know its diagonal, or the diagonal has a zero.
    #[error("preconditioner unavailable: {0}")]
    Preconditioner(&'static str),
    /// The operator failed.
    #[error("operator failed: {0}")]
    Operator(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Work vectors of the solvers, owned by the caller and reused across solves.
///
/// A solve grows the vectors to the system size (through
/// [`Vector::resize`]) before iterating; later solves of the same or a
/// smaller size allocate nothing.
#[derive(Clone, Debug, Default)]
pub struct Workspace<V> {
    pub(crate) vecs: [V; 7],
    pub(crate) jacobi: Jacobi<V>,
}

impl<V: Vector + Default> Workspace<V> {
    /// An empty workspace (vectors are grown by the first solve).
    pub fn new() -> Self {
        Workspace { vecs: Default::default(), jacobi: Jacobi::new() }
    }

    /// A workspace with room for systems of size `n`.
    pub fn with_len(n: usize) -> Self {
        let mut w = Self::new();
        w.ensure(n, 7);
        w
    }
}

impl<V: Vector> Workspace<V> {
    /// A workspace whose vectors `make` creates: for vector types without
    /// [`Default`], such as [`DeviceVec`](crate::cuda::DeviceVec), whose
    /// vectors must know their device (`make` is called 8 times; the
    /// vectors are grown by the first solve).
    pub fn with_vectors(mut make: impl FnMut() -> V) -> Self {
        Workspace { vecs: std::array::from_fn(|_| make()), jacobi: Jacobi::with_vector(make()) }
    }

    /// Runs `solve` with the preconditioner `precond` names (the identity,
    /// or the workspace's Jacobi) and the work vectors: the one place the
    /// built-in solvers turn [`Precond`] into a [`Preconditioner`].
    pub(crate) fn with_precond<R>(
        &mut self,
        precond: Precond,
        solve: impl FnOnce(&mut dyn Preconditioner<V>, &mut [V; 7]) -> R,
    ) -> R {
        let Workspace { vecs, jacobi } = self;
        match precond {
            Precond::Identity => solve(&mut Identity, vecs),
            Precond::Jacobi => solve(jacobi, vecs),
        }
    }

    /// Resizes the first `k` work vectors to `n` entries.
    pub(crate) fn ensure(&mut self, n: usize, k: usize) {
        for v in self.vecs.iter_mut().take(k) {
            v.resize(n);
        }
    }
}

#[cfg(test)]
mod tests;
