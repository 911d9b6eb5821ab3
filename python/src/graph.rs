//! `kronograph._native.Graph`: one labeled graph converted once to the
//! library's native form, built from flat arrays (what the Python
//! converters produce from networkx or scipy.sparse) and turned back into
//! them for pickling.
//!
//! The array form ("state"): `n`, `directed`, `src`/`dst` (`int64`, one
//! entry per edge, each undirected edge once), `weights` (`float64`),
//! node and edge fields as `(name, kind, width, little-endian bytes)` with
//! `kind` one of `int` (`int64`), `float` (`float64`) and `array`
//! (`float64`, `width` values per node or edge), and optional start
//! probabilities.

use crate::error::{parameter, to_py};
use kronograph::graph::{Direction, FieldKind, Graph, GraphBuilder, Record, Schema, Value};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::sync::Arc;

/// One field as it crosses the boundary: name, kind, width, bytes.
pub type FieldArray = (String, String, usize, Vec<u8>);

/// The graph type of the bindings: [`Record`] labels on nodes and edges.
pub type RecordGraph = Graph<Record, Record>;

/// A graph with record labels and its two schemas (kept even when the graph
/// has no node or edge to carry them).
#[pyclass(name = "Graph", module = "kronograph._native", frozen)]
#[derive(Clone)]
pub struct PyGraph {
    /// The native graph.
    pub graph: Arc<RecordGraph>,
    /// The fields of its node labels.
    pub node_schema: Arc<Schema>,
    /// The fields of its edge labels.
    pub edge_schema: Arc<Schema>,
}

