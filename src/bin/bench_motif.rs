//! The motif-search table of docs/PERFORMANCE.md: vertex-localized search
//! (per-vertex output, δ = 1e-6) on d = 20 random regular graphs with a
//! planted match, sieving the whole graph (`prune = false`, as the seed's
//! experiments do) and, for comparison, the default pruned search.
//!
//! ```text
//! bench_motif [--backend cpu|cuda|cuda:0,1|cuda:all|auto] [--n-log2 10,12] [--k 10] [--reps 3] [--seed 1] [--no-pruned] [--localized-only]
//! ```
//! (`--localized-only` skips the all-δ-runs columns, printed as NaN/-.)
//! The sieve's knobs ([`MotifTuning`]) come from the environment, read here
//! and passed in `MotifOptions::tuning` (see `--help`).
//! Each row: runs made by `motif::localized` (it stops early when every
//! vertex of a motif colour is hit) and its median wall time over `--reps`
//! calls after one warm-up call; the runs δ = 1e-6 asks for at most and
//! the median time of `localized` making that many runs (`early_stop:
//! false`), the time per
//! run, the
//! multiplications of recurrence (5) as written per second
//! (2^k · arcs · (k(k+1)/2 − 1) per run) and the modelled memory traffic
//! of the level workloads per second (one byte per point for every
//! neighbour line read, own line read and line written).

use kronograph::cuda::Backend;
use kronograph::graph::generate;
use kronograph::motif::{self, CpuPlan, Field, MotifOptions, MotifTuning};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

fn list(s: &str) -> Vec<usize> {
    s.split(',').filter_map(|t| t.trim().parse().ok()).collect()
}

const HELP: &str = "\
bench_motif [--backend cpu|cuda|cuda:0,1|cuda:all|auto] [--n-log2 10,12] [--k 10] [--reps 3] [--seed 1] [--no-pruned] [--localized-only]

