//! `A ⊕.⊗ u` and `uᵀ ⊕.⊗ A` as methods ([`Mxv`], [`Vxm`]) on every place,
//! for a dense or a sparse vector ([`MxvOutput`], [`VxmOutput`]).

use super::super::gpu::{DeviceDenseVector, DeviceMatrix, DeviceSparseVector, GpuElement};
use super::super::place::Located;
use super::super::{mxv, mxv_sparse, vxm, vxm_sparse};
use super::super::{DenseVector, Element, SparseMatrix, SparseVector};
use super::{private, VecOpts};
use crate::semirings::Semiring;

// ------------------------------------------------------------------ mxv

/// `A ⊕.⊗ u` under construction, for a matrix `A` of any place (a
/// [`SparseMatrix`] or a [`DeviceMatrix`]) and a vector `U` of the same
/// place: see [`SparseMatrix::mxv`] and [`DeviceMatrix::mxv`].
#[must_use = "a product does nothing until `.into(&mut w)` or `.run()`"]
pub struct Mxv<'a, 'm, S: Semiring, A: Located, U> {
    a: &'a A,
    u: &'a U,
    s: S,
    opts: VecOpts<'a, A::VectorMask<'m>, A::Accum<'m, S::C>>,
}

impl<'a, 'm, S: Semiring, A: Located, U> Mxv<'a, 'm, S, A, U> {
    /// `A ⊕.⊗ u` over `s` (what `a.mxv(u, s)` returns), for code generic
    /// over the place of `A`.
    pub fn new(a: &'a A, u: &'a U, s: S) -> Self {
        Mxv { a, u, s, opts: VecOpts::default() }
    }

    vector_setters!(A::VectorMask<'m>, A::Accum<'m, S::C>);

    /// `w⟨mask⟩ = accum(w, A u)` where the operands live: [`op::mxv`](crate::matrix::op::mxv)
    /// for a dense `u` (and `w`), [`op::mxv_sparse`](crate::matrix::op::mxv_sparse)
    /// for a sparse one.
    ///
    /// # Errors
    /// As those: [`MatrixError::DimensionMismatch`](crate::matrix::MatrixError)
    /// if `u`, `w` or the mask do not fit `A`; on a device also CUDA errors.
    pub fn into<W: MxvOutput<S, A, U>>(self, w: &mut W) -> crate::Result<()> {
        w.mxv_from(self)
    }
}

impl<S: Semiring, V: ProductVector> Mxv<'_, '_, S, SparseMatrix<S::A>, V>
where
    S::A: Element,
    S::C: Element,
    V::Out<S::C>: MxvOutput<S, SparseMatrix<S::A>, V>,
{
    /// A new host vector `⟨mask⟩ A u` of `u`'s kind (absent where the mask
    /// forbids). On a device, make the output and use [`into`](Self::into).
    ///
    /// # Errors
    /// As [`into`](Self::into).
    pub fn run(self) -> crate::Result<V::Out<S::C>> {
        let n = if self.opts.desc.transpose_first { self.a.ncols() } else { self.a.nrows() };
        let mut w = V::new_out(n);
        self.into(&mut w)?;
        Ok(w)
    }
}

// ------------------------------------------------------------------ vxm

/// `uᵀ ⊕.⊗ A` under construction, for a vector `U` and a matrix `A` of one
/// place: see [`DenseVector::vxm`], [`SparseVector::vxm`],
/// [`DeviceDenseVector::vxm`] and [`DeviceSparseVector::vxm`].
#[must_use = "a product does nothing until `.into(&mut w)` or `.run()`"]
pub struct Vxm<'a, 'm, S: Semiring, U, A: Located> {
    u: &'a U,
    a: &'a A,
    s: S,
    opts: VecOpts<'a, A::VectorMask<'m>, A::Accum<'m, S::C>>,
}

impl<'a, 'm, S: Semiring, U, A: Located> Vxm<'a, 'm, S, U, A> {
    /// `uᵀ ⊕.⊗ A` over `s` (what `u.vxm(a, s)` returns), for code generic
    /// over the place of `A`.
    pub fn new(u: &'a U, a: &'a A, s: S) -> Self {
        Vxm { u, a, s, opts: VecOpts::default() }
    }

    vector_setters!(A::VectorMask<'m>, A::Accum<'m, S::C>);

