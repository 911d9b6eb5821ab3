//! Matrix operations: masked mxm (Gustavson and dot-product), element-wise
//! add/mult, apply, select, reductions, extract/assign, transpose, kronecker.

use super::mask::{Accum, Descriptor, Mask, MatrixMask};
use super::ops_vec::write_dense;
use super::vec_kernels::Rows;
use super::{check_dim, DenseVector, Element, MatrixError, SparseMatrix};
use crate::semirings::{Monoid, Position, Semiring};
use rayon::prelude::*;

/// Which mxm kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MxmMethod {
    /// Dot-product for a non-complemented mask, Gustavson otherwise.
    #[default]
    Auto,
    /// Row-wise saxpy with a sparse accumulator: `O(flops)` per row (plus
    /// the mask row); only mask-allowed columns are accumulated.
    Gustavson,
    /// `C(i, j) = A(i, :) · B(:, j)` only at the mask's positions: `A(i, :)`
    /// is scattered once into a marker, then each `B(:, j)` is walked in
    /// increasing `k` probing it; `O(|A(i,:)| + Σ_j |B(:, j)|)` per row (for a
    /// complemented mask or none: every other position, `O(m·n)`
    /// candidates — meant for masks).
    Dot,
}

/// Builds a matrix from rows computed in parallel.
pub(crate) fn build_rows<T: Element>(
    nrows: usize,
    ncols: usize,
    f: impl Fn(usize) -> (Vec<usize>, Vec<T>) + Sync + Send,
) -> SparseMatrix<T> {
    let rows: Vec<(Vec<usize>, Vec<T>)> = (0..nrows).into_par_iter().with_min_len(64).map(f).collect();
    let nnz = rows.iter().map(|r| r.0.len()).sum();
    let mut indptr = Vec::with_capacity(nrows + 1);
    indptr.push(0);
    let (mut idx, mut val) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
    for (i, v) in rows {
        idx.extend(i);
        val.extend(v);
        indptr.push(idx.len());
    }
    SparseMatrix::from_csr_parts(nrows, ncols, indptr, idx, val)
}

/// Builds a matrix whose row `i` is appended by `f(i, indices, values)`;
/// rows are computed in parallel in contiguous chunks (no allocation per row).
pub(crate) fn build_rows_into<T: Element>(
    nrows: usize,
    ncols: usize,
    f: impl Fn(usize, &mut Vec<usize>, &mut Vec<T>) + Sync + Send,
) -> SparseMatrix<T> {
    build_rows_with(nrows, ncols, || (), |i, _: &mut (), idx, val| f(i, idx, val))
}

/// [`build_rows_into`] with a workspace made by `init` once per chunk.
pub(crate) fn build_rows_with<T: Element, W>(
    nrows: usize,
    ncols: usize,
    init: impl Fn() -> W + Sync + Send,
    f: impl Fn(usize, &mut W, &mut Vec<usize>, &mut Vec<T>) + Sync + Send,
) -> SparseMatrix<T> {
    let chunks = (rayon::current_num_threads() * 16).min(nrows.div_ceil(64)).max(1);
    let parts: Vec<(Vec<usize>, Vec<usize>, Vec<T>)> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let (lo, hi) = (c * nrows / chunks, (c + 1) * nrows / chunks);
            let (mut ends, mut idx, mut val) = (Vec::with_capacity(hi - lo), Vec::new(), Vec::new());
            let mut ws = init();
            for i in lo..hi {
                f(i, &mut ws, &mut idx, &mut val);
                ends.push(idx.len());
            }
            (ends, idx, val)
        })
        .collect();
    let nnz = parts.iter().map(|p| p.1.len()).sum();
    let mut indptr = Vec::with_capacity(nrows + 1);
    indptr.push(0);
    let (mut idx, mut val) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
    for (ends, i, v) in parts {
        let base = idx.len();
        indptr.extend(ends.iter().map(|e| base + e));
        idx.extend(i);
        val.extend(v);
    }
    SparseMatrix::from_csr_parts(nrows, ncols, indptr, idx, val)
}

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
        let (mut p, mut q) = (0, 0);
        while p < ci.len() || q < ti.len() {
            let j = match (ci.get(p), ti.get(q)) {
                (Some(&a), Some(&b)) => a.min(b),
                (Some(&a), None) => a,
                (None, Some(&b)) => b,
                (None, None) => unreachable!(),
            };
            let o = if ci.get(p) == Some(&j) {
                p += 1;
                Some(cv[p - 1])
            } else {
                None
            };
            let n = if ti.get(q) == Some(&j) {
                q += 1;
                Some(tv[q - 1])
            } else {
                None
            };
            let allowed = mask.is_none_or(|m| in_sorted(pat, &mut mc, j) != m.is_complemented());
            let z = if allowed {
                match (accum, o, n) {
                    (Some(f), Some(a), Some(b)) => Some(f(a, b)),
                    (Some(_), a, None) => a,
                    (_, _, b) => b,
                }
            } else if replace {
                None
            } else {
                o
            };
            if let Some(v) = z {
                oi.push(j);
                ov.push(v);
            }
        }
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

