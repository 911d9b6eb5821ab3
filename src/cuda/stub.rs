//! Stand-ins for the CUDA backend when the `cuda` feature is off: the same
//! names, and every GPU call fails with [`CudaError::NotCompiled`].

use super::label::GpuLabel;
use super::pack::PackedBatch;
use super::{Backend, CudaError, GramOutput, MgkParams};
use crate::basekernel::BaseKernel;
use crate::graph::Graph;
use std::marker::PhantomData;

/// What the driver reports about a device (never produced without `cuda`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Name.
    pub name: String,
    /// Compute capability.
    pub compute_capability: (i32, i32),
    /// Multiprocessors.
    pub multiprocessors: usize,
    /// Shared memory per block, bytes.
    pub max_shared_per_block: usize,
    /// Global memory, bytes.
    pub total_memory: usize,
}

/// Number of CUDA devices.
///
/// # Errors
/// Always [`CudaError::NotCompiled`].
pub fn device_count() -> Result<usize, CudaError> {
    Err(CudaError::NotCompiled)
}

/// Resolves a backend: `Auto` and `Cpu` give the CPU (`None`).
///
/// # Errors
/// [`CudaError::NotCompiled`] for `Cuda(_)`.
pub fn resolve_backend(backend: Backend) -> Result<Option<usize>, CudaError> {
    match backend {
        Backend::Cuda(_) => Err(CudaError::NotCompiled),
        _ => Ok(None),
    }
}

/// Uploaded graphs (never produced without `cuda`).
#[derive(Debug)]
pub struct GpuGraphs(());

/// The GPU marginalized graph kernel (never constructed without `cuda`).
#[derive(Debug)]
pub struct GpuGram<N, E, KN, KE> {
    _p: PhantomData<fn(&N, &E, &KN, &KE)>,
}

impl<N: GpuLabel, E: GpuLabel, KN: BaseKernel<N>, KE: BaseKernel<E>> GpuGram<N, E, KN, KE> {
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn new(_ordinal: usize, _kn: KN, _ke: KE, _params: MgkParams) -> Result<Self, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// The device (never reached without `cuda`).
    pub fn device(&self) -> &DeviceInfo {
        unreachable!("a stand-in GpuGram is never constructed")
    }
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn upload(&self, _graphs: &[Graph<N, E>]) -> Result<GpuGraphs, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn upload_packed(&self, _b: &PackedBatch) -> Result<GpuGraphs, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn gram(&self, _g: &GpuGraphs) -> Result<GramOutput, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn gram_xy(&self, _x: &GpuGraphs, _y: &GpuGraphs) -> Result<GramOutput, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn diag(&self, _g: &GpuGraphs) -> Result<GramOutput, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn gram_with_gradient(&self, _g: &GpuGraphs) -> Result<super::GramGradient, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn gram_xy_with_gradient(&self, _x: &GpuGraphs, _y: &GpuGraphs) -> Result<super::GramGradient, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn diag_with_gradient(&self, _g: &GpuGraphs) -> Result<super::GramGradient, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// Does nothing without `cuda`.
    pub fn set_large_pair_path(&mut self, _force: bool) {}
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn nodal(&self, _g: &Graph<N, E>, _h: &Graph<N, E>) -> Result<super::NodalOutput, CudaError> {
        Err(CudaError::NotCompiled)
    }
    /// # Errors
    /// Always [`CudaError::NotCompiled`].
    pub fn nodal_all(&self, _graphs: &[Graph<N, E>]) -> Result<Vec<super::NodalOutput>, CudaError> {
        Err(CudaError::NotCompiled)
    }
}
