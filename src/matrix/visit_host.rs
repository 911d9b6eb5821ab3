//! The host's BFS level step ([`vxm_visit`](super::vxm_visit) on a
//! [`SparseMatrix`]) and its visit state [`HostVisited`].
//!
//! Every `O(n)` or `O(frontier)` pass runs on all rayon threads: the state
//! is made and read back in parallel, a pull level scans small ranges of
//! the visited bitmap as tasks (rayon steals them: the in-arcs of a
//! power-law graph are skewed), each task setting the levels, parents,
//! visited bits and next-frontier bits of its own nodes, and a push level
//! marks its new nodes in parallel. A pull level that follows a pull level
//! reads the frontier's bitmap the last one wrote; only after a push level
//! is the bitmap made from the list.

use super::place_visit::{pulls, Reached, VisitOp};
use super::SpmspvOptions;
use super::{vxm_sparse, DenseVector, Descriptor, Element, Mask, MergeStrategy, PushPull, SparseMatrix, SparseVector};
use crate::semirings::AnySecondi;
use rayon::prelude::*;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// "Not reached" in the parent array (`-1` as an `i64`).
const UNSET: u64 = u64::MAX;
/// Below this many frontier arcs (push), nodes (pull, marking) a level runs on one thread.
const PAR_MIN_WORK: usize = 1 << 14;
/// Bitmap words per parallel pull task (64 nodes each).
const PULL_WORDS_PER_TASK: usize = 32;

/// The visit state of a BFS on the host: levels, parents (atomic, for the
/// parallel push), the visited bitmap, the frontier as a list and as a
/// bitmap, the next frontier's bitmap; `O(n)` in all, nothing `O(n)` per
/// level on one thread.
pub struct HostVisited {
    n: usize,
    levels: Vec<AtomicI64>,
    parents: Vec<AtomicU64>,
    visited: Vec<AtomicU64>,
    frontier_bits: Vec<AtomicU64>,
    /// Written whole by each pull level (every word by one task).
    next_bits: Vec<AtomicU64>,
    /// Whether `frontier_bits` holds the frontier (the last level pulled).
    frontier_in_bits: bool,
    /// The frontier as a list when `frontier_in_list`, else as the pull
    /// tasks' lists `frontier_parts` (concatenated only if a push follows).
    frontier: Vec<usize>,
    frontier_parts: Vec<Vec<usize>>,
    frontier_in_list: bool,
    /// The frontier's nodes.
    frontier_len: usize,
    next: Vec<usize>,
    /// The frontier's out-arcs.
    arcs: usize,
    /// Nothing visited yet (just made): a search needs no reset.
    fresh: bool,
    /// The parents as a vector (for the mask of the sorting strategies' `vxm_sparse`).
    dense_parents: Option<DenseVector<u64>>,
}

#[inline]
fn bit(words: &[AtomicU64], i: usize) -> bool {
    words[i >> 6].load(Ordering::Relaxed) >> (i & 63) & 1 != 0
}

/// `n` atomics holding `x`, made on all threads.
fn filled<A: Send, F: Fn() -> A + Sync + Send>(n: usize, x: F) -> Vec<A> {
    (0..n).into_par_iter().with_min_len(4096).map(|_| x()).collect()
}

impl<T: Element> VisitOp for SparseMatrix<T> {
    type Visited = HostVisited;

    fn stored(&self) -> usize {
        self.nnz()
    }

    fn visited(&self) -> crate::Result<HostVisited> {
        super::check_dim("vxm_visit", "columns", self.nrows(), self.ncols())?;
        let n = self.nrows();
        let words = n.div_ceil(64);
        Ok(HostVisited {
            n,
            levels: filled(n, || AtomicI64::new(-1)),
            parents: filled(n, || AtomicU64::new(UNSET)),
            visited: filled(words, || AtomicU64::new(0)),
            frontier_bits: filled(words, || AtomicU64::new(0)),
            next_bits: filled(words, || AtomicU64::new(0)),
            frontier_in_bits: false,
            frontier: Vec::with_capacity(1024),
            frontier_parts: Vec::new(),
            frontier_in_list: true,
            frontier_len: 0,
            next: Vec::with_capacity(1024),
            arcs: 0,
            fresh: true,
            dense_parents: None,
        })
    }

