//! `kronograph sssp GRAPH [--source S] [--method delta-stepping|bellman-ford] [--delta D] [--backend B] [--out dist.npy]`.

use crate::load_graph::load_graph;
use crate::timing::{print_backend, RunArgs};
use kronograph::algorithms::{PreparedSssp, SsspMethod, SsspOptions};
use kronograph::graph::io;
use kronograph::matrix::SparseMatrix;
use std::path::PathBuf;

/// Arguments of `sssp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A weighted graph (weights finite and >= 0; unit weights when the file has none): a Matrix
    /// Market file (.mtx), an edge list, or a TU data set folder.
    pub graph: PathBuf,
    /// The source node (0-based).
    #[arg(long, short, default_value_t = 0)]
    pub source: usize,
    /// delta-stepping (parallel buckets) or bellman-ford (min-plus rounds).
    #[arg(long, default_value_t = SsspMethod::DeltaStepping)]
    pub method: SsspMethod,
    /// Bucket width of delta-stepping (> 0); by default max(largest weight / mean degree,
    /// smallest positive weight).
    #[arg(long)]
    pub delta: Option<f64>,
    /// Write the distances (float64, inf = unreached) to this .npy file.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Graph index, backend, repeats.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Runs `sssp`: loads the graph, builds its adjacency matrix and prepares
/// the search on the backend (timed apart as `setup`), then times the
/// search alone. TEPS counts the edges of the reached part.
pub fn run(args: Args) -> kronograph::Result<()> {
    crate::preflight::check_out(args.out.as_deref(), &args.graph)?;
    let g = &load_graph(&args.graph, args.run.graph_index)?;
    let a = SparseMatrix::from_graph(g);
    let opts = SsspOptions { method: args.method, delta: args.delta };
    let mut sssp = PreparedSssp::new(&a, &opts, args.run.backend)?;
    let (r, times) = args.run.repeated(|| sssp.run(args.source))?;
    let arcs: usize = (0..a.nrows()).filter(|&v| r.distances[v].is_finite()).map(|v| a.row(v).0.len()).sum();
    let edges = if g.is_directed() { arcs } else { arcs / 2 };
    let far = r.distances.iter().copied().filter(|d| d.is_finite()).fold(0.0, f64::max);
    crate::outln!("graph:    {} ({} nodes, {} stored arcs)", args.graph.display(), g.num_nodes(), g.num_entries());
    crate::outln!("source:   {}", args.source);
    crate::outln!("method:   {}{}", args.method, r.delta.map(|d| format!(" (delta {d})")).unwrap_or_default());
    print_backend(args.run.backend, sssp.device(), sssp.setup_seconds());
    crate::outln!("reached:  {}", r.reached());
    crate::outln!("farthest: {far}");
    crate::outln!("rounds:   {}", r.rounds);
    crate::outln!("edges:    {edges} (in the reached part)");
    times.print(edges);
    if let Some(out) = &args.out {
        io::npy::write_vector(out, &r.distances)?;
        crate::outln!("distances: {}", out.display());
    }
    Ok(())
}
