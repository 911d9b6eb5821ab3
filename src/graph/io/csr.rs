//! CSR assembly for the readers: a parallel counting sort by row, then a
//! sort of each (short) row by column, in place of the graph builder's
//! comparison sort of every arc.
//!
//! The result is the one [`GraphBuilder`](crate::graph::GraphBuilder)
//! gives for the same arcs pushed in file order: rows by source, entries
//! by target, and among duplicates of one arc the file order (so
//! [`Duplicates::KeepFirst`] keeps the same one and
//! [`Duplicates::SumWeights`] adds in the same order). Like the fast path
//! of [`scan`](super::scan), assembly gives up (`None`) where the builder
//! would fail, and the reader then falls back to the builder, whose error
//! it reports.

use super::counting;
use crate::graph::{Direction, Duplicates, Graph, Label};
use rayon::prelude::*;
use sprs::{CompressedStorage, CsMat};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

/// The arcs of a graph sorted into rows: `slots[indptr[i]..indptr[i + 1]]`
/// holds row `i`'s arcs as `(target << 32) | arc`, sorted, where `arc`
/// numbers the arcs in the order the builder would have them pushed.
pub(super) struct Sorted {
    pub indptr: Vec<usize>,
    pub slots: Vec<u64>,
    /// Whether some row holds one target twice.
    pub duplicates: bool,
    /// Whether every entry `(i, j)` also gave the arc `j → i`.
    pub mirror: bool,
}

impl Sorted {
    /// The entry (0-based over all parts) an arc comes from.
    #[inline]
    pub fn entry(&self, slot: u64) -> usize {
        let arc = (slot & 0xFFFF_FFFF) as usize;
        if self.mirror {
            arc >> 1
        } else {
            arc
        }
    }
}

/// The least work per task of a parallel loop here: a small graph (one of a
/// TU data set's thousands) is sorted on one thread.
const MIN: usize = 1 << 14;

/// Sorts the entries `(rows[k], cols[k])` of every part (in part order:
/// the file order) into rows of a graph of `n` nodes; with `mirror`, an
/// entry `(i, j)`, `i != j`, is also the arc `j → i` (an undirected edge).
/// `None` when ids or counts do not fit the 32-bit packing (the builder
/// then does it).
pub(super) fn sort(n: usize, parts: &[(&[u32], &[u32])], mirror: bool) -> Option<Sorted> {
    let entries: usize = parts.iter().map(|p| p.0.len()).sum();
    let arcs_max = if mirror { entries.checked_mul(2)? } else { entries };
    if arcs_max > u32::MAX as usize || n > u32::MAX as usize {
        return None;
    }
    let mut offsets = Vec::with_capacity(parts.len());
    let mut acc = 0;
    for p in parts {
        offsets.push(acc);
        acc += p.0.len();
    }
    let counts: Vec<AtomicUsize> = (0..n).into_par_iter().with_min_len(MIN).map(|_| AtomicUsize::new(0)).collect();
    parts.par_iter().for_each(|(rows, cols)| {
        for (&i, &j) in rows.iter().zip(cols.iter()) {
            counts[i as usize].fetch_add(1, Relaxed);
            if mirror && i != j {
                counts[j as usize].fetch_add(1, Relaxed);
            }
        }
    });
    let mut indptr = Vec::with_capacity(n + 1);
    indptr.push(0usize);
    for c in &counts {
        indptr.push(indptr[indptr.len() - 1] + c.load(Relaxed));
    }
    let total = indptr[n];
    counts.par_iter().zip(indptr.par_iter()).with_min_len(MIN).for_each(|(c, &p)| c.store(p, Relaxed));
    let slots: Vec<AtomicU64> = (0..total).into_par_iter().with_min_len(MIN).map(|_| AtomicU64::new(0)).collect();
    parts.par_iter().zip(offsets.par_iter()).for_each(|((rows, cols), &off)| {
        for (k, (&i, &j)) in rows.iter().zip(cols.iter()).enumerate() {
            let e = (off + k) as u64;
            if mirror {
                if i != j {
                    slots[counts[j as usize].fetch_add(1, Relaxed)].store((u64::from(i) << 32) | (2 * e), Relaxed);
                }
                slots[counts[i as usize].fetch_add(1, Relaxed)].store((u64::from(j) << 32) | (2 * e + 1), Relaxed);
            } else {
                slots[counts[i as usize].fetch_add(1, Relaxed)].store((u64::from(j) << 32) | e, Relaxed);
            }
        }
    });
    let mut slots: Vec<u64> = slots.into_iter().map(AtomicU64::into_inner).collect();
    let duplicates = for_row_blocks(&indptr, &mut slots, |row| {
        row.sort_unstable();
        row.windows(2).any(|w| w[0] >> 32 == w[1] >> 32)
    });
    Some(Sorted { indptr, slots, duplicates, mirror })
}

