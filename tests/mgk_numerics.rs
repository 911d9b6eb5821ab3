//! Numerics of the graph kernels at the edges: extreme weights (scale
//! invariance of the marginalized graph kernel, λ folding for the random
//! walk), empty graphs and zero norms, directed random walks near and past
//! their convergence limit, parameters below what the arithmetic reaches,
//! kernels whose hyperparameters underflow, and per-iteration progress.
//! The GPU part skips without a GPU and fails when `KRONOGRAPH_REQUIRE_GPU=1`.
#![allow(clippy::needless_range_loop)]

use crate::mgk_common;

use kronograph::basekernel::spec::SpecKernel;
use kronograph::cuda::Backend;
use kronograph::graph::{io, Direction, Graph, GraphBuilder, Record};
use kronograph::mgk::{normalize_gram, MarginalizedGraphKernel, MgkError, Precision, StartProbability};
use kronograph::rw::{RandomWalkKernel, RwMethod};
use mgk_common::*;
use proptest::prelude::*;
use std::sync::{Arc, Mutex};

type Mgk = MarginalizedGraphKernel<u8, f64, Delta, SqExp>;

fn kernel(q: f64) -> Mgk {
    MarginalizedGraphKernel::new(Delta(0.5), SqExp(0.7), q).unwrap()
}

fn scaled<N: kronograph::graph::Label, E: kronograph::graph::Label>(g: &Graph<N, E>, c: f64) -> Graph<N, E> {
    g.with_weights(|w, _| w * c).unwrap()
}

/// Scale factors well beyond where the products `d d'` and `w w'` over- or underflow.
const SCALES: [f64; 8] = [1e-150, 1e-120, 1e-100, 1e-60, 1e60, 1e77, 1e100, 1e150];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// K(cG, c'G') = K(G, G') for f64, whatever the scales; graphs with
    /// isolated nodes (degree-0 → 1 rule) included.
    #[test]
    fn mgk_is_scale_invariant_f64(
        n in 1usize..8, m in 1usize..8, p in 0.1f64..0.7, seed in any::<u64>(),
        a in 0usize..8, b in 0usize..8, lmin in 0u32..2,
    ) {
        let g = random_graph(n, p, seed, Direction::Undirected);
        let h = random_graph(m, p, seed ^ 0x9e37, Direction::Undirected);
        let k = kernel(0.05).with_lmin(lmin).unwrap();
        let want = k.gram_xy(&[g.clone(), h.clone()], std::slice::from_ref(&h)).unwrap();
        let (gs, hs) = (scaled(&g, SCALES[a]), scaled(&h, SCALES[b]));
        let got = k.gram_xy(&[gs.clone(), hs.clone()], std::slice::from_ref(&hs)).unwrap();
        // lmin = 1 subtracts a term of the size of K: compare on the scale of K with lmin = 0
        let scale = kernel(0.05).gram_xy(&[g.clone(), h.clone()], std::slice::from_ref(&h)).unwrap();
        for i in 0..2 {
            let (x, y, s) = (got.get(i, 0), want.get(i, 0), scale.get(i, 0));
            prop_assert!(x.is_finite() && x >= 0.0, "{x}");
            prop_assert!((x - y).abs() <= 1e-12 * s, "scales {:e}, {:e}: {x} vs {y}", SCALES[a], SCALES[b]);
        }
        // the normalized kernel too (no NaN)
        let kn = k.gram_normalized(&[gs.clone(), hs.clone()]);
        if lmin == 0 {
            let kn = kn.unwrap();
            let want = k.gram_normalized(&[g, h]).unwrap();
            prop_assert!(max_rel(kn.as_slice(), want.as_slice()) <= 1e-12);
        }
    }

    /// The same in f32, with f32's tolerance, from 1e19 (where f32 products
    /// overflowed) to 1e-30.
    #[test]
    fn mgk_is_scale_invariant_f32(
        n in 1usize..8, m in 1usize..8, p in 0.1f64..0.7, seed in any::<u64>(), c in prop::sample::select(vec![1e19, 1e30, 1e-30, 1e-45, 1e150]),
    ) {
        let g = random_graph(n, p, seed, Direction::Undirected);
        let h = random_graph(m, p, seed ^ 0x51, Direction::Undirected);
        let k = kernel(0.05);
        let want = k.pair(&g, &h).unwrap();
        let got = k.clone().with_precision(Precision::F32).pair(&scaled(&g, c), &scaled(&h, c)).unwrap();
        prop_assert!((got - want).abs() <= 1e-4 * want, "scale {c:e}: {got} vs {want}");
    }
}

