//! Breadth-first search: levels and parents by SpMSpV over the ANY-SECONDI
//! semiring with a complemented visited mask, direction-optimizing.

use super::AlgorithmError;
use crate::graph::{Graph, Label};
pub use crate::matrix::BfsDirection;
use crate::matrix::{visit_levels, Element, LevelState, MergeStrategy, Reached, SparseMatrix, VisitOp};

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

/// BFS on an adjacency matrix (`A(u, v)` stored ⇔ arc `u → v`; values
/// unread): [`bfs_in`] on the host.
///
/// Each level computes the next frontier `q'⟨¬visited, replace⟩ = qᵀ A` over
/// `(any, secondi)`: each newly reached `v` gets as value an index `u` of
/// the frontier with `A(u, v)` — its parent — the smallest such `u`, so
/// results do not depend on the thread count, direction or strategy. The
/// search stops when the frontier is empty. With [`MergeStrategy::Scatter`]
/// (the default) or `Auto` a push step costs `O(Σ_{u ∈ q} deg u)`, a pull
/// step `O(n/64 + edges scanned)` (the host implementation of
/// [`vxm_visit`](crate::matrix::vxm_visit)); the sorting strategies run each level as one
/// `vxm_sparse` call (same results).
///
/// # Errors
/// [`AlgorithmError::SourceOutOfRange`], [`AlgorithmError::NotSquare`].
pub fn bfs_matrix<T: Element>(
    a: &SparseMatrix<T>,
    source: usize,
    opts: &BfsOptions,
) -> Result<BfsResult, AlgorithmError> {
    bfs_in(a, source, opts).map_err(super::host_error)
}

/// What the level loop of [`bfs_levels`] found (the levels and parents
/// stay in the visit state, on its place).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsLevels {
    /// Number of reached nodes (the source included).
    pub reached: usize,
    /// The largest level.
    pub depth: usize,
    /// Stored arcs leaving the reached nodes.
    pub arcs_in_component: usize,
    /// For each level after the source, whether it was computed by pull.
    pub pulled: Vec<bool>,
}

impl BfsLevels {
    /// The whole result: the levels and parents of `v` brought to the host.
    ///
    /// # Errors
    /// CUDA errors on a device.
    pub fn result<M: VisitOp>(self, v: &M::Visited) -> crate::Result<BfsResult> {
        Ok(self.with(M::visited_to_host(v)?))
    }

    fn with(self, (levels, parents): (Vec<i64>, Vec<i64>)) -> BfsResult {
        let BfsLevels { reached, depth, arcs_in_component, pulled } = self;
        BfsResult { levels, parents, reached, depth, arcs_in_component, pulled }
    }
}

/// BFS from `source` on the adjacency `a` (`A(u, v)` stored ⇔ arc `u → v`;
/// values unread), wherever it lives: the host ([`SparseMatrix`]) or a
/// device ([`DeviceMatrix`](crate::matrix::gpu::DeviceMatrix)). One source
/// for every place, over the level steps [`visit_levels`]
/// (each a [`vxm_visit`](crate::matrix::vxm_visit), `q'⟨¬s(π),
/// replace⟩ = qᵀ A` over `(any, secondi)`, `π⟨s(q')⟩ = q'`, `levels⟨s(q')⟩
/// = k`; a device runs them in batches), push or pull by Beamer's rule ([`BfsDirection::pulls`]). Levels
/// are the same on every place; a parent is a frontier neighbour one level
/// up (the smallest on the host; on a device the smallest by pull, any by
/// push).
///
/// # Errors
/// [`AlgorithmError::NotSquare`], [`AlgorithmError::SourceOutOfRange`];
/// CUDA errors on a device.
pub fn bfs_in<M: VisitOp>(a: &M, source: usize, opts: &BfsOptions) -> crate::Result<BfsResult> {
    check_bfs(a, source)?;
    let mut v = a.visited()?;
    let levels = bfs_levels(a, &mut v, source, opts)?;
    Ok(levels.with(M::visited_into_host(v)?))
}

fn check_bfs<M: VisitOp>(a: &M, source: usize) -> Result<usize, AlgorithmError> {
    let n = super::components::square("BFS", a.nrows(), a.ncols())?;
    if source >= n {
        return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n });
    }
    Ok(n)
}

/// The level loop of [`bfs_in`] on a visit state `v` of `a` made once
/// ([`VisitOp::visited`]) and reused across sources: the levels and
/// parents are left in `v` ([`BfsLevels::result`] brings them to the
/// host). On a device each level reads two counters (the device is
/// synchronized when it returns).
///
/// # Errors
/// As [`bfs_in`].
pub fn bfs_levels<M: VisitOp>(a: &M, v: &mut M::Visited, source: usize, opts: &BfsOptions) -> crate::Result<BfsLevels> {
    check_bfs(a, source)?;
    let first = a.visit_source(v, source)?;
    let mut at =
        LevelState { level: 0, pulling: false, frontier: first, unexplored: a.stored().saturating_sub(first.arcs) };
    let (mut reached, mut arcs) = (1usize, first.arcs);
    let mut pulled = Vec::new();
    'search: while at.frontier.nodes > 0 && at.frontier.arcs > 0 {
        let steps = visit_levels(v, a, &at, opts.direction, opts.strategy)?;
        if steps.is_empty() {
            break;
        }
        for step in steps {
            let Reached { nodes, arcs: next_arcs } = step.reached;
            if nodes == 0 {
                break 'search;
            }
            pulled.push(step.pulled);
            at = LevelState {
                level: at.level + 1,
                pulling: step.pulled,
                frontier: step.reached,
                unexplored: at.unexplored.saturating_sub(next_arcs),
            };
            reached += nodes;
            arcs += next_arcs;
        }
    }
    let depth = at.level;
    Ok(BfsLevels { reached, depth, arcs_in_component: arcs, pulled })
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
            let sorting = BfsOptions { direction, strategy: MergeStrategy::MergeSort };
            let generic = bfs_matrix(&a, 0, &sorting).unwrap();
            let par = pool2.install(|| bfs_matrix(&a, 0, &opts).unwrap());
            let seq = pool1.install(|| bfs_matrix(&a, 0, &opts).unwrap());
            assert!(generic.reached > 10_000, "the search should be large: {}", generic.reached);
            assert_eq!(par, generic, "{direction:?}");
            assert_eq!(seq, generic, "{direction:?}");
            // one visit state reused across sources (reset in parallel) gives the fresh results
            let mut v = a.visited().unwrap();
            for s in [0, 1, 0] {
                let fresh = bfs_matrix(&a, s, &opts).unwrap();
                let reused = pool2.install(|| bfs_levels(&a, &mut v, s, &opts).unwrap().result::<SparseMatrix<u8>>(&v));
                assert_eq!(reused.unwrap(), fresh, "{direction:?} from {s}");
            }
        }
    }
}
