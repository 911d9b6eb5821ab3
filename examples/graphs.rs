//! Graphs from code (a builder, a generator) and from petgraph.
//!
//! Run: `cargo run --release --example graphs`.

use kronograph::graph::generate::barabasi_albert;
use kronograph::graph::{Direction, Duplicates, Graph, GraphBuilder};
use kronograph::petgraph::graph::UnGraph;
use kronograph::petgraph::graphmap::DiGraphMap;
use rand::SeedableRng;

/// A node label: an atom's element and charge.
#[derive(Clone, Debug, PartialEq)]
struct Atom {
    element: u8,
    charge: f32,
}
impl kronograph::graph::Label for Atom {}

fn main() -> kronograph::Result<()> {
    // From code: formaldehyde, node labels are structs, edge labels bond orders.
    let atoms = vec![
        Atom { element: 6, charge: 0.1 },
        Atom { element: 8, charge: -0.4 },
        Atom { element: 1, charge: 0.15 },
        Atom { element: 1, charge: 0.15 },
    ];
    let h2co = GraphBuilder::<Atom, u8>::new(4, Direction::Undirected)
        .node_labels(atoms)
        .edge(0, 1, 1.0, 2) // C=O
        .edge(0, 2, 1.0, 1)
        .edge(0, 3, 1.0, 1)
        .build()?;
    println!("H2CO: {} nodes, {} edges, degrees {:?}", h2co.num_nodes(), h2co.num_edges(), h2co.degrees());

    // A seeded generator: a Barabási–Albert graph of 1000 nodes.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let ba = barabasi_albert(1000, 3, &mut rng)?;
    let max_degree = ba.degrees().iter().fold(0.0f64, |m, &d| m.max(d));
    println!("BA(1000, 3): {} edges, largest degree {max_degree}", ba.num_edges());

    // From petgraph (re-exported as kronograph::petgraph: the versions match).
    let mut pg = UnGraph::<u8, f64>::new_undirected();
    let c = pg.add_node(6);
    let o = pg.add_node(8);
    pg.add_edge(c, o, 2.0);
    pg.add_edge(o, c, 1.0); // a parallel edge
    match Graph::<u8, ()>::from_petgraph(&pg, |w| (*w, ())) {
        Err(e) => println!("parallel edges are refused by default: {e}"),
        Ok(_) => unreachable!("the parallel edge is a duplicate"),
    }
    let merged = GraphBuilder::<u8, ()>::from_petgraph(&pg, |w| (*w, ())).duplicates(Duplicates::SumWeights).build()?;
    assert_eq!(merged.degrees(), &[3.0, 3.0]);
    println!("merged by SumWeights: degrees {:?}", merged.degrees());

    // Any petgraph graph type: a directed GraphMap, its keys become labels.
    let calls = DiGraphMap::<u32, ()>::from_edges([(100, 200), (200, 300), (100, 300)]);
    let d = Graph::<u32, ()>::from_petgraph(&calls, |_| (1.0, ()))?;
    assert_eq!(d.direction(), Direction::Directed);
    println!("DiGraphMap: labels {:?}, {} arcs", d.node_labels(), d.num_edges());
    Ok(())
}
