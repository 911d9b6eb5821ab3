//! The frontier kernels (`kernels/graphblas_frontier.cu`): the device
//! implementation of the BFS level step [`vxm_visit`](crate::matrix::vxm_visit)
//! (`kgb_*`) and of the near-far relaxation steps of delta-stepping
//! (`kgs_*`), with the module's source and kernel list.

/// The CUDA source of the frontier kernels, before its index preface
/// ([`frontier_source`]).
pub const FRONTIER_SOURCE: &str = include_str!("../../../kernels/graphblas_frontier.cu");

/// The module name of [`FRONTIER_SOURCE`] (followed by `_u32` or `_u64`).
pub const FRONTIER_MODULE: &str = "graphblas_frontier";

/// The kernels of [`FRONTIER_SOURCE`]: the BFS level step's, then the SSSP's.
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

/// The complete source of the frontier module for node ids and arc
/// positions of width `w` (that of the device matrix).
pub fn frontier_source(w: super::IndexWidth) -> String {
    format!("{}{FRONTIER_SOURCE}", w.preface())
}

/// The frontier kernels ([`FRONTIER_KERNELS`] order) of width `w` on `dev`.
#[cfg(feature = "cuda")]
pub(crate) fn frontier_kernels(
    dev: &crate::cuda::device::Device,
    w: super::IndexWidth,
) -> Result<Vec<cudarc::driver::CudaFunction>, crate::cuda::CudaError> {
    dev.module_functions(&frontier_source(w), &format!("{FRONTIER_MODULE}_{}", w.name()), &FRONTIER_KERNELS)
}

/// The grid of the kernels that spread the arcs of the high-degree nodes
/// over the whole device (`kgb_push_big`, `kgs_relax_big`): 8 blocks per
/// multiprocessor.
#[cfg(feature = "cuda")]
pub(crate) fn spread_grid(dev: &crate::cuda::device::Device) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: ((dev.info.multiprocessors * 8) as u32, 1, 1),
        block_dim: (super::scan::BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `n` (at least one) zeroed entries on `dev`.
#[cfg(feature = "cuda")]
pub(crate) fn alloc<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    dev: &crate::cuda::device::Device,
    what: &str,
    n: usize,
) -> Result<cudarc::driver::CudaSlice<T>, crate::cuda::CudaError> {
    crate::cuda::device::check(what, || dev.stream.alloc_zeros::<T>(n.max(1)))
}
