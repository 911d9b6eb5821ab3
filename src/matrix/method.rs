//! The method form of the products: `a.mxv(&u, semiring)`, `u.vxm(&a, semiring)`,
//! `a.mxm(&b, semiring)`, then optional `.mask(..)`, `.accum(..)`,
//! `.desc(..)`, and `.into(&mut w)` (GraphBLAS' `w⟨mask⟩ = accum(w, …)`) or
//! `.run()` (a new output).
//!
//! Each builder calls the GraphBLAS-shaped function of the same name
//! ([`mxv`](super::mxv), [`mxv_sparse`](super::mxv_sparse), [`vxm`](super::vxm),
//! [`vxm_sparse`](super::vxm_sparse), [`mxm`](super::mxm)): one
//! implementation, two spellings, as python-graphblas' `w(mask, accum) <<
//! A.mxv(u, semiring)` beside the C API's `GrB_mxv(w, mask, accum, semiring,
//! A, u, desc)`.
//!
//! GraphBLAS lets the output of `mxv` and `vxm` also be the input
//! (`GrB_vxm(w, mask, accum, s, w, A, desc)`); Rust's borrows cannot express
//! that with two arguments, so [`SparseMatrix::mxv_in_place`] and
//! [`SparseMatrix::vxm_in_place`] take the vector once, in `.into(&mut w)`:
//! `w⟨mask⟩ = accum(w, A w)` with no copy of `w`. The same holds for `mxm`
//! ([`SparseMatrix::mxm_in_place`]: `C⟨mask⟩ = accum(C, A C)`;
//! [`SparseMatrix::mxm_in_place_right`]: `C⟨mask⟩ = accum(C, C B)`).

use super::mask::{Accum, Descriptor, Mask, MatrixMask};
use super::ops_mat::{mxm, mxm_t, write_matrix, MxmMethod};
use super::ops_vec::{mxv_sparse_t, mxv_t, vxm_sparse_t, vxm_t, write_dense, write_sparse, SpmspvOptions};
use super::{mxv, mxv_sparse, vxm, vxm_sparse, DenseVector, Element, MatrixError, SparseMatrix, SparseVector};
use crate::semirings::Semiring;

/// An accumulator as the builders hold it.
type AccumRef<'a, C> = &'a (dyn Fn(C, C) -> C + Sync);

/// The options every vector product takes.
struct VecOpts<'a, C> {
    mask: Option<&'a Mask<'a>>,
    accum: Option<AccumRef<'a, C>>,
    desc: Descriptor,
    spmspv: SpmspvOptions,
}

impl<C> Default for VecOpts<'_, C> {
    fn default() -> Self {
        VecOpts { mask: None, accum: None, desc: Descriptor::DEFAULT, spmspv: SpmspvOptions::default() }
    }
}

impl<'a, C> VecOpts<'a, C> {
    fn accum(&self) -> Accum<'a, C> {
        self.accum
    }
}

/// The setters shared by the vector-product builders.
macro_rules! vector_setters {
    () => {
        /// Writes only where `mask` allows (see [`Mask`]; complement it with
        /// [`Mask::complement`]).
        pub fn mask(mut self, mask: &'a Mask<'a>) -> Self {
            self.opts.mask = Some(mask);
            self
        }

        /// Combines the output's old entries with the new ones by `accum`
        /// (e.g. `&f64::min`) instead of replacing them.
        pub fn accum(mut self, accum: &'a (dyn Fn(S::C, S::C) -> S::C + Sync)) -> Self {
            self.opts.accum = Some(accum);
            self
        }

        /// The descriptor (replace, transposes).
        pub fn desc(mut self, desc: Descriptor) -> Self {
            self.opts.desc = desc;
            self
        }

        /// How a sparse-vector product is computed (merge strategy, push or
        /// pull); ignored for dense vectors. Results do not depend on it.
        pub fn spmspv(mut self, options: SpmspvOptions) -> Self {
            self.opts.spmspv = options;
            self
        }
    };
}

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
    /// `w⟨mask⟩ = accum(w, A u)`: [`mxv`](super::mxv) for a dense `u` (and
    /// `w`), [`mxv_sparse`](super::mxv_sparse) for a sparse one.
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
    /// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)`: [`vxm`](super::vxm) for a dense `u`
    /// (and `w`), [`vxm_sparse`](super::vxm_sparse) for a sparse one.
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
    #[doc(hidden)]
    fn new_out<C: Element>(n: usize) -> Self::Out<C>;

    /// `w⟨mask⟩ = accum(w, A u)`.
    #[doc(hidden)]
    fn mxv<S>(op: Mxv<'_, S, Self>, w: &mut Self::Out<S::C>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T>,
        S::A: Element,
        S::C: Element;

    /// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)`.
    #[doc(hidden)]
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

// ------------------------------------------------------------------ in place

/// `w⟨mask⟩ = accum(w, A w)` under construction: see
/// [`SparseMatrix::mxv_in_place`].
#[must_use = "a product does nothing until `.into(&mut w)`"]
pub struct MxvInPlace<'a, S: Semiring> {
    a: &'a SparseMatrix<S::A>,
    s: S,
    opts: VecOpts<'a, S::C>,
}

impl<'a, S: Semiring> MxvInPlace<'a, S> {
    vector_setters!();
}

/// `wᵀ⟨mask⟩ = accum(wᵀ, wᵀ A)` under construction: see
/// [`SparseMatrix::vxm_in_place`].
#[must_use = "a product does nothing until `.into(&mut w)`"]
pub struct VxmInPlace<'a, S: Semiring> {
    a: &'a SparseMatrix<S::B>,
    s: S,
    opts: VecOpts<'a, S::C>,
}

