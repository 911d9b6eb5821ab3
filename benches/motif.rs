//! One sieve run on the CPU (bit-sliced GF(2^8) and GF(2^64)) on small
//! d = 20 regular instances with a planted match, the whole graph sieved:
//! `cargo bench --bench motif`. The table of docs/PERFORMANCE.md comes from
//! `src/bin/bench_motif.rs`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::cuda::Backend;
use kronograph::graph::generate;
use kronograph::motif::{self, Field, MotifOptions};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

fn sieve(c: &mut Criterion) {
    let mut g = c.benchmark_group("motif_run");
    g.sample_size(10);
    for (n, k, field) in [(1 << 10, 8, Field::Gf256), (1 << 10, 10, Field::Gf256), (1 << 8, 8, Field::Gf2p64)] {
        let inst = generate::regular_motif(n, 20, 16, k, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        let opts = MotifOptions { backend: Backend::Cpu, prune: false, field, ..Default::default() };
        // multiplications of recurrence (5) as written: 2^k · arcs · (k(k+1)/2 − 1)
        let mults = (1u64 << k) * (n as u64 * 20) * (k * (k + 1) / 2 - 1) as u64;
        g.throughput(Throughput::Elements(mults));
        g.bench_function(format!("{field:?}/n{n}/k{k}"), |b| {
            b.iter(|| motif::sieve_run(black_box(&inst.graph), &inst.colors, &inst.motif, &opts, 0).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, sieve);
criterion_main!(benches);
