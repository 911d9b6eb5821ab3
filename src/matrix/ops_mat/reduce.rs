//! Reductions of a matrix to a vector (`reduce_rows`) or a scalar.

use super::oriented;
use crate::matrix::mask::{Accum, Descriptor, Mask};
use crate::matrix::ops_vec::write_dense;
use crate::matrix::{check_dim, DenseVector, Element, MatrixError, SparseMatrix};
use crate::semirings::Monoid;
use rayon::prelude::*;

/// `w⟨mask⟩ = accum(w, ⊕_j A(i, j))`: each row reduced in increasing `j`
/// (columns with `desc.transpose_first`); an empty row gives no entry.
/// `O(nnz + m)`.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if `w` or the mask do not fit.
pub fn reduce_rows<T: Element, M: Monoid<T>>(
    w: &mut DenseVector<T>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, T>,
    monoid: M,
    a: &SparseMatrix<T>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    let (ar, sa) = oriented(a, desc.transpose_first);
    check_dim("reduce_rows", "w length", sa.0, w.len())?;
    if let Some(m) = mask {
        check_dim("reduce_rows", "mask length", sa.0, m.len())?;
    }
    let mut tv = vec![T::default(); sa.0];
    let mut tp = vec![false; sa.0];
    tv.par_iter_mut().zip(tp.par_iter_mut()).enumerate().with_min_len(256).for_each(|(i, (v, p))| {
        if mask.is_none_or(|m| m.allows(i)) {
            let (_, av) = ar.row(i);
            if let Some((&first, rest)) = av.split_first() {
                *v = rest.iter().fold(first, |acc, &x| monoid.combine(acc, x));
                *p = true;
            }
        }
    });
    write_dense(w, mask, accum, desc.replace, &tv, &tp);
    Ok(())
}

/// `⊕_{i,j} A(i, j)` in row-major order (the identity for no entries).
/// Sequential left fold: reproducible floating-point sums. `O(nnz)`.
///
/// # Examples
/// ```
/// use kronograph::matrix::{reduce, SparseMatrix};
/// use kronograph::semirings::{MaxPlus, PlusTimes};
/// let a = SparseMatrix::try_from_triplets(2, 2, &[0, 1], &[1, 0], &[2.0, 5.0]).unwrap();
/// assert_eq!(reduce(PlusTimes::<f64>::new(), &a).unwrap(), 7.0);
/// assert_eq!(reduce(MaxPlus::<f64>::new(), &a).unwrap(), 5.0);
/// ```
pub fn reduce_scalar<T: Element, M: Monoid<T>>(monoid: M, a: &SparseMatrix<T>) -> T {
    match a.values().split_first() {
        None => monoid.identity(),
        Some((&first, rest)) => rest.iter().fold(first, |acc, &x| monoid.combine(acc, x)),
    }
}
