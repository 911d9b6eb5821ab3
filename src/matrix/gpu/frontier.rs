//! The frontier kernels (`kernels/graphblas_frontier.cu`): the device
//! implementation of the BFS level step [`vxm_visit`](crate::matrix::vxm_visit)
//! and [`visit_levels`](crate::matrix::visit_levels) (`kgb_*`) and of the near-far relaxation steps of delta-stepping
//! (`kgs_*`), with the module's source and kernel list.

/// The CUDA source of the frontier kernels, before its index preface
/// ([`frontier_source`]).
pub const FRONTIER_SOURCE: &str = include_str!("../../../kernels/graphblas_frontier.cu");

/// The module name of [`FRONTIER_SOURCE`] (followed by `_u32` or `_u64`).
pub const FRONTIER_MODULE: &str = "graphblas_frontier";

/// The kernels of [`FRONTIER_SOURCE`]: the BFS level step's, then the SSSP's.
pub const FRONTIER_KERNELS: [&str; 9] = [
    "kgb_init",
    "kgb_seed",
    "kgb_step",
    "kgb_step_big",
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

/// The grid of the kernels that expand the chunks of the high-degree
/// nodes' arcs, a block per chunk (`kgb_step_big`, `kgs_relax_big`): 8
/// blocks per multiprocessor.
#[cfg(feature = "cuda")]
pub(crate) fn spread_grid(dev: &crate::cuda::device::Device) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: ((dev.info.multiprocessors * 8) as u32, 1, 1),
        block_dim: (super::scan::BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Counters per slot of the step log (`KG_SLOT` of the kernels).
#[cfg(feature = "cuda")]
pub(crate) const SLOT: usize = 8;
/// Slots of the step log (`KG_RING` of the kernels): a batch of steps is at
/// most `RING - 1` long.
#[cfg(feature = "cuda")]
pub(crate) const RING: usize = 40;

/// The fixed grid of the steps whose size is read on the device
/// (`kgb_step`, `kgs_relax`): 8 blocks per multiprocessor, grid-stride loops.
#[cfg(feature = "cuda")]
pub(crate) fn step_grid(dev: &crate::cuda::device::Device) -> cudarc::driver::LaunchConfig {
    spread_grid(dev)
}

/// Enqueues `kgb_seed` (`seed`, the kernel of [`FRONTIER_KERNELS`] index
/// 1): slot `k` of the step log set to `values` (its first five
/// counters), the `steps` slots after it cleared.
#[cfg(feature = "cuda")]
pub(crate) fn seed_log(
    dev: &crate::cuda::device::Device,
    seed: &cudarc::driver::CudaFunction,
    log: &mut cudarc::driver::CudaSlice<u64>,
    k: i32,
    steps: usize,
    values: [u64; 4],
) -> Result<(), crate::cuda::CudaError> {
    use cudarc::driver::PushKernelArg;
    let steps = steps.clamp(1, RING - 1) as i32;
    let mut lb = dev.stream.launch_builder(seed);
    lb.arg(log).arg(&k).arg(&steps).arg(&values[0]).arg(&values[1]).arg(&values[2]).arg(&values[3]);
    let one = cudarc::driver::LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: matches kgb_seed(log, k, steps, nodes, arcs, pulling, before); the log holds RING
    // slots of SLOT counters and steps < RING.
    crate::cuda::device::check("launching kgb_seed", || unsafe { lb.launch(one) })?;
    Ok(())
}

/// Entries of a big list for `nnz` arcs: a pair (node, first arc) per
/// chunk of 1024 arcs of the nodes of out-degree ≥ 1024, at most `2 nnz /
/// 1024` chunks (such a node has fewer chunks than twice its arcs / 1024).
#[cfg(feature = "cuda")]
pub(crate) fn big_len(nnz: usize) -> usize {
    2 * (nnz / 512 + 1)
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
