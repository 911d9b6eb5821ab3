//! SNAP-style edge lists: one edge per line, `u v` or `u v w`, separated by
//! whitespace (spaces or tabs).
//!
//! - Lines starting with `#` or `%` (after optional whitespace) are
//!   comments; blank lines are skipped.
//! - Node ids are **0-based** by default (SNAP's convention), 1-based with
//!   [`EdgeListOptions::one_based`]. The graph has `max id + 1` nodes
//!   (`max id` when 1-based): ids are not renumbered, so unused ids are
//!   isolated nodes.
//! - Without a third column an edge weighs 1; a weight must be finite and
//!   `>= 0`. Either all lines have a weight or none has.
//! - [`Direction::Undirected`]: a line is the edge `{u, v}`; a line
//!   repeating an edge, in either direction, is a duplicate, handled by
//!   [`EdgeListOptions::duplicates`]. [`Direction::Directed`]: a line is the
//!   arc `u → v`.

use super::text::{self, malformed, show};
use super::{counting, csr, scan, IoError, Limits, MAX_NODES};
use crate::graph::{Direction, Duplicates, Graph, GraphBuilder, GraphError};
use std::path::Path;

/// Options of [`read_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeListOptions {
    /// Undirected edges or directed arcs (default undirected).
    pub direction: Direction,
    /// Node ids start at 1 instead of 0 (default `false`).
    pub one_based: bool,
    /// What to do with an edge given more than once (default: reject).
    pub duplicates: Duplicates,
    /// How many nodes (and how much memory) the largest id may ask for
    /// (default: [`Limits::default`]).
    pub limits: Limits,
}

impl Default for EdgeListOptions {
    fn default() -> Self {
        EdgeListOptions {
            direction: Direction::Undirected,
            one_based: false,
            duplicates: Duplicates::Reject,
            limits: Limits::default(),
        }
    }
}

/// Reads an edge list with 0-based ids, rejecting duplicates.
///
/// Cost: linear in the file size (a radix sort into the rows, in parallel)
/// plus sorting each row by target.
///
/// # Errors
/// See [`read_with`].
///
/// # Examples
/// ```
/// use kronograph::graph::{io::edgelist, Direction};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("triangle.txt");
/// std::fs::write(&path, "# a triangle\n0 1\n1 2\n2 0\n").unwrap();
/// let g = edgelist::read(&path, Direction::Undirected).unwrap();
/// assert_eq!((g.num_nodes(), g.num_edges()), (3, 3));
/// ```
pub fn read(path: impl AsRef<Path>, direction: Direction) -> Result<Graph<(), ()>, IoError> {
    read_with(path, &EdgeListOptions { direction, ..Default::default() })
}

/// Reads an edge list (see the module documentation).
///
/// # Errors
/// - [`IoError::Os`] when the file cannot be read;
/// - [`IoError::Empty`] for a file without a single edge;
/// - [`IoError::Malformed`], naming the line, for a line that is not
///   `u v` or `u v w`, a weight column on some lines only, an id that is not
///   a non-negative integer (positive when 1-based) or would make more than
///   [`MAX_NODES`] nodes, a negative or non-finite weight, or a duplicate
///   (under [`Duplicates::Reject`]);
/// - [`IoError::TooLarge`], at the line of the largest id, when that id
///   makes a graph beyond [`EdgeListOptions::limits`] (say `0 1000000000`:
///   ids are not renumbered, so that is a graph of a billion nodes).
pub fn read_with(path: impl AsRef<Path>, opts: &EdgeListOptions) -> Result<Graph<(), ()>, IoError> {
    let path = path.as_ref();
    let bytes = super::source::read_input(path)?;
    parse(path, &bytes, opts)
}

/// Reads the bytes of an edge list (`path` names it in messages): the lines
/// are parsed in parallel blocks and sorted into the CSR by a counting sort;
/// any problem sends the bytes through the line-by-line reader, which
/// reports the first one with its line.
pub(super) fn parse(path: &Path, bytes: &[u8], opts: &EdgeListOptions) -> Result<Graph<(), ()>, IoError> {
    super::text::check_bom(path, bytes)?;
    if let Some(g) = fast(bytes, opts) {
        return Ok(g);
    }
    read_lines(path, bytes, opts)
}

