//! Triangle counting against brute force and the SNAP reference counts.

use kronograph::algorithms::*;
use kronograph::graph::{Direction, Duplicates, Graph, GraphBuilder};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn random_graph(seed: u64) -> Graph {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = rng.random_range(1..40usize);
    let p = rng.random_range(0.0..0.5);
    let mut b =
        GraphBuilder::<(), ()>::new(n, Direction::Undirected).default_node_labels().duplicates(Duplicates::KeepFirst);
    for u in 0..n {
        for v in u..n {
            // self-loops included on purpose: they must not count
            if rng.random_bool(p) {
                b.push_edge(u, v, 1.0, ());
            }
        }
    }
    b.build().unwrap()
}

/// All triples `u < v < w`, and per vertex.
fn brute_force(g: &Graph) -> (u64, Vec<u64>) {
    let n = g.num_nodes();
    let adj = |u: usize, v: usize| g.find_entry(u, v).is_some();
    let (mut total, mut per) = (0, vec![0u64; n]);
    for u in 0..n {
        for v in u + 1..n {
            for w in v + 1..n {
                if adj(u, v) && adj(v, w) && adj(u, w) {
                    total += 1;
                    per[u] += 1;
                    per[v] += 1;
                    per[w] += 1;
                }
            }
        }
    }
    (total, per)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn triangles_match_brute_force(seed: u64) {
        let g = random_graph(seed);
        let (total, per) = brute_force(&g);
        prop_assert_eq!(triangle_count(&g).unwrap(), total);
        prop_assert_eq!(triangles_per_vertex(&g).unwrap(), per);
    }
}

fn snap(name: &str) -> Graph {
    let path = format!("{}/data/snap/{name}.mtx", env!("CARGO_MANIFEST_DIR"));
    kronograph::graph::io::mtx::read(path).unwrap()
}

#[test]
fn facebook_combined() {
    let g = snap("facebook_combined");
    assert_eq!(triangle_count(&g).unwrap(), 1_612_010);
    let per = triangles_per_vertex(&g).unwrap();
    assert_eq!(per.iter().sum::<u64>(), 3 * 1_612_010);
}

#[test]
fn oregon1_010331() {
    let g = snap("oregon1_010331");
    assert_eq!(triangle_count(&g).unwrap(), 17_144);
    assert_eq!(triangles_per_vertex(&g).unwrap().iter().sum::<u64>(), 3 * 17_144);
}

#[test]
fn directed_graph_is_rejected() {
    let g =
        GraphBuilder::<(), ()>::new(3, Direction::Directed).default_node_labels().edge(0, 1, 1.0, ()).build().unwrap();
    assert!(matches!(triangle_count(&g), Err(AlgorithmError::Graph(_))));
}
