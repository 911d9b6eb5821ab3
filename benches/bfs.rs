//! BFS (direction-optimizing, and push-only) on the SNAP graphs and R-MAT
//! scale 16..=`KRONOGRAPH_BENCH_MAX_SCALE` (default 18; 20 for the full run):
//! `cargo bench --bench bfs`. Throughput is in edges of the reached component.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::algorithms::{bfs_matrix, BfsDirection, BfsOptions};
use kronograph::matrix::SparseMatrix;
use std::hint::black_box;

mod common;

fn bfs(c: &mut Criterion) {
    let mut g = c.benchmark_group("bfs");
    g.sample_size(10);
    for (name, graph) in common::graphs(18) {
        let a = SparseMatrix::from_graph(&graph);
        // Source: the node of largest degree (in the giant component).
        let source = (0..a.nrows()).max_by_key(|&v| (a.row(v).0.len(), std::cmp::Reverse(v))).unwrap();
        let r = bfs_matrix(&a, source, &BfsOptions::default()).unwrap();
        g.throughput(Throughput::Elements((r.arcs_in_component / 2) as u64));
        g.bench_function(format!("auto/{name}"), |b| {
            b.iter(|| bfs_matrix(&a, black_box(source), &BfsOptions::default()).unwrap())
        });
        let push = BfsOptions { direction: BfsDirection::Push, ..BfsOptions::default() };
        g.bench_function(format!("push/{name}"), |b| b.iter(|| bfs_matrix(&a, black_box(source), &push).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, bfs);
criterion_main!(benches);
