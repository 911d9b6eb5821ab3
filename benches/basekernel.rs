//! Base-kernel evaluation cost: the innermost loop of the graph kernels.
//!
//! `cargo bench --bench basekernel -- --warm-up-time 1 --measurement-time 2`
//!
//! Compares a statically composed kernel on record labels (monomorphized),
//! the same kernel parsed from a SPEC and written once as an expression
//! (both compiled to an [`ExprKernel`]), and scalar kernels: one value at a
//! time, whole tables (what the graph kernels ask for), and a whole CPU
//! marginalized-graph-kernel Gram matrix (NWS96L, first 20 graphs, the
//! README's labeled set-up) with the SPEC kernels and the composed ones.
//!
//! `cargo bench --bench basekernel -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::basekernel::*;
use kronograph::graph::{io, FieldKind, Record, Schema, Value};
use kronograph::mgk::MarginalizedGraphKernel;
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

    // tables of every pair, as the marginalized graph kernel evaluates them
    {
        let refs: Vec<&Record> = recs.iter().collect();
        let mut out = Vec::new();
        g.bench_function("table delta*sqexp static", |b| b.iter(|| black_box(&stat).table(&refs, &refs, &mut out)));
        g.bench_function("table delta*sqexp spec", |b| b.iter(|| black_box(&spec).table(&refs, &refs, &mut out)));
    }

    let xs: Vec<f64> = (0..N).map(|i| i as f64 / N as f64).collect();
    let se = SquareExponential::new(0.1);
    g.bench_function("f64 sqexp", |b| b.iter(|| sum_pairs(black_box(&se), &xs)));
    let ls: Vec<u8> = (0..N).map(|i| (i % 5) as u8).collect();
    let d = KroneckerDelta::new(0.5);
    g.bench_function("u8 delta", |b| b.iter(|| sum_pairs(black_box(&d), &ls)));
    g.finish();
}

/// The whole CPU Gram matrix of the first 20 graphs of NWS96L (210 pairs),
/// κv = delta(label, 0.5), κe = delta(label, 0.5) · sqexp(attr1, 0.1),
/// weights from attr0, q = 0.05, f64: SPEC kernels against the same kernels
/// composed in Rust.
fn gram(c: &mut Criterion) {
    let mut ds = io::load(format!("{}/data/synthetic/NWS96L", env!("CARGO_MANIFEST_DIR")))
        .expect("bundled data")
        .with_weights_from("attr0")
        .expect("attr0");
    ds.graphs.truncate(20);
    let mut g = c.benchmark_group("gram NWS96L first 20");
    g.sample_size(10);
    g.throughput(Throughput::Elements(210));
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr1, 0.1)", &ds.edge_schema).unwrap();
    let spec = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap();
    let mut kv = Field::new("label", KroneckerDelta::new(0.5));
    let mut ke = Field::new("label", KroneckerDelta::new(0.5)) * Field::new("attr1", SquareExponential::new(0.1));
    kv.bind(&ds.node_schema).unwrap();
    ke.bind(&ds.edge_schema).unwrap();
    let stat = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap();
    g.bench_function("static", |b| b.iter(|| stat.gram(&ds.graphs).unwrap()));
    g.bench_function("spec", |b| b.iter(|| spec.gram(&ds.graphs).unwrap()));
    g.finish();
}

/// One κe table of the size of a BA96L pair (540 × 540 edges, 291,600
/// values; label classes 0..9, attributes in [0, 1)): the reference edge
/// kernel `delta(label, 0.5) * sqexp(attr1, 0.1)` as a SPEC (evaluated row
/// by row) and composed in Rust (whole tables of its parts), and its square
/// exponential alone.
///
/// `cargo bench --bench basekernel -- "table 540" --warm-up-time 1 --measurement-time 2`
fn table_ba(c: &mut Criterion) {
    const N: usize = 540;
    let s = Arc::new(Schema::new().with("label", FieldKind::Int).with("attr1", FieldKind::Float));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let recs: Vec<Record> = (0..N)
        .map(|_| Record::new(s.clone(), [Value::Int(rng.random_range(0..9)), Value::Float(rng.random())]).unwrap())
        .collect();
    let refs: Vec<&Record> = recs.iter().collect();
    let spec = SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr1, 0.1)", &s).unwrap();
    let mut stat = Field::new("label", KroneckerDelta::new(0.5)) * Field::new("attr1", SquareExponential::new(0.1));
    stat.bind(&s).unwrap();
    let mut se = Field::new("attr1", SquareExponential::new(0.1));
    se.bind(&s).unwrap();
    let mut g = c.benchmark_group("table 540x540");
    g.throughput(Throughput::Elements((N * N) as u64));
    let mut out = Vec::new();
    g.bench_function("delta*sqexp spec", |b| b.iter(|| black_box(&spec).table(&refs, &refs, &mut out)));
    g.bench_function("delta*sqexp static", |b| b.iter(|| black_box(&stat).table(&refs, &refs, &mut out)));
    g.bench_function("sqexp static", |b| b.iter(|| black_box(&se).table(&refs, &refs, &mut out)));
    g.finish();
}

criterion_group!(benches, bench, gram, table_ba);
criterion_main!(benches);
