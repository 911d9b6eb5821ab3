//! SSSP, delta-stepping against Bellman–Ford in the same run, on the SNAP
//! graphs and R-MAT scale 16..=`KRONOGRAPH_BENCH_MAX_SCALE` (default 16):
//! unit weights and uniform weights in `(0, 1]` (the Graph500 SSSP kernel's).
//! `cargo bench --bench sssp`. Throughput is in edges of the reached part.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::algorithms::{sssp_matrix, SsspMethod, SsspOptions};
use kronograph::matrix::SparseMatrix;
use std::hint::black_box;

mod common;

/// A weight in `(0, 1]` per undirected edge `{i, j}` (splitmix64 of the pair).
fn uniform_weight(i: usize, j: usize) -> f64 {
    let mut z = ((i.min(j) as u64) << 32 | i.max(j) as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    ((z >> 11) + 1) as f64 / (1u64 << 53) as f64
}

fn sssp(c: &mut Criterion) {
    let mut g = c.benchmark_group("sssp");
    g.sample_size(10);
    for (name, graph) in common::graphs(16) {
        let unit = SparseMatrix::from_graph(&graph);
        let uniform = SparseMatrix::from_rows_into(unit.nrows(), unit.ncols(), |i, idx, val| {
            idx.extend_from_slice(unit.row(i).0);
            val.extend(unit.row(i).0.iter().map(|&j| uniform_weight(i, j)));
        });
        let source = (0..unit.nrows()).max_by_key(|&v| (unit.row(v).0.len(), std::cmp::Reverse(v))).unwrap();
        for (weights, a) in [("unit", &unit), ("uniform", &uniform)] {
            let r = sssp_matrix(a, source, &SsspOptions::default()).unwrap();
            let arcs: usize = (0..a.nrows()).filter(|&v| r.distances[v].is_finite()).map(|v| a.row(v).0.len()).sum();
            g.throughput(Throughput::Elements((arcs / 2) as u64));
            for method in [SsspMethod::DeltaStepping, SsspMethod::BellmanFord] {
                let opts = SsspOptions { method, delta: None };
                g.bench_function(format!("{method}/{weights}/{name}"), |b| {
                    b.iter(|| sssp_matrix(a, black_box(source), &opts).unwrap())
                });
            }
        }
    }
    g.finish();
}

/// Parallel R-MAT generation (Graph500 parameters), scale 16 and 18.
fn rmat(c: &mut Criterion) {
    use kronograph::graph::generate::{rmat, RmatParams};
    use rand::SeedableRng;
    let mut g = c.benchmark_group("rmat");
    g.sample_size(10);
    for scale in [16, 18] {
        g.throughput(Throughput::Elements(16 << scale));
        g.bench_function(format!("generate/scale{scale}"), |b| {
            b.iter(|| rmat(&RmatParams::graph500(scale), &mut rand_chacha::ChaCha8Rng::seed_from_u64(1)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, sssp, rmat);
criterion_main!(benches);