impl<'a, S: Semiring> VxmInPlace<'a, S> {
    vector_setters!();
}

/// A vector that an in-place product reads and then overwrites.
pub trait InPlaceVector<T>: private::Sealed {
    /// `w⟨mask⟩ = accum(w, A w)`.
    #[doc(hidden)]
    fn mxv_in_place<S>(&mut self, op: MxvInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T, C = T>,
        S::A: Element;

    /// `wᵀ⟨mask⟩ = accum(wᵀ, wᵀ A)`.
    #[doc(hidden)]
    fn vxm_in_place<S>(&mut self, op: VxmInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T, C = T>,
        S::B: Element;
}

mod private {
    pub trait Sealed {}
    impl<T> Sealed for super::DenseVector<T> {}
    impl<T> Sealed for super::SparseVector<T> {}
    pub trait Side {}
    impl Side for super::OutputRight {}
    impl Side for super::OutputLeft {}
}

impl<T: Element> InPlaceVector<T> for DenseVector<T> {
    fn mxv_in_place<S>(&mut self, op: MxvInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<B = T, C = T>,
        S::A: Element,
    {
        let o = &op.opts;
        let (tv, tp) = mxv_t(self.len(), o.mask, &op.s, op.a, self, &o.desc)?;
        write_dense(self, o.mask, o.accum(), o.desc.replace, &tv, &tp);
        Ok(())
    }

    fn vxm_in_place<S>(&mut self, op: VxmInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T, C = T>,
        S::B: Element,
    {
        let o = &op.opts;
        let (tv, tp) = vxm_t(self.len(), o.mask, &op.s, self, op.a, &o.desc)?;
        write_dense(self, o.mask, o.accum(), o.desc.replace, &tv, &tp);
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
        write_sparse(self, o.mask, o.accum(), o.desc.replace, t);
        Ok(())
    }

    fn vxm_in_place<S>(&mut self, op: VxmInPlace<'_, S>) -> Result<(), MatrixError>
    where
        S: Semiring<A = T, C = T>,
        S::B: Element,
    {
        let o = &op.opts;
        let t = vxm_sparse_t(self.len(), o.mask, &op.s, self, op.a, &o.desc, &o.spmspv)?;
        write_sparse(self, o.mask, o.accum(), o.desc.replace, t);
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

// ------------------------------------------------------------------ mxm

/// `A ⊕.⊗ B` under construction: see [`SparseMatrix::mxm`].
#[must_use = "a product does nothing until `.into(&mut c)` or `.run()`"]
pub struct Mxm<'a, S: Semiring> {
    a: &'a SparseMatrix<S::A>,
    b: &'a SparseMatrix<S::B>,
    s: S,
    mask: Option<&'a MatrixMask<'a>>,
    accum: Option<AccumRef<'a, S::C>>,
    desc: Descriptor,
    method: MxmMethod,
}

impl<'a, S: Semiring> Mxm<'a, S>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
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

    /// The descriptor (replace, transposes).
    pub fn desc(mut self, desc: Descriptor) -> Self {
        self.desc = desc;
        self
    }

    /// Gustavson, dot products, or chosen by the mask (the default).
    pub fn method(mut self, method: MxmMethod) -> Self {
        self.method = method;
        self
    }

    /// `C⟨mask⟩ = accum(C, A ⊕.⊗ B)`: [`mxm`](super::mxm).
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`] if the shapes do not fit.
    pub fn into(self, c: &mut SparseMatrix<S::C>) -> Result<(), MatrixError> {
        mxm(c, self.mask, self.accum, self.s, self.a, self.b, &self.desc, self.method)
    }

    /// A new matrix `⟨mask⟩ A ⊕.⊗ B`.
    ///
    /// # Errors
    /// As [`into`](Self::into).
    pub fn run(self) -> Result<SparseMatrix<S::C>, MatrixError> {
        let m = if self.desc.transpose_first { self.a.ncols() } else { self.a.nrows() };
        let n = if self.desc.transpose_second { self.b.nrows() } else { self.b.ncols() };
        let mut c = SparseMatrix::new(m, n);
        self.into(&mut c)?;
        Ok(c)
    }
}

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

    /// `A ⊕.⊗ B` over the semiring `s`; finish with `.into(&mut c)` or `.run()`.
    ///
    /// # Examples
    /// Triangles of an undirected graph: `sum(L ⟨L⟩ (L ⊕.⊗ Lᵀ))` over
    /// plus-pair with `L` its lower triangle:
    /// ```
    /// use kronograph::matrix::{reduce_scalar, MatrixMask, SparseMatrix};
    /// use kronograph::semirings::{Plus, PlusPair};
    /// // a 4-clique minus the edge 2-3: triangles {0,1,2} and {0,1,3}
    /// let l = SparseMatrix::try_from_triplets(4, 4, &[1, 2, 2, 3, 3], &[0, 0, 1, 0, 1], &[1u8; 5]).unwrap();
    /// let lt = l.transpose();
    /// let c = l.mxm(&lt, PlusPair::<u8, u8, u64>::new()).mask(&MatrixMask::structural(&l)).run().unwrap();
    /// assert_eq!(reduce_scalar(Plus, &c), 2);
    /// ```
    pub fn mxm<'a, S>(&'a self, b: &'a SparseMatrix<S::B>, s: S) -> Mxm<'a, S>
    where
        S: Semiring<A = T>,
    {
        Mxm { a: self, b, s, mask: None, accum: None, desc: Descriptor::DEFAULT, method: MxmMethod::Auto }
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
