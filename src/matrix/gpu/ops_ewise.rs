//! Element-wise operations on device vectors, dense or sparse:
//! [`ewise_add_vector`], [`ewise_mult_vector`], [`apply_vector`],
//! [`select_vector`], each `w⟨mask, replace⟩ = accum(w, op(u, v))` as on
//! the CPU ([`crate::matrix::ewise_add_vector`] …), with a device operator
//! in place of the CPU closure.
//!
//! One kernel per generated module does every kind on bitmap vectors (one
//! thread per position). A sparse operand is scattered into a bitmap first
//! and a sparse output compacted after, so each call costs `O(n)` whatever
//! the vectors' kinds.

use super::device_index::Idx;
use super::element_ops::{convert_source, ElementKey, ElementOp, MaskKind, CONVERT_KERNELS, EWISE_KERNELS};
use super::element_ops::{GpuBinaryOp, GpuSelectOp, GpuUnaryOp};
use super::index::IndexWidth;
use super::objects::{zeros, DeviceDenseVector, DeviceMask, DeviceSparseVector};
pub(super) use super::ops::same_device;
use super::scan::{exclusive_scan, grid, util_kernels};
use super::GpuElement;
use crate::cuda::device::{check, Device};
use crate::cuda::{CudaError, GpuDevice};
use crate::matrix::{check_dim, Descriptor};
use cudarc::driver::{CudaFunction, PushKernelArg};

/// The kernels of an element-wise module, in [`EWISE_KERNELS`] order.
pub(super) struct ElementKernels {
    pub(super) vector: CudaFunction,
    pub(super) count: CudaFunction,
    pub(super) fill: CudaFunction,
}

/// The kernels of `key` on `dev` (types checked; generated, compiled once
/// per key and loaded once per device).
pub(super) fn element_kernels(dev: &Device, key: &ElementKey) -> Result<ElementKernels, CudaError> {
    key.check()?;
    let src = key.source();
    let f = dev.module_functions(&src, &key.module(&src), &EWISE_KERNELS)?;
    let [vector, count, fill]: [CudaFunction; 3] =
        f.try_into().map_err(|_| CudaError::InvalidParameter("an element-wise module lacks a kernel".into()))?;
    Ok(ElementKernels { vector, count, fill })
}

/// A device vector that the element-wise operations read and write:
/// [`DeviceDenseVector`] (used in place) or [`DeviceSparseVector`] (through
/// a bitmap copy). Operands of one call may be of different kinds.
pub trait DeviceVector<T: GpuElement>: sealed::AsBitmap<T> {
    /// Size.
    fn size(&self) -> usize;
}

mod sealed {
    use super::*;

    /// A bitmap vector, the caller's or a temporary.
    pub enum Bitmap<'a, T: GpuElement> {
        Borrowed(&'a DeviceDenseVector<T>),
        Owned(DeviceDenseVector<T>),
    }

    impl<T: GpuElement> Bitmap<'_, T> {
        pub fn get(&self) -> &DeviceDenseVector<T> {
            match self {
                Bitmap::Borrowed(b) => b,
                Bitmap::Owned(b) => b,
            }
        }
    }

    /// The bitmap form of a device vector.
    pub trait AsBitmap<T: GpuElement> {
        /// The device.
        fn gpu(&self) -> &GpuDevice;
        /// The vector as a bitmap.
        fn bitmap(&self) -> Result<Bitmap<'_, T>, CudaError>;
        /// A bitmap copy of the vector.
        fn bitmap_copy(&self) -> Result<DeviceDenseVector<T>, CudaError>;
        /// Runs `f` on the vector as a bitmap and keeps what it leaves.
        fn update(
            &mut self,
            f: &mut dyn FnMut(&mut DeviceDenseVector<T>) -> Result<(), CudaError>,
        ) -> Result<(), CudaError>;
    }
}
use sealed::{AsBitmap, Bitmap};

impl<T: GpuElement> DeviceVector<T> for DeviceDenseVector<T> {
    fn size(&self) -> usize {
        self.n
    }
}

