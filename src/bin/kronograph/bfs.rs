//! `kronograph bfs GRAPH [--source S | --sources K [--seed X]] [--backend B] [--out levels.npy]`.

use crate::load_graph::load_graph;
use crate::timing::{print_backend, teps, RunArgs};
use kronograph::algorithms::{BfsOptions, PreparedBfs};
use kronograph::graph::io;
use kronograph::matrix::SparseMatrix;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;

/// Arguments of `bfs`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A Matrix Market file (.mtx), an edge list, or a TU data set folder.
    pub graph: PathBuf,
    /// The source node (0-based).
    #[arg(long, short, default_value_t = 0)]
    pub source: usize,
    /// Search from this many random sources (nodes with at least one arc, drawn with --seed, as
    /// Graph500 does) and report the harmonic mean of their GTEPS.
    #[arg(long, conflicts_with_all = ["source", "out"])]
    pub sources: Option<usize>,
    /// Seed of the --sources draw.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the levels (int64, -1 = unreached) to this .npy file.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Graph index, backend, repeats (of each search).
    #[command(flatten)]
    pub run: RunArgs,
}

/// Runs `bfs`: loads the graph, builds its adjacency matrix and prepares
/// the search on the backend once (on a device: upload, JIT; timed apart as
/// `setup`), then times each search alone (on a device its level loop). TEPS
/// counts the edges of the reached component (undirected edges for an
/// undirected graph, as Graph500 does).
pub fn run(args: Args) -> kronograph::Result<()> {
    crate::preflight::check_out(args.out.as_deref(), &args.graph)?;
    let g = &load_graph(&args.graph, args.run.graph_index)?;
    let a = SparseMatrix::from_graph(g);
    let opts = BfsOptions::default();
    let half = if g.is_directed() { 1 } else { 2 };
    crate::outln!("graph:    {} ({} nodes, {} stored arcs)", args.graph.display(), g.num_nodes(), g.num_entries());
    let mut bfs = PreparedBfs::new(&a, &opts, args.run.backend)?;
    print_backend(args.run.backend, bfs.device(), bfs.setup_seconds());
    if let Some(k) = args.sources {
        let candidates: Vec<usize> = (0..a.nrows()).filter(|&v| !a.row(v).0.is_empty()).collect();
        if k == 0 || candidates.is_empty() {
            return Err(kronograph::graph::GraphError::InvalidOption(format!(
                "--sources {k}: need at least one source and a node with an arc ({} such nodes)",
                candidates.len()
            ))
            .into());
        }
        let rng = &mut ChaCha8Rng::seed_from_u64(args.seed);
        let sources: Vec<usize> = (0..k).map(|_| *candidates.choose(rng).expect("not empty")).collect();
        let mut inverse_sum = 0.0;
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for &s in &sources {
            let (r, times) = args.run.repeated(|| bfs.run(s))?;
            let edges = r.arcs_in_component / half;
            let gteps = teps(edges, times.best_median().0) / 1e9;
            inverse_sum += 1.0 / gteps.max(1e-300);
            (lo, hi) = (lo.min(gteps), hi.max(gteps));
        }
        crate::outln!("sources:  {k} (random, seed {}; best of {} runs each)", args.seed, args.run.repeat.max(1));
        crate::outln!("GTEPS:    {:.4} (harmonic mean; min {lo:.4}, max {hi:.4})", k as f64 / inverse_sum);
        crate::outln!("threads:  {}", rayon::current_num_threads());
        return Ok(());
    }
    let (r, times) = args.run.repeated(|| bfs.run(args.source))?;
    let edges = r.arcs_in_component / half;
    crate::outln!("source:   {}", args.source);
    crate::outln!("reached:  {}", r.reached);
    crate::outln!("depth:    {}", r.depth);
    crate::outln!("edges:    {edges} (in the reached component)");
    times.print(edges);
    if let Some(out) = &args.out {
        io::npy::write_vector(out, &r.levels)?;
        crate::outln!("levels:   {}", out.display());
    }
    Ok(())
}
