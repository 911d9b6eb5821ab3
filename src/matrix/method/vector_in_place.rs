//! `w ← A ⊕.⊗ w` and `wᵀ ← wᵀ ⊕.⊗ A` with one vector as input and output
//! ([`MxvInPlace`], [`VxmInPlace`], [`InPlaceVector`]).

use super::super::mask::Mask;
use super::super::ops_vec::{mxv_sparse_t, mxv_t, vxm_sparse_t, vxm_t, write_dense, write_sparse};
use super::super::{DenseVector, Element, MatrixError, SparseMatrix, SparseVector};
use super::{private, VecOpts};
use crate::semirings::Semiring;

// ------------------------------------------------------------------ in place

/// The options of a host in-place product: a host mask and a closure.
type HostOpts<'a, C> = VecOpts<'a, Mask<'a>, dyn Fn(C, C) -> C + Sync + 'a>;

/// `w⟨mask⟩ = accum(w, A w)` under construction: see
/// [`SparseMatrix::mxv_in_place`].
#[must_use = "a product does nothing until `.into(&mut w)`"]
pub struct MxvInPlace<'a, S: Semiring> {
    a: &'a SparseMatrix<S::A>,
    s: S,
    opts: HostOpts<'a, S::C>,
}

impl<'a, S: Semiring> MxvInPlace<'a, S> {
    vector_setters!(Mask<'a>, dyn Fn(S::C, S::C) -> S::C + Sync + 'a);
}

/// `wᵀ⟨mask⟩ = accum(wᵀ, wᵀ A)` under construction: see
/// [`SparseMatrix::vxm_in_place`].
#[must_use = "a product does nothing until `.into(&mut w)`"]
pub struct VxmInPlace<'a, S: Semiring> {
    a: &'a SparseMatrix<S::B>,
    s: S,
    opts: HostOpts<'a, S::C>,
}

impl<'a, S: Semiring> VxmInPlace<'a, S> {
    vector_setters!(Mask<'a>, dyn Fn(S::C, S::C) -> S::C + Sync + 'a);
}

/// A vector that an in-place product reads and then overwrites.
pub trait InPlaceVector<T>: private::Sealed {
    /// `w⟨mask⟩ = accum(w, A w)`.
    fn mxv_in_place<S>(&mut self, op: MxvInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T, C = T>,
        S::A: Element;

    /// `wᵀ⟨mask⟩ = accum(wᵀ, wᵀ A)`.
    fn vxm_in_place<S>(&mut self, op: VxmInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T, C = T>,
        S::B: Element;
}

impl<T: Element> InPlaceVector<T> for DenseVector<T> {
    fn mxv_in_place<S>(&mut self, op: MxvInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T, C = T>,
        S::A: Element,
    {
        let o = &op.opts;
        let (tv, tp) = mxv_t(self.len(), o.mask, &op.s, op.a, self, &o.desc)?;
        write_dense(self, o.mask, o.accum, o.desc.replace, &tv, &tp);
        Ok(())
    }

    fn vxm_in_place<S>(&mut self, op: VxmInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T, C = T>,
        S::B: Element,
    {
        let o = &op.opts;
        let (tv, tp) = vxm_t(self.len(), o.mask, &op.s, self, op.a, &o.desc)?;
        write_dense(self, o.mask, o.accum, o.desc.replace, &tv, &tp);
        Ok(())
    }
}

impl<T: Element> InPlaceVector<T> for SparseVector<T> {
    fn mxv_in_place<S>(&mut self, op: MxvInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T, C = T>,
        S::A: Element,
    {
        let o = &op.opts;
        let t = mxv_sparse_t(self.len(), o.mask, &op.s, op.a, self, &o.desc, &o.spmspv)?;
        write_sparse(self, o.mask, o.accum, o.desc.replace, t);
        Ok(())
    }

    fn vxm_in_place<S>(&mut self, op: VxmInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T, C = T>,
        S::B: Element,
    {
        let o = &op.opts;
        let t = vxm_sparse_t(self.len(), o.mask, &op.s, self, op.a, &o.desc, &o.spmspv)?;
        write_sparse(self, o.mask, o.accum, o.desc.replace, t);
        Ok(())
    }
}

impl<S: Semiring> MxvInPlace<'_, S>
where
    S::A: Element,
{
    /// `w⟨mask⟩ = accum(w, A w)`, reading `w` before writing it (no copy).
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`] unless `A` is square (as oriented
    /// by the descriptor) of `w`'s size, or the mask does not fit.
    pub fn into<T: Element>(self, w: &mut impl InPlaceVector<T>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T, C = T>,
    {
        w.mxv_in_place(self)
    }
}

impl<S: Semiring> VxmInPlace<'_, S>
where
    S::B: Element,
{
    /// `wᵀ⟨mask⟩ = accum(wᵀ, wᵀ A)`, reading `w` before writing it (no copy).
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`] unless `A` is square (as oriented
    /// by the descriptor) of `w`'s size, or the mask does not fit.
    pub fn into<T: Element>(self, w: &mut impl InPlaceVector<T>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T, C = T>,
    {
        w.vxm_in_place(self)
    }
}

// ------------------------------------------------------------------ entry points

impl<T: Element> SparseMatrix<T> {
    /// `w ← A ⊕.⊗ w` with `w` both input and output (given to `.into(&mut w)`).
    ///
    /// # Examples
    /// Bellman–Ford distances by repeated `d⟨⟩ min= Aᵀ d` (no copy of `d`):
    /// ```
    /// use kronograph::matrix::{Descriptor, DenseVector, SparseMatrix};
    /// use kronograph::semirings::MinPlus;
    /// let a = SparseMatrix::try_from_triplets(3, 3, &[0, 1, 0], &[1, 2, 2], &[2.0, 3.0, 7.0]).unwrap();
    /// let mut d = DenseVector::new(3);
    /// d.set(0, 0.0);
    /// for _ in 0..2 {
    ///     a.mxv_in_place(MinPlus::new()).desc(Descriptor::DEFAULT.transpose_first()).accum(&f64::min).into(&mut d).unwrap();
    /// }
    /// assert_eq!(d.to_options(), vec![Some(0.0), Some(2.0), Some(5.0)]);
    /// ```
    pub fn mxv_in_place<S>(&self, s: S) -> MxvInPlace<'_, S>
    where
        S: Semiring<A = T>,
    {
        MxvInPlace { a: self, s, opts: VecOpts::default() }
    }

    /// `wᵀ ← wᵀ ⊕.⊗ A` with `w` both input and output (given to `.into(&mut w)`).
    ///
    /// # Examples
    /// ```
    /// use kronograph::matrix::{SparseMatrix, SparseVector};
    /// use kronograph::semirings::MinPlus;
    /// let a = SparseMatrix::try_from_triplets(3, 3, &[0, 1, 0], &[1, 2, 2], &[2.0, 3.0, 7.0]).unwrap();
    /// let mut d = SparseVector::try_new(3, vec![0], vec![0.0]).unwrap();
    /// a.vxm_in_place(MinPlus::new()).accum(&f64::min).into(&mut d).unwrap();
    /// a.vxm_in_place(MinPlus::new()).accum(&f64::min).into(&mut d).unwrap();
    /// assert_eq!(d.values(), &[0.0, 2.0, 5.0]);
    /// ```
    pub fn vxm_in_place<S>(&self, s: S) -> VxmInPlace<'_, S>
    where
        S: Semiring<B = T>,
    {
        VxmInPlace { a: self, s, opts: VecOpts::default() }
    }
}
