//! Kernel generation: each semiring's CUDA form, then `kernels/graphblas.cu`;
//! compiled by NVRTC through [`jit::compile_cached`](crate::cuda::jit::compile_cached)
//! (memory and disk caches) and loaded once per device under a typed key.
//! The index type `kg_idx_t` comes first ([`IndexWidth::preface`]): each
//! template is one source with a 32- and a 64-bit instantiation.

use super::index::IndexWidth;
use crate::cuda::hash_hex;
use crate::semirings::{CudaSemiring, Semiring};

/// The template every generated module appends to its semiring preface.
pub const TEMPLATE: &str = include_str!("../../../kernels/graphblas.cu");

/// The semiring-independent kernels (scans, byte maps, algorithm updates),
/// before their index preface ([`util_source`]).
pub const UTIL_SOURCE: &str = include_str!("../../../kernels/graphblas_util.cu");

/// The module name of [`UTIL_SOURCE`] (followed by `_u32` or `_u64`).
pub const UTIL_MODULE: &str = "graphblas_util";

/// The index-only kernels of sparse results built on the device
/// (compaction, remapping, sorting within rows, the transpose, gathers by
/// element size), appended to [`UTIL_SOURCE`] in the util module.
pub const SPARSE_SOURCE: &str = include_str!("../../../kernels/graphblas_sparse.cu");

/// The complete source of the util module for index width `w`
/// (`kernels/graphblas_util.cu`, then `kernels/graphblas_sparse.cu`).
pub fn util_source(w: IndexWidth) -> String {
    format!("{}{UTIL_SOURCE}{SPARSE_SOURCE}", w.preface())
}

/// The kernels of `kernels/graphblas_sparse.cu` (part of the util module),
/// in the order the device's sparse builders load them.
pub const SPARSE_KERNELS: [&str; 12] = [
    "gbs_gather_1",
    "gbs_gather_2",
    "gbs_gather_4",
    "gbs_gather_8",
    "gbs_row_starts",
    "gbs_region_flags",
    "gbs_remap_count",
    "gbs_remap_fill",
    "gbs_rows_gather",
    "gbs_sort_segments",
    "gbs_col_counts",
    "gbs_transpose_fill",
];

/// The kernels of [`UTIL_SOURCE`], in [`Util`](super::scan::Util) order.
pub const UTIL_KERNELS: [&str; 8] = [
    "gbu_scan_block",
    "gbu_scan_add",
    "gbu_flags_from_bytes",
    "gbu_compact_indices",
    "gbu_gather_u64",
    "gbu_relax_f64",
    "gbu_relax_u64",
    "gbu_gather_f64",
];

/// The kernels of [`TEMPLATE`], in [`SemiringKernels`](super::ops::SemiringKernels) order.
pub const KERNELS: [&str; 14] = [
    "gb_mxv_pull",
    "gb_vxm_pull",
    "gb_frontier_degrees",
    "gb_spmspv_scatter",
    "gb_spmspv_expand",
    "gb_merge_pass",
    "gb_radix_count",
    "gb_radix_scatter",
    "gb_run_heads",
    "gb_fold_runs",
    "gb_fill_identity",
    "gb_compact",
    "gb_mxm_dot",
    "gb_reduce",
];

/// The C++ spelling of an operand type a semiring does not read.
const UNREAD: &str = "unsigned char";

/// The typed key of a generated module: the semiring (its name carries the
/// output type), its operand types, whether each operand is read, and the
/// index width. Mask
/// kind (none, structural or valued bytes, complemented or not) and merge
/// strategy are launch arguments of the one module, so that a semiring
/// compiles once, not once per mask kind and strategy.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelKey {
    /// The semiring's name (`min_plus_f64`).
    pub semiring: String,
    /// C++ type of the first operand.
    pub a: String,
    /// C++ type of the second operand.
    pub b: String,
    /// C++ type of the output.
    pub c: String,
    /// Whether the first operand is read.
    pub read_a: bool,
    /// Whether the second operand is read.
    pub read_b: bool,
    /// The width of the indices.
    pub index: IndexWidth,
}

impl KernelKey {
    /// The key of semiring `s` with indices of width `w`.
    pub fn of<S: Semiring>(s: &S, w: IndexWidth) -> Self {
        Self::from_cuda(&s.cuda(), w)
    }

    fn from_cuda(c: &CudaSemiring, index: IndexWidth) -> Self {
        KernelKey {
            semiring: c.name.clone(),
            a: c.a_type.clone(),
            b: c.b_type.clone(),
            c: c.c_type.clone(),
            read_a: c.a_type != UNREAD,
            read_b: c.b_type != UNREAD,
            index,
        }
    }

    /// The module name: `graphblas_<semiring>_<width>_<hash of the source>`.
    pub fn module(&self, source: &str) -> String {
        format!("graphblas_{}_{}_{}", self.semiring, self.index.name(), &hash_hex(&[source.as_bytes()])[..12])
    }

    /// The preface of its modules: the index type, the semiring's CUDA form
    /// `c`, and which operands are read.
    fn preface(&self, c: &CudaSemiring) -> String {
        format!(
            "{}{}#define KG_READ_A {}\n#define KG_READ_B {}\n",
            self.index.preface(),
            c.source(),
            self.read_a as u8,
            self.read_b as u8
        )
    }
}

/// The complete CUDA source of the module for semiring form `c` with
/// indices of width `w`.
pub fn source_for(c: &CudaSemiring, w: IndexWidth) -> String {
    format!("{}{TEMPLATE}", KernelKey::from_cuda(c, w).preface(c))
}

/// The complete CUDA source of the module for semiring `s` with indices of width `w`.
pub fn source<S: Semiring>(s: &S, w: IndexWidth) -> String {
    source_for(&s.cuda(), w)
}

/// The template of the hash (Gustavson) masked product, appended to a
/// semiring's preface by [`hash_source_for`].
pub const HASH_TEMPLATE: &str = include_str!("../../../kernels/graphblas_mxm_hash.cu");

/// The masked product reduced to one value by hashed intersections
/// (`kernels/graphblas_mxm_reduce.cu`), appended to [`HASH_TEMPLATE`] in
/// the hash-product module.
pub const REDUCE_TEMPLATE: &str = include_str!("../../../kernels/graphblas_mxm_reduce.cu");

/// The kernels of [`HASH_TEMPLATE`] and [`REDUCE_TEMPLATE`].
pub const HASH_KERNELS: [&str; 4] = ["gbh_costs", "gbh_mxm", "gbr_rows", "gbr_big"];

/// The complete CUDA source of the hash-product module for semiring form
/// `c` with indices of width `w` (`kernels/graphblas_mxm_hash.cu`, then
/// `kernels/graphblas_mxm_reduce.cu`).
pub fn hash_source_for(c: &CudaSemiring, w: IndexWidth) -> String {
    format!("{}{HASH_TEMPLATE}{REDUCE_TEMPLATE}", KernelKey::from_cuda(c, w).preface(c))
}
