//! Benchmark of the generic pair-system path (`kron::solve_pairs`, one
//! batched launch) against the kernels' own engines, in one process:
//!
//! ```text
//! bench_pairs [--data DIR] [--backend cuda|cpu] [--precision f32|f64] [--repeats 5] [--sets MUTAG,NWS96L]
//!             [--first N] [--lambda-frac 0.5] [--directed]
//! ```
//!
//! Per set, over the upper triangle of the Gram matrix (`n (n + 1) / 2`
//! pairs), each row the first call's seconds (JIT included), the median of
//! `--repeats` further calls, pairs/s, the ratio of the generic path's
//! pairs/s to the engine's and the largest relative difference of its
//! values from the engine's:
//! - `mgk`: `MarginalizedGraphKernel::gram_on` (reorder, pack, upload and the
//!   batched PCG, as `bench_rw`'s mgk row) against `solve_pairs` with
//!   [`MgkPairSystem`] (the same kernels as `bench_gpu`/`bench_rw`: q = 0.05,
//!   κv = `delta(label, 0.5)`, κe = `delta(label, 0.5) * sqexp(attr1, 0.1)`,
//!   weights from `attr0` on labeled sets, `constant(1)` where a field is
//!   missing);
//! - `rw`: `RandomWalkKernel::gram_on` (λ = frac / max ρ̂(W)², as `bench_rw`)
//!   against `solve_pairs` with the MGK system `KronSystem::random_walk(λ)`
//!   on unlabeled kernels, and the MGK engine on that same system (`rw-mgk`).
//!
//! `--directed` makes every graph directed first (as `bench_rw --directed`):
//! the random walk only (the MGK takes undirected graphs).

use kronograph::backend::{Backend, Precision};
use kronograph::basekernel::spec::SpecKernel;
use kronograph::graph::{io, Direction, Graph, GraphBuilder, Label};
use kronograph::kron::{solve_pairs, PairSolve, Unlabeled};
use kronograph::mgk::{KronSystem, MarginalizedGraphKernel, Matrix, MgkPairSystem, RandomWalkKernel};
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    data: String,
    backend: Backend,
    precision: Precision,
    repeats: usize,
    sets: Vec<String>,
    first: Option<usize>,
    frac: f64,
    directed: bool,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        data: "data".into(),
        backend: Backend::Cuda(0),
        precision: Precision::F64,
        repeats: 5,
        sets: vec!["MUTAG".into(), "NWS96L".into(), "BA96L".into()],
        first: None,
        frac: 0.5,
        directed: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().ok_or(format!("{k} needs a value"));
        match k.as_str() {
            "--data" => a.data = v()?,
            "--backend" => a.backend = v()?.parse()?,
            "--precision" => {
                a.precision = match v()?.as_str() {
                    "f32" => Precision::F32,
                    "f64" => Precision::F64,
                    p => return Err(format!("--precision {p}: expected f32 or f64")),
                }
            }
            "--repeats" => a.repeats = v()?.parse().map_err(|e| format!("--repeats: {e}"))?,
            "--sets" => a.sets = v()?.split(',').map(str::to_string).collect(),
            "--first" => a.first = Some(v()?.parse().map_err(|e| format!("--first: {e}"))?),
            "--lambda-frac" => a.frac = v()?.parse().map_err(|e| format!("--lambda-frac: {e}"))?,
            "--directed" => a.directed = true,
            _ => {
                return Err(format!(
                    "unknown argument {k}; usage: bench_pairs [--data DIR] [--backend cuda|cpu] [--precision f32|f64] \
                     [--repeats N] [--sets A,B] [--first N] [--lambda-frac F] [--directed]"
                ))
            }
        }
    }
    Ok(a)
}

/// The first call's seconds, the median of `repeats` further calls, and the last result.
fn time<T>(repeats: usize, mut f: impl FnMut() -> Result<T, String>) -> Result<(f64, f64, T), String> {
    let t = Instant::now();
    let mut out = f()?;
    let first = t.elapsed().as_secs_f64();
    let mut ts = Vec::with_capacity(repeats);
    for _ in 0..repeats.max(1) {
        let t = Instant::now();
        out = f()?;
        ts.push(t.elapsed().as_secs_f64());
    }
    ts.sort_by(f64::total_cmp);
    Ok((first, ts[ts.len() / 2], out))
}

/// The largest relative difference of the values from the Gram matrix's.
fn worst(values: &[f64], pairs: &[(usize, usize)], k: &Matrix) -> f64 {
    values.iter().zip(pairs).map(|(v, &(i, j))| (v - k.get(i, j)).abs() / k.get(i, j).abs()).fold(0.0, f64::max)
}

fn row(set: &str, name: &str, pairs: usize, (first, median): (f64, f64), vs: Option<(f64, f64)>) {
    let rate = pairs as f64 / median;
    let (ratio, diff) =
        vs.map_or(("-".into(), "-".into()), |(base, d)| (format!("{:.2}", rate / base), format!("{d:.1e}")));
    println!("{set:<8} {name:<8} {pairs:>8} {first:>9.4} {median:>10.4} {rate:>11.0} {ratio:>7} {diff:>9}");
}

