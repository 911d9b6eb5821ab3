//! SSSP (delta-stepping and Bellman–Ford) against a slow Dijkstra on random
//! weighted graphs: directed and undirected, zero weights, unreachable nodes,
//! automatic and given bucket widths.

use kronograph::algorithms::{auto_delta, sssp, sssp_matrix, AlgorithmError, SsspMethod, SsspOptions};
use kronograph::graph::{Direction, Duplicates, Graph, GraphBuilder};
use kronograph::matrix::SparseMatrix;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random graph of up to 80 nodes; weights in {0, 0.25, …, 10} (about a
/// tenth zero) or, for `wide`, spread over six orders of magnitude. Few
/// arcs per node, so that some nodes are unreachable.
fn random_graph(seed: u64, directed: bool, wide: bool) -> Graph {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = rng.random_range(1..80usize);
    let m = rng.random_range(0..3 * n);
    let dir = if directed { Direction::Directed } else { Direction::Undirected };
    let mut b = GraphBuilder::<(), ()>::new(n, dir).default_node_labels().duplicates(Duplicates::KeepFirst);
    for _ in 0..m {
        let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
        let w = if wide {
            10f64.powf(rng.random_range(-3.0..3.0))
        } else if rng.random_bool(0.1) {
            0.0
        } else {
            rng.random_range(0..=40) as f64 / 4.0
        };
        b.push_edge(u, v, w, ());
    }
    b.build().unwrap()
}

/// Dijkstra with a linear scan for the closest unsettled node: `O(n² + m)`.
fn dijkstra(g: &Graph, s: usize) -> Vec<f64> {
    let n = g.num_nodes();
    let mut d = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    d[s] = 0.0;
    while let Some(u) = (0..n).filter(|&v| !done[v] && d[v].is_finite()).min_by(|&x, &y| d[x].total_cmp(&d[y])) {
        done[u] = true;
        for k in g.row_range(u) {
            let v = g.indices()[k];
            d[v] = d[v].min(d[u] + g.weights()[k]);
        }
    }
    d
}

fn assert_close(got: &[f64], want: &[f64]) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len());
    for (v, (a, b)) in got.iter().zip(want).enumerate() {
        if b.is_infinite() {
            prop_assert!(a.is_infinite(), "node {}: {} but unreachable", v, a);
        } else {
            prop_assert!((a - b).abs() <= 1e-12 * b.max(1.0), "node {}: {} vs {}", v, a, b);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn delta_stepping_matches_dijkstra(seed: u64, directed: bool, wide: bool, delta_pick in 0usize..4) {
        let g = random_graph(seed, directed, wide);
        let s = (seed as usize) % g.num_nodes();
        let a = SparseMatrix::from_graph(&g);
        // automatic, tiny (all arcs heavy but zero ones), medium, huge (all light)
        let delta = [None, Some(1e-3), Some(0.7), Some(1e9)][delta_pick];
        let r = sssp_matrix(&a, s, &SsspOptions { delta, ..SsspOptions::default() }).unwrap();
        prop_assert!(r.delta.unwrap() > 0.0);
        assert_close(&r.distances, &dijkstra(&g, s))?;
    }

    #[test]
    fn bellman_ford_matches_dijkstra(seed: u64, directed: bool) {
        let g = random_graph(seed, directed, false);
        let s = (seed as usize) % g.num_nodes();
        let opts = SsspOptions { method: SsspMethod::BellmanFord, delta: None };
        let r = sssp_matrix(&SparseMatrix::from_graph(&g), s, &opts).unwrap();
        prop_assert_eq!(r.delta, None);
        assert_close(&r.distances, &dijkstra(&g, s))?;
    }
}

#[test]
fn unit_weights_are_bfs_levels_with_delta_one() {
    // a path 0 - 1 - 2 - 3 and an isolated node 4
    let mut b = GraphBuilder::<(), ()>::new(5, Direction::Undirected).default_node_labels();
    for (u, v) in [(0, 1), (1, 2), (2, 3)] {
        b.push_edge(u, v, 1.0, ());
    }
    let g = b.build().unwrap();
    assert_eq!(auto_delta(&SparseMatrix::from_graph(&g)), 1.0);
    let r = sssp(&g, 0).unwrap();
    assert_eq!(r.distances[..4], [0.0, 1.0, 2.0, 3.0]);
    assert!(r.distances[4].is_infinite());
    assert_eq!(r.reached(), 4);
}

#[test]
fn bad_inputs_are_typed_errors() {
    let a = SparseMatrix::try_from_triplets(3, 3, &[0, 1], &[1, 2], &[1.0, -2.0]).unwrap();
    assert_eq!(
        sssp_matrix(&a, 0, &SsspOptions::default()),
        Err(AlgorithmError::InvalidWeight { from: 1, to: 2, weight: -2.0 })
    );
    let a = SparseMatrix::try_from_triplets(3, 3, &[0], &[1], &[1.0]).unwrap();
    for delta in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let opts = SsspOptions { delta: Some(delta), ..SsspOptions::default() };
        assert!(matches!(sssp_matrix(&a, 0, &opts), Err(AlgorithmError::InvalidDelta { .. })));
    }
    assert!(matches!(
        sssp_matrix(&a, 3, &SsspOptions::default()),
        Err(AlgorithmError::SourceOutOfRange { source_node: 3, num_nodes: 3 })
    ));
    let a = SparseMatrix::<f64>::new(2, 3);
    assert!(matches!(sssp_matrix(&a, 0, &SsspOptions::default()), Err(AlgorithmError::NotSquare { .. })));
    let msg = AlgorithmError::InvalidDelta { delta: 0.0 }.to_string();
    assert!(msg.contains("> 0"), "{msg}");
}

/// Path sums beyond the largest `f64` are an error naming the node (not
/// "unreached"), for both methods and any Δ; a node that only an
/// overflowing path reaches and a truly unreachable node are told apart.
#[test]
fn overflowing_path_sums_are_errors() {
    // 0 -1e308- 1 -1e308- 2; 3 isolated
    let mut b = GraphBuilder::<(), ()>::new(4, Direction::Undirected).default_node_labels();
    b.push_edge(0, 1, 1e308, ());
    b.push_edge(1, 2, 1e308, ());
    let g = b.build().unwrap();
    let a = SparseMatrix::from_graph(&g);
    for method in [SsspMethod::DeltaStepping, SsspMethod::BellmanFord] {
        for delta in [None, Some(1.0), Some(1e308)] {
            let e = sssp_matrix(&a, 0, &SsspOptions { method, delta }).unwrap_err();
            match &e {
                AlgorithmError::DistanceOverflow { node, from, distance, weight } => {
                    assert_eq!((*node, *from, *distance, *weight), (2, 1, 1e308, 1e308), "{method:?} {delta:?}");
                }
                e => panic!("{method:?} {delta:?}: {e}"),
            }
            assert!(e.to_string().contains("node 2 overflows"), "{e}");
        }
    }
    // the same weights from the middle: every distance is finite
    let r = sssp_matrix(&a, 1, &SsspOptions::default()).unwrap();
    assert_eq!(r.distances[..3], [1e308, 0.0, 1e308]);
    assert!(r.distances[3].is_infinite());
    // and the oracle agrees where nothing overflows
    assert_eq!(r.distances, dijkstra(&g, 1));
}
