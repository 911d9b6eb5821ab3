//! `Permutation`: validity, inverse, composition, and application to
//! graphs (labels, weights, start probabilities follow their nodes) and to
//! per-node and pair-indexed outputs.

use kronograph::graph::reorder::{self, Method, Permutation};
use kronograph::graph::{Direction, Graph, GraphBuilder, GraphError};
use proptest::prelude::*;

/// A random permutation of 0..n from a proptest-chosen key per element.
fn perm_from_keys(keys: &[u32]) -> Permutation {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| (keys[i], i));
    Permutation::from_order(order).unwrap()
}

/// A labelled, weighted graph with start probabilities.
fn labelled(n: usize, edges: &[(usize, usize, u8)], directed: bool) -> Graph<u32, u8> {
    let dir = if directed { Direction::Directed } else { Direction::Undirected };
    let mut b = GraphBuilder::<u32, u8>::new(n, dir)
        .node_labels((0..n as u32).map(|i| 100 + i).collect())
        .start_probabilities((0..n).map(|i| 0.5 + i as f64).collect())
        .duplicates(kronograph::graph::Duplicates::KeepFirst);
    for &(u, v, l) in edges {
        b.push_edge(u % n, v % n, 1.0 + l as f64, l);
    }
    b.build().unwrap()
}

#[test]
fn rejects_non_permutations() {
    for bad in [vec![0, 0], vec![1, 2], vec![0, 2, 1, 2]] {
        assert!(matches!(Permutation::from_new_of_old(bad.clone()), Err(GraphError::InvalidPermutation { .. })));
        assert!(matches!(Permutation::from_order(bad), Err(GraphError::InvalidPermutation { .. })));
    }
    let p = Permutation::identity(3);
    assert!(matches!(p.apply_to_slice(&[1, 2]), Err(GraphError::LengthMismatch { .. })));
    assert!(matches!(p.apply_inverse(&[1, 2, 3, 4]), Err(GraphError::LengthMismatch { .. })));
    assert!(matches!(p.apply_inverse_pairs(&p, &[0; 8]), Err(GraphError::LengthMismatch { .. })));
    assert!(matches!(p.then(&Permutation::identity(2)), Err(GraphError::LengthMismatch { .. })));
    let g = labelled(4, &[(0, 1, 1)], false);
    assert!(matches!(p.apply(&g), Err(GraphError::InvalidPermutation { .. })));
}

proptest! {
    #[test]
    fn inverse_and_composition(keys in proptest::collection::vec(any::<u32>(), 0..40), keys2 in proptest::collection::vec(any::<u32>(), 40)) {
        let n = keys.len();
        let p = perm_from_keys(&keys);
        let q = perm_from_keys(&keys2[..n]);
        // Both directions are inverse to each other.
        for i in 0..n {
            prop_assert_eq!(p.old_of_new()[p.new_of_old()[i]], i);
        }
        prop_assert!(p.then(&p.inverse()).unwrap().is_identity());
        prop_assert!(p.inverse().then(&p).unwrap().is_identity());
        // Composition renames by p, then by q.
        let pq = p.then(&q).unwrap();
        for i in 0..n {
            prop_assert_eq!(pq.new_of_old()[i], q.new_of_old()[p.new_of_old()[i]]);
            prop_assert_eq!(pq.old_of_new()[pq.new_of_old()[i]], i);
        }
        // Applying to values and back.
        let x: Vec<usize> = (0..n).map(|i| 7 * i + 1).collect();
        let y = p.apply_to_slice(&x).unwrap();
        for i in 0..n {
            prop_assert_eq!(y[p.new_of_old()[i]], x[i]);
        }
        prop_assert_eq!(p.apply_inverse(&y).unwrap(), x);
    }

    /// Labels, weights and start probabilities follow their nodes, and the
    /// inverse permutation gives the original graph back.
    #[test]
    fn graph_round_trip(
        n in 1usize..30,
        edges in proptest::collection::vec((0usize..30, 0usize..30, 0u8..4), 0..80),
        directed in any::<bool>(),
        keys in proptest::collection::vec(any::<u32>(), 30),
    ) {
        let g = labelled(n, &edges, directed);
        let p = perm_from_keys(&keys[..n]);
        let h = p.apply(&g).unwrap();
        let pi = p.new_of_old();
        for i in 0..n {
            prop_assert_eq!(h.node_labels()[pi[i]], g.node_labels()[i]);
            prop_assert_eq!(h.start_probabilities().unwrap()[pi[i]], g.start_probabilities().unwrap()[i]);
            for k in g.row_range(i) {
                let j = g.indices()[k];
                let kh = h.find_entry(pi[i], pi[j]).expect("arc follows its nodes");
                prop_assert_eq!(h.weights()[kh], g.weights()[k]);
                prop_assert_eq!(h.edge_labels()[kh], g.edge_labels()[k]);
            }
        }
        prop_assert_eq!(h.num_entries(), g.num_entries());
        let back = p.inverse().apply(&h).unwrap();
        prop_assert_eq!(back.indptr(), g.indptr());
        prop_assert_eq!(back.indices(), g.indices());
        prop_assert_eq!(back.weights(), g.weights());
        prop_assert_eq!(back.edge_labels(), g.edge_labels());
        prop_assert_eq!(back.node_labels(), g.node_labels());
        prop_assert_eq!(back.start_probabilities(), g.start_probabilities());
    }

    /// A pair-indexed quantity computed on reordered graphs maps back to the
    /// one computed on the originals: here R[i·n' + i'] = f(label_i, label'_i').
    #[test]
    fn pair_outputs_map_back(
        n in 1usize..12, n2 in 1usize..12,
        keys in proptest::collection::vec(any::<u32>(), 12),
        keys2 in proptest::collection::vec(any::<u32>(), 12),
    ) {
        let g = labelled(n, &[], false);
        let g2 = labelled(n2, &[], false);
        let (p, p2) = (perm_from_keys(&keys[..n]), perm_from_keys(&keys2[..n2]));
        let (h, h2) = (p.apply(&g).unwrap(), p2.apply(&g2).unwrap());
        let pairs = |a: &Graph<u32, u8>, b: &Graph<u32, u8>| -> Vec<u64> {
            a.node_labels().iter().flat_map(|&x| b.node_labels().iter().map(move |&y| 1000 * x as u64 + y as u64)).collect()
        };
        prop_assert_eq!(p.apply_inverse_pairs(&p2, &pairs(&h, &h2)).unwrap(), pairs(&g, &g2));
    }
}

#[test]
fn every_method_gives_a_valid_permutation() {
    let g = labelled(50, &(0..120).map(|i| (i * 7 % 50, i * 13 % 50, 0)).collect::<Vec<_>>(), false);
    for m in Method::ALL {
        let p = reorder::permutation(&g, m);
        assert_eq!(p.len(), 50);
        let mut seen = p.new_of_old().to_vec();
        seen.sort_unstable();
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
        let (h, p2) = reorder::reorder(&g, m);
        assert_eq!(p, p2);
        assert_eq!(h.num_entries(), g.num_entries());
        assert_eq!(m.name().parse::<Method>().unwrap(), m);
    }
    assert!(reorder::permutation(&g, Method::Natural).is_identity());
    assert!("metis".parse::<Method>().is_err());
}
