//! Benchmark of the geometric random-walk kernel on a backend, beside the
//! marginalized graph kernel through the same API (`gram_on`: each call
//! reorders, packs and uploads the graphs, as a user's call does).
//!
//! ```text
//! bench_rw [--data DIR] [--backend cpu|cuda] [--precision f32|f64] [--repeats 5]
//!          [--sets NWS96L,BA96L] [--first N] [--rw-method auto|series|solver] [--lambda-frac 0.5]
//!          [--no-mgk] [--labeled] [--directed]
//! ```
//!
//! `--no-mgk` leaves the marginalized graph kernel's rows out (slow on a CPU).
//! `--labeled` times the node-labeled kernel (`gram_labeled_on`);
//! `--directed` turns every graph into a directed one first (each stored
//! arc `i → j` kept, its weight halved where `i > j`, so that `W` is not
//! symmetric), which the GPU solves by its fixed-point kernel.
//!
//! λ = `lambda-frac` / max_G ρ̂(W_G)² over the set (weights 1), so that every
//! pair's system is positive definite. Per set it prints pairs, λ, the
//! first call's seconds (JIT included on a GPU), the median of `--repeats`
//! further calls and pairs/s of the random-walk Gram matrix, then the same
//! for the marginalized graph kernel (q = 0.05; κv = `delta(label, 0.5)`,
//! κe = `delta(label, 0.5) * sqexp(attr1, 0.1)`, weights from `attr0` on the
//! labeled sets, as `bench_gpu`; `constant(1)` where a field is missing), and
//! on a GPU the largest relative difference of the random-walk values from
//! the CPU's (on the first 24 graphs).

use kronograph::backend::{Backend, Precision};
use kronograph::basekernel::spec::SpecKernel;
use kronograph::graph::{io, Direction, Graph, GraphBuilder, Label};
use kronograph::mgk::MarginalizedGraphKernel;
use kronograph::rw::{RandomWalkKernel, RwMethod};
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    data: String,
    backend: Backend,
    precision: Precision,
    repeats: usize,
    sets: Vec<String>,
    first: Option<usize>,
    method: RwMethod,
    frac: f64,
    mgk: bool,
    labeled: bool,
    directed: bool,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        data: "data".into(),
        backend: Backend::Cuda(0),
        precision: Precision::F32,
        repeats: 5,
        sets: vec!["NWS96L".into(), "BA96L".into()],
        first: None,
        method: RwMethod::Auto,
        frac: 0.5,
        mgk: true,
        labeled: false,
        directed: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().ok_or(format!("{k} needs a value"));
        match k.as_str() {
            "--data" => a.data = v()?,
            "--backend" => a.backend = v()?.parse()?,
            "--precision" => a.precision = v()?.parse()?,
            "--repeats" => a.repeats = v()?.parse().map_err(|e| format!("--repeats: {e}"))?,
            "--sets" => a.sets = v()?.split(',').map(str::to_string).collect(),
            "--first" => a.first = Some(v()?.parse().map_err(|e| format!("--first: {e}"))?),
            "--rw-method" => {
                a.method = match v()?.as_str() {
                    "auto" => RwMethod::Auto,
                    "series" => RwMethod::Series,
                    "solver" => RwMethod::Solver,
                    m => return Err(format!("--rw-method {m}: expected auto, series or solver")),
                }
            }
            "--no-mgk" => a.mgk = false,
            "--labeled" => a.labeled = true,
            "--directed" => a.directed = true,
            "--lambda-frac" => a.frac = v()?.parse().map_err(|e| format!("--lambda-frac: {e}"))?,
            _ => return Err(format!("unknown argument {k}")),
        }
    }
    if !(a.frac > 0.0 && a.frac < 1.0) || a.repeats == 0 {
        return Err("--lambda-frac must lie in (0, 1) and --repeats be >= 1".into());
    }
    Ok(a)
}

/// First-call seconds and the median of `repeats` further calls.
fn time<T>(repeats: usize, mut f: impl FnMut() -> kronograph::Result<T>) -> Result<(f64, f64, T), String> {
    let t = Instant::now();
    let mut out = f().map_err(|e| e.to_string())?;
    let first = t.elapsed().as_secs_f64();
    let mut ts = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let t = Instant::now();
        out = f().map_err(|e| e.to_string())?;
        ts.push(t.elapsed().as_secs_f64());
    }
    ts.sort_by(f64::total_cmp);
    Ok((first, ts[ts.len() / 2], out))
}