    fn visit_source(&self, v: &mut HostVisited, source: usize) -> crate::Result<Reached> {
        super::check_dim("vxm_visit", "visit state", self.nrows(), v.n)?;
        if !v.fresh {
            v.levels.par_iter().with_min_len(4096).for_each(|x| x.store(-1, Ordering::Relaxed));
            v.parents.par_iter().with_min_len(4096).for_each(|p| p.store(UNSET, Ordering::Relaxed));
            v.visited.par_iter().with_min_len(4096).for_each(|w| w.store(0, Ordering::Relaxed));
        }
        v.fresh = false;
        v.frontier_in_bits = false;
        v.frontier.clear();
        v.frontier_parts.clear();
        v.frontier_in_list = true;
        v.frontier_len = 1;
        v.dense_parents = None;
        v.parents[source].store(source as u64, Ordering::Relaxed);
        v.levels[source].store(0, Ordering::Relaxed);
        v.visited[source >> 6].fetch_or(1 << (source & 63), Ordering::Relaxed);
        v.frontier.push(source);
        v.arcs = self.row(source).0.len();
        Ok(Reached { nodes: 1, arcs: v.arcs })
    }

    fn vxm_visit_op(&self, v: &mut HostVisited, level: usize, opts: &SpmspvOptions) -> crate::Result<Reached> {
        super::check_dim("vxm_visit", "visit state", self.nrows(), v.n)?;
        let pull = pulls(opts.direction, v.frontier_len, v.n);
        v.next.clear();
        let sorting = !matches!(opts.strategy, MergeStrategy::Scatter | MergeStrategy::Auto);
        if !v.frontier_in_list && (sorting || !pull) {
            v.frontier.clear();
            v.frontier.reserve(v.frontier_len);
            for part in v.frontier_parts.drain(..) {
                v.frontier.extend_from_slice(&part);
            }
            v.frontier_in_list = true;
        }
        let (nodes, arcs) = if sorting {
            step_sorting(self, v, pull, opts)?;
            v.frontier_in_bits = false;
            (v.next.len(), mark(self.indptr(), v, level))
        } else if pull {
            v.dense_parents = None;
            if !v.frontier_in_bits {
                frontier_to_bits(v);
            }
            let (parts, arcs) = pull_step(self, v, level);
            std::mem::swap(&mut v.frontier_bits, &mut v.next_bits);
            v.frontier_in_bits = true;
            v.frontier_in_list = false;
            v.frontier_parts = parts;
            (v.frontier_parts.iter().map(Vec::len).sum(), arcs)
        } else {
            v.dense_parents = None;
            push_step(self.indptr(), self.indices(), v);
            v.frontier_in_bits = false;
            (v.next.len(), mark(self.indptr(), v, level))
        };
        if v.frontier_in_list {
            std::mem::swap(&mut v.frontier, &mut v.next);
        }
        v.frontier_len = nodes;
        v.arcs = arcs;
        Ok(Reached { nodes, arcs })
    }

    fn visited_to_host(v: &HostVisited) -> crate::Result<(Vec<i64>, Vec<i64>)> {
        let levels = v.levels.par_iter().with_min_len(4096).map(|x| x.load(Ordering::Relaxed)).collect();
        let parents = v.parents.par_iter().with_min_len(4096).map(|p| p.load(Ordering::Relaxed) as i64).collect();
        Ok((levels, parents))
    }

