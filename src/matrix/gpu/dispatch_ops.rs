//! The device side of the one element-wise API: [`crate::matrix::op`]'s
//! [`ewise_add`](crate::matrix::op::ewise_add),
//! [`ewise_mult`](crate::matrix::op::ewise_mult),
//! [`apply`](crate::matrix::op::apply), [`select`](crate::matrix::op::select)
//! and [`reduce`](crate::matrix::op::reduce) on device vectors (dense or
//! sparse) and matrices, by the kernels of `kernels/graphblas_ewise.cu` and
//! `kernels/graphblas.cu` (`gb_reduce`). The operator is a
//! [`GpuBinaryOp`], [`GpuUnaryOp`] or [`GpuSelectOp`] by reference.

use super::element_ops::{GpuBinaryOp, GpuSelectOp, GpuUnaryOp};
use super::index::IndexWidth;
use super::objects::{DeviceDenseVector, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector};
use super::ops_ewise::DeviceVector;
use super::ops_reduce::reduce_raw;
use super::{ops_ewise, ops_ewise_mat, GpuElement};
use crate::cuda::device::check;
use crate::cuda::CudaError;
use crate::matrix::place::ProductOutput;
use crate::matrix::place_ewise::{ApplyOp, EwiseAddOp, EwiseMultOp, SelectOp};
use crate::matrix::place_mxm::ReduceOp;
use crate::matrix::Descriptor;
use crate::semirings::Semiring;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut};
use std::sync::Arc;

impl<T: GpuElement> ProductOutput for DeviceMatrix<T> {
    type Elem = T;
    type Mask<'m> = DeviceMatrixMask;
    type AccumOp<'m> = GpuBinaryOp;
}

/// The element-wise operations into a device vector of kind `$w` (dense or
/// sparse): `ewise_add` and `select` from any device vectors, `ewise_mult`
/// and `apply` from vectors of the output's kind.
macro_rules! vector_ops {
    ($w:ident) => {
        impl<'o, T: GpuElement, U: DeviceVector<T>, V: DeviceVector<T>> EwiseAddOp<&'o GpuBinaryOp, U, V> for $w<T> {
            fn ewise_add_op(
                &mut self,
                mask: Option<&Self::Mask<'_>>,
                accum: Option<&Self::AccumOp<'_>>,
                op: &'o GpuBinaryOp,
                u: &U,
                v: &V,
                desc: &Descriptor,
            ) -> crate::Result<()> {
                ops_ewise::ewise_add_vector(self, mask, accum, op, u, v, desc)
            }
        }

        impl<'o, A: GpuElement, B: GpuElement, C: GpuElement> EwiseMultOp<&'o GpuBinaryOp, $w<A>, $w<B>> for $w<C> {
            fn ewise_mult_op(
                &mut self,
                mask: Option<&Self::Mask<'_>>,
                accum: Option<&Self::AccumOp<'_>>,
                op: &'o GpuBinaryOp,
                u: &$w<A>,
                v: &$w<B>,
                desc: &Descriptor,
            ) -> crate::Result<()> {
                ops_ewise::ewise_mult_vector(self, mask, accum, op, u, v, desc)
            }
        }

        impl<'o, A: GpuElement, C: GpuElement> ApplyOp<&'o GpuUnaryOp, $w<A>> for $w<C> {
            fn apply_op(
                &mut self,
                mask: Option<&Self::Mask<'_>>,
                accum: Option<&Self::AccumOp<'_>>,
                f: &'o GpuUnaryOp,
                u: &$w<A>,
                desc: &Descriptor,
            ) -> crate::Result<()> {
                ops_ewise::apply_vector(self, mask, accum, f, u, desc)
            }
        }

        impl<'o, T: GpuElement, U: DeviceVector<T>> SelectOp<&'o GpuSelectOp, U> for $w<T> {
            fn select_op(
                &mut self,
                mask: Option<&Self::Mask<'_>>,
                accum: Option<&Self::AccumOp<'_>>,
                pred: &'o GpuSelectOp,
                u: &U,
                desc: &Descriptor,
            ) -> crate::Result<()> {
                ops_ewise::select_vector(self, mask, accum, pred, u, desc)
            }
        }
    };
}

