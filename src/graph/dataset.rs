//! [`Dataset`]: a collection of labeled graphs, as read from files.

use super::label::{FieldKind, LabelError, Record, Schema, Value};
use super::Graph;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

/// A collection of graphs whose node and edge labels are [`Record`]s of one
/// shared node [`Schema`] and one shared edge schema, with an optional label
/// per graph (a class or a regression target).
///
/// Read one with [`io::load`](super::io::load) or
/// [`io::tu::read_dataset`](super::io::tu::read_dataset).
///
/// # Examples
/// ```
/// use kronograph::graph::io::tu;
/// let ds = tu::read_dataset(concat!(env!("CARGO_MANIFEST_DIR"), "/data/synthetic/NWS96L")).unwrap();
/// assert_eq!(ds.edge_schema.describe(), "label: int, attr0: float, attr1: float");
/// // weights from the first edge attribute
/// let weighted = ds.with_weights_from("attr0").unwrap();
/// assert!(weighted.graphs[0].weights().iter().all(|&w| (1.0..=4.0).contains(&w)));
/// ```
#[derive(Clone, Debug)]
pub struct Dataset {
    /// The data set's name (the TU folder name, or a file's stem).
    pub name: String,
    /// The graphs.
    pub graphs: Vec<Graph<Record, Record>>,
    /// The fields of every node label.
    pub node_schema: Arc<Schema>,
    /// The fields of every edge label.
    pub edge_schema: Arc<Schema>,
    /// One label per graph, when the data set has them.
    pub graph_labels: Option<Vec<f64>>,
}

impl Dataset {
    /// A one-graph data set from an unlabeled graph: every node and edge
    /// label becomes an empty [`Record`] (of an empty schema), and there are
    /// no graph labels. Cost `O(n + nnz)`.
    pub fn from_graph(name: impl Into<String>, graph: &Graph<(), ()>) -> Dataset {
        let schema = Arc::new(Schema::new());
        let empty = Record::new(schema.clone(), []).expect("an empty record fits the empty schema");
        // One copy of the CSR (mapping node and edge labels in turn would make two).
        let g = Graph {
            adjacency: graph.adjacency.clone(),
            node_labels: vec![empty.clone(); graph.num_nodes()],
            edge_labels: vec![empty; graph.num_entries()],
            start: graph.start.clone(),
            direction: graph.direction,
            degrees: std::sync::OnceLock::new(),
            transpose: std::sync::OnceLock::new(),
        };
        Dataset {
            name: name.into(),
            graphs: vec![g],
            node_schema: schema.clone(),
            edge_schema: schema,
            graph_labels: None,
        }
    }

    /// Number of graphs.
    pub fn len(&self) -> usize {
        self.graphs.len()
    }

    /// Whether there are no graphs.
    pub fn is_empty(&self) -> bool {
        self.graphs.is_empty()
    }

    /// Total number of nodes over all graphs.
    pub fn num_nodes(&self) -> usize {
        self.graphs.iter().map(|g| g.num_nodes()).sum()
    }

    /// Total number of edges over all graphs, as [`Graph::num_edges`] counts
    /// them: undirected edges (a self-loop once) for undirected graphs, arcs
    /// for directed ones.
    pub fn num_edges(&self) -> usize {
        self.graphs.iter().map(|g| g.num_edges()).sum()
    }

    /// Total number of stored adjacency entries (arcs) over all graphs.
    pub fn num_entries(&self) -> usize {
        self.graphs.iter().map(|g| g.num_entries()).sum()
    }

    /// Total number of self-loops over all graphs.
    pub fn num_self_loops(&self) -> usize {
        self.graphs.iter().map(|g| g.self_loops()).sum()
    }

    /// The running sum of the graphs' node counts (`len() + 1` entries):
    /// graph `g`'s nodes are rows `offsets[g]..offsets[g + 1]` of
    /// [`node_features`](Self::node_features).
    pub fn node_offsets(&self) -> Vec<usize> {
        let mut o = Vec::with_capacity(self.graphs.len() + 1);
        o.push(0);
        for g in &self.graphs {
            o.push(o[o.len() - 1] + g.num_nodes());
        }
        o
    }

    /// Whether any graph is directed.
    pub fn is_directed(&self) -> bool {
        self.graphs.iter().any(|g| g.is_directed())
    }

