//! The method form of the products: `a.mxv(&u, semiring)`, `u.vxm(&a, semiring)`,
//! `a.mxm(&b, semiring)`, then optional `.mask(..)`, `.accum(..)`,
//! `.desc(..)`, and `.into(&mut w)` (GraphBLAS' `w⟨mask⟩ = accum(w, …)`) or,
//! on the host, `.run()` (a new output).
//!
//! One set of builders ([`Mxv`], [`Vxm`], [`Mxm`]) for every place: each is
//! generic over the matrix it holds ([`SparseMatrix`](super::SparseMatrix)
//! on the host, [`DeviceMatrix`](super::gpu::DeviceMatrix) on a device),
//! takes the mask and accumulator types of that place
//! ([`Located::VectorMask`](super::Located::VectorMask),
//! [`Located::MatrixMask`](super::Located::MatrixMask),
//! [`Located::Accum`](super::Located::Accum): a [`Mask`](super::Mask) and a
//! closure on the host, a [`DeviceMask`](super::gpu::DeviceMask) and a
//! [`GpuBinaryOp`](super::gpu::GpuBinaryOp) on a device), and its `.into`
//! calls the one-signature operation of [`op`](super::op) of the same name
//! ([`op::mxv`](super::op::mxv) for a dense output,
//! [`op::mxv_sparse`](super::op::mxv_sparse) for a sparse one, …), which
//! runs where the operands live. One implementation, two spellings, as
//! python-graphblas' `w(mask, accum) << A.mxv(u, semiring)` beside the C
//! API's `GrB_mxv(w, mask, accum, semiring, A, u, desc)`. Code generic over
//! the place starts a builder with [`Mxv::new`], [`Vxm::new`] or
//! [`Mxm::new`] (the same as the methods).
//!
//! `.run()` makes its output on the host only (a device output needs its
//! device: make it with `DeviceDenseVector::new` and use `.into`).
//!
//! GraphBLAS lets the output of `mxv` and `vxm` also be the input
//! (`GrB_vxm(w, mask, accum, s, w, A, desc)`); Rust's borrows cannot express
//! that with two arguments, so [`SparseMatrix::mxv_in_place`](super::SparseMatrix::mxv_in_place) and
//! [`SparseMatrix::vxm_in_place`](super::SparseMatrix::vxm_in_place) take the vector once, in `.into(&mut w)`:
//! `w⟨mask⟩ = accum(w, A w)` with no copy of `w`. The same holds for `mxm`
//! ([`SparseMatrix::mxm_in_place`](super::SparseMatrix::mxm_in_place): `C⟨mask⟩ = accum(C, A C)`;
//! [`SparseMatrix::mxm_in_place_right`](super::SparseMatrix::mxm_in_place_right): `C⟨mask⟩ = accum(C, C B)`).
//! The in-place forms are the host's (they read and write one host object).

use super::mask::Descriptor;
use super::vec_kernels::SpmspvOptions;
use super::{DenseVector, SparseMatrix, SparseVector};

/// An accumulator as the host's in-place builders hold it.
type AccumRef<'a, C> = &'a (dyn Fn(C, C) -> C + Sync);

/// The options every vector product takes: a mask of type `M` and an
/// accumulator of type `Acc` (those of the matrix's place).
struct VecOpts<'a, M: ?Sized, Acc: ?Sized> {
    mask: Option<&'a M>,
    accum: Option<&'a Acc>,
    desc: Descriptor,
    spmspv: SpmspvOptions,
}

impl<M: ?Sized, Acc: ?Sized> Default for VecOpts<'_, M, Acc> {
    fn default() -> Self {
        VecOpts { mask: None, accum: None, desc: Descriptor::DEFAULT, spmspv: SpmspvOptions::default() }
    }
}

/// The setters shared by the vector-product builders, for a mask of type
/// `$mask` and an accumulator of type `$accum`.
macro_rules! vector_setters {
    ($mask:ty, $accum:ty) => {
        /// Writes only where `mask` allows (on the host a [`Mask`](crate::matrix::Mask),
        /// complemented by [`Mask::complement`](crate::matrix::Mask::complement);
        /// on a device a [`DeviceMask`](crate::matrix::gpu::DeviceMask)).
        pub fn mask(mut self, mask: &'a $mask) -> Self {
            self.opts.mask = Some(mask);
            self
        }

        /// Combines the output's old entries with the new ones by `accum`
        /// (on the host a closure such as `&f64::min`, on a device a
        /// [`GpuBinaryOp`](crate::matrix::gpu::GpuBinaryOp)) instead of
        /// replacing them.
        pub fn accum(mut self, accum: &'a $accum) -> Self {
            self.opts.accum = Some(accum);
            self
        }

        /// The descriptor (replace, transposes).
        pub fn desc(mut self, desc: $crate::matrix::Descriptor) -> Self {
            self.opts.desc = desc;
            self
        }

        /// How a sparse-vector product is computed (merge strategy, push or
        /// pull; a device pushes); ignored for dense vectors. Results do not
        /// depend on it.
        pub fn spmspv(mut self, options: $crate::matrix::SpmspvOptions) -> Self {
            self.opts.spmspv = options;
            self
        }
    };
}

mod private {
    pub trait Sealed {}
    impl<T> Sealed for super::DenseVector<T> {}
    impl<T> Sealed for super::SparseVector<T> {}
    impl<T: crate::matrix::Element> Sealed for super::SparseMatrix<T> {}
    impl<T: crate::matrix::gpu::GpuElement> Sealed for crate::matrix::gpu::DeviceDenseVector<T> {}
    impl<T: crate::matrix::gpu::GpuElement> Sealed for crate::matrix::gpu::DeviceSparseVector<T> {}
    impl<T: crate::matrix::gpu::GpuElement> Sealed for crate::matrix::gpu::DeviceMatrix<T> {}
    pub trait Side {}
    impl Side for super::OutputRight {}
    impl Side for super::OutputLeft {}
}

mod mxm;
mod vector;
mod vector_in_place;

pub use mxm::{Mxm, MxmInPlace, MxmOutput, MxmSide, OutputLeft, OutputRight};
pub use vector::{Mxv, MxvOutput, ProductVector, Vxm, VxmOutput};
pub use vector_in_place::{InPlaceVector, MxvInPlace, VxmInPlace};