    /// Consuming the state (`UNSET` is `-1` as an `i64`).
    fn visited_into_host(v: HostVisited) -> crate::Result<(Vec<i64>, Vec<i64>)> {
        let levels = v.levels.into_par_iter().with_min_len(4096).map(AtomicI64::into_inner).collect();
        let parents = v.parents.into_par_iter().with_min_len(4096).map(|p| p.into_inner() as i64).collect();
        Ok((levels, parents))
    }
}

/// The new nodes `v.next` (their parents set) marked visited at `level`;
/// returns their out-arcs.
fn mark(indptr: &[usize], v: &HostVisited, level: usize) -> usize {
    let one = |u: usize| {
        v.visited[u >> 6].fetch_or(1 << (u & 63), Ordering::Relaxed);
        v.levels[u].store(level as i64, Ordering::Relaxed);
        indptr[u + 1] - indptr[u]
    };
    if v.next.len() < PAR_MIN_WORK || rayon::current_num_threads() == 1 {
        v.next.iter().map(|&u| one(u)).sum()
    } else {
        v.next.par_iter().with_min_len(1024).map(|&u| one(u)).sum()
    }
}

/// The frontier's bitmap from its list (the state after a push level).
fn frontier_to_bits(v: &mut HostVisited) {
    let (bits, frontier) = (&v.frontier_bits, &v.frontier);
    if frontier.len() < PAR_MIN_WORK || rayon::current_num_threads() == 1 {
        bits.iter().for_each(|w| w.store(0, Ordering::Relaxed));
        frontier.iter().for_each(|&u| {
            bits[u >> 6].fetch_or(1 << (u & 63), Ordering::Relaxed);
        });
    } else {
        bits.par_iter().with_min_len(4096).for_each(|w| w.store(0, Ordering::Relaxed));
        frontier.par_iter().with_min_len(1024).for_each(|&u| {
            bits[u >> 6].fetch_or(1 << (u & 63), Ordering::Relaxed);
        });
    }
}

/// The step by the sorting merge strategies: one [`vxm_sparse`] with the
/// complemented structural mask of the parents; the new nodes (in
/// increasing order) to `v.next`, their parents set.
fn step_sorting<T: Element>(
    a: &SparseMatrix<T>,
    v: &mut HostVisited,
    pull: bool,
    opts: &SpmspvOptions,
) -> crate::Result<()> {
    let n = v.n;
    let parents = v.dense_parents.get_or_insert_with(|| {
        let mut d = DenseVector::new(n);
        for (i, p) in v.parents.iter().enumerate() {
            let p = p.load(Ordering::Relaxed);
            if p != UNSET {
                d.set(i, p);
            }
        }
        d
    });
    v.frontier.sort_unstable();
    let values = v.frontier.iter().map(|&u| u as u64).collect();
    let q = SparseVector::try_new(n, std::mem::take(&mut v.frontier), values)?;
    let mut next = SparseVector::new(n);
    let spmspv = SpmspvOptions { direction: if pull { PushPull::Pull } else { PushPull::Push }, ..*opts };
    {
        let mask = Mask::structural(parents).complement();
        // the frontier is qᵀ, the semiring's first operand (values unread)
        vxm_sparse(
            &mut next,
            Some(&mask),
            None,
            AnySecondi::<u64, T>::new(),
            &q,
            a,
            &Descriptor::DEFAULT.replace(),
            &spmspv,
        )?;
    }
    for (u, p) in next.iter() {
        parents.set(u, p);
        v.parents[u].store(p, Ordering::Relaxed);
        v.next.push(u);
    }
    v.frontier = q.indices().to_vec();
    Ok(())
}

