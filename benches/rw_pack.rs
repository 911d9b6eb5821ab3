//! The host's work per GPU random-walk series call before the upload
//! (`RandomWalkKernel::gram_on` on a CUDA device): one pass per graph that
//! checks for unit weights, scales them as `unit_weights` does and writes
//! the 32-bit CSR into the kept upload buffer. Needs no GPU. On all 160
//! graphs of NWS96L (33,784 stored entries) and BA96L (172,800).
//!
//! Run: `cargo bench --bench rw_pack -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::graph::io;
use kronograph::rw::RandomWalkKernel;

fn bench(c: &mut Criterion) {
    let mut grp = c.benchmark_group("rw_pack");
    for set in ["NWS96L", "BA96L"] {
        let ds = io::load(format!("{}/data/synthetic/{set}", env!("CARGO_MANIFEST_DIR"))).expect("bundled data");
        let nnz: usize = ds.graphs.iter().map(|g| g.indices().len()).sum();
        grp.throughput(Throughput::Elements(nnz as u64));
        let mut buf = Vec::new();
        grp.bench_function(set, |b| {
            b.iter(|| RandomWalkKernel::gpu_series_pack(&ds.graphs, &mut buf).expect("weights in range"))
        });
    }
    grp.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
