//! The four graphs of the FGLT benchmarks (criterion `benches/fglt.rs` and
//! the GPU bench binary `src/bin/bench_fglt.rs`), the graphs the reference
//! timings of issue 14 were taken on: facebook_combined, oregon1_010331, an
//! R-MAT graph of 2^17 vertices and exactly 1,000,000 distinct edges
//! (Graph500 parameters a = 0.57, b = c = 0.19; repeated draws and
//! self-loops replaced by further draws, `RmatParams::distinct_edges`) and G(n, m) with n = 2^17, m = 1,000,000. Seeded.

use kronograph::graph::generate::{erdos_renyi_gnm, rmat, RmatParams};
use kronograph::graph::{io::mtx, Graph};
use rand::SeedableRng;
use std::path::Path;

/// Name and graph of each bench graph; the SNAP files are read from `snap_dir`.
pub fn fglt_graphs(snap_dir: &Path) -> Vec<(String, Graph)> {
    let mut v: Vec<(String, Graph)> = ["facebook_combined", "oregon1_010331"]
        .iter()
        .map(|n| (n.to_string(), mtx::read(snap_dir.join(format!("{n}.mtx"))).expect("a SNAP graph of data/snap")))
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(14);
    let params = RmatParams { distinct_edges: Some(1_000_000), ..RmatParams::graph500(17) };
    v.push(("rmat17_1M".into(), rmat(&params, &mut rng).expect("R-MAT parameters are valid")));
    v.push(("gnm17_1M".into(), erdos_renyi_gnm(1 << 17, 1_000_000, &mut rng).expect("G(n, m) parameters are valid")));
    v
}

/// The large graphs of `bench_fglt --large` (generated, seeded): G(n, m) of
/// LiveJournal's size (n = 2^22 ≈ 4.19M vertices, m = 35M edges) and the
/// Graph500 R-MAT graph of scale 22 (2^22 vertices, 16 · 2^22 drawn edges,
/// repeats and self-loops kept as drawn, then merged).
#[allow(dead_code)]
pub fn large_fglt_graphs() -> Vec<(String, Graph)> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
    vec![
        ("gnm22_35M".into(), erdos_renyi_gnm(1 << 22, 35_000_000, &mut rng).expect("G(n, m) parameters are valid")),
        ("rmat22".into(), rmat(&RmatParams::graph500(22), &mut rng).expect("R-MAT parameters are valid")),
    ]
}
