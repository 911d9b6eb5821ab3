//! The [`Graph`] type: CSR adjacency with weights, node and edge labels.

use super::label::Label;
use super::GraphError;
use sprs::CsMat;
use std::sync::OnceLock;

/// Whether edges have a direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Each edge `{u, v}` is stored as both arcs `u → v` and `v → u`, with the
    /// same weight and label (a self-loop once).
    Undirected,
    /// Arcs are stored as given.
    Directed,
}

/// A graph of `n` nodes: a CSR adjacency matrix of non-negative weights
/// (1 for unweighted edges), a label per node, a label per stored entry
/// (arc), and an optional start probability per node.
///
/// Node ids are `0..n`. The stored entries of row `i` are the arcs leaving
/// `i`, sorted by target; `edge_labels()[k]` belongs to the `k`-th stored
/// entry (`adjacency().data()[k]`).
///
/// # Invariants (checked by [`GraphBuilder`](super::GraphBuilder))
/// - weights are finite and `>= 0`; no two entries share `(i, j)`;
/// - undirected graphs are symmetric in weights and labels;
/// - start probabilities, when present, are finite and `>= 0`.
///
/// Self-loops are allowed: an entry `(i, i)` is stored once and counts once
/// in the degree.
///
/// # Cached properties
/// Like LAGraph's graph, some derived properties are computed on first use
/// and cached: [`degrees`](Self::degrees) and, for directed graphs,
/// [`transpose`](Self::transpose). A graph is immutable once built, so the
/// caches stay valid for its whole life; operations that change a graph
/// ([`permute`](Self::permute), [`map_edge_labels`](Self::map_edge_labels), …)
/// return a new graph with empty caches.
#[derive(Clone, Debug)]
pub struct Graph<N = (), E = ()> {
    pub(super) adjacency: CsMat<f64>,
    pub(super) node_labels: Vec<N>,
    pub(super) edge_labels: Vec<E>,
    pub(super) start: Option<Vec<f64>>,
    pub(super) direction: Direction,
    pub(super) degrees: OnceLock<Vec<f64>>,
    pub(super) transpose: OnceLock<(CsMat<f64>, Vec<usize>)>,
}

impl<N: Label, E: Label> Graph<N, E> {
    /// Number of nodes.
    #[inline]
    pub fn num_nodes(&self) -> usize {
        self.adjacency.rows()
    }

    /// Number of stored entries (arcs): twice the undirected edges, less the
    /// self-loops, for an undirected graph.
    #[inline]
    pub fn num_entries(&self) -> usize {
        self.adjacency.nnz()
    }

    /// Number of edges: undirected edges (a self-loop counts once) for an
    /// undirected graph, arcs for a directed one.
    pub fn num_edges(&self) -> usize {
        match self.direction {
            Direction::Directed => self.num_entries(),
            Direction::Undirected => {
                let loops = self.self_loops();
                (self.num_entries() - loops) / 2 + loops
            }
        }
    }

    /// Number of self-loops.
    pub fn self_loops(&self) -> usize {
        self.adjacency
            .outer_iterator()
            .enumerate()
            .map(|(i, row)| row.indices().binary_search(&i).is_ok() as usize)
            .sum()
    }

    /// Whether the graph is directed.
    #[inline]
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// Whether the graph is directed.
    #[inline]
    pub fn is_directed(&self) -> bool {
        self.direction == Direction::Directed
    }

    /// Fails with [`GraphError::DirectedNotSupported`] for a directed graph;
    /// algorithms that need an undirected graph call this first.
    pub fn require_undirected(&self, what: &str) -> Result<(), GraphError> {
        if self.is_directed() {
            Err(GraphError::DirectedNotSupported { what: what.to_string() })
        } else {
            Ok(())
        }
    }

    /// The weighted adjacency matrix, CSR, `n × n`.
    #[inline]
    pub fn adjacency(&self) -> &CsMat<f64> {
        &self.adjacency
    }

    /// CSR row pointers (`n + 1` entries).
    #[inline]
    pub fn indptr(&self) -> &[usize] {
        self.adjacency.indptr().into_raw_storage()
    }

    /// CSR column indices of the stored entries.
    #[inline]
    pub fn indices(&self) -> &[usize] {
        self.adjacency.indices()
    }

    /// Weights of the stored entries.
    #[inline]
    pub fn weights(&self) -> &[f64] {
        self.adjacency.data()
    }

