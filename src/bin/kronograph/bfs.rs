//! `kronograph bfs GRAPH [--source S] [--out levels.npy]`.

use crate::load_graph::load_graph;
use kronograph::algorithms::{bfs_matrix, BfsOptions};
use kronograph::graph::io;
use kronograph::matrix::SparseMatrix;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `bfs`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A Matrix Market file (.mtx), an edge list, or a TU data set folder.
    pub graph: PathBuf,
    /// The source node (0-based).
    #[arg(long, short, default_value_t = 0)]
    pub source: usize,
    /// Write the levels (int64, -1 = unreached) to this .npy file.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Which graph of a multi-graph data set.
    #[arg(long, default_value_t = 0)]
    pub graph_index: usize,
    /// Run the search this many times and report the fastest and the median.
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
}

/// Runs `bfs`: loads the graph, builds its adjacency matrix (not timed),
/// then times the search alone.
pub fn run(args: Args) -> kronograph::Result<()> {
    crate::preflight::check_out(args.out.as_deref(), &args.graph)?;
    let g = &load_graph(&args.graph, args.graph_index)?;
    let a = SparseMatrix::from_graph(g);
    let opts = BfsOptions::default();
    let mut times = Vec::new();
    let mut result = None;
    for _ in 0..args.repeat.max(1) {
        let t0 = Instant::now();
        let r = bfs_matrix(&a, args.source, &opts)?;
        times.push(t0.elapsed());
        result = Some(r);
    }
    let r = result.expect("at least one run");
    times.sort();
    let best = times[0];
    let median = times[times.len() / 2];
    // Graph500 counts the undirected edges of the reached component.
    let edges = if g.is_directed() { r.arcs_in_component } else { r.arcs_in_component / 2 };
    let teps = |t: Duration| edges as f64 / t.as_secs_f64().max(1e-12);
    println!("graph:    {} ({} nodes, {} stored arcs)", args.graph.display(), g.num_nodes(), g.num_entries());
    println!("source:   {}", args.source);
    println!("reached:  {}", r.reached);
    println!("depth:    {}", r.depth);
    println!("edges:    {edges} (in the reached component)");
    println!("time:     {:.3} ms (best of {}; median {:.3} ms)", ms(best), times.len(), ms(median));
    println!("TEPS:     {:.3e} (best; median {:.3e})", teps(best), teps(median));
    println!("threads:  {}", rayon::current_num_threads());
    if let Some(out) = &args.out {
        io::npy::write_vector(out, &r.levels)?;
        println!("levels:   {}", out.display());
    }
    Ok(())
}

fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
}
