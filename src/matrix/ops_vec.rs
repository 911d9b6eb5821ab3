//! Vector products: mxv / vxm (dense and sparse vectors, SpMSpV with three
//! merge strategies and push/pull). The element-wise vector operations are in
//! `ewise_vec`.

use super::mask::{allows, write_rule, Accum, Descriptor, Mask};
use super::merge::merge_sorted;
use super::vec_kernels::{product_sparse, pull, Rows, SpmspvOptions};
use super::{check_dim, DenseVector, Element, MatrixError, SparseMatrix, SparseVector};
use crate::semirings::{Position, Semiring};
use rayon::prelude::*;

// ------------------------------------------------------------------ write-back

/// `w⟨mask, replace⟩ = accum(w, t)` for a dense output; `t` given as bitmap arrays.
pub(crate) fn write_dense<T: Element>(
    w: &mut DenseVector<T>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, T>,
    replace: bool,
    t_vals: &[T],
    t_pres: &[bool],
) {
    let DenseVector { values, present } = w;
    values.par_iter_mut().zip(present.par_iter_mut()).enumerate().with_min_len(4096).for_each(|(i, (wv, wp))| {
        let (old, new) = (wp.then_some(*wv), t_pres[i].then(|| t_vals[i]));
        match write_rule(allows(mask, i), replace, accum, old, new) {
            Some(v) => {
                *wv = v;
                *wp = true;
            }
            None => *wp = false,
        }
    });
}

/// `w⟨mask, replace⟩ = accum(w, t)` for a sparse output.
pub(crate) fn write_sparse<T: Element>(
    w: &mut SparseVector<T>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, T>,
    replace: bool,
    t: SparseVector<T>,
) {
    if w.nnz() == 0 {
        // Nothing to keep or accumulate: T's entries (already restricted to
        // allowed positions by every kernel).
        let n = w.len();
        let (_, ti, tv) = t.into_parts();
        *w = SparseVector::from_sorted(n, ti, tv);
        return;
    }
    let n = w.len();
    let (wi, wv) = (w.indices(), w.values());
    let (ti, tv) = (t.indices(), t.values());
    let (mut oi, mut ov) = (Vec::new(), Vec::new());
    merge_sorted(wi, wv, ti, tv, |i, old, new| {
        if let Some(v) = write_rule(allows(mask, i), replace, accum, old, new) {
            oi.push(i);
            ov.push(v);
        }
    });
    *w = SparseVector::from_sorted(n, oi, ov);
}

pub(super) fn check_mask_len(op: &'static str, mask: Option<&Mask<'_>>, n: usize) -> Result<(), MatrixError> {
    match mask {
        Some(m) => check_dim(op, "mask length", n, m.len()),
        None => Ok(()),
    }
}

/// `A` as a vector product reads it: the output runs over `A`'s rows when
/// `by_rows` (`A u`, or `uᵀ Aᵀ`), else over its columns (`uᵀ A`, `Aᵀ u`),
/// and the input over the other side.
struct ProductSide<'a, T> {
    a: &'a SparseMatrix<T>,
    by_rows: bool,
}

impl<'a, T: Element> ProductSide<'a, T> {
    /// The side, after checking `u`, `w` and the mask against it for the
    /// product named `op`.
    fn checked(
        op: &'static str,
        a: &'a SparseMatrix<T>,
        by_rows: bool,
        u_len: usize,
        w_len: usize,
        mask: Option<&Mask<'_>>,
    ) -> Result<Self, MatrixError> {
        let side = ProductSide { a, by_rows };
        check_dim(op, "u length", side.in_len(), u_len)?;
        check_dim(op, "w length", side.out_len(), w_len)?;
        check_mask_len(op, mask, side.out_len())?;
        Ok(side)
    }

    fn out_len(&self) -> usize {
        if self.by_rows {
            self.a.nrows()
        } else {
            self.a.ncols()
        }
    }

    fn in_len(&self) -> usize {
        if self.by_rows {
            self.a.ncols()
        } else {
            self.a.nrows()
        }
    }

    /// One row per output position: what the pull kernel walks.
    fn out_rows(&self) -> Rows<'a, T> {
        if self.by_rows {
            Rows::of(self.a.as_sprs())
        } else {
            Rows::of(self.a.transposed_csr())
        }
    }

    /// One row per input position: what the push kernel walks.
    fn in_rows(&self) -> Rows<'a, T> {
        if self.by_rows {
            Rows::of(self.a.transposed_csr())
        } else {
            Rows::of(self.a.as_sprs())
        }
    }
}

// ------------------------------------------------------------------ the products on the host

/// [`mxv`](super::mxv) on the host (its [`MatrixError`]s).
pub(crate) fn mxv_host<S: Semiring>(
    w: &mut DenseVector<S::C>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, S::C>,
    s: S,
    a: &SparseMatrix<S::A>,
    u: &DenseVector<S::B>,
    desc: &Descriptor,
) -> Result<(), MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let (tv, tp) = mxv_t(w.len(), mask, &s, a, u, desc)?;
    write_dense(w, mask, accum, desc.replace, &tv, &tp);
    Ok(())
}

