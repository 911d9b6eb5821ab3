//! `kronograph convert GRAPH OUT`: a graph saved in the binary graph format
//! (loaded again in a fraction of the time of its text), or as Matrix Market.

use crate::load_graph::load_graph;
use kronograph::graph::io::{binary, mtx, IoError};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `convert`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The graph: a Matrix Market file, an edge list or a binary graph file
    /// (any file `kronograph info` reads; not a TU folder, whose labels the
    /// binary format does not hold).
    pub graph: PathBuf,
    /// The output: a name ending in `.mtx` gives Matrix Market, any other
    /// name the binary graph format (by convention `.kgb`).
    pub out: PathBuf,
}

/// Runs `convert`.
pub fn run(args: Args) -> kronograph::Result<()> {
    super::preflight::check_out(Some(&args.out), &args.graph)?;
    if args.graph.is_dir() {
        return Err(IoError::Output {
            path: args.out.clone(),
            problem: format!(
                "{} is a TU data set folder; the binary format holds one graph without labels, so convert a \
                 Matrix Market file or an edge list (a TU data set already loads in milliseconds)",
                args.graph.display()
            ),
        }
        .into());
    }
    let t0 = Instant::now();
    let g = load_graph(&args.graph, 0)?;
    let read = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let as_mtx = args.out.extension().is_some_and(|e| e.eq_ignore_ascii_case("mtx"));
    if as_mtx {
        mtx::write(&args.out, &g)?;
    } else {
        binary::write(&args.out, &g)?;
    }
    crate::outln!(
        "wrote {} ({}): {} nodes, {} {} (read {read:.3} s, write {:.3} s)",
        args.out.display(),
        if as_mtx { "Matrix Market" } else { "binary graph" },
        g.num_nodes(),
        g.num_edges(),
        if g.is_directed() { "arcs" } else { "edges" },
        t1.elapsed().as_secs_f64()
    );
    Ok(())
}
