//! Benchmark of the GPU marginalized graph kernel on the reference data sets.
//!
//! ```text
//! bench_gpu [--data DIR] [--precision f32|f64] [--repeats 5] [--sets NWS96,BA96,…] [--check K] [--cpu-f32 K]
//!           [--tol T] [--reorder natural|rcm|pbr] [--large] [--xmv rows|tiles] [--jit-times] [--gradient]
//! ```
//!
//! For each set it prints: pairs, the time to open the device (`open`) and to
//! reorder, pack and upload the graphs (`upload`), the first-call time (JIT
//! included unless the kernel is in the disk cache: the `jit` column says
//! where the kernel came from and how long this call waited for it; a
//! compile started in the background by `upload` shows as `Prefetched`, a
//! first call run by the fast-tier image while the full one compiles as
//! `FastTier`), the time the compiles themselves took wherever they ran
//! (`compile`: full tier / fast tier, `-` when not compiled), `total` = open +
//! upload + first call (a cold start's latency from nothing to the result), then
//! (after waiting for background compiles and one untimed call) the median of
//! `--repeats` further calls, pairs/s, mean PCG iterations and the XMV's
//! effective GFLOP/s (2 flops per nonzero of the Kronecker operator applied,
//! counted over all iterations of all pairs, divided by the median time).
//!
//! Reference set-up (GraphDot-compatible): q = 0.05, p = 1; unlabeled sets
//! κv = κe = `constant(1)`; labeled sets κv = `delta(label, 0.5)`, κe =
//! `delta(label, 0.5) * sqexp(attr1, 0.1)`, weights from `attr0`; MUTAG and
//! NCI1 κv = `delta(label, 0.5)`, κe = `delta(label, 0.5)` where edges have
//! labels, else `constant(1)`. Kernels are the library's [`SpecKernel`]s.
//!
//! `--jit-times` only times NVRTC: loading the library, a trivial program,
//! then each set's batched-kernel source (the three vector placements:
//! shared memory only, any, global memory only) compiled three times at the full and three at the
//! fast tier, without kronograph's caches (the first
//! compile of a process pays NVRTC's own start-up; on a machine with a GPU
//! driver, set `CUDA_CACHE_DISABLE=1` to keep the driver's compute cache
//! out of the figures).
//!
//! `--dump DIR` (with `--jit-times`) also writes each of those sources to
//! `DIR/<set>_<precision>_<placement>.cu` (to inspect them, e.g. with
//! `nvcc -cubin -arch=sm_90 -Xptxas -v`).
//!
//! `--gradient` times `gram_with_gradient` (two solves per pair and the
//! gradient sums; `iters` then counts both solves) instead of `gram`.
//!
//! `--xmv rows|tiles` picks the batched value kernel's XMV scheme
//! ([`XmvScheme`]): `rows` (the default: a row
//! of G × a chunk of G′'s nonzeros per warp) or `tiles` (the tile-pair
//! design: octile pairs shared out among the warps, a row-structured or a
//! sparse primitive per tile pair by nonzero products ≥
//! `KRONOGRAPH_MGK_DENSE_MIN`, default 64). It applies to `gram` and to
//! `--jit-times`; the gradient kernel (`--gradient`) and the large-pair path
//! (`--large`) always use their own XMV.
//!
//! `--large` sends every pair to the single-large-pair path (host PCG loop,
//! one XMV launch per iteration) instead of the batched kernel.
//!
//! `--devices LIST` (repeatable: `--devices 0 --devices 0,1 --devices all`)
//! times the user's call `MarginalizedGraphKernel::gram_on` (or
//! `gram_with_gradient_on`) on each device set `cuda:LIST` instead: per set
//! one first call, then `--repeats` rounds that call every set in turn
//! (medians; uploads and packing included, as a user's call), the speed-up
//! over the first set, and the largest relative difference of its values
//! from the first set's and how many are equal to the bit (with the first
//! set against itself, first call against last: the run-to-run figure).
//!
//! Environment (read here, at the program's edge, into
//! [`MgkConfig::gpu`]: the library reads none of it): the kernels' tuning
//! ([`Tuning`]) `KRONOGRAPH_MGK_LANE_NZ` (1–4), `KRONOGRAPH_MGK_DENSE_MIN`,
//! `KRONOGRAPH_MGK_BLOCK` (a multiple of 32 up to 1024),
//! `KRONOGRAPH_MGK_GLOBAL_COPIES` (1 or 2), `KRONOGRAPH_MGK_FAST_MATH` (0 or
//! 1), `KRONOGRAPH_MGK_XMV_CSR` (0 or 1), and the paths ([`GpuGramParams`])
//! `KRONOGRAPH_MGK_SHARED_N`, `KRONOGRAPH_MGK_PLACEMENT=any`,
//! `KRONOGRAPH_SPREAD_THREADS` (1–16), `KRONOGRAPH_MGK_ONE_LAUNCH=1`.
//! Unset or unparsable values keep the defaults; out-of-range ones are
//! reported.

