//! The method form on device objects: `a.mxv(&u, s)`, `u.vxm(&a, s)` and
//! `a.mxm(&b, s)` for a [`DeviceMatrix`] and device vectors, then
//! `.mask(..)` (a [`DeviceMask`] or [`DeviceMatrixMask`]), `.accum(..)` (a
//! [`GpuBinaryOp`]), `.desc(..)` and `.into(&mut w)`: each builder calls the
//! one-signature function of [`crate::matrix::op`] ([`mxv`], [`mxv_sparse`],
//! [`vxm`], [`vxm_sparse`], [`mxm`]), as the host builders do.
//!
//! ```no_run
//! # fn main() -> kronograph::Result<()> {
//! use kronograph::cuda::GpuDevice;
//! use kronograph::matrix::gpu::{DeviceDenseVector, DeviceMatrix, GpuBinaryOp};
//! use kronograph::matrix::{DenseVector, SparseMatrix};
//! use kronograph::semirings::MinPlus;
//! let dev = GpuDevice::open(0)?;
//! let a = SparseMatrix::try_from_triplets(2, 2, &[0, 1], &[1, 0], &[2.0, 3.0])?;
//! let (da, dx) = (DeviceMatrix::upload(&dev, &a)?, DeviceDenseVector::upload(&dev, &DenseVector::full(vec![1.0, 1.0]))?);
//! let mut dy = DeviceDenseVector::upload(&dev, &DenseVector::full(vec![9.0, 9.0]))?;
//! let min = GpuBinaryOp::add(&MinPlus::<f64>::new());
//! da.mxv(&dx, MinPlus::new()).accum(&min).into(&mut dy)?;
//! assert_eq!(dy.download()?.values(), &[3.0, 4.0]);
//! # Ok(())
//! # }
//! ```

use super::super::gpu::{
    DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector, GpuBinaryOp, GpuElement,
};
use super::super::mask::Descriptor;
use super::super::ops_mat::MxmMethod;
use super::super::place::{mxv, mxv_sparse, vxm, vxm_sparse};
use super::super::place_mxm::mxm;
use super::super::vec_kernels::SpmspvOptions;
use crate::semirings::Semiring;

/// The options of a device product.
struct Opts<'a, M> {
    mask: Option<&'a M>,
    accum: Option<&'a GpuBinaryOp>,
    desc: Descriptor,
    spmspv: SpmspvOptions,
    method: MxmMethod,
}

impl<M> Default for Opts<'_, M> {
    fn default() -> Self {
        Opts {
            mask: None,
            accum: None,
            desc: Descriptor::DEFAULT,
            spmspv: SpmspvOptions::default(),
            method: MxmMethod::Auto,
        }
    }
}

/// The setters of the device builders (mask type `$m`).
macro_rules! setters {
    ($m:ty) => {
        /// Writes only where `mask` allows.
        pub fn mask(mut self, mask: &'a $m) -> Self {
            self.opts.mask = Some(mask);
            self
        }

        /// Combines the output's old entries with the new ones by `accum`.
        pub fn accum(mut self, accum: &'a GpuBinaryOp) -> Self {
            self.opts.accum = Some(accum);
            self
        }

        /// The descriptor (replace, transposes).
        pub fn desc(mut self, desc: Descriptor) -> Self {
            self.opts.desc = desc;
            self
        }
    };
}

/// `A ⊕.⊗ u` on a device under construction: see [`DeviceMatrix::mxv`].
#[must_use = "a product does nothing until `.into(&mut w)`"]
pub struct DeviceMxv<'a, S: Semiring, V>
where
    S::A: GpuElement,
{
    a: &'a DeviceMatrix<S::A>,
    u: &'a V,
    s: S,
    opts: Opts<'a, DeviceMask>,
}

/// `uᵀ ⊕.⊗ A` on a device under construction: see [`DeviceDenseVector::vxm`].
#[must_use = "a product does nothing until `.into(&mut w)`"]
pub struct DeviceVxm<'a, S: Semiring, V>
where
    S::B: GpuElement,
{
    u: &'a V,
    a: &'a DeviceMatrix<S::B>,
    s: S,
    opts: Opts<'a, DeviceMask>,
}

/// `A ⊕.⊗ B` on a device under construction: see [`DeviceMatrix::mxm`].
#[must_use = "a product does nothing until `.into(&mut c)`"]
pub struct DeviceMxm<'a, S: Semiring>
where
    S::A: GpuElement,
    S::B: GpuElement,
{
    a: &'a DeviceMatrix<S::A>,
    b: &'a DeviceMatrix<S::B>,
    s: S,
    opts: Opts<'a, DeviceMatrixMask>,
}

impl<'a, S: Semiring, V> DeviceMxv<'a, S, V>
where
    S::A: GpuElement,
{
    setters!(DeviceMask);

    /// How a sparse-vector product is computed (merge strategy); ignored
    /// for dense vectors.
    pub fn spmspv(mut self, options: SpmspvOptions) -> Self {
        self.opts.spmspv = options;
        self
    }
}

impl<'a, S: Semiring, V> DeviceVxm<'a, S, V>
where
    S::B: GpuElement,
{
    setters!(DeviceMask);

    /// How a sparse-vector product is computed (merge strategy); ignored
    /// for dense vectors.
    pub fn spmspv(mut self, options: SpmspvOptions) -> Self {
        self.opts.spmspv = options;
        self
    }
}

