//! GraphBLAS operations on CUDA GPUs (feature `cuda`; without it only the
//! kernel sources, [`IndexWidth`] and [`GpuMergeStrategy`] are here).
//!
//! Objects live on one device ([`GpuDevice`](crate::cuda::GpuDevice)),
//! uploaded once and reused: [`DeviceMatrix`] (CSR and CSC; index width
//! chosen by [`IndexWidth`]: 32 bits where they fit, else 64, or forced),
//! [`DeviceDenseVector`] (bitmap form), [`DeviceSparseVector`], and the masks
//! [`DeviceMask`] (a byte per position, structural or valued, complemented
//! or not) and [`DeviceMatrixMask`]. Each downloads to its CPU type.
//!
//! Operations keep the GraphBLAS shape of [`crate::matrix`] — output, mask,
//! accumulator, operator or semiring, inputs, descriptor:
//! [`mxv`] and [`vxm`] on dense vectors (pull: one thread per output, terms
//! in increasing `k`, early exit at the monoid's terminal value);
//! [`mxv_sparse`] and [`vxm_sparse`] (SpMSpV, push) with the three merge
//! strategies of Yang, Wang & Owens ([`GpuMergeStrategy`]): no sorting
//! (atomic scatter into a dense accumulator, then a compaction), merge sort
//! or LSD radix sort of the `(index, term)` pairs followed by a segmented
//! fold, and an automatic choice by a cost model; [`mxm_masked_dot`]
//! (masked matrix product by dot products, e.g. triangle counting) and
//! [`reduce_dense`] / [`reduce_matrix_values`]. The products take no
//! accumulator argument: [`accumulate_vector`] / [`accumulate`] apply one
//! to their result. The element-wise operations, on dense or sparse vectors
//! ([`DeviceVector`]) and on matrices, take an accumulator
//! ([`GpuBinaryOp`]): [`ewise_add_vector`] / [`ewise_add`] (union),
//! [`ewise_mult_vector`] / [`ewise_mult`] (intersection), [`apply_vector`] /
//! [`apply`] ([`GpuUnaryOp`]) and [`select_vector`] / [`select`]
//! ([`GpuSelectOp`]).
//!
//! Kernels are generated from each semiring's CUDA form
//! ([`Semiring::cuda`](crate::semirings::Semiring::cuda)) followed by
//! `kernels/graphblas.cu`, compiled by NVRTC once per kernel key (element type, semiring, index width)
//! (cached in memory and on disk by [`crate::cuda::jit`]) and loaded once
//! per device; the element-wise ones once per [`ElementKey`] (operation and
//! operator, accumulator, element types, mask kind) from
//! `kernels/graphblas_ewise.cu`. Results equal the CPU's: exactly for the
//! pull, dot, sort-based and element-wise kernels (same order of ⊕), up to
//! the order of ⊕ for the scatter strategy and reductions (exact for
//! integer and idempotent semirings).
//!
//! [`mxm_masked`] runs the masked product in either form
//! ([`GpuMxmStrategy`]): the dot products above, or Gustavson by rows with a
//! hash accumulator per row (shared memory, global for long rows; any
//! mask, complemented too), chosen by their operation counts.
//!
//! Every kernel reads its indices as `kg_idx_t`, defined by the module's
//! preface ([`IndexWidth::preface`]): one source, a 32- and a 64-bit
//! instantiation, the width part of the typed keys. An operation runs at
//! its matrix's width; its sparse vectors and matrix masks must have the
//! same ([`CudaError::Mismatch`](crate::cuda::CudaError) says which to
//! upload with `upload_with_width`).

