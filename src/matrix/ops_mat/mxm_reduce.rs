//! `⊕` of the entries of `C⟨M⟩ = A ⊕.⊗ B` by masked dot products, `C`
//! never stored: the host's [`reduce_mxm`](crate::matrix::reduce_mxm) for
//! a plain mask (what triangle counting runs).
//!
//! Each dot product `A(i,:) · B'(:,j)` intersects two sorted index lists,
//! the cheapest way by their lengths (see `row_dots`): a sorted merge, bit
//! tests in a bitmap of a long `B'(:,j)` ([`RowBits`], made once per
//! product), a gallop of a few entries into a long list, or a per-thread
//! marker of `A(i,:)` that `B'(:,j)` probes. Blocks of [`BLOCK_ROWS`] rows
//! run in parallel (rayon's work stealing balances the skewed rows of a
//! power-law graph).

use super::{check_dim, check_mask, oriented};
use crate::matrix::vec_kernels::Rows;
use crate::matrix::{Descriptor, Element, MatrixError, MatrixMask, SparseMatrix};
use crate::semirings::{Monoid, Position, Semiring};
use rayon::prelude::*;
use std::cell::RefCell;

/// Rows per block: a block's dot products are folded in storage order,
/// the blocks' sums then in block order (the same for any thread count).
const BLOCK_ROWS: usize = 128;
/// Length ratio above which the shorter list is galloped into the longer.
const GALLOP_RATIO: usize = 8;
/// A dot product whose two lists together are at most this long is a sorted merge.
const MERGE_MAX: usize = 16;
/// A galloped entry costs this many marker probes per halving of the list
/// it is searched in (its steps miss the cache where a probe walks on).
const SEARCH_COST: usize = 2;

thread_local! {
    /// Per-thread marker (`position + 1` of each `k` of the current row of
    /// `A`; all zero between rows), grown to the inner dimension on demand.
    static MARK: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Calls `hit(x, y)` for each `a[x] == b[y]` in increasing order, until it
/// returns `false`: the shorter galloped into the longer when their lengths
/// differ by more than [`GALLOP_RATIO`], else a sorted merge.
#[inline]
pub(crate) fn intersect_sorted(a: &[usize], b: &[usize], mut hit: impl FnMut(usize, usize) -> bool) {
    if a.is_empty() || b.is_empty() || a[a.len() - 1] < b[0] || b[b.len() - 1] < a[0] {
        return;
    }
    if a.len() * GALLOP_RATIO < b.len() {
        gallop(a, b, hit)
    } else if b.len() * GALLOP_RATIO < a.len() {
        gallop(b, a, |y, x| hit(x, y))
    } else {
        let (mut x, mut y) = (0, 0);
        while x < a.len() && y < b.len() {
            let (ka, kb) = (a[x], b[y]);
            if ka == kb && !hit(x, y) {
                return;
            }
            x += usize::from(ka <= kb);
            y += usize::from(kb <= ka);
        }
    }
}

/// Each `short[x]` searched in `long` (exponential then binary search from
/// the previous match onwards); `hit(x, y)` at each match.
#[inline]
fn gallop(short: &[usize], long: &[usize], mut hit: impl FnMut(usize, usize) -> bool) {
    let mut lo = 0;
    for (x, &k) in short.iter().enumerate() {
        let rest = &long[lo..];
        if rest.is_empty() {
            return;
        }
        let mut step = 1;
        while step < rest.len() && rest[step] < k {
            step *= 2;
        }
        let base = step / 2;
        lo += base + rest[base..rest.len().min(step + 1)].partition_point(|&v| v < k);
        if lo < long.len() && long[lo] == k {
            if !hit(x, lo) {
                return;
            }
            lo += 1;
        }
    }
}

/// `⊕` of `C⟨M⟩ = A ⊕.⊗ B` (`Aᵀ`, `Bᵀ` by `desc`) for a plain (not
/// complemented) mask, by dot products at the mask's positions, each
/// folding its terms in increasing `k` (stopping at the monoid's
/// terminal); the identity when `C` is empty.
pub(crate) fn reduce_mxm_dot<S: Semiring>(
    mask: &MatrixMask<'_>,
    s: S,
    a: &SparseMatrix<S::A>,
    b: &SparseMatrix<S::B>,
    desc: &Descriptor,
) -> Result<S::C, MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let (ar, (m, p)) = oriented(a, desc.transpose_first);
    // the rows of B'ᵀ (the columns of B', B' = B or Bᵀ by the descriptor)
    let (bt, (p2, n)) = if desc.transpose_second {
        (Rows::of(b.as_sprs()), (b.ncols(), b.nrows()))
    } else {
        (Rows::of(b.transposed_csr()), (b.nrows(), b.ncols()))
    };
    check_dim("reduce_mxm", "inner dimension", p, p2)?;
    check_mask("reduce_mxm", Some(mask), (m, n))?;
    debug_assert!(!mask.is_complemented());
    let bits = RowBits::of(bt.indptr, bt.indices);
    let monoid = s.add_monoid();
    let join = |x: Option<S::C>, y: Option<S::C>| match (x, y) {
        (Some(x), Some(y)) => Some(monoid.combine(x, y)),
        (x, None) => x,
        (None, y) => y,
    };
    let blocks: Vec<Option<S::C>> = (0..m.div_ceil(BLOCK_ROWS))
        .into_par_iter()
        .with_max_len(1)
        .map(|blk| {
            MARK.with_borrow_mut(|mark| {
                let mut acc = None;
                for i in blk * BLOCK_ROWS..((blk + 1) * BLOCK_ROWS).min(m) {
                    acc = join(acc, row_dots(i, mask.row_pattern(i), s, ar, bt, &bits, p, mark));
                }
                acc
            })
        })
        .collect();
    Ok(blocks.into_iter().fold(None, join).unwrap_or_else(|| monoid.identity()))
}