/// `C⟨M⟩ = accum(C, A ⊕.⊗ B)`: `T(i, j) = ⊕_k A(i, k) ⊗ B(k, j)` (with
/// `Aᵀ`/`Bᵀ` by the descriptor), computed only where the mask allows.
///
/// Gustavson: `O(flops + Σ mask row)`; dot-product: `O(nnz(A) + Σ_{(i,j) ∈ M}
/// |B(:,j)|)`. Both fold terms in increasing `k` and give
/// identical results (see [`MxmMethod`]).
///
/// The method form is [`SparseMatrix::mxm`].
///
/// # Examples
/// Two-hop reachability, `C = A ⊕.⊗ A` over (∨, ∧):
/// ```
/// use kronograph::matrix::{mxm, Descriptor, MxmMethod, SparseMatrix};
/// use kronograph::semirings::LorLand;
/// let a = SparseMatrix::try_from_triplets(3, 3, &[0, 1], &[1, 2], &[true, true]).unwrap();
/// let mut c = SparseMatrix::new(3, 3);
/// mxm(&mut c, None, None, LorLand::new(), &a, &a, &Descriptor::DEFAULT, MxmMethod::Auto).unwrap();
/// assert_eq!((c.nnz(), c.get(0, 2)), (1, Some(true)));
/// ```
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if the shapes do not fit.
#[allow(clippy::too_many_arguments)]
pub fn mxm<S: Semiring>(
    c: &mut SparseMatrix<S::C>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, S::C>,
    s: S,
    a: &SparseMatrix<S::A>,
    b: &SparseMatrix<S::B>,
    desc: &Descriptor,
    method: MxmMethod,
) -> Result<(), MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let t = mxm_t((c.nrows(), c.ncols()), mask, s, a, b, desc, method)?;
    write_matrix(c, mask, accum, desc.replace, t);
    Ok(())
}

