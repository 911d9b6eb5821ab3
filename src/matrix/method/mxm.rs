//! `A ⊕.⊗ B` as a method on every place ([`Mxm`], [`MxmOutput`]) and, on
//! the host, in place ([`MxmInPlace`]).

use super::super::gpu::{DeviceMatrix, GpuElement};
use super::super::mask::{Descriptor, MatrixMask};
use super::super::ops_mat::{mxm_t, write_matrix, MxmMethod};
use super::super::place::Located;
use super::super::place_mxm::mxm;
use super::super::{Element, MatrixError, SparseMatrix};
use super::{private, AccumRef};
use crate::semirings::Semiring;

// ------------------------------------------------------------------ mxm

/// `A ⊕.⊗ B` under construction, for matrices `A` and `B` of one place (two
/// [`SparseMatrix`] or two [`DeviceMatrix`]): see [`SparseMatrix::mxm`] and
/// [`DeviceMatrix::mxm`].
#[must_use = "a product does nothing until `.into(&mut c)` or `.run()`"]
pub struct Mxm<'a, 'm, S: Semiring, A: Located, B> {
    a: &'a A,
    b: &'a B,
    s: S,
    mask: Option<&'a A::MatrixMask<'m>>,
    accum: Option<&'a A::Accum<'m, S::C>>,
    desc: Descriptor,
    method: MxmMethod,
}

impl<'a, 'm, S: Semiring, A: Located, B> Mxm<'a, 'm, S, A, B> {
    /// `A ⊕.⊗ B` over `s` (what `a.mxm(b, s)` returns), for code generic
    /// over the place of `A`.
    pub fn new(a: &'a A, b: &'a B, s: S) -> Self {
        Mxm { a, b, s, mask: None, accum: None, desc: Descriptor::DEFAULT, method: MxmMethod::Auto }
    }

    /// Computes and writes only where `mask` allows (a [`MatrixMask`] on the
    /// host, a [`DeviceMatrixMask`](crate::matrix::gpu::DeviceMatrixMask) on a device).
    pub fn mask(mut self, mask: &'a A::MatrixMask<'m>) -> Self {
        self.mask = Some(mask);
        self
    }

    /// Combines the output's old entries with the new ones by `accum` (a
    /// closure on the host, a [`GpuBinaryOp`](crate::matrix::gpu::GpuBinaryOp) on a device).
    pub fn accum(mut self, accum: &'a A::Accum<'m, S::C>) -> Self {
        self.accum = Some(accum);
        self
    }

    /// The descriptor (replace, transposes).
    pub fn desc(mut self, desc: Descriptor) -> Self {
        self.desc = desc;
        self
    }

    /// Gustavson (on a device its hash form), dot products, or chosen by
    /// the mask (the default).
    pub fn method(mut self, method: MxmMethod) -> Self {
        self.method = method;
        self
    }

    /// `C⟨mask⟩ = accum(C, A ⊕.⊗ B)` where the operands live:
    /// [`op::mxm`](crate::matrix::op::mxm).
    ///
    /// # Errors
    /// As [`op::mxm`](crate::matrix::op::mxm):
    /// [`MatrixError::DimensionMismatch`] if the shapes do not fit; on a
    /// device also CUDA errors.
    pub fn into<C: MxmOutput<S, A, B>>(self, c: &mut C) -> crate::Result<()> {
        c.mxm_from(self)
    }
}

impl<S: Semiring> Mxm<'_, '_, S, SparseMatrix<S::A>, SparseMatrix<S::B>>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    /// A new host matrix `⟨mask⟩ A ⊕.⊗ B`. On a device, make the output
    /// (`DeviceMatrix::new`) and use [`into`](Self::into).
    ///
    /// # Errors
    /// As [`into`](Self::into).
    pub fn run(self) -> crate::Result<SparseMatrix<S::C>> {
        let m = if self.desc.transpose_first { self.a.ncols() } else { self.a.nrows() };
        let n = if self.desc.transpose_second { self.b.nrows() } else { self.b.ncols() };
        let mut c = SparseMatrix::new(m, n);
        self.into(&mut c)?;
        Ok(c)
    }
}

