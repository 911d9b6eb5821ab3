//! Random graph generators: reproducibility, edge counts and degrees as the
//! models say, simple valid graphs, typed errors for bad parameters.

use kronograph::graph::generate::{self, RmatParams};
use kronograph::graph::{Direction, Graph, GraphBuilder, GraphError};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// The undirected edges `u < v` of a graph.
fn edges(g: &Graph) -> Vec<(usize, usize)> {
    (0..g.num_nodes()).flat_map(|u| g.neighbors(u).iter().filter(move |&&v| u < v).map(move |&v| (u, v))).collect()
}

/// Simple, undirected, valid: rebuilding it through the checking builder
/// (duplicates rejected) gives the same CSR, with no self-loop.
fn assert_simple(g: &Graph) {
    assert_eq!(g.direction(), Direction::Undirected);
    assert_eq!(g.self_loops(), 0);
    let mut b = GraphBuilder::<(), ()>::new(g.num_nodes(), Direction::Undirected).default_node_labels();
    for (u, v) in edges(g) {
        b.push_edge(u, v, 1.0, ());
    }
    let h = b.build().expect("a generated graph passes the builder's checks");
    assert_eq!(h.indptr(), g.indptr());
    assert_eq!(h.indices(), g.indices());
    assert!(g.weights().iter().all(|&w| w == 1.0));
}

fn degree(g: &Graph, v: usize) -> usize {
    g.neighbors(v).len()
}

type Gen = fn(&mut ChaCha8Rng) -> Result<Graph, GraphError>;

fn all_generators() -> Vec<(&'static str, Gen)> {
    vec![
        ("nws", |r| generate::newman_watts_strogatz(96, 4, 0.2, r)),
        ("ba", |r| generate::barabasi_albert(96, 6, r)),
        ("gnp", |r| generate::erdos_renyi_gnp(80, 0.1, r)),
        ("gnm", |r| generate::erdos_renyi_gnm(80, 300, r)),
        ("regular", |r| generate::random_regular(50, 4, r)),
        ("rmat", |r| generate::rmat(&RmatParams::graph500(8), r)),
    ]
}

#[test]
fn same_seed_same_graph_different_seed_different_graph() {
    for (name, cg) in all_generators() {
        let a = cg(&mut rng(11)).unwrap();
        let b = cg(&mut rng(11)).unwrap();
        let c = cg(&mut rng(12)).unwrap();
        assert_eq!(edges(&a), edges(&b), "{name}: same seed");
        assert_ne!(edges(&a), edges(&c), "{name}: different seeds");
        assert_simple(&a);
        assert_simple(&c);
    }
}

#[test]
fn newman_watts_strogatz_keeps_the_ring_lattice() {
    for seed in 0..20 {
        for (n, k, p) in [(96, 3, 0.1), (50, 6, 0.5), (10, 4, 1.0), (7, 6, 0.3)] {
            let g = generate::newman_watts_strogatz(n, k, p, &mut rng(seed)).unwrap();
            assert_simple(&g);
            let half = k / 2;
            for u in 0..n {
                for j in 1..=half {
                    assert!(g.find_entry(u, (u + j) % n).is_some(), "lattice edge {u}-{} missing", (u + j) % n);
                }
            }
            // At most one shortcut per lattice edge.
            assert!(g.num_edges() >= n * half && g.num_edges() <= 2 * n * half);
        }
    }
    // p = 0: exactly the lattice.
    let g = generate::newman_watts_strogatz(30, 4, 0.0, &mut rng(0)).unwrap();
    assert_eq!(g.num_edges(), 60);
    assert!((0..30).all(|v| degree(&g, v) == 4));
}

#[test]
fn newman_watts_strogatz_adds_about_p_shortcuts() {
    // 160 graphs of NWS(96, 3, 0.1): 96 lattice edges each and Binomial(96, 0.1)
    // shortcut trials; the mean over 160 graphs is 9.6 with standard error 0.23.
    let total: usize =
        (0..160).map(|s| generate::newman_watts_strogatz(96, 3, 0.1, &mut rng(s)).unwrap().num_edges() - 96).sum();
    let mean = total as f64 / 160.0;
    assert!((mean - 9.6).abs() < 1.5, "mean shortcuts {mean}");
}

