//! The device side of the one GraphBLAS API: [`crate::matrix::mxv`],
//! [`vxm`](crate::matrix::vxm), [`mxv_sparse`](crate::matrix::mxv_sparse),
//! [`vxm_sparse`](crate::matrix::vxm_sparse) and
//! [`assign_min`](crate::matrix::assign_min) on device objects, and
//! [`Located`] for a [`DeviceMatrix`].
//!
//! Without an accumulator a product writes straight into its output
//! (mask and replace inside the kernel, no temporary, no extra upload or
//! host synchronization); with one, or when a sparse output has entries the
//! mask must keep, the product goes to a temporary that the element-wise
//! write rule (`C⟨M, replace⟩ = accum(C, T)`, `kernels/graphblas_ewise.cu`)
//! merges into the output.

use super::device_index::Idx;
use super::objects::{download, upload, DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceSparseVector};
use super::scan::{flagged_indices, grid, util_kernels};
use super::{accumulate_vector, apply_vector, ops, GpuBinaryOp, GpuElement, GpuMergeStrategy, GpuUnaryOp, UnaryForm};
use crate::cuda::device::check;
use crate::matrix::place::{AssignMinOp, Located, MxvOp, MxvSparseOp, ProductOutput, VxmOp, VxmSparseOp};
use crate::matrix::{check_dim, Descriptor, MergeStrategy, SparseVector, SpmspvOptions};
use crate::semirings::Semiring;
use cudarc::driver::PushKernelArg;

impl<T: GpuElement> ProductOutput for DeviceDenseVector<T> {
    type Elem = T;
    type Mask<'m> = DeviceMask;
    type AccumOp<'m> = GpuBinaryOp;
}

impl<T: GpuElement> ProductOutput for DeviceSparseVector<T> {
    type Elem = T;
    type Mask<'m> = DeviceMask;
    type AccumOp<'m> = GpuBinaryOp;
}

/// The device strategy of the host's [`MergeStrategy`] (`Auto`: the cost model).
fn strategy(opts: &SpmspvOptions) -> GpuMergeStrategy {
    match opts.strategy {
        MergeStrategy::Scatter => GpuMergeStrategy::Scatter,
        MergeStrategy::MergeSort => GpuMergeStrategy::MergeSort,
        MergeStrategy::RadixSort => GpuMergeStrategy::RadixSort,
        MergeStrategy::Auto => GpuMergeStrategy::Auto,
    }
}

/// The descriptor of a product into a fresh temporary (it has nothing to replace).
fn keep(desc: &Descriptor) -> Descriptor {
    Descriptor { replace: false, ..*desc }
}

/// `w⟨mask, replace⟩ = accum(w, t)`, or `w⟨mask, replace⟩ = t` without an accumulator.
pub(super) fn write_back<T: GpuElement>(
    w: &mut (impl super::DeviceVector<T> + ?Sized),
    mask: Option<&DeviceMask>,
    accum: Option<&GpuBinaryOp>,
    t: &(impl super::DeviceVector<T> + ?Sized),
    desc: &Descriptor,
) -> crate::Result<()> {
    match accum {
        Some(acc) => accumulate_vector(w, mask, acc, t, desc),
        None => apply_vector(w, mask, None, &GpuUnaryOp::new(UnaryForm::Identity)?, t, desc),
    }
}

impl<S: Semiring> MxvOp<S, DeviceMatrix<S::A>, DeviceDenseVector<S::B>> for DeviceDenseVector<S::C>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    fn mxv_op(
        &mut self,
        mask: Option<&DeviceMask>,
        accum: Option<&GpuBinaryOp>,
        s: S,
        a: &DeviceMatrix<S::A>,
        u: &DeviceDenseVector<S::B>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        let Some(acc) = accum else { return ops::mxv(self, mask, s, a, u, desc) };
        let mut t = DeviceDenseVector::new(&a.dev, self.len())?;
        ops::mxv(&mut t, mask, s, a, u, &keep(desc))?;
        accumulate_vector(self, mask, acc, &t, desc)
    }
}

