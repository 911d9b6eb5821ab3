//! GPU GraphBLAS benchmark, with kronograph's CPU backend measured in the
//! same run on the same graphs:
//! `cargo run --release --features bench --bin bench_graphblas -- [--scales 18,20,22] [--snap DIR] [--sources 16] [--write DIR]
//! [--delta-factors 1,4,16] [--repeats 3] [--calibrate] [--no-strategies] [--auto-only] [--no-cpu-triangles]
//! [--no-sssp] [--wide]`
//! (`--delta-factors`: the GPU delta-stepping's Δ as multiples of the
//! automatic one; `--repeats`: rounds of the strategy sweep and repeats of
//! the GPU triangle counts; `--calibrate`: per-level times of each merge
//! strategy against the cost model; `--no-strategies`: skip the SpMSpV
//! sweep; `--auto-only`: the sweep runs `Auto` only; `--no-cpu-triangles`:
//! skip the CPU's count, the GPU forms then checked against each other;
//! `--no-sssp`: skip SSSP; `--wide`: also the fused BFS and delta-stepping
//! SSSP on a copy with 64-bit device indices, `fused-do-u64` and `sssp gpu
//! delta-stepping u64` lines)
//!
//! For each graph (R-MAT at each scale, Graph500 parameters, from
//! `graph::generate::rmat` with seed 1; then every `.mtx` in `--snap`):
//! - BFS from `--sources` random sources of non-zero degree (seed 1): GTEPS
//!   = (edges of the traversed component, i.e. arcs / 2) / time, harmonic
//!   mean over the sources; on the GPU the time is the level loop's
//!   (device synchronized before and after; upload and download excluded),
//!   first the fused BFS (`GpuBfs`, one workspace per graph), then the
//!   SpMSpV BFS for each merge strategy of the push levels and `Auto`, with
//!   Beamer's direction switch (`do`) and push only (`push`): `--repeats`
//!   interleaved rounds, the median round reported, and `Auto` against the
//!   best strategy; on the CPU `bfs_matrix` (all rayon threads). The GPU's
//!   levels are checked against the CPU's.
//! - SSSP from the first source, unit weights (`sssp`) and integer weights
//!   in [1, 100) (`sssp-w`, splitmix64 of the arc's position): GPU Bellman–Ford `bellman_ford_in` (the one source, on the device matrix) and
//!   near-far delta-stepping `GpuSssp` (median of 3; `GpuSssp`'s time is its
//!   loop), CPU delta-stepping; distances checked.
//! - Triangles: GPU masked product on the degree-ordered `L` in each form
//!   (dot `L·Lᵀ`, hash `L·L`, `Auto`; median of `--repeats`, `L` built and
//!   uploaded beforehand) with both forms' operation counts, CPU
//!   `triangle_count_matrix`.
//!
//! With `--write DIR` it also writes, per graph, `NAME.bin` (the upper
//! triangle's `(i, j)` pairs as little-endian u32, after a u32 `n`),
//! `NAME.sources` (the sources and their component edges), for
//! `scripts/graphblas_gpu_peer.py` (SuiteSparse:GraphBLAS on the same graphs).
//! Exits non-zero on a mismatch or without a GPU.

use kronograph::algorithms::gpu::{bfs_device, triangles_lower_with, GpuBfs, GpuBfsOptions, GpuSssp};
use kronograph::algorithms::{
    bellman_ford_in, bfs_matrix, lower_by_degree, sssp, sssp_matrix, triangle_count_matrix, BfsDirection, BfsOptions,
    BfsResult, SsspOptions,
};
use kronograph::cuda::{device_count, GpuDevice};
use kronograph::graph::generate::{rmat, RmatParams};
use kronograph::graph::io::mtx;
use kronograph::graph::Graph;
use kronograph::matrix::gpu::{
    mxm_masked_costs, DeviceMatrix, DeviceMatrixMask, GpuMergeStrategy, GpuMxmStrategy, IndexWidth,
};
use kronograph::matrix::{Descriptor, MatrixMask, SparseMatrix, SpmspvOptions};
use kronograph::semirings::PlusPair;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// A named graph and how to make it.
type GraphMaker = (String, Box<dyn Fn() -> Graph<(), ()>>);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn harmonic(teps: &[f64]) -> f64 {
    teps.len() as f64 / teps.iter().map(|t| 1.0 / t).sum::<f64>()
}

