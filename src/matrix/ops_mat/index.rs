//! Sub-matrices: `extract` (`C = A(I, J)`) and `assign` (`C(I, J) = A`).

use super::{build_rows, check_mask, check_out, oriented, write_matrix, write_matrix_general};
use crate::matrix::mask::{Accum, Descriptor, MatrixMask};
use crate::matrix::{check_dim, Element, MatrixError, SparseMatrix};

/// An index of `idx` past `size`: [`MatrixError::IndexOutOfBounds`]
/// (the host's and the device's check).
pub(crate) fn check_indices(what: &'static str, idx: &[usize], size: usize) -> Result<(), MatrixError> {
    match idx.iter().find(|&&i| i >= size) {
        Some(&i) => Err(MatrixError::IndexOutOfBounds { what, index: i, size }),
        None => Ok(()),
    }
}

/// The position of each index in `idx` (indices below `size`),
/// `usize::MAX` elsewhere; a repeated index is
/// [`MatrixError::DuplicateIndex`] (assign's maps, host and device).
pub(crate) fn positions(what: &'static str, idx: &[usize], size: usize) -> Result<Vec<usize>, MatrixError> {
    let mut inv = vec![usize::MAX; size];
    for (p, &i) in idx.iter().enumerate() {
        if std::mem::replace(&mut inv[i], p) != usize::MAX {
            return Err(MatrixError::DuplicateIndex { what, index: i });
        }
    }
    Ok(inv)
}

/// For each column `j < ncols`, the output columns `q` with `cols[q] = j`
/// (extract's map, host and device): `col_q[col_ptr[j]..col_ptr[j + 1]]`,
/// by a counting sort; returns `(col_ptr, col_q)`.
pub(crate) fn column_groups(cols: &[usize], ncols: usize) -> (Vec<usize>, Vec<usize>) {
    let mut col_ptr = vec![0usize; ncols + 1];
    for &j in cols {
        col_ptr[j + 1] += 1;
    }
    for j in 0..ncols {
        col_ptr[j + 1] += col_ptr[j];
    }
    let mut col_q = vec![0usize; cols.len()];
    let mut next = col_ptr.clone();
    for (q, &j) in cols.iter().enumerate() {
        col_q[next[j]] = q;
        next[j] += 1;
    }
    (col_ptr, col_q)
}

/// `C⟨M⟩ = accum(C, A(I, J))`: `T(p, q) = A(I[p], J[q])` (`Aᵀ` by the
/// descriptor); `C` is `|I| × |J|`. Indices may repeat.
/// `O(Σ_p |A(I[p], :)| + |J| + ncols)`.
///
/// # Errors
/// [`MatrixError::IndexOutOfBounds`]; [`MatrixError::DimensionMismatch`] if `C` is not `|I| × |J|`.
pub fn extract<T: Element>(
    c: &mut SparseMatrix<T>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, T>,
    a: &SparseMatrix<T>,
    rows: &[usize],
    cols: &[usize],
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    let (ar, sa) = oriented(a, desc.transpose_first);
    check_indices("extract row index", rows, sa.0)?;
    check_indices("extract column index", cols, sa.1)?;
    check_out("extract", c, (rows.len(), cols.len()))?;
    check_mask("extract", mask, (rows.len(), cols.len()))?;
    let (col_ptr, col_q) = column_groups(cols, sa.1);
    let t = build_rows(rows.len(), cols.len(), |p| {
        let (ai, av) = ar.row(rows[p]);
        let mut e: Vec<(usize, T)> = Vec::new();
        for (&j, &x) in ai.iter().zip(av) {
            for &q in &col_q[col_ptr[j]..col_ptr[j + 1]] {
                if mask.is_none_or(|m| m.allows(p, q)) {
                    e.push((q, x));
                }
            }
        }
        e.sort_unstable_by_key(|t| t.0);
        e.into_iter().unzip()
    });
    write_matrix(c, mask, accum, desc.replace, t);
    Ok(())
}

/// `C⟨M⟩(I, J) = accum(C(I, J), A)` (GrB_assign): `Z = C`; in the region
/// `I × J`, `Z(I[p], J[q]) = accum(C(I[p], J[q]), A(p, q))` (without an
/// accumulator the region becomes `A`'s entries: old entries where `A` has
/// none are removed); then `C⟨M, replace⟩ = Z` over the whole matrix.
/// `O(nnz(C) + nnz(A) + m + n)`.
///
/// # Errors
/// [`MatrixError::IndexOutOfBounds`], [`MatrixError::DuplicateIndex`], or
/// [`MatrixError::DimensionMismatch`] if `A` (or `Aᵀ`) is not `|I| × |J|`.
#[allow(clippy::too_many_arguments)]
pub fn assign<T: Element>(
    c: &mut SparseMatrix<T>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, T>,
    a: &SparseMatrix<T>,
    rows: &[usize],
    cols: &[usize],
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    let (ar, sa) = oriented(a, desc.transpose_first);
    check_dim("assign", "rows of A", rows.len(), sa.0)?;
    check_dim("assign", "columns of A", cols.len(), sa.1)?;
    check_indices("assign row index", rows, c.nrows())?;
    check_indices("assign column index", cols, c.ncols())?;
    let row_p = positions("assign row index", rows, c.nrows())?;
    let col_q = positions("assign column index", cols, c.ncols())?;
    check_mask("assign", mask, (c.nrows(), c.ncols()))?;
    let old = &*c;
    let z = build_rows(old.nrows(), old.ncols(), |i| {
        let (ci, cv) = old.row(i);
        if row_p[i] == usize::MAX {
            return (ci.to_vec(), cv.to_vec());
        }
        let (ai, av) = ar.row(row_p[i]);
        let mut e: Vec<(usize, T)> = Vec::new();
        // Old entries outside the region, or inside with accum (merged below).
        let mut region_old: Vec<(usize, T)> = Vec::new();
        for (&j, &v) in ci.iter().zip(cv) {
            if col_q[j] == usize::MAX {
                e.push((j, v));
            } else if accum.is_some() {
                region_old.push((j, v));
            }
        }
        region_old.sort_unstable_by_key(|t| t.0);
        let mut new: Vec<(usize, T)> = ai.iter().zip(av).map(|(&q, &v)| (cols[q], v)).collect();
        new.sort_unstable_by_key(|t| t.0);
        match accum {
            None => e.extend(new),
            Some(f) => {
                let (mut x, mut y) = (0, 0);
                while x < region_old.len() || y < new.len() {
                    match (region_old.get(x), new.get(y)) {
                        (Some(&(j1, v1)), Some(&(j2, v2))) if j1 == j2 => {
                            e.push((j1, f(v1, v2)));
                            x += 1;
                            y += 1;
                        }
                        (Some(&(j1, v1)), Some(&(j2, _))) if j1 < j2 => {
                            e.push((j1, v1));
                            x += 1;
                        }
                        (Some(_), Some(&t)) => {
                            e.push(t);
                            y += 1;
                        }
                        (Some(&t), None) => {
                            e.push(t);
                            x += 1;
                        }
                        (None, Some(&t)) => {
                            e.push(t);
                            y += 1;
                        }
                        (None, None) => unreachable!(),
                    }
                }
            }
        }
        e.sort_unstable_by_key(|t| t.0);
        e.into_iter().unzip()
    });
    write_matrix_general(c, mask, None, desc.replace, z);
    Ok(())
}
