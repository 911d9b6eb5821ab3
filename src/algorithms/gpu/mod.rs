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
use crate::matrix::gpu::GpuMergeStrategy;

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
pub use imp::{bfs_device, components_device, sssp_device, triangles_lower, triangles_lower_with};

/// The CUDA source of the frontier kernels: the fused BFS ([`GpuBfs`]) and
/// near-far delta-stepping ([`GpuSssp`]), with the `cuda` feature.
pub const FRONTIER_SOURCE: &str = include_str!("../../../kernels/graphblas_frontier.cu");

/// The module name of [`FRONTIER_SOURCE`].
pub const FRONTIER_MODULE: &str = "graphblas_frontier";

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

/// Options of the GPU [`bfs()`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuBfsOptions {
    /// Direction policy (as the CPU's; `Auto` is Beamer's switch on the
    /// frontier's out-arcs against the unexplored arcs).
    pub direction: BfsDirection,
    /// Merge strategy of the push levels.
    pub strategy: GpuMergeStrategy,
}

impl Default for GpuBfsOptions {
    fn default() -> Self {
        GpuBfsOptions { direction: BfsDirection::Auto { alpha: 14.0, beta: 24.0 }, strategy: GpuMergeStrategy::Auto }
    }
}

/// BFS from `source` on device `dev` (the graph's adjacency uploaded
/// first): levels equal the CPU's; each parent is a frontier neighbour one
/// level up (with the sorting strategies and pull, the smallest, as on the
/// CPU; with the scatter strategy, any).
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
        Ok(bfs_device(&d, source, opts)?.0)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (g, source, opts, dev);
        Err(crate::Error::CudaNotCompiled)
    }
}

/// Single-source shortest paths on device `dev` along arcs `u → v` of
/// weight `w_uv` (finite, `>= 0`): the frontier form of Bellman–Ford over
/// `(min, +)` (SpMSpV of the nodes whose distance changed, then a
/// relaxation), as the CPU's [`sssp`](super::sssp()). Distances equal the
/// CPU's up to the order of the additions along equal-length paths.
///
/// # Errors
/// As [`bfs()`].
pub fn sssp<N: Label, E: Label>(g: &Graph<N, E>, source: usize, dev: &GpuDevice) -> crate::Result<SsspResult> {
    #[cfg(feature = "cuda")]
    {
        let a = crate::matrix::SparseMatrix::from_graph(g);
        let d = crate::matrix::gpu::DeviceMatrix::upload(dev, &a)?;
        sssp_device(&d, source, GpuMergeStrategy::Auto)
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
/// min-label propagation over `(min, +)` as the CPU's
/// [`connected_components`](super::connected_components): the same labels
/// (the smallest node id of each component).
///
/// # Errors
/// As [`triangles()`].
pub fn components<N: Label, E: Label>(g: &Graph<N, E>, dev: &GpuDevice) -> crate::Result<Components> {
    g.require_undirected("connected components").map_err(super::AlgorithmError::from)?;
    #[cfg(feature = "cuda")]
    {
        let a = crate::matrix::SparseMatrix::from_graph(g).map(|_| 0u64);
        let d = crate::matrix::gpu::DeviceMatrix::upload(dev, &a)?;
        components_device(&d, GpuMergeStrategy::Auto)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = dev;
        Err(crate::Error::CudaNotCompiled)
    }
}
