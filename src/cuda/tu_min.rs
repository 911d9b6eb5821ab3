//! A minimal reader of TU Dortmund data sets for the GPU tests and benchmark,
//! to be replaced by `graph::io::tu` once that lands.
//!
//! Reads `DS_A.txt`, `DS_graph_indicator.txt` and, when present,
//! `DS_node_labels.txt`, `DS_edge_labels.txt`, `DS_edge_attributes.txt`.
//! Node labels become records `{label: int}`; edge labels records
//! `{label: int, attr0: float, attr1: float, …}` (missing columns are 0).

use crate::graph::{Direction, Duplicates, FieldKind, Graph, GraphBuilder, Record, Schema, Value};
use std::path::Path;
use std::sync::Arc;

fn read_rows(path: &Path) -> Result<Option<Vec<Vec<f64>>>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let mut rows = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: Result<Vec<f64>, _> = line.split(',').map(|s| s.trim().parse::<f64>()).collect();
        rows.push(row.map_err(|e| format!("{}:{}: {e}", path.display(), ln + 1))?);
    }
    Ok(Some(rows))
}

/// Reads the data set in folder `dir` (its name is the data-set name).
/// With `weights_from_attr0`, edge weights are the first edge attribute.
///
/// # Errors
/// A message naming the file and line.
pub fn read(dir: &Path, weights_from_attr0: bool) -> Result<Vec<Graph<Record, Record>>, String> {
    let name = dir.file_name().and_then(|n| n.to_str()).ok_or("bad folder name")?;
    let f = |s: &str| dir.join(format!("{name}_{s}.txt"));
    let a = read_rows(&f("A"))?.ok_or_else(|| format!("{} missing", f("A").display()))?;
    let ind = read_rows(&f("graph_indicator"))?.ok_or("graph_indicator missing")?;
    let nl = read_rows(&f("node_labels"))?;
    let el = read_rows(&f("edge_labels"))?;
    let ea = read_rows(&f("edge_attributes"))?;
    let n_attr = ea.as_ref().and_then(|r| r.first()).map_or(0, |r| r.len());
    let vs = Arc::new(Schema::new().with("label", FieldKind::Int));
    let mut es = Schema::new().with("label", FieldKind::Int);
    for k in 0..n_attr {
        es = es.with(&format!("attr{k}"), FieldKind::Float);
    }
    let es = Arc::new(es);
    let graph_of: Vec<usize> = ind.iter().map(|r| r[0] as usize - 1).collect();
    let ng = graph_of.iter().max().map_or(0, |m| m + 1);
    let mut first = vec![usize::MAX; ng];
    let mut count = vec![0usize; ng];
    for (v, &g) in graph_of.iter().enumerate() {
        first[g] = first[g].min(v);
        count[g] += 1;
    }
    let mut builders: Vec<GraphBuilder<Record, Record>> = (0..ng)
        .map(|g| {
            let labels = (first[g]..first[g] + count[g])
                .map(|v| {
                    let l = nl.as_ref().map_or(0, |r| r[v][0] as i64);
                    Record::new(vs.clone(), [Value::Int(l)]).expect("schema")
                })
                .collect();
            GraphBuilder::new(count[g], Direction::Undirected).node_labels(labels).duplicates(Duplicates::KeepFirst)
        })
        .collect();
    for (k, row) in a.iter().enumerate() {
        let (u, v) = (row[0] as usize - 1, row[1] as usize - 1);
        let g = graph_of[u];
        let mut vals = vec![Value::Int(el.as_ref().map_or(0, |r| r[k][0] as i64))];
        let attrs = ea.as_ref().map(|r| r[k].clone()).unwrap_or_default();
        vals.extend((0..n_attr).map(|j| Value::Float(attrs.get(j).copied().unwrap_or(0.0))));
        let w = if weights_from_attr0 && n_attr > 0 { attrs[0] } else { 1.0 };
        builders[g].push_arc(u - first[g], v - first[g], w, Record::new(es.clone(), vals).expect("schema"));
    }
    builders.into_iter().map(|b| b.build().map_err(|e| format!("{name}: {e}"))).collect()
}
