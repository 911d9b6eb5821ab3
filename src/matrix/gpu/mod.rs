//! GraphBLAS operations on CUDA GPUs (feature `cuda`; without it only the
//! kernel sources and [`GpuMergeStrategy`] are here).
//!
//! Objects live on one device ([`GpuDevice`](crate::cuda::GpuDevice)),
//! uploaded once and reused: [`DeviceMatrix`] (CSR and CSC, 32-bit indices),
//! [`DeviceDenseVector`] (bitmap form), [`DeviceSparseVector`], and the masks
//! [`DeviceMask`] (a byte per position, structural or valued, complemented
//! or not) and [`DeviceMatrixMask`]. Each downloads to its CPU type.
//!
//! Operations keep the GraphBLAS shape of [`crate::matrix`] — output, mask,
//! semiring, inputs, descriptor — without the accumulator (a CPU closure):
//! [`mxv`] and [`vxm`] on dense vectors (pull: one thread per output, terms
//! in increasing `k`, early exit at the monoid's terminal value);
//! [`mxv_sparse`] and [`vxm_sparse`] (SpMSpV, push) with the three merge
//! strategies of Yang, Wang & Owens ([`GpuMergeStrategy`]): no sorting
//! (atomic scatter into a dense accumulator, then a compaction), merge sort
//! or LSD radix sort of the `(index, term)` pairs followed by a segmented
//! fold, and an automatic choice by a cost model; [`mxm_masked_dot`]
//! (masked matrix product by dot products, e.g. triangle counting) and
//! [`reduce_dense`] / [`reduce_matrix_values`].
//!
//! Kernels are generated from each semiring's CUDA form
//! ([`Semiring::cuda`](crate::semirings::Semiring::cuda)) followed by
//! `kernels/graphblas.cu`, compiled by NVRTC once per [`KernelKey`]
//! (cached in memory and on disk by [`crate::cuda::jit`]) and loaded once
//! per device. Results equal the CPU's: exactly for the pull, dot and
//! sort-based kernels (same order of ⊕), up to the order of ⊕ for the
//! scatter strategy and reductions (exact for integer and idempotent
//! semirings).
//!
//! [`mxm_masked`] runs the masked product in either form
//! ([`GpuMxmStrategy`]): the dot products above, or Gustavson by rows with a
//! hash accumulator per row (shared memory, global for long rows; any
//! mask, complemented too), chosen by their operation counts.
//!
//! Not here yet: accumulators, element-wise operations, apply and select
//! on the device, 64-bit indices.

mod kernels;
#[cfg(feature = "cuda")]
mod mxm_hash;
#[cfg(feature = "cuda")]
mod objects;
#[cfg(feature = "cuda")]
mod ops;
#[cfg(feature = "cuda")]
pub(crate) mod scan;
mod strategy;

pub use kernels::{hash_source_for, HASH_KERNELS, HASH_TEMPLATE};
pub use kernels::{source, source_for, KernelKey, KERNELS, TEMPLATE, UTIL_KERNELS, UTIL_MODULE, UTIL_SOURCE};
#[cfg(feature = "cuda")]
pub use mxm_hash::{mxm_masked, mxm_masked_costs, prepare_mxm, reduce_mxm_masked};
#[cfg(feature = "cuda")]
pub use objects::{DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector, MAX_INDEX};
#[cfg(feature = "cuda")]
pub(crate) use ops::{frontier_offsets, pull, semiring_kernels, spmspv, SemiringKernels};
#[cfg(feature = "cuda")]
pub use ops::{mxm_masked_dot, mxv, mxv_sparse, reduce_dense, reduce_matrix_values, vxm, vxm_sparse};
pub use strategy::GpuMergeStrategy;
pub use strategy::GpuMxmStrategy;

#[cfg(feature = "cuda")]
/// A matrix or vector entry type the GPU holds: plain data with a CUDA C++ spelling.
pub trait GpuElement: crate::matrix::Element + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits {
    /// The CUDA C++ type (`double`, `unsigned long long`, …).
    const CUDA: &'static str;
}

#[cfg(feature = "cuda")]
macro_rules! gpu_element {
    ($($t:ty => $c:literal),*) => {$(
        impl GpuElement for $t {
            const CUDA: &'static str = $c;
        }
    )*};
}
#[cfg(feature = "cuda")]
gpu_element!(bool => "bool", u8 => "unsigned char", i32 => "int", u32 => "unsigned int", i64 => "long long",
             u64 => "unsigned long long", f32 => "float", f64 => "double");
