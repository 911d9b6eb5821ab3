//! `kronograph reorder-stats DATASET [--json]`: non-empty 8×8 tiles, their
//! mean fill and the reordering time for the natural, RCM and PBR orders,
//! summed over a data set.

use kronograph::graph::io;
use kronograph::graph::reorder::{self, Method, MethodStats};
use std::fmt::Write as _;

/// Arguments of `reorder-stats`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A TU data set folder, a Matrix Market file (.mtx) or an edge list.
    pub dataset: std::path::PathBuf,
    /// Print one JSON object
    /// `{"natural": {"tiles": N, "density": X, "seconds": T}, "rcm": {…}, "pbr": {…}}`.
    #[arg(long)]
    pub json: bool,
}

/// Runs `reorder-stats`: reads the data set with [`io::load`], reorders
/// every graph by each method ([`reorder::stats`]) and prints the sums.
pub fn run(args: Args) -> kronograph::Result<()> {
    let ds = io::load(&args.dataset)?;
    let stats = reorder::stats(&ds.graphs, &Method::ALL);
    if args.json {
        crate::outln!("{}", json(&stats));
    } else {
        crate::out!("{}", table(&ds.name, &stats));
    }
    Ok(())
}

/// One JSON object keyed by method name.
fn json(stats: &[MethodStats]) -> String {
    let body: Vec<String> = stats
        .iter()
        .map(|s| {
            format!(
                "\"{}\": {{\"tiles\": {}, \"density\": {}, \"seconds\": {}}}",
                s.method,
                s.tiles.tiles,
                s.tiles.density(),
                s.seconds
            )
        })
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// A table: one row per method.
fn table(name: &str, stats: &[MethodStats]) -> String {
    let mut s = String::new();
    if let Some(first) = stats.first() {
        let t = first.tiles;
        let _ = writeln!(s, "{name}: {} graphs, {} nodes, {} nonzeros; 8×8 tiles", t.graphs, t.nodes, t.nonzeros);
    }
    let _ = writeln!(s, "{:<8} {:>10} {:>9} {:>11} {:>11}", "order", "tiles", "density", "seconds", "µs/graph");
    for m in stats {
        let _ = writeln!(
            s,
            "{:<8} {:>10} {:>9.3} {:>11.6} {:>11.2}",
            m.method.name(),
            m.tiles.tiles,
            m.tiles.density(),
            m.seconds,
            1e6 * m.seconds_per_graph()
        );
    }
    let _ = writeln!(s, "(density: mean nonzeros per non-empty tile, of 64; seconds: reordering time, one core)");
    s
}
