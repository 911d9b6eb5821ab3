//! The `kronograph` command-line tool.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod bfs;
mod convert;
mod fglt;
mod generate;
mod gram;
mod gram_tiles;
mod info;
mod load_graph;
mod motif;
mod preflight;
mod progress;
mod reorder_stats;
mod rw;
mod signals;
mod sssp;
mod stdout;
mod timing;
mod triangles;

/// GraphBLAS-style algebra over graphs and their Kronecker products.
#[derive(Parser, Debug)]
#[command(name = "kronograph", version, about)]
struct Cli {
    /// Print no progress bars.
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Summarize a data set: graphs, nodes, edges, label kinds, degrees.
    Info(info::Args),
    /// Breadth-first search: reached nodes, depth, time and TEPS.
    Bfs(bfs::Args),
    /// Count the triangles of an undirected graph.
    Triangles(triangles::Args),
    /// Single-source shortest paths (delta-stepping or Bellman-Ford): reached nodes, time, GTEPS.
    Sssp(sssp::Args),
    /// Gram matrix of the marginalized graph kernel over a data set.
    Gram(gram::Args),
    /// Gram matrix of the geometric random-walk kernel over a data set.
    Rw(rw::Args),
    /// Fast graphlet transform: the 16 per-vertex orbit frequencies (raw and net) to .npy / CSV.
    Fglt(fglt::Args),
    /// Non-empty 8×8 tiles, their density and the reordering time for the natural, RCM and PBR orders.
    ReorderStats(reorder_stats::Args),
    /// Vertex-localized motif search: which vertices lie in a connected match of a colour multiset.
    Motif(motif::Args),
    /// Write generated instances (e.g. `generate motif`: a planted motif-search instance).
    Generate(generate::Args),
    /// Save a graph in the binary graph format (or as Matrix Market): `kronograph convert graph.mtx graph.kgb`;
    /// every subcommand then reads graph.kgb in a fraction of the time.
    Convert(convert::Args),
}

/// Checks the environment variables the library reads (which it would
/// ignore when they do not parse): `KRONOGRAPH_MAX_MEMORY` (bytes, with an
/// optional K/M/G/T suffix) and `KRONOGRAPH_MAX_NODES` (a node count).
fn check_environment() -> Result<(), String> {
    use kronograph::graph::io::limits::parse_bytes;
    let var = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    if let Some(v) = var("KRONOGRAPH_MAX_MEMORY") {
        if parse_bytes(&v).is_none_or(|b| b == 0) {
            return Err(format!(
                "KRONOGRAPH_MAX_MEMORY={v:?} is not a memory size: give a positive number of bytes with an optional \
                 K, M, G or T suffix (e.g. 4G), or unset it"
            ));
        }
    }
    if let Some(v) = var("KRONOGRAPH_MAX_NODES") {
        if v.trim().parse::<usize>().is_err() {
            return Err(format!(
                "KRONOGRAPH_MAX_NODES={v:?} is not a node count: give a non-negative whole number (e.g. 5000000), \
                 or unset it"
            ));
        }
    }
    Ok(())
}

/// `text` with every number of more than 20 digits (an `f64` such as 1e300
/// printed in full by `Display`) in scientific notation: `1e300`.
fn shorten_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let len = tail.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(tail.len());
        let token = tail[..len].trim_end_matches('.');
        let digits = token.bytes().filter(u8::is_ascii_digit).count();
        match token.parse::<f64>() {
            Ok(v) if digits > 20 => out.push_str(&format!("{v:e}")),
            _ => out.push_str(token),
        }
        rest = &tail[token.len()..];
    }
    out.push_str(rest);
    out
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    signals::install();
    if let Err(e) = check_environment() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Info(a) => info::run(a),
        Command::Bfs(a) => bfs::run(a),
        Command::Triangles(a) => triangles::run(a),
        Command::Sssp(a) => sssp::run(a),
        // a tiled (resumable) output is its own run over the same set-up
        Command::Gram(a) if a.tiles.is_some() || a.resume => gram_tiles::run(&a, cli.quiet),
        Command::Gram(a) => gram::run(a, cli.quiet),
        Command::Rw(a) => rw::run(a, cli.quiet),
        Command::ReorderStats(a) => reorder_stats::run(a),
        Command::Fglt(a) => fglt::run(a, cli.quiet),
        Command::Motif(a) => motif::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Convert(a) => convert::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", shorten_numbers(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_numbers_are_shortened() {
        let big = format!("weight {} at line 3.", 1e300);
        assert!(big.len() > 300);
        assert_eq!(super::shorten_numbers(&big), "weight 1e300 at line 3.");
        let tiny = format!("q = {}", 1e-30);
        assert_eq!(super::shorten_numbers(&tiny), "q = 1e-30");
        let keep = "node 18446744073709551615 of 12.5 and 3";
        assert_eq!(super::shorten_numbers(keep), keep);
    }
}
