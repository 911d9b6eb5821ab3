//! The level step of breadth-first search as one operation on every place:
//! [`vxm_visit`].
//!
//! LAGraph's BFS runs three GraphBLAS calls per level: `q⟨¬s(π), replace⟩
//! = qᵀ A` over `(any, secondi)` (the next frontier, each new node with a
//! frontier parent), `π⟨s(q)⟩ = q` and `v⟨s(q)⟩ = level`. [`vxm_visit`] is
//! that level fused into one operation, on a visit state ([`VisitOp::Visited`]:
//! levels, parents and the frontier, allocated once per matrix and reused
//! across searches) that lives where the matrix does. The implementation
//! decides how:
//!
//! - on the host ([`HostVisited`]): push expands the frontier's rows and
//!   keeps the smallest parent by `fetch_min` (the scatter merge; the
//!   sorting strategies of [`SpmspvOptions::strategy`] run the step as one
//!   [`vxm_sparse`] with the complemented structural mask of the parents);
//!   pull lets every unvisited node scan its in-arcs (the cached transpose)
//!   and stop at its first frontier node (the ANY monoid's terminal);
//! - on a device ([`DeviceVisited`](super::gpu::DeviceVisited)): the fused
//!   level kernels of `kernels/graphblas_frontier.cu`, claiming new nodes
//!   by `atomicCAS` on the level array (which is the mask), a warp per
//!   frontier node plus a block per chunk of 1024 arcs of the nodes of
//!   out-degree ≥ 1024 (push), or one thread per unvisited node against
//!   the frontier's bitmap (pull); the counts kept in a step log on the
//!   device, read once per step or batch of steps.
//!
//! [`visit_levels`] runs level steps with the direction chosen by
//! [`BfsDirection`] (Beamer's switch) between them: one per call on the
//! host, a batch on a device, whose launches read the frontier's size and
//! decide the direction on the device (one read of the step log per batch).
//!
//! Push or pull is [`SpmspvOptions::direction`]; the levels are the same
//! either way, a parent is a frontier node (the smallest on the host and
//! by pull; by push on a device, any).

use super::place::Located;
use super::SpmspvOptions;
use super::{vxm_sparse, DenseVector, Descriptor, Element, Mask, MergeStrategy, PushPull, SparseMatrix, SparseVector};
use crate::semirings::AnySecondi;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// The nodes a BFS level step reached and their stored out-arcs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reached {
    /// Nodes newly reached (the new frontier's size).
    pub nodes: usize,
    /// Their stored out-arcs (`Σ out-degree`).
    pub arcs: usize,
}

/// Push, pull, or Beamer's direction-optimizing switch: the direction rule
/// of the BFS level steps ([`visit_levels`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BfsDirection {
    /// Always push (SpMSpV over the frontier's rows).
    Push,
    /// Always pull (every unvisited node looks for a parent in the frontier).
    Pull,
    /// Switch to pull when the frontier's out-edges exceed `1/alpha` of the
    /// unexplored edges, back to push when the frontier falls below
    /// `n / beta` nodes (Beamer, Asanović & Patterson 2012).
    Auto {
        /// Push → pull threshold (14 in the paper).
        alpha: f64,
        /// Pull → push threshold (24 in the paper).
        beta: f64,
    },
}

impl BfsDirection {
    /// Whether the next level pulls: `pulling` says how the last one ran,
    /// `frontier` and `frontier_arcs` are the frontier's nodes and out-arcs,
    /// `unexplored` the arcs not yet expanded, `n` the node count. The one
    /// rule of every BFS here (a device evaluates the same expressions in
    /// `kgb_step`, in the same double arithmetic, so the directions are the
    /// same everywhere).
    pub fn pulls(self, pulling: bool, frontier: usize, frontier_arcs: usize, unexplored: usize, n: usize) -> bool {
        match self {
            BfsDirection::Push => false,
            BfsDirection::Pull => true,
            BfsDirection::Auto { alpha, beta } => {
                if !pulling {
                    frontier_arcs as f64 > unexplored as f64 / alpha
                } else {
                    frontier as f64 >= n as f64 / beta
                }
            }
        }
    }
}

/// The search between level steps, as the direction rule reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelState {
    /// The frontier's level.
    pub level: usize,
    /// Whether the step that made the frontier pulled (`false` at the source).
    pub pulling: bool,
    /// The frontier's nodes and their out-arcs.
    pub frontier: Reached,
    /// Stored arcs not yet expanded: all but the out-arcs of the levels
    /// up to the frontier's, the frontier's included.
    pub unexplored: usize,
}

