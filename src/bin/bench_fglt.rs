//! GPU benchmark of the fast graphlet transform, with the CPU measured in
//! the same run on the same machine:
//! `cargo run --release --features bench --bin bench_fglt -- [--repeat R] [--cpu-repeat C] [--data DIR] [--verbose]
//!  [--large [--large-cpu-repeat C]] [--only NAME] [--skip-cpu NAME]`
//! (`--verbose`: the CPU's and the GPU's stage times too).
//!
//! For each bench graph (facebook_combined, oregon1_010331, R-MAT 2^17 with
//! 1M drawn edges, G(2^17, 1M); with `--large` also G(2^22, 35M), the size
//! of com-LiveJournal, and Graph500 R-MAT scale 22, generated here) it
//! prints the vertex and edge counts, the CPU transform's median wall time
//! (rayon, all threads; `--large-cpu-repeat 0` skips the CPU on the large
//! graphs, whose GPU counts are then unchecked and marked so), and on CUDA
//! device 0 after two warm-up runs (one on the large graphs): the median of
//! the kernels' time by CUDA events (upload and download excluded) and the
//! median end-to-end wall time of `fglt(&g, Backend::Cuda(0))` (upload,
//! everything on the device, download of the raw and net tables). It checks
//! the GPU's counts equal the CPU's and exits non-zero otherwise. Without a
//! GPU it prints the CPU side only. `--only NAME` keeps the graphs whose
//! name contains NAME; `--skip-cpu NAME` runs no CPU transform on them (their
//! GPU counts unchecked, said so on stderr).

#[path = "../../benches/common/fglt_graphs.rs"]
mod fglt_graphs;

use kronograph::cuda::{device_count, Backend};
use kronograph::graph::Graph;
use kronograph::graphlets::{fglt, gpu};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let repeat: usize = opt("--repeat").and_then(|s| s.parse().ok()).unwrap_or(10).max(1);
    let cpu_repeat: usize = opt("--cpu-repeat").and_then(|s| s.parse().ok()).unwrap_or(3).max(1);
    let data =
        opt("--data").map(PathBuf::from).unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/data/snap").into());
    let gpu = device_count().is_ok_and(|n| n > 0);
    println!("FGLT bench: {} CPU threads; GPU: {}", rayon::current_num_threads(), if gpu { "cuda:0" } else { "none" });
    println!(
        "{:<18} {:>8} {:>9} {:>12} {:>14} {:>14} {:>8}",
        "graph", "n", "edges", "cpu_ms", "gpu_kernel_ms", "gpu_total_ms", "speedup"
    );
    let large = args.iter().any(|a| a == "--large");
    let large_cpu: usize = opt("--large-cpu-repeat").and_then(|s| s.parse().ok()).unwrap_or(1);
    let only = opt("--only");
    let skip_cpu = opt("--skip-cpu");
    let mut graphs: Vec<(String, Graph, bool)> =
        fglt_graphs::fglt_graphs(&data).into_iter().map(|(n, g)| (n, g, false)).collect();
    if large {
        let t = Instant::now();
        graphs.extend(fglt_graphs::large_fglt_graphs().into_iter().map(|(n, g)| (n, g, true)));
        eprintln!("large graphs generated in {:.1} s", t.elapsed().as_secs_f64());
    }
    graphs.retain(|(name, _, _)| only.as_ref().is_none_or(|o| name.contains(o.as_str())));
    let mut ok = true;
    for (name, g, is_large) in graphs {
        let mut cpu_t = Vec::new();
        let mut cpu = None;
        let (mut cpu_repeat, repeat, warm) =
            if is_large { (large_cpu, repeat.min(3), 1) } else { (cpu_repeat, repeat, 2) };
        if skip_cpu.as_ref().is_some_and(|s| name.contains(s.as_str())) {
            cpu_repeat = 0;
        }
        for _ in 0..cpu_repeat {
            let t = Instant::now();
            cpu = Some(fglt(&g, Backend::Cpu).expect("CPU transform"));
            cpu_t.push(t.elapsed().as_secs_f64());
        }
        if let (Some(cpu), true) = (&cpu, args.iter().any(|a| a == "--verbose")) {
            let st: Vec<String> =
                cpu.stages.iter().map(|(s, d)| format!("{s} {:.1} ms", d.as_secs_f64() * 1e3)).collect();
            eprintln!("{name} CPU stages: {}", st.join(", "));
        }
        let cpu_ms = if cpu_t.is_empty() { f64::NAN } else { median(cpu_t) * 1e3 };
        let (mut kern, mut total) = (f64::NAN, f64::NAN);
        if gpu {
            for _ in 0..warm {
                let r = fglt(&g, Backend::Cuda(0)).expect("GPU transform");
                match &cpu {
                    Some(cpu) if r.raw != cpu.raw || r.net != cpu.net => {
                        eprintln!("MISMATCH: GPU and CPU counts differ on {name}");
                        ok = false;
                    }
                    Some(_) => {}
                    None => eprintln!("{name}: no CPU run, GPU counts unchecked"),
                }
            }
            let (mut kt, mut tt) = (Vec::new(), Vec::new());
            for _ in 0..repeat {
                kt.push(gpu::transform(&g, 0, &mut |_| {}, &mut Vec::new()).expect("GPU kernels").kernel_seconds);
                let t = Instant::now();
                let _ = fglt(&g, Backend::Cuda(0)).expect("GPU transform");
                tt.push(t.elapsed().as_secs_f64());
            }
            if args.iter().any(|a| a == "--verbose") {
                let r = fglt(&g, Backend::Cuda(0)).expect("GPU transform");
                let st: Vec<String> =
                    r.stages.iter().map(|(s, d)| format!("{s} {:.2} ms", d.as_secs_f64() * 1e3)).collect();
                eprintln!("{name} GPU stages (CUDA events): {}", st.join(", "));
            }
            kern = median(kt) * 1e3;
            total = median(tt) * 1e3;
        }
        println!(
            "{:<18} {:>8} {:>9} {:>12.2} {:>14.3} {:>14.3} {:>8.1}",
            name,
            g.num_nodes(),
            g.num_edges(),
            cpu_ms,
            kern,
            total,
            cpu_ms / total
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
