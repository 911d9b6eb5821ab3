//! One run of the sieve on a CUDA device (see `kernels/motif.cu`).
//! Without the `cuda` feature, [`sieve`] returns
//! [`Error::CudaNotCompiled`](crate::Error::CudaNotCompiled).

use super::instance::Instance;

#[cfg(not(feature = "cuda"))]
pub(crate) fn sieve(_inst: &Instance, _key: u64, _device: usize) -> crate::Result<Vec<u64>> {
    Err(crate::Error::CudaNotCompiled)
}

#[cfg(feature = "cuda")]
pub(crate) fn sieve(_inst: &Instance, _key: u64, _device: usize) -> crate::Result<Vec<u64>> {
    todo!()
}