/// An output of [`Mxm::into`] on the place of `A` ([`SparseMatrix`] or
/// [`DeviceMatrix`]): [`op::mxm`](crate::matrix::op::mxm) there.
pub trait MxmOutput<S: Semiring, A: Located, B>: private::Sealed {
    /// `self⟨mask⟩ = accum(self, A ⊕.⊗ B)` as `op` states it.
    ///
    /// # Errors
    /// As the operation.
    fn mxm_from(&mut self, op: Mxm<'_, '_, S, A, B>) -> crate::Result<()>;
}

/// [`MxmOutput`] for the matrices of type `$mat` (elements bounded by `$elem`).
macro_rules! matrix_output {
    ($mat:ident, $elem:ident) => {
        impl<S: Semiring> MxmOutput<S, $mat<S::A>, $mat<S::B>> for $mat<S::C>
        where
            S::A: $elem,
            S::B: $elem,
            S::C: $elem,
        {
            fn mxm_from(&mut self, op: Mxm<'_, '_, S, $mat<S::A>, $mat<S::B>>) -> crate::Result<()> {
                mxm(self, op.mask, op.accum, op.s, op.a, op.b, &op.desc, op.method)
            }
        }
    };
}

matrix_output!(SparseMatrix, Element);
matrix_output!(DeviceMatrix, GpuElement);

// ------------------------------------------------------------------ mxm in place

/// Which side of the product the output matrix is on (see [`MxmInPlace`]).
pub trait MxmSide: private::Side {}

/// The output is the right factor: `C = A ⊕.⊗ C` ([`SparseMatrix::mxm_in_place`]).
#[derive(Clone, Copy, Debug)]
pub struct OutputRight;

/// The output is the left factor: `C = C ⊕.⊗ B` ([`SparseMatrix::mxm_in_place_right`]).
#[derive(Clone, Copy, Debug)]
pub struct OutputLeft;

impl MxmSide for OutputRight {}
impl MxmSide for OutputLeft {}

/// `C⟨mask⟩ = accum(C, A ⊕.⊗ C)` or `accum(C, C ⊕.⊗ B)` under construction:
/// see [`SparseMatrix::mxm_in_place`] and [`SparseMatrix::mxm_in_place_right`].
#[must_use = "a product does nothing until `.into(&mut c)`"]
pub struct MxmInPlace<'a, S: Semiring, Side: MxmSide, M> {
    m: &'a SparseMatrix<M>,
    s: S,
    mask: Option<&'a MatrixMask<'a>>,
    accum: Option<AccumRef<'a, S::C>>,
    desc: Descriptor,
    method: MxmMethod,
    side: std::marker::PhantomData<Side>,
}

impl<'a, S: Semiring, Side: MxmSide, M> MxmInPlace<'a, S, Side, M> {
    /// Computes and writes only where `mask` allows.
    pub fn mask(mut self, mask: &'a MatrixMask<'a>) -> Self {
        self.mask = Some(mask);
        self
    }

    /// Combines the output's old entries with the new ones by `accum`.
    pub fn accum(mut self, accum: &'a (dyn Fn(S::C, S::C) -> S::C + Sync)) -> Self {
        self.accum = Some(accum);
        self
    }

    /// The descriptor (replace, transposes; a transpose of the output's
    /// factor transposes its old value).
    pub fn desc(mut self, desc: Descriptor) -> Self {
        self.desc = desc;
        self
    }

    /// Gustavson, dot products, or chosen by the mask (the default).
    pub fn method(mut self, method: MxmMethod) -> Self {
        self.method = method;
        self
    }
}

impl<S: Semiring> MxmInPlace<'_, S, OutputRight, S::A>
where
    S::A: Element,
{
    /// `C⟨mask⟩ = accum(C, A ⊕.⊗ C)`, the product computed from `C` before
    /// `C` is written (no copy of `C`).
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`] if the shapes do not fit.
    pub fn into<T: Element>(self, c: &mut SparseMatrix<T>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T, C = T>,
    {
        let t = mxm_t((c.nrows(), c.ncols()), self.mask, self.s, self.m, &*c, &self.desc, self.method)?;
        write_matrix(c, self.mask, self.accum, self.desc.replace, t);
        Ok(())
    }
}

impl<S: Semiring> MxmInPlace<'_, S, OutputLeft, S::B>
where
    S::B: Element,
{
    /// `C⟨mask⟩ = accum(C, C ⊕.⊗ B)`, the product computed from `C` before
    /// `C` is written (no copy of `C`).
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`] if the shapes do not fit.
    pub fn into<T: Element>(self, c: &mut SparseMatrix<T>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T, C = T>,
    {
        let t = mxm_t((c.nrows(), c.ncols()), self.mask, self.s, &*c, self.m, &self.desc, self.method)?;
        write_matrix(c, self.mask, self.accum, self.desc.replace, t);
        Ok(())
    }
}

