//! `kronograph motif GRAPH --colors FILE --motif 3,3,5,7 --out hits.npy`.

use crate::load_graph::load_graph;
use kronograph::cuda::Backend;
use kronograph::graph::io::{npy, IoError};
use kronograph::motif::{self, Field, MotifOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `motif`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// An undirected graph: a Matrix Market file (.mtx), an edge list, or a TU data set folder.
    pub graph: PathBuf,
    /// Which graph of a multi-graph data set.
    #[arg(long, default_value_t = 0)]
    pub graph_index: usize,
    /// Vertex colours: one non-negative integer per line, line i for vertex i (in the reader's order).
    #[arg(long)]
    pub colors: PathBuf,
    /// The motif: k colours separated by commas (a multiset), e.g. 3,3,5,7.
    #[arg(long)]
    pub motif: String,
    /// Target per-vertex false-negative probability.
    #[arg(long, default_value_t = 1e-6)]
    pub delta: f64,
    /// Seed of the random values.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    pub backend: Backend,
    /// gf256 (bit-sliced GF(2^8), default) or gf64 (GF(2^64), CPU only).
    #[arg(long, default_value = "gf256")]
    pub field: Field,
    /// Run the sieve on the whole graph, not only on the vertices whose colour is in the motif.
    #[arg(long)]
    pub no_prune: bool,
    /// Print the matches (connected components of the hit vertices) when they are isolated matches.
    #[arg(long)]
    pub matches: bool,
    /// Output: an .npy file of n booleans (vertex i lies in a match).
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `motif`.
pub fn run(args: Args) -> kronograph::Result<()> {
    super::preflight::check_out(Some(&args.out), &args.graph)?;
    super::preflight::check_out(Some(&args.out), &args.colors)?;
    let g = load_graph(&args.graph, args.graph_index)?;
    let colors = read_colors(&args.colors, g.num_nodes(), &args.graph)?;
    let motif = parse_motif(&args.motif)?;
    let opts = MotifOptions {
        field: args.field,
        delta: args.delta,
        seed: args.seed,
        backend: args.backend,
        prune: !args.no_prune,
        ..Default::default()
    };
    let t0 = Instant::now();
    let hits = motif::localized(&g, &colors, &motif, &opts)?;
    let secs = t0.elapsed().as_secs_f64();
    npy::write_vector(&args.out, &hits.hits)?;
    let count = hits.hits.iter().filter(|&&h| h).count();
    crate::outln!("vertices in a match: {count} of {}", hits.hits.len());
    crate::outln!("runs: {}", hits.runs);
    crate::outln!("false-negative bound per vertex: {:.3e}", hits.false_negative_bound);
    let backend = kronograph::backend::backend_of(Some(&hits.devices[..]));
    crate::outln!("time: {secs:.3} s ({backend})");
    if let Some(k) = hits.kernel_seconds {
        crate::outln!("kernel time: {k:.3} s");
    }
    if args.matches {
        match motif::matches(&g, &colors, &motif, &hits.hits) {
            Some(ms) => {
                crate::outln!("matches: {}", ms.len());
                for m in ms {
                    crate::outln!("{}", m.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" "));
                }
            }
            None => {
                crate::outln!("matches: the hit vertices do not induce isolated matches (matches overlap or touch)")
            }
        }
    }
    Ok(())
}

/// Parses `3,3,5,7`.
fn parse_motif(s: &str) -> kronograph::Result<Vec<u32>> {
    s.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.parse::<u32>().map_err(|_| {
                kronograph::graph::GraphError::InvalidOption(format!(
                    "--motif: {t:?} is not a non-negative integer colour (give e.g. --motif 3,3,5,7)"
                ))
                .into()
            })
        })
        .collect()
}

/// Reads one non-negative integer colour per line; exactly `n` lines (blank
/// lines at the end are ignored). The file is read once (a pipe works); a
/// byte-order mark or a compressed file is refused with what to do.
fn read_colors(path: &Path, n: usize, graph: &Path) -> kronograph::Result<Vec<u32>> {
    let bytes = kronograph::graph::io::source::read_text(path)?;
    let text = String::from_utf8_lossy(&bytes);
    // Trailing blank lines (and a missing final newline) are fine.
    let body = text.trim_end();
    let mut colors = Vec::with_capacity(n);
    for (i, line) in body.lines().enumerate().filter(|_| !body.is_empty()) {
        let t = line.trim();
        let c = t.parse::<u32>().map_err(|_| IoError::Malformed {
            path: path.into(),
            line: i + 1,
            expected: "one non-negative integer colour (below 2^32)".into(),
            found: format!("{t:?}"),
        })?;
        colors.push(c);
    }
    if colors.len() != n {
        return Err(IoError::LineCount {
            path: path.into(),
            line: colors.len().min(n) + 1,
            expected: n,
            found: colors.len(),
            why: format!("one colour per vertex of {}", graph.display()),
        }
        .into());
    }
    Ok(colors)
}
