//! One signature per vector product, whatever the place of its operands.
//!
//! [`mxv`], [`vxm`], [`mxv_sparse`] and [`vxm_sparse`] take their operands
//! where they live: on the host ([`SparseMatrix`], [`DenseVector`],
//! [`SparseVector`], a [`Mask`] and an [`Accum`] closure) or on one device
//! ([`DeviceMatrix`](super::gpu::DeviceMatrix),
//! [`DeviceDenseVector`](super::gpu::DeviceDenseVector),
//! [`DeviceSparseVector`](super::gpu::DeviceSparseVector), a
//! [`DeviceMask`](super::gpu::DeviceMask) and a
//! [`GpuBinaryOp`](super::gpu::GpuBinaryOp) accumulator). The output's type
//! decides the place (as the operands' storage does in candle, and one branch
//! inside each operation in SuiteSparse): [`ProductOutput`] names the mask
//! and accumulator types of that place, and the operation traits
//! ([`MxvOp`], …) are implemented once per place — here for the host, in
//! `matrix::gpu` for a device (or, without the `cuda` feature, for the
//! uninhabited stand-in types that exist only so that code generic over the
//! place compiles). Mixing places does not type-check; data moves only by
//! an explicit upload or download.
//!
//! Semantics are the same on every place: `w⟨mask, replace⟩ = accum(w, t)`
//! (see the [module](super)); errors are [`crate::Error`].
//!
//! ```
//! use kronograph::matrix::{mxv, Descriptor, DenseVector, SparseMatrix};
//! use kronograph::semirings::PlusTimes;
//! let a = SparseMatrix::try_from_triplets(2, 2, &[0, 1], &[1, 0], &[2.0, 3.0]).unwrap();
//! let x = DenseVector::full(vec![1.0, 1.0]);
//! let mut y = DenseVector::new(2);
//! mxv(&mut y, None, None, PlusTimes::new(), &a, &x, &Descriptor::DEFAULT).unwrap();
//! assert_eq!(y.values(), &[2.0, 3.0]);
//! ```

use super::gpu::GpuElement;
use super::mask::{Descriptor, Mask};
use super::ops_vec::{mxv_host, mxv_sparse_host, vxm_host, vxm_sparse_host};
use super::vec_kernels::SpmspvOptions;
use super::{DenseVector, Element, SparseMatrix, SparseVector};
use crate::semirings::Semiring;

/// A matrix on its place, and the vectors, masks and accumulators of that
/// place: what an algorithm written once over the operations needs to start
/// and finish (vectors made from host values there, the result brought
/// back), and what the method form's builders ([`Mxv`](super::Mxv), …) take. Implemented by
/// [`SparseMatrix`] (the host) and
/// [`DeviceMatrix`](super::gpu::DeviceMatrix) (its device and stream).
pub trait Located {
    /// A dense vector on this place.
    type Dense<U: GpuElement>;
    /// A sparse vector on this place.
    type Sparse<U: GpuElement>;
    /// The mask of a vector output on this place ([`Mask`] on the host,
    /// [`DeviceMask`](super::gpu::DeviceMask) on a device).
    type VectorMask<'m>;
    /// The mask of a matrix output on this place
    /// ([`MatrixMask`](super::MatrixMask) on the host,
    /// [`DeviceMatrixMask`](super::gpu::DeviceMatrixMask) on a device).
    type MatrixMask<'m>;
    /// An accumulator of `C` values on this place (a closure on the host, a
    /// [`GpuBinaryOp`](super::gpu::GpuBinaryOp) on a device).
    type Accum<'m, C>: ?Sized;

    /// Rows.
    fn nrows(&self) -> usize;

    /// Columns.
    fn ncols(&self) -> usize;

    /// The full dense vector of `values` on this place (an upload on a device).
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn dense<U: GpuElement>(&self, values: Vec<U>) -> crate::Result<Self::Dense<U>>;

    /// The sparse vector of size `n` with entries `indices` (strictly
    /// increasing, below `n`) and `values`, on this place (of the matrix's
    /// index width on a device).
    ///
    /// # Errors
    /// [`MatrixError`](super::MatrixError) for bad indices; CUDA errors on a device.
    fn sparse<U: GpuElement>(&self, n: usize, indices: Vec<usize>, values: Vec<U>) -> crate::Result<Self::Sparse<U>>;

    /// Stored entries of `v` (known on the host on every place).
    fn sparse_nnz<U: GpuElement>(v: &Self::Sparse<U>) -> usize;

    /// The values of a full dense vector of this place on the host (a
    /// download on a device; an absent entry reads as `U::default()` on the
    /// host, as its stored value on a device).
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn dense_to_host<U: GpuElement>(v: &Self::Dense<U>) -> crate::Result<Vec<U>>;
}