/// SplitMix64 of `k` (the bench's arc weights).
fn splitmix(k: u64) -> u64 {
    let mut z = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Near-far delta-stepping on the GPU (Δ = `factor` × the automatic one,
/// median of 3 after a warm-up): prints its line and whether the distances
/// equal `want`.
fn sssp_gpu_delta(head: &str, what: &str, d: &DeviceMatrix<f64>, source: usize, want: &[f64], factor: f64) -> bool {
    let auto = GpuSssp::new(d, None).unwrap().delta();
    let mut ds = GpuSssp::new(d, Some(auto * factor)).unwrap();
    let _ = ds.run(source).unwrap();
    let mut ts = Vec::new();
    let mut good = true;
    let mut rounds = 0;
    for _ in 0..3 {
        let (r, secs) = ds.run(source).unwrap();
        good &= r.distances == want;
        rounds = r.rounds;
        ts.push(secs);
    }
    let tag = if what == "unit" { "sssp".to_string() } else { format!("sssp-{what}") };
    println!(
        "{head} | {tag} gpu delta-stepping{} | {:.3} ms | {} (Δ {}, {rounds} rounds)",
        if factor == 1.0 { String::new() } else { format!(" x{factor}") },
        median(ts) * 1e3,
        if good { "ok" } else { "DIFFER" },
        ds.delta()
    );
    good
}

const STRATEGIES: [GpuMergeStrategy; 4] =
    [GpuMergeStrategy::Scatter, GpuMergeStrategy::MergeSort, GpuMergeStrategy::RadixSort, GpuMergeStrategy::Auto];

/// The SpMSpV BFS (`bfs_device`) with each merge strategy and `Auto`, `do`
/// and `push`: `repeats` rounds, each running every strategy in turn over
/// all sources (so that drift hits all alike); prints each strategy's median
/// over the rounds of the harmonic-mean GTEPS and Auto against the best.
/// With `calibrate`, also each push level's median time per forced
/// strategy next to the cost model's choice (`# cal` lines). Returns
/// whether every run's levels equal the CPU's.
fn strategy_sweep(
    head: &str,
    da: &DeviceMatrix<f64>,
    sources: &[usize],
    cpu: &[BfsResult],
    repeats: usize,
    calibrate: bool,
    auto_only: bool,
) -> bool {
    let n = da.nrows();
    let mut ok = true;
    let strategies: &[GpuMergeStrategy] = if auto_only { &STRATEGIES[3..] } else { &STRATEGIES };
    for (dname, direction) in [("do", BfsDirection::Auto { alpha: 14.0, beta: 24.0 }), ("push", BfsDirection::Push)] {
        for &st in strategies {
            // warm-up (JIT, allocator)
            let _ = bfs_device(da, sources[0], &GpuBfsOptions { direction }, st).unwrap();
        }
        let mut gteps = vec![Vec::new(); strategies.len()];
        // per strategy, source and level: the level's seconds over the rounds
        let mut levels: Vec<Vec<Vec<Vec<f64>>>> = vec![vec![Vec::new(); sources.len()]; 3];
        let mut frontier: Vec<Vec<(usize, usize)>> = vec![Vec::new(); sources.len()];
        let mut pushes: Vec<Vec<bool>> = vec![Vec::new(); sources.len()];
        for _ in 0..repeats.max(1) {
            for (si, &st) in strategies.iter().enumerate() {
                let opts = GpuBfsOptions { direction };
                let mut teps = Vec::new();
                for (i, &s) in sources.iter().enumerate() {
                    let (r, run) = bfs_device(da, s, &opts, st).unwrap();
                    ok &= r.levels == cpu[i].levels;
                    teps.push((r.arcs_in_component / 2) as f64 / run.seconds);
                    if !auto_only && si < 3 {
                        let per = &mut levels[si][i];
                        per.resize(run.level_seconds.len(), Vec::new());
                        for (l, &t) in run.level_seconds.iter().enumerate() {
                            per[l].push(t);
                        }
                        frontier[i] = run.frontier.clone();
                        pushes[i] = run.levels.iter().map(Option::is_some).collect();
                    }
                }
                gteps[si].push(harmonic(&teps) / 1e9);
            }
        }
        let med: Vec<f64> = gteps.iter().map(|g| median(g.clone())).collect();
        for (si, st) in strategies.iter().enumerate() {
            let all: Vec<String> = gteps[si].iter().map(|g| format!("{g:.2}")).collect();
            println!(
                "{head} | bfs gpu {dname}-{st:?} | {:.3} GTEPS | median of {} rounds ({}); {}",
                med[si],
                gteps[si].len(),
                all.join(" "),
                if ok { "levels ok" } else { "LEVELS DIFFER" }
            );
        }
        if auto_only {
            continue;
        }
        let best = med[..3].iter().copied().fold(0.0, f64::max);
        println!(
            "{head} | bfs gpu {dname}-Auto/best | {:.1} % | {}",
            100.0 * med[3] / best,
            if med[3] >= 0.9 * best { "within 10 %" } else { "MORE THAN 10 % BELOW" }
        );
        if calibrate {
            let (mut chosen, mut ideal) = (0.0, 0.0);
            for (i, fr) in frontier.iter().enumerate() {
                for (l, &(f, terms)) in fr.iter().enumerate() {
                    if !pushes[i].get(l).copied().unwrap_or(false) {
                        continue;
                    }
                    let t: Vec<f64> =
                        (0..3).map(|s| levels[s][i].get(l).map_or(f64::NAN, |v| median(v.clone()))).collect();
                    let pick = GpuMergeStrategy::choose(terms, n);
                    let pi = STRATEGIES.iter().position(|&s| s == pick).unwrap_or(0);
                    chosen += t[pi];
                    ideal += t.iter().copied().fold(f64::INFINITY, f64::min);
                    let c = GpuMergeStrategy::costs(terms, n);
                    println!(
                        "# cal {head} {dname} src {i} level {l} f {f} terms {terms} n {n} | us scatter {:.1} merge {:.1} radix {:.1} | model {:.1} {:.1} {:.1} -> {pick:?}",
                        t[0] * 1e6, t[1] * 1e6, t[2] * 1e6, c[0], c[1], c[2]
                    );
                }
            }
            println!(
                "# cal {head} {dname}: push levels under the model's choice {:.3} ms, best per level {:.3} ms",
                chosen * 1e3,
                ideal * 1e3
            );
        }
    }
    ok
}

/// Triangles on the GPU by each form of the masked product and `Auto`
/// (median of `repeats` after a warm-up each), checked against the CPU's
/// count `tc` (or, without it, against each other). Returns the count and
/// whether all agree.
fn triangles_gpu(
    head: &str,
    dev: &GpuDevice,
    dl: &DeviceMatrix<bool>,
    mask: &DeviceMatrixMask,
    tc: Option<u64>,
    repeats: usize,
) -> (u64, bool) {
    let s = PlusPair::<bool, bool, u64>::new();
    let d = mxm_masked_costs(mask, s, dl, dl, &Descriptor::DEFAULT.transpose_second()).unwrap()[0];
    let h = mxm_masked_costs(mask, s, dl, dl, &Descriptor::DEFAULT).unwrap()[1];
    println!("# {head} triangles: dot merge steps {d}, hash probes {h}, Auto picks {:?}", GpuMxmStrategy::choose(d, h));
    let mut want = tc;
    let mut good = true;
    for st in [GpuMxmStrategy::Dot, GpuMxmStrategy::Hash, GpuMxmStrategy::Auto] {
        let _ = triangles_lower_with(dl, mask, st).unwrap();
        let mut ts = Vec::new();
        let mut ran = st;
        for _ in 0..repeats.max(1) {
            dev.synchronize().unwrap();
            let t = Instant::now();
            let (c, r) = triangles_lower_with(dl, mask, st).unwrap();
            ts.push(t.elapsed().as_secs_f64());
            ran = r;
            good &= *want.get_or_insert(c) == c;
        }
        println!(
            "{head} | triangles gpu {st:?} ({ran:?}) | {:.3} ms | {}",
            median(ts) * 1e3,
            if good { "ok" } else { "DIFFER" }
        );
    }
    (want.unwrap_or(0), good)
}

/// The fused direction-optimizing BFS on a copy of `a` with 64-bit device
/// indices (the same kernel source's 64-bit instantiation): prints its line
/// and returns whether its levels equal the CPU's.
fn fused_wide(head: &str, dev: &GpuDevice, a: &SparseMatrix<f64>, sources: &[usize], cpu: &[BfsResult]) -> bool {
    let dw = DeviceMatrix::upload_with_width(dev, a, IndexWidth::U64).unwrap();
    let mut fused = GpuBfs::new(&dw).unwrap();
    let direction = BfsDirection::Auto { alpha: 14.0, beta: 24.0 };
    let _ = fused.run(sources[0], direction).unwrap(); // warm-up (JIT)
    let (mut teps, mut good) = (Vec::new(), true);
    for (i, &s) in sources.iter().enumerate() {
        let (r, secs) = fused.run(s, direction).unwrap();
        good &= r.levels == cpu[i].levels;
        teps.push((r.arcs_in_component / 2) as f64 / secs);
    }
    println!(
        "{head} | bfs gpu fused-do-u64 | {:.3} GTEPS | {}",
        harmonic(&teps) / 1e9,
        if good { "levels ok" } else { "LEVELS DIFFER" }
    );
    good
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let scales: Vec<u32> = arg(&args, "--scales")
        .unwrap_or_else(|| "18,20,22".into())
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("--scales: comma-separated integers"))
        .collect();
    let nsources: usize = arg(&args, "--sources").map_or(16, |s| s.parse().expect("--sources: an integer"));
    let write = arg(&args, "--write");
    let factors: Vec<f64> = arg(&args, "--delta-factors")
        .unwrap_or_else(|| "1".into())
        .split(',')
        .map(|s| s.parse().expect("--delta-factors: comma-separated numbers"))
        .collect();
    let repeats: usize = arg(&args, "--repeats").map_or(3, |s| s.parse().expect("--repeats: an integer"));
    let flag = |f: &str| args.iter().any(|a| a == f);
    let (calibrate, no_strategies, no_cpu_triangles, no_sssp) =
        (flag("--calibrate"), flag("--no-strategies"), flag("--no-cpu-triangles"), flag("--no-sssp"));
    let (auto_only, wide) = (flag("--auto-only"), flag("--wide"));
    if device_count().map_or(true, |n| n == 0) {
        eprintln!("bench_graphblas: no CUDA device");
        return ExitCode::FAILURE;
    }
    let dev = GpuDevice::open(0).expect("opening CUDA device 0");
    println!(
        "# device: {} ({} SMs); CPU: {} rayon threads",
        dev.info().name,
        dev.info().multiprocessors,
        rayon::current_num_threads()
    );
    let mut graphs: Vec<GraphMaker> = Vec::new();
    for s in scales {
        graphs.push((
            format!("rmat{s}"),
            Box::new(move || rmat(&RmatParams::graph500(s), &mut rand_chacha::ChaCha8Rng::seed_from_u64(1)).unwrap()),
        ));
    }
    if let Some(dir) = arg(&args, "--snap") {
        let mut files: Vec<_> =
            std::fs::read_dir(&dir).expect("--snap: a folder").flatten().map(|e| e.path()).collect();
        files.sort();
        for p in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "mtx")) {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            graphs.push((name, Box::new(move || mtx::read(&p).unwrap())));
        }
    }
    let mut ok = true;
    println!("graph n edges | op backend variant | value unit | check");
    for (name, make) in graphs {
        let t = Instant::now();
        let g = make();
        let a = SparseMatrix::from_graph(&g);
        let n = a.nrows();
        println!("# {name}: n {n}, arcs {}, built in {:.1} s", a.nnz(), t.elapsed().as_secs_f64());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut sources = Vec::new();
        while sources.len() < nsources {
            let v = rng.random_range(0..n);
            if !a.row(v).0.is_empty() {
                sources.push(v);
            }
        }
        let head = format!("{name} {n} {}", a.nnz() / 2);
        // CPU BFS
        let mut cpu = Vec::new();
        let mut teps = Vec::new();
        for &s in &sources {
            let t = Instant::now();
            let r = bfs_matrix(&a, s, &BfsOptions::default()).unwrap();
            teps.push((r.arcs_in_component / 2) as f64 / t.elapsed().as_secs_f64());
            cpu.push(r);
        }
        println!("{head} | bfs cpu do | {:.3} GTEPS | -", harmonic(&teps) / 1e9);
        // GPU BFS
        let da = DeviceMatrix::upload(&dev, &a).unwrap();
        let mut fused = GpuBfs::new(&da).unwrap();
        for (dname, direction) in [("do", BfsDirection::Auto { alpha: 14.0, beta: 24.0 }), ("push", BfsDirection::Push)]
        {
            let _ = fused.run(sources[0], direction).unwrap(); // warm-up (JIT)
            let mut teps = Vec::new();
            let mut good = true;
            for (i, &s) in sources.iter().enumerate() {
                let (r, secs) = fused.run(s, direction).unwrap();
                good &= r.levels == cpu[i].levels;
                teps.push((r.arcs_in_component / 2) as f64 / secs);
                if i == 0 {
                    let dirs: String = r.pulled.iter().map(|&p| if p { 'v' } else { '^' }).collect();
                    println!("# fused-{dname} source {s}: {:.3} ms, levels (^ push, v pull) {dirs}", secs * 1e3);
                }
            }
            ok &= good;
            println!(
                "{head} | bfs gpu fused-{dname} | {:.3} GTEPS | {}",
                harmonic(&teps) / 1e9,
                if good { "levels ok" } else { "LEVELS DIFFER" }
            );
        }
        drop(fused);
        if wide {
            ok &= fused_wide(&head, &dev, &a, &sources, &cpu);
        }
        if !no_strategies {
            ok &= strategy_sweep(&head, &da, &sources, &cpu, repeats, calibrate, auto_only);
        }
        if !no_sssp {
            // SSSP (unit weights)
            let t = Instant::now();
            let cs = sssp(&g, sources[0]).unwrap();
            let cpu_sssp = t.elapsed().as_secs_f64();
            let _ = bellman_ford_in(&da, sources[0], &SpmspvOptions::default()).unwrap();
            let mut ts = Vec::new();
            let mut good = true;
            for _ in 0..3 {
                dev.synchronize().unwrap();
                let t = Instant::now();
                let r = bellman_ford_in(&da, sources[0], &SpmspvOptions::default()).unwrap();
                ts.push(t.elapsed().as_secs_f64());
                good &= r.distances == cs.distances;
            }
            ok &= good;
            println!("{head} | sssp cpu delta-stepping | {:.3} ms | -", cpu_sssp * 1e3);
            println!(
                "{head} | sssp gpu bellman-ford | {:.3} ms | {}",
                median(ts) * 1e3,
                if good { "ok" } else { "DIFFER" }
            );
            for &f in &factors {
                ok &= sssp_gpu_delta(&head, "unit", &da, sources[0], &cs.distances, f);
            }
            if wide {
                // unit weights, 64-bit device indices (`sssp-u64`)
                let dw = DeviceMatrix::upload_with_width(&dev, &a, IndexWidth::U64).unwrap();
                ok &= sssp_gpu_delta(&head, "u64", &dw, sources[0], &cs.distances, 1.0);
            }
            // integer weights in [1, 100): sums exact, so every method gives the same distances
            let counter = std::sync::atomic::AtomicU64::new(0);
            let aw = a.map(|_| {
                let k = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                (1 + splitmix(k) % 99) as f64
            });
            let t = Instant::now();
            let cw = sssp_matrix(&aw, sources[0], &SsspOptions::default()).unwrap();
            println!("{head} | sssp-w cpu delta-stepping | {:.3} ms | -", t.elapsed().as_secs_f64() * 1e3);
            let daw = DeviceMatrix::upload(&dev, &aw).unwrap();
            let _ = bellman_ford_in(&daw, sources[0], &SpmspvOptions::default()).unwrap();
            let mut ts = Vec::new();
            let mut good = true;
            for _ in 0..3 {
                dev.synchronize().unwrap();
                let t = Instant::now();
                good &= bellman_ford_in(&daw, sources[0], &SpmspvOptions::default()).unwrap().distances == cw.distances;
                ts.push(t.elapsed().as_secs_f64());
            }
            ok &= good;
            println!(
                "{head} | sssp-w gpu bellman-ford | {:.3} ms | {}",
                median(ts) * 1e3,
                if good { "ok" } else { "DIFFER" }
            );
            for &f in &factors {
                ok &= sssp_gpu_delta(&head, "w", &daw, sources[0], &cw.distances, f);
            }
        }
        drop(da);
        // triangles
        let tc = if no_cpu_triangles {
            None
        } else {
            let t = Instant::now();
            let tc = triangle_count_matrix(&a).unwrap();
            println!("{head} | triangles cpu dot | {:.3} ms | {tc}", t.elapsed().as_secs_f64() * 1e3);
            Some(tc)
        };
        let l = lower_by_degree(&a);
        let dl = DeviceMatrix::upload(&dev, &l).unwrap();
        let mask = DeviceMatrixMask::upload(&dev, &MatrixMask::structural(&l)).unwrap();
        let (tc, good) = triangles_gpu(&head, &dev, &dl, &mask, tc, repeats);
        ok &= good;
        drop((dl, mask));
        if let Some(dir) = &write {
            let mut buf = Vec::with_capacity(4 + 4 * a.nnz());
            buf.extend_from_slice(&(n as u32).to_le_bytes());
            for i in 0..n {
                for &j in a.row(i).0.iter().filter(|&&j| j > i) {
                    buf.extend_from_slice(&(i as u32).to_le_bytes());
                    buf.extend_from_slice(&(j as u32).to_le_bytes());
                }
            }
            std::fs::write(format!("{dir}/{name}.bin"), buf).unwrap();
            let mut f = std::fs::File::create(format!("{dir}/{name}.sources")).unwrap();
            for (s, r) in sources.iter().zip(&cpu) {
                writeln!(f, "{s} {}", r.arcs_in_component / 2).unwrap();
            }
            writeln!(f, "triangles {tc}").unwrap();
        }
        std::io::stdout().flush().unwrap();
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        eprintln!("bench_graphblas: a GPU result differs from the CPU's");
        ExitCode::FAILURE
    }
}
