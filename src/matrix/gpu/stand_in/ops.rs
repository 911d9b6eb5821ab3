//! The stand-ins' side of [`crate::matrix::op`]'s element-wise, product,
//! reduction and index operations (no value exists, so none runs).

use super::{DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector, GpuBinaryOp};
use crate::matrix::place::ProductOutput;
use crate::matrix::place_ewise::{ApplyOp, EwiseAddOp, EwiseMultOp, SelectOp};
use crate::matrix::place_mxm::{AssignOp, AssignVectorOp, ExtractOp, ExtractVectorOp, MxmOp, ReduceOp, ReduceRowsOp};
use crate::matrix::{Descriptor, MxmMethod};
use crate::semirings::Semiring;

impl<T> ProductOutput for DeviceMatrix<T> {
    type Elem = T;
    type Mask<'m> = DeviceMatrixMask;
    type AccumOp<'m> = GpuBinaryOp;
}

/// The element-wise operations into a stand-in output of kind `$w`, any
/// operator and inputs.
macro_rules! stand_in_ewise {
    ($($w:ident),*) => {$(
        impl<Op, T, U, V> EwiseAddOp<Op, U, V> for $w<T> {
            fn ewise_add_op(
                &mut self,
                _: Option<&Self::Mask<'_>>,
                _: Option<&Self::AccumOp<'_>>,
                _: Op,
                _: &U,
                _: &V,
                _: &Descriptor,
            ) -> crate::Result<()> {
                match self.0 {}
            }
        }

        impl<Op, T, U, V> EwiseMultOp<Op, U, V> for $w<T> {
            fn ewise_mult_op(
                &mut self,
                _: Option<&Self::Mask<'_>>,
                _: Option<&Self::AccumOp<'_>>,
                _: Op,
                _: &U,
                _: &V,
                _: &Descriptor,
            ) -> crate::Result<()> {
                match self.0 {}
            }
        }

        impl<F, T, U> ApplyOp<F, U> for $w<T> {
            fn apply_op(
                &mut self,
                _: Option<&Self::Mask<'_>>,
                _: Option<&Self::AccumOp<'_>>,
                _: F,
                _: &U,
                _: &Descriptor,
            ) -> crate::Result<()> {
                match self.0 {}
            }
        }

        impl<P, T, U> SelectOp<P, U> for $w<T> {
            fn select_op(
                &mut self,
                _: Option<&Self::Mask<'_>>,
                _: Option<&Self::AccumOp<'_>>,
                _: P,
                _: &U,
                _: &Descriptor,
            ) -> crate::Result<()> {
                match self.0 {}
            }
        }

        impl<S: Semiring> ReduceOp<S> for $w<S::C> {
            fn reduce_op(&self, _: S) -> crate::Result<S::C> {
                match self.0 {}
            }
        }
    )*};
}

stand_in_ewise!(DeviceDenseVector, DeviceSparseVector, DeviceMatrix);

impl<S: Semiring> MxmOp<S, DeviceMatrix<S::A>, DeviceMatrix<S::B>> for DeviceMatrix<S::C> {
    fn mxm_op(
        &mut self,
        _: Option<&DeviceMatrixMask>,
        _: Option<&GpuBinaryOp>,
        _: S,
        _: &DeviceMatrix<S::A>,
        _: &DeviceMatrix<S::B>,
        _: &Descriptor,
        _: MxmMethod,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<S: Semiring> ReduceRowsOp<S, DeviceMatrix<S::C>> for DeviceDenseVector<S::C> {
    fn reduce_rows_op(
        &mut self,
        _: Option<&DeviceMask>,
        _: Option<&GpuBinaryOp>,
        _: S,
        _: &DeviceMatrix<S::C>,
        _: &Descriptor,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<T> ExtractOp<DeviceMatrix<T>> for DeviceMatrix<T> {
    fn extract_op(
        &mut self,
        _: Option<&DeviceMatrixMask>,
        _: Option<&GpuBinaryOp>,
        _: &DeviceMatrix<T>,
        _: &[usize],
        _: &[usize],
        _: &Descriptor,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<T> AssignOp<DeviceMatrix<T>> for DeviceMatrix<T> {
    fn assign_op(
        &mut self,
        _: Option<&DeviceMatrixMask>,
        _: Option<&GpuBinaryOp>,
        _: &DeviceMatrix<T>,
        _: &[usize],
        _: &[usize],
        _: &Descriptor,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<T> ExtractVectorOp<DeviceDenseVector<T>> for DeviceDenseVector<T> {
    fn extract_vector_op(
        &mut self,
        _: Option<&DeviceMask>,
        _: Option<&GpuBinaryOp>,
        _: &DeviceDenseVector<T>,
        _: &[usize],
        _: &Descriptor,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<T> AssignVectorOp<DeviceDenseVector<T>> for DeviceDenseVector<T> {
    fn assign_vector_op(
        &mut self,
        _: Option<&DeviceMask>,
        _: Option<&GpuBinaryOp>,
        _: &DeviceDenseVector<T>,
        _: &[usize],
        _: &Descriptor,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}
