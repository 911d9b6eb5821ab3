//! The readers of the TU files, each checking its lines as it reads them:
//! the graph indicator, the arcs, and the label and attribute tables.

use crate::graph::io::scan;
use crate::graph::io::text::{self, malformed, show};
use crate::graph::io::{read_bytes, IoError};
use std::path::{Path, PathBuf};

pub(super) struct Indicator {
    /// The 0-based graph of each node.
    pub(super) graph_of: Vec<usize>,
    /// Node offsets of the graphs (`graphs + 1` entries).
    pub(super) starts: Vec<usize>,
}

pub(super) fn read_indicator(path: &Path) -> Result<Indicator, IoError> {
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

pub(super) fn read_arcs(path: &Path, ind: &Indicator, gi_name: &str) -> Result<Vec<(usize, usize)>, IoError> {
    if !crate::graph::io::source::regular_or_absent(path)? {
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
    if let Some(arcs) = arcs_fast(data, ind) {
        return Ok(arcs);
    }
    let n = ind.graph_of.len();
    let mut arcs = Vec::with_capacity(data.len() / 8);
    let mut fields = Vec::new();
    for (line, l) in text::lines(data) {
        let ok = text::split_fields(l, &mut fields).is_ok() && fields.len() == 2;
        let ids = if ok { text::parse_usize(fields[0]).zip(text::parse_usize(fields[1])) } else { None };
        let Some((u, v)) = ids else {
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

/// The arcs of the lines `data` (trailing blank lines removed), parsed in
/// parallel blocks; `None` at anything the line reader of [`read_arcs`]
/// might refuse or read otherwise (it then reads the file and reports it).
fn arcs_fast(data: &[u8], ind: &Indicator) -> Option<Vec<(usize, usize)>> {
    let n = ind.graph_of.len();
    let id = |b: &[u8], at: &mut usize| -> Option<usize> {
        let start = *at;
        let mut v = 0usize;
        while *at < b.len() && b[*at].is_ascii_digit() && *at - start < 18 {
            v = v * 10 + usize::from(b[*at] - b'0');
            *at += 1;
        }
        (*at > start && (1..=n).contains(&v)).then(|| v - 1)
    };
    let blocks = scan::parse_blocks(data, |b| {
        let mut out = Vec::with_capacity(b.len() / 6 + 1);
        let mut at = 0;
        while at < b.len() {
            scan::skip_space(b, &mut at);
            let u = id(b, &mut at)?;
            scan::skip_space(b, &mut at);
            if b.get(at) != Some(&b',') {
                return None;
            }
            at += 1;
            scan::skip_space(b, &mut at);
            let v = id(b, &mut at)?;
            if !scan::end_of_line(b, &mut at) || ind.graph_of[u] != ind.graph_of[v] {
                return None;
            }
            out.push((u, v));
        }
        Some(out)
    })?;
    Some(blocks.concat())
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Int,
    Float,
}

/// A table of values read from a label or attribute file.
pub(super) struct Table {
    pub(super) path: PathBuf,
    pub(super) cols: usize,
    pub(super) ints: Vec<i64>,
    pub(super) floats: Vec<f64>,
}

impl Table {
    pub(super) fn with_path(mut self, p: PathBuf) -> Self {
        self.path = p;
        self
    }

    pub(super) fn row_values(&self, r: usize) -> String {
        let rng = r * self.cols..(r + 1) * self.cols;
        if self.ints.is_empty() {
            format!("{:?}", &self.floats[rng])
        } else {
            format!("{:?}", &self.ints[rng])
        }
    }

    pub(super) fn same_rows(&self, a: usize, b: usize) -> bool {
        let (ra, rb) = (a * self.cols..(a + 1) * self.cols, b * self.cols..(b + 1) * self.cols);
        if self.ints.is_empty() {
            self.floats[ra] == self.floats[rb]
        } else {
            self.ints[ra] == self.ints[rb]
        }
    }
}

/// Reads `rows` lines of the same number of integer or real columns.
pub(super) fn read_table(path: &Path, rows: usize, why: &str, kind: Kind) -> Result<Table, IoError> {
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
