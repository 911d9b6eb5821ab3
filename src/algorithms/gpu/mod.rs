//! The graph algorithms on a GPU from a CPU graph: [`bfs()`] (levels and
//! parents, push, pull, Beamer's direction switch), [`sssp()`],
//! [`triangles()`] and [`components()`]. Each takes the CPU graph and a
//! [`GpuDevice`] and uploads it per call (to run on matrices uploaded once,
//! call the algorithms of [`super`] on a
//! [`DeviceMatrix`](crate::matrix::gpu::DeviceMatrix)). Outputs are the CPU
//! algorithms' types.
//!
//! Each is the one source of [`super`] on a
//! [`DeviceMatrix`](crate::matrix::gpu::DeviceMatrix): BFS's level step
//! [`vxm_visit`](crate::matrix::vxm_visit) runs the fused level kernels
//! there, delta-stepping's [`relax_near`](crate::matrix::relax_near) and
//! [`split_far`](crate::matrix::split_far) the near-far kernels, triangle
//! counting's [`reduce_mxm`](crate::matrix::reduce_mxm) the masked
//! product's dot or hash kernel.
//!
//! Without the `cuda` feature every function returns
//! [`Error::CudaNotCompiled`](crate::Error::CudaNotCompiled).

use super::bfs::{BfsDirection, BfsResult};
use super::components::Components;
use super::sssp::SsspResult;
use crate::cuda::GpuDevice;
use crate::graph::{Graph, Label};

pub use crate::matrix::gpu::frontier::{frontier_source, FRONTIER_KERNELS, FRONTIER_MODULE, FRONTIER_SOURCE};

/// Options of the GPU [`bfs()`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuBfsOptions {
    /// Direction policy (as the CPU's; `Auto` is Beamer's switch on the
    /// frontier's out-arcs against the unexplored arcs).
    pub direction: BfsDirection,
}

impl Default for GpuBfsOptions {
    fn default() -> Self {
        GpuBfsOptions { direction: BfsDirection::Auto { alpha: 14.0, beta: 24.0 } }
    }
}

/// BFS from `source` on device `dev` (the graph's adjacency uploaded
/// first): the one [`bfs_in`](super::bfs_in) on the device matrix, whose
/// level step runs the fused level kernels, direction-optimizing by
/// `opts.direction`: levels equal the CPU's; each parent is a frontier
/// neighbour one level up.
///
/// # Errors
/// [`AlgorithmError::SourceOutOfRange`](super::AlgorithmError), CUDA errors,
/// [`Error::CudaNotCompiled`](crate::Error::CudaNotCompiled) without the feature.
pub fn bfs<N: Label, E: Label>(
    g: &Graph<N, E>,
    source: usize,
    opts: &GpuBfsOptions,
    dev: &GpuDevice,
) -> crate::Result<BfsResult> {
    let d = crate::matrix::gpu::DeviceMatrix::upload(dev, &crate::matrix::SparseMatrix::from_graph(g))?;
    super::bfs_in(&d, source, &super::BfsOptions { direction: opts.direction, ..super::BfsOptions::default() })
}

/// Single-source shortest paths on device `dev` along arcs `u → v` of
/// weight `w_uv` (finite, `>= 0`): the one near-far
/// [`DeltaStepping`](super::DeltaStepping) on the uploaded weights (the
/// device's automatic `Δ`, 4× the CPU's rule; the frontier Bellman–Ford over `(min, +)` is
/// [`bellman_ford_in`](super::bellman_ford_in) on a device matrix).
/// Distances equal the CPU's [`sssp`](super::sssp()) up to the order of the
/// additions along equal-length paths.
///
/// # Errors
/// As [`bfs()`].
pub fn sssp<N: Label, E: Label>(g: &Graph<N, E>, source: usize, dev: &GpuDevice) -> crate::Result<SsspResult> {
    let d = crate::matrix::gpu::DeviceMatrix::upload(dev, &crate::matrix::SparseMatrix::from_graph(g))?;
    super::DeltaStepping::new(&d, None)?.run(&d, source)
}

/// Number of triangles of an undirected graph on device `dev`: `L` (the
/// lower triangle after relabelling by decreasing degree, built on the
/// CPU) and its mask uploaded, then the one
/// [`triangles_in`](super::triangles_in) on them (the masked product's
/// form chosen by its operation counts on the device), as the CPU's
/// [`triangle_count`](super::triangle_count).
///
/// # Errors
/// [`GraphError::DirectedNotSupported`](crate::graph::GraphError) for a
/// directed graph; as [`bfs()`].
pub fn triangles<N: Label, E: Label>(g: &Graph<N, E>, dev: &GpuDevice) -> crate::Result<u64> {
    use crate::matrix::gpu::{DeviceMatrix, DeviceMatrixMask};
    g.require_undirected("triangle counting").map_err(super::AlgorithmError::from)?;
    let l = super::triangles::lower_by_degree(&crate::matrix::SparseMatrix::from_graph(g));
    let dl = DeviceMatrix::upload(dev, &l)?;
    let mask = DeviceMatrixMask::upload(dev, &crate::matrix::MatrixMask::structural(&l))?;
    super::triangles_in(&dl, &mask, super::TriangleForm::Auto)
}

/// Connected components of an undirected graph on device `dev`, by
/// min-label propagation over `(min, +)`: the one
/// [`components_in`](super::components_in) on the uploaded pattern, so the
/// same labels as the CPU's (the smallest node id of each component).
///
/// # Errors
/// As [`triangles()`].
pub fn components<N: Label, E: Label>(g: &Graph<N, E>, dev: &GpuDevice) -> crate::Result<Components> {
    g.require_undirected("connected components").map_err(super::AlgorithmError::from)?;
    let a = crate::matrix::SparseMatrix::from_graph(g).map(|_| 0u64);
    super::components_in(&crate::matrix::gpu::DeviceMatrix::upload(dev, &a)?)
}
