//! `kronograph triangles GRAPH [--backend B]`.

use crate::load_graph::load_graph;
use crate::timing::Times;
use kronograph::algorithms::triangles_on;
use kronograph::matrix::SparseMatrix;
use kronograph::Backend;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `triangles`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// An undirected graph: a Matrix Market file (.mtx), an edge list, or a TU data set folder.
    pub graph: PathBuf,
    /// Which graph of a multi-graph data set.
    #[arg(long, default_value_t = 0)]
    pub graph_index: usize,
    /// Count this many times and report the fastest and the median.
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    /// Where to run: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value_t = Backend::Auto)]
    pub backend: Backend,
}

/// Runs `triangles`: loads the graph, builds its adjacency matrix (not
/// timed), then times the count (relabelling, `L`, masked product, sum).
/// TEPS counts the graph's undirected edges.
pub fn run(args: Args) -> kronograph::Result<()> {
    let g = &load_graph(&args.graph, args.graph_index)?;
    g.require_undirected("triangle counting")?;
    let a = SparseMatrix::from_graph(g);
    let mut times = Times::default();
    let mut count = 0;
    for _ in 0..args.repeat.max(1) {
        let t0 = Instant::now();
        count = triangles_on(&a, args.backend)?;
        times.push(t0.elapsed());
    }
    println!("triangles: {count}");
    println!("backend:  {}", args.backend);
    times.print(g.num_edges());
    Ok(())
}
