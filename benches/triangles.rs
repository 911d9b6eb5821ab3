//! Triangle counting on the SNAP graphs and R-MAT scale 16:
//! `cargo bench --bench triangles`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::algorithms::triangle_count_matrix;
use kronograph::matrix::SparseMatrix;
use std::hint::black_box;

mod common;

fn triangles(c: &mut Criterion) {
    let mut g = c.benchmark_group("triangles");
    g.sample_size(10);
    for (name, graph) in common::graphs(16) {
        let a = SparseMatrix::from_graph(&graph);
        g.throughput(Throughput::Elements((a.nnz() / 2) as u64));
        g.bench_function(name, |b| b.iter(|| triangle_count_matrix(black_box(&a)).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, triangles);
criterion_main!(benches);
