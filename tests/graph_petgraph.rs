//! Graphs from petgraph (every graph type through the visit traits, the
//! duplicates policy) and the direction of arcs in the builder's messages.

use kronograph::graph::{Direction, Duplicates, Graph, GraphBuilder, GraphError};
use kronograph::petgraph;
use petgraph::csr::Csr;
use petgraph::graph::{DiGraph, UnGraph};
use petgraph::graphmap::{DiGraphMap, UnGraphMap};
use petgraph::stable_graph::StableUnGraph;

/// `(from, to, weight)` of every stored arc, in CSR order.
fn arcs<N: kronograph::graph::Label>(g: &Graph<N, ()>) -> Vec<(usize, usize, f64)> {
    (0..g.num_nodes()).flat_map(|i| g.row_range(i).map(move |k| (i, g.indices()[k], g.weights()[k]))).collect()
}

/// The triangle 0-1-2 with a pendant 3 on node 2, weights 1..4.
fn expected_undirected() -> Vec<(usize, usize, f64)> {
    let mut v = Vec::new();
    for (u, w, x) in [(0, 1, 1.0), (1, 2, 2.0), (0, 2, 3.0), (2, 3, 4.0)] {
        v.push((u, w, x));
        v.push((w, u, x));
    }
    v.sort_by_key(|a| (a.0, a.1));
    v
}

const EDGES: [(u32, u32, f64); 4] = [(0, 1, 1.0), (1, 2, 2.0), (0, 2, 3.0), (2, 3, 4.0)];

#[test]
fn graph_and_digraph() {
    let pg = UnGraph::<u8, f64>::from_edges(EDGES);
    let g = Graph::<u8, ()>::from_petgraph(&pg, |w| (*w, ())).unwrap();
    assert_eq!(g.direction(), Direction::Undirected);
    assert_eq!(arcs(&g), expected_undirected());

    let dg = DiGraph::<u8, f64>::from_edges(EDGES);
    let d = Graph::<u8, ()>::from_petgraph(&dg, |w| (*w, ())).unwrap();
    assert_eq!(d.direction(), Direction::Directed);
    assert_eq!(arcs(&d), vec![(0, 1, 1.0), (0, 2, 3.0), (1, 2, 2.0), (2, 3, 4.0)]);
}

#[test]
fn stable_graph_with_a_removed_node_is_renumbered() {
    let mut pg = StableUnGraph::<u8, f64>::default();
    let n: Vec<_> = [10u8, 11, 12, 13, 14].into_iter().map(|l| pg.add_node(l)).collect();
    pg.add_edge(n[0], n[1], 1.0);
    pg.add_edge(n[1], n[2], 2.0);
    pg.add_edge(n[0], n[2], 3.0);
    pg.add_edge(n[2], n[4], 4.0);
    pg.add_edge(n[3], n[4], 5.0);
    pg.remove_node(n[3]);
    let g = Graph::<u8, ()>::from_petgraph(&pg, |w| (*w, ())).unwrap();
    assert_eq!(g.node_labels(), &[10, 11, 12, 14]);
    assert_eq!(arcs(&g), expected_undirected());
}

#[test]
fn graph_maps_use_their_keys_as_labels() {
    let keys = |e: &[(u32, u32, f64)]| e.iter().map(|&(u, v, w)| (u + 100, v + 100, w)).collect::<Vec<_>>();
    let um = UnGraphMap::<u32, f64>::from_edges(keys(&EDGES));
    let g = Graph::<u32, ()>::from_petgraph(&um, |w| (*w, ())).unwrap();
    assert_eq!(g.node_labels(), &[100, 101, 102, 103]);
    assert_eq!(arcs(&g), expected_undirected());

    let dm = DiGraphMap::<u32, f64>::from_edges(keys(&EDGES));
    let d = Graph::<u32, ()>::from_petgraph(&dm, |w| (*w, ())).unwrap();
    assert_eq!(d.direction(), Direction::Directed);
    assert_eq!(d.num_edges(), 4);
}

