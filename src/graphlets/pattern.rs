//! The simple graph the transform counts on: the 0/1 pattern of the input
//! without self-loops, its vertices relabelled by increasing degree.
//!
//! In that order a vertex's lower-numbered neighbours have degree at most
//! its own, so the masked products over the strictly lower triangle and the
//! enumerations that walk only lower- (or only higher-) numbered neighbours
//! cost `O(Σ_{ij ∈ E} min(d_i, d_j))` instead of `O(Σ_i d_i²)`: what keeps
//! graphs with hubs (R-MAT, power laws) cheap.

use super::types::Ignored;
use crate::graph::{Graph, Label};
use crate::matrix::SparseMatrix;

/// The relabelled simple pattern of a graph.
#[derive(Debug)]
pub struct Pattern {
    /// `A`: `n × n`, symmetric, 0/1 (stored as `1u64`), no diagonal, rows
    /// sorted, in degree order.
    pub a: SparseMatrix<u64>,
    /// `order[r]`: the input vertex at position `r`.
    pub order: Vec<usize>,
    /// What was ignored.
    pub ignored: Ignored,
}

impl Pattern {
    /// The pattern of an undirected graph (the caller checks direction).
    ///
    /// Cost `O(n + nnz + Σ_i d_i log d_i)` (a counting sort by degree, then
    /// each relabelled row sorted).
    pub fn of_graph<N: Label, E: Label>(g: &Graph<N, E>) -> Self {
        let n = g.num_nodes();
        let self_loops = g.self_loops();
        let weighted = g.weights().iter().any(|&w| w != 1.0);
        let degree: Vec<usize> =
            (0..n).map(|v| g.out_degree(v) - g.neighbors(v).binary_search(&v).is_ok() as usize).collect();
        // counting sort by degree, stable in the id: order by (degree, id)
        let max = degree.iter().copied().max().unwrap_or(0);
        let mut next = vec![0usize; max + 2];
        for &d in &degree {
            next[d + 1] += 1;
        }
        for d in 0..=max {
            next[d + 1] += next[d];
        }
        let mut order = vec![0usize; n];
        for (v, &d) in degree.iter().enumerate() {
            order[next[d]] = v;
            next[d] += 1;
        }
        let mut rank = vec![0usize; n];
        for (r, &v) in order.iter().enumerate() {
            rank[v] = r;
        }
        let a = SparseMatrix::from_rows_into(n, n, |r, idx, val| {
            let v = order[r];
            let start = idx.len();
            idx.extend(g.neighbors(v).iter().filter(|&&u| u != v).map(|&u| rank[u]));
            idx[start..].sort_unstable();
            val.resize(idx.len(), 1u64);
        })
        .assume_symmetric();
        Pattern { a, order, ignored: Ignored { self_loops, weighted } }
    }

    /// Number of vertices.
    pub fn n(&self) -> usize {
        self.a.nrows()
    }
}