/// One level step of [`visit_levels`]: its direction and what it reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelStep {
    /// Whether it pulled.
    pub pulled: bool,
    /// The new frontier.
    pub reached: Reached,
}

/// Level steps from the frontier of `v` described by `at` (`at.frontier`
/// not empty), each [`vxm_visit`] in the direction that `rule` gives
/// ([`BfsDirection::pulls`] on the state before it), merge `strategy`;
/// returns them in order, at least one: as many as the place runs between
/// two reads of its counters (the host: one; a device: a batch of launches
/// that decide the direction and the frontier on the device, read once).
/// The steps stop after one that reached nothing and before one whose
/// frontier has no out-arc.
///
/// # Errors
/// As [`vxm_visit`].
pub fn visit_levels<M: VisitOp>(
    v: &mut M::Visited,
    a: &M,
    at: &LevelState,
    rule: BfsDirection,
    strategy: MergeStrategy,
) -> crate::Result<Vec<LevelStep>> {
    a.visit_levels_op(v, at, rule, strategy)
}

/// A square matrix whose place runs the BFS level step [`vxm_visit`];
/// implemented by [`SparseMatrix`] and [`DeviceMatrix`](super::gpu::DeviceMatrix).
pub trait VisitOp: Located {
    /// The visit state on this place: levels, parents, the frontier.
    type Visited;

    /// Stored entries (arcs).
    fn stored(&self) -> usize;