fn run(a: &Args) -> Result<(), String> {
    println!("backend {}, precision {:?}, {} timed calls after the first", a.backend, a.precision, a.repeats);
    println!("set      graphs    pairs   lambda   kernel  first(s)  median(s)     pairs/s  max rel vs CPU");
    for set in &a.sets {
        let path = [format!("{}/{set}", a.data), format!("{}/synthetic/{set}", a.data)]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .ok_or(format!("data set {set} not found under {}", a.data))?;
        let mut ds = io::load(&path).map_err(|e| e.to_string())?;
        if let Some(k) = a.first {
            ds.graphs.truncate(k);
        }
        if a.directed {
            ds.graphs = ds.graphs.iter().map(directed).collect::<Result<_, _>>()?;
        }
        let n = ds.graphs.len();
        let pairs = n * (n + 1) / 2;
        let rho = ds.graphs.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
        let lambda = a.frac / (rho * rho);
        let rw =
            RandomWalkKernel::new(lambda).map_err(|e| e.to_string())?.with_method(a.method).with_precision(a.precision);
        let (first, median, k) = time(a.repeats, || {
            if a.labeled {
                rw.gram_labeled_on(a.backend, &ds.graphs)
            } else {
                rw.gram_on(a.backend, &ds.graphs)
            }
        })?;
        let check = if a.backend == Backend::Cpu {
            "-".to_string()
        } else {
            let m = n.min(24);
            let cpu_k = RandomWalkKernel::new(lambda).map_err(|e| e.to_string())?;
            let cpu = if a.labeled { cpu_k.gram_labeled(&ds.graphs[..m]) } else { cpu_k.gram(&ds.graphs[..m]) }
                .map_err(|e| e.to_string())?;
            let mut worst = 0.0f64;
            for i in 0..m {
                for j in 0..m {
                    worst = worst.max((k.get(i, j) - cpu.get(i, j)).abs() / cpu.get(i, j).abs());
                }
            }
            format!("{worst:.1e}")
        };
        let name = match (a.labeled, a.directed) {
            (false, false) => "rw   ",
            (true, false) => "rw-l ",
            (false, true) => "rw-d ",
            (true, true) => "rw-ld",
        };
        println!(
            "{set:<8} {n:>6} {pairs:>8} {lambda:>8.2e}   {name}  {first:>8.4} {median:>10.4} {:>11.0}  {check}",
            pairs as f64 / median
        );
        if !a.mgk {
            continue;
        }
        // the marginalized graph kernel through the same API
        let labeled = ds.node_schema.kind("label").is_some();
        if labeled && ds.edge_schema.kind("attr0").is_some() {
            ds = ds.with_weights_from("attr0").map_err(|e| e.to_string())?;
        }
        let spec = |schema: &kronograph::graph::Schema, edge: bool| {
            let delta = schema.kind("label").is_some();
            let sq = edge && schema.kind("attr1").is_some();
            match (delta, sq) {
                (true, true) => "delta(label, 0.5) * sqexp(attr1, 0.1)",
                (true, false) => "delta(label, 0.5)",
                _ => "constant(1)",
            }
        };
        let kv = SpecKernel::parse_for(spec(&ds.node_schema, false), &ds.node_schema).map_err(|e| e.to_string())?;
        let ke = SpecKernel::parse_for(spec(&ds.edge_schema, true), &ds.edge_schema).map_err(|e| e.to_string())?;
        let mgk = MarginalizedGraphKernel::new(kv, ke, 0.05).map_err(|e| e.to_string())?.with_precision(a.precision);
        let (first, median, _) = time(a.repeats, || mgk.gram_on(a.backend, &ds.graphs))?;
        println!(
            "{set:<8} {n:>6} {pairs:>8} {:>8}   mgk    {first:>8.4} {median:>10.4} {:>11.0}  -",
            "-",
            pairs as f64 / median
        );
    }
    Ok(())
}

/// `g` as a directed graph: every stored arc `i → j` of `g`, its weight
/// halved where `i > j` (so that `W` is not symmetric).
fn directed<N: Label, E: Label>(g: &Graph<N, E>) -> Result<Graph<N, E>, String> {
    let mut b = GraphBuilder::new(g.num_nodes(), Direction::Directed).node_labels(g.node_labels().to_vec());
    for i in 0..g.num_nodes() {
        for k in g.row_range(i) {
            let j = g.indices()[k];
            let w = if i > j { 0.5 } else { 1.0 } * g.weights()[k];
            b.push_arc(i, j, w, g.edge_labels()[k].clone());
        }
    }
    // directed: no symmetry to check
    b.build_with(|_, _| true).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let r = args().and_then(|a| run(&a));
    #[cfg(feature = "cuda")]
    kronograph::cuda::jit::wait_background();
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_rw: {e}");
            ExitCode::FAILURE
        }
    }
}