use kronograph::basekernel::spec::SpecKernel;
use kronograph::basekernel::BaseKernel;
use kronograph::cuda::Precision;
use kronograph::graph::{Graph, Record};
use kronograph::mgk::bake::{reference_dataset, reference_specs};
use kronograph::mgk::reference::mgk_pair;
use kronograph::mgk::{GpuGram, GpuGramParams, MgkConfig, Tuning, XmvScheme};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    data: PathBuf,
    precision: Precision,
    repeats: usize,
    sets: Vec<String>,
    check: usize,
    cpu_f32: usize,
    tol: Option<f64>,
    reorder: kronograph::graph::reorder::Method,
    large: bool,
    jit_times: bool,
    dump: Option<PathBuf>,
    gradient: bool,
    xmv: XmvScheme,
    devices: Vec<String>,
    gpu: GpuGramParams,
}

/// The GPU paths and tuning from the environment (see the module's
/// documentation): this program's switches, not the library's.
fn gpu_params_from_env() -> Result<GpuGramParams, String> {
    let var = |name: &str| std::env::var(name).ok();
    let num = |name: &str| var(name).and_then(|v| v.parse::<u32>().ok());
    let mut t = Tuning::default()
        .with_lane_nz(num("KRONOGRAPH_MGK_LANE_NZ"))
        .with_block(num("KRONOGRAPH_MGK_BLOCK"))
        .with_xmv_csr(num("KRONOGRAPH_MGK_XMV_CSR") == Some(1));
    if let Some(d) = num("KRONOGRAPH_MGK_DENSE_MIN") {
        t = t.with_dense_min(d);
    }
    if let Some(c) = num("KRONOGRAPH_MGK_GLOBAL_COPIES") {
        t = t.with_global_copies(c);
    }
    if let Some(f) = num("KRONOGRAPH_MGK_FAST_MATH") {
        t = t.with_fast_math(f != 0);
    }
    let p = GpuGramParams::default()
        .with_tuning(t)
        .with_shared_vector_limit(var("KRONOGRAPH_MGK_SHARED_N").and_then(|v| v.parse().ok()))
        .with_any_placement(var("KRONOGRAPH_MGK_PLACEMENT").as_deref() == Some("any"))
        .with_spread_threads(var("KRONOGRAPH_SPREAD_THREADS").and_then(|v| v.parse().ok()))
        .with_one_launch(var("KRONOGRAPH_MGK_ONE_LAUNCH").as_deref() == Some("1"));
    p.validate().map_err(|e| format!("environment: {e}"))?;
    Ok(p)
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        data: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data")),
        precision: Precision::F32,
        repeats: 5,
        sets: ["NWS96", "NWS96L", "BA96", "BA96L", "MUTAG", "NCI1"].iter().map(|s| s.to_string()).collect(),
        check: 0,
        cpu_f32: 0,
        tol: None,
        reorder: MgkConfig::default().reorder,
        large: false,
        jit_times: false,
        dump: None,
        gradient: false,
        xmv: XmvScheme::Rows,
        devices: Vec::new(),
        gpu: gpu_params_from_env()?,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().ok_or(format!("{k} needs a value"));
        match k.as_str() {
            "--data" => a.data = PathBuf::from(v()?),
            "--precision" => a.precision = v()?.parse()?,
            "--repeats" => a.repeats = v()?.parse().map_err(|e| format!("--repeats: {e}"))?,
            "--sets" => a.sets = v()?.split(',').map(str::to_string).collect(),
            "--check" => a.check = v()?.parse().map_err(|e| format!("--check: {e}"))?,
            "--reorder" => a.reorder = v()?.parse()?,
            "--large" => a.large = true,
            "--xmv" => a.xmv = v()?.parse()?,
            "--jit-times" => a.jit_times = true,
            "--dump" => a.dump = Some(PathBuf::from(v()?)),
            "--gradient" => a.gradient = true,
            "--devices" => a.devices.push(v()?),
            "--tol" => a.tol = Some(v()?.parse().map_err(|e| format!("--tol: {e}"))?),
            "--cpu-f32" => a.cpu_f32 = v()?.parse().map_err(|e| format!("--cpu-f32: {e}"))?,
            "-h" | "--help" => {
                return Err("usage: bench_gpu [--data DIR] [--precision f32|f64] [--repeats N] [--sets A,B] \
                            [--check K] [--cpu-f32 K] [--tol T] [--reorder natural|rcm|pbr] [--large] [--xmv rows|tiles] [--jit-times] [--dump DIR] [--gradient] [--devices LIST]...\n\
                            environment (tuning, read by this program): KRONOGRAPH_MGK_LANE_NZ, KRONOGRAPH_MGK_DENSE_MIN, \
                            KRONOGRAPH_MGK_BLOCK, KRONOGRAPH_MGK_GLOBAL_COPIES, KRONOGRAPH_MGK_FAST_MATH, \
                            KRONOGRAPH_MGK_XMV_CSR, KRONOGRAPH_MGK_SHARED_N, KRONOGRAPH_MGK_PLACEMENT=any, \
                            KRONOGRAPH_SPREAD_THREADS, KRONOGRAPH_MGK_ONE_LAUNCH=1"
                    .into())
            }
            _ => return Err(format!("unknown argument {k}")),
        }
    }
    Ok(a)
}

