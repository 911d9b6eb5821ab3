//! The device side of [`crate::matrix::op`]'s matrix product
//! ([`mxm`](crate::matrix::op::mxm): the masked dot-product and
//! hash-Gustavson kernels), row reduction
//! ([`reduce_rows`](crate::matrix::op::reduce_rows): the pull product over
//! `(⊕, first)`), and the index operations that have no device kernel yet
//! (typed [`MatrixError::DeviceUnsupported`] errors).

use super::element_ops::{GpuBinaryOp, GpuUnaryOp, UnaryForm};
use super::objects::{DeviceDenseVector, DeviceMatrix, DeviceMatrixMask};
use super::{accumulate, mxm_masked, GpuElement, GpuMxmStrategy};
use crate::matrix::place::{Located, MxvOp};
use crate::matrix::place_mxm::{AssignOp, AssignVectorOp, ExtractOp, ExtractVectorOp, MxmOp, ReduceRowsOp};
use crate::matrix::{Descriptor, MatrixError, MxmMethod};
use crate::semirings::{CudaSemiring, Position, Semiring};

/// The device form of the host's [`MxmMethod`] (`Gustavson`: the hash form).
fn strategy(method: MxmMethod) -> GpuMxmStrategy {
    match method {
        MxmMethod::Auto => GpuMxmStrategy::Auto,
        MxmMethod::Gustavson => GpuMxmStrategy::Hash,
        MxmMethod::Dot => GpuMxmStrategy::Dot,
    }
}

fn unsupported(operation: &'static str) -> crate::Error {
    MatrixError::DeviceUnsupported { operation }.into()
}

impl<S: Semiring> MxmOp<S, DeviceMatrix<S::A>, DeviceMatrix<S::B>> for DeviceMatrix<S::C>
where
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    fn mxm_op(
        &mut self,
        mask: Option<&DeviceMatrixMask>,
        accum: Option<&GpuBinaryOp>,
        s: S,
        a: &DeviceMatrix<S::A>,
        b: &DeviceMatrix<S::B>,
        desc: &Descriptor,
        method: MxmMethod,
    ) -> crate::Result<()> {
        let Some(m) = mask else { return Err(unsupported("mxm without a mask")) };
        let (t, _) = mxm_masked(m, s, a, b, desc, strategy(method))?;
        let t = DeviceMatrix::upload_with_width(&a.dev, &t, self.index_width())?;
        // T is in the output's orientation: write it with the output's mask and replace only
        let d = Descriptor { replace: desc.replace, ..Descriptor::DEFAULT };
        match accum {
            Some(acc) => accumulate(self, mask, acc, &t, &d),
            None => super::apply(self, mask, None, &GpuUnaryOp::new(UnaryForm::Identity)?, &t, &d),
        }
    }
}

/// `(⊕ of S, first)`: `A ⊕.first u` reduces the rows of `A` whatever the
/// (full) `u`.
#[derive(Clone, Copy, Debug)]
struct FirstOf<S>(S);

impl<S: Semiring> Semiring for FirstOf<S> {
    type A = S::C;
    type B = S::C;
    type C = S::C;
    type Add = S::Add;

    fn add_monoid(&self) -> S::Add {
        self.0.add_monoid()
    }

    fn multiply(&self, a: S::C, _: S::C, _: Position) -> S::C {
        a
    }

    fn name(&self) -> String {
        format!("{}_first", self.0.name())
    }

    fn cuda(&self) -> CudaSemiring {
        row_reduce_form(self.0.cuda())
    }
}

/// The device form of `(⊕ of c, first)` over `c`'s output type, the
/// semiring of [`reduce_rows`](crate::matrix::op::reduce_rows) on a device.
pub fn row_reduce_form(mut c: CudaSemiring) -> CudaSemiring {
    c.name = format!("{}_first", c.name);
    c.a_type = c.c_type.clone();
    c.b_type = c.c_type.clone();
    c.multiply = "return a;".into();
    c
}

impl<S: Semiring> ReduceRowsOp<S, DeviceMatrix<S::C>> for DeviceDenseVector<S::C>
where
    S::C: GpuElement,
{
    fn reduce_rows_op(
        &mut self,
        mask: Option<&super::DeviceMask>,
        accum: Option<&GpuBinaryOp>,
        s: S,
        a: &DeviceMatrix<S::C>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        let n = if desc.transpose_first { a.nrows() } else { a.ncols() };
        let u = a.dense(vec![S::C::default(); n])?;
        self.mxv_op(mask, accum, FirstOf(s), a, &u, desc)
    }
}

impl<T: GpuElement> ExtractOp<DeviceMatrix<T>> for DeviceMatrix<T> {
    fn extract_op(
        &mut self,
        _: Option<&DeviceMatrixMask>,
        _: Option<&GpuBinaryOp>,
        _: &DeviceMatrix<T>,
        _: &[usize],
        _: &[usize],
        _: &Descriptor,
    ) -> crate::Result<()> {
        Err(unsupported("extract"))
    }
}

impl<T: GpuElement> AssignOp<DeviceMatrix<T>> for DeviceMatrix<T> {
    fn assign_op(
        &mut self,
        _: Option<&DeviceMatrixMask>,
        _: Option<&GpuBinaryOp>,
        _: &DeviceMatrix<T>,
        _: &[usize],
        _: &[usize],
        _: &Descriptor,
    ) -> crate::Result<()> {
        Err(unsupported("assign"))
    }
}

impl<T: GpuElement> ExtractVectorOp<DeviceDenseVector<T>> for DeviceDenseVector<T> {
    fn extract_vector_op(
        &mut self,
        _: Option<&super::DeviceMask>,
        _: Option<&GpuBinaryOp>,
        _: &DeviceDenseVector<T>,
        _: &[usize],
        _: &Descriptor,
    ) -> crate::Result<()> {
        Err(unsupported("extract_vector"))
    }
}

impl<T: GpuElement> AssignVectorOp<DeviceDenseVector<T>> for DeviceDenseVector<T> {
    fn assign_vector_op(
        &mut self,
        _: Option<&super::DeviceMask>,
        _: Option<&GpuBinaryOp>,
        _: &DeviceDenseVector<T>,
        _: &[usize],
        _: &Descriptor,
    ) -> crate::Result<()> {
        Err(unsupported("assign_vector"))
    }
}
