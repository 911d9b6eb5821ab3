//! The TU Dortmund graph-classification format
//! (<https://chrsmrrs.github.io/datasets/docs/format/>).
//!
//! A data set `DS` is a folder of text files, one value row per line, values
//! separated by commas (spaces around them are allowed; so are whitespace
//! alone and CRLF line ends):
//!
//! | file | lines | content |
//! | --- | --- | --- |
//! | `DS_A.txt` (required) | one per arc | `row, col`: 1-based global node ids; each undirected edge is listed in both directions |
//! | `DS_graph_indicator.txt` (required) | one per node | the 1-based graph of node `i` |
//! | `DS_graph_labels.txt` | one per graph | the graph's class or target (any real number) |
//! | `DS_node_labels.txt` | one per node | integer label(s) |
//! | `DS_edge_labels.txt` | one per line of `DS_A.txt` | integer label(s) |
//! | `DS_node_attributes.txt` | one per node | real attribute(s) |
//! | `DS_edge_attributes.txt` | one per line of `DS_A.txt` | real attribute(s) |
//!
//! Other files (`README.txt`, `DS_graph_attributes.txt`, …) are ignored.
//!
//! # What the reader makes of it
//! - Node labels become the [`Record`] field `label` ([`FieldKind::Int`]);
//!   with several label columns, fields `label0`, `label1`, …. Node
//!   attributes become fields `attr0`, `attr1`, … ([`FieldKind::Float`]),
//!   after the label fields. Edge labels and attributes likewise, on the
//!   edge records. Without such files the schemas are empty.
//! - Every graph is undirected with weights 1; an edge's label is the
//!   record of its A line. Use [`Dataset::with_weights_from`] to take
//!   weights from an attribute (the synthetic sets' attributes are
//!   `"weight, length"`, so `with_weights_from("attr0")`).
//! - Graph labels are kept as `f64` (MUTAG's `-1`/`1`, NCI1's `0`/`1`).
//!
//! # Checks
//! - the graph indicator starts at 1, never decreases and never skips an
//!   id (graph ids are contiguous; every graph has at least one node);
//! - every node id in `DS_A.txt` is in `1..=n`, and both ends of an arc lie
//!   in the same graph;
//! - every arc comes with its reverse, carrying the same labels and
//!   attributes; no arc is listed twice (built with
//!   [`GraphBuilder::push_arc`], whose errors are reported at the A line);
//! - the line counts agree: node files have one line per node, edge files
//!   one per A line, graph labels one per graph; every line of a file has
//!   the same number of columns;
//! - integers are integers, reals are finite reals.
//!
//! An empty `DS_A.txt` is an error (`Empty`): a data set with no edge at
//! all is far more likely a truncated download than real.

