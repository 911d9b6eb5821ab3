//! Element-wise operations on dense vectors: `ewise_add_vector`,
//! `ewise_mult_vector`, `apply_vector`, `select_vector`, `reduce_vector`,
//! `extract_vector`, `assign_vector` (GraphBLAS' `w⟨mask⟩ = accum(w, …)`).

use super::mask::{allows, Accum, Descriptor, Mask};
use super::ops_vec::{check_mask_len, write_dense};
use super::{check_dim, DenseVector, Element, MatrixError};
use crate::semirings::Monoid;
use rayon::prelude::*;

fn elementwise<T: Element>(
    op: &'static str,
    w: &mut DenseVector<T>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, T>,
    desc: &Descriptor,
    n: usize,
    f: impl Fn(usize) -> Option<T> + Sync,
) -> Result<(), MatrixError> {
    check_dim(op, "w length", n, w.len())?;
    check_mask_len(op, mask, n)?;
    let mut tv = vec![T::default(); n];
    let mut tp = vec![false; n];
    tv.par_iter_mut().zip(tp.par_iter_mut()).enumerate().with_min_len(4096).for_each(|(i, (v, p))| {
        if allows(mask, i) {
            if let Some(x) = f(i) {
                *v = x;
                *p = true;
            }
        }
    });
    write_dense(w, mask, accum, desc.replace, &tv, &tp);
    Ok(())
}

/// `w⟨mask⟩ = accum(w, u ⊕ v)`: union; `op(u(i), v(i))` where both are
/// present, the present one where one is. `O(n)`.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] for vectors of different sizes.
pub fn ewise_add_vector<T: Element>(
    w: &mut DenseVector<T>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, T>,
    op: impl Fn(T, T) -> T + Sync,
    u: &DenseVector<T>,
    v: &DenseVector<T>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    check_dim("ewise_add_vector", "v length", u.len(), v.len())?;
    elementwise("ewise_add_vector", w, mask, accum, desc, u.len(), |i| match (u.get(i), v.get(i)) {
        (Some(a), Some(b)) => Some(op(a, b)),
        (a, None) => a,
        (None, b) => b,
    })
}

/// `w⟨mask⟩ = accum(w, u ⊗ v)`: intersection; `op(u(i), v(i))` where both
/// are present. `O(n)`.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] for vectors of different sizes.
pub fn ewise_mult_vector<A: Element, B: Element, C: Element>(
    w: &mut DenseVector<C>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, C>,
    op: impl Fn(A, B) -> C + Sync,
    u: &DenseVector<A>,
    v: &DenseVector<B>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    check_dim("ewise_mult_vector", "v length", u.len(), v.len())?;
    elementwise("ewise_mult_vector", w, mask, accum, desc, u.len(), |i| match (u.get(i), v.get(i)) {
        (Some(a), Some(b)) => Some(op(a, b)),
        _ => None,
    })
}

/// `w⟨mask⟩ = accum(w, f(u))` on the present entries. `O(n)`.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if `w` and `u` differ in size.
pub fn apply_vector<A: Element, C: Element>(
    w: &mut DenseVector<C>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, C>,
    f: impl Fn(A) -> C + Sync,
    u: &DenseVector<A>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    elementwise("apply_vector", w, mask, accum, desc, u.len(), |i| u.get(i).map(&f))
}

/// `w⟨mask⟩ = accum(w, select(u))`: the entries `u(i)` with `pred(i, u(i))`. `O(n)`.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if `w` and `u` differ in size.
pub fn select_vector<T: Element>(
    w: &mut DenseVector<T>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, T>,
    pred: impl Fn(usize, T) -> bool + Sync,
    u: &DenseVector<T>,
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    elementwise("select_vector", w, mask, accum, desc, u.len(), |i| u.get(i).filter(|&x| pred(i, x)))
}

/// `⊕_i u(i)` over the present entries, in increasing `i` (the identity when
/// none). Sequential left fold, so floating-point sums are reproducible. `O(n)`.
///
/// # Examples
/// ```
/// use kronograph::matrix::{reduce, DenseVector};
/// use kronograph::semirings::{MinPlus, PlusTimes};
/// let d = DenseVector::from_options(&[Some(3.0), None, Some(1.0)]);
/// assert_eq!(reduce(PlusTimes::<f64>::new(), &d).unwrap(), 4.0);
/// assert_eq!(reduce(MinPlus::<f64>::new(), &d).unwrap(), 1.0);
/// ```
pub fn reduce_vector<T: Element, M: Monoid<T>>(monoid: M, u: &DenseVector<T>) -> T {
    let mut acc: Option<T> = None;
    for i in 0..u.len() {
        if let Some(x) = u.get(i) {
            acc = Some(match acc {
                None => x,
                Some(a) => monoid.combine(a, x),
            });
        }
    }
    acc.unwrap_or_else(|| monoid.identity())
}

/// `w⟨mask⟩ = accum(w, u(I))`: `t(p) = u(I[p])`, `w` of size `|I|`.
///
/// # Errors
/// [`MatrixError::IndexOutOfBounds`] for an index not below `u.len()`;
/// [`MatrixError::DimensionMismatch`] if `w.len() != |I|`.
pub fn extract_vector<T: Element>(
    w: &mut DenseVector<T>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, T>,
    u: &DenseVector<T>,
    indices: &[usize],
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    if let Some(&i) = indices.iter().find(|&&i| i >= u.len()) {
        return Err(MatrixError::IndexOutOfBounds { what: "extract_vector index", index: i, size: u.len() });
    }
    elementwise("extract_vector", w, mask, accum, desc, indices.len(), |p| u.get(indices[p]))
}

/// `w⟨mask⟩(I) = accum(w(I), u)` (GrB_assign): `Z = w`; for each `p`,
/// `Z(I[p]) = accum(w(I[p]), u(p))` (without an accumulator `Z(I[p]) = u(p)`,
/// absent where `u(p)` is); then `w⟨mask, replace⟩ = Z` over the whole vector.
///
/// # Errors
/// [`MatrixError::IndexOutOfBounds`], [`MatrixError::DuplicateIndex`], or
/// [`MatrixError::DimensionMismatch`] if `u.len() != |I|`.
pub fn assign_vector<T: Element>(
    w: &mut DenseVector<T>,
    mask: Option<&Mask<'_>>,
    accum: Accum<'_, T>,
    u: &DenseVector<T>,
    indices: &[usize],
    desc: &Descriptor,
) -> Result<(), MatrixError> {
    check_dim("assign_vector", "u length", indices.len(), u.len())?;
    check_mask_len("assign_vector", mask, w.len())?;
    let mut seen = vec![false; w.len()];
    for &i in indices {
        if i >= w.len() {
            return Err(MatrixError::IndexOutOfBounds { what: "assign_vector index", index: i, size: w.len() });
        }
        if std::mem::replace(&mut seen[i], true) {
            return Err(MatrixError::DuplicateIndex { what: "assign_vector", index: i });
        }
    }
    let mut z = w.clone();
    for (p, &i) in indices.iter().enumerate() {
        match (accum, w.get(i), u.get(p)) {
            (Some(f), Some(a), Some(b)) => z.set(i, f(a, b)),
            (Some(_), _, None) => {}
            (_, _, Some(b)) => z.set(i, b),
            (None, _, None) => z.remove(i),
        }
    }
    let (zv, zp) = z.into_parts();
    write_dense(w, mask, None, desc.replace, &zv, &zp);
    Ok(())
}
