//! GPU GraphBLAS benchmark, with kronograph's CPU backend measured in the
//! same run on the same graphs:
//! `cargo run --release --features bench --bin bench_graphblas -- [--scales 18,20,22] [--snap DIR] [--sources 16] [--write DIR]
//! [--delta-factors 1,4,16] [--repeats 3] [--no-cpu-triangles] [--no-sssp] [--wide]`
//! (`--delta-factors`: the GPU delta-stepping's Δ as multiples of the
//! automatic one; `--repeats`: repeats of the GPU triangle counts; `--no-cpu-triangles`:
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
//!   the one BFS (`bfs_levels`, one visit state per graph; its level step
//!   runs the fused level kernels on the device), with Beamer's direction
//!   switch (`do`) and push only (`push`); on the CPU `bfs_matrix` (all
//!   rayon threads). The GPU's levels are checked against the CPU's.
//! - SSSP from the first source, unit weights (`sssp`) and integer weights
//!   in [1, 100) (`sssp-w`, splitmix64 of the arc's position): GPU Bellman–Ford `bellman_ford_in` (the one source, on the device matrix) and
//!   the one near-far `DeltaStepping` on the device matrix (median of 3; its
//!   time is the relaxation loop's), CPU delta-stepping; distances checked.
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

use kronograph::algorithms::{
    bellman_ford_in, bfs_levels, bfs_matrix, lower_by_degree, sssp, sssp_matrix, triangle_count_matrix, triangles_in,
    BfsDirection, BfsOptions, BfsResult, DeltaStepping, SsspOptions, TriangleForm,
};
use kronograph::cuda::{device_count, GpuDevice};
use kronograph::graph::generate::{rmat, RmatParams};
use kronograph::graph::io::mtx;
use kronograph::graph::Graph;
use kronograph::matrix::gpu::{DeviceMatrix, DeviceMatrixMask, DeviceVisited, GpuMxmStrategy, IndexWidth};
use kronograph::matrix::{mxm_costs, Descriptor, MatrixMask, SparseMatrix, SpmspvOptions, VisitOp};
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
    let auto = DeltaStepping::new(d, None).unwrap().delta();
    let mut ds = DeltaStepping::new(d, Some(auto * factor)).unwrap();
    let _ = ds.run(d, source).unwrap();
    let mut ts = Vec::new();
    let mut good = true;
    let mut rounds = 0;
    for _ in 0..3 {
        d.device().synchronize().unwrap();
        let t = Instant::now();
        rounds = ds.relax_from(d, source).unwrap();
        ts.push(t.elapsed().as_secs_f64());
        good &= ds.distances().unwrap() == want;
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

/// The one BFS ([`bfs_levels`]) on the device matrix `d` with a visit
/// state made once: the level loop's seconds (device synchronized before;
/// the loop ends on a read of the level counters) and the result.
fn device_bfs(
    dev: &GpuDevice,
    d: &DeviceMatrix<f64>,
    v: &mut DeviceVisited,
    source: usize,
    direction: BfsDirection,
) -> (BfsResult, f64) {
    let opts = BfsOptions { direction, ..BfsOptions::default() };
    dev.synchronize().unwrap();
    let t = Instant::now();
    let levels = bfs_levels(d, v, source, &opts).unwrap();
    let secs = t.elapsed().as_secs_f64();
    (levels.result::<DeviceMatrix<f64>>(v).unwrap(), secs)
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
    let d = mxm_costs(mask, s, dl, dl, &Descriptor::DEFAULT.transpose_second()).unwrap()[0];
    let h = mxm_costs(mask, s, dl, dl, &Descriptor::DEFAULT).unwrap()[1];
    println!("# {head} triangles: dot merge steps {d}, hash probes {h}, Auto picks {:?}", GpuMxmStrategy::choose(d, h));
    let mut want = tc;
    let mut good = true;
    for (st, form) in [
        (GpuMxmStrategy::Dot, TriangleForm::Dot),
        (GpuMxmStrategy::Hash, TriangleForm::RowWise),
        (GpuMxmStrategy::Auto, TriangleForm::Auto),
    ] {
        let _ = triangles_in(dl, mask, form).unwrap();
        let mut ts = Vec::new();
        let ran = match form {
            TriangleForm::Auto => GpuMxmStrategy::choose(d, h),
            _ => st,
        };
        for _ in 0..repeats.max(1) {
            dev.synchronize().unwrap();
            let t = Instant::now();
            let c = triangles_in(dl, mask, form).unwrap();
            ts.push(t.elapsed().as_secs_f64());
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
    let mut v = dw.visited().unwrap();
    let direction = BfsDirection::Auto { alpha: 14.0, beta: 24.0 };
    let _ = device_bfs(dev, &dw, &mut v, sources[0], direction); // warm-up (JIT)
    let (mut teps, mut good) = (Vec::new(), true);
    for (i, &s) in sources.iter().enumerate() {
        let (r, secs) = device_bfs(dev, &dw, &mut v, s, direction);
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
    let (no_cpu_triangles, no_sssp, wide) = (flag("--no-cpu-triangles"), flag("--no-sssp"), flag("--wide"));
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
        let mut visited = da.visited().unwrap();
        for (dname, direction) in [("do", BfsDirection::Auto { alpha: 14.0, beta: 24.0 }), ("push", BfsDirection::Push)]
        {
            let _ = device_bfs(&dev, &da, &mut visited, sources[0], direction); // warm-up (JIT)
            let mut teps = Vec::new();
            let mut good = true;
            for (i, &s) in sources.iter().enumerate() {
                let (r, secs) = device_bfs(&dev, &da, &mut visited, s, direction);
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
        drop(visited);
        if wide {
            ok &= fused_wide(&head, &dev, &a, &sources, &cpu);
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
