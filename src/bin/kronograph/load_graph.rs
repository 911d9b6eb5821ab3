//! Loading one graph of a data set for the single-graph subcommands (`bfs`, `triangles`).

use kronograph::graph::io::{self, IoError};
use kronograph::graph::Record;
use std::path::Path;

/// A graph with record labels, as [`io::load`] returns them.
pub type LabeledGraph = kronograph::graph::Graph<Record, Record>;

/// Loads the data set at `path` (a Matrix Market file, an edge list, or a TU
/// folder) and takes its graph number `index` (`--graph-index`).
///
/// # Errors
/// The loader's errors, and [`IoError::GraphIndex`] when `index` is not
/// below the number of graphs.
pub fn load_graph(path: &Path, index: usize) -> kronograph::Result<LabeledGraph> {
    let ds = io::load(path)?;
    let count = ds.graphs.len();
    ds.graphs.into_iter().nth(index).ok_or_else(|| IoError::GraphIndex { path: path.into(), index, count }.into())
}