    /// A visit state for searches on this matrix (allocated once, reused by
    /// every [`VisitOp::visit_source`]).
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`](super::MatrixError) for a
    /// non-square matrix; CUDA errors on a device.
    fn visited(&self) -> crate::Result<Self::Visited>;

    /// Resets `v` to a search from `source` (`source < n`, checked by the
    /// caller): level 0, its own parent, the only frontier node; nothing
    /// else visited. Returns the source and its out-arcs.
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn visit_source(&self, v: &mut Self::Visited, source: usize) -> crate::Result<Reached>;

    /// See [`vxm_visit`].
    ///
    /// # Errors
    /// As [`vxm_visit`].
    fn vxm_visit_op(&self, v: &mut Self::Visited, level: usize, opts: &SpmspvOptions) -> crate::Result<Reached>;

    /// See [`visit_levels`]; by default one step, its direction by `rule` on
    /// the host.
    ///
    /// # Errors
    /// As [`visit_levels`].
    fn visit_levels_op(
        &self,
        v: &mut Self::Visited,
        at: &LevelState,
        rule: BfsDirection,
        strategy: MergeStrategy,
    ) -> crate::Result<Vec<LevelStep>> {
        let (f, n) = (at.frontier, self.nrows());
        let pulled = rule.pulls(at.pulling, f.nodes, f.arcs, at.unexplored, n);
        let direction = if pulled { PushPull::Pull } else { PushPull::Push };
        let reached = self.vxm_visit_op(v, at.level + 1, &SpmspvOptions { strategy, direction })?;
        Ok(vec![LevelStep { pulled, reached }])
    }

    /// The levels (`-1` unreached) and parents (`-1` unreached; the source
    /// its own) of `v`, on the host.
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn visited_to_host(v: &Self::Visited) -> crate::Result<(Vec<i64>, Vec<i64>)>;

    /// [`VisitOp::visited_to_host`] consuming `v` (on the host without a copy).
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn visited_into_host(v: Self::Visited) -> crate::Result<(Vec<i64>, Vec<i64>)> {
        Self::visited_to_host(&v)
    }
}

/// One BFS level on the place of `a`: `q'⟨¬s(π), replace⟩ = qᵀ A` over
/// `(any, secondi)` for the frontier `q` of `v`, then `π⟨s(q')⟩ = q'`,
/// `levels⟨s(q')⟩ = level` and `q = q'`; returns the new frontier's nodes
/// and out-arcs. Push (`O(Σ_{u ∈ q} deg u)`) or pull (`O(n/64 + arcs
/// scanned)` on the host) by `opts.direction` (`Auto`: pull when
/// `|q| > pull_density · n`); the merge of the push by `opts.strategy` on
/// the host (the host runs the sorting strategies through [`vxm_sparse`]).
///
/// # Errors
/// [`MatrixError::DimensionMismatch`](super::MatrixError) if `v` was made
/// for another size; CUDA errors on a device.
pub fn vxm_visit<M: VisitOp>(v: &mut M::Visited, a: &M, level: usize, opts: &SpmspvOptions) -> crate::Result<Reached> {
    a.vxm_visit_op(v, level, opts)
}

/// Whether a step with `frontier` nodes out of `n` pulls.
pub(crate) fn pulls(direction: PushPull, frontier: usize, n: usize) -> bool {
    match direction {
        PushPull::Push => false,
        PushPull::Pull => true,
        PushPull::Auto { pull_density } => frontier as f64 > pull_density * n as f64,
    }
}

/// "Not reached" in the parent array.
const UNSET: u64 = u64::MAX;
/// Below this many frontier arcs (push) or nodes (pull) a level runs on one thread.
const PAR_MIN_WORK: usize = 1 << 14;
/// Bitmap words per parallel pull task (64 nodes each).
const PULL_WORDS_PER_TASK: usize = 256;

/// The visit state of a BFS on the host: levels, parents (atomic, for the
/// parallel push), the visited bitmap, the frontier as a list and, for
/// pull, as a bitmap; `O(n)` in all, nothing `O(n)` per level.
pub struct HostVisited {
    n: usize,
    levels: Vec<i64>,
    parents: Vec<AtomicU64>,
    visited: Vec<u64>,
    frontier_bits: Vec<u64>,
    frontier_in_bits: bool,
    frontier: Vec<usize>,
    next: Vec<usize>,
    /// The frontier's out-arcs.
    arcs: usize,
    /// Nothing visited yet (just made): a search needs no reset.
    fresh: bool,
    /// The parents as a vector (for the mask of the sorting strategies' `vxm_sparse`).
    dense_parents: Option<DenseVector<u64>>,
}

#[inline]
fn bit(words: &[u64], i: usize) -> bool {
    words[i >> 6] >> (i & 63) & 1 != 0
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
            levels: vec![-1; n],
            parents: (0..n).map(|_| AtomicU64::new(UNSET)).collect(),
            visited: vec![0; words],
            frontier_bits: vec![0; words],
            frontier_in_bits: false,
            frontier: Vec::with_capacity(1024),
            next: Vec::with_capacity(1024),
            arcs: 0,
            fresh: true,
            dense_parents: None,
        })
    }

    fn visit_source(&self, v: &mut HostVisited, source: usize) -> crate::Result<Reached> {
        super::check_dim("vxm_visit", "visit state", self.nrows(), v.n)?;
        if !v.fresh {
            v.levels.fill(-1);
            v.parents.par_iter().for_each(|p| p.store(UNSET, Ordering::Relaxed));
            v.visited.fill(0);
            v.frontier_bits.fill(0);
        }
        v.fresh = false;
        v.frontier_in_bits = false;
        v.frontier.clear();
        v.dense_parents = None;
        v.parents[source].store(source as u64, Ordering::Relaxed);
        v.levels[source] = 0;
        v.visited[source >> 6] |= 1 << (source & 63);
        v.frontier.push(source);
        v.arcs = self.row(source).0.len();
        Ok(Reached { nodes: 1, arcs: v.arcs })
    }

    fn vxm_visit_op(&self, v: &mut HostVisited, level: usize, opts: &SpmspvOptions) -> crate::Result<Reached> {
        super::check_dim("vxm_visit", "visit state", self.nrows(), v.n)?;
        let n = v.n;
        let pull = pulls(opts.direction, v.frontier.len(), n);
        v.next.clear();
        if !matches!(opts.strategy, MergeStrategy::Scatter | MergeStrategy::Auto) {
            step_sorting(self, v, pull, opts)?;
        } else if pull {
            v.dense_parents = None;
            if v.frontier_in_bits {
                v.frontier_bits.fill(0);
            }
            for &u in &v.frontier {
                v.frontier_bits[u >> 6] |= 1 << (u & 63);
            }
            v.frontier_in_bits = true;
            let t = self.transposed_csr();
            pull_step(
                t.indptr().into_raw_storage(),
                t.indices(),
                n,
                &v.frontier_bits,
                &v.visited,
                &v.parents,
                &mut v.next,
            );
        } else {
            v.dense_parents = None;
            push_step(self.indptr(), self.indices(), &v.frontier, v.arcs, &v.visited, &v.parents, &mut v.next);
        }
        let indptr = self.indptr();
        let mut arcs = 0;
        for &u in &v.next {
            v.visited[u >> 6] |= 1 << (u & 63);
            v.levels[u] = level as i64;
            arcs += indptr[u + 1] - indptr[u];
        }
        std::mem::swap(&mut v.frontier, &mut v.next);
        v.arcs = arcs;
        Ok(Reached { nodes: v.frontier.len(), arcs })
    }

    fn visited_to_host(v: &HostVisited) -> crate::Result<(Vec<i64>, Vec<i64>)> {
        let parents =
            v.parents.iter().map(|p| p.load(Ordering::Relaxed)).map(|p| if p == UNSET { -1 } else { p as i64 });
        Ok((v.levels.clone(), parents.collect()))
    }

    /// Without a copy: the levels are moved out and the parents converted
    /// in place (a copy writes two fresh `O(n)` arrays, which on large
    /// graphs costs a noticeable share of the search).
    fn visited_into_host(v: HostVisited) -> crate::Result<(Vec<i64>, Vec<i64>)> {
        let parents = v.parents.into_iter().map(AtomicU64::into_inner).map(|p| if p == UNSET { -1 } else { p as i64 });
        Ok((v.levels, parents.collect()))
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

/// Push: every `v` adjacent to the frontier and not visited gets the
/// smallest frontier `u` as parent; newly reached nodes are appended to `next`.
fn push_step(
    indptr: &[usize],
    indices: &[usize],
    frontier: &[usize],
    frontier_arcs: usize,
    visited: &[u64],
    parents: &[AtomicU64],
    next: &mut Vec<usize>,
) {
    let visit = |u: usize, out: &mut Vec<usize>| {
        let uu = u as u64;
        for &v in &indices[indptr[u]..indptr[u + 1]] {
            if bit(visited, v) {
                continue;
            }
            let p = &parents[v];
            let old = p.load(Ordering::Relaxed);
            if old > uu {
                // across threads fetch_min keeps the smallest parent and tells
                // who reached `v` first
                let prev = p.fetch_min(uu, Ordering::Relaxed);
                if prev == UNSET {
                    out.push(v);
                }
            }
        }
    };
    let threads = rayon::current_num_threads();
    if threads == 1 || frontier_arcs < PAR_MIN_WORK {
        for &u in frontier {
            visit(u, next);
        }
    } else {
        let chunk = frontier.len().div_ceil(threads * 8).max(64);
        let parts: Vec<Vec<usize>> = frontier
            .par_chunks(chunk)
            .map(|us| {
                let mut out = Vec::new();
                for &u in us {
                    visit(u, &mut out);
                }
                out
            })
            .collect();
        for part in parts {
            next.extend_from_slice(&part);
        }
    }
}

/// Pull: every unvisited `v` takes the first in-neighbour (in increasing
/// order) that is in the frontier bitmap; `next` gets the new nodes in
/// increasing order.
fn pull_step(
    t_indptr: &[usize],
    t_indices: &[usize],
    n: usize,
    frontier_bits: &[u64],
    visited: &[u64],
    parents: &[AtomicU64],
    next: &mut Vec<usize>,
) {
    let scan_words = |w0: usize, w1: usize, out: &mut Vec<usize>| {
        for (w, &vis) in visited.iter().enumerate().take(w1).skip(w0) {
            let mut todo = !vis;
            if w == visited.len() - 1 && n % 64 != 0 {
                todo &= (1u64 << (n % 64)) - 1;
            }
            while todo != 0 {
                let v = (w << 6) | todo.trailing_zeros() as usize;
                todo &= todo - 1;
                for &u in &t_indices[t_indptr[v]..t_indptr[v + 1]] {
                    if bit(frontier_bits, u) {
                        parents[v].store(u as u64, Ordering::Relaxed);
                        out.push(v);
                        break;
                    }
                }
            }
        }
    };
    let words = visited.len();
    if rayon::current_num_threads() == 1 || n < PAR_MIN_WORK {
        scan_words(0, words, next);
    } else {
        let parts: Vec<Vec<usize>> = (0..words.div_ceil(PULL_WORDS_PER_TASK))
            .into_par_iter()
            .map(|t| {
                let mut out = Vec::new();
                scan_words(t * PULL_WORDS_PER_TASK, ((t + 1) * PULL_WORDS_PER_TASK).min(words), &mut out);
                out
            })
            .collect();
        for part in parts {
            next.extend_from_slice(&part);
        }
    }
}
