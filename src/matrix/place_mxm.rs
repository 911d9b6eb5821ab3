//! One signature for the matrix product, the reductions and the index
//! operations, whatever the place of their operands: [`mxm`], [`reduce`],
//! [`reduce_rows`], [`extract`], [`assign`], [`extract_vector`] and
//! [`assign_vector`] (see [`place`](super::place) for the rule: the
//! output's type picks the place, [`ProductOutput`] its mask and
//! accumulator types).
//!
//! The reductions take a semiring and use its additive monoid (on a device
//! its CUDA form is what the kernel folds with).
//!
//! ```
//! use kronograph::matrix::{op, Descriptor, MxmMethod, SparseMatrix};
//! use kronograph::semirings::PlusTimes;
//! let a = SparseMatrix::try_from_triplets(2, 2, &[0, 0, 1], &[0, 1, 1], &[1.0, 2.0, 3.0]).unwrap();
//! let mut c = SparseMatrix::new(2, 2);
//! op::mxm(&mut c, None, None, PlusTimes::new(), &a, &a, &Descriptor::DEFAULT, MxmMethod::Auto).unwrap();
//! assert_eq!(c.to_dense_options(), vec![Some(1.0), Some(8.0), None, Some(9.0)]);
//! assert_eq!(op::reduce(PlusTimes::<f64>::new(), &c).unwrap(), 18.0);
//! ```

use super::ewise_vec::reduce_vector;
use super::ewise_vec::{assign_vector as assign_vector_host, extract_vector as extract_vector_host};
use super::mask::Descriptor;
use super::ops_mat::{
    assign as assign_host, extract as extract_host, mxm as mxm_host, reduce_rows as reduce_rows_host, reduce_scalar,
    MxmMethod,
};
use super::place::ProductOutput;
use super::{DenseVector, Element, SparseMatrix};
use crate::semirings::Semiring;

/// `C⟨mask⟩ = accum(C, A ⊕.⊗ B)` on the place of `Self`.
pub trait MxmOp<S: Semiring, A: ?Sized, B: ?Sized>: ProductOutput<Elem = S::C> {
    /// See [`mxm`].
    ///
    /// # Errors
    /// As [`mxm`].
    #[allow(clippy::too_many_arguments)]
    fn mxm_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        a: &A,
        b: &B,
        desc: &Descriptor,
        method: MxmMethod,
    ) -> crate::Result<()>;
}

/// `⊕` of every present entry of `Self` (a vector or a matrix), by the
/// additive monoid of `S`.
pub trait ReduceOp<S: Semiring> {
    /// See [`reduce`].
    ///
    /// # Errors
    /// As [`reduce`].
    fn reduce_op(&self, s: S) -> crate::Result<S::C>;
}

