//! SpMSpV `yᵀ = xᵀ A` per merge strategy, and pull, at several frontier
//! densities: `cargo bench --bench spmspv`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kronograph::graph::generate::{rmat, RmatParams};
use kronograph::matrix::{vxm_sparse, Descriptor, MergeStrategy, PushPull, SparseMatrix, SparseVector, SpmspvOptions};
use kronograph::semirings::{AnySecondi, PlusTimes};
use rand::{Rng, SeedableRng};
use std::hint::black_box;

fn spmspv(c: &mut Criterion) {
    let scale = std::env::var("KRONOGRAPH_BENCH_MAX_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(16);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let graph = rmat(&RmatParams::graph500(scale), &mut rng).unwrap();
    let a = SparseMatrix::from_graph(&graph);
    let n = a.nrows();
    let mut g = c.benchmark_group(format!("spmspv/rmat{scale}"));
    g.sample_size(20);
    for density in [0.001, 0.01, 0.1] {
        let idx: Vec<usize> = (0..n).filter(|_| rng.random_bool(density)).collect();
        let flops: usize = idx.iter().map(|&k| a.row(k).0.len()).sum();
        let xf = SparseVector::try_new(n, idx.clone(), idx.iter().map(|&i| i as f64).collect()).unwrap();
        let xu = SparseVector::try_new(n, idx.clone(), idx.iter().map(|&i| i as u64).collect()).unwrap();
        g.throughput(Throughput::Elements(flops as u64));
        let mut run = |label: String, direction: PushPull, strategy: MergeStrategy| {
            let opts = SpmspvOptions { strategy, direction };
            g.bench_function(format!("plus_times/{label}/{density}"), |b| {
                let mut y = SparseVector::new(n);
                b.iter(|| {
                    vxm_sparse(
                        &mut y,
                        None,
                        None,
                        PlusTimes::<f64>::new(),
                        black_box(&xf),
                        &a,
                        &Descriptor::DEFAULT,
                        &opts,
                    )
                    .unwrap()
                })
            });
            g.bench_function(format!("any_secondi/{label}/{density}"), |b| {
                let mut y = SparseVector::new(n);
                b.iter(|| {
                    vxm_sparse(
                        &mut y,
                        None,
                        None,
                        AnySecondi::<u64, f64>::new(),
                        black_box(&xu),
                        &a,
                        &Descriptor::DEFAULT,
                        &opts,
                    )
                    .unwrap()
                })
            });
        };
        for (label, strategy) in [
            ("scatter", MergeStrategy::Scatter),
            ("mergesort", MergeStrategy::MergeSort),
            ("radixsort", MergeStrategy::RadixSort),
        ] {
            run(format!("push-{label}"), PushPull::Push, strategy);
        }
        run("pull".to_string(), PushPull::Pull, MergeStrategy::Scatter);
    }
    g.finish();
}

criterion_group!(benches, spmspv);
criterion_main!(benches);