use super::text::{self, malformed, show};
use super::{read_bytes, IoError};
use crate::graph::{Dataset, Direction, FieldKind, Graph, GraphBuilder, GraphError, Record, Schema, Value};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Reads the TU data set in the folder `dir`.
///
/// The data set's name `DS` is the folder's name when `dir/DS_A.txt`
/// exists; otherwise the one `*_A.txt` file of the folder names it.
///
/// Cost: linear in the size of the files, plus sorting each graph's arcs;
/// graphs are built in parallel (rayon). `cargo bench --bench io` times
/// the bundled sets (NCI1: 122,747 nodes, 265,506 A lines).
///
/// # Errors
/// - [`IoError::Os`] when the folder or a file cannot be read;
/// - [`IoError::MissingFile`] without `DS_A.txt` or `DS_graph_indicator.txt`;
/// - [`IoError::Ambiguous`] when several `*_A.txt` files could be meant;
/// - [`IoError::Empty`] for an empty required file;
/// - [`IoError::Malformed`] for a line that is not what the format requires
///   (see the module documentation for the checks), naming file and line;
/// - [`IoError::LineCount`] when a file has too few or too many lines.
///
/// # Examples
/// ```
/// use kronograph::graph::io::tu;
/// let ds = tu::read_dataset(concat!(env!("CARGO_MANIFEST_DIR"), "/data/MUTAG")).unwrap();
/// assert_eq!(ds.name, "MUTAG");
/// assert_eq!((ds.len(), ds.num_nodes(), ds.num_edges()), (188, 3371, 3721));
/// assert_eq!(ds.node_schema.describe(), "label: int");
/// assert_eq!(ds.graph_labels.as_ref().unwrap()[..3], [1.0, -1.0, -1.0]);
/// ```
pub fn read_dataset(dir: impl AsRef<Path>) -> Result<Dataset, IoError> {
    let dir = dir.as_ref();
    let name = find_name(dir)?;
    let file = |suffix: &str| dir.join(format!("{name}_{suffix}.txt"));
    let optional = |suffix: &str| Some(file(suffix)).filter(|p| p.is_file());

    let gi_path = file("graph_indicator");
    if !gi_path.is_file() {
        return Err(IoError::MissingFile {
            path: gi_path,
            what: "the graph indicator of a TU data set (one line per node: the 1-based id of its graph)".into(),
        });
    }
    let indicator = read_indicator(&gi_path)?;
    let n = indicator.graph_of.len();
    let num_graphs = indicator.starts.len() - 1;
    let gi_name = file_name(&gi_path);

    let a_path = file("A");
    let arcs = read_arcs(&a_path, &indicator, &gi_name)?;
    let m = arcs.len();
    let a_name = file_name(&a_path);

    let per_node = format!("one per node, as {gi_name} has");
    let per_arc = format!("one per line of {a_name}");
    let table = |suffix: &str, rows: usize, why: &str, kind: Kind| -> Result<Option<Table>, IoError> {
        optional(suffix).map(|p| read_table(&p, rows, why, kind).map(|t| t.with_path(p))).transpose()
    };
    let node_labels = table("node_labels", n, &per_node, Kind::Int)?;
    let node_attrs = table("node_attributes", n, &per_node, Kind::Float)?;
    let edge_labels = table("edge_labels", m, &per_arc, Kind::Int)?;
    let edge_attrs = table("edge_attributes", m, &per_arc, Kind::Float)?;
    let graph_labels =
        table("graph_labels", num_graphs, &format!("one per graph: {gi_name} names {num_graphs}"), Kind::Float)?;
    let graph_labels = match graph_labels {
        Some(t) if t.cols != 1 => {
            return Err(malformed(&t.path, 1, "one value per line (the graph's label)", format!("{} values", t.cols)))
        }
        Some(t) => Some(t.floats),
        None => None,
    };

    let node_schema = Arc::new(schema(node_labels.as_ref(), node_attrs.as_ref()));
    let edge_schema = Arc::new(schema(edge_labels.as_ref(), edge_attrs.as_ref()));
    let node_record = |i: usize| record(&node_schema, node_labels.as_ref(), node_attrs.as_ref(), i);
    let edge_record = |k: usize| record(&edge_schema, edge_labels.as_ref(), edge_attrs.as_ref(), k);

    // Bucket the arcs by graph, keeping file order within each graph.
    let mut arc_starts = vec![0usize; num_graphs + 1];
    for &(u, _) in &arcs {
        arc_starts[indicator.graph_of[u] + 1] += 1;
    }
    for g in 0..num_graphs {
        arc_starts[g + 1] += arc_starts[g];
    }
    let mut next = arc_starts.clone();
    let mut order = vec![0usize; m];
    for (k, &(u, _)) in arcs.iter().enumerate() {
        let g = indicator.graph_of[u];
        order[next[g]] = k;
        next[g] += 1;
    }

    let ctx = Ctx { a_path: &a_path, arcs: &arcs, edge_labels: edge_labels.as_ref(), edge_attrs: edge_attrs.as_ref() };
    let built: Vec<Result<Graph<Record, Record>, IoError>> = (0..num_graphs)
        .into_par_iter()
        .map(|g| {
            let (lo, hi) = (indicator.starts[g], indicator.starts[g + 1]);
            let ids = &order[arc_starts[g]..arc_starts[g + 1]];
            let mut b =
                GraphBuilder::new(hi - lo, Direction::Undirected).node_labels((lo..hi).map(node_record).collect());
            b.reserve(ids.len());
            for &k in ids {
                let (u, v) = arcs[k];
                b.push_arc(u - lo, v - lo, 1.0, edge_record(k));
            }
            b.build().map_err(|e| ctx.graph_error(e, lo, ids))
        })
        .collect();
    let graphs = built.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(Dataset { name, graphs, node_schema, edge_schema, graph_labels })
}

