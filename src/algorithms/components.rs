//! Connected components by min-label propagation over (min, +).

use super::AlgorithmError;
use crate::graph::{Graph, Label};
use crate::matrix::{
    assign_min, vxm_sparse, AssignMinOp, Descriptor, Element, Located, SparseMatrix, SpmspvOptions, VxmSparseOp,
};
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
    square("connected components", a.nrows(), a.ncols())?;
    components_in(&a.map(|_| 0u64)).map_err(super::host_error)
}

pub(crate) fn square(what: &'static str, rows: usize, cols: usize) -> Result<usize, AlgorithmError> {
    if rows != cols {
        return Err(AlgorithmError::NotSquare { what, rows, cols });
    }
    Ok(rows)
}

/// Connected components by min-label propagation on the pattern `a` (zero
/// values, symmetric), wherever it lives: the host ([`SparseMatrix`]) or a
/// device ([`DeviceMatrix`](crate::matrix::gpu::DeviceMatrix)). One source
/// for every place, over [`vxm_sparse`] (min, +) and [`assign_min`]: every
/// node starts with its own id as label and in the frontier; each round
/// `t = fᵀ A` and `labels = min(labels, t)`, the lowered labels being the
/// next frontier. Labels are the smallest node id of each component.
///
/// # Errors
/// [`AlgorithmError::NotSquare`]; CUDA errors on a device.
pub fn components_in<M>(a: &M) -> crate::Result<Components>
where
    M: Located,
    M::Sparse<u64>: VxmSparseOp<MinPlus<u64>, M::Sparse<u64>, M>,
    M::Dense<u64>: AssignMinOp<M::Sparse<u64>>,
{
    let n = square("connected components", a.nrows(), a.ncols())?;
    let ids: Vec<u64> = (0..n as u64).collect();
    let mut labels = a.dense(ids.clone())?;
    let mut frontier = a.sparse(n, (0..n).collect(), ids)?;
    let mut t = a.sparse(n, Vec::new(), Vec::new())?;
    let mut rounds = 0;
    let opts = SpmspvOptions::default();
    while M::sparse_nnz(&frontier) > 0 {
        vxm_sparse(&mut t, None, None, MinPlus::<u64>::new(), &frontier, a, &Descriptor::DEFAULT, &opts)?;
        rounds += 1;
        assign_min(&mut labels, &t, &mut frontier)?;
    }
    let labels: Vec<usize> = M::dense_to_host(&labels)?.into_iter().map(|l| l as usize).collect();
    let count = labels.iter().enumerate().filter(|&(v, &l)| v == l).count();
    Ok(Components { labels, count, rounds })
}