#[test]
fn directed_graphs_are_scale_invariant_too() {
    let g = random_graph(6, 0.4, 7, Direction::Directed);
    let h = random_graph(5, 0.5, 8, Direction::Directed);
    let k = kernel(0.1);
    let want = k.pair(&g, &h).unwrap();
    for c in SCALES {
        let got = k.pair(&scaled(&g, c), &scaled(&h, 1.0 / c)).unwrap();
        assert!(close(got, want, 1e-11), "{c:e}: {got} vs {want}");
    }
}

#[test]
fn weights_spanning_more_than_f64_are_a_typed_error() {
    let g = GraphBuilder::<u8, f64>::new(3, Direction::Undirected)
        .node_labels(vec![0; 3])
        .edge(0, 1, 1e300, 0.0)
        .edge(1, 2, 1e-300, 0.0)
        .build()
        .unwrap();
    let e = kernel(0.05).gram(std::slice::from_ref(&g)).unwrap_err();
    assert!(matches!(e, MgkError::WeightRange { graph: 0, .. }), "{e}");
    assert!(e.to_string().contains("orders of magnitude"), "{e}");
    let e = RandomWalkKernel::new(0.1).unwrap().gram(&[g]).unwrap_err();
    assert!(matches!(e, MgkError::WeightRange { .. }), "{e}");
}

fn empty() -> Graph<u8, f64> {
    GraphBuilder::<u8, f64>::new(0, Direction::Undirected).node_labels(vec![]).build().unwrap()
}

#[test]
fn empty_graphs_give_zero_and_their_normalization_is_an_error() {
    let g = random_graph(4, 0.5, 3, Direction::Undirected);
    let k = kernel(0.05);
    // no nodes, no walks: K = 0 (defined)
    let m = k.gram(&[g.clone(), empty()]).unwrap();
    assert_eq!((m.get(0, 1), m.get(1, 0), m.get(1, 1)), (0.0, 0.0, 0.0));
    assert!(m.get(0, 0) > 0.0);
    // K̃ = K / √(K K) is undefined: a typed error naming the graph, never NaN
    let e = k.gram_normalized(&[g.clone(), empty()]).unwrap_err();
    assert!(matches!(e, MgkError::ZeroNorm { graph: 1, .. }), "{e}");
    let e = k.gram_xy_normalized(std::slice::from_ref(&g), &[empty()]).unwrap_err();
    assert!(matches!(e, MgkError::ZeroNorm { graph: 0, list, .. } if list.contains("second")), "{e}");
    let e = k.gram_with_gradient(&[empty(), g.clone()], true).unwrap_err();
    assert!(matches!(e, MgkError::ZeroNorm { graph: 0, .. }), "{e}");
    // all start probabilities 0: the same
    let z = k.clone().with_start(StartProbability::PerNode(Arc::new(|_: &u8| 0.0))).unwrap();
    assert!(matches!(z.gram_normalized(std::slice::from_ref(&g)).unwrap_err(), MgkError::ZeroNorm { .. }));
    // the random walk: k = 0 for an empty graph
    let rw = RandomWalkKernel::new(0.01).unwrap().gram(&[g, empty()]).unwrap();
    assert_eq!(rw.get(1, 1), 0.0);
    // normalizing values computed elsewhere (the GPU's)
    let mut v = vec![4.0, 2.0, 2.0, 0.0];
    assert!(matches!(normalize_gram(&mut v, 2).unwrap_err(), MgkError::ZeroNorm { graph: 1, .. }));
    let mut v = vec![4.0, 2.0, 2.0, 9.0];
    normalize_gram(&mut v, 2).unwrap();
    assert_eq!(v, vec![1.0, 2.0 / 6.0, 2.0 / 6.0, 1.0]);
    assert!(normalize_gram(&mut v, 3).is_err());
}

