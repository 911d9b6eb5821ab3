//! SpMV `y = A x` over (+, ×) and (min, +): `cargo bench --bench spmv`.
//!
//! Graphs: the SNAP graphs and Graph500 R-MAT at scale 16 (up to
//! `KRONOGRAPH_BENCH_MAX_SCALE`, default 16).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::matrix::{mxv, DenseVector, Descriptor, SparseMatrix};
use kronograph::semirings::{MinPlus, PlusTimes};
use std::hint::black_box;

mod common;
use common::graphs;

fn spmv(c: &mut Criterion) {
    let mut g = c.benchmark_group("spmv");
    g.sample_size(20);
    for (name, graph) in graphs(16) {
        let a = SparseMatrix::from_graph(&graph);
        let n = a.nrows();
        let x = DenseVector::full((0..n).map(|i| (i % 7) as f64).collect());
        g.throughput(Throughput::Elements(a.nnz() as u64));
        g.bench_function(format!("plus_times/{name}"), |b| {
            let mut y = DenseVector::new(n);
            b.iter(|| {
                mxv(&mut y, None, None, PlusTimes::<f64>::new(), &a, black_box(&x), &Descriptor::DEFAULT).unwrap()
            })
        });
        g.bench_function(format!("min_plus/{name}"), |b| {
            let mut y = DenseVector::new(n);
            b.iter(|| mxv(&mut y, None, None, MinPlus::<f64>::new(), &a, black_box(&x), &Descriptor::DEFAULT).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, spmv);
criterion_main!(benches);
