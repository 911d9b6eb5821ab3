//! `kronograph triangles GRAPH [--backend B]`.

use crate::load_graph::load_graph;
use crate::timing::{print_backend, RunArgs};
use kronograph::algorithms::PreparedTriangles;
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
/// timed), prepares the count (on a device: `L` built and uploaded, JIT;
/// timed apart as `setup`), then times the count (on the CPU relabelling,
/// `L`, masked product, sum; on a device the masked product and sum).
/// TEPS counts the graph's undirected edges.
pub fn run(args: Args) -> kronograph::Result<()> {
    let g = &load_graph(&args.graph, args.run.graph_index)?;
    g.require_undirected("triangle counting")?;
    let a = SparseMatrix::from_graph(g);
    let mut tc = PreparedTriangles::new(&a, args.run.backend)?;
    let (count, times) = args.run.repeated(|| tc.run())?;
    crate::outln!("triangles: {count}");
    print_backend(args.run.backend, tc.device(), tc.setup_seconds());
    times.print(g.num_edges());
    Ok(())
}
