//! GPU benchmark of the fast graphlet transform, with the CPU measured in
//! the same run on the same machine:
//! `cargo run --release --bin bench_fglt -- [--repeat R] [--cpu-repeat C] [--data DIR] [--verbose]`
//! (`--verbose`: the CPU's and the GPU's stage times too).
//!
//! For each bench graph (facebook_combined, oregon1_010331, R-MAT 2^17 with
//! 1M drawn edges, G(2^17, 1M)) it prints the vertex and edge counts, the CPU
//! transform's median wall time (rayon, all threads), and on CUDA device 0
//! after two warm-up runs: the median of the kernels' time by CUDA events
//! (upload and download excluded) and the median end-to-end wall time of
//! `fglt(&g, Backend::Cuda(0))` (relabelling, upload, kernels, download,
//! raw → net on the host). It checks the GPU's counts equal the CPU's and
//! exits non-zero otherwise. Without a GPU it prints the CPU side only.

#[path = "../../benches/common/fglt_graphs.rs"]
mod fglt_graphs;

use kronograph::cuda::{device_count, Backend};
use kronograph::graphlets::{fglt, gpu, Pattern};
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
    let mut ok = true;
    for (name, g) in fglt_graphs::fglt_graphs(&data) {
        let mut cpu_t = Vec::new();
        let mut cpu = None;
        for _ in 0..cpu_repeat {
            let t = Instant::now();
            cpu = Some(fglt(&g, Backend::Cpu).expect("CPU transform"));
            cpu_t.push(t.elapsed().as_secs_f64());
        }
        let cpu = cpu.expect("at least one CPU run");
        if args.iter().any(|a| a == "--verbose") {
            let st: Vec<String> =
                cpu.stages.iter().map(|(s, d)| format!("{s} {:.1} ms", d.as_secs_f64() * 1e3)).collect();
            eprintln!("{name} CPU stages: {}", st.join(", "));
        }
        let cpu_ms = median(cpu_t) * 1e3;
        let (mut kern, mut total) = (f64::NAN, f64::NAN);
        if gpu {
            let pattern = Pattern::of_graph(&g);
            for _ in 0..2 {
                let r = fglt(&g, Backend::Cuda(0)).expect("GPU transform");
                if r.raw != cpu.raw || r.net != cpu.net {
                    eprintln!("MISMATCH: GPU and CPU counts differ on {name}");
                    ok = false;
                }
            }
            let (mut kt, mut tt) = (Vec::new(), Vec::new());
            for _ in 0..repeat {
                kt.push(gpu::timed_primitives(&pattern, 0).expect("GPU kernels").1);
                let t = Instant::now();
                let _ = fglt(&g, Backend::Cuda(0)).expect("GPU transform");
                tt.push(t.elapsed().as_secs_f64());
            }
            if args.iter().any(|a| a == "--verbose") {
                let r = fglt(&g, Backend::Cuda(0)).expect("GPU transform");
                let st: Vec<String> =
                    r.stages.iter().map(|(s, d)| format!("{s} {:.2} ms", d.as_secs_f64() * 1e3)).collect();
                eprintln!("{name} GPU stages (synchronized after each): {}", st.join(", "));
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
