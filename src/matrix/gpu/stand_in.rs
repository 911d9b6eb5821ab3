//! The device GraphBLAS objects in the build without the `cuda` feature:
//! uninhabited stand-ins with the same names and the operation traits of
//! [`crate::matrix`], so that code written once over the place of its
//! operands (the graph algorithms) compiles unchanged. No value of these
//! types exists: making one ([`DeviceMatrix::upload`], …) returns
//! [`CudaError::NotCompiled`].

use crate::cuda::{CudaError, GpuDevice};
use crate::matrix::place::{AssignMinOp, Located, MxvOp, MxvSparseOp, ProductOutput, VxmOp, VxmSparseOp};
use crate::matrix::{Descriptor, Element, SparseMatrix, SpmspvOptions};
use crate::semirings::Semiring;
use std::convert::Infallible;
use std::marker::PhantomData;

mod ops;

/// A matrix or vector entry type the GPU would hold.
pub trait GpuElement: Element {}
impl<T: Element> GpuElement for T {}

/// No device matrix exists without the `cuda` feature.
pub struct DeviceMatrix<T>(Infallible, PhantomData<T>);
/// No device dense vector exists without the `cuda` feature.
pub struct DeviceDenseVector<T>(Infallible, PhantomData<T>);
/// No device sparse vector exists without the `cuda` feature.
pub struct DeviceSparseVector<T>(Infallible, PhantomData<T>);
/// No device mask exists without the `cuda` feature.
pub struct DeviceMask(Infallible);
/// No device matrix mask exists without the `cuda` feature.
pub struct DeviceMatrixMask(Infallible);
/// No device near-far state exists without the `cuda` feature.
pub struct DeviceRelaxed(Infallible);
/// No device visit state exists without the `cuda` feature.
pub struct DeviceVisited(Infallible);
/// No device operator exists without the `cuda` feature.
pub struct GpuBinaryOp(Infallible);

impl DeviceMatrixMask {
    /// Always [`CudaError::NotCompiled`].
    ///
    /// # Errors
    /// Always.
    pub fn upload(_dev: &GpuDevice, _m: &crate::matrix::MatrixMask<'_>) -> Result<Self, CudaError> {
        Err(CudaError::NotCompiled)
    }

    /// Always [`CudaError::NotCompiled`].
    ///
    /// # Errors
    /// Always.
    pub fn upload_with_width(
        _dev: &GpuDevice,
        _m: &crate::matrix::MatrixMask<'_>,
        _w: super::IndexWidth,
    ) -> Result<Self, CudaError> {
        Err(CudaError::NotCompiled)
    }
}

impl<T: Element> DeviceMatrix<T> {
    /// Always [`CudaError::NotCompiled`].
    ///
    /// # Errors
    /// Always.
    pub fn upload(_dev: &GpuDevice, _a: &SparseMatrix<T>) -> Result<Self, CudaError> {
        Err(CudaError::NotCompiled)
    }

    /// Always [`CudaError::NotCompiled`].
    ///
    /// # Errors
    /// Always.
    pub fn upload_with_width(_dev: &GpuDevice, _a: &SparseMatrix<T>, _w: super::IndexWidth) -> Result<Self, CudaError> {
        Err(CudaError::NotCompiled)
    }

    /// Rows (no value exists).
    pub fn nrows(&self) -> usize {
        match self.0 {}
    }

    /// Columns (no value exists).
    pub fn ncols(&self) -> usize {
        match self.0 {}
    }
}

impl<T> ProductOutput for DeviceDenseVector<T> {
    type Elem = T;
    type Mask<'m> = DeviceMask;
    type AccumOp<'m> = GpuBinaryOp;
}

impl<T> ProductOutput for DeviceSparseVector<T> {
    type Elem = T;
    type Mask<'m> = DeviceMask;
    type AccumOp<'m> = GpuBinaryOp;
}

