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
//!
//! The reader is split by concern: `locate` finds the data set's files,
//! `parse` reads and checks each file line by line, `diagnose` maps a graph
//! builder's error back to the file line that causes it; this module
//! assembles the [`Dataset`].

mod assemble;
mod diagnose;
mod locate;
mod parse;

pub use self::locate::file_of_dataset;

use self::diagnose::Ctx;
use self::locate::{file_name, find_name};
use self::parse::{read_arcs, read_indicator, read_table, Kind, Table};
use super::source::regular_or_absent;
use super::text::malformed;
use super::IoError;
use crate::graph::{Dataset, Direction, FieldKind, Graph, GraphBuilder, Record, Schema, Value};
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
    // A file that exists in another form than a regular file is an error
    // naming it, never taken for absent.
    let optional = |suffix: &str| -> Result<Option<PathBuf>, IoError> {
        let p = file(suffix);
        Ok(regular_or_absent(&p)?.then_some(p))
    };

    let gi_path = file("graph_indicator");
    if !regular_or_absent(&gi_path)? {
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
    let a_name = file_name(&a_path);
    let per_node = format!("one per node, as {gi_name} has");
    let per_arc = format!("one per line of {a_name}");
    let table = |suffix: &str, rows: usize, why: &str, kind: Kind| -> Result<Option<Table>, IoError> {
        optional(suffix)?.map(|p| read_table(&p, rows, why, kind).map(|t| t.with_path(p))).transpose()
    };
    // The files are read in parallel; their errors are reported in the
    // order of a sequential read (the arcs first).
    let (arcs, (node_labels, node_attrs)) = rayon::join(
        || read_arcs(&a_path, &indicator, &gi_name),
        || {
            rayon::join(
                || table("node_labels", n, &per_node, Kind::Int),
                || table("node_attributes", n, &per_node, Kind::Float),
            )
        },
    );
    let arcs = arcs?;
    let m = arcs.len();
    let (node_labels, node_attrs) = (node_labels?, node_attrs?);
    let graph_why = format!("one per graph: {gi_name} names {num_graphs}");
    let ((edge_labels, edge_attrs), graph_labels) = rayon::join(
        || {
            rayon::join(
                || table("edge_labels", m, &per_arc, Kind::Int),
                || table("edge_attributes", m, &per_arc, Kind::Float),
            )
        },
        || table("graph_labels", num_graphs, &graph_why, Kind::Float),
    );
    let (edge_labels, edge_attrs, graph_labels) = (edge_labels?, edge_attrs?, graph_labels?);
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
            if let Some(g) = ctx.assemble(lo, hi, ids, &node_record, &edge_record) {
                return Ok(g);
            }
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

    /// The parallel parse of the A file and the line reader agree: the same
    /// arcs from spaced, tabbed and CRLF lines; the line of a bad one.
    #[test]
    fn arcs_fast_and_line_reader_agree() {
        let d = tempfile::tempdir().unwrap();
        let ok = "1,2\r\n2 , 1\r\n\t3,  4\n4,3 \n";
        write(d.path(), &[("X_A.txt", ok), ("X_graph_indicator.txt", "1\n1\n2\n2\n")]);
        let ds = read_dataset(d.path()).unwrap();
        assert_eq!((ds.len(), ds.num_edges()), (2, 2));
        assert_eq!(ds.graphs[1].neighbors(0), &[1]);
        for (bad, line) in [("1, 2\n2, 1\n\n3, 4\n", 3), ("1, 2\n2, x\n", 2), ("1, 2\n2, 1, 3\n", 2), ("1, 3\n", 1)] {
            write(d.path(), &[("X_A.txt", bad)]);
            let e = read_dataset(d.path()).unwrap_err().to_string();
            assert!(e.contains(&format!("X_A.txt:{line}:")), "{bad:?}: {e}");
        }
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