struct Row {
    set: String,
    graphs: usize,
    pairs: usize,
    open: f64,
    upload: f64,
    first: f64,
    jit: String,
    compile: String,
    median: f64,
    iters: f64,
    gflops: f64,
    check: Option<f64>,
}

fn run<KN: BaseKernel<Record>, KE: BaseKernel<Record>>(
    set: &str,
    graphs: &[Graph<Record, Record>],
    kn: KN,
    ke: KE,
    a: &Args,
) -> Result<Row, String> {
    let params = MgkConfig {
        precision: a.precision,
        tol: a.tol,
        reorder: a.reorder,
        xmv: a.xmv,
        gpu: a.gpu,
        ..Default::default()
    };
    if a.cpu_f32 > 0 {
        let k = a.cpu_f32.min(graphs.len());
        let p64 = MgkConfig { precision: Precision::F64, tol: Some(1e-13), ..params };
        let mut worst = 0.0f64;
        let mut its = 0.0;
        for i in 0..k {
            for j in i..k {
                let r = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], &kn, &ke, &p64).value;
                let s = mgk_pair::<f32, _, _, _, _>(&graphs[i], &graphs[j], &kn, &ke, &params);
                its += s.iterations as f64;
                worst = worst.max((s.value - r).abs() / r.abs());
            }
        }
        println!(
            "{set}: CPU f32 emulation over {k} graphs: worst rel err {worst:.2e}, mean iterations {:.1}",
            its / (k * (k + 1) / 2) as f64
        );
        return Err("cpu only".into());
    }
    let t = Instant::now();
    let mut gpu = GpuGram::new(0, kn.clone(), ke.clone(), params).map_err(|e| e.to_string())?;
    let open = t.elapsed().as_secs_f64();
    gpu.gram_params_mut().large_pair_path = a.large;
    let t = Instant::now();
    let up = gpu.upload(graphs).map_err(|e| e.to_string())?;
    let upload = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let call = |gpu: &GpuGram<Record, Record, KN, KE>| -> Result<kronograph::mgk::GramOutput, String> {
        if a.gradient {
            gpu.gram_with_gradient(&up).map(|g| g.gram).map_err(|e| e.to_string())
        } else {
            gpu.gram(&up).map_err(|e| e.to_string())
        }
    };
    let first = call(&gpu)?;
    let first_t = t.elapsed().as_secs_f64();
    // steady state: the fully optimized kernel (compiled in the background
    // when the first call ran on the fast tier), loaded by an untimed call
    kronograph::cuda::jit::wait_background();
    if a.repeats > 0 {
        call(&gpu)?;
    }
    let mut times = Vec::new();
    let mut last = first.clone();
    for _ in 0..a.repeats {
        let t = Instant::now();
        last = call(&gpu)?;
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let median = if times.is_empty() { first_t } else { times[times.len() / 2] };
    let m = graphs.len();
    let check = (a.check > 0).then(|| {
        let k = a.check.min(m);
        let p64 = MgkConfig { precision: Precision::F64, tol: Some(1e-13), ..params };
        let mut worst = 0.0f64;
        for i in 0..k {
            for j in i..k {
                let r = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], &kn, &ke, &p64).value;
                worst = worst.max((last.values[i * m + j] - r).abs() / r.abs());
            }
        }
        worst
    });
    if last.values.iter().any(|v| !v.is_finite()) {
        return Err(format!("{set}: non-finite values in the Gram matrix"));
    }
    Ok(Row {
        set: set.to_string(),
        graphs: m,
        pairs: m * (m + 1) / 2,
        open,
        upload,
        first: first_t,
        jit: format!("{:?} {:.3}", first.kernel.1, first.kernel.2),
        compile: {
            use kronograph::cuda::jit::{production, Tier};
            let show = |t: Tier| production(&first.kernel.0, t).map_or("-".to_string(), |(_, s)| format!("{s:.3}"));
            format!("{}/{}", show(Tier::Full), show(Tier::Fast))
        },
        median,
        iters: last.mean_iterations(),
        gflops: 2.0 * last.xmv_products / median / 1e9,
        check,
    })
}