/// Runs `f` on every row of `slots` (blocks of rows in parallel); whether
/// any call returned `true`.
fn for_row_blocks(indptr: &[usize], slots: &mut [u64], f: impl Fn(&mut [u64]) -> bool + Sync) -> bool {
    const ROWS: usize = 2048;
    let n = indptr.len() - 1;
    let mut blocks = Vec::with_capacity(n / ROWS + 1);
    let mut rest = slots;
    let mut r = 0;
    while r < n {
        let r1 = (r + ROWS).min(n);
        let (a, b) = rest.split_at_mut(indptr[r1] - indptr[r]);
        blocks.push((r, r1, a));
        rest = b;
        r = r1;
    }
    blocks
        .into_par_iter()
        .map(|(r0, r1, s)| {
            let base = indptr[r0];
            let mut any = false;
            for i in r0..r1 {
                any |= f(&mut s[indptr[i] - base..indptr[i + 1] - base]);
            }
            any
        })
        .reduce(|| false, |a, b| a || b)
}

/// The CSR of sorted arcs: `(indptr, indices, entry of each stored arc)`,
/// duplicates resolved by `policy` (the first arc of a run of duplicates
/// stands for them; [`Duplicates::SumWeights`] is left to
/// [`weights`]). `None` under [`Duplicates::Reject`] when there are
/// duplicates.
pub(super) fn resolve(s: Sorted, policy: Duplicates) -> Option<(Vec<usize>, Vec<usize>, Sorted)> {
    if !s.duplicates {
        let indices = s.slots.par_iter().with_min_len(MIN).map(|&x| (x >> 32) as usize).collect();
        return Some((s.indptr.clone(), indices, s));
    }
    if policy == Duplicates::Reject {
        return None;
    }
    let n = s.indptr.len() - 1;
    let mut indptr = Vec::with_capacity(n + 1);
    indptr.push(0);
    let mut indices = Vec::with_capacity(s.slots.len());
    for i in 0..n {
        let row = &s.slots[s.indptr[i]..s.indptr[i + 1]];
        for (k, &x) in row.iter().enumerate() {
            if k == 0 || row[k - 1] >> 32 != x >> 32 {
                indices.push((x >> 32) as usize);
            }
        }
        indptr.push(indices.len());
    }
    Some((indptr, indices, s))
}