#[pymethods]
impl PyGraph {
    /// Builds a graph from its array form (see the module docs).
    #[new]
    #[pyo3(signature = (n, directed, src, dst, weights, node_fields, edge_fields, start=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        n: usize,
        directed: bool,
        src: &[u8],
        dst: &[u8],
        weights: &[u8],
        node_fields: Vec<FieldArray>,
        edge_fields: Vec<FieldArray>,
        start: Option<&[u8]>,
    ) -> PyResult<Self> {
        let src = ints(src, "src")?;
        let dst = ints(dst, "dst")?;
        let w = floats(weights, "weights")?;
        let m = src.len();
        if dst.len() != m || w.len() != m {
            return Err(parameter(format!(
                "edge arrays differ in length: {m} sources, {} targets, {} weights",
                dst.len(),
                w.len()
            )));
        }
        let (node_schema, node_labels) = records(&node_fields, n, "node")?;
        let (edge_schema, edge_labels) = records(&edge_fields, m, "edge")?;
        let direction = if directed { Direction::Directed } else { Direction::Undirected };
        let mut b = GraphBuilder::new(n, direction).node_labels(node_labels);
        if let Some(p) = start {
            b = b.start_probabilities(floats(p, "start")?);
        }
        b.reserve(if directed { m } else { 2 * m });
        for (k, label) in edge_labels.into_iter().enumerate() {
            let (u, v) = (node(src[k], n)?, node(dst[k], n)?);
            b.push_edge(u, v, w[k], label);
        }
        let graph = b.build().map_err(to_py)?;
        Ok(PyGraph { graph: Arc::new(graph), node_schema, edge_schema })
    }

    /// Number of nodes.
    #[getter]
    fn num_nodes(&self) -> usize {
        self.graph.num_nodes()
    }

    /// Number of edges (an undirected edge once, a self-loop once).
    #[getter]
    fn num_edges(&self) -> usize {
        self.graph.num_edges()
    }

    /// Whether the graph is directed.
    #[getter]
    fn directed(&self) -> bool {
        self.graph.is_directed()
    }

    /// The node fields: a list of `(name, kind)`.
    #[getter]
    fn node_fields(&self) -> Vec<(String, String)> {
        describe(&self.node_schema)
    }

    /// The edge fields: a list of `(name, kind)`.
    #[getter]
    fn edge_fields(&self) -> Vec<(String, String)> {
        describe(&self.edge_schema)
    }

    /// The array form: the arguments of the constructor, as a tuple.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let g = &*self.graph;
        let (mut src, mut dst, mut w, mut entries) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..g.num_nodes() {
            for e in g.row_range(i) {
                let j = g.indices()[e];
                if g.is_directed() || i <= j {
                    src.push(i as i64);
                    dst.push(j as i64);
                    w.push(g.weights()[e]);
                    entries.push(e);
                }
            }
        }
        let node_fields = fields_of(&self.node_schema, g.node_labels(), None)?;
        let edge_fields = fields_of(&self.edge_schema, g.edge_labels(), Some(&entries))?;
        let start = g.start_probabilities().map(|p| PyBytes::new(py, &f64_bytes(p)));
        (
            g.num_nodes(),
            g.is_directed(),
            PyBytes::new(py, &i64_bytes(&src)),
            PyBytes::new(py, &i64_bytes(&dst)),
            PyBytes::new(py, &f64_bytes(&w)),
            node_fields,
            edge_fields,
            start,
        )
            .into_pyobject(py)
    }

    /// Value equality: the same nodes, edges (in the same order), weights,
    /// fields and start probabilities.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.downcast::<PyGraph>() {
            Ok(o) => {
                let o = o.get();
                Arc::ptr_eq(&self.graph, &o.graph)
                    || (self.node_schema == o.node_schema
                        && self.edge_schema == o.edge_schema
                        && same_graph(&self.graph, &o.graph))
            }
            Err(_) => false,
        }
    }

    /// A hash consistent with `==` (equal graphs have equal sizes).
    fn __hash__(&self) -> u64 {
        let g = &*self.graph;
        (g.num_nodes() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (g.num_edges() as u64) ^ (g.is_directed() as u64)
    }

    /// The node fields as numpy arrays: `{name: array of n values}` (an
    /// `array` field is `n × width`, a `set` field a list of frozensets).
    #[getter]
    fn labels<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        helper(slf, "_labels")
    }

    /// The edge fields as numpy arrays, one value per edge of :attr:`edges`.
    #[getter]
    fn edge_labels<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        helper(slf, "_edge_labels")
    }

    /// The edges as an `int64` array of shape `(num_edges, 2)` (an undirected
    /// edge once, `i <= j`).
    #[getter]
    fn edges<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        helper(slf, "_edges")
    }

    /// The edge weights (`float64`, one per edge of :attr:`edges`).
    #[getter]
    fn weights<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        helper(slf, "_weights")
    }

    /// The start probabilities (`float64`, one per node), or `None`.
    #[getter]
    fn start<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        helper(slf, "_start")
    }

    /// A networkx graph with the same nodes (`0 … n−1`), edges, fields (as
    /// attributes), weights (the `weight` attribute) and start probabilities
    /// (the `start` node attribute, when set).
    fn to_networkx<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        helper(slf, "_to_networkx")
    }

    /// Pickling: the class and the array form (cheap: flat byte strings).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let state = slf.get().state(slf.py())?;
        Ok((slf.get_type().into_any(), state))
    }

    fn __repr__(&self) -> String {
        format!(
            "Graph({} nodes, {} edges{}; node fields: {}; edge fields: {})",
            self.graph.num_nodes(),
            self.graph.num_edges(),
            if self.graph.is_directed() { ", directed" } else { "" },
            or_none(self.node_schema.describe()),
            or_none(self.edge_schema.describe()),
        )
    }
}

/// Calls `kronograph.graphs.<name>(graph)` (the conversions to numpy and
/// networkx live in Python, next to the ones from them).
fn helper<'py>(slf: &Bound<'py, PyGraph>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    slf.py().import("kronograph.graphs")?.getattr(name)?.call1((slf,))
}

