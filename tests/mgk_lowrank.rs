//! The CPU engine's factorized product for edge kernels of low rank
//! (`BaseKernel::low_rank`: delta on labels, constants, their sums and
//! products) against the entry-by-entry product of the same kernel.

use kronograph::basekernel::SpecKernel;
use kronograph::basekernel::{BaseKernel, Constant, Hyperparameter, KernelError, KroneckerDelta};
use kronograph::graph::{io, Direction, Graph, GraphBuilder, Record};
use kronograph::mgk::{MarginalizedGraphKernel, Precision};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The kernel inside, without its low-rank form: the engine takes the
/// entry-by-entry path.
#[derive(Clone, Debug)]
struct Opaque<K>(K);

impl<T: ?Sized, K: BaseKernel<T>> BaseKernel<T> for Opaque<K> {
    fn value(&self, a: &T, b: &T) -> f64 {
        self.0.value(a, b)
    }
    fn range(&self) -> (f64, f64) {
        self.0.range()
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        self.0.hyperparameters()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        self.0.set_theta(theta)
    }
}

fn labeled_graph(n: usize, p: f64, classes: u8, directed: bool, seed: u64) -> Graph<u8, u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let dir = if directed { Direction::Directed } else { Direction::Undirected };
    let labels = (0..n).map(|_| rng.random_range(0..3u8)).collect();
    let mut b = GraphBuilder::new(n, dir).node_labels(labels);
    for i in 0..n {
        for j in if directed { 0 } else { i }..n {
            if (i != j || rng.random_bool(0.2)) && rng.random_bool(p) {
                b.push_edge(i, j, rng.random_range(0.5..2.0), rng.random_range(0..classes));
            }
        }
    }
    b.build().unwrap()
}

fn compare<K: BaseKernel<u8>>(ke: K, graphs: &[Graph<u8, u8>], precision: Precision, tol: f64) {
    let fast =
        MarginalizedGraphKernel::new(KroneckerDelta::new(0.5), ke.clone(), 0.05).unwrap().with_precision(precision);
    let slow =
        MarginalizedGraphKernel::new(KroneckerDelta::new(0.5), Opaque(ke), 0.05).unwrap().with_precision(precision);
    let (a, b) = (fast.gram(graphs).unwrap(), slow.gram(graphs).unwrap());
    for i in 0..graphs.len() {
        for j in 0..graphs.len() {
            let (x, y) = (a.get(i, j), b.get(i, j));
            assert!((x - y).abs() <= tol * y.abs(), "({i}, {j}): {x} vs {y}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn factorized_matches_entry_by_entry(
        p in 0.1f64..0.6, classes in 1u8..5, h in 0.0f64..1.0, directed in any::<bool>(), seed in any::<u64>(),
    ) {
        let graphs: Vec<_> =
            (0..4).map(|k| labeled_graph(2 + (k * 7 + seed as usize % 5) % 14, p, classes, directed, seed + k as u64)).collect();
        compare(KroneckerDelta::new(h), &graphs, Precision::F64, 1e-12);
        compare(KroneckerDelta::new(h) * Constant::new(0.9) + 0.05 * KroneckerDelta::new(0.3), &graphs, Precision::F64, 1e-12);
        compare(KroneckerDelta::new(h), &graphs, Precision::F32, 1e-4);
    }
}

/// On a larger pair (BA-like degrees, where the factorized product is
/// cheaper), the values agree too.
#[test]
fn factorized_on_denser_graphs() {
    let graphs: Vec<_> = (0..3).map(|k| labeled_graph(40 + 5 * k, 0.25, 3, false, 77 + k as u64)).collect();
    compare(KroneckerDelta::new(0.5), &graphs, Precision::F64, 1e-12);
    compare(KroneckerDelta::new(0.5) * KroneckerDelta::new(0.2), &graphs, Precision::F64, 1e-12);
}

/// SPEC kernels (compiled expressions) have the low-rank form of the
/// built-in kernels they are made of: MUTAG's Gram matrix with SPEC delta
/// edge kernels equals the entry-by-entry one, and the forms equal the tables.
#[test]
fn spec_kernels_factorize_on_mutag() {
    let ds = io::load(format!("{}/data/MUTAG", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let graphs = &ds.graphs[..12];
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    for spec in
        ["delta(label, 0.5)", "0.7 * delta(label, 0.4) + 0.3", "0.9 * delta(label, 0.5) * delta(label, 0.2) + 0.1"]
    {
        let ke = SpecKernel::parse_for(spec, &ds.edge_schema).unwrap();
        let labels: Vec<&Record> = graphs[0].edge_labels().iter().chain(graphs[1].edge_labels()).collect();
        let (a, b) = labels.split_at(labels.len() / 2);
        let lr = ke.low_rank(a, b).unwrap_or_else(|| panic!("{spec}: no low-rank form"));
        let mut table = Vec::new();
        ke.table(a, b, &mut table);
        for i in 0..a.len() {
            for j in 0..b.len() {
                assert!((lr.value(i, j) - table[i * b.len() + j]).abs() <= 1e-14, "{spec} ({i}, {j})");
            }
        }
        let fast = MarginalizedGraphKernel::new(kv.clone(), ke.clone(), 0.05).unwrap();
        let slow = MarginalizedGraphKernel::new(kv.clone(), Opaque(ke), 0.05).unwrap();
        let (x, y) = (fast.gram(graphs).unwrap(), slow.gram(graphs).unwrap());
        for i in 0..graphs.len() {
            for j in 0..graphs.len() {
                let (u, v) = (x.get(i, j), y.get(i, j));
                assert!((u - v).abs() <= 1e-12 * v.abs(), "{spec} ({i}, {j}): {u} vs {v}");
            }
        }
    }
    let sq = SpecKernel::parse_for("delta(label, 0.5) * sqexp(label, 1.0)", &ds.edge_schema).unwrap();
    let labels: Vec<&Record> = graphs[0].edge_labels().iter().collect();
    assert!(sq.low_rank(&labels, &labels).is_none(), "sqexp has no exact low-rank form");
}