vector_ops!(DeviceDenseVector);
vector_ops!(DeviceSparseVector);

impl<'o, T: GpuElement> EwiseAddOp<&'o GpuBinaryOp, DeviceMatrix<T>, DeviceMatrix<T>> for DeviceMatrix<T> {
    fn ewise_add_op(
        &mut self,
        mask: Option<&DeviceMatrixMask>,
        accum: Option<&GpuBinaryOp>,
        op: &'o GpuBinaryOp,
        a: &DeviceMatrix<T>,
        b: &DeviceMatrix<T>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        ops_ewise_mat::ewise_add(self, mask, accum, op, a, b, desc)
    }
}

impl<'o, A: GpuElement, B: GpuElement, C: GpuElement> EwiseMultOp<&'o GpuBinaryOp, DeviceMatrix<A>, DeviceMatrix<B>>
    for DeviceMatrix<C>
{
    fn ewise_mult_op(
        &mut self,
        mask: Option<&DeviceMatrixMask>,
        accum: Option<&GpuBinaryOp>,
        op: &'o GpuBinaryOp,
        a: &DeviceMatrix<A>,
        b: &DeviceMatrix<B>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        ops_ewise_mat::ewise_mult(self, mask, accum, op, a, b, desc)
    }
}

impl<'o, A: GpuElement, C: GpuElement> ApplyOp<&'o GpuUnaryOp, DeviceMatrix<A>> for DeviceMatrix<C> {
    fn apply_op(
        &mut self,
        mask: Option<&DeviceMatrixMask>,
        accum: Option<&GpuBinaryOp>,
        f: &'o GpuUnaryOp,
        a: &DeviceMatrix<A>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        ops_ewise_mat::apply(self, mask, accum, f, a, desc)
    }
}

impl<'o, T: GpuElement> SelectOp<&'o GpuSelectOp, DeviceMatrix<T>> for DeviceMatrix<T> {
    fn select_op(
        &mut self,
        mask: Option<&DeviceMatrixMask>,
        accum: Option<&GpuBinaryOp>,
        pred: &'o GpuSelectOp,
        a: &DeviceMatrix<T>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        ops_ewise_mat::select(self, mask, accum, pred, a, desc)
    }
}

// ------------------------------------------------------------------ reduce

/// `n` presence bytes of 1 (every value of a compressed array is present),
/// set on the device.
fn all_present(stream: &Arc<CudaStream>, n: usize) -> Result<CudaSlice<u8>, CudaError> {
    let mut p = check("allocating presence bytes", || stream.alloc_zeros::<u8>(n.max(1)))?;
    if n > 0 {
        check("setting presence bytes", || {
            stream.context().bind_to_thread()?;
            let (ptr, _sync) = p.device_ptr_mut(stream);
            // SAFETY: `n` bytes of the allocation (of `n` bytes), on its stream
            unsafe { cudarc::driver::result::memset_d8_async(ptr, 1, n, stream.cu_stream()) }
        })?;
    }
    Ok(p)
}

impl<S: Semiring> ReduceOp<S> for DeviceDenseVector<S::C>
where
    S::C: GpuElement,
{
    fn reduce_op(&self, s: S) -> crate::Result<S::C> {
        super::reduce_dense(s, self)
    }
}

impl<S: Semiring> ReduceOp<S> for DeviceSparseVector<S::C>
where
    S::C: GpuElement,
{
    fn reduce_op(&self, s: S) -> crate::Result<S::C> {
        let dev = &self.dev.dev;
        let pres = all_present(&dev.stream, self.nnz)?;
        Ok(reduce_raw(dev, &s, &self.val, &pres, self.nnz, IndexWidth::for_sizes(&[self.nnz]))?)
    }
}

impl<S: Semiring> ReduceOp<S> for DeviceMatrix<S::C>
where
    S::C: GpuElement,
{
    fn reduce_op(&self, s: S) -> crate::Result<S::C> {
        let dev = &self.dev.dev;
        let n = self.nnz();
        let pres = all_present(&dev.stream, n)?;
        Ok(reduce_raw(dev, &s, &self.csr.val, &pres, n, IndexWidth::for_sizes(&[n]))?)
    }
}