/// Whether two graphs have the same structure, weights, labels and start.
fn same_graph(a: &RecordGraph, b: &RecordGraph) -> bool {
    a.num_nodes() == b.num_nodes()
        && a.is_directed() == b.is_directed()
        && a.indices() == b.indices()
        && (0..a.num_nodes()).all(|i| a.row_range(i) == b.row_range(i))
        && a.weights().iter().zip(b.weights()).all(|(x, y)| x.to_bits() == y.to_bits())
        && a.node_labels() == b.node_labels()
        && a.edge_labels() == b.edge_labels()
        && a.start_probabilities() == b.start_probabilities()
}

/// Reads a data set (a TU folder, a Matrix Market file or an edge list):
/// `(graphs, graph labels or None, name)`.
#[pyfunction]
#[pyo3(signature = (path, weight=None))]
pub fn read_dataset(
    py: Python<'_>,
    path: std::path::PathBuf,
    weight: Option<String>,
) -> PyResult<(Vec<PyGraph>, Option<Vec<f64>>, String)> {
    let ds = py
        .allow_threads(|| -> kronograph::Result<_> {
            let ds = kronograph::graph::io::load(&path)?;
            match weight {
                Some(f) => ds.with_weights_from(&f),
                None => Ok(ds),
            }
        })
        .map_err(to_py)?;
    let (ns, es) = (ds.node_schema.clone(), ds.edge_schema.clone());
    let graphs = ds
        .graphs
        .into_iter()
        .map(|g| PyGraph { graph: Arc::new(g), node_schema: ns.clone(), edge_schema: es.clone() })
        .collect();
    Ok((graphs, ds.graph_labels, ds.name))
}

/// Clones the native graphs of a list, checking that they share one node
/// schema and one edge schema (the kernels are bound to it).
pub fn gather(graphs: &[PyRef<'_, PyGraph>], what: &str) -> PyResult<(Vec<RecordGraph>, Arc<Schema>, Arc<Schema>)> {
    let Some(first) = graphs.first() else {
        return Ok((Vec::new(), Arc::new(Schema::new()), Arc::new(Schema::new())));
    };
    for (i, g) in graphs.iter().enumerate() {
        if g.node_schema != first.node_schema || g.edge_schema != first.edge_schema {
            return Err(parameter(format!(
                "{what}[{i}] has node fields ({}) and edge fields ({}) but {what}[0] has ({}) and ({}): \
                 every graph of a call must have the same fields",
                g.node_schema.describe(),
                g.edge_schema.describe(),
                first.node_schema.describe(),
                first.edge_schema.describe()
            )));
        }
    }
    let list = graphs.iter().map(|g| (*g.graph).clone()).collect();
    Ok((list, first.node_schema.clone(), first.edge_schema.clone()))
}

fn describe(schema: &Schema) -> Vec<(String, String)> {
    schema.fields().map(|(n, k)| (n.to_string(), k.to_string())).collect()
}

fn or_none(s: String) -> String {
    if s.is_empty() {
        "none".into()
    } else {
        s
    }
}

fn node(v: i64, n: usize) -> PyResult<usize> {
    match usize::try_from(v) {
        Ok(u) if u < n => Ok(u),
        Ok(u) => Err(to_py(kronograph::graph::GraphError::NodeOutOfRange { node: u, num_nodes: n })),
        Err(_) => Err(parameter(format!("node id {v} is negative: node ids run from 0 to {n} - 1"))),
    }
}

fn chunks8<'a>(b: &'a [u8], what: &str) -> PyResult<impl Iterator<Item = [u8; 8]> + 'a + use<'a>> {
    if b.len() % 8 != 0 {
        return Err(parameter(format!("{what}: {} bytes is not a whole number of 8-byte values", b.len())));
    }
    Ok(b.chunks_exact(8).map(|c| <[u8; 8]>::try_from(c).expect("chunks of 8")))
}

fn ints(b: &[u8], what: &str) -> PyResult<Vec<i64>> {
    Ok(chunks8(b, what)?.map(i64::from_le_bytes).collect())
}

fn floats(b: &[u8], what: &str) -> PyResult<Vec<f64>> {
    Ok(chunks8(b, what)?.map(f64::from_le_bytes).collect())
}

