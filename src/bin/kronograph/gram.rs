//! `kronograph gram DATASET`: the marginalized graph kernel's Gram matrix.

use super::progress::Bar;
use kronograph::backend::{backend_of, resolve_devices, Backend, Precision};
use kronograph::basekernel::spec::SpecKernel;
use kronograph::graph::reorder::Method;
use kronograph::graph::{io, Dataset, Schema};
use kronograph::mgk::MarginalizedGraphKernel;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `gram`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A TU data set folder (or a single graph: Matrix Market file or edge list).
    pub dataset: PathBuf,
    /// Node kernel SPEC (see the README), e.g. "delta(label, 0.5)".
    /// Default: delta(label, 0.5) when nodes have a `label` field, else constant(1).
    #[arg(long)]
    pub node_kernel: Option<String>,
    /// Edge kernel SPEC, e.g. "delta(label, 0.5) * sqexp(attr1, 0.1)".
    /// Default: delta(label, 0.5) when edges have a `label` field, else constant(1).
    #[arg(long)]
    pub edge_kernel: Option<String>,
    /// Edge field to use as the weight (e.g. attr0). Default: the file's own weights (a Matrix
    /// Market file's values, an edge list's third column), 1 where it has none (TU data sets).
    #[arg(long)]
    pub weight: Option<String>,
    /// Stop probability q in (0, 1).
    #[arg(long, default_value_t = 0.05)]
    pub q: f64,
    /// Subtract the length-one walks (lmin = 1).
    #[arg(long)]
    pub lmin1: bool,
    /// Normalize: K(a, b) / sqrt(K(a, a) K(b, b)).
    #[arg(long)]
    pub normalize: bool,
    /// Solve in single precision (relative residual 1e-6).
    #[arg(long)]
    pub f32: bool,
    /// Relative residual of the solves (default 1e-12, or 1e-6 with --f32).
    #[arg(long)]
    pub tol: Option<f64>,
    /// Use only the first N graphs.
    #[arg(long)]
    pub first: Option<usize>,
    /// Write the Gram matrix (float64, N x N) to this .npy file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where to compute: auto (a CUDA GPU when one can be used, else the CPU), cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    pub backend: Backend,
    /// Arithmetic precision, f32 or f64 (default f64; --f32 is --precision f32).
    #[arg(long)]
    pub precision: Option<Precision>,
    /// Reorder each graph's nodes before packing into 8×8 tiles: natural, rcm or pbr
    /// (default: natural). Kernel values do not change.
    #[arg(long)]
    pub reorder: Option<kronograph::graph::reorder::Method>,
    /// Out of core: compute the Gram in SIZE x SIZE tiles written into --out as they finish (bounded
    /// memory; OUT.partial and a progress log OUT.progress until complete, then OUT). Default with
    /// --resume: the interrupted run's tile size.
    #[arg(long, value_name = "SIZE")]
    pub tiles: Option<usize>,
    /// Continue an interrupted out-of-core run (--tiles) of the same --out and arguments.
    #[arg(long)]
    pub resume: bool,
    /// Testing aid: exit (status 130, as if interrupted) after computing this many tiles.
    #[arg(long, hide = true)]
    pub stop_after_tiles: Option<usize>,
}

/// The default kernel SPEC for a label schema: a Kronecker delta on `label`
/// when there is such an integer field, else the constant 1.
pub fn default_spec(schema: &Schema) -> &'static str {
    match schema.kind("label") {
        Some(kronograph::graph::FieldKind::Int) => "delta(label, 0.5)",
        _ => "constant(1)",
    }
}

/// Loads `path`, takes the weights from `weight` and keeps the first
/// graphs; with the estimated memory of the data set as loaded (all of its
/// graphs, [`data_bytes`](crate::preflight::data_bytes)).
pub fn load(path: &PathBuf, weight: Option<&str>, first: Option<usize>) -> kronograph::Result<(Dataset, u64)> {
    let mut ds = io::load(path)?;
    if let Some(f) = weight {
        ds = ds.with_weights_from(f)?;
    }
    let loaded = crate::preflight::data_bytes(&ds.graphs);
    if let Some(k) = first {
        ds.graphs.truncate(k);
    }
    Ok((ds, loaded))
}

/// The kernel a `gram` run solves, with its description.
pub struct Setup {
    /// The kernel.
    pub mgk: MarginalizedGraphKernel<kronograph::graph::Record, kronograph::graph::Record, SpecKernel, SpecKernel>,
    /// Where it runs.
    pub backend: Backend,
    /// The kernel SPECs and precision, as one line.
    pub description: String,
}