impl<S: Semiring> VxmOp<S, DeviceDenseVector<S::A>, DeviceMatrix<S::B>> for DeviceDenseVector<S::C>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    fn vxm_op(
        &mut self,
        mask: Option<&DeviceMask>,
        accum: Option<&GpuBinaryOp>,
        s: S,
        u: &DeviceDenseVector<S::A>,
        a: &DeviceMatrix<S::B>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        let Some(acc) = accum else { return ops::vxm(self, mask, s, u, a, desc) };
        let mut t = DeviceDenseVector::new(&a.dev, self.len())?;
        ops::vxm(&mut t, mask, s, u, a, &keep(desc))?;
        accumulate_vector(self, mask, acc, &t, desc)
    }
}

/// Whether the device SpMSpV's own write (`w` replaced by the masked
/// product) is the GraphBLAS result: no accumulator, and nothing of `w`
/// that the mask keeps (no mask, replace, or an empty `w`).
fn direct<T: GpuElement>(
    w: &DeviceSparseVector<T>,
    mask: Option<&DeviceMask>,
    accum: Option<&GpuBinaryOp>,
    desc: &Descriptor,
) -> bool {
    accum.is_none() && (mask.is_none() || desc.replace || w.nnz() == 0)
}

impl<S: Semiring> MxvSparseOp<S, DeviceMatrix<S::A>, DeviceSparseVector<S::B>> for DeviceSparseVector<S::C>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    fn mxv_sparse_op(
        &mut self,
        mask: Option<&DeviceMask>,
        accum: Option<&GpuBinaryOp>,
        s: S,
        a: &DeviceMatrix<S::A>,
        u: &DeviceSparseVector<S::B>,
        desc: &Descriptor,
        opts: &SpmspvOptions,
    ) -> crate::Result<()> {
        if direct(self, mask, accum, desc) {
            return ops::mxv_sparse(self, mask, s, a, u, desc, strategy(opts));
        }
        let mut t = DeviceSparseVector::new(&a.dev, self.len())?;
        ops::mxv_sparse(&mut t, mask, s, a, u, &keep(desc), strategy(opts))?;
        write_back(self, mask, accum, &t, desc)
    }
}

impl<S: Semiring> VxmSparseOp<S, DeviceSparseVector<S::A>, DeviceMatrix<S::B>> for DeviceSparseVector<S::C>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    fn vxm_sparse_op(
        &mut self,
        mask: Option<&DeviceMask>,
        accum: Option<&GpuBinaryOp>,
        s: S,
        u: &DeviceSparseVector<S::A>,
        a: &DeviceMatrix<S::B>,
        desc: &Descriptor,
        opts: &SpmspvOptions,
    ) -> crate::Result<()> {
        if direct(self, mask, accum, desc) {
            return ops::vxm_sparse(self, mask, s, u, a, desc, strategy(opts));
        }
        let mut t = DeviceSparseVector::new(&a.dev, self.len())?;
        ops::vxm_sparse(&mut t, mask, s, u, a, &keep(desc), strategy(opts))?;
        write_back(self, mask, accum, &t, desc)
    }
}

/// The element types [`assign_min`](crate::matrix::assign_min) lowers on
/// a device (a relaxation and a gather kernel of the util module each).
trait Relax: GpuElement {
    fn kernels(u: &super::scan::Util) -> (&cudarc::driver::CudaFunction, &cudarc::driver::CudaFunction);
}

impl Relax for f64 {
    fn kernels(u: &super::scan::Util) -> (&cudarc::driver::CudaFunction, &cudarc::driver::CudaFunction) {
        (&u.relax_f64, &u.gather_f64)
    }
}

impl Relax for u64 {
    fn kernels(u: &super::scan::Util) -> (&cudarc::driver::CudaFunction, &cudarc::driver::CudaFunction) {
        (&u.relax_u64, &u.gather_u64)
    }
}

