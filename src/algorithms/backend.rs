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
//! counts and component labels. The BFS is the one [`bfs_in`](super::bfs_in)
//! on either place (on a device its level step runs the fused level
//! kernels); SSSP follows [`SsspOptions`]: the one near-far
//! [`DeltaStepping`](super::DeltaStepping) (with the given `Δ`) or the
//! frontier form of Bellman–Ford. To run several algorithms on one uploaded
//! matrix, call the algorithms' `_in` forms on a
//! [`DeviceMatrix`](crate::matrix::gpu::DeviceMatrix); to run one algorithm
//! from many sources with one upload and one JIT, [`PreparedBfs`] and
//! [`PreparedSssp`].
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

use super::prepared::{PreparedBfs, PreparedSssp, PreparedTriangles};
use super::{connected_components_matrix, BfsOptions, BfsResult, Components, SsspOptions, SsspResult};
use crate::backend::{resolve_backend, Backend};
use crate::matrix::SparseMatrix;

/// [`bfs_matrix`](super::bfs_matrix) on `backend`.
///
/// # Errors
/// Those of [`bfs_matrix`](super::bfs_matrix); CUDA errors on a device.
pub fn bfs_on(a: &SparseMatrix<f64>, source: usize, opts: &BfsOptions, backend: Backend) -> crate::Result<BfsResult> {
    Ok(PreparedBfs::new(a, opts, backend)?.run(source)?.0)
}

/// [`sssp_matrix`](super::sssp_matrix) on `backend`.
///
/// # Errors
/// Those of [`sssp_matrix`](super::sssp_matrix); CUDA errors on a device.
pub fn sssp_on(
    a: &SparseMatrix<f64>,
    source: usize,
    opts: &SsspOptions,
    backend: Backend,
) -> crate::Result<SsspResult> {
    Ok(PreparedSssp::new(a, opts, backend)?.run(source)?.0)
}

/// [`triangle_count_matrix`](super::triangle_count_matrix) on `backend` (`a` symmetric, the adjacency of
/// an undirected graph).
///
/// # Errors
/// Those of [`triangle_count_matrix`](super::triangle_count_matrix); CUDA errors on a device.
pub fn triangles_on(a: &SparseMatrix<f64>, backend: Backend) -> crate::Result<u64> {
    Ok(PreparedTriangles::new(a, backend)?.run()?.0)
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

/// The one [`components_in`](super::components_in) on the pattern uploaded to `device`.
fn device_components(a: &SparseMatrix<f64>, device: usize) -> crate::Result<Components> {
    let dev = crate::cuda::GpuDevice::open(device)?;
    super::components_in(&crate::matrix::gpu::DeviceMatrix::upload(&dev, &a.map(|_| 0u64))?)
}
