//! What the CUDA backend can use in this process: NVRTC and the devices.

use kronograph::cuda::{resolve_backend, Backend, CudaError};
use pyo3::prelude::*;

/// `(nvrtc loadable, number of CUDA devices, why none when there are none)`.
///
/// With no device the third value always says why: no CUDA driver (libcuda)
/// found, the driver reporting no GPU, a driver that fails to initialize, or
/// a library built without CUDA.
#[pyfunction]
pub fn cuda_status() -> (bool, usize, Option<String>) {
    let nvrtc = kronograph::cuda::jit::nvrtc_available();
    match kronograph::cuda::device_count() {
        Ok(0) => (nvrtc, 0, Some(why_no_device())),
        Ok(n) => (nvrtc, n, None),
        Err(e) => (nvrtc, 0, Some(e.to_string())),
    }
}

/// The reason the driver gives no device: opening device 0 fails, and its
/// error tells a missing driver from a driver without GPUs.
fn why_no_device() -> String {
    match resolve_backend(Backend::Cuda(0)) {
        Err(CudaError::LibraryNotFound { detail, .. }) => {
            format!("no CUDA driver (libcuda) found: {detail}; the GPU backend needs the NVIDIA driver")
        }
        Err(CudaError::NoDevice { .. }) => {
            "the CUDA driver reports no GPU (check CUDA_VISIBLE_DEVICES and nvidia-smi)".into()
        }
        Err(e) => e.to_string(),
        Ok(_) => "the CUDA driver reported no device, yet device 0 opened".into(),
    }
}