/// `w⟨mask⟩ = accum(w, ⊕_j A(i, j))` on the place of `Self`.
pub trait ReduceRowsOp<S: Semiring, A: ?Sized>: ProductOutput<Elem = S::C> {
    /// See [`reduce_rows`].
    ///
    /// # Errors
    /// As [`reduce_rows`].
    fn reduce_rows_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        a: &A,
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

/// `C⟨mask⟩ = accum(C, A(rows, cols))` on the place of `Self`.
pub trait ExtractOp<A: ?Sized>: ProductOutput {
    /// See [`extract`].
    ///
    /// # Errors
    /// As [`extract`].
    #[allow(clippy::too_many_arguments)]
    fn extract_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        a: &A,
        rows: &[usize],
        cols: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

/// `C(rows, cols)⟨mask⟩ = accum(C(rows, cols), A)` on the place of `Self`.
pub trait AssignOp<A: ?Sized>: ProductOutput {
    /// See [`assign`].
    ///
    /// # Errors
    /// As [`assign`].
    #[allow(clippy::too_many_arguments)]
    fn assign_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        a: &A,
        rows: &[usize],
        cols: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

/// `w⟨mask⟩ = accum(w, u(indices))` on the place of `Self`.
pub trait ExtractVectorOp<U: ?Sized>: ProductOutput {
    /// See [`extract_vector`].
    ///
    /// # Errors
    /// As [`extract_vector`].
    fn extract_vector_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        u: &U,
        indices: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

/// `w(indices)⟨mask⟩ = accum(w(indices), u)` on the place of `Self`.
pub trait AssignVectorOp<U: ?Sized>: ProductOutput {
    /// See [`assign_vector`].
    ///
    /// # Errors
    /// As [`assign_vector`].
    fn assign_vector_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        u: &U,
        indices: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

// ------------------------------------------------------------------ host

impl<S: Semiring> MxmOp<S, SparseMatrix<S::A>, SparseMatrix<S::B>> for SparseMatrix<S::C>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    fn mxm_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        a: &SparseMatrix<S::A>,
        b: &SparseMatrix<S::B>,
        desc: &Descriptor,
        method: MxmMethod,
    ) -> crate::Result<()> {
        Ok(mxm_host(self, mask, accum, s, a, b, desc, method)?)
    }
}

impl<S: Semiring> ReduceOp<S> for DenseVector<S::C>
where
    S::C: Element,
{
    fn reduce_op(&self, s: S) -> crate::Result<S::C> {
        Ok(reduce_vector(s.add_monoid(), self))
    }
}

impl<S: Semiring> ReduceOp<S> for SparseMatrix<S::C>
where
    S::C: Element,
{
    fn reduce_op(&self, s: S) -> crate::Result<S::C> {
        Ok(reduce_scalar(s.add_monoid(), self))
    }
}

impl<S: Semiring> ReduceRowsOp<S, SparseMatrix<S::C>> for DenseVector<S::C>
where
    S::C: Element,
{
    fn reduce_rows_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        a: &SparseMatrix<S::C>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(reduce_rows_host(self, mask, accum, s.add_monoid(), a, desc)?)
    }
}

impl<T: Element> ExtractOp<SparseMatrix<T>> for SparseMatrix<T> {
    fn extract_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        a: &SparseMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(extract_host(self, mask, accum, a, rows, cols, desc)?)
    }
}

impl<T: Element> AssignOp<SparseMatrix<T>> for SparseMatrix<T> {
    fn assign_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        a: &SparseMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(assign_host(self, mask, accum, a, rows, cols, desc)?)
    }
}

impl<T: Element> ExtractVectorOp<DenseVector<T>> for DenseVector<T> {
    fn extract_vector_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        u: &DenseVector<T>,
        indices: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(extract_vector_host(self, mask, accum, u, indices, desc)?)
    }
}

impl<T: Element> AssignVectorOp<DenseVector<T>> for DenseVector<T> {
    fn assign_vector_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        u: &DenseVector<T>,
        indices: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(assign_vector_host(self, mask, accum, u, indices, desc)?)
    }
}

// ------------------------------------------------------------------ the operations

/// `C⟨mask⟩ = accum(C, A ⊕.⊗ B)` (`Aᵀ`/`Bᵀ` by the descriptor), computed
/// only where the mask allows, on the place of the operands.
///
/// On the host every form of [`MxmMethod`] runs (Gustavson or dot products,
/// any mask or none). On a device a masked product runs by the dot-product
/// or hash-Gustavson kernels (`method`: `Dot`, `Gustavson` for the hash
/// form, `Auto` by their operation counts; a complemented mask takes the
/// hash form), an unmasked one by the hash form whatever `method` (a
/// two-phase SpGEMM: per-row products counted, a hash table per row, the
/// rows compacted, sorted by column, and transposed for the CSC). Both
/// fold each entry's terms in increasing `k`, as the host does, so results
/// are equal bitwise. `T` stays on the device; the accumulator and mask
/// are then applied there.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`](super::MatrixError) if the operands,
/// output or mask do not fit; on a device also the dot form with a
/// complemented mask, operands on different devices or of another index
/// width, NVRTC and driver errors.
#[allow(clippy::too_many_arguments)]
pub fn mxm<S, C, A, B>(
    c: &mut C,
    mask: Option<&C::Mask<'_>>,
    accum: Option<&C::AccumOp<'_>>,
    s: S,
    a: &A,
    b: &B,
    desc: &Descriptor,
    method: MxmMethod,
) -> crate::Result<()>
where
    S: Semiring,
    C: MxmOp<S, A, B> + ?Sized,
    A: ?Sized,
    B: ?Sized,
{
    c.mxm_op(mask, accum, s, a, b, desc, method)
}