/// `T = ⟨mask⟩ A ⊕.⊗ B` for an output of shape `out`, before it is written
/// (so that the output may be one of the inputs: the in-place method form).
pub(crate) fn mxm_t<S: Semiring>(
    out: (usize, usize),
    mask: Option<&MatrixMask<'_>>,
    s: S,
    a: &SparseMatrix<S::A>,
    b: &SparseMatrix<S::B>,
    desc: &Descriptor,
    method: MxmMethod,
) -> Result<SparseMatrix<S::C>, MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let (ar, (m, p)) = oriented(a, desc.transpose_first);
    let (br, (p2, n)) = oriented(b, desc.transpose_second);
    check_dim("mxm", "inner dimension", p, p2)?;
    check_dim("mxm", "output rows", m, out.0)?;
    check_dim("mxm", "output columns", n, out.1)?;
    check_mask("mxm", mask, (m, n))?;
    let monoid = s.add_monoid();
    let dot = match method {
        MxmMethod::Dot => true,
        MxmMethod::Gustavson => false,
        MxmMethod::Auto => mask.is_some_and(|mk| !mk.is_complemented()),
    };
    let t = if dot {
        // Columns of B' are the rows of B'ᵀ.
        let bt = if desc.transpose_second { Rows::of(b.as_sprs()) } else { Rows::of(b.transposed_csr()) };
        // A'(i, :) is scattered into a marker (position + 1 of each k), so each
        // dot product walks B'(:, j) alone, in increasing k, probing the marker.
        build_rows_with(
            m,
            n,
            || vec![0u32; p],
            |i, mark: &mut Vec<u32>, oi, ov| {
                let (ai, av) = ar.row(i);
                for (x, &k) in ai.iter().enumerate() {
                    mark[k] = x as u32 + 1;
                }
                let dot_at = |j: usize| -> Option<S::C> {
                    let (bi, bv) = bt.row(j);
                    let mut acc: Option<S::C> = None;
                    for (&k, &y) in bi.iter().zip(bv) {
                        let x = mark[k];
                        if x != 0 {
                            let term = s.multiply(av[x as usize - 1], y, Position::new(i, k, j));
                            let v = acc.map_or(term, |a| monoid.combine(a, term));
                            acc = Some(v);
                            if monoid.is_terminal(&v) {
                                break;
                            }
                        }
                    }
                    acc
                };
                let mut emit = |j: usize| {
                    if let Some(v) = dot_at(j) {
                        oi.push(j);
                        ov.push(v);
                    }
                };
                match mask {
                    Some(mk) if !mk.is_complemented() => mk.row_pattern(i).iter().for_each(|&j| emit(j)),
                    Some(mk) => {
                        let pat = mk.row_pattern(i);
                        let mut cur = 0;
                        for j in 0..n {
                            if !in_sorted(pat, &mut cur, j) {
                                emit(j);
                            }
                        }
                    }
                    None => (0..n).for_each(emit),
                }
                for &k in ai {
                    mark[k] = 0;
                }
            },
        )
    } else {
        let rows: Vec<(Vec<usize>, Vec<S::C>)> = (0..m)
            .into_par_iter()
            .with_min_len(64)
            .map_init(
                || (vec![0usize; n], vec![usize::MAX; n]),
                |(slot, mark), i| {
                    // mark[j] == i: j is in the mask row.
                    let pat = mask.map(|mk| mk.row_pattern(i)).unwrap_or(&[]);
                    for &j in pat {
                        mark[j] = i;
                    }
                    let complemented = mask.is_some_and(|mk| mk.is_complemented());
                    let allowed = |j: usize| match mask {
                        None => true,
                        Some(_) => (mark[j] == i) != complemented,
                    };
                    let mut acc: Vec<(usize, S::C)> = Vec::new();
                    let (ai, av) = ar.row(i);
                    for (&k, &x) in ai.iter().zip(av) {
                        let (bi, bv) = br.row(k);
                        for (&j, &y) in bi.iter().zip(bv) {
                            if !allowed(j) {
                                continue;
                            }
                            let sl = slot[j];
                            if sl == 0 {
                                acc.push((j, s.multiply(x, y, Position::new(i, k, j))));
                                slot[j] = acc.len();
                            } else {
                                let e = &mut acc[sl - 1].1;
                                if !monoid.is_terminal(e) {
                                    *e = monoid.combine(*e, s.multiply(x, y, Position::new(i, k, j)));
                                }
                            }
                        }
                    }
                    let out: (Vec<usize>, Vec<S::C>) = if mask.is_some() && !complemented {
                        pat.iter().filter(|&&j| slot[j] != 0).map(|&j| (j, acc[slot[j] - 1].1)).unzip()
                    } else {
                        let mut sorted = acc.clone();
                        sorted.sort_unstable_by_key(|e| e.0);
                        sorted.into_iter().unzip()
                    };
                    for &(j, _) in &acc {
                        slot[j] = 0;
                    }
                    out
                },
            )
            .collect();
        let mut indptr = vec![0];
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for (i, v) in rows {
            idx.extend(i);
            val.extend(v);
            indptr.push(idx.len());
        }
        SparseMatrix::from_csr_parts(m, n, indptr, idx, val)
    };
    Ok(t)
}

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
        let (mut p, mut q) = (0, 0);
        while p < ai.len() || q < bi.len() {
            let j = match (ai.get(p), bi.get(q)) {
                (Some(&x), Some(&y)) => x.min(y),
                (Some(&x), None) => x,
                (None, Some(&y)) => y,
                (None, None) => unreachable!(),
            };
            let x = if ai.get(p) == Some(&j) {
                p += 1;
                Some(av[p - 1])
            } else {
                None
            };
            let y = if bi.get(q) == Some(&j) {
                q += 1;
                Some(bv[q - 1])
            } else {
                None
            };
            if mask.is_some_and(|m| in_sorted(pat, &mut mc, j) == m.is_complemented()) {
                continue;
            }
            if let Some(z) = f(x, y) {
                oi.push(j);
                ov.push(z);
            }
        }
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
/// ewise_add(&mut c, None, None, |x, y| x + y, &a, &b, &Descriptor::DEFAULT).unwrap();
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
/// select(&mut l, None, None, |i, j, _| j < i, &a, &Descriptor::DEFAULT).unwrap();
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
/// use kronograph::matrix::{reduce_scalar, SparseMatrix};
/// use kronograph::semirings::{Max, Plus};
/// let a = SparseMatrix::try_from_triplets(2, 2, &[0, 1], &[1, 0], &[2.0, 5.0]).unwrap();
/// assert_eq!(reduce_scalar(Plus::new(), &a), 7.0);
/// assert_eq!(reduce_scalar(Max::new(), &a), 5.0);
/// ```
pub fn reduce_scalar<T: Element, M: Monoid<T>>(monoid: M, a: &SparseMatrix<T>) -> T {
    match a.values().split_first() {
        None => monoid.identity(),
        Some((&first, rest)) => rest.iter().fold(first, |acc, &x| monoid.combine(acc, x)),
    }
}

