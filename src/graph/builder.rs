//! [`GraphBuilder`]: validated construction of a [`Graph`].

use super::core::{check_start, Direction, Graph};
use super::label::Label;
use super::GraphError;
use sprs::CsMat;
use std::sync::OnceLock;

/// What the builder does with two entries for the same arc `(u, v)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Duplicates {
    /// Reject with [`GraphError::DuplicateEdge`] (the default: a duplicate
    /// in an input file is far more often a mistake than a multigraph).
    #[default]
    Reject,
    /// Keep one entry whose weight is the sum of the duplicates' weights; the
    /// label is the first one's.
    SumWeights,
    /// Keep the first entry given, drop later ones.
    KeepFirst,
}

/// Builds a [`Graph`] from edges or arcs and checks it.
///
/// - [`edge`](Self::edge) adds an undirected edge `{u, v}` (both arcs of an
///   undirected graph; the one arc `u → v` of a directed graph);
/// - [`arc`](Self::arc) adds one arc. In an undirected graph every arc must
///   then come with its reverse of equal weight and label: this is how files
///   that list both directions (the TU format) are read, and an asymmetric
///   input is rejected with [`GraphError::Asymmetric`].
///
/// Self-loops are allowed and stored once. Duplicates follow
/// [`Duplicates`] (rejected by default).
///
/// # Examples
/// ```
/// use kronograph::graph::{GraphBuilder, Direction};
/// let g = GraphBuilder::<u8, ()>::new(3, Direction::Undirected)
///     .node_labels(vec![6, 6, 8])
///     .edge(0, 1, 1.0, ())
///     .edge(1, 2, 2.0, ())
///     .build()
///     .unwrap();
/// assert_eq!(g.num_edges(), 2);
/// assert_eq!(g.degrees(), &[1.0, 3.0, 2.0]);
/// ```
#[derive(Clone, Debug)]
pub struct GraphBuilder<N, E> {
    n: usize,
    direction: Direction,
    node_labels: Option<Vec<N>>,
    start: Option<Vec<f64>>,
    /// `(from, to, weight, label, mirrored)`: `mirrored` marks the reverse
    /// arc an undirected [`edge`](Self::edge) adds, so that messages name
    /// the edge as the user gave it.
    arcs: Vec<(usize, usize, f64, E, bool)>,
    duplicates: Duplicates,
}

impl<N: Label, E: Label> GraphBuilder<N, E> {
    /// A builder for a graph of `n` nodes.
    pub fn new(n: usize, direction: Direction) -> Self {
        GraphBuilder { n, direction, node_labels: None, start: None, arcs: Vec::new(), duplicates: Duplicates::Reject }
    }

    /// Sets the node labels (one per node).
    pub fn node_labels(mut self, labels: Vec<N>) -> Self {
        self.node_labels = Some(labels);
        self
    }

    /// Sets the start probabilities (one per node).
    pub fn start_probabilities(mut self, p: Vec<f64>) -> Self {
        self.start = Some(p);
        self
    }

    /// Sets the duplicate policy.
    pub fn duplicates(mut self, policy: Duplicates) -> Self {
        self.duplicates = policy;
        self
    }

    /// Reserves room for `k` more arcs.
    pub fn reserve(&mut self, k: usize) {
        self.arcs.reserve(k);
    }

    /// Adds an edge (see the type's documentation).
    pub fn edge(mut self, u: usize, v: usize, w: f64, label: E) -> Self {
        self.push_edge(u, v, w, label);
        self
    }

    /// Adds an arc (see the type's documentation).
    pub fn arc(mut self, u: usize, v: usize, w: f64, label: E) -> Self {
        self.push_arc(u, v, w, label);
        self
    }

    /// Adds an edge in place.
    pub fn push_edge(&mut self, u: usize, v: usize, w: f64, label: E) {
        if self.direction == Direction::Undirected && u != v {
            self.arcs.push((v, u, w, label.clone(), true));
        }
        self.arcs.push((u, v, w, label, false));
    }

    /// Adds an arc in place.
    pub fn push_arc(&mut self, u: usize, v: usize, w: f64, label: E) {
        self.arcs.push((u, v, w, label, false));
    }

