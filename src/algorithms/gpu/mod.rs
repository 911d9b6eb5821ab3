//! The graph algorithms on the GPU, over the device GraphBLAS of
//! [`crate::matrix::gpu`]: [`bfs()`] (levels and parents; push SpMSpV with
//! any of the three merge strategies, pull, Beamer's direction switch),
//! [`sssp()`], [`triangles()`] and [`components()`]. Each takes the CPU graph
//! and a [`GpuDevice`] (the graph is uploaded per call); the `_device`
//! variants take matrices uploaded once. Outputs are the CPU algorithms'
//! types.
//!
//! The fast paths, with workspaces allocated once per uploaded matrix:
//! [`GpuBfs`] (fused level kernels, direction-optimizing; what the
//! [`bfs_on`](super::bfs_on) backend runs) and [`GpuSssp`] (near-far
//! delta-stepping; what [`sssp_on`](super::sssp_on) runs by default).
//!
//! Without the `cuda` feature every function returns
//! [`Error::CudaNotCompiled`](crate::Error::CudaNotCompiled).

use super::bfs::{BfsDirection, BfsResult};
use super::components::Components;
use super::sssp::SsspResult;
use crate::cuda::GpuDevice;
use crate::graph::{Graph, Label};

#[cfg(feature = "cuda")]
mod fused_bfs;
#[cfg(feature = "cuda")]
mod imp;
#[cfg(feature = "cuda")]
use super::AlgorithmError;
#[cfg(feature = "cuda")]
mod delta_sssp;
#[cfg(feature = "cuda")]
pub use delta_sssp::GpuSssp;
#[cfg(feature = "cuda")]
pub use fused_bfs::GpuBfs;
#[cfg(feature = "cuda")]
pub use imp::{bfs_device, triangles_lower, triangles_lower_with};

/// A device matrix an algorithm workspace borrows or owns.
#[cfg(feature = "cuda")]
enum Held<'a, T: crate::matrix::gpu::GpuElement> {
    Borrowed(&'a crate::matrix::gpu::DeviceMatrix<T>),
    Owned(Box<crate::matrix::gpu::DeviceMatrix<T>>),
}

#[cfg(feature = "cuda")]
impl<T: crate::matrix::gpu::GpuElement> std::ops::Deref for Held<'_, T> {
    type Target = crate::matrix::gpu::DeviceMatrix<T>;
    fn deref(&self) -> &Self::Target {
        match self {
            Held::Borrowed(a) => a,
            Held::Owned(a) => a,
        }
    }
}

/// The grid of the kernels that spread the arcs of the high-degree nodes
/// over the whole device (`kgb_push_big`, `kgs_relax_big`): 8 blocks per
/// multiprocessor.
#[cfg(feature = "cuda")]
fn spread_grid(dev: &crate::cuda::device::Device) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: ((dev.info.multiprocessors * 8) as u32, 1, 1),
        block_dim: (crate::matrix::gpu::scan::BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The CUDA source of the frontier kernels: the fused BFS ([`GpuBfs`]) and
/// near-far delta-stepping ([`GpuSssp`]), with the `cuda` feature; before
/// its index preface ([`frontier_source`]).
pub const FRONTIER_SOURCE: &str = include_str!("../../../kernels/graphblas_frontier.cu");

/// The module name of [`FRONTIER_SOURCE`] (followed by `_u32` or `_u64`).
pub const FRONTIER_MODULE: &str = "graphblas_frontier";

/// The complete source of the frontier module for node ids and arc
/// positions of width `w` (that of the device matrix).
pub fn frontier_source(w: crate::matrix::gpu::IndexWidth) -> String {
    format!("{}{FRONTIER_SOURCE}", w.preface())
}

/// The frontier kernels ([`FRONTIER_KERNELS`] order) of width `w` on `dev`.
#[cfg(feature = "cuda")]
fn frontier_kernels(
    dev: &crate::cuda::device::Device,
    w: crate::matrix::gpu::IndexWidth,
) -> Result<Vec<cudarc::driver::CudaFunction>, crate::cuda::CudaError> {
    dev.module_functions(&frontier_source(w), &format!("{FRONTIER_MODULE}_{}", w.name()), &FRONTIER_KERNELS)
}

/// The kernels of [`FRONTIER_SOURCE`]: the fused BFS's, then the SSSP's.
pub const FRONTIER_KERNELS: [&str; 9] = [
    "kgb_init",
    "kgb_push",
    "kgb_push_big",
    "kgb_pull",
    "kgs_init",
    "kgs_weights",
    "kgs_relax",
    "kgs_relax_big",
    "kgs_split",
];

/// Options of the GPU [`bfs()`] and [`bfs_device`] (whose push levels also
/// take a merge strategy).
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
/// first), by the fused direction-optimizing [`GpuBfs`] with
/// `opts.direction`:
/// levels equal the CPU's; each parent is a frontier neighbour one level up.
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
    #[cfg(feature = "cuda")]
    {
        let a = crate::matrix::SparseMatrix::from_graph(g);
        let d = crate::matrix::gpu::DeviceMatrix::upload(dev, &a)?;
        Ok(GpuBfs::new(&d)?.run(source, opts.direction)?.0)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (g, source, opts, dev);
        Err(crate::Error::CudaNotCompiled)
    }
}

/// Single-source shortest paths on device `dev` along arcs `u → v` of
/// weight `w_uv` (finite, `>= 0`), by near-far delta-stepping
/// ([`GpuSssp`], the CPU's automatic `Δ`; the frontier Bellman–Ford over
/// `(min, +)` is [`bellman_ford_in`](super::bellman_ford_in) on a device matrix). Distances equal the CPU's
/// [`sssp`](super::sssp()) up to the order of the additions along
/// equal-length paths.
///
/// # Errors
/// As [`bfs()`].
pub fn sssp<N: Label, E: Label>(g: &Graph<N, E>, source: usize, dev: &GpuDevice) -> crate::Result<SsspResult> {
    #[cfg(feature = "cuda")]
    {
        let a = crate::matrix::SparseMatrix::from_graph(g);
        let d = crate::matrix::gpu::DeviceMatrix::upload(dev, &a)?;
        Ok(GpuSssp::new(&d, None)?.run(source)?.0)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (g, source, dev);
        Err(crate::Error::CudaNotCompiled)
    }
}

/// Number of triangles of an undirected graph on device `dev`: `L` (the
/// lower triangle after relabelling by decreasing degree, built on the
/// CPU), then `Σ C` for `C⟨L⟩ = L ·(plus, pair) Lᵀ` by masked dot products
/// on the GPU, as the CPU's [`triangle_count`](super::triangle_count).
///
/// # Errors
/// [`GraphError::DirectedNotSupported`](crate::graph::GraphError) for a
/// directed graph; as [`bfs()`].
pub fn triangles<N: Label, E: Label>(g: &Graph<N, E>, dev: &GpuDevice) -> crate::Result<u64> {
    g.require_undirected("triangle counting").map_err(super::AlgorithmError::from)?;
    #[cfg(feature = "cuda")]
    {
        use crate::matrix::gpu::{DeviceMatrix, DeviceMatrixMask};
        let l = super::triangles::lower_by_degree(&crate::matrix::SparseMatrix::from_graph(g));
        let dl = DeviceMatrix::upload(dev, &l)?;
        let mask = DeviceMatrixMask::upload(dev, &crate::matrix::MatrixMask::structural(&l))?;
        triangles_lower(&dl, &mask)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = dev;
        Err(crate::Error::CudaNotCompiled)
    }
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
