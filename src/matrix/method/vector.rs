//! `A ⊕.⊗ u` and `uᵀ ⊕.⊗ A` as methods ([`Mxv`], [`Vxm`]), for a dense or a
//! sparse vector ([`ProductVector`]).

use super::super::mask::{Descriptor, Mask};
use super::super::ops_vec::{
    mxv_host as mxv, mxv_sparse_host as mxv_sparse, vxm_host as vxm, vxm_sparse_host as vxm_sparse,
};
use super::super::vec_kernels::SpmspvOptions;
use super::super::{DenseVector, Element, MatrixError, SparseMatrix, SparseVector};
use super::{private, VecOpts};
use crate::semirings::Semiring;

// ------------------------------------------------------------------ mxv

/// `A ⊕.⊗ u` under construction: see [`SparseMatrix::mxv`].
#[must_use = "a product does nothing until `.into(&mut w)` or `.run()`"]
pub struct Mxv<'a, S: Semiring, V> {
    a: &'a SparseMatrix<S::A>,
    u: &'a V,
    s: S,
    opts: VecOpts<'a, S::C>,
}

impl<'a, S: Semiring, V> Mxv<'a, S, V> {
    vector_setters!();
}

impl<S: Semiring, V: ProductVector<S::B>> Mxv<'_, S, V>
where
    S::A: Element,
    S::C: Element,
{
    /// `w⟨mask⟩ = accum(w, A u)`: [`mxv`](super::super::mxv) for a dense `u` (and
    /// `w`), [`mxv_sparse`](super::super::mxv_sparse) for a sparse one.
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`] if `u`, `w` or the mask do not fit `A`.
    pub fn into(self, w: &mut V::Out<S::C>) -> Result<(), MatrixError> {
        V::mxv(self, w)
    }

    /// A new vector `⟨mask⟩ A u` of `u`'s kind (absent where the mask forbids).
    ///
    /// # Errors
    /// As [`into`](Self::into).
    pub fn run(self) -> Result<V::Out<S::C>, MatrixError> {
        let n = if self.opts.desc.transpose_first { self.a.ncols() } else { self.a.nrows() };
        let mut w = V::new_out(n);
        self.into(&mut w)?;
        Ok(w)
    }
}

// ------------------------------------------------------------------ vxm

/// `uᵀ ⊕.⊗ A` under construction: see [`DenseVector::vxm`] and
/// [`SparseVector::vxm`].
#[must_use = "a product does nothing until `.into(&mut w)` or `.run()`"]
pub struct Vxm<'a, S: Semiring, V> {
    u: &'a V,
    a: &'a SparseMatrix<S::B>,
    s: S,
    opts: VecOpts<'a, S::C>,
}

impl<'a, S: Semiring, V> Vxm<'a, S, V> {
    vector_setters!();
}

impl<S: Semiring, V: ProductVector<S::A>> Vxm<'_, S, V>
where
    S::B: Element,
    S::C: Element,
{
    /// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)`: [`vxm`](super::super::vxm) for a dense `u`
    /// (and `w`), [`vxm_sparse`](super::super::vxm_sparse) for a sparse one.
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`] if `u`, `w` or the mask do not fit `A`.
    pub fn into(self, w: &mut V::Out<S::C>) -> Result<(), MatrixError> {
        V::vxm(self, w)
    }

    /// A new vector `⟨mask⟩ uᵀ A` of `u`'s kind.
    ///
    /// # Errors
    /// As [`into`](Self::into).
    pub fn run(self) -> Result<V::Out<S::C>, MatrixError> {
        let n = if self.opts.desc.transpose_second { self.a.nrows() } else { self.a.ncols() };
        let mut w = V::new_out(n);
        self.into(&mut w)?;
        Ok(w)
    }
}

// ------------------------------------------------------------------ dense or sparse

/// The vector kinds of the products, [`DenseVector`] and [`SparseVector`]:
/// a product with a vector of one kind gives a vector of the same kind, by
/// the GraphBLAS-shaped function for that kind.
pub trait ProductVector<T>: private::Sealed + Sized {
    /// The vector of this kind with elements `C`.
    type Out<C: Element>;

    /// An empty output of length `n`.
    fn new_out<C: Element>(n: usize) -> Self::Out<C>;

    /// `w⟨mask⟩ = accum(w, A u)`.
    fn mxv<S>(op: Mxv<'_, S, Self>, w: &mut Self::Out<S::C>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T>,
        S::A: Element,
        S::C: Element;

    /// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)`.
    fn vxm<S>(op: Vxm<'_, S, Self>, w: &mut Self::Out<S::C>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T>,
        S::B: Element,
        S::C: Element;
}

impl<T: Element> ProductVector<T> for DenseVector<T> {
    type Out<C: Element> = DenseVector<C>;

    fn new_out<C: Element>(n: usize) -> DenseVector<C> {
        DenseVector::new(n)
    }

    fn mxv<S>(op: Mxv<'_, S, Self>, w: &mut DenseVector<S::C>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T>,
        S::A: Element,
        S::C: Element,
    {
        mxv(w, op.opts.mask, op.opts.accum(), op.s, op.a, op.u, &op.opts.desc)
    }

    fn vxm<S>(op: Vxm<'_, S, Self>, w: &mut DenseVector<S::C>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T>,
        S::B: Element,
        S::C: Element,
    {
        vxm(w, op.opts.mask, op.opts.accum(), op.s, op.u, op.a, &op.opts.desc)
    }
}

impl<T: Element> ProductVector<T> for SparseVector<T> {
    type Out<C: Element> = SparseVector<C>;

    fn new_out<C: Element>(n: usize) -> SparseVector<C> {
        SparseVector::new(n)
    }

    fn mxv<S>(op: Mxv<'_, S, Self>, w: &mut SparseVector<S::C>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T>,
        S::A: Element,
        S::C: Element,
    {
        let o = &op.opts;
        mxv_sparse(w, o.mask, o.accum(), op.s, op.a, op.u, &o.desc, &o.spmspv)
    }

    fn vxm<S>(op: Vxm<'_, S, Self>, w: &mut SparseVector<S::C>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T>,
        S::B: Element,
        S::C: Element,
    {
        let o = &op.opts;
        vxm_sparse(w, o.mask, o.accum(), op.s, op.u, op.a, &o.desc, &o.spmspv)
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
    pub fn mxv<'a, S, V>(&'a self, u: &'a V, s: S) -> Mxv<'a, S, V>
    where
        S: Semiring<A = T>,
    {
        Mxv { a: self, u, s, opts: VecOpts::default() }
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
    pub fn vxm<'a, S>(&'a self, a: &'a SparseMatrix<S::B>, s: S) -> Vxm<'a, S, DenseVector<T>>
    where
        S: Semiring<A = T>,
    {
        Vxm { u: self, a, s, opts: VecOpts::default() }
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
    pub fn vxm<'a, S>(&'a self, a: &'a SparseMatrix<S::B>, s: S) -> Vxm<'a, S, SparseVector<T>>
    where
        S: Semiring<A = T>,
    {
        Vxm { u: self, a, s, opts: VecOpts::default() }
    }
}