#[test]
fn empty_matrix_market_file_gives_zero_not_nan() {
    let dir = std::env::temp_dir().join(format!("kronograph-numerics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("empty.mtx");
    std::fs::write(&path, "%%MatrixMarket matrix coordinate real symmetric\n0 0 0\n").unwrap();
    let ds = io::load(&path).unwrap();
    let kv = SpecKernel::parse_for("constant(1)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("constant(1)", &ds.edge_schema).unwrap();
    let k = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap();
    assert_eq!(k.gram(&ds.graphs).unwrap().as_slice(), &[0.0]);
    assert!(matches!(k.gram_normalized(&ds.graphs).unwrap_err(), MgkError::ZeroNorm { graph: 0, .. }));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn q_and_tolerance_below_what_the_arithmetic_reaches_are_refused_in_user_terms() {
    let e = MarginalizedGraphKernel::<u8, f64, _, _>::new(Delta(0.5), SqExp(1.0), 1e-300).unwrap_err();
    assert!(matches!(e, MgkError::QTooSmall(_)), "{e}");
    assert!(e.to_string().contains("q ≥ 1e-10"), "{e}");
    let e = kernel(0.05).with_tolerance(1e-300).unwrap_err().to_string();
    assert!(e.contains("at least 1e-15") && e.contains("--tol"), "{e}");
    let e = kernel(0.05).with_precision(Precision::F32).with_tolerance(1e-9).unwrap_err().to_string();
    assert!(e.contains("at least 1e-7"), "{e}");
    // the floor is checked again at solve time when the precision changes afterwards
    let k = kernel(0.05).with_tolerance(1e-12).unwrap().with_precision(Precision::F32);
    assert!(k.gram(&[random_graph(3, 0.5, 1, Direction::Undirected)]).is_err());
    let e = RandomWalkKernel::new(0.1).unwrap().with_tolerance(1e-300).unwrap_err().to_string();
    assert!(e.contains("at least 1e-15"), "{e}");
    // a solve that does not converge says what to change
    let e = kernel(0.05).with_max_iters(1).gram(&[random_path_graph(8, 0.3, 2)]).unwrap_err();
    assert!(matches!(e, MgkError::Solver { .. }), "{e}");
    assert!(e.to_string().contains("raise the iteration limit or the tolerance"), "{e}");
}

#[test]
fn a_kernel_hyperparameter_that_underflows_is_named() {
    let g = random_path_graph(5, 0.3, 11);
    // edge kernel: sqexp with a tiny length scale is 0/0 = NaN on equal labels
    let k = MarginalizedGraphKernel::new(Delta(0.5), SqExp(1e-200), 0.05).unwrap();
    let e = k.gram(&[g.clone(), g.clone()]).unwrap_err();
    assert!(matches!(e, MgkError::KernelValue { kernel: "edge", .. }), "{e}");
    assert!(e.to_string().contains("length scale"), "{e}");
    // node kernel: 0.5·sqexp + 0.5 has range [0.5, 1], but NaN on equal labels
    let s = Arc::new(kronograph::graph::Schema::new().with("x", kronograph::graph::FieldKind::Float));
    let labels: Vec<Record> =
        (0..3).map(|i| Record::new(s.clone(), [kronograph::graph::Value::Float(i as f64)]).unwrap()).collect();
    let mut b = GraphBuilder::<Record, ()>::new(3, Direction::Undirected).node_labels(labels);
    b.push_edge(0, 1, 1.0, ());
    b.push_edge(1, 2, 1.0, ());
    let g = b.build().unwrap();
    let kv = SpecKernel::parse_for("0.5 * sqexp(x, 1e-200) + 0.5", &s).unwrap();
    let k = MarginalizedGraphKernel::new(kv, kronograph::kron::Unlabeled, 0.05).unwrap();
    let e = k.gram(&[g]).unwrap_err();
    assert!(matches!(e, MgkError::KernelValue { kernel: "node", .. }), "{e}");
    assert!(e.to_string().contains("sqexp"), "{e}");
}

/// A float-labelled path `0 – 1 – … – n−1` with node `i` labelled `labels[i]`.
fn float_path(labels: &[f64]) -> (Graph<Record, ()>, Arc<kronograph::graph::Schema>) {
    let s = Arc::new(kronograph::graph::Schema::new().with("x", kronograph::graph::FieldKind::Float));
    let recs: Vec<Record> =
        labels.iter().map(|&x| Record::new(s.clone(), [kronograph::graph::Value::Float(x)]).unwrap()).collect();
    let mut b = GraphBuilder::<Record, ()>::new(labels.len(), Direction::Undirected).node_labels(recs);
    for i in 1..labels.len() {
        b.push_edge(i - 1, i, 1.0, ());
    }
    (b.build().unwrap(), s)
}

#[test]
fn a_node_kernel_that_underflows_gives_its_limit_and_a_finite_gradient() {
    // sqexp(x, ℓ) on labels 1 apart: exp(−1/(2ℓ²)) is 0 in f64 for ℓ = 0.02 (exp(−1250)),
    // 1e−136 for ℓ = 0.04, 1e−87 for ℓ = 0.05: the pairs of different labels contribute
    // O(κv), so the three Grams agree to rounding, and the gradient in log ℓ is ~0
    let (g, s) = float_path(&[0.0, 1.0, 2.0, 1.0]);
    let (h, _) = float_path(&[1.0, 1.0, 3.0]);
    let graphs = [g, h];
    let gram = |l: f64, p: Precision| {
        let kv = SpecKernel::parse_for(&format!("sqexp(x, {l}, [1e-3, 1e3])"), &s).unwrap();
        let k = MarginalizedGraphKernel::new(kv, kronograph::kron::Unlabeled, 0.05).unwrap().with_precision(p);
        k.gram_with_gradient(&graphs, false).unwrap()
    };
    let (k0, g0) = gram(0.02, Precision::F64);
    for l in [0.04, 0.05] {
        let (k1, _) = gram(l, Precision::F64);
        for i in 0..2 {
            for j in 0..2 {
                let (a, b) = (k0.get(i, j), k1.get(i, j));
                assert!(a.is_finite() && a > 0.0 && (a - b).abs() <= 1e-12 * b, "ℓ = 0.02 vs {l}: {a} vs {b}");
            }
        }
    }
    for i in 0..2 {
        for j in 0..2 {
            let d = g0.get(i, j, 0);
            assert!(d.is_finite() && d.abs() <= 1e-12 * k0.get(i, j), "dK/dlog ℓ at ({i}, {j}) = {d}");
        }
    }
    // single precision too (its floor is 2⁻⁶³): the f64 values to f32's tolerance
    let (k32, g32) = gram(0.02, Precision::F32);
    for i in 0..2 {
        for j in 0..2 {
            let (a, b) = (k32.get(i, j), k0.get(i, j));
            assert!((a - b).abs() <= 1e-5 * b, "f32 {a} vs f64 {b}");
            assert!(g32.get(i, j, 0).is_finite());
        }
    }
}

/// The directed cycle `0 → 1 → … → n−1 → 0`, unit weights.
fn cycle(n: usize) -> Graph<u8, f64> {
    let mut b = GraphBuilder::<u8, f64>::new(n, Direction::Directed).node_labels(vec![0; n]);
    for i in 0..n {
        b.push_edge(i, (i + 1) % n, 1.0, 0.0);
    }
    b.build().unwrap()
}

/// Dense `1ᵀ (I − λ W ⊗ W')⁻¹ 1`.
fn dense_rw(g: &Graph<u8, f64>, h: &Graph<u8, f64>, lambda: f64) -> f64 {
    let (wa, wb) = (g.to_dense(), h.to_dense());
    let (n, m) = (g.num_nodes(), h.num_nodes());
    let d = n * m;
    let mut a = vec![0.0; d * d];
    for i in 0..n {
        for ip in 0..m {
            for j in 0..n {
                for jp in 0..m {
                    let r = i * m + ip;
                    let c = j * m + jp;
                    a[r * d + c] = f64::from(u8::from(r == c)) - lambda * wa[i * n + j] * wb[ip * m + jp];
                }
            }
        }
    }
    kronograph::solver::dense_solve(d, &a, &vec![1.0; d]).unwrap().iter().sum()
}

#[test]
fn directed_random_walks_are_right() {
    // the directed 3-cycle (ρ = 1): k = 9 / (1 − λ) for λ < 1
    let g = cycle(3);
    for lambda in [0.1, 0.5, 0.9] {
        for method in [RwMethod::Auto, RwMethod::Solver] {
            let k = RandomWalkKernel::new(lambda).unwrap().with_method(method);
            let got = k.pair(&g, &g).unwrap();
            assert!(close(got, 9.0 / (1.0 - lambda), 1e-10), "λ = {lambda}: {got}");
        }
        let got = RandomWalkKernel::new(lambda).unwrap().gram_labeled(std::slice::from_ref(&g)).unwrap().get(0, 0);
        assert!(close(got, 9.0 / (1.0 - lambda), 1e-10), "labeled λ = {lambda}: {got}");
    }
    // and on random directed graphs, against a dense solve
    for seed in 0..6 {
        let (a, b) =
            (random_graph(5, 0.4, seed, Direction::Directed), random_graph(4, 0.5, seed + 9, Direction::Directed));
        let lambda = 0.5 * RandomWalkKernel::lambda_limit(&a, &b);
        if !lambda.is_finite() {
            continue;
        }
        let got = RandomWalkKernel::new(lambda).unwrap().pair(&a, &b).unwrap();
        assert!(close(got, dense_rw(&a, &b, lambda), 1e-9), "seed {seed}");
    }
}

#[test]
fn directed_random_walk_beyond_convergence_is_refused_with_the_largest_lambda() {
    // λ = 1 made the system singular and BiCGSTAB broke down ("r̂ᵀv vanished");
    // λ > 1 returned negative values
    let g = cycle(3);
    for lambda in [1.0, 1.5, 4.0] {
        let e = RandomWalkKernel::new(lambda).unwrap().gram(&[g.clone(), g.clone()]).unwrap_err();
        assert!(matches!(e, MgkError::LambdaTooLarge { .. }), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("use λ < 1.000000e0") || msg.contains("λ < 1.0"), "{msg}");
        assert!(msg.contains("λ < 1 / (ρ(W) ρ(W'))"), "{msg}");
        let e = RandomWalkKernel::new(lambda).unwrap().gram_labeled(std::slice::from_ref(&g)).unwrap_err();
        assert!(matches!(e, MgkError::LambdaTooLarge { .. }), "{e}");
    }
    // a random directed graph: never a negative or non-finite value, whatever λ
    let a = random_graph(6, 0.5, 5, Direction::Directed);
    for lambda in [0.01, 0.1, 0.3, 1.0, 3.0] {
        match RandomWalkKernel::new(lambda).unwrap().pair(&a, &a) {
            Ok(v) => assert!(v.is_finite() && v >= 0.0, "λ = {lambda}: {v}"),
            Err(e) => assert!(matches!(e, MgkError::LambdaTooLarge { .. }), "{e}"),
        }
    }
}

#[test]
fn spectral_radius_bounds_bracket_the_truth() {
    // directed 3-cycle: ρ = 1; K4: ρ = 3; a path of 3 nodes: ρ = √2
    let (lo, hi) = RandomWalkKernel::spectral_radius_bounds(&cycle(3));
    assert!(lo <= 1.0 && 1.0 <= hi && hi - lo < 1e-8, "{lo} {hi}");
    let p = GraphBuilder::<u8, f64>::new(3, Direction::Undirected)
        .node_labels(vec![0; 3])
        .edge(0, 1, 1.0, 0.0)
        .edge(1, 2, 1.0, 0.0)
        .build()
        .unwrap();
    let (lo, hi) = RandomWalkKernel::spectral_radius_bounds(&p);
    let r = 2f64.sqrt();
    assert!(lo <= r + 1e-12 && r <= hi + 1e-12 && hi - lo < 1e-6, "{lo} {hi}");
    // extreme weights: the bounds scale exactly
    let (lo2, hi2) = RandomWalkKernel::spectral_radius_bounds(&scaled(&p, 2f64.powi(500)));
    assert_eq!((lo2, hi2), (lo * 2f64.powi(500), hi * 2f64.powi(500)));
}

#[test]
fn random_walk_with_extreme_weights_folds_the_scale_into_lambda() {
    let g = random_graph(5, 0.5, 21, Direction::Undirected);
    let h = random_graph(4, 0.6, 22, Direction::Undirected);
    let lambda = 0.3 * RandomWalkKernel::lambda_limit(&g, &h);
    for method in [RwMethod::Auto, RwMethod::Solver] {
        let k = RandomWalkKernel::new(lambda).unwrap().with_method(method);
        let want = k.pair(&g, &h).unwrap();
        for c in [1e-150, 1e-60, 1e60, 1e150] {
            // λ W ⊗ W' unchanged: W scaled by c and c', λ by 1 / (c c')
            let k = RandomWalkKernel::new(lambda / (c * c)).unwrap().with_method(method);
            let got = k.pair(&scaled(&g, c), &scaled(&h, c)).unwrap();
            assert!(close(got, want, 1e-10), "{c:e}: {got} vs {want}");
        }
    }
    // tiny weights with an ordinary λ: λ W⊗W' underflows and k = n n'
    let got = RandomWalkKernel::new(0.1).unwrap().pair(&scaled(&g, 1e-200), &scaled(&h, 1e-200)).unwrap();
    assert_eq!(got, 20.0);
    // huge weights: refused, and no λ can help in double precision
    let e = RandomWalkKernel::new(1e-300).unwrap().pair(&scaled(&g, 1e200), &scaled(&h, 1e200)).unwrap_err();
    assert!(matches!(e, MgkError::LambdaTooLarge { .. }), "{e}");
    assert!(e.to_string().contains("scale the weights"), "{e}");
}

#[test]
fn directed_mgk_matches_dense_solve_on_cycles() {
    let g = cycle(3);
    let h = random_graph(4, 0.5, 3, Direction::Directed);
    let k = MarginalizedGraphKernel::new(Delta(0.5), SqExp(0.7), 0.05).unwrap();
    for (a, b) in [(&g, &g), (&g, &h), (&h, &g)] {
        let pa = vec![1.0; a.num_nodes()];
        let pb = vec![1.0; b.num_nodes()];
        let (want, _) = dense_mgk(a, b, &Delta(0.5), &SqExp(0.7), 0.05, &pa, &pb, 0);
        let got = k.pair(a, b).unwrap();
        assert!(close(got, want, 1e-10), "{got} vs {want}");
    }
}

/// One solver step reported: pair, iteration, relative residual.
type Step = ((usize, usize), usize, f64);

#[test]
fn solver_progress_reports_iterations_and_residuals() {
    let g = random_path_graph(12, 0.3, 5);
    let seen: Arc<Mutex<Vec<Step>>> = Arc::default();
    let s = seen.clone();
    let k = kernel(0.05).with_solver_progress(Arc::new(move |pair, it, res| s.lock().unwrap().push((pair, it, res))));
    k.gram(&[g.clone(), g.clone()]).unwrap();
    let seen = seen.lock().unwrap();
    for pair in [(0, 0), (0, 1), (1, 1)] {
        let its: Vec<_> = seen.iter().filter(|x| x.0 == pair).collect();
        assert!(its.len() > 2, "{pair:?}");
        assert!(its.windows(2).all(|w| w[1].1 == w[0].1 + 1));
        assert!(its.last().unwrap().2 <= 1e-12);
    }
    // the random walk too
    let seen: Arc<Mutex<usize>> = Arc::default();
    let s = seen.clone();
    let rw = RandomWalkKernel::new(0.01)
        .unwrap()
        .with_method(RwMethod::Solver)
        .with_solver_progress(Arc::new(move |_, _, _| *s.lock().unwrap() += 1));
    rw.pair(&g, &g).unwrap();
    assert!(*seen.lock().unwrap() > 2);
}

/// MUTAG with weights from the bond labels (symmetric, as undirected graphs need): 0.6 to 1.5.
fn weighted_mutag(first: usize) -> Vec<Graph<Record, Record>> {
    let mut ds = io::load(format!("{}/data/MUTAG", env!("CARGO_MANIFEST_DIR"))).unwrap();
    ds.graphs.truncate(first);
    ds.graphs.iter().map(|g| g.with_weights(|_, l| 0.6 + 0.3 * l.at(0).as_f64().unwrap_or(0.0)).unwrap()).collect()
}

fn mutag_kernel() -> MarginalizedGraphKernel<Record, Record, SpecKernel, SpecKernel> {
    let ds = io::load(format!("{}/data/MUTAG", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema).unwrap();
    MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap()
}

#[test]
fn gpu_packing_gets_the_same_scaling() {
    use kronograph::cuda::Precision as P;
    use kronograph::mgk::pack::pack_graphs;
    let x = weighted_mutag(4);
    // a power of two: the scaled graphs pack to exactly the unscaled ones
    let big: Vec<_> = x.iter().map(|g| scaled(g, 2f64.powi(400))).collect();
    let small: Vec<_> = x.iter().map(|g| scaled(g, 2f64.powi(-400))).collect();
    // the CPU gives bit-identical values for them
    let k = mutag_kernel().with_lmin(1).unwrap();
    let want = k.gram(&x).unwrap();
    assert_eq!(k.gram(&big).unwrap(), want);
    assert_eq!(k.gram(&small).unwrap(), want);
    for p in [P::F64, P::F32] {
        let want = pack_graphs(&x, p).unwrap();
        for other in [&big, &small] {
            let got = pack_graphs(other, p).unwrap();
            assert_eq!(got.degree, want.degree);
            assert_eq!(got.nz_weight, want.nz_weight);
        }
    }
}

#[test]
fn gpu_values_are_scale_invariant() {
    let Some(device) = gpu_or_skip() else { return };
    let x = weighted_mutag(12);
    let k = mutag_kernel().with_lmin(1).unwrap();
    let want = k.gram(&x).unwrap();
    for (precision, tol) in [(Precision::F64, 1e-10), (Precision::F32, 1e-4)] {
        let k = k.clone().with_precision(precision).with_tolerance(if tol < 1e-6 { 1e-12 } else { 1e-6 }).unwrap();
        for c in [1e-150, 1e19, 1e150] {
            let xs: Vec<_> = x.iter().map(|g| scaled(g, c)).collect();
            let got = k.gram_on(Backend::Cuda(device), &xs).unwrap();
            let err = max_rel(got.as_slice(), want.as_slice());
            assert!(err <= tol, "{precision:?}, scale {c:e}: relative error {err:e}");
        }
    }
}

#[test]
fn values_from_elsewhere_are_checked() {
    use kronograph::mgk::check_values;
    let mut v = vec![2.0, -1e-17, 1.0, 3.0];
    check_values(&mut v, Some(2), 1e-12).unwrap();
    assert_eq!(v[1], 0.0);
    let mut v = vec![2.0, -0.5, 1.0, 3.0];
    let e = check_values(&mut v, Some(2), 1e-12).unwrap_err();
    assert!(matches!(e, MgkError::InvalidValue { pair: (0, 1), .. }), "{e}");
    let mut v = vec![2.0, 1.0, f64::NAN];
    assert!(matches!(check_values(&mut v, None, 1e-5).unwrap_err(), MgkError::InvalidValue { pair: (2, 2), .. }));
}

/// Runs the CLI on a Matrix Market file with `body`; returns (success, stdout, stderr).
fn cli(name: &str, body: &str, args: &[&str]) -> (bool, String, String) {
    let dir = std::env::temp_dir().join(format!("kronograph-numerics-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.mtx"));
    std::fs::write(&path, body).unwrap();
    let mut full = vec!["--quiet".to_string(), args[0].to_string(), path.display().to_string()];
    full.extend(args[1..].iter().map(|s| s.to_string()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kronograph")).args(&full).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const CYCLE3: &str = "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n3 1\n";
const PATH3: &str = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1e300\n3 2 1e300\n";

#[test]
fn cli_messages_say_what_to_change() {
    // directed 3-cycle: λ = 1 is refused with the largest λ that works (for the whole
    // set, in the CLI's terms); λ = 0.5 is right
    let (ok, _, err) = cli("cycle", CYCLE3, &["rw", "--lambda", "1"]);
    let limit = err.split("use --lambda below ").nth(1).and_then(|t| t.split(',').next()).map(str::parse::<f64>);
    assert!(!ok && limit.is_some_and(|l| l.is_ok_and(|l| (l - 1.0).abs() < 1e-6)), "{err}");
    assert!(err.contains("whole data set") && !err.contains("for this pair") && !err.contains("lambda_limit"), "{err}");
    // rw --labeled on unlabeled data is an error, not the unlabeled kernel
    let (ok, _, err) = cli("cycle", CYCLE3, &["rw", "--lambda", "0.5", "--labeled"]);
    assert!(!ok && err.contains("--labeled") && err.contains("no node labels"), "{err}");

    let (ok, out, err) = cli("cycle", CYCLE3, &["rw", "--lambda", "0.5"]);
    assert!(ok, "{err}");
    assert!(out.trim().parse::<f64>().is_ok_and(|v| (v - 18.0).abs() < 1e-9), "{out}");
    // q and tol below what the arithmetic reaches
    let (ok, _, err) = cli("path", PATH3, &["gram", "--q", "1e-300"]);
    assert!(!ok && err.contains("q ≥ 1e-10"), "{err}");
    let (ok, _, err) = cli("path", PATH3, &["gram", "--tol", "1e-300"]);
    assert!(!ok && err.contains("at least 1e-15"), "{err}");
    // weights of 1e300: the right (finite, normalized = 1) value, not 0 or NaN
    // (the GPU path is tested through the library in gpu_values_are_scale_invariant)
    let (ok, out, err) = cli("path", PATH3, &["gram", "--normalize", "--backend", "cpu"]);
    assert!(ok, "{err}");
    assert_eq!(out.trim().parse::<f64>().unwrap(), 1.0, "{out}");
    let (ok, big, _) = cli("path", PATH3, &["gram", "--backend", "cpu"]);
    let (_, unit, _) = cli("path", &PATH3.replace("1e300", "1"), &["gram", "--backend", "cpu"]);
    assert!(ok && big == unit, "{big} vs {unit}");
    // an empty graph: K = 0, and its normalization is a typed error, not NaN
    let empty = "%%MatrixMarket matrix coordinate real symmetric\n0 0 0\n";
    let (ok, out, _) = cli("empty", empty, &["gram", "--backend", "cpu"]);
    assert!(ok && out.trim().parse::<f64>().unwrap() == 0.0, "{out}");
    let (ok, _, err) = cli("empty", empty, &["gram", "--normalize", "--backend", "cpu"]);
    assert!(!ok && err.contains("cannot normalize"), "{err}");
}

/// `K` with `lmin = 1` by an oracle without cancellation: the remainder
/// `s = r − κ×` of the walks of length >= 1 as the Neumann series
/// `Σ_{j≥1} Gʲ κ×`, `G = V× D×⁻¹ (W ⊗ W′) ⊙ E×` (dense, every term
/// non-negative, so nothing cancels however close q is to 1), then
/// `K = Σ p p′ s`.
fn length_one_oracle(g: &Graph<u8, f64>, h: &Graph<u8, f64>, q: f64) -> f64 {
    use kronograph::basekernel::BaseKernel;
    let (kv, ke) = (Delta(0.5), SqExp(0.7));
    let (n, m) = (g.num_nodes(), h.num_nodes());
    let d = n * m;
    let deg = |x: &Graph<u8, f64>, i: usize| -> f64 {
        let s: f64 = x.weights()[x.row_range(i)].iter().sum();
        if s == 0.0 {
            1.0
        } else {
            s
        }
    };
    let mut gm = vec![0.0; d * d];
    let mut kappa = vec![0.0; d];
    for i in 0..n {
        for ip in 0..m {
            let r = i * m + ip;
            kappa[r] = kv.value(&g.node_labels()[i], &h.node_labels()[ip]);
            let dx = deg(g, i) * deg(h, ip) / ((1.0 - q) * (1.0 - q));
            for k in g.row_range(i) {
                for kp in h.row_range(ip) {
                    let c = g.indices()[k] * m + h.indices()[kp];
                    gm[r * d + c] += kappa[r] / dx
                        * g.weights()[k]
                        * h.weights()[kp]
                        * ke.value(&g.edge_labels()[k], &h.edge_labels()[kp]);
                }
            }
        }
    }
    let (mut term, mut s) = (kappa.clone(), vec![0.0; d]);
    for _ in 0..10_000 {
        term = (0..d).map(|r| (0..d).map(|c| gm[r * d + c] * term[c]).sum()).collect();
        s.iter_mut().zip(&term).for_each(|(s, t)| *s += t);
        if term.iter().zip(&s).all(|(t, s)| *t <= 1e-18 * s) {
            break;
        }
    }
    s.iter().sum()
}

/// `lmin = 1` as q → 1 keeps its relative accuracy on the CPU (the length-one
/// term is never subtracted), in f64 and f32, against the cancellation-free
/// oracle; at a moderate q also against the dense solve minus the term.
#[test]
fn length_one_term_does_not_cancel_as_q_tends_to_1() {
    let graphs: Vec<Graph<u8, f64>> =
        (0..4).map(|s| random_graph(3 + s as usize, 0.6, 40 + s, Direction::Undirected)).collect();
    for q in [0.5, 0.999, 0.9999, 1.0 - 1e-10] {
        for (precision, tol) in [(Precision::F64, 1e-9), (Precision::F32, 2e-4)] {
            let k = kernel(q).with_lmin(1).unwrap().with_precision(precision);
            let got = k.gram(&graphs).unwrap();
            for a in 0..graphs.len() {
                for b in 0..graphs.len() {
                    let want = length_one_oracle(&graphs[a], &graphs[b], q);
                    let x = got.get(a, b);
                    assert!(want > 0.0 && close(x, want, tol), "q = {q}, {precision:?}, ({a}, {b}): {x:e} vs {want:e}");
                    if q == 0.5 && precision == Precision::F64 {
                        let ones = |g: &Graph<u8, f64>| vec![1.0; g.num_nodes()];
                        let (dense, _) = dense_mgk(
                            &graphs[a],
                            &graphs[b],
                            &Delta(0.5),
                            &SqExp(0.7),
                            q,
                            &ones(&graphs[a]),
                            &ones(&graphs[b]),
                            1,
                        );
                        assert!(close(x, dense, 1e-9), "{x:e} vs dense {dense:e}");
                    }
                }
            }
        }
    }
}
