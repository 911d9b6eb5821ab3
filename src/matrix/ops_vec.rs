//! Vector operations: mxv / vxm (dense and sparse vectors, SpMSpV with three
//! merge strategies and push/pull), and element-wise operations on vectors.

use super::mask::{allows, Accum, Descriptor, Mask};
use super::{check_dim, DenseVector, Element, MatrixError, SparseMatrix, SparseVector};
use crate::semirings::{Monoid, Position, Semiring};
use rayon::prelude::*;
use sprs::CsMat;

/// How SpMSpV (push) merges the terms `x(k) ⊗ M(k, j)` that land on the same `j`.
///
/// The output range is split into buckets processed in parallel; each
/// bucket reads, for every `k` of `x` in increasing order, the part of row
/// `k` that falls in its range (found by binary search), so terms reach a
/// bucket in increasing `k` and every strategy folds them in that order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MergeStrategy {
    /// Sparse accumulator (SPA): a slot array over the bucket's range
    /// scatters terms without sorting them; the output is ordered by a scan
    /// of the slots, or (when very sparse) by sorting the bare touched
    /// indices. With a terminal-aware monoid (ANY) later terms are skipped
    /// before they are multiplied. The SpMSpV paper restricts unsynchronized
    /// scatter to idempotent ⊕ (or atomics); bucketing by output range
    /// removes that restriction here.
    #[default]
    Scatter,
    /// Collect `(j, term)` pairs and merge-sort them by `j` (stable), then
    /// fold runs.
    MergeSort,
    /// Collect `(j, term)` pairs and LSD radix-sort them by `j` (stable, 8-bit
    /// digits), then fold runs.
    RadixSort,
}

/// Push (SpMSpV over the rows of the frontier) or pull (SpMV over the output
/// rows, reading the vector as a bitmap), or a switch on the vector's density.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PushPull {
    /// Always SpMSpV.
    Push,
    /// Always SpMV with the vector as a bitmap (`O(n)` conversion).
    Pull,
    /// Pull when `nnz(x) > pull_density · n`, else push.
    Auto {
        /// Density threshold.
        pull_density: f64,
    },
}

impl Default for PushPull {
    fn default() -> Self {
        PushPull::Auto { pull_density: 0.05 }
    }
}

/// Options of sparse-vector products.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpmspvOptions {
    /// Merge strategy of the push kernel.
    pub strategy: MergeStrategy,
    /// Push, pull or automatic.
    pub direction: PushPull,
}

/// Borrowed CSR arrays.
#[derive(Clone, Copy)]
pub(crate) struct Rows<'a, T> {
    pub indptr: &'a [usize],
    pub indices: &'a [usize],
    pub values: &'a [T],
}

impl<'a, T> Rows<'a, T> {
    pub(crate) fn of(m: &'a CsMat<T>) -> Self {
        Rows { indptr: m.indptr().into_raw_storage(), indices: m.indices(), values: m.data() }
    }

    #[inline]
    pub(crate) fn row(&self, i: usize) -> (&'a [usize], &'a [T]) {
        let (s, e) = (self.indptr[i], self.indptr[i + 1]);
        (&self.indices[s..e], &self.values[s..e])
    }
}