/// The values of a `set` field: each set as its length then its elements
/// (`int64`), one after the other; each set sorted (a multiset keeps repeats).
fn sets(v: &[i64], name: &str) -> PyResult<Vec<Value>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < v.len() {
        let len = usize::try_from(v[at]).ok().filter(|&l| at + 1 + l <= v.len()).ok_or_else(|| {
            parameter(format!("set field {name:?}: a set of length {} at value {at} runs past the data", v[at]))
        })?;
        let mut s: smallvec::SmallVec<[i64; 4]> = v[at + 1..at + 1 + len].into();
        s.sort_unstable();
        out.push(Value::Set(s));
        at += 1 + len;
    }
    Ok(out)
}

/// Little-endian bytes of `f64` values.
pub fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Little-endian bytes of `i64` values.
pub fn i64_bytes(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The schema and the `count` records of a list of field arrays.
fn records(fields: &[FieldArray], count: usize, what: &str) -> PyResult<(Arc<Schema>, Vec<Record>)> {
    let mut schema = Schema::new();
    let mut columns: Vec<Vec<Value>> = Vec::with_capacity(fields.len());
    for (name, kind, width, bytes) in fields {
        if schema.index(name).is_some() {
            return Err(parameter(format!("{what} field {name:?} is given twice")));
        }
        let (k, column) = match kind.as_str() {
            "int" => (FieldKind::Int, ints(bytes, name)?.into_iter().map(Value::Int).collect::<Vec<_>>()),
            "float" => (FieldKind::Float, floats(bytes, name)?.into_iter().map(Value::Float).collect()),
            "array" if *width > 0 => {
                let v = floats(bytes, name)?;
                (FieldKind::Array(*width), v.chunks(*width).map(|c| Value::Array(c.into())).collect())
            }
            "set" => (FieldKind::Set, sets(&ints(bytes, name)?, name)?),
            _ => {
                return Err(parameter(format!(
                    "{what} field {name:?} has kind {kind:?} (width {width}); expected \"int\", \"float\", \
                     \"set\" or \"array\" with a width of at least 1"
                )))
            }
        };
        if column.len() != count || (matches!(k, FieldKind::Array(_)) && bytes.len() != 8 * count * width) {
            return Err(parameter(format!(
                "{what} field {name:?}: expected {count} values (one per {what}), found {}",
                column.len()
            )));
        }
        schema = schema.with(name, k);
        columns.push(column);
    }
    let schema = Arc::new(schema);
    let mut out = Vec::with_capacity(count);
    for r in 0..count {
        let rec = Record::new(schema.clone(), columns.iter().map(|c| c[r].clone())).map_err(to_py)?;
        out.push(rec);
    }
    Ok((schema, out))
}

/// The field arrays of `labels` (restricted to `entries` when given).
fn fields_of(schema: &Schema, labels: &[Record], entries: Option<&[usize]>) -> PyResult<Vec<FieldArray>> {
    let idx: Vec<usize> = match entries {
        Some(e) => e.to_vec(),
        None => (0..labels.len()).collect(),
    };
    let mut out = Vec::new();
    for (f, (name, kind)) in schema.fields().enumerate() {
        let mut bytes = Vec::with_capacity(8 * idx.len());
        let (kind_name, width) = match kind {
            FieldKind::Int => ("int", 1),
            FieldKind::Float => ("float", 1),
            FieldKind::Array(k) => ("array", k),
            FieldKind::Set => ("set", 0),
        };
        for &e in &idx {
            match labels[e].at(f) {
                Value::Int(i) => bytes.extend_from_slice(&i.to_le_bytes()),
                Value::Float(x) => bytes.extend_from_slice(&x.to_le_bytes()),
                Value::Array(a) => a.iter().for_each(|x| bytes.extend_from_slice(&x.to_le_bytes())),
                Value::Set(v) => {
                    bytes.extend_from_slice(&(v.len() as i64).to_le_bytes());
                    v.iter().for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
                }
            }
        }
        out.push((name.to_string(), kind_name.to_string(), width, bytes));
    }
    Ok(out)
}