    /// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)` where the operands live:
    /// [`op::vxm`](crate::matrix::op::vxm) for a dense `u` (and `w`),
    /// [`op::vxm_sparse`](crate::matrix::op::vxm_sparse) for a sparse one.
    ///
    /// # Errors
    /// As those: [`MatrixError::DimensionMismatch`](crate::matrix::MatrixError)
    /// if `u`, `w` or the mask do not fit `A`; on a device also CUDA errors.
    pub fn into<W: VxmOutput<S, U, A>>(self, w: &mut W) -> crate::Result<()> {
        w.vxm_from(self)
    }
}

impl<S: Semiring, V: ProductVector> Vxm<'_, '_, S, V, SparseMatrix<S::B>>
where
    S::B: Element,
    S::C: Element,
    V::Out<S::C>: VxmOutput<S, V, SparseMatrix<S::B>>,
{
    /// A new host vector `⟨mask⟩ uᵀ A` of `u`'s kind. On a device, make the
    /// output and use [`into`](Self::into).
    ///
    /// # Errors
    /// As [`into`](Self::into).
    pub fn run(self) -> crate::Result<V::Out<S::C>> {
        let n = if self.opts.desc.transpose_second { self.a.nrows() } else { self.a.ncols() };
        let mut w = V::new_out(n);
        self.into(&mut w)?;
        Ok(w)
    }
}

// ------------------------------------------------------------------ outputs

/// An output of [`Mxv::into`] on the place of `A`: a dense vector
/// ([`DenseVector`], [`DeviceDenseVector`]) takes [`op::mxv`](crate::matrix::op::mxv),
/// a sparse one ([`SparseVector`], [`DeviceSparseVector`])
/// [`op::mxv_sparse`](crate::matrix::op::mxv_sparse).
pub trait MxvOutput<S: Semiring, A: Located, U>: private::Sealed {
    /// `self⟨mask⟩ = accum(self, A u)` as `op` states it.
    ///
    /// # Errors
    /// As the operation.
    fn mxv_from(&mut self, op: Mxv<'_, '_, S, A, U>) -> crate::Result<()>;
}

/// An output of [`Vxm::into`] on the place of `A`: a dense vector takes
/// [`op::vxm`](crate::matrix::op::vxm), a sparse one
/// [`op::vxm_sparse`](crate::matrix::op::vxm_sparse).
pub trait VxmOutput<S: Semiring, U, A: Located>: private::Sealed {
    /// `selfᵀ⟨mask⟩ = accum(selfᵀ, uᵀ A)` as `op` states it.
    ///
    /// # Errors
    /// As the operation.
    fn vxm_from(&mut self, op: Vxm<'_, '_, S, U, A>) -> crate::Result<()>;
}

/// [`MxvOutput`] and [`VxmOutput`] for the dense and sparse vectors of the
/// place of matrix type `$mat` (elements bounded by `$elem`): each calls
/// the one-signature operation, which dispatches on that place.
macro_rules! vector_outputs {
    ($dense:ident, $sparse:ident, $mat:ident, $elem:ident) => {
        impl<S: Semiring> MxvOutput<S, $mat<S::A>, $dense<S::B>> for $dense<S::C>
        where
            S::A: $elem,
            S::B: $elem,
            S::C: $elem,
        {
            fn mxv_from(&mut self, op: Mxv<'_, '_, S, $mat<S::A>, $dense<S::B>>) -> crate::Result<()> {
                let o = op.opts;
                mxv(self, o.mask, o.accum, op.s, op.a, op.u, &o.desc)
            }
        }

        impl<S: Semiring> MxvOutput<S, $mat<S::A>, $sparse<S::B>> for $sparse<S::C>
        where
            S::A: $elem,
            S::B: $elem,
            S::C: $elem,
        {
            fn mxv_from(&mut self, op: Mxv<'_, '_, S, $mat<S::A>, $sparse<S::B>>) -> crate::Result<()> {
                let o = op.opts;
                mxv_sparse(self, o.mask, o.accum, op.s, op.a, op.u, &o.desc, &o.spmspv)
            }
        }

        impl<S: Semiring> VxmOutput<S, $dense<S::A>, $mat<S::B>> for $dense<S::C>
        where
            S::A: $elem,
            S::B: $elem,
            S::C: $elem,
        {
            fn vxm_from(&mut self, op: Vxm<'_, '_, S, $dense<S::A>, $mat<S::B>>) -> crate::Result<()> {
                let o = op.opts;
                vxm(self, o.mask, o.accum, op.s, op.u, op.a, &o.desc)
            }
        }

        impl<S: Semiring> VxmOutput<S, $sparse<S::A>, $mat<S::B>> for $sparse<S::C>
        where
            S::A: $elem,
            S::B: $elem,
            S::C: $elem,
        {
            fn vxm_from(&mut self, op: Vxm<'_, '_, S, $sparse<S::A>, $mat<S::B>>) -> crate::Result<()> {
                let o = op.opts;
                vxm_sparse(self, o.mask, o.accum, op.s, op.u, op.a, &o.desc, &o.spmspv)
            }
        }
    };
}

