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

type Own = super::super::testing::OwnSystem;

fn own(c: f64, beta: f64) -> Own {
    Own::new(0.5, c, beta)
}

/// The dense solve of the same system: the value.
fn dense_value<S: PairSystem<u8, Record>>(s: &S, g: &G, h: &G) -> f64 {
    let dim = g.num_nodes() * h.num_nodes();
    let (pg, ph) = (Octiles::<f64, _>::new(g), Octiles::<f64, _>::new(h));
    let k = KronProduct::new(&pg, &ph, s.edge_kernel()).unwrap().to_dense();
    let (mut d, mut b, mut o) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
    s.diagonal(g, h, &mut d);
    s.rhs(g, h, &mut b);
    s.output(g, h, &mut o);
    let mut a: Vec<f64> = k.iter().map(|v| -s.coupling() * v).collect();
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

use super::super::testing::{DenseOnly, FactoredSystem};
use crate::kron::{Factor, LabelKernel, LabelPower, Unlabeled};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// A factored system (d, b, o generated from per-node vectors and κv)
    /// gives the values, nodal outputs and gradients of the same system
    /// stated densely per pair (relative 1e-12), and equals the dense solve;
    /// directed pairs too.
    #[test]
    fn factored_matches_dense_per_pair(n in 1usize..6, m in 1usize..6, seed in any::<u64>(), directed in any::<bool>(),
                                       c in 0.02f64..0.3, sd in 0.5f64..3.0, sb in 0.1f64..2.0, hv in 0.1f64..1.0) {
        let gs = vec![random_graph(n, directed, seed), random_graph(m, directed, seed ^ 5)];
        let s = FactoredSystem::new(hv, c, sd, sb);
        let pairs = [(0usize, 1usize), (1, 1), (1, 0)];
        let opts = PairSolve { tol: 1e-13, gradient: !directed, nodal: true, ..Default::default() };
        let f = solve_pairs_cpu(&s, &gs, None, &pairs, &opts).unwrap();
        let d = solve_pairs_cpu(&DenseOnly(s.clone()), &gs, None, &pairs, &opts).unwrap();
        for ((a, b), &(i, j)) in f.iter().zip(&d).zip(&pairs) {
            prop_assert!((a.value - b.value).abs() <= 1e-12 * b.value.abs().max(1e-300), "{} vs {}", a.value, b.value);
            for (x, y) in a.grad.iter().zip(&b.grad) {
                prop_assert!((x - y).abs() <= 1e-10 * y.abs().max(1.0), "gradient {x} vs {y}");
            }
            for (x, y) in a.nodal.as_ref().unwrap().iter().zip(b.nodal.as_ref().unwrap()) {
                prop_assert!((x - y).abs() <= 1e-12 * b.value.abs(), "nodal {x} vs {y}");
            }
            let want = dense_value(&s, &gs[i], &gs[j]);
            prop_assert!((a.value - want).abs() <= 1e-10 * want.abs(), "{} vs dense {}", a.value, want);
        }
    }
}

/// The default dense methods evaluate the factored form; a part that uses a
/// missing label kernel, or a non-finite scale, is refused with a typed error.
#[test]
fn factored_defaults_and_errors() {
    struct Bare(Option<LabelKernel<u8>>, f64);
    impl PairSystem<u8, Record> for Bare {
        type EdgeKernel = Unlabeled;
        fn edge_kernel(&self) -> &Unlabeled {
            &Unlabeled
        }
        fn coupling(&self) -> f64 {
            0.1
        }
        fn factored(&self) -> Option<Factored<u8>> {
            Some(Factored {
                diagonal: Factor::new(self.1).with_label(LabelPower::Divide),
                rhs: Factor::new(1.0),
                output: Factor::new(1.0),
                label_kernel: self.0.clone(),
            })
        }
    }
    let gs = vec![random_graph(3, false, 7), random_graph(4, false, 8)];
    let (g, h) = (&gs[0], &gs[1]);
    let ok = Bare(Some(LabelKernel::new(KroneckerDelta::new(0.25))), 2.0);
    let mut d = vec![0.0; 12];
    ok.diagonal(g, h, &mut d);
    for (k, v) in d.iter().enumerate() {
        let same = g.node_labels()[k / 4] == h.node_labels()[k % 4];
        assert_eq!(*v, if same { 2.0 } else { 2.0 / 0.25 });
    }
    let mut b = vec![0.0; 12];
    ok.rhs(g, h, &mut b);
    assert!(b.iter().all(|&v| v == 1.0));
    let e = solve_pairs_cpu(&Bare(None, 2.0), &gs, None, &[(0, 1)], &PairSolve::default()).unwrap_err();
    assert!(matches!(e, PairSystemError::Kernel(_)) && e.to_string().contains("label_kernel is None"), "{e}");
    let e = solve_pairs_cpu(&Bare(None, f64::NAN), &gs, None, &[(0, 1)], &PairSolve::default()).unwrap_err();
    assert!(matches!(e, PairSystemError::Kernel(_)) && e.to_string().contains("not finite"), "{e}");
    // neither a dense nor a factored form: NaN entries, reported
    struct Nothing;
    impl PairSystem<u8, Record> for Nothing {
        type EdgeKernel = Unlabeled;
        fn edge_kernel(&self) -> &Unlabeled {
            &Unlabeled
        }
        fn coupling(&self) -> f64 {
            0.1
        }
    }
    let e = solve_pairs_cpu(&Nothing, &gs, None, &[(0, 1)], &PairSolve::default()).unwrap_err();
    assert!(matches!(e, PairSystemError::NotFinite { what: "diagonal", .. }), "{e}");
}

/// The marginalized graph kernel's factored form gives what its dense
/// methods give (and the MGK's own Gram matrix) on the CPU.
#[test]
fn mgk_factored_matches_its_dense_form() {
    use crate::mgk::{MarginalizedGraphKernel, MgkPairSystem};
    let gs: Vec<G> = (0..4).map(|k| random_graph(2 + 2 * k, false, 30 + k as u64)).collect();
    let mgk =
        MarginalizedGraphKernel::new(KroneckerDelta::new(0.4), Field::new("label", KroneckerDelta::new(0.5)), 0.05)
            .unwrap()
            .with_tolerance(1e-13)
            .unwrap();
    let pairs: Vec<(usize, usize)> = (0..4).flat_map(|a| (a..4).map(move |b| (a, b))).collect();
    let opts = PairSolve { tol: 1e-14, ..Default::default() };
    let sys = MgkPairSystem::new(&mgk).unwrap();
    let f = solve_pairs_cpu(&sys, &gs, None, &pairs, &opts).unwrap();
    let d = solve_pairs_cpu(&DenseOnly(sys), &gs, None, &pairs, &opts).unwrap();
    let want = mgk.gram(&gs).unwrap();
    for ((a, b), &(i, j)) in f.iter().zip(&d).zip(&pairs) {
        assert!((a.value - b.value).abs() <= 1e-13 * b.value, "{} vs {}", a.value, b.value);
        assert!((a.value - want.get(i, j)).abs() <= 1e-12 * want.get(i, j));
    }
}