    /// The same data set with every edge weight taken from the edge field
    /// `field`, which must be of kind [`FieldKind::Int`] or
    /// [`FieldKind::Float`]; labels are kept. Cost `O(nnz)`.
    ///
    /// In the TU format this is how weighted graphs are read: the
    /// attributes `"weight, length"` of the synthetic sets become fields
    /// `attr0`, `attr1`, and `with_weights_from("attr0")` makes `attr0` the
    /// weight.
    ///
    /// # Errors
    /// - [`LabelError::UnknownField`] (naming the fields there are) when the
    ///   edge schema has no field `field`;
    /// - [`LabelError::FieldKind`] when it is not a number;
    /// - [`GraphError::InvalidWeight`](super::GraphError::InvalidWeight) when a
    ///   value is negative or not finite (or a record does not follow the
    ///   edge schema).
    pub fn with_weights_from(&self, field: &str) -> Result<Dataset, crate::Error> {
        let idx = self.edge_schema.index(field).ok_or_else(|| LabelError::UnknownField {
            name: field.to_string(),
            available: self.edge_schema.describe(),
        })?;
        let kind = self.edge_schema.kind(field).unwrap_or(FieldKind::Set);
        if !matches!(kind, FieldKind::Int | FieldKind::Float) {
            return Err(LabelError::FieldKind {
                name: field.to_string(),
                expected: "int or float".into(),
                found: kind,
            }
            .into());
        }
        let graphs = self
            .graphs
            .iter()
            .map(|g| g.with_weights(|_, e| e.values().get(idx).and_then(Value::as_f64).unwrap_or(f64::NAN)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Dataset { graphs, ..self.clone_without_graphs() })
    }

    /// Summaries of the node label fields, in schema order (see
    /// [`FieldSummary`]). Cost `O(total nodes)`.
    pub fn node_fields(&self) -> Vec<FieldSummary> {
        summarize(&self.node_schema, self.graphs.iter().flat_map(|g| g.node_labels()))
    }

    /// Summaries of the edge label fields, in schema order, over all stored
    /// arcs (both directions of an undirected edge carry the same label).
    /// Cost `O(total arcs)`.
    pub fn edge_fields(&self) -> Vec<FieldSummary> {
        summarize(&self.edge_schema, self.graphs.iter().flat_map(|g| g.edge_labels()))
    }

    /// Minimum, mean and maximum **unweighted** degree over all nodes of all
    /// graphs: the number of stored arcs leaving a node, that is its number
    /// of neighbours (out-neighbours in a directed graph; a self-loop makes a
    /// node its own neighbour once). `None` when there are no nodes.
    pub fn degree_stats(&self) -> Option<CountStats> {
        CountStats::of(self.graphs.iter().flat_map(|g| (0..g.num_nodes()).map(move |i| g.out_degree(i))))
    }

    /// Minimum, mean and maximum number of nodes per graph; `None` when there
    /// are no graphs.
    pub fn size_stats(&self) -> Option<CountStats> {
        CountStats::of(self.graphs.iter().map(|g| g.num_nodes()))
    }

    /// A summary of the graph labels; `None` when there are none.
    pub fn graph_label_summary(&self) -> Option<GraphLabels> {
        let labels = self.graph_labels.as_ref()?;
        let integral = labels.iter().all(|v| v.fract() == 0.0 && v.abs() < 2f64.powi(53));
        if integral {
            let mut counts = std::collections::BTreeMap::<i64, usize>::new();
            for &v in labels {
                *counts.entry(v as i64).or_default() += 1;
            }
            if counts.len() <= 32 {
                return Some(GraphLabels::Classes(counts.into_iter().collect()));
            }
        }
        let min = labels.iter().copied().fold(f64::INFINITY, f64::min);
        let max = labels.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(GraphLabels::Real { min, max })
    }

    /// The node fields `fields` of every node of every graph (graphs in
    /// order, nodes in order) as a dense row-major matrix, one row per node:
    /// an `Int` or `Float` field gives one column, an `Array(k)` field `k`
    /// columns. Cost `O(total nodes × columns)`.
    ///
    /// # Errors
    /// [`LabelError::UnknownField`] for a field not in the node schema,
    /// [`LabelError::FieldKind`] for a `Set` field, and
    /// [`LabelError::RecordShape`] for a label that does not follow the
    /// node schema.
    pub fn node_features(&self, fields: &[&str]) -> Result<NodeFeatures, LabelError> {
        let mut cols = Vec::new();
        let mut columns = Vec::new();
        for &f in fields {
            let idx = self.node_schema.index(f).ok_or_else(|| LabelError::UnknownField {
                name: f.to_string(),
                available: self.node_schema.describe(),
            })?;
            let kind = self.node_schema.kind(f).unwrap_or(FieldKind::Set);
            match kind {
                FieldKind::Int | FieldKind::Float => columns.push(f.to_string()),
                FieldKind::Array(k) => columns.extend((0..k).map(|c| format!("{f}[{c}]"))),
                FieldKind::Set => {
                    return Err(LabelError::FieldKind {
                        name: f.to_string(),
                        expected: "int, float or float array".into(),
                        found: kind,
                    })
                }
            }
            cols.push((idx, kind));
        }
        let width = columns.len();
        let rows = self.num_nodes();
        let mut data = Vec::with_capacity(rows * width);
        for r in self.graphs.iter().flat_map(|g| g.node_labels()) {
            for &(idx, kind) in &cols {
                match (r.values().get(idx), kind) {
                    (Some(Value::Int(v)), FieldKind::Int) => data.push(*v as f64),
                    (Some(Value::Float(v)), FieldKind::Float) => data.push(*v),
                    (Some(Value::Array(a)), FieldKind::Array(k)) if a.len() == k => data.extend_from_slice(a),
                    _ => {
                        return Err(LabelError::RecordShape {
                            expected: self.node_schema.describe(),
                            found: r.schema().describe(),
                        })
                    }
                }
            }
        }
        Ok(NodeFeatures { rows, cols: width, data, columns })
    }

    fn clone_without_graphs(&self) -> Dataset {
        Dataset {
            name: self.name.clone(),
            graphs: Vec::new(),
            node_schema: self.node_schema.clone(),
            edge_schema: self.edge_schema.clone(),
            graph_labels: self.graph_labels.clone(),
        }
    }
}

/// A dense row-major matrix of node features (see
/// [`Dataset::node_features`]): entry `(i, c)` is `data[i * cols + c]`.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeFeatures {
    /// Number of rows (nodes).
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// The values, row-major.
    pub data: Vec<f64>,
    /// The name of each column (`field` or `field[c]` for arrays).
    pub columns: Vec<String>,
}

