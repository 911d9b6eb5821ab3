//! Graph algorithms on the semiring operations of [`crate::matrix`]:
//! breadth-first search ([`bfs()`]), single-source shortest paths ([`sssp()`]),
//! triangle counting ([`triangles`]) and connected components
//! ([`components`]).
//!
//! Each takes a [`Graph`](crate::graph::Graph) (or, for repeated runs, the
//! [`SparseMatrix`](crate::matrix::SparseMatrix) built from it once).

pub mod bfs;
pub mod components;
pub mod gpu;
pub mod sssp;
pub mod triangles;

pub use bfs::{bfs, bfs_matrix, BfsDirection, BfsOptions, BfsResult};
pub use components::{connected_components, Components};
pub use sssp::{sssp, SsspResult};
pub use triangles::{lower_by_degree, triangle_count, triangle_count_matrix, triangles_per_vertex};

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
    /// A graph precondition failed (e.g. an undirected graph is required).
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// A matrix operation failed (an internal shape error).
    #[error(transparent)]
    Matrix(#[from] MatrixError),
}