impl<T: GpuElement> AsBitmap<T> for DeviceDenseVector<T> {
    fn gpu(&self) -> &GpuDevice {
        &self.dev
    }
    fn bitmap(&self) -> Result<Bitmap<'_, T>, CudaError> {
        Ok(Bitmap::Borrowed(self))
    }
    fn bitmap_copy(&self) -> Result<DeviceDenseVector<T>, CudaError> {
        let s = &self.dev.dev.stream;
        Ok(DeviceDenseVector {
            dev: self.dev.clone(),
            n: self.n,
            val: check("copying a vector", || s.clone_dtod(&self.val))?,
            pres: check("copying a vector", || s.clone_dtod(&self.pres))?,
            flags: None,
        })
    }
    fn update(
        &mut self,
        f: &mut dyn FnMut(&mut DeviceDenseVector<T>) -> Result<(), CudaError>,
    ) -> Result<(), CudaError> {
        f(self)
    }
}

impl<T: GpuElement> DeviceVector<T> for DeviceSparseVector<T> {
    fn size(&self) -> usize {
        self.n
    }
}

impl<T: GpuElement> AsBitmap<T> for DeviceSparseVector<T> {
    fn gpu(&self) -> &GpuDevice {
        &self.dev
    }
    fn bitmap(&self) -> Result<Bitmap<'_, T>, CudaError> {
        Ok(Bitmap::Owned(to_bitmap(self)?))
    }
    fn bitmap_copy(&self) -> Result<DeviceDenseVector<T>, CudaError> {
        to_bitmap(self)
    }
    fn update(
        &mut self,
        f: &mut dyn FnMut(&mut DeviceDenseVector<T>) -> Result<(), CudaError>,
    ) -> Result<(), CudaError> {
        let mut b = to_bitmap(self)?;
        f(&mut b)?;
        *self = to_sparse(&b, self.idx.width())?;
        Ok(())
    }
}

/// The sparse/bitmap conversions of element type `T` and index width `w` on `dev`.
fn convert_kernels<T: GpuElement>(dev: &Device, w: IndexWidth) -> Result<[CudaFunction; 2], CudaError> {
    let src = convert_source(T::CUDA, w);
    let module = format!("graphblas_convert_{}", &crate::cuda::hash_hex(&[src.as_bytes()])[..12]);
    let f = dev.module_functions(&src, &module, &CONVERT_KERNELS)?;
    f.try_into().map_err(|_| CudaError::InvalidParameter("the conversion module lacks a kernel".into()))
}

fn to_bitmap<T: GpuElement>(v: &DeviceSparseVector<T>) -> Result<DeviceDenseVector<T>, CudaError> {
    let mut b = DeviceDenseVector::new(&v.dev, v.n)?;
    if v.nnz > 0 {
        let dev = &v.dev.dev;
        let w = v.idx.width();
        let [scatter, _] = convert_kernels::<T>(dev, w)?;
        let nnz = w.val(v.nnz);
        let mut lb = dev.stream.launch_builder(&scatter);
        lb.arg(&nnz).arg(&v.idx).arg(&v.val).arg(&mut b.val).arg(&mut b.pres);
        // SAFETY: matches gbc_scatter(nnz, idx, sval, val, pres); idx holds nnz indices below n.
        check("launching gbc_scatter", || unsafe { lb.launch(grid(dev, v.nnz)) })?;
    }
    Ok(b)
}

/// The present entries of `b` as a sparse vector with indices of width `w`.
fn to_sparse<T: GpuElement>(b: &DeviceDenseVector<T>, w: IndexWidth) -> Result<DeviceSparseVector<T>, CudaError> {
    let dev = &b.dev.dev;
    let util = util_kernels(dev, w)?;
    if b.n == 0 {
        let (idx, val) = (Idx::zeros(&dev.stream, w, 1)?, zeros::<T>(&dev.stream, 1)?);
        return Ok(DeviceSparseVector { dev: b.dev.clone(), n: 0, nnz: 0, idx, val });
    }
    let n32 = w.val(b.n);
    let mut flag = Idx::zeros(&dev.stream, w, b.n)?;
    let comp = 0i32;
    let mut lb = dev.stream.launch_builder(&util.flags_from_bytes);
    lb.arg(&n32).arg(&b.pres).arg(&comp).arg(&mut flag);
    // SAFETY: matches gbu_flags_from_bytes(n, bytes, comp, flag); both hold n.
    check("launching gbu_flags_from_bytes", || unsafe { lb.launch(grid(dev, b.n)) })?;
    let (pos, count) = exclusive_scan(dev, &util, &flag, b.n)?;
    let mut idx = Idx::zeros(&dev.stream, w, count)?;
    let mut val = zeros::<T>(&dev.stream, count)?;
    if count > 0 {
        let [_, compact] = convert_kernels::<T>(dev, w)?;
        let mut lb = dev.stream.launch_builder(&compact);
        lb.arg(&n32).arg(&flag).arg(&pos).arg(&b.val).arg(&mut idx).arg(&mut val);
        // SAFETY: matches gbc_compact(n, flag, pos, val, oidx, oval); outputs hold `count`.
        check("launching gbc_compact", || unsafe { lb.launch(grid(dev, b.n)) })?;
    }
    Ok(DeviceSparseVector { dev: b.dev.clone(), n: b.n, nnz: count, idx, val })
}

