use super::*;

fn path3() -> Graph<u8, u8> {
    GraphBuilder::new(3, Direction::Undirected)
        .node_labels(vec![1, 2, 3])
        .edge(0, 1, 1.5, 7)
        .edge(1, 2, 2.0, 9)
        .build()
        .unwrap()
}

#[test]
fn undirected_stores_both_directions() {
    let g = path3();
    assert_eq!(g.num_nodes(), 3);
    assert_eq!(g.num_entries(), 4);
    assert_eq!(g.num_edges(), 2);
    assert_eq!(g.neighbors(1), &[0, 2]);
    assert_eq!(g.degrees(), &[1.5, 3.5, 2.0]);
    let k = g.find_entry(2, 1).unwrap();
    assert_eq!(g.edge_labels()[k], 9);
    assert_eq!(g.weights()[k], 2.0);
}

#[test]
fn self_loop_is_stored_once() {
    let g = GraphBuilder::<(), ()>::new(2, Direction::Undirected)
        .default_node_labels()
        .edge(0, 0, 2.0, ())
        .edge(0, 1, 1.0, ())
        .build()
        .unwrap();
    assert_eq!(g.num_entries(), 3);
    assert_eq!(g.num_edges(), 2);
    assert_eq!(g.self_loops(), 1);
    assert_eq!(g.degrees(), &[3.0, 1.0]);
}

#[test]
fn rejects_bad_input() {
    let b = || GraphBuilder::<(), ()>::new(3, Direction::Undirected).default_node_labels();
    assert!(matches!(b().edge(0, 3, 1.0, ()).build(), Err(GraphError::NodeOutOfRange { node: 3, num_nodes: 3 })));
    assert!(matches!(b().edge(0, 1, -1.0, ()).build(), Err(GraphError::InvalidWeight { .. })));
    assert!(matches!(b().edge(0, 1, f64::NAN, ()).build(), Err(GraphError::InvalidWeight { .. })));
    assert!(matches!(b().edge(0, 1, f64::INFINITY, ()).build(), Err(GraphError::InvalidWeight { .. })));
    assert!(matches!(b().edge(0, 1, 1.0, ()).edge(1, 0, 1.0, ()).build(), Err(GraphError::DuplicateEdge { .. })));
    assert!(matches!(b().arc(0, 1, 1.0, ()).build(), Err(GraphError::Asymmetric { .. })));
    assert!(matches!(b().arc(0, 1, 1.0, ()).arc(1, 0, 2.0, ()).build(), Err(GraphError::Asymmetric { .. })));
    let labels = GraphBuilder::<(), u8>::new(2, Direction::Undirected)
        .default_node_labels()
        .arc(0, 1, 1.0, 1)
        .arc(1, 0, 1.0, 2)
        .build();
    assert!(matches!(labels, Err(GraphError::Asymmetric { .. })));
    assert!(matches!(
        GraphBuilder::<u8, ()>::new(3, Direction::Undirected).node_labels(vec![1]).build(),
        Err(GraphError::LengthMismatch { .. })
    ));
    assert!(matches!(
        GraphBuilder::<u8, ()>::new(3, Direction::Undirected).build(),
        Err(GraphError::MissingNodeLabels)
    ));
    assert!(matches!(
        b().start_probabilities(vec![1.0, -1.0, 0.0]).build(),
        Err(GraphError::InvalidStartProbability { node: 1, .. })
    ));
}

#[test]
fn duplicate_policies() {
    let b = || {
        GraphBuilder::<(), ()>::new(2, Direction::Directed).default_node_labels().arc(0, 1, 1.0, ()).arc(0, 1, 2.5, ())
    };
    let g = b().duplicates(Duplicates::SumWeights).build().unwrap();
    assert_eq!(g.weights(), &[3.5]);
    let g = b().duplicates(Duplicates::KeepFirst).build().unwrap();
    assert_eq!(g.weights(), &[1.0]);
}

#[test]
fn directed_transpose() {
    let g = GraphBuilder::<(), u8>::new(3, Direction::Directed)
        .default_node_labels()
        .arc(0, 1, 1.0, 10)
        .arc(0, 2, 2.0, 20)
        .arc(2, 1, 3.0, 30)
        .build()
        .unwrap();
    assert!(g.require_undirected("triangle counting").is_err());
    let (t, map) = g.transpose();
    assert_eq!(t.indptr().into_raw_storage(), &[0, 0, 2, 3]);
    assert_eq!(t.indices(), &[0, 2, 0]);
    assert_eq!(t.data(), &[1.0, 3.0, 2.0]);
    let labels: Vec<u8> = map.iter().map(|&k| g.edge_labels()[k]).collect();
    assert_eq!(labels, vec![10, 30, 20]);
}

#[test]
fn permute_moves_everything() {
    let g = path3().with_start_probabilities(vec![0.1, 0.2, 0.3]).unwrap();
    let p = g.permute(&[2, 0, 1]).unwrap();
    // old node i is new node perm[i]
    assert_eq!(p.node_labels(), &[2, 3, 1]);
    assert_eq!(p.start_probabilities().unwrap(), &[0.2, 0.3, 0.1]);
    let k = p.find_entry(2, 0).unwrap(); // old edge 0-1
    assert_eq!((p.weights()[k], p.edge_labels()[k]), (1.5, 7));
    let k = p.find_entry(0, 1).unwrap(); // old edge 1-2
    assert_eq!((p.weights()[k], p.edge_labels()[k]), (2.0, 9));
    assert!(g.permute(&[0, 0, 1]).is_err());
    assert!(g.permute(&[0, 1]).is_err());
}

#[test]
fn with_weights_and_labels() {
    let g = path3();
    let w = g.with_weights(|_, l| *l as f64).unwrap();
    assert_eq!(w.degrees(), &[7.0, 16.0, 9.0]);
    assert!(g.with_weights(|_, _| -1.0).is_err());
    let m = g.map_edge_labels(|l| *l as i64 * 2);
    assert_eq!(m.edge_labels()[0], 14);
}