/// Minimum, mean and maximum of a list of counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CountStats {
    /// Smallest value.
    pub min: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Largest value.
    pub max: usize,
}

impl CountStats {
    fn of(values: impl Iterator<Item = usize>) -> Option<CountStats> {
        let (mut min, mut max, mut sum, mut n) = (usize::MAX, 0usize, 0f64, 0usize);
        for v in values {
            min = min.min(v);
            max = max.max(v);
            sum += v as f64;
            n += 1;
        }
        (n > 0).then(|| CountStats { min, mean: sum / n as f64, max })
    }
}

impl fmt::Display for CountStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "min {}, mean {:.3}, max {}", self.min, self.mean, self.max)
    }
}

/// The graph labels of a data set, summarized.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphLabels {
    /// At most 32 distinct integer values: `(class, number of graphs)`, by class.
    Classes(Vec<(i64, usize)>),
    /// Real values (or many distinct integers): their range.
    Real {
        /// Smallest label.
        min: f64,
        /// Largest label.
        max: f64,
    },
}

impl fmt::Display for GraphLabels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphLabels::Classes(c) => {
                let parts: Vec<String> = c.iter().map(|(k, n)| format!("{k}: {n}")).collect();
                write!(f, "{} classes ({})", c.len(), parts.join(", "))
            }
            GraphLabels::Real { min, max } => write!(f, "real values in [{min}, {max}]"),
        }
    }
}

/// What the values of one label field look like over a data set.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldSummary {
    /// The field's name.
    pub name: String,
    /// The field's kind.
    pub kind: FieldKind,
    /// The values' range.
    pub values: FieldValues,
}

/// The range of a field's values (see [`FieldSummary`]).
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValues {
    /// No labels at all.
    None,
    /// Integers: how many distinct values and their range.
    Int {
        /// Number of distinct values.
        distinct: usize,
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// Reals (all components of arrays): their range.
    Real {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// Sets: the range of their sizes.
    Sets {
        /// Smallest set.
        min_len: usize,
        /// Largest set.
        max_len: usize,
    },
}

impl fmt::Display for FieldSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.kind)?;
        match self.values {
            FieldValues::None => Ok(()),
            FieldValues::Int { distinct, min, max } => write!(f, ", {distinct} distinct values in {min}..={max}"),
            FieldValues::Real { min, max } => write!(f, ", values in [{min}, {max}]"),
            FieldValues::Sets { min_len, max_len } => write!(f, ", {min_len} to {max_len} elements"),
        }
    }
}

