//! `kronograph sssp`, `bfs --sources`, `triangles` and `generate rmat` run as
//! programs, on the CPU backend; `--backend cuda` without a GPU is a typed
//! error.

use kronograph::backend::{resolve_backend, Backend};
use kronograph::graph::io::mtx;
use std::path::{Path, PathBuf};
use std::process::Command;

fn kronograph(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kronograph")).args(args).output().unwrap()
}

/// Stdout of a run that must succeed.
fn ok(args: &[&str]) -> String {
    let out = kronograph(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The value printed after `key:` (the first line that has it).
fn value<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}:")))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {key:?} line in:\n{out}"))
}

/// The first number of a value.
fn number(out: &str, key: &str) -> f64 {
    value(out, key).split_whitespace().next().unwrap().parse().unwrap()
}

fn facebook() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/snap/facebook_combined.mtx")
}

#[test]
fn sssp_on_facebook_equals_bfs_and_bellman_ford() {
    let fb = facebook();
    let fb = fb.to_str().unwrap();
    let delta = ok(&["sssp", fb, "--backend", "cpu", "--source", "0"]);
    assert_eq!(value(&delta, "reached"), "4039");
    assert!(value(&delta, "method").starts_with("delta-stepping (delta 1)"), "{delta}");
    assert!(number(&delta, "GTEPS") > 0.0);
    // unit weights: the farthest distance is the BFS depth
    let bfs = ok(&["bfs", fb, "--backend", "cpu", "--source", "0"]);
    assert_eq!(number(&delta, "farthest"), number(&bfs, "depth"));
    assert_eq!(number(&delta, "edges"), number(&bfs, "edges"));
    let bf = ok(&["sssp", fb, "--backend", "cpu", "--method", "bellman-ford"]);
    assert_eq!(value(&bf, "farthest"), value(&delta, "farthest"));
}

#[test]
fn sssp_weighted_writes_distances() {
    let d = tempfile::tempdir().unwrap();
    let g = d.path().join("w.mtx");
    // 1 -> 2 (5), 1 -> 3 (1), 3 -> 2 (1.5), node 4 unreachable
    std::fs::write(&g, "%%MatrixMarket matrix coordinate real general\n4 4 3\n1 2 5\n1 3 1\n3 2 1.5\n").unwrap();
    let out = d.path().join("dist.npy");
    let s = ok(&["sssp", g.to_str().unwrap(), "--delta", "0.5", "--out", out.to_str().unwrap()]);
    assert_eq!(value(&s, "reached"), "3");
    assert_eq!(value(&s, "farthest"), "2.5");
    assert!(out.exists());
    let bad = kronograph(&["sssp", g.to_str().unwrap(), "--delta", "0"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("must be finite and > 0"));
}

#[test]
fn bfs_from_16_random_sources_reports_the_harmonic_mean() {
    let fb = facebook();
    let s = ok(&["bfs", fb.to_str().unwrap(), "--sources", "16", "--seed", "3", "--backend", "cpu"]);
    assert!(value(&s, "sources").starts_with("16 (random, seed 3"), "{s}");
    let gteps = value(&s, "GTEPS");
    assert!(gteps.contains("harmonic mean"), "{s}");
    assert!(number(&s, "GTEPS") > 0.0);
    let zero = kronograph(&["bfs", fb.to_str().unwrap(), "--sources", "0"]);
    assert!(!zero.status.success());
}

#[test]
fn triangles_on_the_cpu_backend() {
    let s = ok(&["triangles", facebook().to_str().unwrap(), "--backend", "cpu"]);
    assert_eq!(value(&s, "triangles"), "1612010");
    assert!(number(&s, "GTEPS") > 0.0);
}

#[test]
fn cuda_without_a_gpu_is_a_typed_error() {
    if resolve_backend(Backend::Cuda(0)).is_ok() {
        eprintln!("a CUDA device is present: skipping the no-GPU error test");
        return;
    }
    let fb = facebook();
    let fb = fb.to_str().unwrap();
    for args in [
        &["bfs", fb, "--backend", "cuda"][..],
        &["sssp", fb, "--backend", "cuda"],
        &["triangles", fb, "--backend", "cuda"],
    ] {
        let out = kronograph(args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error:") && !err.contains("panicked"), "{args:?}: {err}");
        assert!(err.to_lowercase().contains("cuda"), "{args:?}: {err}");
    }
}

#[test]
fn generate_rmat_is_the_same_on_any_thread_count() {
    let d = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = ["1", "2"]
        .iter()
        .map(|threads| {
            let p = d.path().join(format!("rmat{threads}.mtx"));
            let out = Command::new(env!("CARGO_BIN_EXE_kronograph"))
                .args(["generate", "rmat", "--scale", "12", "--seed", "5", "--out", p.to_str().unwrap()])
                .env("RAYON_NUM_THREADS", threads)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let s = String::from_utf8(out.stdout).unwrap();
            assert_eq!(value(&s, "nodes"), "4096");
            p
        })
        .collect();
    assert_eq!(std::fs::read(&files[0]).unwrap(), std::fs::read(&files[1]).unwrap());
    let g = mtx::read(&files[0]).unwrap();
    assert!(g.num_edges() > 40_000 && g.num_edges() <= 16 * 4096, "{}", g.num_edges());
    let s = ok(&["generate", "rmat", "--scale", "12", "--edges", "50000"]);
    assert_eq!(value(&s, "edges"), "50000 (undirected, distinct, no self-loops)");
    let bad = kronograph(&["generate", "rmat", "--scale", "3", "--edges", "100"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("node pairs"));
}

/// Path sums beyond the largest double are an error naming the node (not
/// "unreached"); `--repeat 0` is refused.
#[test]
fn sssp_overflow_and_repeat_zero_are_errors() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("g.txt");
    std::fs::write(&p, "0 1 1e308\n1 2 1e308\n").unwrap();
    let ps = p.to_str().unwrap();
    for method in ["delta-stepping", "bellman-ford"] {
        let out = kronograph(&["sssp", ps, "--backend", "cpu", "--method", method]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains("node 2 overflows"), "{method}: {e}");
    }
    for cmd in ["sssp", "bfs"] {
        let out = kronograph(&[cmd, ps, "--repeat", "0"]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains("--repeat"), "{cmd}: {e}");
    }
}

/// Generators whose size would not fit are refused up front with the figure
/// (not aborted by the allocator): R-MAT at scale 32, an edge factor or an
/// edge count far beyond memory, a motif instance of 10^9 vertices.
#[test]
fn oversized_generators_are_refused_with_the_memory_they_need() {
    for args in [
        &["generate", "rmat", "--scale", "32"][..],
        &["generate", "rmat", "--scale", "10", "--edge-factor", "4000000000"][..],
        &["generate", "rmat", "--scale", "30", "--edges", "100000000000"][..],
        &["generate", "motif", "--n", "1000000000", "--k", "4", "--out", "/nonexistent-kronograph-dir/x"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_kronograph"))
            .args(args)
            .env("KRONOGRAPH_MAX_MEMORY", "2G")
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {e}");
        assert!(e.contains("would need about") && e.contains("2.1 GB is available"), "{args:?}: {e}");
    }
    // a small one still runs under the same budget
    let out = Command::new(env!("CARGO_BIN_EXE_kronograph"))
        .args(["generate", "rmat", "--scale", "10"])
        .env("KRONOGRAPH_MAX_MEMORY", "2G")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
