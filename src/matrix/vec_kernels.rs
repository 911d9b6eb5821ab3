//! The vector-product kernels on the CPU: pull (one output row at a time,
//! early exit at the monoid's terminal value), push (SpMSpV with the three
//! merge strategies), the choice between them for sparse vectors, and their
//! options ([`SpmspvOptions`]).

use super::mask::{allows, Mask};
use super::{DenseVector, Element, SparseVector};
use crate::semirings::Monoid;
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
    Scatter,
    /// Collect `(j, term)` pairs and merge-sort them by `j` (stable), then
    /// fold runs.
    MergeSort,
    /// Collect `(j, term)` pairs and LSD radix-sort them by `j` (stable, 8-bit
    /// digits), then fold runs.
    RadixSort,
    /// Chosen per call: `Scatter` on the host; on a device the cheapest of
    /// the three by the SpMSpV cost model
    /// ([`GpuMergeStrategy::choose`](crate::matrix::gpu::GpuMergeStrategy::choose)).
    #[default]
    Auto,
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
            MergeStrategy::Scatter | MergeStrategy::Auto => SPA_SLOTS.with(|cell| {
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
                if acc.len() * 16 >= m {
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
                }
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
pub(super) fn product_sparse<MV, XV, C, Mo>(
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
