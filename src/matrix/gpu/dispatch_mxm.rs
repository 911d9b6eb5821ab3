//! The device side of [`crate::matrix::op`]'s matrix product
//! ([`mxm`](crate::matrix::op::mxm): the dot-product and hash-Gustavson
//! kernels, masked or not, the product built on the device) and row
//! reduction ([`reduce_rows`](crate::matrix::op::reduce_rows): the pull
//! product over `(⊕, first)`).

use super::element_ops::{GpuBinaryOp, GpuUnaryOp, UnaryForm};
use super::mxm_hash::mxm_device;
use super::objects::{DeviceDenseVector, DeviceMatrix, DeviceMatrixMask};
use super::{accumulate, GpuElement, GpuMxmStrategy};
use crate::matrix::place::{Located, MxvOp};
use crate::matrix::place_mxm::{MxmOp, ReduceRowsOp};
use crate::matrix::{check_dim, Descriptor, MxmMethod};
use crate::semirings::{CudaSemiring, Position, Semiring};

/// The device form of the host's [`MxmMethod`] (`Gustavson`: the hash form).
fn strategy(method: MxmMethod) -> GpuMxmStrategy {
    match method {
        MxmMethod::Auto => GpuMxmStrategy::Auto,
        MxmMethod::Gustavson => GpuMxmStrategy::Hash,
        MxmMethod::Dot => GpuMxmStrategy::Dot,
    }
}

/// `C⟨mask, replace⟩ = accum(C, T)` for a result `T` in the output's
/// shape and orientation (`C = T` without mask and accumulator).
pub(crate) fn write_matrix<T: GpuElement>(
    c: &mut DeviceMatrix<T>,
    mask: Option<&DeviceMatrixMask>,
    accum: Option<&GpuBinaryOp>,
    t: DeviceMatrix<T>,
    desc: &Descriptor,
    operation: &'static str,
) -> crate::Result<()> {
    check_dim(operation, "output rows", t.nrows(), c.nrows())?;
    check_dim(operation, "output columns", t.ncols(), c.ncols())?;
    // the descriptor's transposes applied to the operands, not to T
    let d = Descriptor { replace: desc.replace, ..Descriptor::DEFAULT };
    match (mask, accum) {
        (None, None) => {
            *c = t;
            Ok(())
        }
        (_, Some(acc)) => accumulate(c, mask, acc, &t, &d),
        (_, None) => super::apply(c, mask, None, &GpuUnaryOp::new(UnaryForm::Identity)?, &t, &d),
    }
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
        // unmasked: the hash form under the complement of the empty mask
        let everything;
        let (m, st) = match mask {
            Some(m) => (m, strategy(method)),
            None => {
                let nrows = if desc.transpose_first { a.ncols() } else { a.nrows() };
                let ncols = if desc.transpose_second { b.nrows() } else { b.ncols() };
                everything = DeviceMatrixMask::everything(&a.dev, nrows, ncols, a.index_width())?;
                (&everything, GpuMxmStrategy::Hash)
            }
        };
        let (p, _) = mxm_device(m, s, a, b, desc, st)?;
        let t = p.build.matrix(&a.dev, m.shape(), p.csr, p.nnz)?;
        write_matrix(self, mask, accum, t, desc, "gpu mxm")
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