/// The data set's name: the folder's, or that of its only `*_A.txt` file.
fn find_name(dir: &Path) -> Result<String, IoError> {
    let os = |source| IoError::Os { path: dir.to_path_buf(), source };
    let mut candidates = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(os)? {
        let entry = entry.map_err(os)?;
        if let Some(stem) = entry.file_name().to_str().and_then(|s| s.strip_suffix("_A.txt")) {
            if !stem.is_empty() && entry.path().is_file() {
                candidates.push(stem.to_string());
            }
        }
    }
    candidates.sort();
    let folder = dir.file_name().map(|s| s.to_string_lossy().into_owned());
    if let Some(f) = folder.as_ref().filter(|f| candidates.contains(f)) {
        return Ok(f.clone());
    }
    match candidates.len() {
        1 => Ok(candidates.pop().unwrap_or_default()),
        0 => {
            let mut what = "the adjacency file of a TU data set (DS_A.txt: one \"row, col\" line per arc)".to_string();
            let inner = data_set_folders(dir);
            if !inner.is_empty() {
                what += &format!("; this folder holds data set folders ({}): pass one of them", inner.join(", "));
            }
            Err(IoError::MissingFile { path: dir.join(format!("{}_A.txt", folder.as_deref().unwrap_or("DS"))), what })
        }
        _ => Err(IoError::Ambiguous {
            path: dir.to_path_buf(),
            candidates: candidates.iter().map(|c| format!("{c}_A.txt")).collect(),
        }),
    }
}