vector_outputs!(DenseVector, SparseVector, SparseMatrix, Element);
vector_outputs!(DeviceDenseVector, DeviceSparseVector, DeviceMatrix, GpuElement);

/// The host's vector kinds, [`DenseVector`] and [`SparseVector`]: `.run()`
/// of a product with a vector of one kind makes a new vector of the same
/// kind.
pub trait ProductVector: private::Sealed + Sized {
    /// The vector of this kind with elements `C`.
    type Out<C: Element>;

    /// An empty output of length `n`.
    fn new_out<C: Element>(n: usize) -> Self::Out<C>;
}

impl<T> ProductVector for DenseVector<T> {
    type Out<C: Element> = DenseVector<C>;

    fn new_out<C: Element>(n: usize) -> DenseVector<C> {
        DenseVector::new(n)
    }
}

impl<T> ProductVector for SparseVector<T> {
    type Out<C: Element> = SparseVector<C>;

    fn new_out<C: Element>(n: usize) -> SparseVector<C> {
        SparseVector::new(n)
    }
}

// ------------------------------------------------------------------ entry points

impl<T: Element> SparseMatrix<T> {
    /// `A ⊕.⊗ u` over the semiring `s`, for a [`DenseVector`] or a
    /// [`SparseVector`] `u`; finish with `.into(&mut w)` or `.run()`.
    ///
    /// # Examples
    /// ```
    /// use kronograph::matrix::{DenseVector, Mask, SparseMatrix};
    /// use kronograph::semirings::{MinPlus, PlusTimes};
    /// // 0 -> 1 (weight 2), 1 -> 2 (weight 3), 0 -> 2 (weight 7)
    /// let a = SparseMatrix::try_from_triplets(3, 3, &[0, 1, 0], &[1, 2, 2], &[2.0, 3.0, 7.0]).unwrap();
    /// let x = DenseVector::full(vec![1.0, 10.0, 100.0]);
    /// let y = a.mxv(&x, PlusTimes::new()).run().unwrap();
    /// assert_eq!(y.to_options(), vec![Some(720.0), Some(300.0), None]);
    ///
    /// // min-plus, written only where the mask allows, accumulated by min
    /// let mut z = DenseVector::full(vec![50.0, 50.0, 50.0]);
    /// let m = Mask::from_bits(vec![true, false, true]);
    /// a.mxv(&x, MinPlus::new()).mask(&m).accum(&f64::min).into(&mut z).unwrap();
    /// assert_eq!(z.to_options(), vec![Some(12.0), Some(50.0), Some(50.0)]);
    /// ```
    pub fn mxv<'a, 'm, S, V>(&'a self, u: &'a V, s: S) -> Mxv<'a, 'm, S, Self, V>
    where
        S: Semiring<A = T>,
    {
        Mxv::new(self, u, s)
    }
}

impl<T: GpuElement> DeviceMatrix<T> {
    /// `A ⊕.⊗ u` over `s` for a [`DeviceDenseVector`] or a
    /// [`DeviceSparseVector`] `u` (the builder of the host's
    /// [`SparseMatrix::mxv`]); finish with `.into(&mut w)`.
    ///
    /// ```no_run
    /// # fn main() -> kronograph::Result<()> {
    /// use kronograph::cuda::GpuDevice;
    /// use kronograph::matrix::gpu::{DeviceDenseVector, DeviceMatrix, GpuBinaryOp};
    /// use kronograph::matrix::{DenseVector, SparseMatrix};
    /// use kronograph::semirings::MinPlus;
    /// let dev = GpuDevice::open(0)?;
    /// let a = SparseMatrix::try_from_triplets(2, 2, &[0, 1], &[1, 0], &[2.0, 3.0])?;
    /// let (da, dx) = (DeviceMatrix::upload(&dev, &a)?, DeviceDenseVector::upload(&dev, &DenseVector::full(vec![1.0, 1.0]))?);
    /// let mut dy = DeviceDenseVector::upload(&dev, &DenseVector::full(vec![9.0, 9.0]))?;
    /// let min = GpuBinaryOp::add(&MinPlus::<f64>::new());
    /// da.mxv(&dx, MinPlus::new()).accum(&min).into(&mut dy)?;
    /// assert_eq!(dy.download()?.values(), &[3.0, 4.0]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn mxv<'a, 'm, S, V>(&'a self, u: &'a V, s: S) -> Mxv<'a, 'm, S, Self, V>
    where
        S: Semiring<A = T>,
    {
        Mxv::new(self, u, s)
    }
}

