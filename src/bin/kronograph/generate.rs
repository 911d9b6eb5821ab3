//! `kronograph generate motif --n N --d D --k K --out DIR` and
//! `kronograph generate rmat --scale N [--out FILE.mtx]`.

use kronograph::graph::generate;
use kronograph::graph::io::{mtx, output, IoError};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `generate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand, Debug)]
enum What {
    /// A motif-search instance: a random d-regular (or power-law) graph, colours uniform over
    /// --colors colours, and a planted match of k vertices with a colour of their own. Writes
    /// DIR/graph.mtx, DIR/colors.txt, DIR/motif.txt (the motif, comma-separated) and
    /// DIR/planted.txt (the planted vertices, one per line).
    Motif(MotifArgs),
    /// A Graph500 R-MAT graph (a = 0.57, b = c = 0.19), generated in parallel: 2^scale nodes,
    /// edge-factor · 2^scale draws (or exactly --edges distinct edges), self-loops dropped and
    /// duplicates merged; the same graph for a seed on any number of threads. Prints the
    /// generation time; writes a Matrix Market file with --out.
    Rmat(RmatArgs),
}

/// Arguments of `generate rmat`.
#[derive(clap::Args, Debug)]
pub struct RmatArgs {
    /// log2 of the number of nodes (at most 32).
    #[arg(long)]
    scale: u32,
    /// Edges drawn per node.
    #[arg(long, default_value_t = 16)]
    edge_factor: usize,
    /// Exactly this many distinct edges (repeated draws replaced by further draws) instead of
    /// edge-factor · 2^scale draws.
    #[arg(long)]
    edges: Option<usize>,
    /// Graph500 level noise (0 = plain R-MAT; the reference's alternative is 0.1).
    #[arg(long, default_value_t = 0.0)]
    noise: f64,
    /// Keep the generator's node ids (node 0 the hub) instead of a random permutation.
    #[arg(long)]
    no_permute: bool,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the graph to this Matrix Market file (.mtx).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Arguments of `generate motif`.
#[derive(clap::Args, Debug)]
pub struct MotifArgs {
    /// Vertices.
    #[arg(long)]
    n: usize,
    /// Degree (mean degree for --power-law).
    #[arg(long, default_value_t = 20)]
    d: usize,
    /// Motif size.
    #[arg(long)]
    k: usize,
    /// Colours of the other vertices.
    #[arg(long, default_value_t = 16)]
    colors: u32,
    /// A Barabási–Albert (power-law) graph instead of a regular one.
    #[arg(long)]
    power_law: bool,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output folder (created).
    #[arg(long)]
    out: PathBuf,
}

/// Runs `generate`.
pub fn run(args: Args) -> kronograph::Result<()> {
    match args.what {
        What::Motif(a) => motif(a),
        What::Rmat(a) => rmat(a),
    }
}

fn rmat(a: RmatArgs) -> kronograph::Result<()> {
    if let Some(out) = &a.out {
        crate::preflight::check_name(out)?;
        output::check_target(out, &[])?;
    }
    let params = generate::RmatParams {
        edge_factor: a.edge_factor,
        noise: a.noise,
        permute: !a.no_permute,
        distinct_edges: a.edges,
        ..generate::RmatParams::graph500(a.scale)
    };
    // refused up front with the figure, not by the allocator
    if a.scale <= 32 {
        let nodes = 1u64 << a.scale;
        let draws = match a.edges {
            Some(m) => m as u64,
            None => (a.edge_factor as u64).saturating_mul(nodes),
        };
        let needed = draws.saturating_mul(RMAT_BYTES_PER_DRAW).saturating_add(nodes.saturating_mul(16));
        check_memory(
            &format!("generate rmat --scale {} with {draws} edge draws", a.scale),
            needed,
            "lower --scale, --edge-factor or --edges",
        )?;
    }
    let t0 = Instant::now();
    let g = generate::rmat(&params, &mut ChaCha8Rng::seed_from_u64(a.seed))?;
    let t = t0.elapsed();
    crate::outln!("nodes:    {}", g.num_nodes());
    crate::outln!("edges:    {} (undirected, distinct, no self-loops)", g.num_edges());
    crate::outln!("time:     {:.3} s ({} threads)", t.as_secs_f64(), rayon::current_num_threads());
    if let Some(out) = &a.out {
        let t0 = Instant::now();
        mtx::write(out, &g)?;
        crate::outln!("wrote:    {} ({:.3} s)", out.display(), t0.elapsed().as_secs_f64());
    }
    Ok(())
}

/// Peak bytes per R-MAT draw: the draw's key (8), both arcs (16), then the
/// graph's two indices and weights (32), with slack for the parallel sort.
const RMAT_BYTES_PER_DRAW: u64 = 64;
/// Peak bytes per edge of a motif instance's graph: the generator's edge
/// set and list, the builder's arcs and the graph's two indices, weights
/// and (empty) labels.
const MOTIF_BYTES_PER_EDGE: u64 = 160;
/// Peak bytes per vertex of a motif instance (degree, row offset, colour,
/// the generator's per-vertex lists).
const MOTIF_BYTES_PER_VERTEX: u64 = 64;

/// Refuses a generation whose estimated peak memory `needed` exceeds the
/// memory available ([`limits::memory_budget`]).
fn check_memory(what: &str, needed: u64, hint: &str) -> kronograph::Result<()> {
    use kronograph::graph::io::limits;
    match limits::memory_budget() {
        Some(budget) if needed > budget => Err(kronograph::Error::InsufficientMemory {
            what: what.to_string(),
            needed,
            available: budget,
            budget_from: limits::memory_budget_source().to_string(),
            hint: hint.to_string(),
        }),
        _ => Ok(()),
    }
}

fn motif(a: MotifArgs) -> kronograph::Result<()> {
    let edges = (a.n as u64).saturating_mul(a.d as u64) / 2;
    let needed =
        edges.saturating_mul(MOTIF_BYTES_PER_EDGE).saturating_add((a.n as u64).saturating_mul(MOTIF_BYTES_PER_VERTEX));
    check_memory(&format!("generate motif --n {} --d {} (about {edges} edges)", a.n, a.d), needed, "lower --n or --d")?;
    let rng = &mut ChaCha8Rng::seed_from_u64(a.seed);
    let inst = if a.power_law {
        generate::power_law_motif(a.n, a.d, a.colors, a.k, rng)?
    } else {
        generate::regular_motif(a.n, a.d, a.colors, a.k, rng)?
    };
    let os = |path: PathBuf| move |source| IoError::Os { path, source };
    std::fs::create_dir_all(&a.out).map_err(os(a.out.clone()))?;
    let lines = |v: &mut dyn Iterator<Item = String>| v.map(|s| s + "\n").collect::<String>();
    let write = |name: &str, text: String| -> kronograph::Result<()> {
        output::write_atomically(a.out.join(name), |w| w.write_all(text.as_bytes()))?;
        Ok(())
    };
    mtx::write(a.out.join("graph.mtx"), &inst.graph)?;
    write("colors.txt", lines(&mut inst.colors.iter().map(|c| c.to_string())))?;
    write("motif.txt", inst.motif.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",") + "\n")?;
    write("planted.txt", lines(&mut inst.planted.iter().map(|v| v.to_string())))?;
    crate::outln!(
        "wrote {}: {} vertices, {} edges, k = {}, planted colour {}",
        a.out.display(),
        inst.graph.num_nodes(),
        inst.graph.num_edges(),
        a.k,
        a.colors
    );
    Ok(())
}