fn run(a: &Args) -> Result<(), String> {
    println!("backend {}, precision {:?}, {} timed calls after the first", a.backend, a.precision, a.repeats);
    println!("set      path        pairs  first(s)  median(s)     pairs/s  vs eng  max rel");
    let opts = PairSolve {
        backend: a.backend,
        precision: a.precision,
        tol: a.precision.default_tolerance(),
        ..Default::default()
    };
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
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|i| (i..n).map(move |j| (i, j))).collect();
        let np = pairs.len();
        let e = |e: kronograph::kron::PairSystemError| e.to_string();

        // the random walk: its own engine, the MGK engine on its system, the generic path
        let rho = ds.graphs.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
        let lambda = a.frac / (rho * rho);
        let rw = RandomWalkKernel::new(lambda).map_err(|e| e.to_string())?.with_precision(a.precision);
        let (f, m, k_rw) = time(a.repeats, || rw.gram_on(a.backend, &ds.graphs).map_err(|e| e.to_string()))?;
        let base = np as f64 / m;
        row(set, "rw", np, (f, m), None);
        let rw_sys = MarginalizedGraphKernel::new(Unlabeled, Unlabeled, 0.05)
            .and_then(|k| k.with_system(Some(KronSystem::random_walk(lambda))))
            .map_err(|e| e.to_string())?
            .with_precision(a.precision);
        if !a.directed {
            let (f, m, k) = time(a.repeats, || rw_sys.gram_on(a.backend, &ds.graphs).map_err(|e| e.to_string()))?;
            let d = (0..n)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .map(|(i, j)| (k.get(i, j) - k_rw.get(i, j)).abs() / k_rw.get(i, j).abs());
            row(set, "rw-mgk", np, (f, m), Some((base, d.fold(0.0, f64::max))));
        }
        let sys = MgkPairSystem::new(&rw_sys).map_err(|e| e.to_string())?;
        let (f, m, out) = time(a.repeats, || solve_pairs(&sys, &ds.graphs, None, &pairs, &opts).map_err(e))?;
        let values: Vec<f64> = out.iter().map(|r| r.value).collect();
        row(set, "rw-gen", np, (f, m), Some((base, worst(&values, &pairs, &k_rw))));
        if a.directed {
            continue;
        }

        // the marginalized graph kernel: its engine and the generic path
        let labeled = ds.node_schema.kind("label").is_some();
        if labeled && ds.edge_schema.kind("attr0").is_some() {
            ds = ds.with_weights_from("attr0").map_err(|e| e.to_string())?;
        }
        let spec = |schema: &kronograph::graph::Schema, edge: bool| match (
            schema.kind("label").is_some(),
            edge && schema.kind("attr1").is_some(),
        ) {
            (true, true) => "delta(label, 0.5) * sqexp(attr1, 0.1)",
            (true, false) => "delta(label, 0.5)",
            _ => "constant(1)",
        };
        let kv = SpecKernel::parse_for(spec(&ds.node_schema, false), &ds.node_schema).map_err(|e| e.to_string())?;
        let ke = SpecKernel::parse_for(spec(&ds.edge_schema, true), &ds.edge_schema).map_err(|e| e.to_string())?;
        let mgk = MarginalizedGraphKernel::new(kv, ke, 0.05).map_err(|e| e.to_string())?.with_precision(a.precision);
        let (f, m, k) = time(a.repeats, || mgk.gram_on(a.backend, &ds.graphs).map_err(|e| e.to_string()))?;
        let base = np as f64 / m;
        row(set, "mgk", np, (f, m), None);
        let sys = MgkPairSystem::new(&mgk).map_err(|e| e.to_string())?;
        let (f, m, out) = time(a.repeats, || solve_pairs(&sys, &ds.graphs, None, &pairs, &opts).map_err(e))?;
        let values: Vec<f64> = out.iter().map(|r| r.value).collect();
        row(set, "mgk-gen", np, (f, m), Some((base, worst(&values, &pairs, &k))));
    }
    Ok(())
}

/// `g` as a directed graph: every stored arc `i → j`, its weight halved
/// where `i > j` (as `bench_rw --directed`).
fn directed<N: Label, E: Label>(g: &Graph<N, E>) -> Result<Graph<N, E>, String> {
    let mut b = GraphBuilder::new(g.num_nodes(), Direction::Directed).node_labels(g.node_labels().to_vec());
    for i in 0..g.num_nodes() {
        for k in g.row_range(i) {
            let j = g.indices()[k];
            let w = if i > j { 0.5 } else { 1.0 } * g.weights()[k];
            b.push_arc(i, j, w, g.edge_labels()[k].clone());
        }
    }
    b.build_with(|_, _| true).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let r = args().and_then(|a| run(&a));
    #[cfg(feature = "cuda")]
    kronograph::cuda::jit::wait_background();
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_pairs: {e}");
            ExitCode::FAILURE
        }
    }
}
