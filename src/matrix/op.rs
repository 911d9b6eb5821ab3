//! The GraphBLAS operations with one signature over every place: each
//! function takes host objects ([`SparseMatrix`],
//! [`DenseVector`](super::DenseVector), …) or device objects
//! ([`gpu::DeviceMatrix`](super::gpu::DeviceMatrix), …) and runs where they
//! live; the output's type picks the implementation (see
//! [`ProductOutput`](super::ProductOutput)). Errors are [`crate::Error`].
//!
//! | operation | host | device |
//! |---|---|---|
//! | [`mxv`], [`vxm`] (dense) | pull, rayon | pull kernel |
//! | [`mxv_sparse`], [`vxm_sparse`] | SpMSpV push / pull | SpMSpV, three merge strategies and a cost model |
//! | [`assign_min`] | one pass | relax + scan kernels |
//! | [`mxm`] | Gustavson or dot, any mask or none | dot or hash-Gustavson, any mask or none; sorted and transposed on the device |
//! | [`ewise_add`], [`ewise_mult`] | dense vectors, matrices | dense and sparse vectors, matrices |
//! | [`apply`], [`select`] | dense vectors, matrices (closures) | dense and sparse vectors, matrices (`GpuUnaryOp`, `GpuSelectOp`) |
//! | [`reduce`] | dense vector, matrix | dense vector, matrix |
//! | [`reduce_rows`] | rows or columns | pull product over `(⊕, first)` |
//! | [`extract`], [`assign`], [`extract_vector`], [`assign_vector`] | yes | matrices and dense vectors: row/column remaps and gathers |
//! | [`reduce_mxm`], [`mxm_costs`] | yes | dot or hash kernel, reduced on the device |
//! | [`vxm_visit`], [`visit_levels`], [`relax_near`], [`relax_rounds`], [`split_far`] | yes | fused kernels |
//! | [`transpose`], [`kronecker`] | yes (host objects only) | — |
//!
//! These are the only GraphBLAS operations of the crate: [`crate::matrix`]
//! re-exports them under the same names, and the host and device kernels
//! behind them are private to the crate.
//!
//! ```
//! use kronograph::matrix::{op, Descriptor, DenseVector, SparseMatrix};
//! use kronograph::semirings::PlusTimes;
//! let a = SparseMatrix::try_from_triplets(2, 2, &[0, 1], &[1, 0], &[2.0, 3.0]).unwrap();
//! let mut w = DenseVector::new(2);
//! op::reduce_rows(&mut w, None, None, PlusTimes::<f64>::new(), &a, &Descriptor::DEFAULT).unwrap();
//! assert_eq!(w.values(), &[2.0, 3.0]);
//! ```

pub use super::place::{assign_min, mxv, mxv_sparse, vxm, vxm_sparse};
pub use super::place_ewise::{apply, ewise_add, ewise_mult, select};
pub use super::place_mxm::{assign, assign_vector, extract, extract_vector, mxm, reduce, reduce_rows};
pub use super::place_mxm_reduce::{mxm_costs, reduce_mxm};
pub use super::place_relax::{relax_near, relax_rounds, split_far};
pub use super::place_visit::{visit_levels, vxm_visit};

use super::mask::{Accum, Descriptor, MatrixMask};
use super::{Element, SparseMatrix};

/// `C⟨M⟩ = accum(C, Aᵀ)` (with `desc.transpose_first`, `A` itself), on host
/// matrices (GraphBLAS' `GrB_transpose`; a plain copy of the transpose is
/// [`SparseMatrix::transpose`]). `O(nnz + n)`.
///
/// ```
/// use kronograph::matrix::{op, Descriptor, SparseMatrix};
/// let a = SparseMatrix::try_from_triplets(2, 3, &[0, 1], &[2, 0], &[1, 2]).unwrap();
/// let mut c = SparseMatrix::new(3, 2);
/// op::transpose(&mut c, None, None, &a, &Descriptor::DEFAULT).unwrap();
/// assert_eq!((c.get(2, 0), c.get(0, 1)), (Some(1), Some(2)));
/// ```
///
/// # Errors
/// [`MatrixError::DimensionMismatch`](super::MatrixError) if the shapes do
/// not fit.
pub fn transpose<T: Element>(
    c: &mut SparseMatrix<T>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, T>,
    a: &SparseMatrix<T>,
    desc: &Descriptor,
) -> crate::Result<()> {
    Ok(super::ops_mat::transpose(c, mask, accum, a, desc)?)
}

/// The Kronecker product `(A ⊗ B)((i·p + k), (j·q + l)) = op(A(i, j), B(k, l))`
/// of host matrices, `B` of shape `p × q`; formed explicitly (for tests and
/// small inputs), `O(nnz(A)·nnz(B))`.
///
/// ```
/// use kronograph::matrix::{op, SparseMatrix};
/// let a = SparseMatrix::try_from_triplets(2, 2, &[0, 1], &[1, 0], &[1, 2]).unwrap();
/// let b = SparseMatrix::try_from_triplets(1, 2, &[0], &[1], &[10]).unwrap();
/// let k = op::kronecker(|x: i32, y: i32| x * y, &a, &b);
/// assert_eq!((k.nrows(), k.ncols(), k.get(0, 3), k.get(1, 1)), (2, 4, Some(10), Some(20)));
/// ```
pub fn kronecker<A: Element, B: Element, C: Element>(
    op: impl Fn(A, B) -> C + Sync,
    a: &SparseMatrix<A>,
    b: &SparseMatrix<B>,
) -> SparseMatrix<C> {
    super::ops_mat::kronecker(op, a, b)
}
