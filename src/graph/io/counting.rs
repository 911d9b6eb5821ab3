//! The fast CSR assembly of the text readers: a stable, parallel, two-pass
//! radix (counting) sort of the parsed entries straight into the final
//! arrays, with every random write landing in cache.
//!
//! Rows are grouped into *buckets* of consecutive rows whose arcs take
//! about [`BUCKET_ARCS`] slots. Pass 1 splits the entries into one group of
//! consecutive blocks per thread; each group counts its arcs per bucket,
//! and then writes each arc, packed as `row << 32 | target` (its weight
//! beside it), into its bucket's range of the output arrays: these ranges
//! are already the final place of the bucket's rows, and within a range
//! the arcs follow in file order (groups in order, each in file order).
//! Pass 2 takes one bucket at a time (buckets in parallel): it counts the
//! rows, sets their offsets and moves each arc from a copy of the range
//! (in cache) to its row. Each row is then sorted by target (stably where
//! the weights differ). A single random write per arc into a large array
//! (a plain counting sort) costs a cache miss each; here both passes write
//! sequentially or within a range that fits the cache.
//!
//! A row holding one target twice (a duplicate entry) makes it give up
//! (`None`): [`csr`](super::csr)'s key sort then resolves the duplicates
//! by the caller's policy, in file order. The arrays are allocated with
//! huge pages where the system offers them ([`alloc`](super::alloc)).

use super::alloc::{as_atomic, as_atomic_f64, filled, lap};
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// The entries of one parsed block: rows, columns and weights (an empty
/// weight slice: every entry weighs 1).
pub(super) type Part<'a> = (&'a [u32], &'a [u32], &'a [f64]);

/// A graph's CSR arrays: `(indptr, indices, weights)`.
pub(super) type Csr = (Vec<usize>, Vec<usize>, Vec<f64>);

/// About how many arcs a bucket holds: their 8-byte slots (and weights)
/// fit a core's L2 cache.
const BUCKET_ARCS: usize = 1 << 15;

