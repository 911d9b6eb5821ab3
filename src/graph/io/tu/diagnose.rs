//! Errors of the graph builder mapped back to the TU file line that causes them.

use super::parse::Table;
use crate::graph::io::text::malformed;
use crate::graph::io::IoError;
use crate::graph::GraphError;
use std::path::Path;

/// What [`GraphError`]s are mapped back to lines with.
pub(super) struct Ctx<'a> {
    pub(super) a_path: &'a Path,
    pub(super) arcs: &'a [(usize, usize)],
    pub(super) edge_labels: Option<&'a Table>,
    pub(super) edge_attrs: Option<&'a Table>,
}

impl Ctx<'_> {
    /// An error of the builder of the graph whose first node is `lo` and
    /// whose arcs are `ids` (indexes into `arcs`, in file order), as an error
    /// at the line that causes it.
    pub(super) fn graph_error(&self, e: GraphError, lo: usize, ids: &[usize]) -> IoError {
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
