//! `kronograph rw DATASET --lambda L`: the random-walk kernels (geometric;
//! `--kind exponential` or `--kind p-step`).

use super::progress::Bar;
use kronograph::backend::{Backend, Precision};
use kronograph::graph::io;
use kronograph::rw::{RandomWalkKernel, RwMethod, WalkSeriesKernel};
use std::path::PathBuf;
use std::time::Instant;

/// How to compute unlabeled pairs.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Method {
    /// The moment series where it applies, else CG.
    Auto,
    /// Conjugate gradients on the lazy Kronecker product.
    Solver,
}

/// The weights of the walks of each length.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// λ^l: 1ᵀ (I − λ W⊗W')⁻¹ 1.
    Geometric,
    /// λ^l / l!: 1ᵀ exp(λ W⊗W') 1.
    Exponential,
    /// c_l λ^l for l = 0..=P (--steps P, --step-weights).
    PStep,
}

/// Arguments of `rw`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A TU data set folder (or a single graph).
    pub dataset: PathBuf,
    /// The decay λ > 0 (needs λ ρ(W) ρ(W') < 1).
    #[arg(long = "lambda")]
    pub lambda: f64,
    /// Restrict walks to node pairs with equal node labels.
    #[arg(long)]
    pub labeled: bool,
    /// Edge field to use as the weight (e.g. attr0). Default: the file's own weights (a Matrix
    /// Market file's values, an edge list's third column), 1 where it has none (TU data sets),
    /// as for `gram`.
    #[arg(long)]
    pub weight: Option<String>,
    /// The walk weights: geometric (λ^l), exponential (λ^l / l!) or p-step (c_l λ^l up to --steps).
    /// On a GPU the exponential and p-step kinds run the product graph's power series in f64,
    /// every pair of the call in one batched launch.
    #[arg(long, value_enum, default_value_t = Kind::Geometric)]
    pub kind: Kind,
    /// The longest walk of --kind p-step.
    #[arg(long)]
    pub steps: Option<usize>,
    /// The weights c_0,…,c_P of --kind p-step (comma-separated, ≥ 0; default all 1).
    #[arg(long, value_delimiter = ',')]
    pub step_weights: Option<Vec<f64>>,
    /// Method for unlabeled pairs.
    #[arg(long, value_enum, default_value_t = Method::Auto)]
    pub method: Method,
    /// Use only the first N graphs.
    #[arg(long)]
    pub first: Option<usize>,
    /// Write the Gram matrix (float64, N x N) to this .npy file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where to compute: auto (a CUDA GPU when one can be used, else the CPU; the exponential and p-step kinds run on the CPU under auto: the CPU is faster on small graphs), cpu, cuda or cuda:N.
    /// The GPU computes the plain and the labeled kernel, directed graphs included.
    #[arg(long, default_value = "auto")]
    pub backend: Backend,
    /// Arithmetic precision of the GPU's solves, f32 or f64 (default f64; the CPU computes in f64;
    /// the exponential and p-step kinds compute in f64 everywhere).
    #[arg(long)]
    pub precision: Option<Precision>,
}

/// A λ too large for a pair, told for the whole data set: the largest λ
/// that every pair of it takes, `1 / max ρ(W)²` (the upper bounds of
/// [`RandomWalkKernel::spectral_radius_bound`]), as a `--lambda` to use.
fn set_lambda_advice<N: kronograph::graph::Label, E: kronograph::graph::Label>(
    e: kronograph::Error,
    graphs: &[kronograph::graph::Graph<N, E>],
) -> kronograph::Error {
    let kronograph::Error::Mgk(kronograph::mgk::MgkError::LambdaTooLarge { lambda, pair, detail }) = e else {
        return e;
    };
    let rho = graphs.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
    let limit = 1.0 / (rho * rho);
    // the pair's own figure, without its per-pair advice
    let cut = ["; use λ", "; λ <", "; no λ"].iter().filter_map(|m| detail.find(m)).min().unwrap_or(detail.len());
    let detail = &detail[..cut];
    let advice = if limit.is_finite() && limit > 0.0 {
        format!(
            "use --lambda below {limit:.6e}, the largest λ for the whole data set (1 / ρ(W)² for its largest \
             spectral radius bound, {rho:.6e})"
        )
    } else {
        "no λ representable in double precision works for this data set: scale the weights towards 1".into()
    };
    kronograph::mgk::MgkError::InvalidParameter(format!(
        "--lambda {lambda} is too large: the random-walk kernel needs λ ρ(W) ρ(W') < 1 for every pair, and pair \
         ({}, {}) has {detail}; {advice}",
        pair.0, pair.1
    ))
    .into()
}