/// Push: every `w` adjacent to the frontier and not visited gets the
/// smallest frontier `u` as parent; newly reached nodes are appended to `v.next`.
fn push_step(indptr: &[usize], indices: &[usize], v: &mut HostVisited) {
    let (visited, parents) = (&v.visited, &v.parents);
    let visit = |u: usize, out: &mut Vec<usize>| {
        let uu = u as u64;
        for &w in &indices[indptr[u]..indptr[u + 1]] {
            if bit(visited, w) {
                continue;
            }
            let p = &parents[w];
            let old = p.load(Ordering::Relaxed);
            if old > uu {
                // across threads fetch_min keeps the smallest parent and tells
                // who reached `w` first
                let prev = p.fetch_min(uu, Ordering::Relaxed);
                if prev == UNSET {
                    out.push(w);
                }
            }
        }
    };
    let threads = rayon::current_num_threads();
    if threads == 1 || v.arcs < PAR_MIN_WORK {
        for &u in &v.frontier {
            visit(u, &mut v.next);
        }
    } else {
        let chunk = v.frontier.len().div_ceil(threads * 8).max(64);
        let parts: Vec<Vec<usize>> = v
            .frontier
            .par_chunks(chunk)
            .map(|us| {
                let mut out = Vec::new();
                for &u in us {
                    visit(u, &mut out);
                }
                out
            })
            .collect();
        v.next.reserve(parts.iter().map(Vec::len).sum());
        for part in parts {
            v.next.extend_from_slice(&part);
        }
    }
}

/// Pull: every unvisited `w` takes the first in-neighbour (in increasing
/// order) that is in the frontier's bitmap; each task (a range of
/// [`PULL_WORDS_PER_TASK`] bitmap words) sets the level, the parent, the
/// visited bit and the next-frontier bit of its new nodes and writes each
/// of its words of `next_bits`. Returns the new nodes (the tasks' lists,
/// in increasing order) and their out-arcs.
fn pull_step<T: Element>(a: &SparseMatrix<T>, v: &HostVisited, level: usize) -> (Vec<Vec<usize>>, usize) {
    let t = a.transposed_csr();
    let (t_indptr, t_indices) = (t.indptr().into_raw_storage(), t.indices());
    let indptr = a.indptr();
    let n = v.n;
    let (frontier_bits, next_bits, visited) = (&v.frontier_bits, &v.next_bits, &v.visited);
    let (levels, parents) = (&v.levels, &v.parents);
    let scan_words = |w0: usize, w1: usize, out: &mut Vec<usize>| -> usize {
        let mut arcs = 0;
        for w in w0..w1 {
            let vis = visited[w].load(Ordering::Relaxed);
            let mut todo = !vis;
            if w == visited.len() - 1 && n % 64 != 0 {
                todo &= (1u64 << (n % 64)) - 1;
            }
            let mut found = 0u64;
            while todo != 0 {
                let b = todo.trailing_zeros();
                let x = (w << 6) | b as usize;
                todo &= todo - 1;
                for &u in &t_indices[t_indptr[x]..t_indptr[x + 1]] {
                    if bit(frontier_bits, u) {
                        parents[x].store(u as u64, Ordering::Relaxed);
                        levels[x].store(level as i64, Ordering::Relaxed);
                        found |= 1 << b;
                        out.push(x);
                        arcs += indptr[x + 1] - indptr[x];
                        break;
                    }
                }
            }
            if found != 0 {
                visited[w].store(vis | found, Ordering::Relaxed);
            }
            next_bits[w].store(found, Ordering::Relaxed);
        }
        arcs
    };
    let words = visited.len();
    if rayon::current_num_threads() == 1 || n < PAR_MIN_WORK {
        let mut out = Vec::new();
        let arcs = scan_words(0, words, &mut out);
        return (vec![out], arcs);
    }
    let parts: Vec<(Vec<usize>, usize)> = (0..words.div_ceil(PULL_WORDS_PER_TASK))
        .into_par_iter()
        .with_max_len(1)
        .map(|t| {
            let mut out = Vec::new();
            let arcs = scan_words(t * PULL_WORDS_PER_TASK, ((t + 1) * PULL_WORDS_PER_TASK).min(words), &mut out);
            (out, arcs)
        })
        .collect();
    let arcs = parts.iter().map(|p| p.1).sum();
    (parts.into_iter().map(|p| p.0).filter(|p| !p.is_empty()).collect(), arcs)
}
