//! The GraphBLAS operations with one signature over every place: each
//! function takes host objects ([`SparseMatrix`](super::SparseMatrix),
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
//!
//! The older host-only functions of [`crate::matrix`] of the same names
//! (returning [`MatrixError`](super::MatrixError)) are what these call on
//! the host.
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
