//! Tests of the CPU pair-system solver against dense solves and finite differences.

use super::*;
use crate::basekernel::{Field, KroneckerDelta};
use crate::graph::{Direction, FieldKind, GraphBuilder, Record, Schema, Value};
use crate::solver::dense_solve;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

type G = Graph<u8, Record>;

fn random_graph(n: usize, directed: bool, seed: u64) -> G {
    let s = Arc::new(Schema::new().with("label", FieldKind::Int));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let dir = if directed { Direction::Directed } else { Direction::Undirected };
    let labels = (0..n).map(|_| rng.random_range(0..3u8)).collect();
    let mut b = GraphBuilder::new(n, dir).node_labels(labels);
    for i in 0..n {
        for j in 0..n {
            if (directed || i < j) && i != j && rng.random_bool(0.5) {
                let l = Record::new(s.clone(), [Value::Int(rng.random_range(0..2))]).unwrap();
                b.push_edge(i, j, rng.random_range(0.5..2.0), l);
            }
        }
    }
    b.build().unwrap()
}

/// (D ⊗ D' + 1 − c (W ⊗ W') ⊙ κe) x = b with b_(i,i') = 1 + β [v_i = v'_i'],
/// value Σ_(i,i') x · (1 + i'), θ = (c, β).
struct Own {
    kernel: Field<KroneckerDelta>,
    c: f64,
    beta: f64,
}

impl PairSystem<u8, Record> for Own {
    type EdgeKernel = Field<KroneckerDelta>;
    fn edge_kernel(&self) -> &Self::EdgeKernel {
        &self.kernel
    }
    fn coupling(&self) -> f64 {
        self.c
    }
    fn diagonal(&self, g: &G, h: &G, d: &mut [f64]) {
        let (dg, dh) = (g.degrees(), h.degrees());
        for (k, v) in d.iter_mut().enumerate() {
            *v = dg[k / h.num_nodes()] * dh[k % h.num_nodes()] + 1.0;
        }
    }
    fn rhs(&self, g: &G, h: &G, b: &mut [f64]) {
        let m = h.num_nodes();
        for (k, v) in b.iter_mut().enumerate() {
            let same = g.node_labels()[k / m] == h.node_labels()[k % m];
            *v = 1.0 + if same { self.beta } else { 0.0 };
        }
    }
    fn output(&self, _g: &G, h: &G, o: &mut [f64]) {
        let m = h.num_nodes();
        for (k, v) in o.iter_mut().enumerate() {
            *v = 1.0 + (k % m) as f64;
        }
    }
    fn num_params(&self) -> usize {
        2
    }
    fn derivatives(&self, g: &G, h: &G, t: usize, _dd: &mut [f64], db: &mut [f64], _do: &mut [f64]) -> f64 {
        if t == 0 {
            return 1.0;
        }
        let m = h.num_nodes();
        for (k, v) in db.iter_mut().enumerate() {
            *v = if g.node_labels()[k / m] == h.node_labels()[k % m] { 1.0 } else { 0.0 };
        }
        0.0
    }
}

fn own(c: f64, beta: f64) -> Own {
    Own { kernel: Field::new("label", KroneckerDelta::new(0.5)), c, beta }
}