impl<T: Element> Located for SparseMatrix<T> {
    type Dense<U: GpuElement> = DenseVector<U>;
    type Sparse<U: GpuElement> = SparseVector<U>;
    type VectorMask<'m> = Mask<'m>;
    type MatrixMask<'m> = super::MatrixMask<'m>;
    type Accum<'m, C> = dyn Fn(C, C) -> C + Sync + 'm;

    fn nrows(&self) -> usize {
        SparseMatrix::nrows(self)
    }

    fn ncols(&self) -> usize {
        SparseMatrix::ncols(self)
    }

    fn dense<U: GpuElement>(&self, values: Vec<U>) -> crate::Result<DenseVector<U>> {
        Ok(DenseVector::full(values))
    }

    fn sparse<U: GpuElement>(&self, n: usize, indices: Vec<usize>, values: Vec<U>) -> crate::Result<SparseVector<U>> {
        Ok(SparseVector::try_new(n, indices, values)?)
    }

    fn sparse_nnz<U: GpuElement>(v: &SparseVector<U>) -> usize {
        v.nnz()
    }

    fn dense_to_host<U: GpuElement>(v: &DenseVector<U>) -> crate::Result<Vec<U>> {
        Ok((0..v.len()).map(|i| v.get(i).unwrap_or_default()).collect())
    }
}

/// An output vector of a product on its place: what masks and accumulates it there.
pub trait ProductOutput {
    /// The element type.
    type Elem;
    /// The mask on this place ([`Mask`] on the host).
    type Mask<'m>: ?Sized;
    /// An accumulator on this place (a closure on the host, a
    /// [`GpuBinaryOp`](super::gpu::GpuBinaryOp) on a device).
    type AccumOp<'m>: ?Sized;
}

/// `w⟨mask⟩ = accum(w, A u)` on the place of `Self` (the output `w`), `A: A`, `u: U`.
pub trait MxvOp<S: Semiring, A: ?Sized, U: ?Sized>: ProductOutput<Elem = S::C> {
    /// See [`mxv`].
    ///
    /// # Errors
    /// As [`mxv`].
    #[allow(clippy::too_many_arguments)]
    fn mxv_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        a: &A,
        u: &U,
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

/// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)` on the place of `Self`.
pub trait VxmOp<S: Semiring, U: ?Sized, A: ?Sized>: ProductOutput<Elem = S::C> {
    /// See [`vxm`].
    ///
    /// # Errors
    /// As [`vxm`].
    #[allow(clippy::too_many_arguments)]
    fn vxm_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        u: &U,
        a: &A,
        desc: &Descriptor,
    ) -> crate::Result<()>;
}

/// SpMSpV `w⟨mask⟩ = accum(w, A u)` on the place of `Self` (a sparse output).
pub trait MxvSparseOp<S: Semiring, A: ?Sized, U: ?Sized>: ProductOutput<Elem = S::C> {
    /// See [`mxv_sparse`].
    ///
    /// # Errors
    /// As [`mxv_sparse`].
    #[allow(clippy::too_many_arguments)]
    fn mxv_sparse_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        a: &A,
        u: &U,
        desc: &Descriptor,
        opts: &SpmspvOptions,
    ) -> crate::Result<()>;
}

/// SpMSpV `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)` on the place of `Self` (a sparse output).
pub trait VxmSparseOp<S: Semiring, U: ?Sized, A: ?Sized>: ProductOutput<Elem = S::C> {
    /// See [`vxm_sparse`].
    ///
    /// # Errors
    /// As [`vxm_sparse`].
    #[allow(clippy::too_many_arguments)]
    fn vxm_sparse_op(
        &mut self,
        mask: Option<&Self::Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        u: &U,
        a: &A,
        desc: &Descriptor,
        opts: &SpmspvOptions,
    ) -> crate::Result<()>;
}

/// `d = min(d, t)` entry by entry for a full dense `d` and a sparse `t`,
/// and `changed` = the entries of `t` that lowered `d` (in increasing
/// index order, with their new values): the relaxation step of
/// Bellman–Ford and of min-label propagation (LAGraph writes it as an
/// `eWiseMult` with `<`, a `select` and an `assign`; here it is one pass).
pub trait AssignMinOp<Sp: ?Sized> {
    /// See [`assign_min`].
    ///
    /// # Errors
    /// As [`assign_min`].
    fn assign_min_op(&mut self, t: &Sp, changed: &mut Sp) -> crate::Result<()>;
}

impl<T: Element> ProductOutput for DenseVector<T> {
    type Elem = T;
    type Mask<'m> = Mask<'m>;
    type AccumOp<'m> = dyn Fn(T, T) -> T + Sync + 'm;
}

