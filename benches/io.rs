//! Reading the bundled data sets: `cargo bench --bench io`.

use criterion::{criterion_group, criterion_main, Criterion};
use kronograph::graph::io::{mtx, tu};
use std::hint::black_box;
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

fn readers(c: &mut Criterion) {
    let mut g = c.benchmark_group("read");
    g.sample_size(20);
    for set in ["MUTAG", "NCI1", "PROTEINS"] {
        let dir = data(set);
        g.bench_function(format!("tu/{set}"), |b| b.iter(|| black_box(tu::read_dataset(&dir).unwrap())));
    }
    let fb = data("snap/facebook_combined.mtx");
    g.bench_function("mtx/facebook_combined", |b| b.iter(|| black_box(mtx::read(&fb).unwrap())));
    g.finish();
}

criterion_group!(benches, readers);
criterion_main!(benches);