#[test]
fn csr_directed_and_undirected() {
    let mut sorted: Vec<(u32, u32, f64)> = EDGES.to_vec();
    sorted.sort_by_key(|a| (a.0, a.1));
    let dc = Csr::<u8, f64>::from_sorted_edges(&sorted).unwrap();
    let d = Graph::<u8, ()>::from_petgraph(&dc, |w| (*w, ())).unwrap();
    assert_eq!(arcs(&d), vec![(0, 1, 1.0), (0, 2, 3.0), (1, 2, 2.0), (2, 3, 4.0)]);

    // an undirected Csr stores (and lists) both arcs of every edge
    let mut uc = Csr::<u8, f64, petgraph::Undirected>::with_nodes(4);
    for (u, v, w) in EDGES {
        uc.add_edge(u, v, w);
    }
    let g = Graph::<u8, ()>::from_petgraph(&uc, |w| (*w, ())).unwrap();
    assert_eq!(g.direction(), Direction::Undirected);
    assert_eq!(arcs(&g), expected_undirected());
}

#[test]
fn duplicates_policy_and_its_hint() {
    let pg = UnGraph::<u8, f64>::from_edges([(0, 1, 1.0), (1, 2, 1.0), (1, 0, 2.0)]);
    let e = Graph::<u8, ()>::from_petgraph(&pg, |w| (*w, ())).unwrap_err();
    assert!(matches!(e, GraphError::DuplicateEdge { .. }), "{e}");
    let msg = e.to_string();
    // the hint names options that exist
    assert!(msg.contains("GraphBuilder::from_petgraph(..).duplicates(..)"), "{msg}");
    assert!(msg.contains("Duplicates::SumWeights") && msg.contains("Duplicates::KeepFirst"), "{msg}");
    let build = |policy| GraphBuilder::<u8, ()>::from_petgraph(&pg, |w| (*w, ())).duplicates(policy).build().unwrap();
    assert_eq!(build(Duplicates::SumWeights).degrees(), &[3.0, 4.0, 1.0]);
    assert_eq!(build(Duplicates::KeepFirst).degrees(), &[1.0, 2.0, 1.0]);
    // an undirected Graph whose edges are all parallel pairs is not mistaken
    // for one listing both arcs of each edge (it counts both)
    let twin = UnGraph::<u8, f64>::from_edges([(0, 1, 1.0), (1, 0, 1.0)]);
    let e = Graph::<u8, ()>::from_petgraph(&twin, |w| (*w, ())).unwrap_err();
    assert!(matches!(e, GraphError::DuplicateEdge { .. }), "{e}");
    // start probabilities through the same builder
    let g = GraphBuilder::<u8, ()>::from_petgraph(&pg, |w| (*w, ()))
        .duplicates(Duplicates::SumWeights)
        .start_probabilities(vec![0.5, 0.25, 0.25])
        .build()
        .unwrap();
    assert_eq!(g.num_edges(), 2);
}

#[test]
fn messages_name_arcs_as_given() {
    let b = |d| GraphBuilder::<(), ()>::new(3, d).default_node_labels();
    for d in [Direction::Undirected, Direction::Directed] {
        let e = b(d).edge(0, 1, -1.0, ()).build().unwrap_err();
        assert!(e.to_string().starts_with("edge 0 -> 1 has weight -1"), "{d:?}: {e}");
        let e = b(d).edge(2, 1, f64::NAN, ()).build().unwrap_err();
        assert!(e.to_string().starts_with("edge 2 -> 1 has weight NaN"), "{d:?}: {e}");
        let e = b(d).edge(2, 1, 1.0, ()).edge(2, 1, 1.0, ()).build().unwrap_err();
        assert!(e.to_string().starts_with("edge 2 -> 1 is given more than once"), "{d:?}: {e}");
        let e = b(d).arc(1, 0, -2.0, ()).build().unwrap_err();
        assert!(e.to_string().starts_with("edge 1 -> 0 has weight -2"), "{d:?}: {e}");
    }
    // from petgraph: the edge as petgraph holds it
    let pg = UnGraph::<(), f64>::from_edges([(2, 0, -1.0)]);
    let e = Graph::<(), ()>::from_petgraph(&pg, |w| (*w, ())).unwrap_err();
    assert!(e.to_string().starts_with("edge 2 -> 0"), "{e}");
}
