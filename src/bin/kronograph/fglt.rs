//! `kronograph fglt GRAPH --out freq.npy`: the fast graphlet transform.

use crate::load_graph::load_graph;
use crate::progress::Bar;
use kronograph::graph::io::{npy, output, IoError};
use kronograph::graphlets::{fglt_with, Fglt, FgltOptions, ORBITS, ORBIT_NAMES, STAGES};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `fglt`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// An undirected graph: a Matrix Market file (.mtx), an edge list, or a TU data set folder.
    pub graph: PathBuf,
    /// Which graph of a multi-graph data set.
    #[arg(long, default_value_t = 0)]
    pub graph_index: usize,
    /// Write the net (induced) frequencies (the default).
    #[arg(long, group = "which")]
    pub net: bool,
    /// Write the raw (non-induced) frequencies.
    #[arg(long, group = "which")]
    pub raw: bool,
    /// Write both: n × 32, the 16 raw columns then the 16 net ones.
    #[arg(long, group = "which")]
    pub both: bool,
    /// Where to run: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    pub backend: kronograph::cuda::Backend,
    /// Output .npy file: an n × 16 (or n × 32 with --both) array of uint64, row i for vertex i.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also (or instead) write a CSV with FGLT's column names.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Print the time of each stage.
    #[arg(long, short)]
    pub verbose: bool,
}

/// Runs `fglt`.
pub fn run(args: Args, quiet: bool) -> kronograph::Result<()> {
    if args.out.is_none() && args.csv.is_none() {
        return Err(kronograph::graph::GraphError::InvalidOption(
            "fglt: nothing to write; give --out freq.npy and/or --csv freq.csv".into(),
        )
        .into());
    }
    super::preflight::check_distinct(&[("--out", args.out.as_deref()), ("--csv", args.csv.as_deref())])?;
    super::preflight::check_out(args.out.as_deref(), &args.graph)?;
    super::preflight::check_out(args.csv.as_deref(), &args.graph)?;
    let t0 = Instant::now();
    let g = load_graph(&args.graph, args.graph_index)?;
    let load = t0.elapsed();
    // a stage bar for graphs large enough to take a while
    let bar = (g.num_entries() >= 2_000_000).then(|| Bar::new(STAGES as u64, quiet, "stages"));
    let opts = FgltOptions {
        backend: args.backend,
        progress: bar.as_ref().map(|b| {
            let cb = b.callback();
            Arc::new(move |_: &str, i: usize, total: usize| cb(i, total)) as _
        }),
    };
    let t = fglt_with(&g, &opts)?;
    if let Some(b) = &bar {
        b.finish();
    }
    if let Some(note) = t.ignored.note() {
        eprintln!("note: {note}");
    }
    let (cols, data) = columns(&t, args.raw, args.both);
    let n = t.raw.n;
    let tw = Instant::now();
    if let Some(out) = &args.out {
        npy::write_matrix(out, n, cols, &data)?;
    }
    if let Some(csv) = &args.csv {
        write_csv(csv, n, cols, &data, args.both)?;
    }
    if args.verbose {
        eprintln!("load: {:.3} s ({} vertices, {} edges)", load.as_secs_f64(), n, g.num_edges());
        let device = t.device.map_or("cpu".to_string(), |d| format!("cuda:{d}"));
        eprintln!("backend: {device} ({} CPU threads)", rayon::current_num_threads());
        for (name, d) in &t.stages {
            eprintln!("  {name}: {:.3} ms", d.as_secs_f64() * 1e3);
        }
        let total: f64 = t.stages.iter().map(|s| s.1.as_secs_f64()).sum();
        eprintln!("transform: {:.3} ms", total * 1e3);
        eprintln!("write: {:.3} s", tw.elapsed().as_secs_f64());
    }
    Ok(())
}

/// The selected columns, row-major.
fn columns(t: &Fglt, raw: bool, both: bool) -> (usize, Vec<u64>) {
    if both {
        let mut d = Vec::with_capacity(t.raw.data.len() * 2);
        for (r, f) in t.raw.data.chunks(ORBITS).zip(t.net.data.chunks(ORBITS)) {
            d.extend_from_slice(r);
            d.extend_from_slice(f);
        }
        (2 * ORBITS, d)
    } else if raw {
        (ORBITS, t.raw.data.clone())
    } else {
        (ORBITS, t.net.data.clone())
    }
}

/// Writes a CSV with a header of FGLT's column names (prefixed `raw ` / `net `
/// with `--both`), atomically (see [`output::write_atomically`]: no partial file).
fn write_csv(path: &Path, n: usize, cols: usize, data: &[u64], both: bool) -> Result<(), IoError> {
    let header: Vec<String> = if both {
        ORBIT_NAMES.iter().map(|c| format!("raw {c}")).chain(ORBIT_NAMES.iter().map(|c| format!("net {c}"))).collect()
    } else {
        ORBIT_NAMES.iter().map(|c| c.to_string()).collect()
    };
    output::write_atomically(path, |w| {
        writeln!(w, "{}", header.iter().map(|h| format!("\"{h}\"")).collect::<Vec<_>>().join(","))?;
        for row in data.chunks(cols.max(1)).take(n) {
            writeln!(w, "{}", row.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))?;
        }
        Ok(())
    })
}
