//! Breadth-first search: levels and parents by SpMSpV over the ANY-SECONDI
//! semiring with a complemented visited mask, direction-optimizing.

use super::AlgorithmError;
use crate::graph::{Graph, Label};
use crate::matrix::{
    vxm_sparse, DenseVector, Descriptor, Element, Mask, MergeStrategy, PushPull, SparseMatrix, SparseVector,
    SpmspvOptions,
};
use crate::semirings::AnySecondi;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Push, pull, or Beamer's direction-optimizing switch.
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
    /// rule of every BFS here, CPU and GPU.
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

/// Options of [`bfs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BfsOptions {
    /// Direction policy.
    pub direction: BfsDirection,
    /// Merge strategy of the push steps.
    pub strategy: MergeStrategy,
}

impl Default for BfsOptions {
    fn default() -> Self {
        BfsOptions { direction: BfsDirection::Auto { alpha: 14.0, beta: 24.0 }, strategy: MergeStrategy::Scatter }
    }
}

/// The result of a BFS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsResult {
    /// Level (hop distance from the source) of each node, `-1` if unreached.
    pub levels: Vec<i64>,
    /// A BFS-tree parent of each node (`parent[source] = source`), `-1` if unreached.
    pub parents: Vec<i64>,
    /// Number of reached nodes (the source included).
    pub reached: usize,
    /// The largest level (0 when only the source is reached).
    pub depth: usize,
    /// Stored arcs leaving the reached nodes (`Σ out-degree`): the edges a
    /// BFS must inspect; half of it, for an undirected graph, is the
    /// Graph500 edge count used for TEPS.
    pub arcs_in_component: usize,
    /// For each level after the source, whether it was computed by pull.
    pub pulled: Vec<bool>,
}

/// BFS from `source` following arcs `u → v` (both directions of an
/// undirected edge). Builds the adjacency matrix once (`O(nnz)`), then runs
/// [`bfs_matrix`].
///
/// # Errors
/// [`AlgorithmError::SourceOutOfRange`].
pub fn bfs<N: Label, E: Label>(g: &Graph<N, E>, source: usize, opts: &BfsOptions) -> Result<BfsResult, AlgorithmError> {
    bfs_matrix(&SparseMatrix::from_graph(g), source, opts)
}

/// BFS on an adjacency matrix (`A(u, v)` stored ⇔ arc `u → v`; values unread).
///
/// Each level computes the next frontier `q'⟨¬visited, replace⟩ = qᵀ A` over
/// `(any, secondi)`: each newly reached `v` gets as value an index `u` of
/// the frontier with `A(u, v)` — its parent — the smallest such `u`, so
/// results do not depend on the thread count, direction or strategy. The
/// search stops when the frontier is empty.
///
/// With [`MergeStrategy::Scatter`] (the default) or `Auto` the levels run fused over
/// per-search workspaces allocated once (`O(n)` in all, nothing `O(n)` per
/// level): a visited bitmap, a parent array, and the frontier both as an
/// index list and, for pull, as a bitmap. A push step costs
/// `O(Σ_{u ∈ q} deg u)` (a parent is kept when smaller than the one stored
/// this level: `fetch_min` across threads); a pull step costs
/// `O(n/64 + edges scanned)`: only unvisited nodes are examined, each scans
/// its in-arcs (the cached transpose of `A`) in increasing order and stops
/// at the first one in the frontier (the ANY monoid's terminal). Switching
/// direction costs `O(|q|)`. The sorting strategies run each level as one
/// generic `vxm_sparse` call (same results).
///
/// # Errors
/// [`AlgorithmError::SourceOutOfRange`], [`AlgorithmError::NotSquare`].
pub fn bfs_matrix<T: Element>(
    a: &SparseMatrix<T>,
    source: usize,
    opts: &BfsOptions,
) -> Result<BfsResult, AlgorithmError> {
    let n = a.nrows();
    if a.ncols() != n {
        return Err(AlgorithmError::NotSquare { what: "BFS", rows: n, cols: a.ncols() });
    }
    if source >= n {
        return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n });
    }
    if !matches!(opts.strategy, MergeStrategy::Scatter | MergeStrategy::Auto) {
        return bfs_spmspv(a, source, opts);
    }
    Ok(bfs_fused(a, source, opts.direction))
}