/// One block's edges: ids (0-based), weights, whether it has a weight
/// column (`None`: no edge line) and its largest id.
struct Block {
    us: Vec<u32>,
    vs: Vec<u32>,
    ws: Vec<f64>,
    weighted: Option<bool>,
    max_id: usize,
}

/// The parallel reader; `None` wherever [`read_lines`] would not give the
/// same graph without complaint.
pub(super) fn fast(bytes: &[u8], opts: &EdgeListOptions) -> Option<Graph<(), ()>> {
    let base = usize::from(opts.one_based);
    let id = |t: &[u8]| text::parse_usize(t).filter(|&v| v >= base && v - base < MAX_NODES).map(|v| v - base);
    let blocks = scan::parse_blocks(bytes, |block| {
        let guess = block.len() / 10 + 1;
        let mut b = Block {
            us: Vec::with_capacity(guess),
            vs: Vec::with_capacity(guess),
            ws: Vec::new(),
            weighted: None,
            max_id: 0,
        };
        for l in scan::lines(block) {
            let t = l.trim_ascii_start();
            if t.is_empty() || t[0] == b'#' || t[0] == b'%' {
                continue;
            }
            let mut toks = scan::Tokens::new(t);
            let (u, v) = (id(toks.next()?)?, id(toks.next()?)?);
            let w = toks.next();
            if toks.next().is_some() || *b.weighted.get_or_insert(w.is_some()) != w.is_some() {
                return None;
            }
            if let Some(w) = w {
                b.ws.push(scan::parse_f64(w).filter(|&w| w >= 0.0)?);
            }
            b.max_id = b.max_id.max(u).max(v);
            b.us.push(u as u32);
            b.vs.push(v as u32);
        }
        Some(b)
    })?;
    let mut kinds = blocks.iter().filter_map(|b| b.weighted);
    let weighted = kinds.next()?;
    if kinds.any(|k| k != weighted) {
        return None;
    }
    let m: usize = blocks.iter().map(|b| b.us.len()).sum();
    let n = blocks.iter().map(|b| b.max_id).max()? + 1;
    if opts.limits.check_graph(n, m, ("edge line", "edge lines")).is_err() {
        return None;
    }
    let undirected = opts.direction == Direction::Undirected;
    let parts: Vec<counting::Part> = blocks.iter().map(|b| (&b.us[..], &b.vs[..], &b.ws[..])).collect();
    let keep_first = weighted && opts.duplicates == Duplicates::KeepFirst;
    let csr = csr::assemble(n, &parts, undirected, opts.duplicates, keep_first)?;
    drop(parts);
    drop(blocks);
    let nnz = csr.1.len();
    csr::graph(n, opts.direction, csr, vec![(); n], vec![(); nnz])
}

