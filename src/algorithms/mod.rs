//! Graph algorithms on the semiring operations of [`crate::matrix`]:
//! breadth-first search ([`bfs()`]), single-source shortest paths ([`sssp()`]),
//! triangle counting ([`triangles`]) and connected components
//! ([`components`]).
//!
//! Each takes a [`Graph`](crate::graph::Graph) (or, for repeated runs, the
//! [`SparseMatrix`](crate::matrix::SparseMatrix) built from it once).

pub mod backend;
pub mod bfs;
pub mod components;
mod delta_stepping;
pub mod gpu;
pub mod prepared;
pub mod sssp;
pub mod triangles;

pub use backend::{bfs_on, components_on, sssp_on, triangles_on};
pub use bfs::{bfs, bfs_in, bfs_levels, bfs_matrix, BfsDirection, BfsLevels, BfsOptions, BfsResult};
pub use components::{components_in, connected_components, connected_components_matrix, Components};
pub use delta_stepping::auto_delta;
pub use prepared::{PreparedBfs, PreparedSssp, PreparedTriangles};
pub use sssp::{bellman_ford_in, sssp, sssp_matrix, DeltaStepping, SsspMethod, SsspOptions, SsspResult};
pub use triangles::{
    lower_by_degree, triangle_count, triangle_count_matrix, triangles_in, triangles_per_vertex, TriangleForm,
};

use crate::graph::GraphError;
use crate::matrix::MatrixError;

/// Errors of the graph algorithms.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum AlgorithmError {
    /// The source node is not in the graph.
    #[error("source node {source_node} is out of range: the graph has {num_nodes} nodes (ids 0..{num_nodes})")]
    SourceOutOfRange {
        /// The source given.
        source_node: usize,
        /// Number of nodes.
        num_nodes: usize,
    },
    /// The matrix is not square.
    #[error("{what} needs a square adjacency matrix, got {rows} x {cols}")]
    NotSquare {
        /// The algorithm.
        what: &'static str,
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    /// An arc weight that shortest paths cannot use.
    #[error("arc {from} -> {to} has weight {weight}; shortest paths need finite weights >= 0")]
    InvalidWeight {
        /// The arc's tail.
        from: usize,
        /// The arc's head.
        to: usize,
        /// Its weight.
        weight: f64,
    },
    /// A shortest-path distance that exceeds the largest `f64`: the path
    /// sum overflowed to infinity (the node is reachable, not unreached).
    #[error(
        "the distance of node {node} overflows: node {from} is at distance {distance:e} and arc {from} -> {node} \
         has weight {weight:e}, a sum beyond the largest double (about 1.8e308); scale the weights down"
    )]
    DistanceOverflow {
        /// The node whose distance overflows.
        node: usize,
        /// A reached node with an arc to it.
        from: usize,
        /// The distance of `from`.
        distance: f64,
        /// The weight of the arc.
        weight: f64,
    },
    /// A delta-stepping bucket width that cannot be used.
    #[error("delta-stepping bucket width {delta} must be finite and > 0 (leave it unset to choose it automatically)")]
    InvalidDelta {
        /// The width given.
        delta: f64,
    },
    /// A graph precondition failed (e.g. an undirected graph is required).
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// A matrix operation failed (an internal shape error).
    #[error(transparent)]
    Matrix(#[from] MatrixError),
}

/// The error of an algorithm run on the host: the host operations fail with
/// algorithm and matrix errors only (a device's errors are CUDA's).
pub(crate) fn host_error(e: crate::Error) -> AlgorithmError {
    match e {
        crate::Error::Algorithm(e) => e,
        crate::Error::Matrix(e) => AlgorithmError::Matrix(e),
        e => unreachable!("a host operation failed with a device error: {e}"),
    }
}
