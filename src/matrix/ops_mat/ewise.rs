//! Element-wise operations over two matrices (`ewise_add`, `ewise_mult`) and
//! maps over the entries of one (`apply`, `select`, `transpose`).

use super::{build_rows, check_dim, check_mask, check_out, in_sorted, oriented, write_matrix};
use crate::matrix::mask::{Accum, Descriptor, MatrixMask};
use crate::matrix::merge::merge_sorted;
use crate::matrix::{Element, MatrixError, SparseMatrix};

/// Element-wise over the union (`add`) or intersection (`mult`) of two patterns.
#[allow(clippy::too_many_arguments)]
fn ewise<A: Element, B: Element, C: Element>(
    op_name: &'static str,
    c: &mut SparseMatrix<C>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, C>,
    a: &SparseMatrix<A>,
    b: &SparseMatrix<B>,
    desc: &Descriptor,
    f: impl Fn(Option<A>, Option<B>) -> Option<C> + Sync,
) -> Result<(), MatrixError> {
    let (ar, sa) = oriented(a, desc.transpose_first);
    let (br, sb) = oriented(b, desc.transpose_second);
    check_dim(op_name, "rows of B", sa.0, sb.0)?;
    check_dim(op_name, "columns of B", sa.1, sb.1)?;
    check_out(op_name, c, sa)?;
    check_mask(op_name, mask, sa)?;
    let t = build_rows(sa.0, sa.1, |i| {
        let (ai, av) = ar.row(i);
        let (bi, bv) = br.row(i);
        let pat = mask.map(|m| m.row_pattern(i)).unwrap_or(&[]);
        let mut mc = 0;
        let (mut oi, mut ov) = (Vec::new(), Vec::new());
        merge_sorted(ai, av, bi, bv, |j, x, y| {
            if mask.is_some_and(|m| in_sorted(pat, &mut mc, j) == m.is_complemented()) {
                return;
            }
            if let Some(z) = f(x, y) {
                oi.push(j);
                ov.push(z);
            }
        });
        (oi, ov)
    });
    write_matrix(c, mask, accum, desc.replace, t);
    Ok(())
}

/// `C⟨M⟩ = accum(C, A ⊕ B)`: union of patterns; `op(a, b)` where both are
/// stored, the stored one elsewhere. `O(nnz(A) + nnz(B) + m)`.
///
/// # Examples
/// ```
/// use kronograph::matrix::{ewise_add, Descriptor, SparseMatrix};
/// let a = SparseMatrix::try_from_triplets(1, 3, &[0, 0], &[0, 1], &[1, 2]).unwrap();
/// let b = SparseMatrix::try_from_triplets(1, 3, &[0, 0], &[1, 2], &[10, 20]).unwrap();
/// let mut c = SparseMatrix::new(1, 3);
/// ewise_add(&mut c, None, None, |x: i32, y: i32| x + y, &a, &b, &Descriptor::DEFAULT).unwrap();
/// assert_eq!(c.values(), &[1, 12, 20]);
/// ```
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if the shapes differ.
pub fn ewise_add<T: Element>(
    c: &mut SparseMatrix<T>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, T>,
    op: impl Fn(T, T) -> T + Sync,
    a: &SparseMatrix<T>,
    b: &SparseMatrix<T>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    ewise("ewise_add", c, mask, accum, a, b, desc, |x, y| match (x, y) {
        (Some(x), Some(y)) => Some(op(x, y)),
        (x, None) => x,
        (None, y) => y,
    })
}

/// `C⟨M⟩ = accum(C, A ⊗ B)`: intersection of patterns, `op(a, b)`.
/// `O(nnz(A) + nnz(B) + m)`.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if the shapes differ.
pub fn ewise_mult<A: Element, B: Element, C: Element>(
    c: &mut SparseMatrix<C>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, C>,
    op: impl Fn(A, B) -> C + Sync,
    a: &SparseMatrix<A>,
    b: &SparseMatrix<B>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    ewise("ewise_mult", c, mask, accum, a, b, desc, |x, y| match (x, y) {
        (Some(x), Some(y)) => Some(op(x, y)),
        _ => None,
    })
}

/// Maps the entries of `A` (or `Aᵀ`) with `f(i, j, a) -> Option<c>` under the mask.
fn map_entries<A: Element, C: Element>(
    op_name: &'static str,
    c: &mut SparseMatrix<C>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, C>,
    a: &SparseMatrix<A>,
    desc: &Descriptor,
    f: impl Fn(usize, usize, A) -> Option<C> + Sync,
) -> Result<(), MatrixError> {
    let (ar, sa) = oriented(a, desc.transpose_first);
    check_out(op_name, c, sa)?;
    check_mask(op_name, mask, sa)?;
    let t = build_rows(sa.0, sa.1, |i| {
        let (ai, av) = ar.row(i);
        let pat = mask.map(|m| m.row_pattern(i)).unwrap_or(&[]);
        let mut mc = 0;
        let (mut oi, mut ov) = (Vec::new(), Vec::new());
        for (&j, &x) in ai.iter().zip(av) {
            if mask.is_some_and(|m| in_sorted(pat, &mut mc, j) == m.is_complemented()) {
                continue;
            }
            if let Some(z) = f(i, j, x) {
                oi.push(j);
                ov.push(z);
            }
        }
        (oi, ov)
    });
    write_matrix(c, mask, accum, desc.replace, t);
    Ok(())
}

/// `C⟨M⟩ = accum(C, f(A))` on the stored entries (`Aᵀ` by the descriptor). `O(nnz + m)`.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if the shapes do not fit.
pub fn apply<A: Element, C: Element>(
    c: &mut SparseMatrix<C>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, C>,
    f: impl Fn(A) -> C + Sync,
    a: &SparseMatrix<A>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    map_entries("apply", c, mask, accum, a, desc, |_, _, x| Some(f(x)))
}

/// `C⟨M⟩ = accum(C, select(A))`: the entries with `pred(i, j, a)` (e.g. the
/// strictly lower triangle: `|i, j, _| j < i`). `O(nnz + m)`.
///
/// # Examples
/// ```
/// use kronograph::matrix::{select, Descriptor, SparseMatrix};
/// let a = SparseMatrix::try_from_triplets(2, 2, &[0, 1], &[1, 0], &[1.0, 1.0]).unwrap();
/// let mut l = SparseMatrix::new(2, 2);
/// select(&mut l, None, None, |i: usize, j: usize, _: f64| j < i, &a, &Descriptor::DEFAULT).unwrap();
/// assert_eq!((l.nnz(), l.get(1, 0)), (1, Some(1.0)));
/// ```
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if the shapes do not fit.
pub fn select<T: Element>(
    c: &mut SparseMatrix<T>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, T>,
    pred: impl Fn(usize, usize, T) -> bool + Sync,
    a: &SparseMatrix<T>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    map_entries("select", c, mask, accum, a, desc, |i, j, x| if pred(i, j, x) { Some(x) } else { None })
}

/// `C⟨M⟩ = accum(C, Aᵀ)` (with `desc.transpose_first`, `A` itself). `O(nnz + n)`.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if the shapes do not fit.
pub fn transpose<T: Element>(
    c: &mut SparseMatrix<T>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, T>,
    a: &SparseMatrix<T>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    let d = Descriptor { transpose_first: !desc.transpose_first, ..*desc };
    map_entries("transpose", c, mask, accum, a, &d, |_, _, x| Some(x))
}