/// "Not reached" in the parent array.
const UNSET: u64 = u64::MAX;
/// Below this many frontier arcs (push) or nodes (pull) a level runs on one thread.
const PAR_MIN_WORK: usize = 1 << 14;
/// Bitmap words per parallel pull task (64 nodes each).
const PULL_WORDS_PER_TASK: usize = 256;

#[inline]
fn bit(words: &[u64], i: usize) -> bool {
    words[i >> 6] >> (i & 63) & 1 != 0
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
                // Sequentially a plain store would do; across threads fetch_min
                // keeps the smallest parent and tells who reached `v` first.
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
            let uu = u as u64;
            for &v in &indices[indptr[u]..indptr[u + 1]] {
                if bit(visited, v) {
                    continue;
                }
                let p = &parents[v];
                let old = p.load(Ordering::Relaxed);
                if old > uu {
                    p.store(uu, Ordering::Relaxed);
                    if old == UNSET {
                        next.push(v);
                    }
                }
            }
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

/// The fused, workspace-reusing BFS of [`bfs_matrix`] (bounds checked there).
fn bfs_fused<T: Element>(a: &SparseMatrix<T>, source: usize, direction: BfsDirection) -> BfsResult {
    let n = a.nrows();
    let (indptr, indices) = (a.indptr(), a.indices());
    let deg = |u: usize| indptr[u + 1] - indptr[u];
    let words = n.div_ceil(64);
    let mut levels = vec![-1i64; n];
    let parents: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(UNSET)).collect();
    let mut visited = vec![0u64; words];
    let mut frontier_bits = vec![0u64; words];
    let mut frontier_in_bits = false;
    let mut frontier = Vec::with_capacity(1024);
    let mut next = Vec::with_capacity(1024);
    parents[source].store(source as u64, Ordering::Relaxed);
    levels[source] = 0;
    visited[source >> 6] |= 1 << (source & 63);
    frontier.push(source);
    let mut unexplored = a.nnz() - deg(source);
    let mut frontier_arcs = deg(source);
    let mut reached = 1usize;
    let mut arcs = deg(source);
    let mut depth = 0usize;
    let mut pulling = false;
    let mut pulled = Vec::new();
    while !frontier.is_empty() {
        pulling = direction.pulls(pulling, frontier.len(), frontier_arcs, unexplored, n);
        next.clear();
        if pulling {
            if frontier_in_bits {
                frontier_bits.fill(0);
            }
            for &u in &frontier {
                frontier_bits[u >> 6] |= 1 << (u & 63);
            }
            frontier_in_bits = true;
            let t = a.transposed_csr();
            pull_step(t.indptr().into_raw_storage(), t.indices(), n, &frontier_bits, &visited, &parents, &mut next);
        } else {
            push_step(indptr, indices, &frontier, frontier_arcs, &visited, &parents, &mut next);
        }
        if next.is_empty() {
            break;
        }
        depth += 1;
        pulled.push(pulling);
        frontier_arcs = 0;
        for &v in &next {
            visited[v >> 6] |= 1 << (v & 63);
            levels[v] = depth as i64;
            frontier_arcs += deg(v);
        }
        reached += next.len();
        arcs += frontier_arcs;
        unexplored = unexplored.saturating_sub(frontier_arcs);
        std::mem::swap(&mut frontier, &mut next);
    }
    let parents = parents.into_iter().map(|p| p.into_inner()).map(|p| if p == UNSET { -1 } else { p as i64 }).collect();
    BfsResult { levels, parents, reached, depth, arcs_in_component: arcs, pulled }
}