/// Runs `rw`.
pub fn run(args: Args, quiet: bool) -> kronograph::Result<()> {
    crate::preflight::check_out(args.out.as_deref(), &args.dataset)?;
    let (ds, loaded) = super::gram::load(&args.dataset, args.weight.as_deref(), args.first)?;
    if args.labeled && ds.node_schema.is_empty() {
        return Err(kronograph::mgk::MgkError::InvalidParameter(format!(
            "rw --labeled: {} has no node labels to match; drop --labeled (or give a data set with node labels)",
            args.dataset.display()
        ))
        .into());
    }
    crate::preflight::check_gram_memory("rw", &ds.graphs, loaded, crate::preflight::RW_BYTES_PER_PAIR)?;
    let n = ds.graphs.len();
    let pairs = n * (n + 1) / 2;
    let bar = Bar::new(pairs as u64, quiet, "pairs");
    let series = match (args.kind, args.steps, args.step_weights.clone()) {
        (Kind::Geometric, None, None) => None,
        (Kind::Exponential, None, None) => Some(WalkSeriesKernel::exponential(args.lambda)?),
        (Kind::PStep, Some(p), w) => {
            let w = w.unwrap_or_else(|| vec![1.0; p + 1]);
            if w.len() != p + 1 {
                return Err(invalid(format!(
                    "--step-weights has {} values; --steps {p} needs {} (c_0..c_{p})",
                    w.len(),
                    p + 1
                )));
            }
            Some(WalkSeriesKernel::p_step(args.lambda, w)?)
        }
        (Kind::PStep, None, _) => return Err(invalid("--kind p-step needs --steps P, the longest walk".into())),
        (kind, _, _) => {
            return Err(invalid(format!("--steps and --step-weights belong to --kind p-step, not {kind:?}")));
        }
    };
    if let Some(k) = series {
        if args.precision == Some(Precision::F32) {
            return Err(invalid(
                "--precision f32 belongs to --kind geometric (the series kinds compute in f64)".into(),
            ));
        }
        let k = k.with_progress(bar.callback());
        let backend = k.resolved_backend(args.backend, &ds.graphs, None, args.labeled)?;
        let t = Instant::now();
        let g = if args.labeled { k.gram_labeled_on(backend, &ds.graphs) } else { k.gram_on(backend, &ds.graphs) }?;
        let secs = t.elapsed().as_secs_f64();
        bar.finish();
        return finish(&args, quiet, &ds, &backend.to_string(), secs, &g);
    }
    let method = match args.method {
        Method::Auto => RwMethod::Auto,
        Method::Solver => RwMethod::Solver,
    };
    let mut k = RandomWalkKernel::new(args.lambda)?.with_method(method).with_progress(bar.callback());
    if let Some(p) = args.precision {
        k = k.with_precision(p);
    }
    let backend = k.resolved_backend(args.backend, &ds.graphs)?;
    if let Some(cb) = bar.solver_callback() {
        k = k.with_solver_progress(cb);
    }
    let t = Instant::now();
    let g = if args.labeled { k.gram_labeled_on(backend, &ds.graphs) } else { k.gram_on(backend, &ds.graphs) };
    let g = g.map_err(|e| set_lambda_advice(e, &ds.graphs))?;
    let secs = t.elapsed().as_secs_f64();
    bar.finish();
    finish(&args, quiet, &ds, &backend.to_string(), secs, &g)
}

fn invalid(msg: String) -> kronograph::Error {
    kronograph::mgk::MgkError::InvalidParameter(msg).into()
}

/// The summary line and the output (`--out` or the first rows).
fn finish(
    args: &Args,
    quiet: bool,
    ds: &kronograph::graph::Dataset,
    backend: &str,
    secs: f64,
    g: &kronograph::mgk::Matrix,
) -> kronograph::Result<()> {
    let n = ds.graphs.len();
    let pairs = n * (n + 1) / 2;
    if !quiet {
        eprintln!(
            "rw{}{} on {backend}: {} graphs, weights: {}, {pairs} pairs in {secs:.3} s ({:.0} pairs/s)",
            if args.kind == Kind::Geometric { String::new() } else { format!(" ({:?})", args.kind).to_lowercase() },
            if args.labeled { " (labeled)" } else { "" },
            n,
            super::gram::weights_name(args.weight.as_deref(), ds),
            pairs as f64 / secs.max(1e-12)
        );
    }
    match &args.out {
        Some(path) => io::npy::write_matrix(path, n, n, g.as_slice())?,
        None => {
            let show = n.min(6);
            for a in 0..show {
                let row: Vec<String> = (0..show).map(|b| format!("{:.6e}", g.get(a, b))).collect();
                crate::outln!("{}{}", row.join(" "), if n > show { " ..." } else { "" });
            }
        }
    }
    Ok(())
}
