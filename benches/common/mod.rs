//! Graphs shared by the benches.

use kronograph::graph::generate::{rmat, RmatParams};
use kronograph::graph::{io::mtx, Graph};
use rand::SeedableRng;

/// The bench graphs: name and graph.
pub fn graphs(max_default: u32) -> Vec<(String, Graph)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/snap");
    let mut v: Vec<(String, Graph)> = ["facebook_combined", "oregon1_010331"]
        .iter()
        .map(|n| (n.to_string(), mtx::read(format!("{dir}/{n}.mtx")).unwrap()))
        .collect();
    let max = std::env::var("KRONOGRAPH_BENCH_MAX_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(max_default);
    for scale in (16..=max).step_by(2) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        v.push((format!("rmat{scale}"), rmat(&RmatParams::graph500(scale), &mut rng).unwrap()));
    }
    v
}
