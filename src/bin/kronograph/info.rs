//! `kronograph info PATH`: a summary of a data set or graph.

use kronograph::graph::{io, Dataset, FieldSummary};
use std::fmt::Write as _;

/// Arguments of `info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A TU data set folder, a Matrix Market file (.mtx) or an edge list.
    pub path: std::path::PathBuf,
}

/// Runs `info`: reads the path with [`io::load`] and prints the summary.
pub fn run(args: Args) -> kronograph::Result<()> {
    let ds = io::load(&args.path)?;
    crate::out!("{}", summary(&ds, &args.path.display().to_string()));
    Ok(())
}

/// The text `info` prints: one `key: value` line per property.
fn summary(ds: &Dataset, path: &str) -> String {
    let mut s = String::new();
    let line = |s: &mut String, key: &str, value: &dyn std::fmt::Display| {
        let _ = writeln!(s, "{:<15} {value}", format!("{key}:"));
    };
    line(&mut s, "data set", &format!("{} ({path})", ds.name));
    line(&mut s, "graphs", &ds.len());
    line(&mut s, "nodes", &ds.num_nodes());
    if ds.is_directed() {
        line(&mut s, "arcs", &format!("{} (directed)", ds.num_edges()));
    } else {
        line(&mut s, "edges", &format!("{} (undirected)", ds.num_edges()));
    }
    line(&mut s, "self-loops", &ds.num_self_loops());
    if let Some(st) = ds.size_stats() {
        line(&mut s, "nodes/graph", &st);
    }
    let what = if ds.is_directed() { "out-neighbours" } else { "neighbours" };
    match ds.degree_stats() {
        Some(d) => line(&mut s, "degree", &format!("{d} (unweighted: number of {what})")),
        None => line(&mut s, "degree", &"- (no nodes)"),
    }
    let fields = |f: Vec<FieldSummary>| {
        if f.is_empty() {
            "none".to_string()
        } else {
            f.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("; ")
        }
    };
    line(&mut s, "node labels", &fields(ds.node_fields()));
    line(&mut s, "edge labels", &fields(ds.edge_fields()));
    match ds.graph_label_summary() {
        Some(g) => line(&mut s, "graph labels", &g),
        None => line(&mut s, "graph labels", &"none"),
    }
    s
}