/// `--devices`: `gram_on` on each device set, in rounds (see the module documentation).
fn device_sets<KN: BaseKernel<Record>, KE: BaseKernel<Record>>(
    set: &str,
    graphs: &[Graph<Record, Record>],
    kn: KN,
    ke: KE,
    a: &Args,
) -> Result<(), String> {
    use kronograph::backend::Backend;
    use kronograph::mgk::MarginalizedGraphKernel;
    let s = |e: kronograph::mgk::MgkError| e.to_string();
    let mut k = MarginalizedGraphKernel::new(kn, ke, 0.05).map_err(s)?.with_precision(a.precision).with_xmv(a.xmv);
    k = k.with_reorder(Some(a.reorder)).with_gpu_params(a.gpu).map_err(s)?;
    if let Some(t) = a.tol {
        k = k.with_tolerance(t).map_err(s)?;
    }
    let backends = a.devices.iter().map(|d| format!("cuda:{d}").parse::<Backend>()).collect::<Result<Vec<_>, _>>()?;
    let call = |b: Backend| -> Result<Vec<f64>, String> {
        let m = if a.gradient { k.gram_with_gradient_on(b, graphs, false).map(|g| g.0) } else { k.gram_on(b, graphs) };
        m.map(|m| m.into_vec()).map_err(|e| format!("{b}: {e}"))
    };
    let mut first = Vec::new();
    let mut last = Vec::new();
    for &b in &backends {
        let t = Instant::now();
        let v = call(b)?;
        first.push((t.elapsed().as_secs_f64(), v.clone()));
        last.push(v);
    }
    kronograph::cuda::jit::wait_background();
    let mut times = vec![Vec::new(); backends.len()];
    for _ in 0..a.repeats {
        for (i, &b) in backends.iter().enumerate() {
            let t = Instant::now();
            last[i] = call(b)?;
            times[i].push(t.elapsed().as_secs_f64());
        }
    }
    let median = |t: &mut Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t.get(t.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let compare = |x: &[f64], y: &[f64]| {
        let rel = x.iter().zip(y).map(|(a, b)| (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)).fold(0.0, f64::max);
        let same = x.iter().zip(y).filter(|(a, b)| a.to_bits() == b.to_bits()).count();
        (rel, same)
    };
    let pairs = graphs.len() * (graphs.len() + 1) / 2;
    let base = median(&mut times[0].clone());
    println!(
        "{set}: {} graphs, {pairs} pairs, {:?}, {} rounds{}",
        graphs.len(),
        a.precision,
        a.repeats,
        if a.gradient { ", with gradient" } else { "" }
    );
    println!("backend\tfirst_s\tmedian_s\tpairs_per_s\tspeedup\tmax_rel_diff_vs_first_set\tbit_equal");
    for (i, b) in backends.iter().enumerate() {
        let m = median(&mut times[i]);
        if last[i].iter().any(|v| !v.is_finite()) {
            return Err(format!("{set} on {b}: non-finite values"));
        }
        // the first set against itself: its first call against its last (run to run)
        let (rel, same) = if i == 0 { compare(&first[0].1, &last[0]) } else { compare(&last[i], &last[0]) };
        println!(
            "{b}\t{:.4}\t{m:.4}\t{:.0}\t{:.3}\t{rel:.2e}\t{same}/{}",
            first[i].0,
            pairs as f64 / m,
            base / m,
            last[i].len()
        );
    }
    Ok(())
}

/// `--jit-times`: NVRTC start-up and per-source compile times, no cache.
fn jit_times<KN: BaseKernel<Record>, KE: BaseKernel<Record>>(
    set: &str,
    graphs: &[Graph<Record, Record>],
    kn: &KN,
    ke: &KE,
    precision: Precision,
    (xmv, tuning): (XmvScheme, &Tuning),
    dump: Option<&Path>,
) -> Result<(), String> {
    use kronograph::cuda::jit::{compile, options_for_source, tier_source, Tier};
    use kronograph::cuda::label::GpuLabel;
    use kronograph::mgk::codegen::{mgk_source_placed, VectorPlacement};
    let e = |e: kronograph::cuda::CudaError| e.to_string();
    let g = graphs.iter().find(|g| g.num_entries() > 0).ok_or("no graph with edges")?;
    let nl = Record::layout(g.node_labels(), precision).map_err(e)?;
    let el = Record::layout(g.edge_labels(), precision).map_err(e)?;
    for placement in [VectorPlacement::Shared, VectorPlacement::Any, VectorPlacement::Global] {
        let src = mgk_source_placed(kn, ke, &nl, &el, precision, xmv, placement, tuning).map_err(e)?;
        if let Some(dir) = dump {
            let path = dir.join(format!("{set}_{precision:?}_{placement:?}.cu"));
            std::fs::write(&path, &src.source).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let mut times = Vec::new();
        for tier in [Tier::Full, Tier::Fast] {
            for _ in 0..3 {
                let t = Instant::now();
                compile(&tier_source(&src.source, tier), &src.name, &options_for_source(&src.source, (9, 0), tier))
                    .map_err(e)?;
                times.push(format!("{:.3}", t.elapsed().as_secs_f64()));
            }
            times.push("|".into());
        }
        times.pop();
        println!(
            "{set} {precision:?} {xmv:?} {placement:?}: {} source bytes, compile (s), full tier ×3 | fast tier ×3: {}",
            src.source.len(),
            times.join(" ")
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if a.jit_times {
        use kronograph::cuda::jit::{compile, nvrtc_version, options};
        let t = Instant::now();
        let v = nvrtc_version();
        println!("NVRTC {v:?}: loading took {:.3} s", t.elapsed().as_secs_f64());
        for k in 0..2 {
            let t = Instant::now();
            let r = compile("extern \"C\" __global__ void k(int* x) { x[0] = 1; }", "k", &options((9, 0)));
            println!(
                "trivial program #{k}: {:.3} s ({})",
                t.elapsed().as_secs_f64(),
                if r.is_ok() { "ok" } else { "failed" }
            );
        }
    }
    let mut rows = Vec::new();
    let mut failed = false;
    for set in &a.sets {
        let ds = match reference_dataset(&a.data, set) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{set}: {e}");
                failed = true;
                continue;
            }
        };
        let (node_spec, edge_spec) = reference_specs(set, &ds);
        let kernels = SpecKernel::parse_for(node_spec, &ds.node_schema)
            .and_then(|kv| Ok((kv, SpecKernel::parse_for(edge_spec, &ds.edge_schema)?)));
        let r = match kernels {
            Ok((kv, ke)) if a.jit_times => {
                jit_times(set, &ds.graphs, &kv, &ke, a.precision, (a.xmv, &a.gpu.tuning), a.dump.as_deref())
                    .and_then(|_| Err("cpu only".to_string()))
            }
            Ok((kv, ke)) if !a.devices.is_empty() => {
                device_sets(set, &ds.graphs, kv, ke, &a).and_then(|_| Err("cpu only".to_string()))
            }
            Ok((kv, ke)) => run(set, &ds.graphs, kv, ke, &a),
            Err(e) => Err(e.to_string()),
        };
        match r {
            Ok(r) => {
                eprintln!("{} done: median {:.4} s", r.set, r.median);
                rows.push(r)
            }
            Err(e) if e == "cpu only" => {}
            Err(e) => {
                eprintln!("{set}: {e}");
                failed = true;
            }
        }
    }
    if !rows.is_empty() {
        println!(
            "precision {:?}, reorder {}, xmv {:?}, q = 0.05, {} timed calls after the first{}{}",
            a.precision,
            a.reorder,
            a.xmv,
            a.repeats,
            if a.large { ", every pair on the large-pair path" } else { "" },
            if a.gradient { ", gram with gradient" } else { "" }
        );
        println!(
            "{:<8} {:>6} {:>8} {:>7} {:>8} {:>9} {:>17} {:>15} {:>8} {:>9} {:>11} {:>7} {:>8} {:>9}",
            "set",
            "graphs",
            "pairs",
            "open",
            "upload",
            "first(s)",
            "jit",
            "compile",
            "total",
            "median(s)",
            "pairs/s",
            "iters",
            "GFLOP/s",
            "max err"
        );
        for r in &rows {
            println!(
                "{:<8} {:>6} {:>8} {:>7.3} {:>8.4} {:>9.4} {:>17} {:>15} {:>8.3} {:>9.4} {:>11.0} {:>7.1} {:>8.1} {:>9}",
                r.set,
                r.graphs,
                r.pairs,
                r.open,
                r.upload,
                r.first,
                r.jit,
                r.compile,
                r.open + r.upload + r.first,
                r.median,
                r.pairs as f64 / r.median,
                r.iters,
                r.gflops,
                r.check.map_or("-".to_string(), |c| format!("{c:.1e}"))
            );
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