/// A row at least this long gets a bitmap in [`RowBits`].
const BITS_MIN_ROW: usize = 32;

/// Bitmaps of the long, dense rows of `B'ᵀ` (at least [`BITS_MIN_ROW`]
/// entries, no more 64-bit words over their id range than entries: the
/// bitmaps take no more memory than those rows' indices), each with a rank
/// directory (the entries before each word), so that a short `A(i,:)`
/// meets a long `B'(:,j)` in `|A(i,:)|` bit tests, each giving the
/// position in `B'(:,j)` of a match. Made in parallel per product.
struct RowBits {
    /// Per row of `B'ᵀ`: its index in `rows`, or `u32::MAX`.
    slot: Vec<u32>,
    /// Per row with a bitmap: its first id and its words' range in `words`.
    rows: Vec<(usize, usize, usize)>,
    words: Vec<u64>,
    /// Entries of the row before each word.
    ranks: Vec<u32>,
}

/// One row's bitmap.
struct RowBitmap<'a> {
    lo: usize,
    words: &'a [u64],
    ranks: &'a [u32],
}

impl RowBitmap<'_> {
    /// The position of `k` in the row, if it is there.
    #[inline]
    fn position(&self, k: usize) -> Option<usize> {
        let o = k.checked_sub(self.lo)?;
        let w = *self.words.get(o >> 6)?;
        let below = w & ((1u64 << (o & 63)) - 1);
        (w >> (o & 63) & 1 != 0).then(|| self.ranks[o >> 6] as usize + below.count_ones() as usize)
    }
}