Environment (the sieve's knobs, MotifOptions::tuning; results do not change):
  KRONOGRAPH_MOTIF_GROUP=1..8          GPU: levels per pass of the recurrence (default 8)
  KRONOGRAPH_MOTIF_PRODUCTS=masks      GPU: products by alpha as masked ANDs (default: integer products)
  KRONOGRAPH_MOTIF_LINE_WORDS=1|2|4|8  CPU, GF(2^8): words per bit plane of a line (default: by size)
  KRONOGRAPH_MOTIF_PLAN=lines|sweep    CPU: the plan (default: by size)
";

/// The knobs from the environment (an unparsable or unknown value stops the
/// program; values out of range are reported by `MotifTuning::validate`).
fn tuning_from_env() -> MotifTuning {
    let var = |name: &str| std::env::var(name).ok();
    let number = |name: &str| {
        var(name).map(|v| v.parse::<usize>().unwrap_or_else(|_| panic!("{name}={v}: expected a number\n\n{HELP}")))
    };
    let plan = var("KRONOGRAPH_MOTIF_PLAN").map(|v| match v.as_str() {
        "lines" => CpuPlan::LinesInParallel,
        "sweep" => CpuPlan::Sweep,
        _ => panic!("KRONOGRAPH_MOTIF_PLAN={v}: expected lines or sweep\n\n{HELP}"),
    });
    let masks = var("KRONOGRAPH_MOTIF_PRODUCTS").map(|v| match v.as_str() {
        "masks" => true,
        "products" => false,
        _ => panic!("KRONOGRAPH_MOTIF_PRODUCTS={v}: expected masks or products\n\n{HELP}"),
    });
    let tuning = MotifTuning::default()
        .with_group_size(number("KRONOGRAPH_MOTIF_GROUP"))
        .with_mask_products(masks.unwrap_or(false))
        .with_line_words(number("KRONOGRAPH_MOTIF_LINE_WORDS"))
        .with_plan(plan);
    if let Err(e) = tuning.validate() {
        panic!("{e}\n\n{HELP}");
    }
    tuning
}

fn main() {
    let tuning = tuning_from_env();
    let mut backend = Backend::Auto;
    let (mut ns, mut ks, mut reps, mut seed) = (vec![10usize], vec![10usize], 3usize, 1u64);
    let mut prune_too = true;
    let mut all_runs = true;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--help" | "-h" => {
                print!("{HELP}");
                return;
            }
            "--backend" => backend = v.parse().unwrap_or_else(|e| panic!("{e}")),
            "--n-log2" => ns = list(&v),
            "--k" => ks = list(&v),
            "--reps" => reps = v.parse().expect("--reps N"),
            "--seed" => seed = v.parse().expect("--seed S"),
            "--no-pruned" => {
                prune_too = false;
                i += 1;
                continue;
            }
            "--localized-only" => {
                all_runs = false;
                i += 1;
                continue;
            }
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    println!("threads: {}", rayon::current_num_threads());
    println!("backend\tn\tk\tarcs\truns\tmedian_s\truns_delta\tall_runs_s\tall_runs_kernel_s\ts_per_run\tGmul_per_s\tGiB_per_s\tpruned_median_s\thits_ok");
    for &nl in &ns {
        for &k in &ks {
            let n = 1usize << nl;
            let inst = generate::regular_motif(n, 20, 16, k, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
            let arcs = inst.graph.num_entries() as f64;
            let time = |prune: bool| {
                let opts = MotifOptions { backend, prune, seed, tuning, ..Default::default() };
                let mut out = motif::localized(&inst.graph, &inst.colors, &inst.motif, &opts).unwrap();
                let mut t = Vec::new();
                for _ in 0..reps {
                    let t0 = Instant::now();
                    out = motif::localized(&inst.graph, &inst.colors, &inst.motif, &opts).unwrap();
                    t.push(t0.elapsed().as_secs_f64());
                }
                t.sort_by(|a, b| a.total_cmp(b));
                (t[t.len() / 2], out)
            };
            let (med, out) = time(false);
            // every run δ asks for, as when some candidate vertex stays unhit
            let need = motif::runs_needed(Field::Gf256, k, 1e-6);
            let opts = MotifOptions { backend, prune: false, seed, early_stop: false, tuning, ..Default::default() };
            let mut t = Vec::new();
            let mut kt = Vec::new();
            for _ in 0..if all_runs { reps } else { 0 } {
                let t0 = Instant::now();
                let all = motif::localized(&inst.graph, &inst.colors, &inst.motif, &opts).unwrap();
                t.push(t0.elapsed().as_secs_f64());
                kt.extend(all.kernel_seconds);
                assert_eq!(all.runs, need);
            }
            t.sort_by(|a, b| a.total_cmp(b));
            kt.sort_by(|a, b| a.total_cmp(b));
            let full = t.get(t.len() / 2).copied().unwrap_or(f64::NAN);
            // device time of every δ run by CUDA events (the GPU only)
            let kernels = kt.get(kt.len() / 2).map_or("-".to_string(), |s| format!("{s:.4}"));
            let hits: Vec<usize> = (0..n).filter(|&i| out.hits[i]).collect();
            let ok = hits == inst.planted;
            let runs = need as f64;
            let points = (1u64 << k) as f64;
            let kf = k as f64;
            let mults = points * arcs * (kf * (kf + 1.0) / 2.0 - 1.0) * runs;
            // per level s: (s−1) neighbour lines per arc, (s−1) own lines and one written line per vertex
            let lines = (kf * (kf - 1.0) / 2.0) * (arcs + n as f64) + kf * n as f64;
            let bytes = points * lines * runs;
            let pruned = if prune_too { format!("{:.4}", time(true).0) } else { "-".into() };
            let dev = kronograph::backend::backend_of(Some(&out.devices));
            println!(
                "{dev}\t2^{nl}\t{k}\t{arcs}\t{}\t{med:.4}\t{need}\t{full:.4}\t{kernels}\t{:.4}\t{:.1}\t{:.1}\t{pruned}\t{ok}",
                out.runs,
                full / runs,
                mults / full / 1e9,
                bytes / full / (1u64 << 30) as f64
            );
        }
    }
    #[cfg(feature = "cuda")]
    kronograph::cuda::jit::wait_background();
}
