//! `kronograph triangles GRAPH`.

use crate::load_graph::load_graph;
use kronograph::algorithms::triangle_count_matrix;
use kronograph::matrix::SparseMatrix;
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
}

/// Runs `triangles`: loads the graph, builds its adjacency matrix (not
/// timed), then times the count (relabelling, `L`, masked product, sum).
pub fn run(args: Args) -> kronograph::Result<()> {
    let g = &load_graph(&args.graph, args.graph_index)?;
    g.require_undirected("triangle counting")?;
    let a = SparseMatrix::from_graph(g);
    let mut times = Vec::new();
    let mut count = 0;
    for _ in 0..args.repeat.max(1) {
        let t0 = Instant::now();
        count = triangle_count_matrix(&a)?;
        times.push(t0.elapsed());
    }
    times.sort();
    println!("triangles: {count}");
    println!(
        "time: {:.3} ms (best of {}; median {:.3} ms; {} threads)",
        times[0].as_secs_f64() * 1e3,
        times.len(),
        times[times.len() / 2].as_secs_f64() * 1e3,
        rayon::current_num_threads()
    );
    Ok(())
}