fn check_indices(what: &'static str, idx: &[usize], size: usize) -> Result<(), MatrixError> {
    match idx.iter().find(|&&i| i >= size) {
        Some(&i) => Err(MatrixError::IndexOutOfBounds { what, index: i, size }),
        None => Ok(()),
    }
}

fn check_unique(what: &'static str, idx: &[usize], size: usize) -> Result<(), MatrixError> {
    let mut seen = vec![false; size];
    for &i in idx {
        if std::mem::replace(&mut seen[i], true) {
            return Err(MatrixError::DuplicateIndex { what, index: i });
        }
    }
    Ok(())
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
    // For each column of A, the output columns q with J[q] = it.
    let mut col_ptr = vec![0usize; sa.1 + 1];
    for &j in cols {
        col_ptr[j + 1] += 1;
    }
    for j in 0..sa.1 {
        col_ptr[j + 1] += col_ptr[j];
    }
    let mut col_q = vec![0usize; cols.len()];
    let mut next = col_ptr.clone();
    for (q, &j) in cols.iter().enumerate() {
        col_q[next[j]] = q;
        next[j] += 1;
    }
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
    check_unique("assign row index", rows, c.nrows())?;
    check_unique("assign column index", cols, c.ncols())?;
    check_mask("assign", mask, (c.nrows(), c.ncols()))?;
    let mut row_p = vec![usize::MAX; c.nrows()];
    for (p, &i) in rows.iter().enumerate() {
        row_p[i] = p;
    }
    let mut col_q = vec![usize::MAX; c.ncols()];
    for (q, &j) in cols.iter().enumerate() {
        col_q[j] = q;
    }
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

/// The Kronecker product `(A ⊗ B)((i·p + k), (j·q + l)) = op(A(i, j), B(k, l))`
/// for `B` of shape `p × q`; formed explicitly (for tests and small inputs),
/// `O(nnz(A)·nnz(B))`.
pub fn kronecker<A: Element, B: Element, C: Element>(
    op: impl Fn(A, B) -> C + Sync,
    a: &SparseMatrix<A>,
    b: &SparseMatrix<B>,
) -> SparseMatrix<C> {
    let (p, q) = (b.nrows(), b.ncols());
    build_rows(a.nrows() * p, a.ncols() * q, |r| {
        let (i, k) = (r / p.max(1), r % p.max(1));
        let (ai, av) = a.row(i);
        let (bi, bv) = b.row(k);
        let mut oi = Vec::with_capacity(ai.len() * bi.len());
        let mut ov = Vec::with_capacity(ai.len() * bi.len());
        for (&j, &x) in ai.iter().zip(av) {
            for (&l, &y) in bi.iter().zip(bv) {
                oi.push(j * q + l);
                ov.push(op(x, y));
            }
        }
        (oi, ov)
    })
}
