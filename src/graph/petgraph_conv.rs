//! Conversion from [`petgraph`] graphs, through petgraph's visit traits.
//!
//! Any petgraph graph that can list its nodes and edges and number its nodes
//! converts: [`petgraph::Graph`], [`StableGraph`](petgraph::stable_graph::StableGraph),
//! [`GraphMap`](petgraph::graphmap::GraphMap), [`Csr`](petgraph::csr::Csr), …
//! (the bounds are [`IntoNodeReferences`] + [`IntoEdgeReferences`] +
//! [`NodeIndexable`] + [`GraphProp`] + [`EdgeCount`]). The crate re-exports the petgraph it
//! is built against as [`kronograph::petgraph`](crate::petgraph), so the
//! versions always match.

use super::{Direction, Graph, GraphBuilder, GraphError, Label};
use petgraph::visit::{EdgeCount, EdgeRef, GraphProp, IntoEdgeReferences, IntoNodeReferences, NodeIndexable, NodeRef};

impl<N: Label, E: Label> GraphBuilder<N, E> {
    /// A builder holding the nodes and edges of a petgraph graph, so that
    /// options ([`duplicates`](Self::duplicates) for parallel edges,
    /// [`start_probabilities`](Self::start_probabilities)) can be set before
    /// [`build`](Self::build).
    ///
    /// Node `i` is the `i`-th node petgraph lists (in its index order;
    /// indices a [`StableGraph`](petgraph::stable_graph::StableGraph) has
    /// removed are skipped, so ids are `0..node_count`); node weights become
    /// node labels (`Into<N>`), and `edge_weight` maps an edge's petgraph
    /// weight to `(weight, label)`. Undirected petgraph graphs give undirected
    /// graphs (each petgraph edge is one edge `{u, v}`), directed ones
    /// directed graphs (each edge is the arc `u → v`). An undirected graph
    /// that lists every edge as both of its arcs and counts it once (as
    /// petgraph's undirected [`Csr`](petgraph::csr::Csr) built by `add_edge`
    /// does) is read as arcs: an edge is then `u → v` with its reverse, and
    /// the two must agree.
    ///
    /// # Examples
    /// Parallel edges are rejected by default; merge them by summing:
    /// ```
    /// use kronograph::graph::{Duplicates, Graph, GraphBuilder};
    /// use kronograph::petgraph::graph::UnGraph;
    /// let pg = UnGraph::<u8, f64>::from_edges([(0, 1, 1.0), (1, 0, 2.0), (1, 2, 1.0)]);
    /// assert!(Graph::<u8, ()>::from_petgraph(&pg, |w| (*w, ())).is_err());
    /// let g = GraphBuilder::<u8, ()>::from_petgraph(&pg, |w| (*w, ()))
    ///     .duplicates(Duplicates::SumWeights)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(g.degrees(), &[3.0, 4.0, 1.0]);
    /// ```
    pub fn from_petgraph<G>(pg: G, mut edge_weight: impl FnMut(&G::EdgeWeight) -> (f64, E)) -> Self
    where
        G: IntoNodeReferences + IntoEdgeReferences + NodeIndexable + GraphProp + EdgeCount,
        G::NodeWeight: Clone + Into<N>,
    {
        let direction = if pg.is_directed() { Direction::Directed } else { Direction::Undirected };
        // petgraph index -> compact node id
        let mut id = vec![usize::MAX; pg.node_bound()];
        let mut labels: Vec<N> = Vec::new();
        for node in pg.node_references() {
            id[pg.to_index(node.id())] = labels.len();
            labels.push(node.weight().clone().into());
        }
        let mut b = GraphBuilder::new(labels.len(), direction).node_labels(labels);
        let edges: Vec<(usize, usize, f64, E)> = pg
            .edge_references()
            .map(|e| {
                let (w, l) = edge_weight(e.weight());
                (id[pg.to_index(e.source())], id[pg.to_index(e.target())], w, l)
            })
            .collect();
        b.reserve(2 * edges.len());
        // lists more edges than it counts: each as two arcs
        if direction == Direction::Undirected && edges.len() > pg.edge_count() && lists_both_arcs(&edges) {
            // petgraph's undirected Csr stores (and lists) each edge as two arcs
            for (u, v, w, l) in edges {
                b.push_arc(u, v, w, l);
            }
        } else {
            for (u, v, w, l) in edges {
                b.push_edge(u, v, w, l);
            }
        }
        b
    }
}

impl<N: Label, E: Label> Graph<N, E> {
    /// Builds a graph from a petgraph graph (any of petgraph's graph types):
    /// [`GraphBuilder::from_petgraph`] then [`build`](GraphBuilder::build),
    /// with its defaults (parallel edges rejected). Use the builder to set
    /// [`Duplicates`](super::Duplicates) or start probabilities.
    ///
    /// # Errors
    /// As [`GraphBuilder::build`]: [`GraphError::DuplicateEdge`] for
    /// parallel edges, [`GraphError::InvalidWeight`] for a negative or
    /// non-finite weight.
    ///
    /// # Examples
    /// ```
    /// use kronograph::graph::Graph;
    /// use kronograph::petgraph::graph::UnGraph;
    /// use kronograph::petgraph::graphmap::DiGraphMap;
    /// let mut pg = UnGraph::<u8, f64>::new_undirected();
    /// let a = pg.add_node(6);
    /// let b = pg.add_node(8);
    /// pg.add_edge(a, b, 2.0);
    /// let g = Graph::<u8, ()>::from_petgraph(&pg, |w| (*w, ())).unwrap();
    /// assert_eq!(g.num_edges(), 1);
    /// assert_eq!(g.degrees(), &[2.0, 2.0]);
    ///
    /// // a GraphMap: node weights are the node keys
    /// let gm = DiGraphMap::<u32, ()>::from_edges([(10, 20), (20, 30)]);
    /// let d = Graph::<u32, ()>::from_petgraph(&gm, |_| (1.0, ())).unwrap();
    /// assert_eq!(d.node_labels(), &[10, 20, 30]);
    /// ```
    pub fn from_petgraph<G>(pg: G, edge_weight: impl FnMut(&G::EdgeWeight) -> (f64, E)) -> Result<Self, GraphError>
    where
        G: IntoNodeReferences + IntoEdgeReferences + NodeIndexable + GraphProp + EdgeCount,
        G::NodeWeight: Clone + Into<N>,
        E: PartialEq,
    {
        GraphBuilder::from_petgraph(pg, edge_weight).build()
    }
}

/// Whether an undirected petgraph graph lists every non-loop edge as both
/// of its arcs: as many `u → v` as `v → u` for every pair, and at least one.
fn lists_both_arcs<E>(edges: &[(usize, usize, f64, E)]) -> bool {
    let mut balance: std::collections::HashMap<(usize, usize), i64> = std::collections::HashMap::new();
    for &(u, v, ..) in edges {
        if u != v {
            *balance.entry((u.min(v), u.max(v))).or_default() += if u < v { 1 } else { -1 };
        }
    }
    !balance.is_empty() && balance.values().all(|&c| c == 0)
}
