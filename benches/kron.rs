//! KronProduct mxv: `y ← y + (W ⊗ W') ⊙ κe(E, E') x` on 96-node graphs shaped
//! like the synthetic benchmark sets (Newman–Watts–Strogatz k = 3, p = 0.1
//! and Barabási–Albert m = 6), unlabeled and with a Gaussian edge kernel on
//! real edge labels, in f64 and f32.
//!
//! The edge-pair table products the MGK's CPU engine runs (`table_mxv`):
//! the scalar [`EdgePairKron`] against the SIMD [`SellKron`] (SELL-8
//! packing, gathered rows), on the graphs numbered by decreasing degree as
//! the engine numbers them.
//!
//! One whole Jacobi-preconditioned CG solve of the MGK system
//! `(D× − A×) r = D× 1` on the SIMD product (`cg_pair`: the product, the
//! fused CG passes and the direction step with `p ← z + βp` folded into the
//! diagonal pass), tolerance 1e-12, q = 0.05, f64.
//!
//! Run: `cargo bench --bench kron -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kronograph::basekernel::BaseKernel;
use kronograph::graph::reorder::Permutation;
use kronograph::graph::{Direction, Graph, GraphBuilder};
use kronograph::kron::{
    EdgePairKron, KronApply, KronProduct, KronScalar, MatchedKron, Octiles, SellKron, SellPattern, Unlabeled,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// exp(−(a − b)² / (2 · 0.1²)) on real edge labels.
#[derive(Clone, Debug)]
struct Gauss;
impl BaseKernel<f64> for Gauss {
    #[inline]
    fn value(&self, a: &f64, b: &f64) -> f64 {
        (-(a - b) * (a - b) * 50.0).exp()
    }
    fn range(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
}

fn nws(n: usize, seed: u64) -> Graph<u8, f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b =
        GraphBuilder::new(n, Direction::Undirected).node_labels((0..n).map(|_| rng.random_range(0..9)).collect());
    for i in 0..n {
        b.push_edge(i, (i + 1) % n, 1.0, rng.random_range(0.0..1.0));
        if rng.random_bool(0.1) {
            let j = (i + 2 + rng.random_range(0..n - 3)) % n;
            if j != i && j != (i + 1) % n && (j + 1) % n != i {
                b.push_edge(i, j, 1.0, rng.random_range(0.0..1.0));
            }
        }
    }
    b.duplicates(kronograph::graph::Duplicates::KeepFirst).build().unwrap()
}

fn ba(n: usize, m: usize, seed: u64) -> Graph<u8, f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b =
        GraphBuilder::new(n, Direction::Undirected).node_labels((0..n).map(|_| rng.random_range(0..9)).collect());
    let mut ends: Vec<usize> = (0..m).collect();
    for v in m..n {
        let mut targets: Vec<usize> = Vec::new();
        while targets.len() < m {
            let t = ends[rng.random_range(0..ends.len())];
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
        for &t in &targets {
            b.push_edge(v, t, 1.0, rng.random_range(0.0..1.0));
            ends.push(t);
            ends.push(v);
        }
    }
    b.build().unwrap()
}

fn mxv<T: KronScalar, K: BaseKernel<f64>>(
    c: &mut Criterion,
    name: &str,
    g: &Graph<u8, f64>,
    h: &Graph<u8, f64>,
    k: &K,
) {
    let (pg, ph) = (Octiles::<T, f64>::new(g), Octiles::<T, f64>::new(h));
    let kron = KronProduct::new(&pg, &ph, k).unwrap();
    let x: Vec<T> = (0..kron.dim()).map(|i| T::of_f64((i % 7) as f64 * 0.1)).collect();
    let mut y = vec![T::zero(); kron.dim()];
    let mut grp = c.benchmark_group("kron_mxv");
    grp.throughput(Throughput::Elements((g.num_entries() * h.num_entries()) as u64));
    grp.bench_function(BenchmarkId::new(name, T::NAME), |b| b.iter(|| kron.apply_add(T::one(), black_box(&x), &mut y)));
    grp.finish();
}

/// `g` with its nodes numbered by decreasing degree.
fn by_degree(g: &Graph<u8, f64>) -> Graph<u8, f64> {
    let mut order: Vec<usize> = (0..g.num_nodes()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(g.out_degree(i)));
    Permutation::from_order(order).unwrap().apply(g).unwrap()
}

/// The edge-pair table products, scalar and SIMD.
fn table_mxv<T: KronScalar>(c: &mut Criterion, name: &str, g: &Graph<u8, f64>, h: &Graph<u8, f64>) {
    let (g, h) = (by_degree(g), by_degree(h));
    let (pg, ph) = (Octiles::<T, f64>::new(&g), Octiles::<T, f64>::new(&h));
    let (mut values, mut scratch, mut slots, mut row) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    EdgePairKron::table(&pg, &ph, &Gauss, &mut values, &mut scratch);
    let pat = SellPattern::new(&ph);
    SellKron::table(&pg, &ph, &pat, &Gauss, &mut slots, &mut scratch, &mut row);
    let (scalar, simd) = (EdgePairKron::new(&pg, &ph, &values), SellKron::new(&pg, &pat, &slots, Vec::new()));
    let x: Vec<T> = (0..scalar.dim()).map(|i| T::of_f64((i % 7) as f64 * 0.1)).collect();
    let mut y = vec![T::zero(); scalar.dim()];
    let mut grp = c.benchmark_group("table_mxv");
    grp.throughput(Throughput::Elements((g.num_entries() * h.num_entries()) as u64));
    grp.bench_function(BenchmarkId::new(format!("{name}/edge_pair"), T::NAME), |b| {
        b.iter(|| scalar.apply_add(T::one(), black_box(&x), &mut y))
    });
    grp.bench_function(BenchmarkId::new(format!("{name}/sell"), T::NAME), |b| {
        b.iter(|| simd.apply_add(T::one(), black_box(&x), &mut y))
    });
    grp.finish();
}

/// One CG solve of the MGK system on the SIMD product (module documentation).
fn cg_pair(c: &mut Criterion, name: &str, g: &Graph<u8, f64>, h: &Graph<u8, f64>) {
    use kronograph::kron::{Diag, ShiftedKron};
    use kronograph::solver::{cg, CgParams, Precond, Workspace};
    let (g, h) = (by_degree(g), by_degree(h));
    let (pg, ph) = (Octiles::<f64, f64>::new(&g), Octiles::<f64, f64>::new(&h));
    let pat = SellPattern::new(&ph);
    let (mut slots, mut scratch, mut row) = (Vec::new(), Vec::new(), Vec::new());
    SellKron::table(&pg, &ph, &pat, &Gauss, &mut slots, &mut scratch, &mut row);
    let k = SellKron::new(&pg, &pat, &slots, Vec::new());
    let s = 1.0 / (0.95f64 * 0.95);
    let (dg, dh) = (g.degrees(), h.degrees());
    let d: Vec<f64> = dg.iter().flat_map(|&a| dh.iter().map(move |&b| s * a.max(1.0) * b.max(1.0))).collect();
    let op = ShiftedKron::new(Diag::Vec(&d), 1.0, &k).unwrap();
    let params = CgParams { precond: Precond::Jacobi, check_symmetry: false, ..Default::default() };
    let (mut x, mut ws) = (vec![0.0; d.len()], Workspace::new());
    c.bench_function(&format!("cg_pair/{name}/f64"), |b| {
        b.iter(|| cg(&op, black_box(&d), &mut x, &params, &mut ws).unwrap().iterations)
    });
}

fn bench(c: &mut Criterion) {
    let (g1, g2) = (nws(96, 1), nws(96, 2));
    let (b1, b2) = (ba(96, 6, 1), ba(96, 6, 2));
    use kronograph::solver::Real;
    mxv::<f64, _>(c, "NWS96/unlabeled", &g1, &g2, &Unlabeled);
    mxv::<f32, _>(c, "NWS96/unlabeled", &g1, &g2, &Unlabeled);
    mxv::<f64, _>(c, "NWS96/gauss", &g1, &g2, &Gauss);
    mxv::<f32, _>(c, "NWS96/gauss", &g1, &g2, &Gauss);
    mxv::<f64, _>(c, "BA96/unlabeled", &b1, &b2, &Unlabeled);
    mxv::<f32, _>(c, "BA96/unlabeled", &b1, &b2, &Unlabeled);
    mxv::<f64, _>(c, "BA96/gauss", &b1, &b2, &Gauss);
    mxv::<f32, _>(c, "BA96/gauss", &b1, &b2, &Gauss);
    table_mxv::<f64>(c, "NWS96", &g1, &g2);
    table_mxv::<f32>(c, "NWS96", &g1, &g2);
    table_mxv::<f64>(c, "BA96", &b1, &b2);
    table_mxv::<f32>(c, "BA96", &b1, &b2);
    cg_pair(c, "NWS96", &g1, &g2);
    cg_pair(c, "BA96", &b1, &b2);
    // node-label-matched product (labeled random walks), 9 classes
    for (name, g, h) in [("NWS96", &g1, &g2), ("BA96", &b1, &b2)] {
        let cg: Vec<u32> = g.node_labels().iter().map(|&l| l as u32).collect();
        let ch: Vec<u32> = h.node_labels().iter().map(|&l| l as u32).collect();
        let (pg, ph) =
            (kronograph::kron::ClassPacking::<f64>::new(g, &cg), kronograph::kron::ClassPacking::<f64>::new(h, &ch));
        let k = MatchedKron::new(&pg, &ph);
        let x = vec![0.5; k.dim()];
        let mut y = vec![0.0; k.dim()];
        c.bench_function(&format!("matched_mxv/{name}/f64"), |b| b.iter(|| k.apply_add(1.0, black_box(&x), &mut y)));
        let _ = f64::of_f64(0.0);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