/// Sorts the entries of `parts` (in part order: the file order) into the
/// CSR of a graph of `n` nodes; with `mirror`, an entry `(i, j)`, `i != j`,
/// is also the arc `j → i`. `None` when a row holds a target twice, or
/// when ids or counts do not fit 32 bits (the callers check ids against
/// `n` before).
pub(super) fn assemble(n: usize, parts: &[Part], mirror: bool) -> Option<Csr> {
    let mut t = super::alloc::clock();
    let entries: usize = parts.iter().map(|p| p.0.len()).sum();
    let arcs_max = if mirror { entries.checked_mul(2)? } else { entries };
    if arcs_max >= u32::MAX as usize || n >= u32::MAX as usize || usize::BITS < 64 || n == 0 {
        return None;
    }
    let weighted = parts.iter().any(|p| !p.2.is_empty());
    // Rows per bucket: a power of two, so that about BUCKET_ARCS arcs fall in each.
    let buckets_wanted = (arcs_max / BUCKET_ARCS).max(1);
    let shift = n.div_ceil(buckets_wanted).next_power_of_two().trailing_zeros();
    let nb = ((n - 1) >> shift) + 1;
    let groups = split_groups(parts);
    let each = |g: &std::ops::Range<usize>, f: &mut dyn FnMut(u32, u32, f64)| {
        for &(rows, cols, ws) in &parts[g.clone()] {
            for (k, (&i, &j)) in rows.iter().zip(cols).enumerate() {
                let w = ws.get(k).copied().unwrap_or(1.0);
                if mirror && i != j {
                    f(j, i, w);
                }
                f(i, j, w);
            }
        }
    };
    // Pass 1: arcs per (group, bucket), then each group's first slot per bucket.
    let mut starts: Vec<Vec<usize>> = groups
        .par_iter()
        .map(|g| {
            let mut c = vec![0usize; nb];
            each(g, &mut |i, _, _| c[(i >> shift) as usize] += 1);
            c
        })
        .collect();
    let mut bucket_at = Vec::with_capacity(nb + 1);
    let mut acc = 0;
    for b in 0..nb {
        bucket_at.push(acc);
        for c in &mut starts {
            (c[b], acc) = (acc, acc + c[b]);
        }
    }
    bucket_at.push(acc);
    let nnz = acc;
    let mut indices: Vec<usize> = filled(nnz, 0);
    let mut weights: Vec<f64> = if weighted { filled(nnz, 0.0) } else { Vec::new() };
    {
        let (ix, wx) = (as_atomic(&mut indices), as_atomic_f64(&mut weights));
        groups.par_iter().zip(starts).for_each(|(g, mut at)| {
            each(g, &mut |i, j, w| {
                let b = (i >> shift) as usize;
                let p = at[b];
                at[b] += 1;
                ix[p].store(((i as usize) << 32) | j as usize, Relaxed);
                if weighted {
                    wx[p].store(w.to_bits(), Relaxed);
                }
            });
        });
    }
    lap("partition", &mut t);
    // Pass 2: each bucket's arcs into its rows.
    let mut indptr: Vec<usize> = filled(n + 1, 0);
    indptr[n] = nnz;
    let mut tasks = Vec::with_capacity(nb);
    let (mut ri, mut rw, mut rp) = (&mut indices[..], &mut weights[..], &mut indptr[..n]);
    for b in 0..nb {
        let len = bucket_at[b + 1] - bucket_at[b];
        let rows = rp.len().min(1 << shift);
        let (a, x) = ri.split_at_mut(len);
        let (c, y) = rw.split_at_mut(len.min(rw.len()));
        let (d, z) = rp.split_at_mut(rows);
        tasks.push((b, a, c, d));
        (ri, rw, rp) = (x, y, z);
    }
    let ok = tasks
        .into_par_iter()
        .map_init(Scratch::default, |s, (b, ix, ws, ptr)| rows_of_bucket(s, b << shift, bucket_at[b], ix, ws, ptr))
        .all(|ok| ok);
    lap("rows", &mut t);
    if !ok {
        return None;
    }
    if !weighted {
        weights = filled(nnz, 1.0);
    }
    lap("fill weights", &mut t);
    Some((indptr, indices, weights))
}

/// The buffers of [`rows_of_bucket`], kept by each thread.
#[derive(Default)]
struct Scratch {
    pos: Vec<usize>,
    arcs: Vec<usize>,
    weights: Vec<f64>,
    pairs: Vec<(usize, f64)>,
}

/// Pass 2 of [`assemble`] for one bucket: `ix` (and `ws`) hold its arcs
/// as `row << 32 | target`, rows from `r0` on, in file order; on return
/// they hold the targets row by row, each row sorted, and `ptr` the rows'
/// offsets (`base`: the bucket's first slot). `false` when a row holds a
/// target twice.
fn rows_of_bucket(
    s: &mut Scratch,
    r0: usize,
    base: usize,
    ix: &mut [usize],
    ws: &mut [f64],
    ptr: &mut [usize],
) -> bool {
    let Scratch { pos, arcs, weights: wts, pairs } = s;
    pos.clear();
    pos.resize(ptr.len() + 1, 0);
    for &x in ix.iter() {
        pos[(x >> 32) - r0 + 1] += 1;
    }
    for k in 0..ptr.len() {
        pos[k + 1] += pos[k];
        ptr[k] = base + pos[k];
    }
    arcs.clear();
    arcs.extend_from_slice(ix);
    wts.clear();
    wts.extend_from_slice(ws);
    for (a, &x) in arcs.iter().enumerate() {
        let r = (x >> 32) - r0;
        let p = pos[r];
        pos[r] += 1;
        ix[p] = x & 0xFFFF_FFFF;
        if !wts.is_empty() {
            ws[p] = wts[a];
        }
    }
    (0..ptr.len()).all(|k| {
        let rng = ptr[k] - base..ptr.get(k + 1).map_or(ix.len(), |&e| e - base);
        let row = &mut ix[rng.clone()];
        if row.windows(2).all(|w| w[0] < w[1]) {
            return true;
        }
        if ws.is_empty() {
            row.sort_unstable();
        } else {
            let rw = &mut ws[rng];
            pairs.clear();
            pairs.extend(row.iter().copied().zip(rw.iter().copied()));
            pairs.sort_by_key(|p| p.0);
            for ((x, w), &(a, b)) in row.iter_mut().zip(rw.iter_mut()).zip(pairs.iter()) {
                (*x, *w) = (a, b);
            }
        }
        row.windows(2).all(|w| w[0] < w[1])
    })
}

