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

fn main() -> ExitCode {
    let cli = Cli::parse();
    signals::install();
    let result = match cli.command {
        Command::Info(a) => info::run(a),
        Command::Bfs(a) => bfs::run(a),
        Command::Triangles(a) => triangles::run(a),
        Command::Sssp(a) => sssp::run(a),
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
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
