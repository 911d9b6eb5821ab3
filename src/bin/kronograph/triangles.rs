//! `kronograph triangles GRAPH [--backend B]`.

use crate::load_graph::load_graph;
use crate::timing::RunArgs;
use kronograph::algorithms::triangles_on;
use kronograph::matrix::SparseMatrix;
use std::path::PathBuf;

/// Arguments of `triangles`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// An undirected graph: a Matrix Market file (.mtx), an edge list, or a TU data set folder.
    pub graph: PathBuf,
    /// Graph index, backend, repeats.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Runs `triangles`: loads the graph, builds its adjacency matrix (not
/// timed), then times the count (relabelling, `L`, masked product, sum).
/// TEPS counts the graph's undirected edges.
pub fn run(args: Args) -> kronograph::Result<()> {
    let g = &load_graph(&args.graph, args.run.graph_index)?;
    g.require_undirected("triangle counting")?;
    let a = SparseMatrix::from_graph(g);
    let (count, times) = args.run.timed(|| triangles_on(&a, args.run.backend))?;
    println!("triangles: {count}");
    println!("backend:  {}", args.run.backend);
    times.print(g.num_edges());
    Ok(())
}