    /// Checks everything and builds the graph.
    ///
    /// # Errors
    /// [`GraphError::NodeOutOfRange`], [`GraphError::InvalidWeight`],
    /// [`GraphError::DuplicateEdge`], [`GraphError::Asymmetric`],
    /// [`GraphError::LengthMismatch`], [`GraphError::InvalidStartProbability`].
    pub fn build(self) -> Result<Graph<N, E>, GraphError>
    where
        E: PartialEq,
    {
        self.finish(|a, b| a == b)
    }

    /// As [`build`](Self::build), for edge labels without `PartialEq`
    /// (or where another test of equality is wanted for the symmetry check).
    ///
    /// # Errors
    /// See [`build`](Self::build).
    pub fn build_with(self, same_label: impl Fn(&E, &E) -> bool) -> Result<Graph<N, E>, GraphError> {
        self.finish(same_label)
    }

    fn finish(self, same_label: impl Fn(&E, &E) -> bool) -> Result<Graph<N, E>, GraphError> {
        let n = self.n;
        let node_labels = match self.node_labels {
            Some(l) if l.len() != n => {
                return Err(GraphError::LengthMismatch { what: "node labels", expected: n, found: l.len() })
            }
            Some(l) => l,
            None => return Err(GraphError::MissingNodeLabels),
        };
        if let Some(p) = &self.start {
            check_start(p, n)?;
        }
        let mut arcs = self.arcs;
        for &(u, v, w, _, mirrored) in &arcs {
            let (u, v) = if mirrored { (v, u) } else { (u, v) };
            for x in [u, v] {
                if x >= n {
                    return Err(GraphError::NodeOutOfRange { node: x, num_nodes: n });
                }
            }
            if !(w.is_finite() && w >= 0.0) {
                return Err(GraphError::InvalidWeight { from: u, to: v, weight: w });
            }
        }
        arcs.sort_by_key(|a| (a.0, a.1));
        // duplicates
        let mut merged: Vec<(usize, usize, f64, E, bool)> = Vec::with_capacity(arcs.len());
        for a in arcs {
            match merged.last_mut() {
                Some(last) if last.0 == a.0 && last.1 == a.1 => match self.duplicates {
                    Duplicates::Reject => {
                        let (from, to) = if a.4 { (a.1, a.0) } else { (a.0, a.1) };
                        return Err(GraphError::DuplicateEdge { from, to });
                    }
                    Duplicates::SumWeights => last.2 += a.2,
                    Duplicates::KeepFirst => {}
                },
                _ => merged.push(a),
            }
        }
        let mut indptr = vec![0usize; n + 1];
        for a in &merged {
            indptr[a.0 + 1] += 1;
        }
        for i in 0..n {
            indptr[i + 1] += indptr[i];
        }
        let mut indices = Vec::with_capacity(merged.len());
        let mut data = Vec::with_capacity(merged.len());
        let mut labels = Vec::with_capacity(merged.len());
        for (_, v, w, e, _) in merged {
            indices.push(v);
            data.push(w);
            labels.push(e);
        }
        let g = Graph {
            adjacency: CsMat::new((n, n), indptr, indices, data),
            node_labels,
            edge_labels: labels,
            start: self.start,
            direction: self.direction,
            degrees: OnceLock::new(),
            transpose: OnceLock::new(),
        };
        if g.direction == Direction::Undirected {
            check_symmetric(&g, &same_label)?;
        }
        Ok(g)
    }
}

impl<N: Label + Default, E: Label> GraphBuilder<N, E> {
    /// Gives every node the label `N::default()` unless labels were set.
    pub fn default_node_labels(mut self) -> Self {
        if self.node_labels.is_none() {
            self.node_labels = Some(vec![N::default(); self.n]);
        }
        self
    }
}

fn check_symmetric<N: Label, E: Label>(g: &Graph<N, E>, same: &impl Fn(&E, &E) -> bool) -> Result<(), GraphError> {
    for i in 0..g.num_nodes() {
        for k in g.row_range(i) {
            let j = g.indices()[k];
            if j == i {
                continue;
            }
            let Some(r) = g.find_entry(j, i) else {
                return Err(GraphError::Asymmetric { from: i, to: j, what: "the reverse arc is missing" });
            };
            if g.weights()[k] != g.weights()[r] {
                return Err(GraphError::Asymmetric {
                    from: i,
                    to: j,
                    what: "the two directions have different weights",
                });
            }
            if !same(&g.edge_labels()[k], &g.edge_labels()[r]) {
                return Err(GraphError::Asymmetric {
                    from: i,
                    to: j,
                    what: "the two directions have different labels",
                });
            }
        }
    }
    Ok(())
}
