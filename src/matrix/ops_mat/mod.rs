//! Matrix operations: masked mxm (Gustavson and dot-product), element-wise
//! add/mult, apply, select, reductions, extract/assign, transpose, kronecker.
//!
//! One file per family (`mxm`, `ewise`: element-wise and entry maps,
//! `reduce`, `index`: extract and assign, `kronecker`); this module holds
//! what they share: building a matrix from rows computed in parallel, the
//! masked write-back `C⟨M, replace⟩ = accum(C, T)`, the shape checks and
//! the orientation of an input by the descriptor.

use super::mask::{write_rule, Accum, MatrixMask};
use super::merge::merge_sorted;
use super::vec_kernels::Rows;
use super::{check_dim, Element, MatrixError, SparseMatrix};

mod ewise;
mod index;
mod kronecker;
mod mxm;
mod mxm_reduce;
mod reduce;

pub(crate) use self::ewise::{apply, ewise_add, ewise_mult, select, transpose};
pub(crate) use self::index::{assign, extract};
// the index maps and checks the device's extract/assign share with the host's
#[cfg(feature = "cuda")]
pub(crate) use self::index::{check_indices, column_groups, positions};
pub(crate) use self::kronecker::kronecker;
pub(crate) use self::mxm::mxm;
pub(crate) use self::mxm::mxm_t;
pub use self::mxm::MxmMethod;
pub(crate) use self::mxm_reduce::reduce_mxm_dot;
pub(crate) use self::reduce::{reduce_rows, reduce_scalar};

// The row builders live beside `SparseMatrix` (sparse.rs), which uses them too.
pub(crate) use super::sparse::{build_rows, build_rows_with};

/// Advances `cur` through the sorted `pattern` and says whether `j` is in it
/// (`j` must not decrease between calls).
#[inline]
fn in_sorted(pattern: &[usize], cur: &mut usize, j: usize) -> bool {
    while *cur < pattern.len() && pattern[*cur] < j {
        *cur += 1;
    }
    *cur < pattern.len() && pattern[*cur] == j
}

/// `C⟨M, replace⟩ = accum(C, T)` row by row, where `T` has no entries
/// outside the mask (every kernel computes only allowed positions).
pub(crate) fn write_matrix<T: Element>(
    c: &mut SparseMatrix<T>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, T>,
    replace: bool,
    t: SparseMatrix<T>,
) {
    if c.nnz() == 0 {
        *c = t; // nothing to keep or accumulate
        return;
    }
    write_matrix_general(c, mask, accum, replace, t)
}

/// `C⟨M, replace⟩ = accum(C, T)` row by row, for any `T`.
fn write_matrix_general<T: Element>(
    c: &mut SparseMatrix<T>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, T>,
    replace: bool,
    t: SparseMatrix<T>,
) {
    let old = &*c;
    let out = build_rows(old.nrows(), old.ncols(), |i| {
        let (ci, cv) = old.row(i);
        let (ti, tv) = t.row(i);
        let pat = mask.map(|m| m.row_pattern(i)).unwrap_or(&[]);
        let mut mc = 0;
        let (mut oi, mut ov) = (Vec::new(), Vec::new());
        merge_sorted(ci, cv, ti, tv, |j, o, n| {
            let allowed = mask.is_none_or(|m| in_sorted(pat, &mut mc, j) != m.is_complemented());
            if let Some(v) = write_rule(allowed, replace, accum, o, n) {
                oi.push(j);
                ov.push(v);
            }
        });
        (oi, ov)
    });
    *c = out;
}

fn check_mask(op: &'static str, mask: Option<&MatrixMask<'_>>, shape: (usize, usize)) -> Result<(), MatrixError> {
    if let Some(m) = mask {
        check_dim(op, "mask rows", shape.0, m.shape().0)?;
        check_dim(op, "mask columns", shape.1, m.shape().1)?;
    }
    Ok(())
}

fn check_out<T: Element>(op: &'static str, c: &SparseMatrix<T>, shape: (usize, usize)) -> Result<(), MatrixError> {
    check_dim(op, "output rows", shape.0, c.nrows())?;
    check_dim(op, "output columns", shape.1, c.ncols())
}

/// `(rows, shape)` of `A` or `Aᵀ`.
fn oriented<T: Element>(a: &SparseMatrix<T>, transpose: bool) -> (Rows<'_, T>, (usize, usize)) {
    if transpose {
        (Rows::of(a.transposed_csr()), (a.ncols(), a.nrows()))
    } else {
        (Rows::of(a.as_sprs()), (a.nrows(), a.ncols()))
    }
}
