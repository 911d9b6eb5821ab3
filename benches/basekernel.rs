//! Base-kernel evaluation cost: the innermost loop of the graph kernels.
//!
//! `cargo bench --bench basekernel -- --warm-up-time 1 --measurement-time 2`
//!
//! Compares a statically composed kernel on record labels (monomorphized),
//! the same kernel parsed from a SPEC (enum dispatch), the same kernel
//! written once as an expression ([`ExprKernel`], a postfix program), and
//! scalar kernels.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::basekernel::*;
use kronograph::graph::{FieldKind, Record, Schema, Value};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::sync::Arc;

fn records(n: usize) -> (Arc<Schema>, Vec<Record>) {
    let s = Arc::new(Schema::new().with("label", FieldKind::Int).with("attr0", FieldKind::Float));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let r = (0..n)
        .map(|_| Record::new(s.clone(), [Value::Int(rng.random_range(0..5)), Value::Float(rng.random())]).unwrap())
        .collect();
    (s, r)
}

fn sum_pairs<T, K: BaseKernel<T>>(k: &K, xs: &[T]) -> f64 {
    let mut acc = 0.0;
    for a in xs {
        for b in xs {
            acc += k.value(a, b);
        }
    }
    acc
}

fn bench(c: &mut Criterion) {
    const N: usize = 64;
    let (schema, recs) = records(N);
    let mut g = c.benchmark_group("basekernel value");
    g.throughput(Throughput::Elements((N * N) as u64));

    let mut stat = Field::new("label", KroneckerDelta::new(0.5)) * Field::new("attr0", SquareExponential::new(0.1));
    stat.bind(&schema).unwrap();
    g.bench_function("record delta*sqexp static", |b| b.iter(|| sum_pairs(black_box(&stat), &recs)));

    let spec = SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr0, 0.1)", &schema).unwrap();
    g.bench_function("record delta*sqexp spec", |b| b.iter(|| sum_pairs(black_box(&spec), &recs)));

    // the same kernel written once as an expression (basekernel::expr)
    {
        use kronograph::basekernel::expr::{constant, hyper, if_eq, x, y};
        let mut e = ExprKernel::new(
            if_eq(x("label"), y("label"), constant(1.0), hyper("h", 0.5, (1e-3, 1.0)))
                * (-(x("attr0") - y("attr0")).square() / (2.0 * hyper("scale", 0.1, (1e-3, 1e3)).square())).exp(),
        )
        .unwrap();
        BaseKernel::<Record>::bind(&mut e, &schema).unwrap();
        g.bench_function("record delta*sqexp expr", |b| b.iter(|| sum_pairs(black_box(&e), &recs)));
    }

    let xs: Vec<f64> = (0..N).map(|i| i as f64 / N as f64).collect();
    let se = SquareExponential::new(0.1);
    g.bench_function("f64 sqexp", |b| b.iter(|| sum_pairs(black_box(&se), &xs)));
    let ls: Vec<u8> = (0..N).map(|i| (i % 5) as u8).collect();
    let d = KroneckerDelta::new(0.5);
    g.bench_function("u8 delta", |b| b.iter(|| sum_pairs(black_box(&d), &ls)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