/// The dense solve of the same system: the value.
fn dense_value(s: &Own, g: &G, h: &G) -> f64 {
    let dim = g.num_nodes() * h.num_nodes();
    let (pg, ph) = (Octiles::<f64, _>::new(g), Octiles::<f64, _>::new(h));
    let k = KronProduct::new(&pg, &ph, &s.kernel).unwrap().to_dense();
    let (mut d, mut b, mut o) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
    s.diagonal(g, h, &mut d);
    s.rhs(g, h, &mut b);
    s.output(g, h, &mut o);
    let mut a: Vec<f64> = k.iter().map(|v| -s.c * v).collect();
    for i in 0..dim {
        a[i * dim + i] += d[i];
    }
    let x = dense_solve(dim, &a, &b).unwrap();
    o.iter().zip(&x).map(|(o, x)| o * x).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Values equal the dense solve (relative 1e-10, CG at tol 1e-13),
    /// directed pairs too (BiCGSTAB); gradients equal central finite
    /// differences of the dense values (relative 1e-5).
    #[test]
    fn pair_system_matches_dense(n in 1usize..6, m in 1usize..6, seed in any::<u64>(), directed in any::<bool>(),
                                 c in 0.05f64..0.9, beta in 0.0f64..2.0) {
        let gs = vec![random_graph(n, directed, seed), random_graph(m, directed, seed ^ 9)];
        let s = own(c, beta);
        let opts = PairSolve { tol: 1e-13, gradient: !directed, nodal: true, ..Default::default() };
        let out = solve_pairs_cpu(&s, &gs, None, &[(0, 1), (1, 1)], &opts).unwrap();
        for (r, &(a, b)) in out.iter().zip(&[(0usize, 1usize), (1, 1)]) {
            let want = dense_value(&s, &gs[a], &gs[b]);
            prop_assert!((r.value - want).abs() <= 1e-10 * want.abs().max(1.0), "{} vs {}", r.value, want);
            let nodal: f64 = r.nodal.as_ref().unwrap().iter().sum();
            prop_assert!((nodal - r.value).abs() <= 1e-12 * r.value.abs().max(1.0));
            if !directed {
                let hstep = 1e-5;
                let fd_c = (dense_value(&own(c + hstep, beta), &gs[a], &gs[b])
                    - dense_value(&own(c - hstep, beta), &gs[a], &gs[b])) / (2.0 * hstep);
                let fd_b = (dense_value(&own(c, beta + hstep), &gs[a], &gs[b])
                    - dense_value(&own(c, beta - hstep), &gs[a], &gs[b])) / (2.0 * hstep);
                prop_assert!((r.grad[0] - fd_c).abs() <= 1e-5 * fd_c.abs().max(1.0), "{} vs {}", r.grad[0], fd_c);
                prop_assert!((r.grad[1] - fd_b).abs() <= 1e-5 * fd_b.abs().max(1.0), "{} vs {}", r.grad[1], fd_b);
            }
        }
    }
}

/// Each typed error of `solve_pairs`.
#[test]
fn pair_system_errors() {
    let gs = vec![random_graph(4, false, 1), random_graph(3, false, 2)];
    let s = own(0.3, 1.0);
    let cuda = PairSolve { backend: Backend::Cuda(0), ..Default::default() };
    assert!(matches!(solve_pairs_cpu(&s, &gs, None, &[(0, 1)], &cuda), Err(PairSystemError::GpuNotSupported)));
    // the one entry point on the CPU backend is the CPU solver
    let cpu = PairSolve { backend: Backend::Cpu, ..Default::default() };
    assert_eq!(
        solve_pairs(&s, &gs, None, &[(0, 1)], &cpu).unwrap(),
        solve_pairs_cpu(&s, &gs, None, &[(0, 1)], &cpu).unwrap()
    );
    let e = solve_pairs(&s, &gs, None, &[(0, 2)], &cpu).unwrap_err();
    assert!(matches!(e, PairSystemError::PairIndex { index: 2, list: "second", len: 2, .. }), "{e}");
    let bad = Own { kernel: Field::new("lable", KroneckerDelta::new(0.5)), c: 0.3, beta: 1.0 };
    let e = solve_pairs_cpu(&bad, &gs, None, &[(0, 1)], &PairSolve::default()).unwrap_err();
    assert!(matches!(e, PairSystemError::Kernel(_)) && e.to_string().contains("lable"), "{e}");
    let nan = own(0.3, f64::NAN);
    let e = solve_pairs_cpu(&nan, &gs, None, &[(0, 1)], &PairSolve::default()).unwrap_err();
    assert!(matches!(e, PairSystemError::NotFinite { what: "right-hand side", .. }), "{e}");
    let dg = vec![random_graph(3, true, 4)];
    let grad = PairSolve { gradient: true, ..Default::default() };
    let e = solve_pairs_cpu(&s, &dg, None, &[(0, 0)], &grad).unwrap_err();
    assert!(matches!(e, PairSystemError::DirectedGradient { pair: (0, 0) }), "{e}");
    // a singular-ish system that CG cannot solve in 2 iterations
    let few = PairSolve { max_iters: 1, tol: 1e-15, ..Default::default() };
    let e = solve_pairs_cpu(&own(0.9, 1.0), &gs, None, &[(0, 0)], &few).unwrap_err();
    assert!(matches!(e, PairSystemError::Solver { pair: (0, 0), .. }), "{e}");
}