impl<S: Semiring> MxvOp<S, DeviceMatrix<S::A>, DeviceDenseVector<S::B>> for DeviceDenseVector<S::C> {
    fn mxv_op(
        &mut self,
        _: Option<&DeviceMask>,
        _: Option<&GpuBinaryOp>,
        _: S,
        _: &DeviceMatrix<S::A>,
        _: &DeviceDenseVector<S::B>,
        _: &Descriptor,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<S: Semiring> VxmOp<S, DeviceDenseVector<S::A>, DeviceMatrix<S::B>> for DeviceDenseVector<S::C> {
    fn vxm_op(
        &mut self,
        _: Option<&DeviceMask>,
        _: Option<&GpuBinaryOp>,
        _: S,
        _: &DeviceDenseVector<S::A>,
        _: &DeviceMatrix<S::B>,
        _: &Descriptor,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<S: Semiring> MxvSparseOp<S, DeviceMatrix<S::A>, DeviceSparseVector<S::B>> for DeviceSparseVector<S::C> {
    fn mxv_sparse_op(
        &mut self,
        _: Option<&DeviceMask>,
        _: Option<&GpuBinaryOp>,
        _: S,
        _: &DeviceMatrix<S::A>,
        _: &DeviceSparseVector<S::B>,
        _: &Descriptor,
        _: &SpmspvOptions,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<S: Semiring> VxmSparseOp<S, DeviceSparseVector<S::A>, DeviceMatrix<S::B>> for DeviceSparseVector<S::C> {
    fn vxm_sparse_op(
        &mut self,
        _: Option<&DeviceMask>,
        _: Option<&GpuBinaryOp>,
        _: S,
        _: &DeviceSparseVector<S::A>,
        _: &DeviceMatrix<S::B>,
        _: &Descriptor,
        _: &SpmspvOptions,
    ) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<T> AssignMinOp<DeviceSparseVector<T>> for DeviceDenseVector<T> {
    fn assign_min_op(&mut self, _: &DeviceSparseVector<T>, _: &mut DeviceSparseVector<T>) -> crate::Result<()> {
        match self.0 {}
    }
}

impl<T: Element> Located for DeviceMatrix<T> {
    type Dense<U: GpuElement> = DeviceDenseVector<U>;
    type Sparse<U: GpuElement> = DeviceSparseVector<U>;
    type VectorMask<'m> = DeviceMask;
    type MatrixMask<'m> = DeviceMatrixMask;
    type Accum<'m, C> = GpuBinaryOp;

    fn nrows(&self) -> usize {
        match self.0 {}
    }

    fn ncols(&self) -> usize {
        match self.0 {}
    }

    fn dense<U: GpuElement>(&self, _: Vec<U>) -> crate::Result<DeviceDenseVector<U>> {
        match self.0 {}
    }

    fn sparse<U: GpuElement>(&self, _: usize, _: Vec<usize>, _: Vec<U>) -> crate::Result<DeviceSparseVector<U>> {
        match self.0 {}
    }

    fn sparse_nnz<U: GpuElement>(v: &DeviceSparseVector<U>) -> usize {
        match v.0 {}
    }

    fn dense_to_host<U: GpuElement>(v: &DeviceDenseVector<U>) -> crate::Result<Vec<U>> {
        match v.0 {}
    }
}

impl<T: Element> crate::matrix::VisitOp for DeviceMatrix<T> {
    type Visited = DeviceVisited;

    fn stored(&self) -> usize {
        match self.0 {}
    }

    fn visited(&self) -> crate::Result<DeviceVisited> {
        match self.0 {}
    }

    fn visit_source(&self, _: &mut DeviceVisited, _: usize) -> crate::Result<crate::matrix::Reached> {
        match self.0 {}
    }

    fn vxm_visit_op(
        &self,
        _: &mut DeviceVisited,
        _: usize,
        _: &SpmspvOptions,
    ) -> crate::Result<crate::matrix::Reached> {
        match self.0 {}
    }

    fn visited_to_host(v: &DeviceVisited) -> crate::Result<(Vec<i64>, Vec<i64>)> {
        match v.0 {}
    }
}

impl<S: Semiring> crate::matrix::MxmReduceOp<S, DeviceMatrix<S::B>> for DeviceMatrix<S::A> {
    type MatrixMask<'m> = DeviceMatrixMask;

    fn reduce_mxm_op(
        &self,
        _: &DeviceMatrixMask,
        _: S,
        _: &DeviceMatrix<S::B>,
        _: &Descriptor,
        _: crate::matrix::MxmMethod,
    ) -> crate::Result<S::C> {
        match self.0 {}
    }

    fn mxm_costs_op(
        &self,
        _: &DeviceMatrixMask,
        _: S,
        _: &DeviceMatrix<S::B>,
        _: &Descriptor,
    ) -> crate::Result<[u64; 2]> {
        match self.0 {}
    }
}

impl crate::matrix::RelaxOp for DeviceMatrix<f64> {
    type Relaxed = DeviceRelaxed;

    fn weights(&self) -> crate::Result<crate::matrix::WeightStats> {
        match self.0 {}
    }

    fn relaxed(&self) -> crate::Result<DeviceRelaxed> {
        match self.0 {}
    }

    fn relax_source(&self, _: &mut DeviceRelaxed, _: usize) -> crate::Result<()> {
        match self.0 {}
    }

    fn relax_near_op(&self, _: &mut DeviceRelaxed, _: f64) -> crate::Result<crate::matrix::Queues> {
        match self.0 {}
    }

    fn split_far_op(&self, _: &mut DeviceRelaxed, _: f64, _: f64) -> crate::Result<crate::matrix::Queues> {
        match self.0 {}
    }

    fn distances_to_host(r: &DeviceRelaxed) -> crate::Result<Vec<f64>> {
        match r.0 {}
    }
}