/// Consecutive ranges of parts, one per thread, balanced by entries.
fn split_groups(parts: &[Part]) -> Vec<std::ops::Range<usize>> {
    let want = rayon::current_num_threads().clamp(1, parts.len().max(1));
    let total: usize = parts.iter().map(|p| p.0.len()).sum();
    let mut out = Vec::with_capacity(want);
    let (mut start, mut acc) = (0, 0);
    for (k, p) in parts.iter().enumerate() {
        acc += p.0.len();
        if acc * want >= total * (out.len() + 1) && out.len() + 1 < want {
            out.push(start..k + 1);
            start = k + 1;
        }
    }
    out.push(start..parts.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Direction, GraphBuilder};

    proptest::proptest! {
        /// The same CSR as the graph builder, or `None` exactly when the
        /// builder finds a duplicate.
        #[test]
        fn matches_the_builder(
            n in 1usize..40,
            raw in proptest::collection::vec((0u32..40, 0u32..40, 0u32..4), 0..200),
            undirected: bool,
            weighted: bool,
            cut in 0usize..200,
        ) {
            let e: Vec<(u32, u32, f64)> = raw
                .iter()
                .map(|&(i, j, w)| (i % n as u32, j % n as u32, if weighted { f64::from(w) * 0.5 } else { 1.0 }))
                .collect();
            let dir = if undirected { Direction::Undirected } else { Direction::Directed };
            let mut b = GraphBuilder::<(), ()>::new(n, dir).default_node_labels();
            for &(i, j, w) in &e {
                if undirected { b.push_edge(i as usize, j as usize, w, ()) } else { b.push_arc(i as usize, j as usize, w, ()) }
            }
            let rows: Vec<u32> = e.iter().map(|x| x.0).collect();
            let cols: Vec<u32> = e.iter().map(|x| x.1).collect();
            let ws: Vec<f64> = if weighted { e.iter().map(|x| x.2).collect() } else { Vec::new() };
            let c = cut.min(e.len());
            let (w0, w1) = if weighted { (&ws[..c], &ws[c..]) } else { (&ws[..], &ws[..]) };
            let parts = [(&rows[..c], &cols[..c], w0), (&rows[c..], &cols[c..], w1)];
            let got = assemble(n, &parts, undirected);
            match b.build() {
                Ok(g) => {
                    let (p, i, w) = got.expect("no duplicates");
                    proptest::prop_assert_eq!(&p[..], g.indptr());
                    proptest::prop_assert_eq!(&i[..], g.indices());
                    proptest::prop_assert_eq!(&w[..], g.weights());
                }
                Err(_) => proptest::prop_assert!(got.is_none()),
            }
        }
    }

    #[test]
    fn groups_cover_the_parts_in_order() {
        let a = [1u32, 2, 3];
        let parts: Vec<Part> = (0..7).map(|k| (&a[..k % 4], &a[..k % 4], &[][..])).collect();
        let g = split_groups(&parts);
        assert_eq!(g.first().map(|r| r.start), Some(0));
        assert_eq!(g.last().map(|r| r.end), Some(7));
        assert!(g.windows(2).all(|w| w[0].end == w[1].start));
    }
}