#[cfg(feature = "cuda")]
mod device_index;
#[cfg(feature = "cuda")]
mod element_ops;
mod index;
// the generators and templates serve the device code (and, with `testing`, the NVRTC tests)
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
mod kernels;
#[cfg(feature = "cuda")]
mod mxm_hash;
#[cfg(feature = "cuda")]
mod objects;
#[cfg(feature = "cuda")]
mod ops;
#[cfg(feature = "cuda")]
mod ops_ewise;
#[cfg(feature = "cuda")]
mod ops_ewise_mat;
#[cfg(feature = "cuda")]
mod ops_reduce;
#[cfg(feature = "cuda")]
pub(crate) mod scan;
mod strategy;

#[cfg(feature = "cuda")]
pub(crate) use device_index::Idx;
#[cfg(feature = "cuda")]
pub use element_ops::{ElementKey, ElementOp, GpuBinaryOp, GpuSelectOp, GpuUnaryOp, MaskKind, SelectForm, UnaryForm};
pub use index::{IndexWidth, MAX_INDEX};
// The CUDA templates and kernel lists are crate-private; the source generators
// are public with `testing` only (the NVRTC tests compile every generated module).
#[cfg(feature = "cuda")]
#[allow(unused_imports)]
pub(crate) use element_ops::{CONVERT_KERNELS, CONVERT_TEMPLATE, EWISE_KERNELS, EWISE_TEMPLATE};
#[allow(unused_imports)]
pub(crate) use kernels::{
    KernelKey, HASH_KERNELS, HASH_TEMPLATE, KERNELS, TEMPLATE, UTIL_KERNELS, UTIL_MODULE, UTIL_SOURCE,
};
#[cfg(feature = "cuda")]
pub_for_testing! {
    pub use element_ops::convert_source;
}
pub_for_testing! {
    pub use kernels::{hash_source_for, source, source_for, util_source};
}
#[cfg(feature = "cuda")]
pub use mxm_hash::{mxm_masked, mxm_masked_costs, prepare_mxm, reduce_mxm_masked};
#[cfg(feature = "cuda")]
pub use objects::{DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector};
#[cfg(feature = "cuda")]
pub(crate) use ops::{frontier_offsets, pull, semiring_kernels, spmspv, SemiringKernels};
#[cfg(feature = "cuda")]
pub use ops::{mxm_masked_dot, mxv, mxv_sparse, reduce_matrix_values, vxm, vxm_sparse};
#[cfg(feature = "cuda")]
pub use ops_ewise::{
    accumulate_vector, apply_vector, ewise_add_vector, ewise_mult_vector, select_vector, DeviceVector,
};
#[cfg(feature = "cuda")]
pub use ops_ewise_mat::{accumulate, apply, ewise_add, ewise_mult, select};
#[cfg(feature = "cuda")]
pub use ops_reduce::reduce_dense;
pub use strategy::GpuMergeStrategy;
pub use strategy::GpuMxmStrategy;

#[cfg(feature = "cuda")]
/// A matrix or vector entry type the GPU holds: plain data with a CUDA C++ spelling.
pub trait GpuElement: crate::matrix::Element + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits {
    /// The CUDA C++ type (`double`, `unsigned long long`, …).
    const CUDA: &'static str;

    /// The value's bytes in the low bytes of a `u64` (how a scalar reaches a
    /// kernel whose scalar type is a preface typedef).
    fn to_bits(self) -> u64;
}

#[cfg(feature = "cuda")]
macro_rules! gpu_element {
    ($($t:ty => $c:literal, $bits:expr);*) => {$(
        impl GpuElement for $t {
            const CUDA: &'static str = $c;
            fn to_bits(self) -> u64 {
                let f: fn($t) -> u64 = $bits;
                f(self)
            }
        }
    )*};
}
#[cfg(feature = "cuda")]
gpu_element!(bool => "bool", |x| x as u64; u8 => "unsigned char", |x| x as u64; i32 => "int", |x| x as u32 as u64;
             u32 => "unsigned int", |x| x as u64; i64 => "long long", |x| x as u64;
             u64 => "unsigned long long", |x| x; f32 => "float", |x| x.to_bits() as u64;
             f64 => "double", |x| x.to_bits());
