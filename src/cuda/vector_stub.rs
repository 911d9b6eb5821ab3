//! Without the `cuda` feature: [`DeviceVec`] exists with the same API, and
//! every constructor returns [`CudaError::NotCompiled`] (no value of it can
//! be made), so code over device vectors compiles without `cfg`.

use super::{CudaError, GpuDevice};
use crate::solver::{Real, Vector};
use std::convert::Infallible;
use std::marker::PhantomData;

/// A scalar a [`DeviceVec`] holds: `f32` or `f64`.
pub trait DeviceScalar: Real {
    /// The kernels' suffix (`"f32"`, `"f64"`).
    const SUFFIX: &'static str;
}

impl DeviceScalar for f64 {
    const SUFFIX: &'static str = "f64";
}

impl DeviceScalar for f32 {
    const SUFFIX: &'static str = "f32";
}

/// A vector in a CUDA device's memory; without the `cuda` feature none can
/// be made.
#[derive(Debug)]
pub struct DeviceVec<T: DeviceScalar> {
    never: Infallible,
    _t: PhantomData<T>,
}

impl<T: DeviceScalar> DeviceVec<T> {
    /// Without the `cuda` feature: [`CudaError::NotCompiled`].
    ///
    /// # Errors
    /// Always.
    pub fn zeros(_dev: &GpuDevice, _n: usize) -> Result<Self, CudaError> {
        Err(CudaError::NotCompiled)
    }

    /// Without the `cuda` feature: [`CudaError::NotCompiled`].
    ///
    /// # Errors
    /// Always.
    pub fn from_host(_dev: &GpuDevice, _v: &[T]) -> Result<Self, CudaError> {
        Err(CudaError::NotCompiled)
    }

    /// Another vector on the same device (never reached).
    ///
    /// # Errors
    /// Never returns.
    pub fn zeros_like(&self, _n: usize) -> Result<Self, CudaError> {
        match self.never {}
    }

    /// `self ← v` (never reached).
    ///
    /// # Errors
    /// Never returns.
    pub fn upload(&mut self, _v: &[T]) -> Result<(), CudaError> {
        match self.never {}
    }

    /// The entries on the host (never reached).
    ///
    /// # Errors
    /// Never returns.
    pub fn to_host(&self) -> Result<Vec<T>, CudaError> {
        match self.never {}
    }

    /// The kept error (never reached).
    ///
    /// # Errors
    /// Never returns.
    pub fn check(&self) -> Result<(), CudaError> {
        match self.never {}
    }
}

impl<T: DeviceScalar> Vector for DeviceVec<T> {
    type Scalar = T;
    fn len(&self) -> usize {
        match self.never {}
    }
    fn resize(&mut self, _n: usize) {
        match self.never {}
    }
    fn copy_from(&mut self, _src: &Self) {
        match self.never {}
    }
    fn fill(&mut self, _v: T) {
        match self.never {}
    }
    fn axpy(&mut self, _a: f64, _x: &Self) {
        match self.never {}
    }
    fn xpay(&mut self, _x: &Self, _a: f64) {
        match self.never {}
    }
    fn mul_elems(&mut self, _x: &Self, _d: &Self) {
        match self.never {}
    }
    fn invert_elems(&mut self) -> bool {
        match self.never {}
    }
    fn dot(&self, _y: &Self) -> f64 {
        match self.never {}
    }
}