/// The sub-folders of `dir` that hold a `*_A.txt` file (at most 5, sorted):
/// what the user probably meant when `dir` holds no data set itself.
fn data_set_folders(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let has_a = |p: &Path| {
        std::fs::read_dir(p).is_ok_and(|mut es| {
            es.any(|e| e.is_ok_and(|e| e.file_name().to_str().is_some_and(|n| n.ends_with("_A.txt"))))
        })
    };
    let mut found: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir() && has_a(&e.path()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    if found.len() > 5 {
        found.truncate(5);
        found.push("…".into());
    }
    found
}

/// The suffixes of the files of a TU data set (`DS_<suffix>.txt`).
const FILE_SUFFIXES: [&str; 8] = [
    "A",
    "graph_indicator",
    "graph_labels",
    "node_labels",
    "edge_labels",
    "node_attributes",
    "edge_attributes",
    "graph_attributes",
];

/// When `path` is one of the files of a TU data set (`DS_A.txt`,
/// `DS_node_labels.txt`, … with `DS_A.txt` and `DS_graph_indicator.txt`
/// next to it), the error [`IoError::TuFile`] that names the folder to pass
/// instead; `None` otherwise.
pub fn file_of_dataset(path: &Path) -> Option<IoError> {
    let file = path.file_name()?.to_str()?;
    let stem = file.strip_suffix(".txt")?;
    let name = FILE_SUFFIXES.iter().find_map(|s| stem.strip_suffix(s)?.strip_suffix('_').filter(|n| !n.is_empty()))?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let sibling = |suffix: &str| folder.join(format!("{name}_{suffix}.txt")).is_file();
    (sibling("A") && sibling("graph_indicator")).then(|| IoError::TuFile {
        path: path.to_path_buf(),
        name: name.to_string(),
        folder,
    })
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

struct Indicator {
    /// The 0-based graph of each node.
    graph_of: Vec<usize>,
    /// Node offsets of the graphs (`graphs + 1` entries).
    starts: Vec<usize>,
}

fn read_indicator(path: &Path) -> Result<Indicator, IoError> {
    let bytes = read_bytes(path)?;
    let data = text::trim_trailing_blank(&bytes);
    if data.is_empty() {
        return Err(IoError::Empty {
            path: path.into(),
            expected: "one line per node: the 1-based id of its graph".into(),
        });
    }
    let mut graph_of = Vec::with_capacity(data.len() / 2);
    let mut starts = vec![0usize];
    let mut fields = Vec::new();
    for (line, l) in text::lines(data) {
        let id = match text::split_fields(l, &mut fields) {
            Ok(()) if fields.len() == 1 => text::parse_usize(fields[0]),
            _ => None,
        };
        let expected = |what: String| malformed(path, line, what, show(l));
        let Some(id) = id else { return Err(expected("one graph id (a positive integer)".into())) };
        let cur = starts.len() - 1; // the current graph's 1-based id; 0 before the first line
        if cur == 0 && id == 0 {
            return Err(expected(
                "graph id 1 (graph ids are 1-based: this file looks 0-based; add 1 to every line)".into(),
            ));
        }
        if id == cur + 1 {
            starts.push(graph_of.len());
        } else if id != cur {
            return Err(expected(match cur {
                0 => "graph id 1 (graph ids are 1-based and the file starts with graph 1)".into(),
                _ if id == 0 => format!("graph id {cur} or {} (graph ids are 1-based)", cur + 1),
                _ if id < cur => format!("graph id {cur} or {} (the nodes must be sorted by graph)", cur + 1),
                _ => format!("graph id {cur} or {} (graph ids must be contiguous)", cur + 1),
            }));
        }
        graph_of.push(starts.len() - 2);
    }
    // `starts` holds each graph's first node; close the last graph.
    starts.remove(0);
    starts.push(graph_of.len());
    Ok(Indicator { graph_of, starts })
}

fn read_arcs(path: &Path, ind: &Indicator, gi_name: &str) -> Result<Vec<(usize, usize)>, IoError> {
    if !path.is_file() {
        return Err(IoError::MissingFile {
            path: path.into(),
            what: "the adjacency file of a TU data set (one \"row, col\" line per arc)".into(),
        });
    }
    let bytes = read_bytes(path)?;
    let data = text::trim_trailing_blank(&bytes);
    if data.is_empty() {
        return Err(IoError::Empty { path: path.into(), expected: "one \"row, col\" line per arc".into() });
    }
    let n = ind.graph_of.len();
    let mut arcs = Vec::with_capacity(data.len() / 8);
    let mut fields = Vec::new();
    for (line, l) in text::lines(data) {
        let ok = text::split_fields(l, &mut fields).is_ok() && fields.len() == 2;
        let ids = if ok { fields.iter().map(|t| text::parse_usize(t)).collect::<Option<Vec<_>>>() } else { None };
        let Some([u, v]) = ids.as_deref().map(|s| [s[0], s[1]]) else {
            return Err(malformed(path, line, "two node ids \"row, col\"", show(l)));
        };
        for x in [u, v] {
            if x == 0 || x > n {
                return Err(malformed(
                    path,
                    line,
                    format!("node ids in 1..={n} ({gi_name} has {n} nodes)"),
                    format!("{} (in {})", x, show(l)),
                ));
            }
        }
        let (gu, gv) = (ind.graph_of[u - 1], ind.graph_of[v - 1]);
        if gu != gv {
            return Err(malformed(
                path,
                line,
                "both ends of an arc in the same graph",
                format!("node {u} in graph {} and node {v} in graph {}", gu + 1, gv + 1),
            ));
        }
        arcs.push((u - 1, v - 1));
    }
    Ok(arcs)
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Int,
    Float,
}

/// A table of values read from a label or attribute file.
struct Table {
    path: PathBuf,
    cols: usize,
    ints: Vec<i64>,
    floats: Vec<f64>,
}

impl Table {
    fn with_path(mut self, p: PathBuf) -> Self {
        self.path = p;
        self
    }

    fn row_values(&self, r: usize) -> String {
        let rng = r * self.cols..(r + 1) * self.cols;
        if self.ints.is_empty() {
            format!("{:?}", &self.floats[rng])
        } else {
            format!("{:?}", &self.ints[rng])
        }
    }

    fn same_rows(&self, a: usize, b: usize) -> bool {
        let (ra, rb) = (a * self.cols..(a + 1) * self.cols, b * self.cols..(b + 1) * self.cols);
        if self.ints.is_empty() {
            self.floats[ra] == self.floats[rb]
        } else {
            self.ints[ra] == self.ints[rb]
        }
    }
}

/// Reads `rows` lines of the same number of integer or real columns.
fn read_table(path: &Path, rows: usize, why: &str, kind: Kind) -> Result<Table, IoError> {
    let bytes = read_bytes(path)?;
    let data = text::trim_trailing_blank(&bytes);
    let what = match kind {
        Kind::Int => "integers",
        Kind::Float => "finite real numbers",
    };
    if data.is_empty() {
        return Err(IoError::Empty { path: path.into(), expected: format!("{rows} lines of {what} ({why})") });
    }
    let mut t = Table { path: path.into(), cols: 0, ints: Vec::new(), floats: Vec::new() };
    let mut fields = Vec::new();
    let mut count = 0;
    for (line, l) in text::lines(data) {
        count = line;
        if line > rows {
            break;
        }
        if text::split_fields(l, &mut fields).is_err() || fields.is_empty() {
            let cols = if t.cols == 0 { "one or more".to_string() } else { t.cols.to_string() };
            return Err(malformed(path, line, format!("{cols} comma-separated {what}"), show(l)));
        }
        if t.cols == 0 {
            t.cols = fields.len();
            match kind {
                Kind::Int => t.ints.reserve(rows.saturating_mul(t.cols).min(data.len())),
                Kind::Float => t.floats.reserve(rows.saturating_mul(t.cols).min(data.len())),
            }
        } else if fields.len() != t.cols {
            return Err(malformed(
                path,
                line,
                format!("{} comma-separated {what}, as on line 1", t.cols),
                format!("{} value{} in {}", fields.len(), if fields.len() == 1 { "" } else { "s" }, show(l)),
            ));
        }
        for f in &fields {
            let ok = match kind {
                Kind::Int => text::parse_i64(f).map(|v| t.ints.push(v)).is_some(),
                Kind::Float => text::parse_f64(f).map(|v| t.floats.push(v)).is_some(),
            };
            if !ok {
                let one = match kind {
                    Kind::Int => "an integer",
                    Kind::Float => "a finite real number",
                };
                return Err(malformed(path, line, one, format!("{} in {}", show(f), show(l))));
            }
        }
    }
    if count != rows {
        // `count` stops at `rows + 1` when the file is longer.
        let found = if count > rows { text::lines(data).count() } else { count };
        return Err(IoError::LineCount {
            path: path.into(),
            line: rows.min(count) + 1,
            expected: rows,
            found,
            why: why.to_string(),
        });
    }
    Ok(t)
}

fn field_names(prefix: &str, cols: usize) -> Vec<String> {
    match (prefix, cols) {
        ("label", 1) => vec!["label".to_string()],
        _ => (0..cols).map(|c| format!("{prefix}{c}")).collect(),
    }
}

fn schema(labels: Option<&Table>, attrs: Option<&Table>) -> Schema {
    let mut s = Schema::new();
    for name in field_names("label", labels.map_or(0, |t| t.cols)) {
        s = s.with(&name, FieldKind::Int);
    }
    for name in field_names("attr", attrs.map_or(0, |t| t.cols)) {
        s = s.with(&name, FieldKind::Float);
    }
    s
}

fn record(schema: &Arc<Schema>, labels: Option<&Table>, attrs: Option<&Table>, r: usize) -> Record {
    let ints = labels.map_or(&[][..], |t| &t.ints[r * t.cols..(r + 1) * t.cols]);
    let floats = attrs.map_or(&[][..], |t| &t.floats[r * t.cols..(r + 1) * t.cols]);
    let values = ints.iter().map(|&v| Value::Int(v)).chain(floats.iter().map(|&v| Value::Float(v)));
    Record::new(schema.clone(), values).expect("the schema is made from the same tables")
}

/// What [`GraphError`]s are mapped back to lines with.
struct Ctx<'a> {
    a_path: &'a Path,
    arcs: &'a [(usize, usize)],
    edge_labels: Option<&'a Table>,
    edge_attrs: Option<&'a Table>,
}

impl Ctx<'_> {
    /// An error of the builder of the graph whose first node is `lo` and
    /// whose arcs are `ids` (indexes into `arcs`, in file order), as an error
    /// at the line that causes it.
    fn graph_error(&self, e: GraphError, lo: usize, ids: &[usize]) -> IoError {
        let lines_of = |u: usize, v: usize| ids.iter().copied().filter(move |&k| self.arcs[k] == (u, v));
        match e {
            GraphError::DuplicateEdge { from, to } => {
                let (u, v) = (from + lo, to + lo);
                let mut l = lines_of(u, v);
                if let (Some(first), Some(second)) = (l.next(), l.next()) {
                    return malformed(
                        self.a_path,
                        second + 1,
                        "each arc once",
                        format!("arc \"{}, {}\" again (also on line {})", u + 1, v + 1, first + 1),
                    );
                }
                IoError::Graph { path: self.a_path.into(), source: e }
            }
            GraphError::Asymmetric { from, to, .. } => {
                let (u, v) = (from + lo, to + lo);
                let (Some(k), rev) = (lines_of(u, v).next(), lines_of(v, u).next()) else {
                    return IoError::Graph { path: self.a_path.into(), source: e };
                };
                let Some(r) = rev else {
                    return malformed(
                        self.a_path,
                        k + 1,
                        format!(
                            "the reverse arc \"{}, {}\" on another line (every undirected edge is listed in both directions)",
                            v + 1,
                            u + 1
                        ),
                        format!("\"{}, {}\" without it", u + 1, v + 1),
                    );
                };
                let table = [self.edge_labels, self.edge_attrs].into_iter().flatten().find(|t| !t.same_rows(k, r));
                match table {
                    Some(t) => malformed(
                        &t.path,
                        k + 1,
                        format!("the same values as line {} (the reverse arc {} -> {})", r + 1, v + 1, u + 1),
                        format!("{} against {}", t.row_values(k), t.row_values(r)),
                    ),
                    None => IoError::Graph { path: self.a_path.into(), source: e },
                }
            }
            other => IoError::Graph { path: self.a_path.into(), source: other },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, files: &[(&str, &str)]) {
        for (name, content) in files {
            std::fs::write(dir.join(name), content).unwrap();
        }
    }

    #[test]
    fn reads_a_small_set() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            &[
                ("X_A.txt", "1, 2\n2, 1\n3, 4\n4, 3\n4, 5\n5, 4\n"),
                ("X_graph_indicator.txt", "1\n1\n2\n2\n2\n"),
                ("X_graph_labels.txt", "1\n-1\n"),
                ("X_node_labels.txt", "0\n1\n2\n3\n4\n"),
                ("X_edge_attributes.txt", "1.5, 2\n1.5, 2\n3, 0\n3, 0\n1, 1\n1, 1\n"),
            ],
        );
        let ds = read_dataset(d.path()).unwrap();
        assert_eq!(ds.name, "X");
        assert_eq!((ds.len(), ds.num_nodes(), ds.num_edges()), (2, 5, 3));
        assert_eq!(ds.node_schema.describe(), "label: int");
        assert_eq!(ds.edge_schema.describe(), "attr0: float, attr1: float");
        assert_eq!(ds.graph_labels, Some(vec![1.0, -1.0]));
        let g = &ds.graphs[1];
        assert_eq!(g.neighbors(1), &[0, 2]);
        assert_eq!(g.node_labels()[2].get("label"), Some(&Value::Int(4)));
        let k = g.find_entry(2, 1).unwrap();
        assert_eq!(g.edge_labels()[k].get("attr0"), Some(&Value::Float(1.0)));
    }

    #[test]
    fn several_label_columns_get_numbered_fields() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            &[
                ("Y_A.txt", "1, 2\n2, 1\n"),
                ("Y_graph_indicator.txt", "1\n1\n"),
                ("Y_node_labels.txt", "0, 7\n1, 8\n"),
                ("Y_edge_labels.txt", "3, 4\n3, 4\n"),
            ],
        );
        let ds = read_dataset(d.path()).unwrap();
        assert_eq!(ds.node_schema.describe(), "label0: int, label1: int");
        assert_eq!(ds.edge_schema.describe(), "label0: int, label1: int");
        assert_eq!(ds.graphs[0].node_labels()[1].values(), &[Value::Int(1), Value::Int(8)]);
        assert_eq!(ds.graph_labels, None);
    }

    #[test]
    fn maps_builder_errors_to_lines() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), &[("X_A.txt", "1, 2\n2, 1\n1, 2\n"), ("X_graph_indicator.txt", "1\n1\n")]);
        let e = read_dataset(d.path()).unwrap_err().to_string();
        assert!(e.contains("X_A.txt:3:") && e.contains("also on line 1"), "{e}");
        write(d.path(), &[("X_A.txt", "1, 2\n")]);
        let e = read_dataset(d.path()).unwrap_err().to_string();
        assert!(e.contains("X_A.txt:1:") && e.contains("reverse arc \"2, 1\""), "{e}");
        write(d.path(), &[("X_A.txt", "1, 2\n2, 1\n"), ("X_edge_labels.txt", "1\n2\n")]);
        let e = read_dataset(d.path()).unwrap_err().to_string();
        assert!(e.contains("X_edge_labels.txt:1:") && e.contains("line 2"), "{e}");
    }
}