/// The line-by-line reader: slower, and the one that names the line of a
/// problem.
pub(super) fn read_lines(path: &Path, bytes: &[u8], opts: &EdgeListOptions) -> Result<Graph<(), ()>, IoError> {
    let base = usize::from(opts.one_based);
    let mut edges: Vec<(usize, usize, f64, usize)> = Vec::with_capacity(bytes.len() / 8);
    let mut weighted: Option<(bool, usize)> = None; // (has weights, first line)
    let mut max_id = 0usize;
    let mut max_line = 0usize;
    let mut toks = Vec::new();
    for (line, l) in text::lines(bytes) {
        let t = l.trim_ascii_start();
        if t.is_empty() || t.starts_with(b"#") || t.starts_with(b"%") {
            continue;
        }
        text::split_ws(l, &mut toks);
        if !(2..=3).contains(&toks.len()) {
            return Err(malformed(path, line, format!("an edge \"u v\" or \"u v weight\"{}", comma_hint(l)), show(l)));
        }
        let has_w = toks.len() == 3;
        match weighted {
            None => weighted = Some((has_w, line)),
            Some((w, first)) if w != has_w => {
                let what = if w { "a weight" } else { "no weight" };
                return Err(malformed(path, line, format!("{what} column, as on line {first}"), show(l)));
            }
            _ => {}
        }
        let mut ids = [0usize; 2];
        for (x, tok) in ids.iter_mut().zip(&toks) {
            *x = match text::parse_usize(tok) {
                Some(v) if v >= base && v - base < MAX_NODES => v - base,
                _ => {
                    let range = if base == 1 { format!("1..={MAX_NODES}") } else { format!("0..{MAX_NODES}") };
                    return Err(malformed(
                        path,
                        line,
                        format!("a node id in {range}{}", comma_hint(tok)),
                        format!("{} in {}", show(tok), show(l)),
                    ));
                }
            };
        }
        let w = if has_w {
            match text::parse_f64(toks[2]).filter(|&w| w >= 0.0) {
                Some(w) => w,
                None => {
                    return Err(malformed(
                        path,
                        line,
                        "a finite weight >= 0",
                        format!("{} in {}", show(toks[2]), show(l)),
                    ))
                }
            }
        } else {
            1.0
        };
        if ids[0].max(ids[1]) > max_id || max_line == 0 {
            max_id = max_id.max(ids[0]).max(ids[1]);
            max_line = line;
        }
        edges.push((ids[0], ids[1], w, line));
    }
    if edges.is_empty() {
        return Err(IoError::Empty {
            path: path.into(),
            expected: "at least one edge line \"u v\" or \"u v weight\"".into(),
        });
    }
    let n = max_id + 1;
    if let Err(r) = opts.limits.check_graph(n, edges.len(), ("edge line", "edge lines")) {
        return Err(IoError::TooLarge {
            path: path.into(),
            line: max_line,
            found: format!(
                "node id {} makes a graph of {n} nodes (ids are not renumbered: every id up to the largest is a node), which",
                max_id + base
            ),
            needed: r.needed,
            why: format!("{}; renumber the nodes 0..n-1 if most ids are unused", r.why),
        });
    }
    let undirected = opts.direction == Direction::Undirected;
    if opts.duplicates == Duplicates::KeepFirst {
        check_same_weights(path, &edges, undirected, base)?;
    }
    let mut b = GraphBuilder::<(), ()>::new(n, opts.direction).default_node_labels().duplicates(opts.duplicates);
    b.reserve(if undirected { edges.len() * 2 } else { edges.len() });
    for &(u, v, w, _) in &edges {
        if undirected {
            b.push_edge(u, v, w, ());
        } else {
            b.push_arc(u, v, w, ());
        }
    }
    b.build().map_err(|e| match e {
        GraphError::DuplicateEdge { from, to } => {
            let mut hits =
                edges.iter().filter(|&&(u, v, _, _)| (u, v) == (from, to) || (undirected && (v, u) == (from, to)));
            match (hits.next(), hits.next()) {
                (Some(a), Some(b)) => malformed(
                    path,
                    b.3,
                    "each edge once (set EdgeListOptions::duplicates to merge duplicates)",
                    format!("edge {} {} again (first on line {})", b.0 + base, b.1 + base, a.3),
                ),
                _ => IoError::Graph { path: path.into(), source: e },
            }
        }
        other => IoError::Graph { path: path.into(), source: other },
    })
}

/// Under [`Duplicates::KeepFirst`], an edge given again must repeat its
/// weight: keeping the first of two different weights would silently drop
/// the other.
fn check_same_weights(
    path: &Path,
    edges: &[(usize, usize, f64, usize)],
    undirected: bool,
    base: usize,
) -> Result<(), IoError> {
    let mut first = std::collections::HashMap::with_capacity(edges.len());
    for &(u, v, w, line) in edges {
        let key = if undirected { (u.min(v), u.max(v)) } else { (u, v) };
        let (w0, line0) = *first.entry(key).or_insert((w, line));
        if w != w0 {
            return Err(malformed(
                path,
                line,
                format!(
                    "the weight {w0} this edge has on line {line0}, or no second line for it (an edge given more than \
                     once is kept once, so its copies must agree)"
                ),
                format!("edge {} {} with weight {w}", u + base, v + base),
            ));
        }
    }
    Ok(())
}

/// A hint for a line or token with a comma: edge lists are not CSV (and a
/// TU `DS_A.txt` is read through its folder).
fn comma_hint(bytes: &[u8]) -> &'static str {
    if bytes.contains(&b',') {
        " (an edge list separates ids by spaces or tabs, not commas; a TU data set is read from its folder)"
    } else {
        ""
    }
}