impl<T: Relax> AssignMinOp<DeviceSparseVector<T>> for DeviceDenseVector<T> {
    fn assign_min_op(&mut self, t: &DeviceSparseVector<T>, changed: &mut DeviceSparseVector<T>) -> crate::Result<()> {
        check_dim("assign_min", "t length", self.len(), t.len())?;
        super::ops::same_device(&self.dev, &t.dev)?;
        let n = self.len();
        let iw = t.index_width();
        let dev = &self.dev.dev;
        let s = &dev.stream;
        let util = util_kernels(dev, iw)?;
        let (relax, gather) = T::kernels(&util);
        let mut flags = match self.flags.take() {
            Some(f) if f.width() == iw => f,
            _ => Box::new(Idx::zeros(s, iw, n)?),
        };
        if t.nnz > 0 {
            let c = iw.val(t.nnz);
            let mut lb = s.launch_builder(relax);
            lb.arg(&c).arg(&t.idx).arg(&t.val).arg(&mut self.val).arg(&mut *flags);
            // SAFETY: matches gbu_relax_*(f, idx, val, dist, changed); t's ids
            // are distinct and below n, dist and the flags hold n entries.
            check("launching a relaxation", || unsafe { lb.launch(grid(dev, t.nnz)) })?;
        }
        let (nidx, nf) = flagged_indices(dev, &util, &flags, n)?;
        let mut nval = check("allocating a frontier", || s.alloc_zeros::<T>(nf.max(1)))?;
        if nf > 0 {
            let nf32 = iw.val(nf);
            let mut lb = s.launch_builder(gather);
            lb.arg(&nf32).arg(&nidx).arg(&self.val).arg(&mut nval);
            // SAFETY: matches gbu_gather_*(f, idx, dist, out); out holds nf.
            check("launching a gather", || unsafe { lb.launch(grid(dev, nf)) })?;
        }
        flags.clear(s, "clearing flags")?;
        self.flags = Some(flags);
        *changed = DeviceSparseVector { dev: self.dev.clone(), n, nnz: nf, idx: nidx, val: nval };
        Ok(())
    }
}

impl<T: GpuElement> Located for DeviceMatrix<T> {
    type Dense<U: GpuElement> = DeviceDenseVector<U>;
    type Sparse<U: GpuElement> = DeviceSparseVector<U>;
    type VectorMask<'m> = DeviceMask;
    type MatrixMask<'m> = super::DeviceMatrixMask;
    type Accum<'m, C> = GpuBinaryOp;

    fn nrows(&self) -> usize {
        DeviceMatrix::nrows(self)
    }

    fn ncols(&self) -> usize {
        DeviceMatrix::ncols(self)
    }

    fn dense<U: GpuElement>(&self, values: Vec<U>) -> crate::Result<DeviceDenseVector<U>> {
        // full: the values and a presence byte of 1 each, uploaded as they are
        let s = &self.dev.dev.stream;
        let n = values.len();
        let val = upload(s, "uploading vector values", &values)?;
        let pres = upload(s, "uploading vector presence", &vec![1u8; n])?;
        Ok(DeviceDenseVector { dev: self.dev.clone(), n, val, pres, flags: None })
    }

    fn sparse<U: GpuElement>(&self, n: usize, indices: Vec<usize>, values: Vec<U>) -> crate::Result<DeviceSparseVector<U>> {
        let v = SparseVector::try_new(n, indices, values)?;
        Ok(DeviceSparseVector::upload_with_width(&self.dev, &v, self.index_width())?)
    }

    fn sparse_nnz<U: GpuElement>(v: &DeviceSparseVector<U>) -> usize {
        v.nnz()
    }

    fn dense_to_host<U: GpuElement>(v: &DeviceDenseVector<U>) -> crate::Result<Vec<U>> {
        // the algorithms' dense vectors are full: the values alone
        Ok(download(&v.dev.dev.stream, "downloading vector values", &v.val, v.n)?)
    }
}