impl<'a, S: Semiring> DeviceMxm<'a, S>
where
    S::A: GpuElement,
    S::B: GpuElement,
{
    setters!(DeviceMatrixMask);

    /// The device form (`Dot`, `Gustavson` for the hash form, or `Auto`).
    pub fn method(mut self, method: MxmMethod) -> Self {
        self.opts.method = method;
        self
    }

    /// `C⟨mask⟩ = accum(C, A ⊕.⊗ B)`: [`mxm`](crate::matrix::op::mxm).
    ///
    /// # Errors
    /// As [`mxm`](crate::matrix::op::mxm).
    pub fn into(self, c: &mut DeviceMatrix<S::C>) -> crate::Result<()>
    where
        S::C: GpuElement,
    {
        let o = self.opts;
        mxm(c, o.mask, o.accum, self.s, self.a, self.b, &o.desc, o.method)
    }
}

// dense: mxv and vxm; sparse: mxv_sparse and vxm_sparse

impl<S: Semiring> DeviceMxv<'_, S, DeviceDenseVector<S::B>>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    /// `w⟨mask⟩ = accum(w, A u)`: [`mxv`](crate::matrix::mxv).
    ///
    /// # Errors
    /// As [`mxv`](crate::matrix::mxv).
    pub fn into(self, w: &mut DeviceDenseVector<S::C>) -> crate::Result<()> {
        let o = self.opts;
        mxv(w, o.mask, o.accum, self.s, self.a, self.u, &o.desc)
    }
}

impl<S: Semiring> DeviceMxv<'_, S, DeviceSparseVector<S::B>>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    /// `w⟨mask⟩ = accum(w, A u)` by SpMSpV: [`mxv_sparse`](crate::matrix::mxv_sparse).
    ///
    /// # Errors
    /// As [`mxv_sparse`](crate::matrix::mxv_sparse).
    pub fn into(self, w: &mut DeviceSparseVector<S::C>) -> crate::Result<()> {
        let o = self.opts;
        mxv_sparse(w, o.mask, o.accum, self.s, self.a, self.u, &o.desc, &o.spmspv)
    }
}

impl<S: Semiring> DeviceVxm<'_, S, DeviceDenseVector<S::A>>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    /// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)`: [`vxm`](crate::matrix::vxm).
    ///
    /// # Errors
    /// As [`vxm`](crate::matrix::vxm).
    pub fn into(self, w: &mut DeviceDenseVector<S::C>) -> crate::Result<()> {
        let o = self.opts;
        vxm(w, o.mask, o.accum, self.s, self.u, self.a, &o.desc)
    }
}

impl<S: Semiring> DeviceVxm<'_, S, DeviceSparseVector<S::A>>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    /// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)` by SpMSpV: [`vxm_sparse`](crate::matrix::vxm_sparse).
    ///
    /// # Errors
    /// As [`vxm_sparse`](crate::matrix::vxm_sparse).
    pub fn into(self, w: &mut DeviceSparseVector<S::C>) -> crate::Result<()> {
        let o = self.opts;
        vxm_sparse(w, o.mask, o.accum, self.s, self.u, self.a, &o.desc, &o.spmspv)
    }
}

// ------------------------------------------------------------------ entry points

impl<T: GpuElement> DeviceMatrix<T> {
    /// `A ⊕.⊗ u` over `s` for a [`DeviceDenseVector`] or a
    /// [`DeviceSparseVector`] `u`; finish with `.into(&mut w)`.
    pub fn mxv<'a, S, V>(&'a self, u: &'a V, s: S) -> DeviceMxv<'a, S, V>
    where
        S: Semiring<A = T>,
    {
        DeviceMxv { a: self, u, s, opts: Opts::default() }
    }

    /// `A ⊕.⊗ B` over `s`; finish with `.into(&mut c)` (a mask is needed
    /// on a device, see [`mxm`]).
    pub fn mxm<'a, S>(&'a self, b: &'a DeviceMatrix<S::B>, s: S) -> DeviceMxm<'a, S>
    where
        S: Semiring<A = T>,
        S::B: GpuElement,
    {
        DeviceMxm { a: self, b, s, opts: Opts::default() }
    }
}

impl<T: GpuElement> DeviceDenseVector<T> {
    /// `uᵀ ⊕.⊗ A` over `s`; finish with `.into(&mut w)`.
    pub fn vxm<'a, S>(&'a self, a: &'a DeviceMatrix<S::B>, s: S) -> DeviceVxm<'a, S, DeviceDenseVector<T>>
    where
        S: Semiring<A = T>,
        S::B: GpuElement,
    {
        DeviceVxm { u: self, a, s, opts: Opts::default() }
    }
}

impl<T: GpuElement> DeviceSparseVector<T> {
    /// `uᵀ ⊕.⊗ A` over `s` (SpMSpV); finish with `.into(&mut w)`.
    pub fn vxm<'a, S>(&'a self, a: &'a DeviceMatrix<S::B>, s: S) -> DeviceVxm<'a, S, DeviceSparseVector<T>>
    where
        S: Semiring<A = T>,
        S::B: GpuElement,
    {
        DeviceVxm { u: self, a, s, opts: Opts::default() }
    }
}
