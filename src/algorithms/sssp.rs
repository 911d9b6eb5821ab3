//! Single-source shortest paths over the (min, +) semiring, Bellman–Ford form.

use super::AlgorithmError;
use crate::graph::{Graph, Label};
use crate::matrix::{vxm_sparse, Descriptor, SparseMatrix, SparseVector, SpmspvOptions};
use crate::semirings::MinPlus;

/// The result of [`sssp`].
#[derive(Clone, Debug, PartialEq)]
pub struct SsspResult {
    /// Distance from the source (`+∞` if unreachable).
    pub distances: Vec<f64>,
    /// Relaxation rounds (min-plus products) performed.
    pub rounds: usize,
}

/// Shortest-path distances from `source` along arcs `u → v` of weight `w_uv`
/// (the graph's weights: finite and `>= 0`).
///
/// Bellman–Ford in semiring form: `d` starts at `0` for the source and `∞`
/// elsewhere; each round computes `t = fᵀ A` over `(min, +)` for the
/// frontier `f` of distances that changed in the previous round (SpMSpV,
/// push or pull by density), and lowers `d(v)` to `t(v)` where smaller; it
/// stops when nothing changes (at most `n − 1` rounds; with non-negative
/// weights no negative cycle exists). Cost `O(rounds · (flops + n))` at worst.
/// Delta-stepping is not implemented: on the bundled graphs the frontier
/// form already does little repeated work.
///
/// Distances are sums along one shortest path, added in path order, so they
/// may differ from another method's in the last bits (compare with a
/// relative tolerance).
///
/// # Errors
/// [`AlgorithmError::SourceOutOfRange`].
pub fn sssp<N: Label, E: Label>(g: &Graph<N, E>, source: usize) -> Result<SsspResult, AlgorithmError> {
    let n = g.num_nodes();
    if source >= n {
        return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n });
    }
    let a = SparseMatrix::from_graph(g);
    let mut d = vec![f64::INFINITY; n];
    d[source] = 0.0;
    let mut frontier = SparseVector::try_new(n, vec![source], vec![0.0])?;
    let mut rounds = 0;
    let opts = SpmspvOptions::default();
    while frontier.nnz() > 0 && rounds < n {
        let mut t = SparseVector::new(n);
        vxm_sparse(&mut t, None, None, MinPlus::<f64>::new(), &frontier, &a, &Descriptor::DEFAULT, &opts)?;
        rounds += 1;
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for (v, tv) in t.iter() {
            if tv < d[v] {
                d[v] = tv;
                idx.push(v);
                val.push(tv);
            }
        }
        frontier = SparseVector::try_new(n, idx, val)?;
    }
    Ok(SsspResult { distances: d, rounds })
}
