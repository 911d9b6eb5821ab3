//! [`GpuDevice`]: a public handle on one CUDA device, for the GPU GraphBLAS
//! ([`crate::matrix::gpu`]) and the GPU graph algorithms
//! ([`crate::algorithms::gpu`]).

use super::{CudaError, DeviceInfo};

/// An opened CUDA device (its context and stream, shared by every handle of
/// the same ordinal in the process). Cheap to clone.
///
/// Without the `cuda` feature, [`GpuDevice::open`] returns
/// [`CudaError::NotCompiled`].
#[derive(Clone)]
pub struct GpuDevice {
    #[cfg(feature = "cuda")]
    pub(crate) dev: std::sync::Arc<super::device::Device>,
    info: DeviceInfo,
}

impl std::fmt::Debug for GpuDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuDevice").field("info", &self.info).finish()
    }
}

impl GpuDevice {
    /// Opens CUDA device `ordinal`.
    ///
    /// # Errors
    /// [`CudaError::LibraryNotFound`] without a driver, [`CudaError::NoDevice`]
    /// for an ordinal not present, [`CudaError::NotCompiled`] without the
    /// `cuda` feature.
    #[cfg(feature = "cuda")]
    pub fn open(ordinal: usize) -> Result<Self, CudaError> {
        let dev = super::device::device(ordinal)?;
        let info = dev.info().clone();
        Ok(GpuDevice { dev, info })
    }

    /// Without the `cuda` feature: always [`CudaError::NotCompiled`].
    ///
    /// # Errors
    /// [`CudaError::NotCompiled`].
    #[cfg(not(feature = "cuda"))]
    pub fn open(_ordinal: usize) -> Result<Self, CudaError> {
        Err(CudaError::NotCompiled)
    }

    /// What the driver reports about the device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Waits until every operation queued on the device's stream is done.
    ///
    /// # Errors
    /// A driver error.
    #[cfg(feature = "cuda")]
    pub fn synchronize(&self) -> Result<(), CudaError> {
        super::device::check("synchronizing", || self.dev.stream.synchronize())
    }
}
