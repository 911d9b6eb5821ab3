//! One signature for the element-wise operations, whatever the place of
//! their operands: [`ewise_add`], [`ewise_mult`], [`apply`] and [`select`]
//! on vectors and matrices, on the host or on one device.
//!
//! As for the products ([`place`](super::place)), the output's type picks
//! the place: [`ProductOutput`] names its mask and accumulator types, and
//! each operation trait is implemented once per place. The operator is a
//! parameter of the trait, so that each place takes its own form: a Rust
//! closure on the host (`|x, y| x + y`; a selection predicate sees the
//! position too), a [`GpuBinaryOp`](super::gpu::GpuBinaryOp),
//! [`GpuUnaryOp`](super::gpu::GpuUnaryOp) or
//! [`GpuSelectOp`](super::gpu::GpuSelectOp) (by reference) on a device,
//! where the operator is compiled into the kernel.
//!
//! Semantics are those of the [module](super): `T = op(inputs)`, then
//! `w⟨mask, replace⟩ = accum(w, T)`; errors are [`crate::Error`].
//!
//! ```
//! use kronograph::matrix::{op, DenseVector, Descriptor};
//! let u = DenseVector::from_options(&[Some(1.0), None, Some(3.0)]);
//! let v = DenseVector::from_options(&[Some(10.0), Some(20.0), None]);
//! let mut w = DenseVector::new(3);
//! op::ewise_add(&mut w, None, None, |x, y| x + y, &u, &v, &Descriptor::DEFAULT).unwrap();
//! assert_eq!(w.to_options(), vec![Some(11.0), Some(20.0), Some(3.0)]);
//! op::ewise_mult(&mut w, None, None, |x: f64, y: f64| x * y, &u, &v, &Descriptor::DEFAULT).unwrap();
//! assert_eq!(w.to_options(), vec![Some(10.0), None, None]);
//! ```

use super::ewise_vec::{apply_vector, ewise_add_vector, ewise_mult_vector, select_vector};
use super::mask::{Descriptor, MatrixMask};
use super::ops_mat::select as select_host;
use super::ops_mat::{apply as apply_host, ewise_add as ewise_add_host, ewise_mult as ewise_mult_host};
use super::place::ProductOutput;
use super::{DenseVector, Element, SparseMatrix};

impl<T: Element> ProductOutput for SparseMatrix<T> {
    type Elem = T;
    type Mask<'m> = MatrixMask<'m>;
    type AccumOp<'m> = dyn Fn(T, T) -> T + Sync + 'm;
}

/// `w⟨mask⟩ = accum(w, u ∪op v)` on the place of `Self`, with operator `Op`.
pub trait EwiseAddOp<Op, U: ?Sized, V: ?Sized>: ProductOutput {
    /// See [`ewise_add`].
    ///
    /// # Errors
    /// As [`ewise_add`].
    #[allow(clippy::too_many_arguments)]
    fn ewise_add_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        op: Op,
        u: &U,
        v: &V,
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

/// `w⟨mask⟩ = accum(w, u ∩op v)` on the place of `Self`, with operator `Op`.
pub trait EwiseMultOp<Op, U: ?Sized, V: ?Sized>: ProductOutput {
    /// See [`ewise_mult`].
    ///
    /// # Errors
    /// As [`ewise_mult`].
    #[allow(clippy::too_many_arguments)]
    fn ewise_mult_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        op: Op,
        u: &U,
        v: &V,
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

/// `w⟨mask⟩ = accum(w, f(u))` on the place of `Self`, with function `F`.
pub trait ApplyOp<F, U: ?Sized>: ProductOutput {
    /// See [`apply`].
    ///
    /// # Errors
    /// As [`apply`].
    fn apply_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        f: F,
        u: &U,
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

/// `w⟨mask⟩ = accum(w, u where pred)` on the place of `Self`, with predicate `P`.
pub trait SelectOp<P, U: ?Sized>: ProductOutput {
    /// See [`select`].
    ///
    /// # Errors
    /// As [`select`].
    fn select_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        pred: P,
        u: &U,
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

// ------------------------------------------------------------------ host: vectors

impl<T: Element, F: Fn(T, T) -> T + Sync> EwiseAddOp<F, DenseVector<T>, DenseVector<T>> for DenseVector<T> {
    fn ewise_add_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        op: F,
        u: &DenseVector<T>,
        v: &DenseVector<T>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(ewise_add_vector(self, mask, accum, op, u, v, desc)?)
    }
}

impl<A: Element, B: Element, C: Element, F: Fn(A, B) -> C + Sync> EwiseMultOp<F, DenseVector<A>, DenseVector<B>>
    for DenseVector<C>
{
    fn ewise_mult_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        op: F,
        u: &DenseVector<A>,
        v: &DenseVector<B>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(ewise_mult_vector(self, mask, accum, op, u, v, desc)?)
    }
}

impl<A: Element, C: Element, F: Fn(A) -> C + Sync> ApplyOp<F, DenseVector<A>> for DenseVector<C> {
    fn apply_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        f: F,
        u: &DenseVector<A>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(apply_vector(self, mask, accum, f, u, desc)?)
    }
}

impl<T: Element, P: Fn(usize, T) -> bool + Sync> SelectOp<P, DenseVector<T>> for DenseVector<T> {
    fn select_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        pred: P,
        u: &DenseVector<T>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(select_vector(self, mask, accum, pred, u, desc)?)
    }
}