/// The product `t` of [`mxv_host`] (checked against an output of length `w_len`).
pub(crate) fn mxv_t<S: Semiring>(
    w_len: usize,
    mask: Option<&Mask<'_>>,
    s: &S,
    a: &SparseMatrix<S::A>,
    u: &DenseVector<S::B>,
    desc: &Descriptor,
) -> Result<(Vec<S::C>, Vec<bool>), MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let side = ProductSide::checked("mxv", a, !desc.transpose_first, u.len(), w_len, mask)?;
    Ok(pull(side.out_len(), side.out_rows(), u.values(), u.present(), mask, s.add_monoid(), |av, xv, i, k| {
        s.multiply(av, xv, Position::new(i, k, 0))
    }))
}

/// [`vxm`](super::vxm) on the host.
pub(crate) fn vxm_host<S: Semiring>(
    w: &mut DenseVector<S::C>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, S::C>,
    s: S,
    u: &DenseVector<S::A>,
    a: &SparseMatrix<S::B>,
    desc: &Descriptor,
) -> Result<(), MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let (tv, tp) = vxm_t(w.len(), mask, &s, u, a, desc)?;
    write_dense(w, mask, accum, desc.replace, &tv, &tp);
    Ok(())
}

/// The product `t` of [`vxm_host`] (checked against an output of length `w_len`).
pub(crate) fn vxm_t<S: Semiring>(
    w_len: usize,
    mask: Option<&Mask<'_>>,
    s: &S,
    u: &DenseVector<S::A>,
    a: &SparseMatrix<S::B>,
    desc: &Descriptor,
) -> Result<(Vec<S::C>, Vec<bool>), MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let side = ProductSide::checked("vxm", a, desc.transpose_second, u.len(), w_len, mask)?;
    Ok(pull(side.out_len(), side.out_rows(), u.values(), u.present(), mask, s.add_monoid(), |bv, xv, j, k| {
        s.multiply(xv, bv, Position::new(0, k, j))
    }))
}

/// [`mxv_sparse`](super::mxv_sparse) on the host.
#[allow(clippy::too_many_arguments)]
pub(crate) fn mxv_sparse_host<S: Semiring>(
    w: &mut SparseVector<S::C>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, S::C>,
    s: S,
    a: &SparseMatrix<S::A>,
    u: &SparseVector<S::B>,
    desc: &Descriptor,
    opts: &SpmspvOptions,
) -> Result<(), MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let t = mxv_sparse_t(w.len(), mask, &s, a, u, desc, opts)?;
    write_sparse(w, mask, accum, desc.replace, t);
    Ok(())
}

/// The product `t` of [`mxv_sparse_host`] (checked against an output of length `w_len`).
pub(crate) fn mxv_sparse_t<S: Semiring>(
    w_len: usize,
    mask: Option<&Mask<'_>>,
    s: &S,
    a: &SparseMatrix<S::A>,
    u: &SparseVector<S::B>,
    desc: &Descriptor,
    opts: &SpmspvOptions,
) -> Result<SparseVector<S::C>, MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let side = ProductSide::checked("mxv_sparse", a, !desc.transpose_first, u.len(), w_len, mask)?;
    Ok(product_sparse(
        side.out_len(),
        side.in_rows(),
        side.out_rows(),
        u,
        mask,
        s.add_monoid(),
        |av, xv, i, k| s.multiply(av, xv, Position::new(i, k, 0)),
        opts,
    ))
}

/// [`vxm_sparse`](super::vxm_sparse) on the host.
#[allow(clippy::too_many_arguments)]
pub(crate) fn vxm_sparse_host<S: Semiring>(
    w: &mut SparseVector<S::C>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, S::C>,
    s: S,
    u: &SparseVector<S::A>,
    a: &SparseMatrix<S::B>,
    desc: &Descriptor,
    opts: &SpmspvOptions,
) -> Result<(), MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let t = vxm_sparse_t(w.len(), mask, &s, u, a, desc, opts)?;
    write_sparse(w, mask, accum, desc.replace, t);
    Ok(())
}

/// The product `t` of [`vxm_sparse_host`] (checked against an output of length `w_len`).
pub(crate) fn vxm_sparse_t<S: Semiring>(
    w_len: usize,
    mask: Option<&Mask<'_>>,
    s: &S,
    u: &SparseVector<S::A>,
    a: &SparseMatrix<S::B>,
    desc: &Descriptor,
    opts: &SpmspvOptions,
) -> Result<SparseVector<S::C>, MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let side = ProductSide::checked("vxm_sparse", a, desc.transpose_second, u.len(), w_len, mask)?;
    Ok(product_sparse(
        side.out_len(),
        side.in_rows(),
        side.out_rows(),
        u,
        mask,
        s.add_monoid(),
        |bv, xv, j, k| s.multiply(xv, bv, Position::new(0, k, j)),
        opts,
    ))
}