#[test]
fn barabasi_albert_has_m_times_n_minus_m_edges() {
    for seed in 0..20 {
        for (n, m) in [(96, 6), (10, 1), (20, 19), (50, 3)] {
            let g = generate::barabasi_albert(n, m, &mut rng(seed)).unwrap();
            assert_simple(&g);
            assert_eq!(g.num_edges(), m * (n - m));
            assert!((0..n).all(|v| degree(&g, v) >= 1));
            assert!((m + 1..n).all(|v| degree(&g, v) >= m));
            // Each node after the seed star attaches to m earlier nodes.
            for t in (m + 1)..n {
                assert_eq!(g.neighbors(t).iter().filter(|&&x| x < t).count(), m);
            }
        }
    }
}

#[test]
fn erdos_renyi_edge_counts() {
    for seed in 0..10 {
        let g = generate::erdos_renyi_gnm(40, 123, &mut rng(seed)).unwrap();
        assert_simple(&g);
        assert_eq!(g.num_edges(), 123);
    }
    // Complete and empty extremes.
    assert_eq!(generate::erdos_renyi_gnm(12, 66, &mut rng(0)).unwrap().num_edges(), 66);
    assert_eq!(generate::erdos_renyi_gnp(12, 1.0, &mut rng(0)).unwrap().num_edges(), 66);
    assert_eq!(generate::erdos_renyi_gnp(12, 0.0, &mut rng(0)).unwrap().num_edges(), 0);
    // G(n, p): the mean edge count over 50 graphs is within 4 standard errors.
    let (n, p) = (100usize, 0.05);
    let pairs = (n * (n - 1) / 2) as f64;
    let total: usize = (0..50).map(|s| generate::erdos_renyi_gnp(n, p, &mut rng(s)).unwrap().num_edges()).sum();
    let mean = total as f64 / 50.0;
    let se = (pairs * p * (1.0 - p) / 50.0).sqrt();
    assert!((mean - pairs * p).abs() < 4.0 * se, "mean {mean}, expected {}", pairs * p);
}

#[test]
fn erdos_renyi_gnp_covers_all_pairs() {
    // Every pair, first and last included, comes up over a few dense graphs.
    let mut seen = vec![false; 20 * 20];
    for s in 0..20 {
        for (u, v) in edges(&generate::erdos_renyi_gnp(20, 0.5, &mut rng(s)).unwrap()) {
            seen[u * 20 + v] = true;
        }
    }
    assert!((0..20).all(|u| (u + 1..20).all(|v| seen[u * 20 + v])));
}

#[test]
fn random_regular_every_degree_is_d() {
    for seed in 0..10 {
        for (n, d) in [(50, 3), (20, 4), (11, 10), (12, 9), (30, 17), (96, 6), (9, 0), (2, 1)] {
            let g = generate::random_regular(n, d, &mut rng(seed)).unwrap();
            assert_simple(&g);
            assert!((0..n).all(|v| degree(&g, v) == d), "n = {n}, d = {d}");
            assert_eq!(g.num_edges(), n * d / 2);
        }
    }
}

#[test]
fn rmat_graph500() {
    let params = RmatParams::graph500(10);
    let g = generate::rmat(&params, &mut rng(3)).unwrap();
    assert_simple(&g);
    assert_eq!(g.num_nodes(), 1024);
    assert!(g.num_edges() <= 16 * 1024);
    // Duplicates and self-loops are dropped, but most draws survive.
    assert!(g.num_edges() > 8 * 1024, "{} edges", g.num_edges());
    // Skewed degrees: the largest degree is far above the mean (32).
    let max = (0..1024).map(|v| degree(&g, v)).max().unwrap();
    assert!(max > 200, "max degree {max}");
    // Without permutation node 0 (all bits in the heavy quadrant) is the hub.
    let g = generate::rmat(&RmatParams { permute: false, ..params }, &mut rng(3)).unwrap();
    let hub = (0..1024).max_by_key(|&v| degree(&g, v)).unwrap();
    assert_eq!(hub, 0);
}

