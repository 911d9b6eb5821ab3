//! The masked product reduced to a scalar, on every place:
//! [`reduce_mxm`] (`⊕` of the entries of `C⟨M⟩ = A ⊕.⊗ B`, `C` never
//! stored on a device) and [`mxm_costs`] (the operation counts of its two
//! forms), what triangle counting is written once over.

use super::ops_mat::{mxm, reduce_mxm_dot, reduce_scalar};
use super::{Descriptor, Element, MatrixMask, MxmMethod, SparseMatrix};
use crate::semirings::Semiring;

/// A matrix `A` on its place that multiplies `B` under a matrix mask and
/// reduces the product: implemented for [`SparseMatrix`] (the host) and
/// [`DeviceMatrix`](super::gpu::DeviceMatrix).
pub trait MxmReduceOp<S: Semiring, B: ?Sized> {
    /// The matrix mask on this place ([`MatrixMask`] on the host,
    /// [`DeviceMatrixMask`](super::gpu::DeviceMatrixMask) on a device).
    type MatrixMask<'m>: ?Sized;

    /// See [`reduce_mxm`].
    ///
    /// # Errors
    /// As [`reduce_mxm`].
    fn reduce_mxm_op(
        &self,
        mask: &Self::MatrixMask<'_>,
        s: S,
        b: &B,
        desc: &Descriptor,
        method: MxmMethod,
    ) -> crate::Result<S::C>;

    /// See [`mxm_costs`].
    ///
    /// # Errors
    /// As [`reduce_mxm`].
    fn mxm_costs_op(&self, mask: &Self::MatrixMask<'_>, s: S, b: &B, desc: &Descriptor) -> crate::Result<[u64; 2]>;
}

/// `⊕` (the semiring's monoid) of the entries of `C⟨M⟩ = A ⊕.⊗ B` (`Bᵀ`
/// with `desc.transpose_second`; the semiring's identity when `C` is
/// empty), on the place of the operands, by `method`: on the host, for a
/// plain mask and `Dot` or `Auto`, dot products at the mask's positions
/// never stored (each intersection a merge, a gallop or a marker probe by
/// the lists' lengths; blocks of rows in parallel, their sums folded in
/// row order, the same for any thread count), else
/// [`mxm`](super::op::mxm) with `method` and a fold of the product's
/// entries in storage order; on a device, for a plain mask, every term
/// `A(i,k) ⊗ B(k,j)` folded where it is found, `C` never stored: `Dot`
/// hashes each row `A(i,:)` and probes the columns of `B` the mask lists,
/// `Gustavson` hashes each mask row and probes the rows of `B` that
/// `A(i,:)` lists (a warp per short row, a block per piece of a long one,
/// a binary search for a row too long for a block's table), `Auto`
/// whichever [`GpuMxmStrategy::choose`](super::gpu::GpuMxmStrategy::choose)
/// prefers for the operation counts measured on the device; for a
/// complemented mask the row-wise hash product, reduced there (one scalar
/// read back).
///
/// # Errors
/// [`MatrixError::DimensionMismatch`](super::MatrixError) for operands that
/// do not fit; on a device `desc.transpose_first`, operands on other
/// devices or widths, NVRTC and driver errors.
pub fn reduce_mxm<S, A, B>(
    mask: &A::MatrixMask<'_>,
    s: S,
    a: &A,
    b: &B,
    desc: &Descriptor,
    method: MxmMethod,
) -> crate::Result<S::C>
where
    S: Semiring,
    A: MxmReduceOp<S, B> + ?Sized,
    B: ?Sized,
{
    a.reduce_mxm_op(mask, s, b, desc, method)
}

/// The operation counts `[dot, row-wise]` of `C⟨M⟩ = A ⊕.⊗ B` (`Bᵀ` by
/// `desc`): `dot = Σ_{(i,j) ∈ M} |A(i,:)| + |B(:,j)|` (merge lengths),
/// `row-wise = Σ_i |M(i,:)| + Σ_{k ∈ A(i,:)} |B(k,:)|` (gathered terms);
/// counted on the place of the operands.
///
/// # Errors
/// As [`reduce_mxm`].
pub fn mxm_costs<S, A, B>(mask: &A::MatrixMask<'_>, s: S, a: &A, b: &B, desc: &Descriptor) -> crate::Result<[u64; 2]>
where
    S: Semiring,
    A: MxmReduceOp<S, B> + ?Sized,
    B: ?Sized,
{
    a.mxm_costs_op(mask, s, b, desc)
}

impl<S: Semiring> MxmReduceOp<S, SparseMatrix<S::B>> for SparseMatrix<S::A>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    type MatrixMask<'m> = MatrixMask<'m>;

    fn reduce_mxm_op(
        &self,
        mask: &MatrixMask<'_>,
        s: S,
        b: &SparseMatrix<S::B>,
        desc: &Descriptor,
        method: MxmMethod,
    ) -> crate::Result<S::C> {
        if !mask.is_complemented() && method != MxmMethod::Gustavson {
            // the dot form never stores C
            return Ok(reduce_mxm_dot(mask, s, self, b, desc)?);
        }
        let (nrows, ncols) = mask.shape();
        let mut c = SparseMatrix::<S::C>::new(nrows, ncols);
        let monoid = s.add_monoid();
        mxm(&mut c, Some(mask), None, s, self, b, desc, method)?;
        Ok(reduce_scalar(monoid, &c))
    }

    fn mxm_costs_op(
        &self,
        mask: &MatrixMask<'_>,
        _: S,
        b: &SparseMatrix<S::B>,
        desc: &Descriptor,
    ) -> crate::Result<[u64; 2]> {
        let (nrows, ncols) = mask.shape();
        super::check_dim("mxm_costs", "mask rows", self.nrows(), nrows)?;
        // the row pointers of B as multiplied and of its transpose (`desc.transpose_first` not counted)
        let t = b.transposed_csr().indptr().into_raw_storage();
        let (b_rows, b_cols) = if desc.transpose_second { (t, b.indptr()) } else { (b.indptr(), t) };
        super::check_dim("mxm_costs", "mask columns", b_cols.len() - 1, ncols)?;
        let len = |p: &[usize], i: usize| (p[i + 1] - p[i]) as u64;
        let (mut dot, mut rows) = (0u64, 0u64);
        for i in 0..nrows {
            let ai = self.row(i).0;
            let m = mask.row_pattern(i);
            dot += m.iter().map(|&j| ai.len() as u64 + len(b_cols, j)).sum::<u64>();
            rows += m.len() as u64 + ai.iter().map(|&k| len(b_rows, k)).sum::<u64>();
        }
        Ok([dot, rows])
    }
}