thread_local! {
    /// Per-thread sparse-accumulator slots of the scatter strategy.
    static SPA_SLOTS: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Minimum rows per rayon task.
const MIN_LEN: usize = 256;

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
        if allows(mask, i) {
            match (accum, *wp, t_pres[i]) {
                (Some(f), true, true) => *wv = f(*wv, t_vals[i]),
                (Some(_), true, false) => {}
                (_, _, true) => {
                    *wv = t_vals[i];
                    *wp = true;
                }
                (_, _, false) => *wp = false,
            }
        } else if replace {
            *wp = false;
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
    let (mut p, mut q) = (0, 0);
    while p < wi.len() || q < ti.len() {
        let i = match (wi.get(p), ti.get(q)) {
            (Some(&a), Some(&b)) => a.min(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => unreachable!(),
        };
        let old = if wi.get(p) == Some(&i) {
            p += 1;
            Some(wv[p - 1])
        } else {
            None
        };
        let new = if ti.get(q) == Some(&i) {
            q += 1;
            Some(tv[q - 1])
        } else {
            None
        };
        let z = if allows(mask, i) {
            match (accum, old, new) {
                (Some(f), Some(a), Some(b)) => Some(f(a, b)),
                (Some(_), a, None) => a,
                (_, _, b) => b,
            }
        } else if replace {
            None
        } else {
            old
        };
        if let Some(v) = z {
            oi.push(i);
            ov.push(v);
        }
    }
    *w = SparseVector::from_sorted(n, oi, ov);
}

// ------------------------------------------------------------------ kernels

/// Pull: `t(r) = ⊕_k mul(M(r, k), x(k), r, k)` over allowed `r`, `x` a bitmap.
pub(crate) fn pull<MV, XV, C, Mo>(
    n_out: usize,
    rows: Rows<'_, MV>,
    x_vals: &[XV],
    x_pres: &[bool],
    mask: Option<&Mask<'_>>,
    monoid: Mo,
    mul: impl Fn(MV, XV, usize, usize) -> C + Sync,
) -> (Vec<C>, Vec<bool>)
where
    MV: Element,
    XV: Element,
    C: Element,
    Mo: Monoid<C>,
{
    let mut vals = vec![C::default(); n_out];
    let mut pres = vec![false; n_out];
    vals.par_iter_mut().zip(pres.par_iter_mut()).enumerate().with_min_len(MIN_LEN).for_each(|(r, (v, p))| {
        if !allows(mask, r) {
            return;
        }
        let (idx, mv) = rows.row(r);
        let mut acc: Option<C> = None;
        for (&k, &m) in idx.iter().zip(mv) {
            if !x_pres[k] {
                continue;
            }
            let t = mul(m, x_vals[k], r, k);
            let a = match acc {
                None => t,
                Some(a) => monoid.combine(a, t),
            };
            acc = Some(a);
            if monoid.is_terminal(&a) {
                break;
            }
        }
        if let Some(a) = acc {
            *v = a;
            *p = true;
        }
    });
    (vals, pres)
}

/// Push (SpMSpV): `t(j) = ⊕_{k ∈ x} mul(M(k, j), x(k), j, k)` over allowed `j`.
pub(crate) fn push<MV, XV, C, Mo>(
    n_out: usize,
    rows: Rows<'_, MV>,
    x: &SparseVector<XV>,
    mask: Option<&Mask<'_>>,
    monoid: Mo,
    mul: impl Fn(MV, XV, usize, usize) -> C + Sync,
    strategy: MergeStrategy,
) -> SparseVector<C>
where
    MV: Element,
    XV: Element,
    C: Element,
    Mo: Monoid<C>,
{
    let flops: usize = x.indices().iter().map(|&k| rows.indptr[k + 1] - rows.indptr[k]).sum();
    let nb = if flops < 8192 || n_out < 1024 { 1 } else { (rayon::current_num_threads() * 4).min(n_out / 256).max(1) };
    let bucket = |b: usize| -> (Vec<usize>, Vec<C>) {
        let (lo, hi) = (b * n_out / nb, (b + 1) * n_out / nb);
        // The part of row k inside [lo, hi).
        let part = |k: usize| -> (usize, usize) {
            let (s, e) = (rows.indptr[k], rows.indptr[k + 1]);
            if nb == 1 {
                return (s, e);
            }
            let r = &rows.indices[s..e];
            (s + r.partition_point(|&j| j < lo), s + r.partition_point(|&j| j < hi))
        };
        match strategy {
            MergeStrategy::Scatter => SPA_SLOTS.with(|cell| {
                // The slot array is kept per thread between calls (all zero
                // between uses), so a call touches only the slots it needs.
                let mut slot = cell.borrow_mut();
                let m = hi - lo;
                if slot.len() < m {
                    slot.resize(m, 0);
                }
                let mut acc: Vec<(usize, C)> = Vec::new();
                for (k, xv) in x.iter() {
                    let (s, e) = part(k);
                    for p in s..e {
                        let j = rows.indices[p];
                        if !allows(mask, j) {
                            continue;
                        }
                        let sl = slot[j - lo];
                        if sl == 0 {
                            acc.push((j, mul(rows.values[p], xv, j, k)));
                            slot[j - lo] = acc.len();
                        } else {
                            let a = &mut acc[sl - 1].1;
                            if !monoid.is_terminal(a) {
                                *a = monoid.combine(*a, mul(rows.values[p], xv, j, k));
                            }
                        }
                    }
                }
                let out = if acc.len() * 16 >= m {
                    let (mut oi, mut ov) = (Vec::with_capacity(acc.len()), Vec::with_capacity(acc.len()));
                    for (off, sl) in slot[..m].iter_mut().enumerate() {
                        if *sl != 0 {
                            oi.push(lo + off);
                            ov.push(acc[*sl - 1].1);
                            *sl = 0;
                        }
                    }
                    (oi, ov)
                } else {
                    for &(j, _) in &acc {
                        slot[j - lo] = 0;
                    }
                    acc.sort_unstable_by_key(|e| e.0);
                    acc.into_iter().unzip()
                };
                out
            }),
            MergeStrategy::MergeSort | MergeStrategy::RadixSort => {
                let mut terms: Vec<(usize, C)> = Vec::new();
                for (k, xv) in x.iter() {
                    let (s, e) = part(k);
                    for p in s..e {
                        let j = rows.indices[p];
                        if allows(mask, j) {
                            terms.push((j, mul(rows.values[p], xv, j, k)));
                        }
                    }
                }
                if strategy == MergeStrategy::MergeSort {
                    terms.sort_by_key(|e| e.0);
                } else {
                    radix_sort_by_index(&mut terms, lo, hi);
                }
                fold_runs(terms, monoid)
            }
        }
    };
    let parts: Vec<(Vec<usize>, Vec<C>)> =
        if nb == 1 { vec![bucket(0)] } else { (0..nb).into_par_iter().map(bucket).collect() };
    if parts.len() == 1 {
        let (i, v) = parts.into_iter().next().expect("one bucket");
        return SparseVector::from_sorted(n_out, i, v);
    }
    let total = parts.iter().map(|p| p.0.len()).sum();
    let (mut oi, mut ov) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for (i, v) in parts {
        oi.extend(i);
        ov.extend(v);
    }
    SparseVector::from_sorted(n_out, oi, ov)
}

/// Folds runs of equal index (terms already in increasing `k` within a run).
fn fold_runs<C: Element, Mo: Monoid<C>>(terms: Vec<(usize, C)>, monoid: Mo) -> (Vec<usize>, Vec<C>) {
    let (mut oi, mut ov): (Vec<usize>, Vec<C>) = (Vec::new(), Vec::new());
    for (j, t) in terms {
        if oi.last() == Some(&j) {
            let a = ov.last_mut().expect("parallel arrays");
            if !monoid.is_terminal(a) {
                *a = monoid.combine(*a, t);
            }
        } else {
            oi.push(j);
            ov.push(t);
        }
    }
    (oi, ov)
}

/// Stable LSD radix sort of `(j, v)` by `j − lo`, `lo ≤ j < hi`, 8-bit digits.
fn radix_sort_by_index<C: Copy>(terms: &mut [(usize, C)], lo: usize, hi: usize) {
    let span = hi - lo;
    if terms.len() < 2 || span <= 1 {
        return;
    }
    let bits = usize::BITS - (span - 1).leading_zeros();
    let mut buf: Vec<(usize, C)> = Vec::with_capacity(terms.len());
    let mut shift = 0;
    while shift < bits {
        let mut count = [0usize; 257];
        for t in terms.iter() {
            count[((t.0 - lo) >> shift & 0xFF) + 1] += 1;
        }
        for d in 0..256 {
            count[d + 1] += count[d];
        }
        buf.clear();
        buf.extend_from_slice(terms);
        for t in buf.iter() {
            let d = (t.0 - lo) >> shift & 0xFF;
            terms[count[d]] = *t;
            count[d] += 1;
        }
        shift += 8;
    }
}

#[allow(clippy::too_many_arguments)]
fn product_sparse<MV, XV, C, Mo>(
    n_out: usize,
    push_rows: Rows<'_, MV>,
    pull_rows: Rows<'_, MV>,
    x: &SparseVector<XV>,
    mask: Option<&Mask<'_>>,
    monoid: Mo,
    mul: impl Fn(MV, XV, usize, usize) -> C + Sync,
    opts: &SpmspvOptions,
) -> SparseVector<C>
where
    MV: Element,
    XV: Element,
    C: Element,
    Mo: Monoid<C>,
{
    let use_pull = match opts.direction {
        PushPull::Push => false,
        PushPull::Pull => true,
        PushPull::Auto { pull_density } => x.nnz() as f64 > pull_density * x.len() as f64,
    };
    if use_pull {
        let xd = x.to_dense();
        let (v, p) = pull(n_out, pull_rows, xd.values(), xd.present(), mask, monoid, mul);
        DenseVector { values: v, present: p }.to_sparse()
    } else {
        push(n_out, push_rows, x, mask, monoid, mul, opts.strategy)
    }
}

fn check_mask_len(op: &'static str, mask: Option<&Mask<'_>>, n: usize) -> Result<(), MatrixError> {
    match mask {
        Some(m) => check_dim(op, "mask length", n, m.len()),
        None => Ok(()),
    }
}

// ------------------------------------------------------------------ public: products

/// `w⟨mask⟩ = accum(w, A x)`: `t(i) = ⊕_k A(i, k) ⊗ u(k)` over the stored
/// `A(i, k)` and present `u(k)` (`Aᵀ` with `desc.transpose_first`).
///
/// Pull form, parallel over output rows, `O(nnz(A) + n)`; rows the mask
/// forbids are not computed. See the [module](super) for the order of ⊕.
/// The method form is [`SparseMatrix::mxv`].
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
/// [`MatrixError::DimensionMismatch`] if `u`, `w` or the mask do not fit `A`.
pub fn mxv<S: Semiring>(
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

/// The product `t` of [`mxv`] (checked against an output of length `w_len`).
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
    let (nr, nc) = if desc.transpose_first { (a.ncols(), a.nrows()) } else { (a.nrows(), a.ncols()) };
    check_dim("mxv", "u length", nc, u.len())?;
    check_dim("mxv", "w length", nr, w_len)?;
    check_mask_len("mxv", mask, nr)?;
    let rows = if desc.transpose_first { Rows::of(a.transposed_csr()) } else { Rows::of(a.as_sprs()) };
    Ok(pull(nr, rows, u.values(), u.present(), mask, s.add_monoid(), |av, xv, i, k| {
        s.multiply(av, xv, Position::new(i, k, 0))
    }))
}

/// `wᵀ⟨mask⟩ = accum(wᵀ, uᵀ A)`: `t(j) = ⊕_k u(k) ⊗ A(k, j)` (`Aᵀ` with
/// `desc.transpose_second`). Pull form over the columns of `A` (its cached
/// transpose), `O(nnz(A) + n)`.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if `u`, `w` or the mask do not fit `A`.
pub fn vxm<S: Semiring>(
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

/// The product `t` of [`vxm`] (checked against an output of length `w_len`).
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
    let (nr, nc) = if desc.transpose_second { (a.ncols(), a.nrows()) } else { (a.nrows(), a.ncols()) };
    check_dim("vxm", "u length", nr, u.len())?;
    check_dim("vxm", "w length", nc, w_len)?;
    check_mask_len("vxm", mask, nc)?;
    let rows = if desc.transpose_second { Rows::of(a.as_sprs()) } else { Rows::of(a.transposed_csr()) };
    Ok(pull(nc, rows, u.values(), u.present(), mask, s.add_monoid(), |bv, xv, j, k| {
        s.multiply(xv, bv, Position::new(0, k, j))
    }))
}

/// `w⟨mask⟩ = accum(w, A u)` with sparse `u` and `w`: SpMSpV (push) over the
/// columns of `A` that `u` selects, merged by `opts.strategy`, or pull, by
/// `opts.direction`. Push costs `O(flops + nnz(u)·B·log d)` for `B` buckets
/// (no `O(n)` term with one bucket), pull `O(nnz(A) + n)`. Results are
/// identical whatever the options.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if `u`, `w` or the mask do not fit `A`.
#[allow(clippy::too_many_arguments)]
pub fn mxv_sparse<S: Semiring>(
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

/// The product `t` of [`mxv_sparse`] (checked against an output of length `w_len`).
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
    let (nr, nc) = if desc.transpose_first { (a.ncols(), a.nrows()) } else { (a.nrows(), a.ncols()) };
    check_dim("mxv_sparse", "u length", nc, u.len())?;
    check_dim("mxv_sparse", "w length", nr, w_len)?;
    check_mask_len("mxv_sparse", mask, nr)?;
    let (push_rows, pull_rows) = if desc.transpose_first {
        (Rows::of(a.as_sprs()), Rows::of(a.transposed_csr()))
    } else {
        (Rows::of(a.transposed_csr()), Rows::of(a.as_sprs()))
    };
    Ok(product_sparse(
        nr,
        push_rows,
        pull_rows,
        u,
        mask,
        s.add_monoid(),
        |av, xv, i, k| s.multiply(av, xv, Position::new(i, k, 0)),
        opts,
    ))
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
/// [`MatrixError::DimensionMismatch`] if `u`, `w` or the mask do not fit `A`.
#[allow(clippy::too_many_arguments)]
pub fn vxm_sparse<S: Semiring>(
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

/// The product `t` of [`vxm_sparse`] (checked against an output of length `w_len`).
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
    let (nr, nc) = if desc.transpose_second { (a.ncols(), a.nrows()) } else { (a.nrows(), a.ncols()) };
    check_dim("vxm_sparse", "u length", nr, u.len())?;
    check_dim("vxm_sparse", "w length", nc, w_len)?;
    check_mask_len("vxm_sparse", mask, nc)?;
    let (push_rows, pull_rows) = if desc.transpose_second {
        (Rows::of(a.transposed_csr()), Rows::of(a.as_sprs()))
    } else {
        (Rows::of(a.as_sprs()), Rows::of(a.transposed_csr()))
    };
    Ok(product_sparse(
        nc,
        push_rows,
        pull_rows,
        u,
        mask,
        s.add_monoid(),
        |bv, xv, j, k| s.multiply(xv, bv, Position::new(0, k, j)),
        opts,
    ))
}

// ------------------------------------------------------------------ public: element-wise

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
/// use kronograph::matrix::{reduce_vector, DenseVector};
/// use kronograph::semirings::{Min, Plus};
/// let d = DenseVector::from_options(&[Some(3.0), None, Some(1.0)]);
/// assert_eq!(reduce_vector(Plus::new(), &d), 4.0);
/// assert_eq!(reduce_vector(Min::new(), &d), 1.0);
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