impl<T: Element> DenseVector<T> {
    /// `uᵀ ⊕.⊗ A` over the semiring `s`; finish with `.into(&mut w)` or `.run()`.
    ///
    /// # Examples
    /// ```
    /// use kronograph::matrix::{DenseVector, SparseMatrix};
    /// use kronograph::semirings::{Gf256, PlusTimes};
    /// let a = SparseMatrix::try_from_triplets(2, 2, &[0, 0, 1], &[0, 1, 1], &[2u8, 3, 4]).unwrap();
    /// let u = DenseVector::full(vec![0x80u8, 1]);
    /// // GF(2^8): 0x80·2 = 0x1D (reduced), 0x80·3 ⊕ 1·4 = 0x9D ⊕ 4 = 0x99
    /// assert_eq!(u.vxm(&a, Gf256::new()).run().unwrap().values(), &[0x1D, 0x99]);
    /// // the same matrix in integer arithmetic
    /// let b = a.map(u32::from);
    /// let v = DenseVector::full(vec![1u32, 1]);
    /// assert_eq!(v.vxm(&b, PlusTimes::new()).run().unwrap().values(), &[2, 7]);
    /// ```
    pub fn vxm<'a, 'm, S>(&'a self, a: &'a SparseMatrix<S::B>, s: S) -> Vxm<'a, 'm, S, Self, SparseMatrix<S::B>>
    where
        S: Semiring<A = T>,
        S::B: Element,
    {
        Vxm::new(self, a, s)
    }
}

impl<T: Element> SparseVector<T> {
    /// `uᵀ ⊕.⊗ A` over the semiring `s` (SpMSpV); finish with
    /// `.into(&mut w)` or `.run()`.
    ///
    /// # Examples
    /// ```
    /// use kronograph::matrix::{SparseMatrix, SparseVector};
    /// use kronograph::semirings::AnyPair;
    /// let a = SparseMatrix::try_from_triplets(3, 3, &[0, 1], &[1, 2], &[1.0, 1.0]).unwrap();
    /// let frontier = SparseVector::try_new(3, vec![0], vec![true]).unwrap();
    /// let next = frontier.vxm(&a, AnyPair::<bool, f64>::new()).run().unwrap();
    /// assert_eq!(next.indices(), &[1]);
    /// ```
    pub fn vxm<'a, 'm, S>(&'a self, a: &'a SparseMatrix<S::B>, s: S) -> Vxm<'a, 'm, S, Self, SparseMatrix<S::B>>
    where
        S: Semiring<A = T>,
        S::B: Element,
    {
        Vxm::new(self, a, s)
    }
}

impl<T: GpuElement> DeviceDenseVector<T> {
    /// `uᵀ ⊕.⊗ A` over `s` (the builder of the host's
    /// [`DenseVector::vxm`]); finish with `.into(&mut w)`.
    pub fn vxm<'a, 'm, S>(&'a self, a: &'a DeviceMatrix<S::B>, s: S) -> Vxm<'a, 'm, S, Self, DeviceMatrix<S::B>>
    where
        S: Semiring<A = T>,
        S::B: GpuElement,
    {
        Vxm::new(self, a, s)
    }
}

impl<T: GpuElement> DeviceSparseVector<T> {
    /// `uᵀ ⊕.⊗ A` over `s` (SpMSpV; the builder of the host's
    /// [`SparseVector::vxm`]); finish with `.into(&mut w)`.
    pub fn vxm<'a, 'm, S>(&'a self, a: &'a DeviceMatrix<S::B>, s: S) -> Vxm<'a, 'm, S, Self, DeviceMatrix<S::B>>
    where
        S: Semiring<A = T>,
        S::B: GpuElement,
    {
        Vxm::new(self, a, s)
    }
}