    /// Targets of the arcs leaving `i`, sorted.
    #[inline]
    pub fn neighbors(&self, i: usize) -> &[usize] {
        let p = self.indptr();
        &self.indices()[p[i]..p[i + 1]]
    }

    /// The stored-entry range of row `i` (indexes `indices`, `weights`,
    /// `edge_labels`).
    #[inline]
    pub fn row_range(&self, i: usize) -> std::ops::Range<usize> {
        let p = self.indptr();
        p[i]..p[i + 1]
    }

    /// Node labels, one per node.
    #[inline]
    pub fn node_labels(&self) -> &[N] {
        &self.node_labels
    }

    /// Edge labels, one per stored entry.
    #[inline]
    pub fn edge_labels(&self) -> &[E] {
        &self.edge_labels
    }

    /// Start probabilities, when set.
    #[inline]
    pub fn start_probabilities(&self) -> Option<&[f64]> {
        self.start.as_deref()
    }

    /// The entry index of arc `i → j`, if stored.
    pub fn find_entry(&self, i: usize, j: usize) -> Option<usize> {
        let r = self.row_range(i);
        self.indices()[r.clone()].binary_search(&j).ok().map(|k| r.start + k)
    }

    /// Weighted out-degrees `d_i = Σ_j w_ij` (cached on first call).
    ///
    /// This is the plain row sum: a node with no edges has degree 0.
    /// The marginalized graph kernel replaces zeros by one itself.
    pub fn degrees(&self) -> &[f64] {
        self.degrees.get_or_init(|| self.adjacency.outer_iterator().map(|row| row.data().iter().sum()).collect())
    }

    /// Number of stored arcs leaving each node (unweighted out-degree).
    pub fn out_degree(&self, i: usize) -> usize {
        let p = self.indptr();
        p[i + 1] - p[i]
    }

    /// The transpose (CSR of `Aᵀ`) and, for each of its entries, the index of
    /// the same arc in [`adjacency`](Self::adjacency) (to find its label).
    /// Cached on first call. For an undirected graph this equals the graph
    /// itself; it is still computed (cheaply) when asked for.
    pub fn transpose(&self) -> (&CsMat<f64>, &[usize]) {
        let (t, map) = self.transpose.get_or_init(|| {
            let n = self.num_nodes();
            let nnz = self.num_entries();
            let mut counts = vec![0usize; n + 1];
            for &j in self.indices() {
                counts[j + 1] += 1;
            }
            for i in 0..n {
                counts[i + 1] += counts[i];
            }
            let indptr = counts.clone();
            let mut next = counts;
            let mut indices = vec![0usize; nnz];
            let mut data = vec![0f64; nnz];
            let mut map = vec![0usize; nnz];
            for i in 0..n {
                for k in self.row_range(i) {
                    let j = self.indices()[k];
                    let dst = next[j];
                    next[j] += 1;
                    indices[dst] = i;
                    data[dst] = self.weights()[k];
                    map[dst] = k;
                }
            }
            (CsMat::new((n, n), indptr, indices, data), map)
        });
        (t, map)
    }

    /// A graph with the same structure and edge labels mapped by `f`.
    pub fn map_edge_labels<E2: Label>(&self, f: impl FnMut(&E) -> E2) -> Graph<N, E2> {
        Graph {
            adjacency: self.adjacency.clone(),
            node_labels: self.node_labels.clone(),
            edge_labels: self.edge_labels.iter().map(f).collect(),
            start: self.start.clone(),
            direction: self.direction,
            degrees: OnceLock::new(),
            transpose: OnceLock::new(),
        }
    }

    /// A graph with the same structure and node labels mapped by `f`.
    pub fn map_node_labels<N2: Label>(&self, f: impl FnMut(&N) -> N2) -> Graph<N2, E> {
        Graph {
            adjacency: self.adjacency.clone(),
            node_labels: self.node_labels.iter().map(f).collect(),
            edge_labels: self.edge_labels.clone(),
            start: self.start.clone(),
            direction: self.direction,
            degrees: self.degrees.clone(),
            transpose: self.transpose.clone(),
        }
    }