/// The weight of every stored arc of [`resolve`]'s CSR: `w(entry)` of its
/// first arc, or under [`Duplicates::SumWeights`] the sum over its
/// duplicates in file order. With `same_weight`, duplicates of different
/// weights make it `None` (an edge list's [`Duplicates::KeepFirst`]).
pub(super) fn weights(
    s: &Sorted,
    nnz: usize,
    policy: Duplicates,
    same_weight: bool,
    w: impl Fn(usize) -> f64 + Sync,
) -> Option<Vec<f64>> {
    if !s.duplicates {
        return Some(s.slots.par_iter().with_min_len(MIN).map(|&x| w(s.entry(x))).collect());
    }
    let mut out: Vec<f64> = Vec::with_capacity(nnz);
    let n = s.indptr.len() - 1;
    for i in 0..n {
        let row = &s.slots[s.indptr[i]..s.indptr[i + 1]];
        for (k, &x) in row.iter().enumerate() {
            let v = w(s.entry(x));
            let last = out.last_mut();
            match last {
                Some(l) if k > 0 && row[k - 1] >> 32 == x >> 32 => match policy {
                    Duplicates::SumWeights => *l += v,
                    _ if same_weight && v != w(s.entry(first_of_run(row, k))) => return None,
                    _ => {}
                },
                _ => out.push(v),
            }
        }
    }
    Some(out)
}

/// The first slot of the run of equal targets that holds `row[k]`.
fn first_of_run(row: &[u64], mut k: usize) -> u64 {
    while k > 0 && row[k - 1] >> 32 == row[k] >> 32 {
        k -= 1;
    }
    row[k]
}

/// The CSR of the entries of `parts` (see [`counting::assemble`]), with
/// duplicates resolved by `policy` in file order where there are any
/// (`same_weight`: as in [`weights`]); `None` where the graph builder
/// would fail.
pub(super) fn assemble(
    n: usize,
    parts: &[counting::Part],
    mirror: bool,
    policy: Duplicates,
    same_weight: bool,
) -> Option<counting::Csr> {
    if let Some(csr) = counting::assemble(n, parts, mirror) {
        return Some(csr);
    }
    let keys: Vec<(&[u32], &[u32])> = parts.iter().map(|p| (p.0, p.1)).collect();
    let (indptr, indices, sorted) = resolve(sort(n, &keys, mirror)?, policy)?;
    let weights = if parts.iter().all(|p| p.2.is_empty()) {
        weights(&sorted, indices.len(), policy, false, |_| 1.0)?
    } else {
        let mut all = Vec::with_capacity(keys.iter().map(|k| k.0.len()).sum());
        for p in parts {
            if p.2.is_empty() {
                all.resize(all.len() + p.0.len(), 1.0);
            } else {
                all.extend_from_slice(p.2);
            }
        }
        weights(&sorted, indices.len(), policy, same_weight, |k| all[k])?
    };
    Some((indptr, indices, weights))
}

/// A graph from CSR parts, checked in parallel (`None` if they are
/// malformed, which the readers' own checks rule out): the checks of
/// `sprs`'s `CsMat::try_new`, which runs them on one thread.
pub(super) fn graph<N: Label, E: Label>(
    n: usize,
    direction: Direction,
    csr: (Vec<usize>, Vec<usize>, Vec<f64>),
    node_labels: Vec<N>,
    edge_labels: Vec<E>,
) -> Option<Graph<N, E>> {
    let ok = well_formed(n, &csr.0, &csr.1) && csr.2.len() == csr.1.len();
    let sizes = node_labels.len() == n && edge_labels.len() == csr.1.len();
    // SAFETY: `well_formed` checked the structure.
    (ok && sizes).then(|| unsafe { graph_checked(n, direction, csr, node_labels, edge_labels) })
}

/// A graph from CSR parts its caller has checked: `n + 1` row offsets
/// from 0 to `nnz`, never decreasing; in each row column indices below
/// `n`, strictly increasing; `nnz` weights, `n` node labels and `nnz`
/// edge labels.
///
/// # Panics
/// When the label or weight counts do not match.
///
/// # Safety
/// The structure is not checked again (but in debug builds): the rest of
/// the library indexes the arrays without bounds checks where the CSR
/// says it may.
pub(super) unsafe fn graph_checked<N: Label, E: Label>(
    n: usize,
    direction: Direction,
    csr: (Vec<usize>, Vec<usize>, Vec<f64>),
    node_labels: Vec<N>,
    edge_labels: Vec<E>,
) -> Graph<N, E> {
    let (indptr, indices, data) = csr;
    assert!(
        node_labels.len() == n && edge_labels.len() == indices.len() && data.len() == indices.len(),
        "graph_checked: label or weight counts do not match the CSR"
    );
    debug_assert!(well_formed(n, &indptr, &indices));
    // SAFETY: the caller checked what `CsMat::new_unchecked` requires of a
    // CSR matrix (`check_compressed_structure`), as this function's
    // contract says.
    let adjacency = unsafe { CsMat::new_unchecked(CompressedStorage::CSR, (n, n), indptr, indices, data) };
    Graph {
        adjacency,
        node_labels,
        edge_labels,
        start: None,
        direction,
        degrees: OnceLock::new(),
        transpose: OnceLock::new(),
    }
}

