//! Loading one graph of a data set for the single-graph subcommands (`bfs`,
//! `triangles`, `sssp`, `fglt`, `motif`, `convert`).

use kronograph::graph::io;
use std::path::Path;

/// A graph as the single-graph subcommands use it: no labels.
pub type PlainGraph = kronograph::graph::Graph<(), ()>;

/// Loads graph number `index` (`--graph-index`) of the data set at `path`
/// (a Matrix Market file, an edge list, a binary graph file or a TU folder)
/// with [`io::load_graph`].
///
/// # Errors
/// The loader's errors, and [`IoError::GraphIndex`](io::IoError::GraphIndex)
/// when `index` is not below the number of graphs.
pub fn load_graph(path: &Path, index: usize) -> kronograph::Result<PlainGraph> {
    Ok(io::load_graph(path, index)?)
}