/// Builds the kernel of `args` for `ds`, reporting progress to `bar`.
pub fn setup(args: &Args, ds: &Dataset, bar: &Bar) -> kronograph::Result<Setup> {
    let node_spec = args.node_kernel.clone().unwrap_or_else(|| default_spec(&ds.node_schema).to_string());
    let edge_spec = args.edge_kernel.clone().unwrap_or_else(|| default_spec(&ds.edge_schema).to_string());
    let kv = SpecKernel::parse_for(&node_spec, &ds.node_schema)?;
    let ke = SpecKernel::parse_for(&edge_spec, &ds.edge_schema)?;
    if args.f32 && args.precision == Some(Precision::F64) {
        return Err(kronograph::mgk::MgkError::InvalidParameter(
            "--f32 and --precision f64 contradict each other: give one of them".into(),
        )
        .into());
    }
    let single = args.f32 || args.precision == Some(Precision::F32);
    let precision = if single { Precision::F32 } else { Precision::F64 };
    // a device set stays a set (the Gram spreads over it); one device is cuda:N
    let backend = backend_of(resolve_devices(args.backend)?.as_deref());
    let mut mgk = MarginalizedGraphKernel::new(kv, ke, args.q)?
        .with_lmin(u32::from(args.lmin1))?
        .with_precision(precision)
        .with_reorder(args.reorder.filter(|m| *m != Method::Natural));
    // a hidden bar takes no callback (on the GPU one makes the pairs go in
    // several launches to report progress)
    if !bar.hidden() {
        mgk = mgk.with_progress(bar.callback());
    }
    if let Some(cb) = bar.solver_callback() {
        mgk = mgk.with_solver_progress(cb);
    }
    if let Some(t) = args.tol {
        mgk = mgk.with_tolerance(t)?;
    }
    let description = format!(
        "node kernel {node_spec}; edge kernel {edge_spec}; q = {}; weights: {}; lmin = {}; {precision:?}; tol {:e}",
        args.q,
        weights_name(args.weight.as_deref(), ds),
        u32::from(args.lmin1),
        mgk.tolerance()
    );
    Ok(Setup { mgk, backend, description })
}

/// How a run takes its weights, for its description line: the `--weight`
/// field, else `1` when every weight of the data set is 1, else `file`
/// (the file's own weights).
pub fn weights_name(weight: Option<&str>, ds: &Dataset) -> String {
    match weight {
        Some(f) => f.to_string(),
        None if ds.graphs.iter().all(|g| g.weights().iter().all(|&w| w == 1.0)) => "1".into(),
        None => "file".into(),
    }
}

/// Runs `gram` into one output (`--tiles` / `--resume` runs are
/// `gram_tiles::run`'s; `main` chooses).
pub fn run(args: Args, quiet: bool) -> kronograph::Result<()> {
    crate::preflight::check_out(args.out.as_deref(), &args.dataset)?;
    let (ds, loaded) = load(&args.dataset, args.weight.as_deref(), args.first)?;
    crate::preflight::check_gram_memory("gram", &ds.graphs, loaded, crate::preflight::MGK_BYTES_PER_PAIR)?;
    let n = ds.graphs.len();
    let pairs = n * (n + 1) / 2;
    let bar = Bar::new(pairs as u64, quiet, "pairs");
    let Setup { mgk, backend, description, .. } = setup(&args, &ds, &bar)?;
    if !quiet {
        eprintln!("{}: {n} graphs; {description}; on {backend}", ds.name);
    }
    let t = Instant::now();
    let k =
        if args.normalize { mgk.gram_normalized_on(backend, &ds.graphs)? } else { mgk.gram_on(backend, &ds.graphs)? };
    let secs = t.elapsed().as_secs_f64();
    bar.finish();
    eprintln!("gram: {n} x {n}, {pairs} pairs in {secs:.3} s ({:.0} pairs/s)", pairs as f64 / secs.max(1e-12));
    output(&args, n, k.as_slice())
}

/// Writes the `n × n` matrix `k` to `--out`, or its corner to standard output.
fn output(args: &Args, n: usize, k: &[f64]) -> kronograph::Result<()> {
    match &args.out {
        Some(path) => io::npy::write_matrix(path, n, n, k)?,
        None => {
            let show = n.min(6);
            for a in 0..show {
                let row: Vec<String> = (0..show).map(|b| format!("{:.6e}", k[a * n + b])).collect();
                crate::outln!("{}{}", row.join(" "), if n > show { " ..." } else { "" });
            }
        }
    }
    Ok(())
}
