//! Conversion from [`petgraph`] graphs.

use super::{Direction, Graph, GraphBuilder, GraphError, Label};
use petgraph::visit::{EdgeRef, IntoNodeReferences, NodeIndexable, NodeRef};
use petgraph::EdgeType;

impl<N: Label, E: Label> Graph<N, E> {
    /// Builds a graph from a [`petgraph::Graph`]: node `i` is petgraph's node
    /// index `i`, node weights become node labels, and `edge_weight` maps an
    /// edge's petgraph weight to `(weight, label)`. Undirected petgraph graphs
    /// give undirected graphs.
    ///
    /// # Errors
    /// As [`GraphBuilder::build_with`]; parallel edges are rejected.
    ///
    /// # Examples
    /// ```
    /// use kronograph::graph::Graph;
    /// let mut pg = petgraph::graph::UnGraph::<u8, f64>::new_undirected();
    /// let a = pg.add_node(6);
    /// let b = pg.add_node(8);
    /// pg.add_edge(a, b, 2.0);
    /// let g = Graph::<u8, ()>::from_petgraph(&pg, |w| (*w, ())).unwrap();
    /// assert_eq!(g.num_edges(), 1);
    /// assert_eq!(g.degrees(), &[2.0, 2.0]);
    /// ```
    pub fn from_petgraph<PN, PE, Ty, Ix>(
        pg: &petgraph::Graph<PN, PE, Ty, Ix>,
        mut edge_weight: impl FnMut(&PE) -> (f64, E),
    ) -> Result<Self, GraphError>
    where
        PN: Clone + Into<N>,
        Ty: EdgeType,
        Ix: petgraph::graph::IndexType,
        E: PartialEq,
    {
        let direction = if Ty::is_directed() { Direction::Directed } else { Direction::Undirected };
        let labels: Vec<N> = pg.node_references().map(|n| n.weight().clone().into()).collect();
        let mut b = GraphBuilder::new(pg.node_bound(), direction).node_labels(labels);
        for e in pg.edge_references() {
            let (w, l) = edge_weight(e.weight());
            b.push_edge(pg.to_index(e.source()), pg.to_index(e.target()), w, l);
        }
        b.build()
    }
}
