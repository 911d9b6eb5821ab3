//! The method form of the products: `a.mxv(&u, semiring)`, `u.vxm(&a, semiring)`,
//! `a.mxm(&b, semiring)`, then optional `.mask(..)`, `.accum(..)`,
//! `.desc(..)`, and `.into(&mut w)` (GraphBLAS' `w⟨mask⟩ = accum(w, …)`) or
//! `.run()` (a new output).
//!
//! Each builder calls the GraphBLAS-shaped function of the same name
//! ([`mxv`](super::mxv), [`mxv_sparse`](super::mxv_sparse), [`vxm`](super::vxm),
//! [`vxm_sparse`](super::vxm_sparse), [`mxm`](super::mxm)): one
//! implementation, two spellings, as python-graphblas' `w(mask, accum) <<
//! A.mxv(u, semiring)` beside the C API's `GrB_mxv(w, mask, accum, semiring,
//! A, u, desc)`.
//!
//! GraphBLAS lets the output of `mxv` and `vxm` also be the input
//! (`GrB_vxm(w, mask, accum, s, w, A, desc)`); Rust's borrows cannot express
//! that with two arguments, so [`SparseMatrix::mxv_in_place`](super::SparseMatrix::mxv_in_place) and
//! [`SparseMatrix::vxm_in_place`](super::SparseMatrix::vxm_in_place) take the vector once, in `.into(&mut w)`:
//! `w⟨mask⟩ = accum(w, A w)` with no copy of `w`. The same holds for `mxm`
//! ([`SparseMatrix::mxm_in_place`](super::SparseMatrix::mxm_in_place): `C⟨mask⟩ = accum(C, A C)`;
//! [`SparseMatrix::mxm_in_place_right`](super::SparseMatrix::mxm_in_place_right): `C⟨mask⟩ = accum(C, C B)`).

use super::mask::{Accum, Descriptor, Mask};
use super::vec_kernels::SpmspvOptions;
use super::{DenseVector, SparseVector};

/// An accumulator as the builders hold it.
type AccumRef<'a, C> = &'a (dyn Fn(C, C) -> C + Sync);

/// The options every vector product takes.
struct VecOpts<'a, C> {
    mask: Option<&'a Mask<'a>>,
    accum: Option<AccumRef<'a, C>>,
    desc: Descriptor,
    spmspv: SpmspvOptions,
}

impl<C> Default for VecOpts<'_, C> {
    fn default() -> Self {
        VecOpts { mask: None, accum: None, desc: Descriptor::DEFAULT, spmspv: SpmspvOptions::default() }
    }
}

impl<'a, C> VecOpts<'a, C> {
    fn accum(&self) -> Accum<'a, C> {
        self.accum
    }
}

/// The setters shared by the vector-product builders.
macro_rules! vector_setters {
    () => {
        /// Writes only where `mask` allows (see [`Mask`]; complement it with
        /// [`Mask::complement`]).
        pub fn mask(mut self, mask: &'a Mask<'a>) -> Self {
            self.opts.mask = Some(mask);
            self
        }

        /// Combines the output's old entries with the new ones by `accum`
        /// (e.g. `&f64::min`) instead of replacing them.
        pub fn accum(mut self, accum: &'a (dyn Fn(S::C, S::C) -> S::C + Sync)) -> Self {
            self.opts.accum = Some(accum);
            self
        }

        /// The descriptor (replace, transposes).
        pub fn desc(mut self, desc: Descriptor) -> Self {
            self.opts.desc = desc;
            self
        }

        /// How a sparse-vector product is computed (merge strategy, push or
        /// pull); ignored for dense vectors. Results do not depend on it.
        pub fn spmspv(mut self, options: SpmspvOptions) -> Self {
            self.opts.spmspv = options;
            self
        }
    };
}

mod private {
    pub trait Sealed {}
    impl<T> Sealed for super::DenseVector<T> {}
    impl<T> Sealed for super::SparseVector<T> {}
    pub trait Side {}
    impl Side for super::OutputRight {}
    impl Side for super::OutputLeft {}
}

mod device;
mod mxm;
mod vector;
mod vector_in_place;

pub use device::{DeviceMxm, DeviceMxv, DeviceVxm};
pub use mxm::{Mxm, MxmInPlace, MxmSide, OutputLeft, OutputRight};
pub use vector::{Mxv, ProductVector, Vxm};
pub use vector_in_place::{InPlaceVector, MxvInPlace, VxmInPlace};