impl<T: Element> ProductOutput for SparseVector<T> {
    type Elem = T;
    type Mask<'m> = Mask<'m>;
    type AccumOp<'m> = dyn Fn(T, T) -> T + Sync + 'm;
}

impl<S: Semiring> MxvOp<S, SparseMatrix<S::A>, DenseVector<S::B>> for DenseVector<S::C>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    fn mxv_op(
        &mut self,
        mask: Option<&Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        a: &SparseMatrix<S::A>,
        u: &DenseVector<S::B>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(mxv_host(self, mask, accum, s, a, u, desc)?)
    }
}

impl<S: Semiring> VxmOp<S, DenseVector<S::A>, SparseMatrix<S::B>> for DenseVector<S::C>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    fn vxm_op(
        &mut self,
        mask: Option<&Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        u: &DenseVector<S::A>,
        a: &SparseMatrix<S::B>,
        desc: &Descriptor,
    ) -> crate::Result<()> {
        Ok(vxm_host(self, mask, accum, s, u, a, desc)?)
    }
}

impl<S: Semiring> MxvSparseOp<S, SparseMatrix<S::A>, SparseVector<S::B>> for SparseVector<S::C>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    fn mxv_sparse_op(
        &mut self,
        mask: Option<&Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        a: &SparseMatrix<S::A>,
        u: &SparseVector<S::B>,
        desc: &Descriptor,
        opts: &SpmspvOptions,
    ) -> crate::Result<()> {
        Ok(mxv_sparse_host(self, mask, accum, s, a, u, desc, opts)?)
    }
}

impl<S: Semiring> VxmSparseOp<S, SparseVector<S::A>, SparseMatrix<S::B>> for SparseVector<S::C>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    fn vxm_sparse_op(
        &mut self,
        mask: Option<&Mask<'_>>,
        accum: Option<&Self::AccumOp<'_>>,
        s: S,
        u: &SparseVector<S::A>,
        a: &SparseMatrix<S::B>,
        desc: &Descriptor,
        opts: &SpmspvOptions,
    ) -> crate::Result<()> {
        Ok(vxm_sparse_host(self, mask, accum, s, u, a, desc, opts)?)
    }
}

impl<T: Element + PartialOrd> AssignMinOp<SparseVector<T>> for DenseVector<T> {
    fn assign_min_op(&mut self, t: &SparseVector<T>, changed: &mut SparseVector<T>) -> crate::Result<()> {
        super::check_dim("assign_min", "t length", self.len(), t.len())?;
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for (v, tv) in t.iter() {
            if self.get(v).is_none_or(|d| tv < d) {
                self.set(v, tv);
                idx.push(v);
                val.push(tv);
            }
        }
        *changed = SparseVector::from_sorted(t.len(), idx, val);
        Ok(())
    }
}

// ------------------------------------------------------------------ the operations

/// `w⟨mask⟩ = accum(w, A u)`: `t(i) = ⊕_k A(i, k) ⊗ u(k)` over the stored
/// `A(i, k)` and present `u(k)` (`Aᵀ` with `desc.transpose_first`), on the
/// place of the operands (host or one device).
///
/// On the host: pull form, parallel over output rows, `O(nnz(A) + n)`; rows
/// the mask forbids are not computed. On a device: one thread per output
/// row, terms in increasing `k`, early exit at the monoid's terminal value;
/// with an accumulator the product goes to a temporary first. See the
/// [module](super) for the order of ⊕. The method form is [`SparseMatrix::mxv`].
///
/// # Examples
/// ```
/// use kronograph::matrix::{mxv, Descriptor, DenseVector, SparseMatrix};
/// use kronograph::semirings::PlusTimes;
/// let a = SparseMatrix::try_from_triplets(2, 2, &[0, 0, 1], &[0, 1, 1], &[1.0, 2.0, 3.0]).unwrap();
/// let x = DenseVector::full(vec![1.0, 1.0]);
/// let mut y = DenseVector::new(2);
/// mxv(&mut y, None, None, PlusTimes::new(), &a, &x, &Descriptor::DEFAULT).unwrap();
/// assert_eq!(y.values(), &[3.0, 3.0]);
/// // Aᵀ x by the descriptor
/// mxv(&mut y, None, None, PlusTimes::new(), &a, &x, &Descriptor::DEFAULT.transpose_first()).unwrap();
/// assert_eq!(y.values(), &[1.0, 5.0]);
/// ```
///
/// # Errors
/// [`MatrixError::DimensionMismatch`](super::MatrixError) (as
/// [`Error::Matrix`](crate::Error)) if `u`, `w` or the mask do not fit `A`;
/// on a device also operands on different devices or of another index
/// width, NVRTC and driver errors.
pub fn mxv<S, W, A, U>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    s: S,
    a: &A,
    u: &U,
    desc: &Descriptor,
) -> crate::Result<()>
where
    S: Semiring,
    W: MxvOp<S, A, U>,
    A: ?Sized,
    U: ?Sized,
{
    w.mxv_op(mask, accum, s, a, u, desc)
}

/// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)`: `t(j) = ⊕_k u(k) ⊗ A(k, j)` (`Aᵀ` with
/// `desc.transpose_second`), pull over the columns of `A` (its cached
/// transpose on the host, its CSC on a device), `O(nnz(A) + n)`.
///
/// # Errors
/// As [`mxv`].
pub fn vxm<S, W, U, A>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    s: S,
    u: &U,
    a: &A,
    desc: &Descriptor,
) -> crate::Result<()>
where
    S: Semiring,
    W: VxmOp<S, U, A>,
    A: ?Sized,
    U: ?Sized,
{
    w.vxm_op(mask, accum, s, u, a, desc)
}

/// `w⟨mask⟩ = accum(w, A u)` with sparse `u` and `w`: SpMSpV (push) over the
/// columns of `A` that `u` selects, merged by `opts.strategy`, or pull, by
/// `opts.direction` (on a device: push, with the three merge strategies of
/// Yang, Wang & Owens and their cost model for [`MergeStrategy::Auto`](super::MergeStrategy)).
/// On the host push costs `O(flops + nnz(u)·B·log d)` for `B` buckets,
/// pull `O(nnz(A) + n)`. Results are identical whatever the options.
///
/// # Errors
/// As [`mxv`].
#[allow(clippy::too_many_arguments)]
pub fn mxv_sparse<S, W, A, U>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    s: S,
    a: &A,
    u: &U,
    desc: &Descriptor,
    opts: &SpmspvOptions,
) -> crate::Result<()>
where
    S: Semiring,
    W: MxvSparseOp<S, A, U>,
    A: ?Sized,
    U: ?Sized,
{
    w.mxv_sparse_op(mask, accum, s, a, u, desc, opts)
}

/// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)` with sparse `u` and `w`: SpMSpV (push) over
/// the rows of `A` that `u` selects, or pull; see [`mxv_sparse`].
///
/// ```
/// use kronograph::matrix::*;
/// use kronograph::semirings::{MinPlus, PlusTimes};
/// let a = SparseMatrix::try_from_triplets(4, 4, &[0, 0, 1, 1, 2, 3], &[1, 2, 2, 3, 3, 0], &[2.0, 3.0, 1.0, 4.0, 5.0, 1.0]).unwrap();
/// let x = SparseVector::try_new(4, vec![0, 1], vec![1.0, 2.0]).unwrap();
/// let mut y = SparseVector::new(4);
/// vxm_sparse(&mut y, None, None, PlusTimes::<f64>::new(), &x, &a, &Descriptor::DEFAULT, &SpmspvOptions::default()).unwrap();
/// assert_eq!((y.indices(), y.values()), (&[1, 2, 3][..], &[2.0, 5.0, 8.0][..]));
/// vxm_sparse(&mut y, None, None, MinPlus::<f64>::new(), &x, &a, &Descriptor::DEFAULT, &SpmspvOptions::default()).unwrap();
/// assert_eq!(y.values(), &[3.0, 3.0, 6.0]);
/// ```
///
/// # Errors
/// As [`mxv`].
#[allow(clippy::too_many_arguments)]
pub fn vxm_sparse<S, W, U, A>(
    w: &mut W,
    mask: Option<&W::Mask<'_>>,
    accum: Option<&W::AccumOp<'_>>,
    s: S,
    u: &U,
    a: &A,
    desc: &Descriptor,
    opts: &SpmspvOptions,
) -> crate::Result<()>
where
    S: Semiring,
    W: VxmSparseOp<S, U, A>,
    A: ?Sized,
    U: ?Sized,
{
    w.vxm_sparse_op(mask, accum, s, u, a, desc, opts)
}

/// `d = min(d, t)` for a full dense `d` ([`DenseVector`] on the host,
/// [`DeviceDenseVector`](super::gpu::DeviceDenseVector) on a device) and a
/// sparse `t` on the same place; `changed` becomes the entries of `t` that
/// lowered `d` (increasing indices, new values). On a device one kernel
/// lowers and flags, a scan compacts the flags (its flag buffer is kept in
/// `d` between calls).
///
/// # Errors
/// [`MatrixError::DimensionMismatch`](super::MatrixError) if `t` does not fit
/// `d`; on a device, CUDA errors.
pub fn assign_min<D, Sp>(d: &mut D, t: &Sp, changed: &mut Sp) -> crate::Result<()>
where
    D: AssignMinOp<Sp>,
    Sp: ?Sized,
{
    d.assign_min_op(t, changed)
}
