//! Sparse matrices and vectors with GraphBLAS-style operations (CPU, rayon).
//!
//! Objects:
//! - [`SparseMatrix<T>`]: CSR over `sprs`, with a cached CSR of the transpose
//!   (equivalently a CSC view of the matrix, [`SparseMatrix::csc`]);
//! - [`SparseVector<T>`]: sorted indices and their values;
//! - [`DenseVector<T>`]: a value array with a presence bitmap (an entry may be
//!   absent, as in GraphBLAS' bitmap format; [`DenseVector::full`] has all).
//!
//! Every operation has the GraphBLAS shape
//! `op(output, mask, accum, operator/semiring, inputs…, descriptor)` and
//! computes `T = op(inputs)`, then `Z = accum(C, T)` (union: `accum(c, t)`
//! where both are present, the present one elsewhere) or `Z = T` without an
//! accumulator, then `C⟨M⟩ = Z`: where the [`Mask`] allows, `C` takes `Z`'s
//! entry (or becomes absent); elsewhere `C` keeps its entry, or loses it when
//! the [`Descriptor`] says `replace`.
//!
//! # Order of ⊕
//! An output entry `C(i, j) = ⊕_k A(i, k) ⊗ B(k, j)` is folded from its first
//! term in increasing `k`: `((t_{k1} ⊕ t_{k2}) ⊕ t_{k3}) ⊕ …`, stopping early
//! once the accumulated value is terminal. Every kernel (pull or push, each
//! SpMSpV strategy, Gustavson or dot-product mxm) and every thread count
//! uses this order, so parallel and sequential results are bitwise identical,
//! floating point included. An entry with no terms is absent (not `0`).
//!
//! # One API over every place
//! Every operation of [`op`] takes host objects or device objects
//! ([`gpu::DeviceMatrix`], …) with the same signature; the output's type
//! picks the implementation ([`ProductOutput`] and the operation traits).
//! Data moves only by an explicit upload or download. Algorithms written
//! once over them run on either ([`Located`]).
//!
//! | operation ([`op`]) | host | device |
//! |---|---|---|
//! | [`mxv`], [`vxm`] | yes | yes |
//! | [`mxv_sparse`], [`vxm_sparse`] | yes | yes (three merge strategies) |
//! | [`assign_min`] | yes | yes |
//! | [`mxm`] | yes, any mask or none | yes, any mask or none (built on the device) |
//! | [`op::ewise_add`], [`op::ewise_mult`] | dense vectors, matrices | dense and sparse vectors, matrices |
//! | [`op::apply`], [`op::select`] | dense vectors, matrices | dense and sparse vectors, matrices |
//! | [`op::reduce`] | dense vector, matrix | dense and sparse vector, matrix |
//! | [`op::reduce_rows`] | yes | yes |
//! | [`op::extract`], [`op::assign`], [`op::extract_vector`], [`op::assign_vector`] | yes | yes (matrices, dense vectors) |
//!
//! The operators follow the place: closures on the host,
//! [`gpu::GpuBinaryOp`], `GpuUnaryOp` and `GpuSelectOp` (compiled into the
//! kernel) on a device. The operations of [`op`] are the only ones: this
//! module re-exports them under the same names ([`mxm`], [`ewise_add`],
//! [`reduce`], …), and the host and device kernels behind them are private
//! to the crate. The method form is one set of builders over both places
//! ([`Mxv`], [`Vxm`], [`Mxm`]): [`SparseMatrix::mxv`] and
//! [`gpu::DeviceMatrix::mxv`] start the same builder, which takes the mask
//! and accumulator types of the matrix's place ([`Located`]).
//!
//! # Two spellings of one operation
//! Every product exists as a GraphBLAS-shaped function (all arguments,
//! output first) and as a method chain that calls it (see [`Mxv`], [`Vxm`],
//! [`Mxm`]); GraphBLAS' in-place form, where the output is also the input,
//! is [`SparseMatrix::mxv_in_place`] / [`SparseMatrix::vxm_in_place`].
//! ```
//! use kronograph::matrix::{mxv, Descriptor, DenseVector, Mask, SparseMatrix};
//! use kronograph::semirings::MinPlus;
//! let a = SparseMatrix::try_from_triplets(3, 3, &[0, 0, 1], &[1, 2, 2], &[1.0, 5.0, 2.0]).unwrap();
//! let x = DenseVector::full(vec![0.0, 1.0, 2.0]);
//! let m = Mask::from_bits(vec![true, true, false]);
//! let mut y1 = DenseVector::filled(3, 9.0);
//! mxv(&mut y1, Some(&m), Some(&f64::min), MinPlus::new(), &a, &x, &Descriptor::DEFAULT).unwrap();
//! let mut y2 = DenseVector::filled(3, 9.0);
//! a.mxv(&x, MinPlus::new()).mask(&m).accum(&f64::min).into(&mut y2).unwrap();
//! assert_eq!(y1, y2);
//! assert_eq!(y2.to_options(), vec![Some(2.0), Some(4.0), Some(9.0)]);
//! ```

