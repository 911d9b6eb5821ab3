//! What the CUDA backend can use in this process: NVRTC and the devices.

use pyo3::prelude::*;

/// `(nvrtc loadable, number of CUDA devices, why none when there are none)`.
#[pyfunction]
pub fn cuda_status() -> (bool, usize, Option<String>) {
    let nvrtc = kronograph::cuda::jit::nvrtc_available();
    match kronograph::cuda::device_count() {
        Ok(n) => (nvrtc, n, None),
        Err(e) => (nvrtc, 0, Some(e.to_string())),
    }
}