/// The mask kind of an optional vector mask.
pub(super) fn mask_kind(complemented: Option<bool>) -> MaskKind {
    match complemented {
        None => MaskKind::None,
        Some(false) => MaskKind::Mask,
        Some(true) => MaskKind::Complemented,
    }
}

/// `w⟨mask, replace⟩ = accum(w, op(u, v))` for every kind (`v` is `u` for
/// apply and select, which read one input), `sbits` the scalar.
#[allow(clippy::too_many_arguments)]
fn vector_op<X, Y, Z>(
    name: &'static str,
    w: &mut (impl DeviceVector<Z> + ?Sized),
    mask: Option<&DeviceMask>,
    accum: Option<&GpuBinaryOp>,
    op: ElementOp,
    u: &(impl DeviceVector<X> + ?Sized),
    v: &(impl DeviceVector<Y> + ?Sized),
    sbits: u64,
    desc: &Descriptor,
) -> crate::Result<()>
where
    X: GpuElement,
    Y: GpuElement,
    Z: GpuElement,
{
    let n = u.size();
    check_dim(name, "v length", n, v.size())?;
    check_dim(name, "w length", n, w.size())?;
    if let Some(m) = mask {
        check_dim(name, "mask length", n, m.len())?;
    }
    same_device(u.gpu(), w.gpu())?;
    same_device(v.gpu(), w.gpu())?;
    let key = ElementKey {
        op,
        accum: accum.cloned(),
        x: X::CUDA,
        y: Y::CUDA,
        z: Z::CUDA,
        mask: mask_kind(mask.map(|m| m.complement)),
        index: IndexWidth::for_sizes(&[n]),
    };
    let dev = w.gpu().dev.clone();
    let k = element_kernels(&dev, &key)?;
    if n == 0 {
        return Ok(());
    }
    let (ub, vb) = (u.bitmap()?, v.bitmap()?);
    let (ub, vb) = (ub.get(), vb.get());
    let dummy = zeros::<u8>(&dev.stream, 1)?;
    let mbits = mask.map_or(&dummy, |m| &m.bits);
    let (n32, replace) = (key.index.val(n), desc.replace as i32);
    w.update(&mut |wb| {
        let mut lb = dev.stream.launch_builder(&k.vector);
        lb.arg(&n32).arg(&ub.val).arg(&ub.pres).arg(&vb.val).arg(&vb.pres).arg(&sbits);
        lb.arg(mbits).arg(&replace).arg(&mut wb.val).arg(&mut wb.pres);
        // SAFETY: matches gbe_vector(n, xval, xpres, yval, ypres, sbits, mask, replace, wval, wpres);
        // every array holds n entries (checked), the mask is read only when the key has one.
        check("launching gbe_vector", || unsafe { lb.launch(grid(&dev, n)) }).map(drop)
    })?;
    Ok(())
}