/// Whether `indptr` and `indices` are the CSR structure of an `n × n`
/// matrix with sorted rows and no repeated index (in parallel).
fn well_formed(n: usize, indptr: &[usize], indices: &[usize]) -> bool {
    indptr.len() == n + 1
        && indptr[0] == 0
        && indptr[n] == indices.len()
        && indptr.par_windows(2).all(|w| w[0] <= w[1])
        && (0..n).into_par_iter().with_min_len(1 << 12).all(|i| {
            let row = &indices[indptr[i]..indptr[i + 1]];
            row.last().is_none_or(|&j| j < n) && row.windows(2).all(|w| w[0] < w[1])
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    fn via_builder(n: usize, e: &[(u32, u32, f64)], dir: Direction, p: Duplicates) -> Option<Graph<(), ()>> {
        let mut b = GraphBuilder::<(), ()>::new(n, dir).default_node_labels().duplicates(p);
        for &(i, j, w) in e {
            if dir == Direction::Undirected {
                b.push_edge(i as usize, j as usize, w, ());
            } else {
                b.push_arc(i as usize, j as usize, w, ());
            }
        }
        b.build().ok()
    }

    fn via_sort(n: usize, e: &[(u32, u32, f64)], dir: Direction, p: Duplicates) -> Option<Graph<(), ()>> {
        let rows: Vec<u32> = e.iter().map(|x| x.0).collect();
        let cols: Vec<u32> = e.iter().map(|x| x.1).collect();
        let half = e.len() / 2;
        let parts = [(&rows[..half], &cols[..half]), (&rows[half..], &cols[half..])];
        let s = sort(n, &parts, dir == Direction::Undirected)?;
        let (indptr, indices, s) = resolve(s, p)?;
        let w = weights(&s, indices.len(), p, false, |k| e[k].2)?;
        let nnz = indices.len();
        graph(n, dir, (indptr, indices, w), vec![(); n], vec![(); nnz])
    }

    fn same(a: &Graph<(), ()>, b: &Graph<(), ()>) -> bool {
        a.indptr() == b.indptr()
            && a.indices() == b.indices()
            && a.weights().iter().zip(b.weights()).all(|(x, y)| x.to_bits() == y.to_bits())
            && a.direction() == b.direction()
    }

    proptest::proptest! {
        #[test]
        fn matches_the_builder(
            n in 1usize..12,
            raw in proptest::collection::vec((0u32..12, 0u32..12, 0u32..4), 0..60),
            undirected: bool,
            policy in 0usize..3,
        ) {
            let e: Vec<(u32, u32, f64)> =
                raw.iter().map(|&(i, j, w)| (i % n as u32, j % n as u32, f64::from(w) * 0.1)).collect();
            let dir = if undirected { Direction::Undirected } else { Direction::Directed };
            let p = [Duplicates::Reject, Duplicates::KeepFirst, Duplicates::SumWeights][policy];
            let (a, b) = (via_builder(n, &e, dir, p), via_sort(n, &e, dir, p));
            proptest::prop_assert_eq!(a.is_some(), b.is_some());
            if let (Some(a), Some(b)) = (a, b) {
                proptest::prop_assert!(same(&a, &b));
            }
        }
    }
}
