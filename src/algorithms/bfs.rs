//! Breadth-first search: levels and parents by SpMSpV over the ANY-SECONDI
//! semiring with a complemented visited mask, direction-optimizing.

use super::AlgorithmError;
use crate::graph::{Graph, Label};
use crate::matrix::{
    vxm_sparse, DenseVector, Descriptor, Element, Mask, MergeStrategy, PushPull, SparseMatrix, SparseVector,
    SpmspvOptions,
};
use crate::semirings::AnySecondi;

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
/// the frontier with `A(u, v)` — its parent — the first in increasing `u`,
/// so results do not depend on the thread count or direction. The search
/// stops when the frontier is empty. Push steps cost `O(Σ_{u ∈ q} deg u)`,
/// pull steps `O(n + edges scanned)` with early exit at the first parent
/// found. Pull uses the cached transpose of `A`.
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
        pulling = match opts.direction {
            BfsDirection::Push => false,
            BfsDirection::Pull => true,
            BfsDirection::Auto { alpha, beta } => {
                if !pulling {
                    frontier_arcs as f64 > unexplored as f64 / alpha
                } else {
                    frontier.nnz() as f64 >= n as f64 / beta
                }
            }
        };
        let spmspv =
            SpmspvOptions { strategy: opts.strategy, direction: if pulling { PushPull::Pull } else { PushPull::Push } };
        let mut next = SparseVector::new(n);
        {
            let mask = Mask::structural(&parents).complement();
            // The frontier is qᵀ, the semiring's first operand (values unread).
            vxm_sparse(&mut next, Some(&mask), None, semiring, &frontier, a, &desc, &spmspv)?;
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