impl RowBits {
    /// Of the rows `indices[indptr[j]..indptr[j + 1]]` (each sorted).
    fn of(indptr: &[usize], indices: &[usize]) -> RowBits {
        let nrows = indptr.len() - 1;
        let row = |j: usize| &indices[indptr[j]..indptr[j + 1]];
        let span = |j: usize| {
            let r = row(j);
            (r.len() >= BITS_MIN_ROW && r.len() < u32::MAX as usize)
                .then(|| (r[r.len() - 1] - r[0]) / 64 + 1)
                .filter(|&w| w <= r.len())
        };
        let chosen: Vec<(usize, usize)> =
            (0..nrows).into_par_iter().with_min_len(4096).filter_map(|j| span(j).map(|w| (j, w))).collect();
        let mut slot = vec![u32::MAX; if chosen.is_empty() { 0 } else { nrows }];
        let mut rows = Vec::with_capacity(chosen.len());
        let mut total = 0;
        for (r, &(j, w)) in chosen.iter().enumerate() {
            slot[j] = r as u32;
            rows.push((row(j)[0], total, w));
            total += w;
        }
        let mut words = vec![0u64; total];
        let mut ranks = vec![0u32; total];
        let mut parts = Vec::with_capacity(chosen.len());
        let (mut wr, mut rr) = (&mut words[..], &mut ranks[..]);
        for &(j, w) in &chosen {
            let (w1, w2) = std::mem::take(&mut wr).split_at_mut(w);
            let (r1, r2) = std::mem::take(&mut rr).split_at_mut(w);
            parts.push((j, w1, r1));
            (wr, rr) = (w2, r2);
        }
        parts.into_par_iter().for_each(|(j, w, r)| {
            let idx = row(j);
            for &k in idx {
                let o = k - idx[0];
                w[o >> 6] |= 1 << (o & 63);
            }
            let mut before = 0;
            for (x, rank) in w.iter().zip(r.iter_mut()) {
                *rank = before;
                before += x.count_ones();
            }
        });
        RowBits { slot, rows, words, ranks }
    }

    #[inline]
    fn row(&self, j: usize) -> Option<RowBitmap<'_>> {
        let r = *self.slot.get(j)?;
        let &(lo, start, len) = self.rows.get(r as usize)?;
        Some(RowBitmap { lo, words: &self.words[start..start + len], ranks: &self.ranks[start..start + len] })
    }
}

