//! Gram matrices on the bundled data sets: the marginalized graph kernel
//! (reference set-up of data/README: q = 0.05; unlabeled sets κv = κe = 1;
//! labeled sets κv = delta(label, 0.5), κe = delta(label, 0.5) ·
//! sqexp(attr1, 0.1), weights from attr0) in f64 and f32, and the geometric
//! random-walk kernel (λ = 0.001, unlabeled and labeled), on the first 16
//! graphs of each set (136 pairs).
//!
//! Run: `cargo bench --bench gram -- --warm-up-time 1 --measurement-time 5`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kronograph::basekernel::spec::SpecKernel;
use kronograph::graph::io;
use kronograph::mgk::{MarginalizedGraphKernel, Precision};
use kronograph::rw::RandomWalkKernel;

const N: usize = 16;

fn data(name: &str) -> String {
    format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn bench(c: &mut Criterion) {
    let sets = [
        ("synthetic/NWS96", false),
        ("synthetic/BA96", false),
        ("synthetic/NWS96L", true),
        ("synthetic/BA96L", true),
        ("MUTAG", true),
    ];
    let pairs = (N * (N + 1) / 2) as u64;
    let mut grp = c.benchmark_group("gram");
    grp.throughput(Throughput::Elements(pairs));
    grp.sample_size(10);
    for (name, labeled) in sets {
        let mut ds = io::load(data(name)).expect("bundled data");
        if name.starts_with("synthetic") && labeled {
            ds = ds.with_weights_from("attr0").expect("attr0");
        }
        ds.graphs.truncate(N);
        let short = name.trim_start_matches("synthetic/");
        let (vs, es) = match (labeled, name) {
            (false, _) => ("constant(1)", "constant(1)"),
            (true, "MUTAG") => ("delta(label, 0.5)", "delta(label, 0.5)"),
            (true, _) => ("delta(label, 0.5)", "delta(label, 0.5) * sqexp(attr1, 0.1)"),
        };
        let kv = SpecKernel::parse_for(vs, &ds.node_schema).unwrap();
        let ke = SpecKernel::parse_for(es, &ds.edge_schema).unwrap();
        let mgk = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap();
        for (prec, p) in [("f64", Precision::F64), ("f32", Precision::F32)] {
            let k = mgk.clone().with_precision(p);
            grp.bench_function(BenchmarkId::new(format!("mgk/{short}"), prec), |b| {
                b.iter(|| k.gram(&ds.graphs).unwrap())
            });
        }
        let rw = RandomWalkKernel::new(1e-3).unwrap();
        if name.starts_with("synthetic") {
            if labeled {
                grp.bench_function(BenchmarkId::new(format!("rw_labeled/{short}"), "f64"), |b| {
                    b.iter(|| rw.gram_labeled(&ds.graphs).unwrap())
                });
            } else {
                grp.bench_function(BenchmarkId::new(format!("rw/{short}"), "f64"), |b| {
                    b.iter(|| rw.gram(&ds.graphs).unwrap())
                });
            }
        }
    }
    grp.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