fn summarize<'a>(schema: &Schema, labels: impl Iterator<Item = &'a Record> + Clone) -> Vec<FieldSummary> {
    schema
        .fields()
        .enumerate()
        .map(|(i, (name, kind))| {
            let values = labels.clone().filter_map(|r| r.values().get(i));
            let summary = match kind {
                FieldKind::Int => {
                    let mut seen = HashSet::new();
                    let (mut min, mut max) = (i64::MAX, i64::MIN);
                    for v in values {
                        if let Value::Int(x) = *v {
                            seen.insert(x);
                            min = min.min(x);
                            max = max.max(x);
                        }
                    }
                    if seen.is_empty() {
                        FieldValues::None
                    } else {
                        FieldValues::Int { distinct: seen.len(), min, max }
                    }
                }
                FieldKind::Float | FieldKind::Array(_) => {
                    let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
                    for v in values {
                        let xs: &[f64] = match v {
                            Value::Float(x) => std::slice::from_ref(x),
                            Value::Array(a) => a,
                            _ => &[],
                        };
                        for &x in xs {
                            min = min.min(x);
                            max = max.max(x);
                        }
                    }
                    if min > max {
                        FieldValues::None
                    } else {
                        FieldValues::Real { min, max }
                    }
                }
                FieldKind::Set => {
                    let (mut min_len, mut max_len) = (usize::MAX, 0);
                    for v in values {
                        if let Value::Set(s) = v {
                            min_len = min_len.min(s.len());
                            max_len = max_len.max(s.len());
                        }
                    }
                    if min_len > max_len {
                        FieldValues::None
                    } else {
                        FieldValues::Sets { min_len, max_len }
                    }
                }
            };
            FieldSummary { name: name.to_string(), kind, values: summary }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Direction, GraphBuilder};

    fn tiny() -> Dataset {
        let ns = Arc::new(Schema::new().with("label", FieldKind::Int));
        let es = Arc::new(Schema::new().with("attr0", FieldKind::Float).with("tag", FieldKind::Set));
        let n = |v| Record::new(ns.clone(), [Value::Int(v)]).unwrap();
        let e = |w| Record::new(es.clone(), [Value::Float(w), Value::Set(Default::default())]).unwrap();
        let g = GraphBuilder::new(3, Direction::Undirected)
            .node_labels(vec![n(1), n(2), n(2)])
            .edge(0, 1, 1.0, e(2.5))
            .edge(1, 2, 1.0, e(0.5))
            .build()
            .unwrap();
        Dataset {
            name: "tiny".into(),
            graphs: vec![g],
            node_schema: ns,
            edge_schema: es,
            graph_labels: Some(vec![1.0]),
        }
    }

    #[test]
    fn totals_and_summaries() {
        let ds = tiny();
        assert_eq!((ds.len(), ds.num_nodes(), ds.num_edges(), ds.num_entries()), (1, 3, 2, 4));
        let d = ds.degree_stats().unwrap();
        assert_eq!((d.min, d.max), (1, 2));
        assert!((d.mean - 4.0 / 3.0).abs() < 1e-12);
        assert_eq!(ds.node_fields()[0].values, FieldValues::Int { distinct: 2, min: 1, max: 2 });
        assert_eq!(ds.edge_fields()[0].values, FieldValues::Real { min: 0.5, max: 2.5 });
        assert_eq!(ds.edge_fields()[1].values, FieldValues::Sets { min_len: 0, max_len: 0 });
        assert_eq!(ds.graph_label_summary(), Some(GraphLabels::Classes(vec![(1, 1)])));
    }

    #[test]
    fn weights_from_a_field() {
        let ds = tiny();
        let w = ds.with_weights_from("attr0").unwrap();
        assert_eq!(w.graphs[0].degrees(), &[2.5, 3.0, 0.5]);
        let e = ds.with_weights_from("length").unwrap_err().to_string();
        assert!(e.contains("length") && e.contains("attr0: float"), "{e}");
        let e = ds.with_weights_from("tag").unwrap_err().to_string();
        assert!(e.contains("tag") && e.contains("int or float"), "{e}");
    }

    #[test]
    fn features() {
        let ds = tiny();
        let f = ds.node_features(&["label"]).unwrap();
        assert_eq!((f.rows, f.cols, f.data), (3, 1, vec![1.0, 2.0, 2.0]));
        assert_eq!(ds.node_offsets(), [0, 3]);
        assert!(ds.node_features(&["nope"]).is_err());
    }
}
