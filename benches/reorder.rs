//! Reordering cost: RCM and PBR on graphs of the synthetic benchmark
//! families, and the tile count itself.
//!
//! `cargo bench --bench reorder -- --warm-up-time 1 --measurement-time 2`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kronograph::graph::generate;
use kronograph::graph::reorder::{self, Method, Permutation};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let rng = |s| ChaCha8Rng::seed_from_u64(s);
    let graphs = [
        ("NWS(96,3,0.1)", generate::newman_watts_strogatz(96, 3, 0.1, &mut rng(0)).unwrap()),
        ("BA(96,6)", generate::barabasi_albert(96, 6, &mut rng(0)).unwrap()),
        ("G(1000,0.005)", generate::erdos_renyi_gnp(1000, 0.005, &mut rng(0)).unwrap()),
    ];
    let mut group = c.benchmark_group("reorder");
    for (name, g) in &graphs {
        for m in [Method::Rcm, Method::Pbr] {
            group.bench_with_input(BenchmarkId::new(m.name(), name), g, |b, g| {
                b.iter(|| reorder::permutation(black_box(g), m))
            });
        }
        let id = Permutation::identity(g.num_nodes());
        group.bench_with_input(BenchmarkId::new("tile_stats", name), g, |b, g| {
            b.iter(|| reorder::tile_stats(black_box(g), &id).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