// ------------------------------------------------------------------ host: matrices

impl<T: Element, F: Fn(T, T) -> T + Sync> EwiseAddOp<F, SparseMatrix<T>, SparseMatrix<T>> for SparseMatrix<T> {
    fn ewise_add_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        op: F,
        a: &SparseMatrix<T>,
        b: &SparseMatrix<T>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(ewise_add_host(self, mask, accum, op, a, b, desc)?)
    }
}

impl<A: Element, B: Element, C: Element, F: Fn(A, B) -> C + Sync> EwiseMultOp<F, SparseMatrix<A>, SparseMatrix<B>>
    for SparseMatrix<C>
{
    fn ewise_mult_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        op: F,
        a: &SparseMatrix<A>,
        b: &SparseMatrix<B>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(ewise_mult_host(self, mask, accum, op, a, b, desc)?)
    }
}

impl<A: Element, C: Element, F: Fn(A) -> C + Sync> ApplyOp<F, SparseMatrix<A>> for SparseMatrix<C> {
    fn apply_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        f: F,
        a: &SparseMatrix<A>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(apply_host(self, mask, accum, f, a, desc)?)
    }
}

impl<T: Element, P: Fn(usize, usize, T) -> bool + Sync> SelectOp<P, SparseMatrix<T>> for SparseMatrix<T> {
    fn select_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        pred: P,
        a: &SparseMatrix<T>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(select_host(self, mask, accum, pred, a, desc)?)
    }
}

// ------------------------------------------------------------------ the operations

/// `w⟨mask⟩ = accum(w, u ∪op v)`: the union of the patterns, `op(u(i), v(i))`
/// where both are present, the present one elsewhere (`v` is `Bᵀ` for
/// matrices with `desc.transpose_second`), on the place of the operands:
/// dense vectors or matrices, on the host (operator: a closure) or one
/// device (operator: `&GpuBinaryOp`).
///
/// # Errors
/// [`MatrixError::DimensionMismatch`](super::MatrixError) if the operands,
/// the output or the mask do not fit; on a device also operands on
/// different devices or of another index width, NVRTC and driver errors.
pub fn ewise_add<W, Op, U, V>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    op: Op,
    u: &U,
    v: &V,
    desc: &Descriptor,
) -> crate::Result<()>
where
    W: EwiseAddOp<Op, U, V> + ?Sized,
    U: ?Sized,
    V: ?Sized,
{
    w.ewise_add_op(mask, accum, op, u, v, desc)
}

/// `w⟨mask⟩ = accum(w, u ∩op v)`: `op(u(i), v(i))` where both are present
/// (the intersection of the patterns); see [`ewise_add`].
///
/// # Errors
/// As [`ewise_add`].
pub fn ewise_mult<W, Op, U, V>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    op: Op,
    u: &U,
    v: &V,
    desc: &Descriptor,
) -> crate::Result<()>
where
    W: EwiseMultOp<Op, U, V> + ?Sized,
    U: ?Sized,
    V: ?Sized,
{
    w.ewise_mult_op(mask, accum, op, u, v, desc)
}

/// `w⟨mask⟩ = accum(w, f(u))` over the present entries of `u` (`Aᵀ` for a
/// matrix with `desc.transpose_first`); `f` is a closure on the host, a
/// `&GpuUnaryOp` on a device.
///
/// # Errors
/// As [`ewise_add`].
pub fn apply<W, F, U>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    f: F,
    u: &U,
    desc: &Descriptor,
) -> crate::Result<()>
where
    W: ApplyOp<F, U> + ?Sized,
    U: ?Sized,
{
    w.apply_op(mask, accum, f, u, desc)
}

/// `w⟨mask⟩ = accum(w, T)`, `T` the entries of `u` that `pred` keeps: a
/// closure of the position and value on the host (`|i, x|` for vectors,
/// `|i, j, x|` for matrices), a `&GpuSelectOp` on a device.
///
/// # Errors
/// As [`ewise_add`].
pub fn select<W, P, U>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    pred: P,
    u: &U,
    desc: &Descriptor,
) -> crate::Result<()>
where
    W: SelectOp<P, U> + ?Sized,
    U: ?Sized,
{
    w.select_op(mask, accum, pred, u, desc)
}