mod ewise_vec;
pub mod gpu;
mod mask;
mod merge;
mod method;
pub mod op;
mod ops_mat;
mod ops_vec;
mod place;
mod place_ewise;
mod place_mxm;
mod place_mxm_reduce;
mod place_relax;
mod place_visit;
mod sparse;
mod vec_kernels;
mod vector;
mod visit_host;

pub use mask::{Accum, Descriptor, Mask, MatrixMask, Truthy};
pub use method::{
    InPlaceVector, Mxm, MxmInPlace, MxmOutput, MxmSide, Mxv, MxvInPlace, MxvOutput, OutputLeft, OutputRight,
    ProductVector, Vxm, VxmInPlace, VxmOutput,
};
// The operations: the place-generic ones of `op`, under their GraphBLAS names here too.
pub use op::{
    apply, assign, assign_min, assign_vector, ewise_add, ewise_mult, extract, extract_vector, kronecker, mxm, mxv,
    mxv_sparse, reduce, reduce_rows, select, transpose, vxm, vxm_sparse,
};
pub use ops_mat::MxmMethod;
pub use place::{AssignMinOp, Located, MxvOp, MxvSparseOp, ProductOutput, VxmOp, VxmSparseOp};
pub use place_ewise::{ApplyOp, EwiseAddOp, EwiseMultOp, SelectOp};
pub use place_mxm::{AssignOp, AssignVectorOp, ExtractOp, ExtractVectorOp, MxmOp, ReduceOp, ReduceRowsOp};
pub use place_mxm_reduce::{mxm_costs, reduce_mxm, MxmReduceOp};
pub use place_relax::{relax_near, relax_rounds, split_far, HostRelaxed, Queues, RelaxOp, WeightStats};
pub use place_visit::{visit_levels, vxm_visit, BfsDirection, LevelState, LevelStep, Reached, VisitOp};
pub use sparse::SparseMatrix;
pub use vec_kernels::{MergeStrategy, PushPull, SpmspvOptions};
pub use vector::{DenseVector, SparseVector};
pub use visit_host::HostVisited;

use std::fmt::Debug;

/// The host implementations behind [`op`] (crate-private: the crate's own
/// host-only code calls them where a [`MatrixError`] is what it reports).
pub(crate) mod host {
    pub(crate) use super::ops_mat::{mxm, reduce_rows, select};
}

/// What a matrix or vector entry must be: plain data.
pub trait Element: Copy + Send + Sync + Debug + PartialEq + Default + 'static {}
impl<T: Copy + Send + Sync + Debug + PartialEq + Default + 'static> Element for T {}

/// Errors of matrix and vector operations.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MatrixError {
    /// Operand shapes do not fit.
    #[error("{op}: dimension mismatch for {what}: expected {expected}, found {found}")]
    DimensionMismatch {
        /// The operation.
        op: &'static str,
        /// Which operand or dimension.
        what: &'static str,
        /// Expected size.
        expected: usize,
        /// Size given.
        found: usize,
    },
    /// An index is out of range.
    #[error("{what}: index {index} is out of range (size {size})")]
    IndexOutOfBounds {
        /// Where.
        what: &'static str,
        /// The index.
        index: usize,
        /// The size.
        size: usize,
    },
    /// The same position is given twice.
    #[error("{what}: index {index} is given more than once")]
    DuplicateIndex {
        /// Where.
        what: &'static str,
        /// The index.
        index: usize,
    },
    /// An operation with no device implementation yet (download the
    /// operands and run it on the host).
    #[error("{operation} has no device implementation yet; run it on the host objects")]
    DeviceUnsupported {
        /// The operation.
        operation: &'static str,
    },
    /// Arrays of different lengths.
    #[error("{what}: {a} and {b} entries do not match")]
    LengthMismatch {
        /// Which arrays.
        what: &'static str,
        /// First length.
        a: usize,
        /// Second length.
        b: usize,
    },
}

pub(crate) fn check_dim(
    op: &'static str,
    what: &'static str,
    expected: usize,
    found: usize,
) -> Result<(), MatrixError> {
    if expected == found {
        Ok(())
    } else {
        Err(MatrixError::DimensionMismatch { op, what, expected, found })
    }
}
