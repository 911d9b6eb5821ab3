//! The device implementation of [`reduce_mxm`](crate::matrix::reduce_mxm)
//! and [`mxm_costs`](crate::matrix::mxm_costs): under a plain mask the
//! hashed intersections of `mxm_reduce.rs` (`C` never stored; the dot form
//! hashes `A(i,:)`, the row form `M(i,:)`), under a complemented one the
//! hash product (`mxm_hash.rs`); `Auto` chooses the form by the operation
//! counts measured on the device.

use super::objects::{DeviceMatrix, DeviceMatrixMask};
use super::{mxm_masked_costs, reduce_mxm_masked, GpuElement, GpuMxmStrategy};
use crate::matrix::place_mxm_reduce::MxmReduceOp;
use crate::matrix::{Descriptor, MxmMethod};
use crate::semirings::Semiring;

impl<S: Semiring> MxmReduceOp<S, DeviceMatrix<S::B>> for DeviceMatrix<S::A>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    type MatrixMask<'m> = DeviceMatrixMask;

    fn reduce_mxm_op(
        &self,
        mask: &DeviceMatrixMask,
        s: S,
        b: &DeviceMatrix<S::B>,
        desc: &Descriptor,
        method: MxmMethod,
    ) -> crate::Result<S::C> {
        let strategy = match method {
            MxmMethod::Auto => GpuMxmStrategy::Auto,
            MxmMethod::Dot => GpuMxmStrategy::Dot,
            MxmMethod::Gustavson => GpuMxmStrategy::Hash,
        };
        Ok(reduce_mxm_masked(mask, s, self, b, desc, strategy)?.0)
    }

    fn mxm_costs_op(&self, mask: &DeviceMatrixMask, s: S, b: &DeviceMatrix<S::B>, desc: &Descriptor) -> crate::Result<[u64; 2]> {
        mxm_masked_costs(mask, s, self, b, desc)
    }
}
