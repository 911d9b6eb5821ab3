//! The graph algorithms on a [`Backend`]: one call per algorithm that
//! runs it where the caller asks.
//!
//! [`Backend::Cpu`] runs the CPU algorithms; [`Backend::Cuda`] uploads the
//! matrix to that device and runs the GPU algorithms of
//! [`gpu`](super::gpu) (a typed CUDA error when the device cannot be used);
//! [`Backend::Auto`] takes device 0 when one can be used, else the CPU
//! ([`resolve_backend`], the rule of every backend choice). The results are
//! the CPU algorithms' types and agree with them: equal BFS levels, SSSP
//! distances (up to the order of additions along equal paths), triangle
//! counts and component labels. The GPU BFS is the fused one
//! ([`GpuBfs`](super::gpu::GpuBfs)); the GPU SSSP follows
//! [`SsspOptions`]: near-far delta-stepping ([`GpuSssp`](super::gpu::GpuSssp),
//! with the given `Δ`) or the frontier form of Bellman–Ford. To run several
//! algorithms on one uploaded matrix, use the `_device` functions of
//! [`gpu`](super::gpu).
//!
//! ```
//! use kronograph::algorithms::{bfs_on, BfsOptions};
//! use kronograph::graph::generate::{rmat, RmatParams};
//! use kronograph::matrix::SparseMatrix;
//! use kronograph::Backend;
//! use rand::SeedableRng;
//! let g = rmat(&RmatParams::graph500(8), &mut rand_chacha::ChaCha8Rng::seed_from_u64(1)).unwrap();
//! let a = SparseMatrix::from_graph(&g);
//! let r = bfs_on(&a, 0, &BfsOptions::default(), Backend::Cpu).unwrap();
//! assert!(r.reached >= 1);
//! ```

use super::{
    bfs_matrix, connected_components_matrix, sssp_matrix, triangle_count_matrix, BfsOptions, BfsResult, Components,
    SsspOptions, SsspResult,
};
use crate::backend::{resolve_backend, Backend};
use crate::matrix::SparseMatrix;

/// [`bfs_matrix`] on `backend`.
///
/// # Errors
/// Those of [`bfs_matrix`]; CUDA errors on a device.
pub fn bfs_on(a: &SparseMatrix<f64>, source: usize, opts: &BfsOptions, backend: Backend) -> crate::Result<BfsResult> {
    match resolve_backend(backend)? {
        None => Ok(bfs_matrix(a, source, opts)?),
        Some(device) => device_bfs(a, source, opts, device),
    }
}

/// [`sssp_matrix`] on `backend`.
///
/// # Errors
/// Those of [`sssp_matrix`]; CUDA errors on a device.
pub fn sssp_on(
    a: &SparseMatrix<f64>,
    source: usize,
    opts: &SsspOptions,
    backend: Backend,
) -> crate::Result<SsspResult> {
    match resolve_backend(backend)? {
        None => Ok(sssp_matrix(a, source, opts)?),
        Some(device) => device_sssp(a, source, opts, device),
    }
}

/// [`triangle_count_matrix`] on `backend` (`a` symmetric, the adjacency of
/// an undirected graph).
///
/// # Errors
/// Those of [`triangle_count_matrix`]; CUDA errors on a device.
pub fn triangles_on(a: &SparseMatrix<f64>, backend: Backend) -> crate::Result<u64> {
    match resolve_backend(backend)? {
        None => Ok(triangle_count_matrix(a)?),
        Some(device) => device_triangles(a, device),
    }
}

/// [`connected_components_matrix`] on `backend` (`a` symmetric).
///
/// # Errors
/// Those of [`connected_components_matrix`]; CUDA errors on a device.
pub fn components_on(a: &SparseMatrix<f64>, backend: Backend) -> crate::Result<Components> {
    match resolve_backend(backend)? {
        None => Ok(connected_components_matrix(a)?),
        Some(device) => device_components(a, device),
    }
}

#[cfg(feature = "cuda")]
fn device_bfs(a: &SparseMatrix<f64>, source: usize, opts: &BfsOptions, device: usize) -> crate::Result<BfsResult> {
    let dev = crate::cuda::GpuDevice::open(device)?;
    let d = crate::matrix::gpu::DeviceMatrix::upload(&dev, a)?;
    Ok(super::gpu::GpuBfs::new(&d)?.run(source, opts.direction)?.0)
}

#[cfg(feature = "cuda")]
fn device_sssp(a: &SparseMatrix<f64>, source: usize, opts: &SsspOptions, device: usize) -> crate::Result<SsspResult> {
    let dev = crate::cuda::GpuDevice::open(device)?;
    let d = crate::matrix::gpu::DeviceMatrix::upload(&dev, a)?;
    match opts.method {
        super::SsspMethod::DeltaStepping => Ok(super::gpu::GpuSssp::new(&d, opts.delta)?.run(source)?.0),
        super::SsspMethod::BellmanFord => {
            super::gpu::sssp_device(&d, source, crate::matrix::gpu::GpuMergeStrategy::Auto)
        }
    }
}

#[cfg(feature = "cuda")]
fn device_triangles(a: &SparseMatrix<f64>, device: usize) -> crate::Result<u64> {
    use crate::matrix::gpu::{DeviceMatrix, DeviceMatrixMask};
    if a.nrows() != a.ncols() {
        let (rows, cols) = (a.nrows(), a.ncols());
        return Err(super::AlgorithmError::NotSquare { what: "triangle counting", rows, cols }.into());
    }
    let dev = crate::cuda::GpuDevice::open(device)?;
    let l = super::triangles::lower_by_degree(a);
    let dl = DeviceMatrix::upload(&dev, &l)?;
    let mask = DeviceMatrixMask::upload(&dev, &crate::matrix::MatrixMask::structural(&l))?;
    super::gpu::triangles_lower(&dl, &mask)
}

#[cfg(feature = "cuda")]
fn device_components(a: &SparseMatrix<f64>, device: usize) -> crate::Result<Components> {
    let dev = crate::cuda::GpuDevice::open(device)?;
    let d = crate::matrix::gpu::DeviceMatrix::upload(&dev, &a.map(|_| 0u64))?;
    super::gpu::components_device(&d, crate::matrix::gpu::GpuMergeStrategy::Auto)
}

// Without the `cuda` feature `resolve_backend` never names a device.
#[cfg(not(feature = "cuda"))]
fn device_bfs(_: &SparseMatrix<f64>, _: usize, _: &BfsOptions, _: usize) -> crate::Result<BfsResult> {
    Err(crate::Error::CudaNotCompiled)
}
#[cfg(not(feature = "cuda"))]
fn device_sssp(_: &SparseMatrix<f64>, _: usize, _: &SsspOptions, _: usize) -> crate::Result<SsspResult> {
    Err(crate::Error::CudaNotCompiled)
}
#[cfg(not(feature = "cuda"))]
fn device_triangles(_: &SparseMatrix<f64>, _: usize) -> crate::Result<u64> {
    Err(crate::Error::CudaNotCompiled)
}
#[cfg(not(feature = "cuda"))]
fn device_components(_: &SparseMatrix<f64>, _: usize) -> crate::Result<Components> {
    Err(crate::Error::CudaNotCompiled)
}
