//! The fast graphlet transform on the CPU (all 16 orbits, raw and net):
//! `cargo bench --bench fglt` on facebook_combined, oregon1_010331, R-MAT
//! 2^17 with 1M drawn edges and G(2^17, 1M).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::cuda::Backend;
use kronograph::graphlets::fglt;
use std::hint::black_box;

#[path = "common/fglt_graphs.rs"]
mod fglt_graphs;

fn transform(c: &mut Criterion) {
    let mut g = c.benchmark_group("fglt");
    g.sample_size(10);
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data/snap"));
    for (name, graph) in fglt_graphs::fglt_graphs(dir) {
        g.throughput(Throughput::Elements(graph.num_edges() as u64));
        g.bench_function(name, |b| b.iter(|| fglt(black_box(&graph), Backend::Cpu).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, transform);
criterion_main!(benches);