/// The generic form of [`bfs_matrix`]: each level is one GraphBLAS call
/// (`vxm_sparse` with a complemented structural mask), used for the sorting
/// merge strategies. Each level computes the next frontier `q'⟨¬visited, replace⟩ = qᵀ A` over
/// `(any, secondi)`: each newly reached `v` gets as value an index `u` of
/// the frontier with `A(u, v)` — its parent — the first in increasing `u`,
/// so results do not depend on the thread count or direction. The search
/// stops when the frontier is empty. Push steps cost `O(Σ_{u ∈ q} deg u)`,
/// pull steps `O(n + edges scanned)` with early exit at the first parent
/// found. Pull uses the cached transpose of `A`.
fn bfs_spmspv<T: Element>(a: &SparseMatrix<T>, source: usize, opts: &BfsOptions) -> Result<BfsResult, AlgorithmError> {
    let n = a.nrows();
    if a.ncols() != n {
        return Err(AlgorithmError::NotSquare { what: "BFS", rows: n, cols: a.ncols() });
    }
    if source >= n {
        return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n });
    }
    let indptr = a.indptr();
    let deg = |u: usize| indptr[u + 1] - indptr[u];
    let mut levels = vec![-1i64; n];
    let mut parents = DenseVector::<u64>::new(n);
    parents.set(source, source as u64);
    levels[source] = 0;
    let mut frontier = SparseVector::try_new(n, vec![source], vec![source as u64])?;
    let mut unexplored = a.nnz() - deg(source);
    let mut frontier_arcs = deg(source);
    let mut reached = 1usize;
    let mut arcs = deg(source);
    let mut depth = 0usize;
    let mut pulling = false;
    let mut pulled = Vec::new();
    let semiring = AnySecondi::<u64, T>::new();
    let desc = Descriptor::DEFAULT.replace();
    while frontier.nnz() > 0 {
        pulling = opts.direction.pulls(pulling, frontier.nnz(), frontier_arcs, unexplored, n);
        let spmspv =
            SpmspvOptions { strategy: opts.strategy, direction: if pulling { PushPull::Pull } else { PushPull::Push } };
        let mut next = SparseVector::new(n);
        {
            let mask = Mask::structural(&parents).complement();
            // The frontier is qᵀ, the semiring's first operand (values unread).
            vxm_sparse(&mut next, Some(&mask), None, semiring, &frontier, a, &desc, &spmspv)
                .map_err(super::host_error)?;
        }
        if next.nnz() == 0 {
            break;
        }
        depth += 1;
        pulled.push(pulling);
        frontier_arcs = 0;
        for (v, p) in next.iter() {
            parents.set(v, p);
            levels[v] = depth as i64;
            frontier_arcs += deg(v);
        }
        reached += next.nnz();
        arcs += frontier_arcs;
        unexplored = unexplored.saturating_sub(frontier_arcs);
        frontier = next;
    }
    let parents = (0..n).map(|i| parents.get(i).map_or(-1, |p| p as i64)).collect();
    Ok(BfsResult { levels, parents, reached, depth, arcs_in_component: arcs, pulled })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::BTreeSet;

    /// A random directed graph large enough that the fused steps take their
    /// parallel paths (≥ `PAR_MIN_WORK` nodes and frontier arcs).
    fn random_matrix(seed: u64, n: usize, arcs: usize) -> SparseMatrix<u8> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut set = BTreeSet::new();
        while set.len() < arcs {
            // skewed: low ids get more arcs, so frontiers grow fast
            let u = (rng.random::<f64>().powi(3) * n as f64) as usize;
            let v = rng.random_range(0..n);
            set.insert((u.min(n - 1), v));
        }
        let (rows, cols): (Vec<usize>, Vec<usize>) = set.into_iter().unzip();
        SparseMatrix::try_from_triplets(n, n, &rows, &cols, &vec![1u8; rows.len()]).unwrap()
    }

    #[test]
    fn fused_parallel_matches_generic_and_sequential() {
        let a = random_matrix(7, 40_000, 400_000);
        let pool2 = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let pool1 = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        for direction in [BfsDirection::Push, BfsDirection::Pull, BfsDirection::Auto { alpha: 14.0, beta: 24.0 }] {
            let opts = BfsOptions { direction, strategy: MergeStrategy::Scatter };
            let generic = bfs_spmspv(&a, 0, &opts).unwrap();
            let par = pool2.install(|| bfs_matrix(&a, 0, &opts).unwrap());
            let seq = pool1.install(|| bfs_matrix(&a, 0, &opts).unwrap());
            assert!(generic.reached > 10_000, "the search should be large: {}", generic.reached);
            assert_eq!(par, generic, "{direction:?}");
            assert_eq!(seq, generic, "{direction:?}");
        }
    }
}
