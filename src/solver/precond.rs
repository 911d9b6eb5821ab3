//! Preconditioners: the [`Preconditioner`] trait, its two built-in
//! implementations ([`Identity`], [`Jacobi`]) and the [`Precond`] choice of
//! the solvers' parameter structs.

use super::{LinOp, SolverError, Vector};

/// A preconditioner `M ≈ A`: the solvers call [`setup`](Self::setup) once
/// per solve, then [`apply`](Self::apply) (`z ← M⁻¹ r`) once or twice per
/// iteration.
///
/// Implement it for your own preconditioner and pass it to
/// [`cg_with`](super::cg_with), [`bicgstab_with`](super::bicgstab_with) or
/// [`fixed_point_with`](super::fixed_point_with). [`Identity`] and
/// [`Jacobi`] are the built-in ones (chosen by [`Precond`] in the parameter
/// structs).
///
/// # Examples
/// A scaled identity `M = 2 I` as a user's preconditioner:
/// ```
/// use kronograph::solver::{cg_with, CgParams, DenseOp, Preconditioner, Vector, Workspace};
/// struct Halve;
/// impl Preconditioner<Vec<f64>> for Halve {
///     fn apply(&self, r: &Vec<f64>, z: &mut Vec<f64>) -> Result<(), kronograph::solver::SolverError> {
///         z.copy_from(r);
///         z.iter_mut().for_each(|v| *v *= 0.5);
///         Ok(())
///     }
/// }
/// let a = DenseOp::new(2, vec![4.0, 1.0, 1.0, 3.0]);
/// let mut x = vec![0.0; 2];
/// cg_with(&a, &vec![1.0, 2.0], &mut x, &mut Halve, &CgParams::default(), &mut Workspace::new())?;
/// assert!((x[0] - 1.0 / 11.0).abs() < 1e-12 && (x[1] - 7.0 / 11.0).abs() < 1e-12);
/// # Ok::<(), kronograph::solver::SolverError>(())
/// ```
pub trait Preconditioner<V: Vector> {
    /// Prepares `M` for the operator `op` (of size `op.nrows()`), once per
    /// solve before the first [`apply`](Self::apply). The default does
    /// nothing.
    ///
    /// # Errors
    /// A [`SolverError`] (usually [`SolverError::Preconditioner`]) when `M`
    /// cannot be built for `op`.
    fn setup(&mut self, op: &dyn LinOp<V>) -> Result<(), SolverError> {
        let _ = op;
        Ok(())
    }

    /// `z ← M⁻¹ r` (`z` already has the length of `r`).
    ///
    /// # Errors
    /// Whatever the preconditioner reports.
    fn apply(&self, r: &V, z: &mut V) -> Result<(), SolverError>;

    /// The shape of `M⁻¹`, which lets a solver fuse `z ← M⁻¹ r` into its
    /// vector updates: [`PrecondShape::General`] (the default) for any
    /// preconditioner.
    fn shape(&self) -> PrecondShape<'_, V> {
        PrecondShape::General
    }
}

/// The shape of a preconditioner's `M⁻¹` ([`Preconditioner::shape`]).
#[derive(Debug)]
pub enum PrecondShape<'a, V> {
    /// `M = I`.
    Identity,
    /// `M⁻¹ = diag(d)` with this `d`.
    InverseDiagonal(&'a V),
    /// Anything else: the solvers call [`Preconditioner::apply`].
    General,
}

impl<V: Vector, P: Preconditioner<V> + ?Sized> Preconditioner<V> for &mut P {
    fn setup(&mut self, op: &dyn LinOp<V>) -> Result<(), SolverError> {
        (**self).setup(op)
    }
    fn apply(&self, r: &V, z: &mut V) -> Result<(), SolverError> {
        (**self).apply(r, z)
    }
    fn shape(&self) -> PrecondShape<'_, V> {
        (**self).shape()
    }
}

/// `M = I`: no preconditioning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Identity;

impl<V: Vector> Preconditioner<V> for Identity {
    fn apply(&self, r: &V, z: &mut V) -> Result<(), SolverError> {
        z.copy_from(r);
        Ok(())
    }
    fn shape(&self) -> PrecondShape<'_, V> {
        PrecondShape::Identity
    }
}

/// `M = diag(A)` (Jacobi): [`setup`](Preconditioner::setup) asks the
/// operator for its diagonal ([`LinOp::diagonal`]) and inverts it; every
/// entry must be non-zero and finite. The vector is reused across solves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Jacobi<V> {
    inv_diag: V,
}

impl<V: Vector + Default> Jacobi<V> {
    /// A Jacobi preconditioner (its diagonal is read by the first setup).
    pub fn new() -> Self {
        Jacobi { inv_diag: V::default() }
    }
}

impl<V: Vector> Jacobi<V> {
    /// A Jacobi preconditioner that keeps its diagonal in `v` (resized by
    /// the first setup): for vector types without [`Default`].
    pub fn with_vector(v: V) -> Self {
        Jacobi { inv_diag: v }
    }

    /// `1 / diag(A)` of the last setup.
    pub fn inverse_diagonal(&self) -> &V {
        &self.inv_diag
    }
}

impl<V: Vector> Preconditioner<V> for Jacobi<V> {
    fn setup(&mut self, op: &dyn LinOp<V>) -> Result<(), SolverError> {
        self.inv_diag.resize(op.nrows());
        if !op.diagonal(&mut self.inv_diag)? {
            return Err(SolverError::Preconditioner("the operator does not know its diagonal"));
        }
        if !self.inv_diag.invert_elems() {
            return Err(SolverError::Preconditioner("the diagonal has a zero or non-finite entry"));
        }
        Ok(())
    }
    fn apply(&self, r: &V, z: &mut V) -> Result<(), SolverError> {
        z.mul_elems(r, &self.inv_diag);
        Ok(())
    }
    fn shape(&self) -> PrecondShape<'_, V> {
        PrecondShape::InverseDiagonal(&self.inv_diag)
    }
}

/// The built-in preconditioner a parameter struct asks for ([`cg`](super::cg),
/// [`bicgstab`](super::bicgstab), [`fixed_point`](super::fixed_point)); for
/// your own, implement [`Preconditioner`] and call the `*_with` solvers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precond {
    /// [`Identity`]: no preconditioning.
    #[default]
    Identity,
    /// [`Jacobi`]: `M = diag(A)`. Needs [`LinOp::diagonal`]; every diagonal
    /// entry must be non-zero.
    Jacobi,
}

/// `z ← M⁻¹ r`, fused for the diagonal shapes.
#[inline]
pub(crate) fn precondition<V: Vector>(pre: &dyn Preconditioner<V>, r: &V, z: &mut V) -> Result<(), SolverError> {
    match pre.shape() {
        PrecondShape::Identity => z.copy_from(r),
        PrecondShape::InverseDiagonal(d) => z.mul_elems(r, d),
        PrecondShape::General => pre.apply(r, z)?,
    }
    Ok(())
}