/// `w⟨mask⟩ = accum(w, u ⊕ v)`: union; `op(u(i), v(i))` where both are
/// present, the present one where one is (the device form of
/// [`crate::matrix::ewise_add_vector`]). `O(n)`.
///
/// # Errors
/// Sizes that differ ([`MatrixError`](crate::matrix::MatrixError)), types
/// that differ from the operator's ([`CudaError::Mismatch`]), NVRTC and
/// driver errors.
pub fn ewise_add_vector<T: GpuElement>(
    w: &mut (impl DeviceVector<T> + ?Sized),
    mask: Option<&DeviceMask>,
    accum: Option<&GpuBinaryOp>,
    op: &GpuBinaryOp,
    u: &(impl DeviceVector<T> + ?Sized),
    v: &(impl DeviceVector<T> + ?Sized),
    desc: &Descriptor,
) -> crate::Result<()> {
    vector_op::<T, T, T>("gpu ewise_add_vector", w, mask, accum, ElementOp::Add(op.clone()), u, v, 0, desc)
}

/// `w⟨mask⟩ = accum(w, u ⊗ v)`: intersection; `op(u(i), v(i))` where both
/// are present ([`crate::matrix::ewise_mult_vector`]). `O(n)`.
///
/// # Errors
/// As [`ewise_add_vector`].
pub fn ewise_mult_vector<A: GpuElement, B: GpuElement, C: GpuElement>(
    w: &mut (impl DeviceVector<C> + ?Sized),
    mask: Option<&DeviceMask>,
    accum: Option<&GpuBinaryOp>,
    op: &GpuBinaryOp,
    u: &(impl DeviceVector<A> + ?Sized),
    v: &(impl DeviceVector<B> + ?Sized),
    desc: &Descriptor,
) -> crate::Result<()> {
    vector_op::<A, B, C>("gpu ewise_mult_vector", w, mask, accum, ElementOp::Mult(op.clone()), u, v, 0, desc)
}

/// `w⟨mask⟩ = accum(w, f(u))` on the present entries
/// ([`crate::matrix::apply_vector`]). `O(n)`.
///
/// # Errors
/// As [`ewise_add_vector`].
pub fn apply_vector<A: GpuElement, C: GpuElement>(
    w: &mut (impl DeviceVector<C> + ?Sized),
    mask: Option<&DeviceMask>,
    accum: Option<&GpuBinaryOp>,
    f: &GpuUnaryOp,
    u: &(impl DeviceVector<A> + ?Sized),
    desc: &Descriptor,
) -> crate::Result<()> {
    vector_op::<A, A, C>("gpu apply_vector", w, mask, accum, ElementOp::Apply(f.clone()), u, u, f.scalar, desc)
}

/// `w⟨mask⟩ = accum(w, select(u))`: the entries `u(i)` that satisfy `pred`
/// at `(i, 0)` ([`crate::matrix::select_vector`]). `O(n)`.
///
/// # Errors
/// As [`ewise_add_vector`].
pub fn select_vector<T: GpuElement>(
    w: &mut (impl DeviceVector<T> + ?Sized),
    mask: Option<&DeviceMask>,
    accum: Option<&GpuBinaryOp>,
    pred: &GpuSelectOp,
    u: &(impl DeviceVector<T> + ?Sized),
    desc: &Descriptor,
) -> crate::Result<()> {
    vector_op::<T, T, T>("gpu select_vector", w, mask, accum, ElementOp::Select(pred.clone()), u, u, pred.scalar, desc)
}

/// `w⟨mask, replace⟩ = accum(w, t)`: the accumulation step of GraphBLAS
/// on its own, for a product computed into `t` (e.g. by [`mxv`](super::mxv)
/// or [`mxv_sparse`](super::mxv_sparse), which have no accumulator):
/// where the mask allows, `accum(w(i), t(i))` where both are present, the
/// present one elsewhere; where it forbids, `w(i)` kept (dropped with
/// `replace`). The same rule as every operation's accumulator (the union
/// of a copy of `w` and `t` by `accum`). `O(n)`.
///
/// # Errors
/// As [`ewise_add_vector`].
pub fn accumulate_vector<T: GpuElement>(
    w: &mut (impl DeviceVector<T> + ?Sized),
    mask: Option<&DeviceMask>,
    accum: &GpuBinaryOp,
    t: &(impl DeviceVector<T> + ?Sized),
    desc: &Descriptor,
) -> crate::Result<()> {
    let old = w.bitmap_copy()?;
    vector_op::<T, T, T>("gpu accumulate_vector", w, mask, None, ElementOp::Add(accum.clone()), &old, t, 0, desc)
}
