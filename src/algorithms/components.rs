//! Connected components by min-label propagation over (min, +).

use super::AlgorithmError;
use crate::graph::{Graph, Label};
use crate::matrix::{vxm_sparse, Descriptor, Element, SparseMatrix, SparseVector, SpmspvOptions};
use crate::semirings::MinPlus;

/// Connected components of an undirected graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    /// For each node, the smallest node id of its component.
    pub labels: Vec<usize>,
    /// Number of components.
    pub count: usize,
    /// Propagation rounds performed.
    pub rounds: usize,
}

/// Connected components by min-label propagation: every node starts with
/// its own id; each round, the nodes whose label changed send it to their
/// neighbours, `t = fᵀ A₀` over `(min, +)` with `A₀` the pattern with zero
/// values (so `t(v) = min` of the neighbours' labels), and a node takes
/// `t(v)` when smaller. It stops when no label changes: at most the largest
/// component diameter plus one rounds, each `O(flops + n)`.
///
/// # Errors
/// [`GraphError::DirectedNotSupported`](crate::graph::GraphError) for a directed graph.
pub fn connected_components<N: Label, E: Label>(g: &Graph<N, E>) -> Result<Components, AlgorithmError> {
    g.require_undirected("connected components")?;
    connected_components_matrix(&SparseMatrix::from_graph(g))
}

/// [`connected_components`] of the graph whose adjacency is `a`, which
/// should be symmetric (for a non-symmetric `a`, a node's label is the
/// smallest id among the nodes that reach it, and `count` counts the nodes
/// reached by no smaller id).
///
/// # Errors
/// [`AlgorithmError::NotSquare`].
pub fn connected_components_matrix<T: Element>(a: &SparseMatrix<T>) -> Result<Components, AlgorithmError> {
    let n = a.nrows();
    if a.ncols() != n {
        return Err(AlgorithmError::NotSquare { what: "connected components", rows: n, cols: a.ncols() });
    }
    let a = a.map(|_| 0u64);
    let mut labels: Vec<u64> = (0..n as u64).collect();
    let mut frontier = SparseVector::try_new(n, (0..n).collect(), labels.clone())?;
    let mut rounds = 0;
    let opts = SpmspvOptions::default();
    while frontier.nnz() > 0 {
        let mut t = SparseVector::new(n);
        vxm_sparse(&mut t, None, None, MinPlus::<u64>::new(), &frontier, &a, &Descriptor::DEFAULT, &opts)?;
        rounds += 1;
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for (v, tv) in t.iter() {
            if tv < labels[v] {
                labels[v] = tv;
                idx.push(v);
                val.push(tv);
            }
        }
        frontier = SparseVector::try_new(n, idx, val)?;
    }
    let labels: Vec<usize> = labels.into_iter().map(|l| l as usize).collect();
    let count = labels.iter().enumerate().filter(|&(v, &l)| v == l).count();
    Ok(Components { labels, count, rounds })
}