/// `⊕_{j ∈ pat} A(i,:) · B'(:,j)` over the dot products with a term, in
/// the order of `pat`; `mark` the thread's marker (zero on entry and exit).
///
/// Each dot product takes the cheapest way by the lengths of the part of
/// `A(i,:)` up to the last `k` of `B'(:,j)` (`x` entries) and of `B'(:,j)`
/// (`b`): a sorted merge when `x + b` is tiny; those `x` entries testing
/// the bitmap of `B'(:,j)` ([`RowBits`]) when it has one and `x ≤ b`; the
/// `x` entries galloped into `B'(:,j)` when `x · log₂ b` is well below `b`;
/// else `B'(:,j)` probing the marker of `A(i,:)` (scattered once per row,
/// when first needed).
#[inline]
#[allow(clippy::too_many_arguments)] // the per-row loop's state, passed by reference in the hot loop
fn row_dots<S: Semiring>(
    i: usize,
    pat: &[usize],
    s: S,
    ar: Rows<'_, S::A>,
    bt: Rows<'_, S::B>,
    bits: &RowBits,
    p: usize,
    mark: &mut Vec<u32>,
) -> Option<S::C> {
    let (ai, av) = ar.row(i);
    if ai.is_empty() || pat.is_empty() {
        return None;
    }
    let monoid = s.add_monoid();
    let (amin, amax) = (ai[0], ai[ai.len() - 1]);
    let mut marked = false;
    let mut acc: Option<S::C> = None;
    for &j in pat {
        let (bi, bv) = bt.row(j);
        let Some(&bmax) = bi.last() else { continue };
        if bmax < amin || bi[0] > amax {
            continue;
        }
        let mut dot: Option<S::C> = None;
        let mut hit = |x: usize, y: usize| {
            let k = ai[x];
            let t = s.multiply(av[x], bv[y], Position::new(i, k, j));
            let v = dot.map_or(t, |d| monoid.combine(d, t));
            dot = Some(v);
            !monoid.is_terminal(&v)
        };
        // A(i,:)'s entries that B'(:,j) can match: those up to its last k
        let x = if bmax >= amax { ai.len() } else { ai.partition_point(|&k| k <= bmax) };
        let b = bi.len();
        if x + b <= MERGE_MAX {
            intersect_sorted(&ai[..x], bi, hit);
        } else if let Some(row) = bits.row(j).filter(|_| x <= b) {
            // A(i,:)'s entries test B'(:,j)'s bits (its position by the rank directory)
            for (t, &k) in ai[..x].iter().enumerate() {
                if let Some(y) = row.position(k) {
                    if !hit(t, y) {
                        break;
                    }
                }
            }
        } else if x * (usize::BITS - b.leading_zeros()) as usize * SEARCH_COST < b {
            gallop(&ai[..x], bi, hit);
        } else {
            if !marked {
                if mark.len() < p {
                    mark.resize(p, 0);
                }
                for (x, &k) in ai.iter().enumerate() {
                    mark[k] = x as u32 + 1;
                }
                marked = true;
            }
            for (y, &k) in bi.iter().enumerate() {
                if k > amax {
                    break;
                }
                let x = mark[k];
                if x != 0 && !hit(x as usize - 1, y) {
                    break;
                }
            }
        }
        if let Some(d) = dot {
            acc = Some(acc.map_or(d, |a| monoid.combine(a, d)));
        }
    }
    if marked {
        for &k in ai {
            mark[k] = 0;
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sorted(v: Vec<usize>) -> Vec<usize> {
        let set: std::collections::BTreeSet<usize> = v.into_iter().collect();
        set.into_iter().collect()
    }

    proptest! {
        /// The bitmaps of the long, dense rows give each index's position
        /// in its row, and nothing for the indices not there.
        #[test]
        fn row_bitmaps_give_positions(rows in proptest::collection::vec(proptest::collection::vec(0usize..3000, 0..200), 1..8)) {
            let rows: Vec<Vec<usize>> = rows.into_iter().map(sorted).collect();
            let mut indptr = vec![0];
            let mut indices = Vec::new();
            for r in &rows {
                indices.extend_from_slice(r);
                indptr.push(indices.len());
            }
            let bits = RowBits::of(&indptr, &indices);
            for (j, r) in rows.iter().enumerate() {
                let dense = r.len() >= BITS_MIN_ROW && (r[r.len() - 1] - r[0]) / 64 < r.len();
                let Some(row) = bits.row(j) else {
                    prop_assert!(!dense, "row {} should have a bitmap", j);
                    continue;
                };
                prop_assert!(dense);
                for k in 0..3100 {
                    prop_assert_eq!(row.position(k), r.binary_search(&k).ok(), "row {} id {}", j, k);
                }
            }
        }

        /// Every way (merge, gallop either side) finds exactly the common
        /// entries, in increasing order, and stops when asked.
        #[test]
        fn intersections_are_the_common_entries(
            a in proptest::collection::vec(0usize..400, 0..60),
            b in proptest::collection::vec(0usize..400, 0..600),
            stop in 0usize..5,
        ) {
            let (a, b) = (sorted(a), sorted(b));
            let want: Vec<(usize, usize)> = a
                .iter()
                .enumerate()
                .filter_map(|(x, k)| b.binary_search(k).ok().map(|y| (x, y)))
                .collect();
            for (p, q, flip) in [(&a, &b, false), (&b, &a, true)] {
                let mut got = Vec::new();
                intersect_sorted(p, q, |x, y| {
                    got.push(if flip { (y, x) } else { (x, y) });
                    true
                });
                prop_assert_eq!(&got, &want);
                let mut first = Vec::new();
                intersect_sorted(p, q, |x, y| {
                    first.push(if flip { (y, x) } else { (x, y) });
                    first.len() <= stop
                });
                prop_assert_eq!(&first[..], &want[..want.len().min(stop + 1)]);
            }
        }
    }
}
