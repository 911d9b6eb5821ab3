//! GraphBLAS objects and operations on CUDA GPUs: the device side of the one
//! API of [`crate::matrix`] (feature `cuda`; without it the kernel sources,
//! [`IndexWidth`], [`GpuMergeStrategy`] and uninhabited stand-ins of the
//! object types, whose constructors return
//! [`CudaError::NotCompiled`](crate::cuda::CudaError)).
//!
//! Every operation of [`crate::matrix::op`] (re-exported as
//! [`crate::matrix::mxv`], [`crate::matrix::mxm`], …) takes these objects
//! directly (mask [`DeviceMask`] or [`DeviceMatrixMask`], accumulator
//! [`GpuBinaryOp`]), with the host's semantics; the kernels' entry points
//! behind them are private to the crate. This module holds the device
//! objects, the device operators and the strategies.
//!
//! Objects live on one device ([`GpuDevice`](crate::cuda::GpuDevice)),
//! uploaded once and reused: [`DeviceMatrix`] (CSR and CSC; index width
//! chosen by [`IndexWidth`]: 32 bits where they fit, else 64, or forced),
//! [`DeviceDenseVector`] (bitmap form), [`DeviceSparseVector`], and the masks
//! [`DeviceMask`] (a byte per position, structural or valued, complemented
//! or not) and [`DeviceMatrixMask`]. Each downloads to its CPU type.
//!
//! The kernels behind the operations: `mxv` and `vxm` on dense vectors
//! (pull: one thread per output, terms in increasing `k`, early exit at the
//! monoid's terminal value); `mxv_sparse` and `vxm_sparse` (SpMSpV, push)
//! with the three merge strategies of Yang, Wang & Owens
//! ([`GpuMergeStrategy`], picked through
//! [`SpmspvOptions::strategy`](crate::matrix::SpmspvOptions)): no sorting
//! (atomic scatter into a dense accumulator, then a compaction), merge sort
//! or LSD radix sort of the `(index, term)` pairs followed by a segmented
//! fold, and an automatic choice by a cost model; the masked `mxm` by dot
//! products or by Gustavson's rows with a hash accumulator per row
//! ([`GpuMxmStrategy`], picked through
//! [`MxmMethod`](crate::matrix::MxmMethod): shared memory, global for long
//! rows; any mask, complemented too), chosen by their operation counts
//! ([`mxm_costs`](crate::matrix::mxm_costs)); the reductions; the
//! element-wise operations on dense or sparse vectors ([`DeviceVector`])
//! and on matrices: union, intersection, apply ([`GpuUnaryOp`]) and select
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
//! Every kernel reads its indices as `kg_idx_t`, defined by the module's
//! preface ([`IndexWidth::preface`]): one source, a 32- and a 64-bit
//! instantiation, the width part of the typed keys. An operation runs at
//! its matrix's width; its sparse vectors and matrix masks must have the
//! same ([`CudaError::Mismatch`](crate::cuda::CudaError) says which to
//! upload with `upload_with_width`).

pub(crate) mod frontier;
mod index;
// the generators and templates serve the device code (and, with `testing`, the NVRTC tests)
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
mod kernels;
mod strategy;

pub use index::{IndexWidth, MAX_INDEX};
#[allow(unused_imports)]
pub(crate) use kernels::{
    KernelKey, HASH_KERNELS, HASH_TEMPLATE, KERNELS, TEMPLATE, UTIL_KERNELS, UTIL_MODULE, UTIL_SOURCE,
};
pub_for_testing! {
    pub use kernels::{hash_source_for, source, source_for, util_source};
}
pub_for_testing! {
    pub use kernels::SPARSE_KERNELS;
}

/// The one switch of the device GraphBLAS between the build with CUDA and
/// the build without: its items are compiled with the `cuda` feature only;
/// without it [`stand_in`] declares the same object types, uninhabited.
macro_rules! with_cuda {
    ($($item:item)*) => { $( #[cfg(feature = "cuda")] $item )* };
}

with_cuda! {
    mod device_index;
    mod dispatch;
    mod dispatch_index;
    mod dispatch_mxm;
    mod dispatch_ops;
    mod dispatch_mxm_reduce;
    mod dispatch_relax;
    mod dispatch_visit;
    mod element;
    mod element_ops;
    mod loaded;
    mod mxm_hash;
    mod mxm_reduce;
    mod objects;
    mod ops;
    mod ops_ewise;
    mod ops_ewise_mat;
    mod ops_reduce;
    pub(crate) mod scan;
    mod sparse_build;

    pub(crate) use device_index::Idx;
    pub use element::GpuElement;
    pub use element_ops::{ElementKey, ElementOp, GpuBinaryOp, GpuSelectOp, GpuUnaryOp, MaskKind, SelectForm, UnaryForm};
    // The CUDA templates and kernel lists are crate-private; the source generators
    // are public with `testing` only (the NVRTC tests compile every generated module).
    #[allow(unused_imports)]
    pub(crate) use element_ops::{CONVERT_KERNELS, CONVERT_TEMPLATE, EWISE_KERNELS, EWISE_TEMPLATE};
    pub_for_testing! {
        pub use element_ops::convert_source;
    }
    pub_for_testing! {
        pub use dispatch_mxm::row_reduce_form;
    }
    pub(crate) use mxm_hash::{mxm_masked_costs, prepare_mxm};
    pub(crate) use mxm_reduce::reduce_mxm_masked;
    pub use dispatch_relax::DeviceRelaxed;
    pub use dispatch_visit::DeviceVisited;
    pub use objects::{DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector};
    pub(crate) use ops::semiring_kernels;
    pub(crate) use ops_ewise::{accumulate_vector, apply_vector, ewise_add_vector};
    pub use ops_ewise::DeviceVector;
    pub(crate) use ops_ewise_mat::{accumulate, apply, ewise_add};
    pub(crate) use ops_reduce::reduce_dense;
}

#[cfg(not(feature = "cuda"))]
pub mod stand_in;
#[cfg(not(feature = "cuda"))]
pub use stand_in::{
    DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceRelaxed, DeviceSparseVector, DeviceVisited,
    GpuBinaryOp, GpuElement,
};

pub use strategy::{GpuMergeStrategy, GpuMxmStrategy};