/// `⊕` of the present entries of a dense vector or the stored entries of a
/// matrix, by the additive monoid of `s` (its identity when there are
/// none), on the place of `u`. On the host entries are folded in storage
/// order; on a device by a tree over blocks and atomics (the same value
/// for integer and idempotent monoids, up to rounding for floating sums).
///
/// # Errors
/// On a device, NVRTC and driver errors.
pub fn reduce<S, U>(s: S, u: &U) -> crate::Result<S::C>
where
    S: Semiring,
    U: ReduceOp<S> + ?Sized,
{
    u.reduce_op(s)
}

/// `w⟨mask⟩ = accum(w, t)`, `t(i) = ⊕_j A(i, j)` by the additive monoid of
/// `s`, each row folded in increasing `j` (columns with
/// `desc.transpose_first`); an empty row gives no entry. On a device: the
/// pull product over `(⊕, first)` (one thread per row, the same order).
///
/// # Errors
/// As [`mxm`].
pub fn reduce_rows<S, W, A>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    s: S,
    a: &A,
    desc: &Descriptor,
) -> crate::Result<()>
where
    S: Semiring,
    W: ReduceRowsOp<S, A> + ?Sized,
    A: ?Sized,
{
    w.reduce_rows_op(mask, accum, s, a, desc)
}

/// `C⟨mask⟩ = accum(C, A(rows, cols))` (`Aᵀ` with `desc.transpose_first`;
/// indices may repeat). On a device the rows of `A` are remapped and
/// sorted there (the index lists uploaded).
///
/// # Errors
/// [`MatrixError::IndexOutOfBounds`](super::MatrixError) for an index past
/// `A`, dimension mismatches of the output or mask; on a device also
/// operands on different devices, NVRTC and driver errors.
#[allow(clippy::too_many_arguments)]
pub fn extract<C, A>(
    c: &mut C,
    mask: Option<&C::Mask<'_>>,
    accum: Option<&C::AccumOp<'_>>,
    a: &A,
    rows: &[usize],
    cols: &[usize],
    desc: &Descriptor,
) -> crate::Result<()>
where
    C: ExtractOp<A> + ?Sized,
    A: ?Sized,
{
    c.extract_op(mask, accum, a, rows, cols, desc)
}

/// `C(rows, cols)⟨mask⟩ = accum(C(rows, cols), A)` (distinct indices). On
/// a device `A` is placed into `C`'s coordinates and merged with `C` by the
/// element-wise union there.
///
/// # Errors
/// Out-of-range or repeated indices, dimension mismatches; on a device also
/// operands on different devices or of another index width, NVRTC and
/// driver errors.
#[allow(clippy::too_many_arguments)]
pub fn assign<C, A>(
    c: &mut C,
    mask: Option<&C::Mask<'_>>,
    accum: Option<&C::AccumOp<'_>>,
    a: &A,
    rows: &[usize],
    cols: &[usize],
    desc: &Descriptor,
) -> crate::Result<()>
where
    C: AssignOp<A> + ?Sized,
    A: ?Sized,
{
    c.assign_op(mask, accum, a, rows, cols, desc)
}

/// `w⟨mask⟩ = accum(w, u(indices))` (dense vectors; on a device a gather).
///
/// # Errors
/// As [`extract`].
pub fn extract_vector<W, U>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    u: &U,
    indices: &[usize],
    desc: &Descriptor,
) -> crate::Result<()>
where
    W: ExtractVectorOp<U> + ?Sized,
    U: ?Sized,
{
    w.extract_vector_op(mask, accum, u, indices, desc)
}

/// `w(indices)⟨mask⟩ = accum(w(indices), u)` (dense vectors, distinct
/// indices; on a device gathers and the element-wise union).
///
/// # Errors
/// As [`assign`].
pub fn assign_vector<W, U>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    u: &U,
    indices: &[usize],
    desc: &Descriptor,
) -> crate::Result<()>
where
    W: AssignVectorOp<U> + ?Sized,
    U: ?Sized,
{
    w.assign_vector_op(mask, accum, u, indices, desc)
}