#[test]
fn bad_parameters_are_typed_errors() {
    let bad: Vec<Result<Graph, GraphError>> = vec![
        generate::newman_watts_strogatz(5, 5, 0.1, &mut rng(0)),
        generate::newman_watts_strogatz(10, 2, 1.5, &mut rng(0)),
        generate::newman_watts_strogatz(10, 2, f64::NAN, &mut rng(0)),
        generate::barabasi_albert(5, 0, &mut rng(0)),
        generate::barabasi_albert(5, 5, &mut rng(0)),
        generate::erdos_renyi_gnp(5, -0.1, &mut rng(0)),
        generate::erdos_renyi_gnm(5, 11, &mut rng(0)),
        generate::random_regular(5, 3, &mut rng(0)),
        generate::random_regular(5, 5, &mut rng(0)),
        generate::rmat(&RmatParams { a: 0.6, b: 0.3, c: 0.3, ..RmatParams::graph500(4) }, &mut rng(0)),
        generate::rmat(&RmatParams { a: -0.1, ..RmatParams::graph500(4) }, &mut rng(0)),
        generate::rmat(&RmatParams::graph500(41), &mut rng(0)),
        generate::rmat(&RmatParams { edge_factor: usize::MAX, ..RmatParams::graph500(8) }, &mut rng(0)),
    ];
    for (i, r) in bad.into_iter().enumerate() {
        match r {
            Err(GraphError::InvalidParameters(msg)) => assert!(!msg.is_empty()),
            other => panic!("case {i}: expected InvalidParameters, got {other:?}"),
        }
    }
}

#[test]
fn tiny_graphs() {
    assert_eq!(generate::erdos_renyi_gnp(0, 0.5, &mut rng(0)).unwrap().num_nodes(), 0);
    assert_eq!(generate::erdos_renyi_gnm(1, 0, &mut rng(0)).unwrap().num_edges(), 0);
    assert_eq!(generate::random_regular(0, 0, &mut rng(0)).unwrap().num_nodes(), 0);
    assert_eq!(generate::newman_watts_strogatz(1, 0, 0.5, &mut rng(0)).unwrap().num_edges(), 0);
    assert_eq!(generate::rmat(&RmatParams::graph500(0), &mut rng(0)).unwrap().num_edges(), 0);
    assert_eq!(generate::barabasi_albert(2, 1, &mut rng(0)).unwrap().num_edges(), 1);
}

#[test]
fn rmat_is_the_same_on_any_thread_count() {
    let params = RmatParams { noise: 0.1, ..RmatParams::graph500(11) };
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| generate::rmat(&params, &mut rng(9)).unwrap())
    };
    let (a, b) = (on(1), on(3));
    assert_eq!(a.indptr(), b.indptr());
    assert_eq!(a.indices(), b.indices());
    assert_simple(&a);
}

#[test]
fn rmat_distinct_edges_exactly() {
    for (scale, m) in [(6, 1000), (10, 16 * 1024), (12, 1000)] {
        let params = RmatParams { distinct_edges: Some(m), ..RmatParams::graph500(scale) };
        let g = generate::rmat(&params, &mut rng(4)).unwrap();
        assert_simple(&g);
        assert_eq!(g.num_edges(), m, "scale {scale}");
    }
    // every pair of 8 nodes: reached, slowly, by the top-up
    let all = RmatParams { distinct_edges: Some(28), ..RmatParams::graph500(3) };
    assert_eq!(generate::rmat(&all, &mut rng(1)).unwrap().num_edges(), 28);
    let too_many = RmatParams { distinct_edges: Some(29), ..RmatParams::graph500(3) };
    assert!(matches!(generate::rmat(&too_many, &mut rng(1)), Err(GraphError::InvalidParameters(_))));
}

#[test]
fn rmat_quadrant_frequencies() {
    // Unpermuted, the top bit of (u, v) of a draw is (0, 0) with probability a:
    // both ends below n/2 for about a = 57% of the distinct edges (fewer: the
    // (0, 0) corner repeats most), at most a + b + c of them have an end below n/2.
    let params = RmatParams { permute: false, ..RmatParams::graph500(14) };
    let g = generate::rmat(&params, &mut rng(2)).unwrap();
    let half = 1 << 13;
    let e = edges(&g);
    let low = e.iter().filter(|&&(_, v)| v < half).count() as f64 / e.len() as f64;
    assert!((0.45..0.6).contains(&low), "{low}");
    let bad_noise = RmatParams { noise: 0.2, ..RmatParams::graph500(5) };
    assert!(matches!(generate::rmat(&bad_noise, &mut rng(0)), Err(GraphError::InvalidParameters(_))));
}