// ------------------------------------------------------------------ entry points

impl<T: Element> SparseMatrix<T> {
    /// `A ⊕.⊗ B` over the semiring `s`; finish with `.into(&mut c)` or `.run()`.
    ///
    /// # Examples
    /// Triangles of an undirected graph: `sum(L ⟨L⟩ (L ⊕.⊗ Lᵀ))` over
    /// plus-pair with `L` its lower triangle:
    /// ```
    /// use kronograph::matrix::{reduce, MatrixMask, SparseMatrix};
    /// use kronograph::semirings::{PlusPair, PlusTimes};
    /// // a 4-clique minus the edge 2-3: triangles {0,1,2} and {0,1,3}
    /// let l = SparseMatrix::try_from_triplets(4, 4, &[1, 2, 2, 3, 3], &[0, 0, 1, 0, 1], &[1u8; 5]).unwrap();
    /// let lt = l.transpose();
    /// let c = l.mxm(&lt, PlusPair::<u8, u8, u64>::new()).mask(&MatrixMask::structural(&l)).run().unwrap();
    /// assert_eq!(reduce(PlusTimes::<u64>::new(), &c).unwrap(), 2);
    /// ```
    pub fn mxm<'a, 'm, S>(&'a self, b: &'a SparseMatrix<S::B>, s: S) -> Mxm<'a, 'm, S, Self, SparseMatrix<S::B>>
    where
        S: Semiring<A = T>,
    {
        Mxm::new(self, b, s)
    }

    /// `C ← A ⊕.⊗ C` with `C` both input and output (given to
    /// `.into(&mut c)`), as GraphBLAS allows `GrB_mxm(C, mask, accum, s, A, C, desc)`.
    ///
    /// # Examples
    /// Paths of length 1 and 2 by `C = A + A C` over (+, ×), from `C = A`:
    /// ```
    /// use kronograph::matrix::SparseMatrix;
    /// use kronograph::semirings::PlusTimes;
    /// let a = SparseMatrix::try_from_triplets(3, 3, &[0, 1], &[1, 2], &[1.0, 1.0]).unwrap();
    /// let mut c = a.clone();
    /// a.mxm_in_place(PlusTimes::new()).accum(&|x, y| x + y).into(&mut c).unwrap();
    /// assert_eq!((c.get(0, 1), c.get(0, 2), c.get(1, 2)), (Some(1.0), Some(1.0), Some(1.0)));
    /// ```
    pub fn mxm_in_place<S>(&self, s: S) -> MxmInPlace<'_, S, OutputRight, T>
    where
        S: Semiring<A = T>,
    {
        MxmInPlace {
            m: self,
            s,
            mask: None,
            accum: None,
            desc: Descriptor::DEFAULT,
            method: MxmMethod::Auto,
            side: std::marker::PhantomData,
        }
    }

    /// `C ← C ⊕.⊗ B` with `C` both input and output (given to `.into(&mut c)`).
    pub fn mxm_in_place_right<S>(&self, s: S) -> MxmInPlace<'_, S, OutputLeft, T>
    where
        S: Semiring<B = T>,
    {
        MxmInPlace {
            m: self,
            s,
            mask: None,
            accum: None,
            desc: Descriptor::DEFAULT,
            method: MxmMethod::Auto,
            side: std::marker::PhantomData,
        }
    }
}

impl<T: GpuElement> DeviceMatrix<T> {
    /// `A ⊕.⊗ B` over `s` (the builder of the host's [`SparseMatrix::mxm`]);
    /// finish with `.into(&mut c)`.
    pub fn mxm<'a, 'm, S>(&'a self, b: &'a DeviceMatrix<S::B>, s: S) -> Mxm<'a, 'm, S, Self, DeviceMatrix<S::B>>
    where
        S: Semiring<A = T>,
        S::B: GpuElement,
    {
        Mxm::new(self, b, s)
    }
}
