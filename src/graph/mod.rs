//! Graphs: the [`Graph`] type (CSR adjacency, weights, node and edge labels),
//! its [`GraphBuilder`], label types, generators, reordering and file I/O.
//!
//! Data flows one way through the library: files ([`io`]) → [`Graph`] →
//! operators → solvers → results.

mod builder;
mod core;
mod dataset;
pub mod generate;
pub mod io;
pub mod label;
mod label_number;
mod petgraph_conv;
pub mod reorder;

pub use self::builder::{Duplicates, GraphBuilder};
pub use self::core::{Direction, Graph};
pub use self::dataset::{CountStats, Dataset, FieldSummary, FieldValues, GraphLabels, NodeFeatures};
pub use self::label::{FieldKind, Label, LabelError, Record, Schema, Value};
pub use self::label_number::LabelNumber;

/// Errors in building or transforming a graph.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum GraphError {
    /// A node id is not below the number of nodes.
    #[error("node id {node} is out of range: the graph has {num_nodes} nodes (ids 0..{num_nodes})")]
    NodeOutOfRange {
        /// The id given.
        node: usize,
        /// The number of nodes.
        num_nodes: usize,
    },
    /// A weight is negative, NaN or infinite.
    #[error("edge {from} -> {to} has weight {weight}; weights must be finite and >= 0")]
    InvalidWeight {
        /// Source node.
        from: usize,
        /// Target node.
        to: usize,
        /// The weight given.
        weight: f64,
    },
    /// An undirected graph whose two directions of an edge differ.
    #[error("undirected graph is not symmetric at edge {from} -> {to}: {what}")]
    Asymmetric {
        /// Source node.
        from: usize,
        /// Target node.
        to: usize,
        /// What differs.
        what: &'static str,
    },
    /// The same arc given twice under [`Duplicates::Reject`].
    #[error(
        "edge {from} -> {to} is given more than once; to merge parallel edges, set \
         GraphBuilder::duplicates(Duplicates::SumWeights) or GraphBuilder::duplicates(Duplicates::KeepFirst) \
         (for a petgraph graph: GraphBuilder::from_petgraph(..).duplicates(..).build())"
    )]
    DuplicateEdge {
        /// Source node.
        from: usize,
        /// Target node.
        to: usize,
    },
    /// A per-node or per-edge array of the wrong length.
    #[error("{what}: expected {expected} values, found {found}")]
    LengthMismatch {
        /// Which array.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Length given.
        found: usize,
    },
    /// The builder was given no node labels.
    #[error("no node labels given: call GraphBuilder::node_labels(...) or default_node_labels()")]
    MissingNodeLabels,
    /// A negative or non-finite start probability.
    #[error("start probability of node {node} is {value}; it must be finite and >= 0")]
    InvalidStartProbability {
        /// The node.
        node: usize,
        /// The value given.
        value: f64,
    },
    /// Not a permutation of the nodes.
    #[error("not a permutation of the nodes: {reason}")]
    InvalidPermutation {
        /// What is wrong.
        reason: String,
    },
    /// An algorithm that needs an undirected graph got a directed one.
    #[error("{what} needs an undirected graph, but this graph is directed")]
    DirectedNotSupported {
        /// The algorithm.
        what: String,
    },
    /// Bad parameters for a generator.
    #[error("invalid generator parameters: {0}")]
    InvalidParameters(String),
    /// Bad options of a computation on a graph (the message says which and
    /// what to change).
    #[error("{0}")]
    InvalidOption(String),
    /// A count that does not fit in its 64-bit output (the graphlet
    /// transform's orbit frequencies).
    #[error(
        "the count of orbit {orbit} ({name}) at vertex {vertex} {what} 2^64 - 1, the largest count a 64-bit \
         output holds: this graph is too large for exact graphlet counts at that vertex"
    )]
    CountOverflow {
        /// The vertex (in the graph's own numbering).
        vertex: usize,
        /// The orbit (0..16).
        orbit: usize,
        /// The orbit's name.
        name: &'static str,
        /// `"exceeds"` (the exact count is larger) or `"may exceed"` (a
        /// partial sum it is built from is bounded only above 2^64).
        what: &'static str,
    },
    /// A label problem.
    #[error(transparent)]
    Label(#[from] LabelError),
}

#[cfg(test)]
mod tests;