    /// A graph whose weights are `f(old weight, edge label)`.
    ///
    /// # Errors
    /// [`GraphError::InvalidWeight`] if a new weight is negative or not finite.
    pub fn with_weights(&self, mut f: impl FnMut(f64, &E) -> f64) -> Result<Self, GraphError> {
        let mut data = Vec::with_capacity(self.num_entries());
        for i in 0..self.num_nodes() {
            for k in self.row_range(i) {
                let w = f(self.weights()[k], &self.edge_labels[k]);
                if !(w.is_finite() && w >= 0.0) {
                    return Err(GraphError::InvalidWeight { from: i, to: self.indices()[k], weight: w });
                }
                data.push(w);
            }
        }
        let adjacency =
            CsMat::new((self.num_nodes(), self.num_nodes()), self.indptr().to_vec(), self.indices().to_vec(), data);
        Ok(Graph {
            adjacency,
            node_labels: self.node_labels.clone(),
            edge_labels: self.edge_labels.clone(),
            start: self.start.clone(),
            direction: self.direction,
            degrees: OnceLock::new(),
            transpose: OnceLock::new(),
        })
    }

    /// The same graph with start probabilities `p` (one per node).
    ///
    /// # Errors
    /// [`GraphError::LengthMismatch`] for a wrong length,
    /// [`GraphError::InvalidStartProbability`] for a negative or non-finite value.
    pub fn with_start_probabilities(mut self, p: Vec<f64>) -> Result<Self, GraphError> {
        check_start(&p, self.num_nodes())?;
        self.start = Some(p);
        Ok(self)
    }

    /// The graph with node `i` renamed `perm[i]`: labels, weights and start
    /// probabilities follow their nodes.
    ///
    /// # Errors
    /// [`GraphError::InvalidPermutation`] if `perm` is not a permutation of `0..n`.
    pub fn permute(&self, perm: &[usize]) -> Result<Self, GraphError> {
        let n = self.num_nodes();
        check_permutation(perm, n)?;
        let mut inv = vec![0usize; n];
        for (i, &p) in perm.iter().enumerate() {
            inv[p] = i;
        }
        let mut indptr = Vec::with_capacity(n + 1);
        indptr.push(0);
        let mut indices = Vec::with_capacity(self.num_entries());
        let mut data = Vec::with_capacity(self.num_entries());
        let mut labels = Vec::with_capacity(self.num_entries());
        let mut row: Vec<(usize, usize)> = Vec::new();
        for &old in &inv {
            row.clear();
            row.extend(self.row_range(old).map(|k| (perm[self.indices()[k]], k)));
            row.sort_unstable();
            for &(j, k) in &row {
                indices.push(j);
                data.push(self.weights()[k]);
                labels.push(self.edge_labels[k].clone());
            }
            indptr.push(indices.len());
        }
        Ok(Graph {
            adjacency: CsMat::new((n, n), indptr, indices, data),
            node_labels: inv.iter().map(|&o| self.node_labels[o].clone()).collect(),
            edge_labels: labels,
            start: self.start.as_ref().map(|s| inv.iter().map(|&o| s[o]).collect()),
            direction: self.direction,
            degrees: OnceLock::new(),
            transpose: OnceLock::new(),
        })
    }

    /// The adjacency as a dense row-major `n × n` matrix (for tests and small graphs).
    pub fn to_dense(&self) -> Vec<f64> {
        let n = self.num_nodes();
        let mut d = vec![0.0; n * n];
        for i in 0..n {
            for k in self.row_range(i) {
                d[i * n + self.indices()[k]] = self.weights()[k];
            }
        }
        d
    }
}

/// Start probabilities of `n` nodes: `n` finite values ≥ 0.
pub(super) fn check_start(p: &[f64], n: usize) -> Result<(), GraphError> {
    if p.len() != n {
        return Err(GraphError::LengthMismatch { what: "start probabilities", expected: n, found: p.len() });
    }
    if let Some((i, &v)) = p.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
        return Err(GraphError::InvalidStartProbability { node: i, value: v });
    }
    Ok(())
}

/// A permutation of `0..n`.
pub(super) fn check_permutation(perm: &[usize], n: usize) -> Result<(), GraphError> {
    if perm.len() != n {
        return Err(GraphError::InvalidPermutation { reason: format!("length {} for {} nodes", perm.len(), n) });
    }
    let mut seen = vec![false; n];
    for &p in perm {
        if p >= n || std::mem::replace(&mut seen[p], true) {
            return Err(GraphError::InvalidPermutation { reason: format!("{p} is out of range or repeated") });
        }
    }
    Ok(())
}
