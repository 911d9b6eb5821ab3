//! Matrix Market coordinate files (<https://math.nist.gov/MatrixMarket/formats.html>).
//!
//! Supported: `%%MatrixMarket matrix coordinate F S` with field `F` one of
//! `pattern`, `real`, `integer` and symmetry `S` one of `general`,
//! `symmetric` (keywords in any case). The matrix must be square: it is the
//! adjacency matrix of a graph on `rows` nodes; entries are 1-based
//! `i j [value]` lines, separated by whitespace. Comment lines (`%`) and
//! blank lines may appear anywhere after the banner.
//!
//! # What the reader makes of it
//! - `symmetric` → an undirected graph: each entry `(i, j)` is the edge
//!   `{i, j}` (either triangle may be used; listing both `(i, j)` and
//!   `(j, i)` gives the edge twice, which is a duplicate);
//! - `general` → a directed graph of arcs `i → j`, unless
//!   [`MtxOptions::symmetrize`] asks for the undirected graph of edges
//!   `{i, j}`;
//! - `pattern` entries weigh 1, `real`/`integer` entries weigh their value,
//!   which must be finite and `>= 0` (explicit zeros are kept as entries of
//!   weight 0); a diagonal entry is a self-loop;
//! - duplicates follow [`MtxOptions::duplicates`] (rejected by default).
//!
//! # Why not sprs's reader
//! `sprs::io::read_matrix_market` reads the same files, but its errors do
//! not say on which line a problem is, and the library promises errors that
//! name the file and the line. The format is simple enough that a
//! line-aware reader of our own is shorter than mapping errors back.

use super::alloc::lap;
use super::text::{self, malformed, show};
use super::{counting, csr, scan, IoError, Limits, MAX_NODES};
use crate::graph::{Direction, Duplicates, Graph, GraphBuilder, GraphError, Label};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// Options of [`read_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MtxOptions {
    /// Read a `general` file as the undirected graph of its entries
    /// (ignored for `symmetric` files). An entry given in both directions is
    /// then a duplicate: set [`duplicates`](Self::duplicates) to merge it.
    pub symmetrize: bool,
    /// What to do with an edge given more than once.
    pub duplicates: Duplicates,
    /// How many nodes (and how much memory) the size line may ask for
    /// (default: [`Limits::default`]).
    pub limits: Limits,
}

/// Reads a Matrix Market coordinate file with default [`MtxOptions`]: a
/// `symmetric` file gives an undirected graph, a `general` file a directed
/// one; duplicates are rejected.
///
/// Cost: linear in the file size (a radix sort into the rows, in parallel)
/// plus sorting each row by target.
///
/// # Errors
/// See [`read_with`].
///
/// # Examples
/// ```
/// use kronograph::graph::io::mtx;
/// let g = mtx::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/snap/oregon1_010331.mtx")).unwrap();
/// assert_eq!((g.num_nodes(), g.num_edges()), (10670, 22002));
/// assert!(!g.is_directed());
/// ```
pub fn read(path: impl AsRef<Path>) -> Result<Graph<(), ()>, IoError> {
    read_with(path, &MtxOptions::default())
}

/// Reads a Matrix Market coordinate file (see the module documentation).
///
/// # Errors
/// - [`IoError::Os`] when the file cannot be read;
/// - [`IoError::Empty`] for an empty file;
/// - [`IoError::Malformed`], naming the line, for a bad or unsupported
///   banner (`array`, `complex`, `skew-symmetric`, `hermitian`), a bad size
///   line, a non-square matrix, more than [`MAX_NODES`] rows, an entry with
///   the wrong number of values, a non-number, an index outside
///   `1..=rows`, a negative or non-finite value, more entries than the size
///   line declares, or a duplicate (under [`Duplicates::Reject`]);
/// - [`IoError::LineCount`] when the file ends before all declared entries;
/// - [`IoError::TooLarge`], at the size line, when the declared size makes
///   a graph beyond [`MtxOptions::limits`] (a size of `2000000000` with a
///   handful of entries). Nothing is allocated by the declared size or
///   entry count alone: the entries are read first.
pub fn read_with(path: impl AsRef<Path>, opts: &MtxOptions) -> Result<Graph<(), ()>, IoError> {
    let path = path.as_ref();
    let mut t = super::alloc::clock();
    let bytes = super::source::read_input(path)?;
    lap("read", &mut t);
    parse(path, &bytes, opts)
}

/// The largest integer weight read exactly: `2^53` (an `f64` holds every
/// integer up to it, and not all above).
pub const MAX_EXACT_INTEGER: i64 = 1 << 53;

/// Reads the bytes of a Matrix Market file (`path` names it in messages):
/// the entries are parsed in parallel blocks and sorted into the CSR by a
/// counting sort; any problem sends the bytes through the line-by-line
/// reader, which reports the first one with its line.
pub(super) fn parse(path: &Path, bytes: &[u8], opts: &MtxOptions) -> Result<Graph<(), ()>, IoError> {
    text::check_bom(path, bytes)?;
    if let Some(g) = fast(bytes, opts) {
        return Ok(g);
    }
    read_lines(path, bytes, opts)
}

/// The banner, the size line and where the entries start.
struct Header {
    field: Field,
    symmetric: bool,
    n: usize,
    nnz: usize,
    data: usize,
}

/// The header as [`read_lines`] reads it; `None` where it would fail.
fn header(bytes: &[u8]) -> Option<Header> {
    let mut lines = text::lines(bytes);
    let (_, banner) = lines.next()?;
    let (field, symmetric) = parse_banner(Path::new(""), banner).ok()?;
    let mut toks = Vec::new();
    for (_, l) in lines {
        if text::is_blank(l) || l.starts_with(b"%") {
            continue;
        }
        text::split_ws(l, &mut toks);
        let [r, c, nnz] = toks[..] else { return None };
        let (r, c, nnz) = (text::parse_usize(r)?, text::parse_usize(c)?, text::parse_usize(nnz)?);
        if r != c || r > MAX_NODES {
            return None;
        }
        let end = l.as_ptr() as usize - bytes.as_ptr() as usize + l.len();
        let data = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |p| end + p + 1);
        return Some(Header { field, symmetric, n: r, nnz, data });
    }
    None
}

/// One block's entries: 0-based rows, columns and weights.
type Block = (Vec<u32>, Vec<u32>, scan::Weights);

/// The entries of one block of data lines; `None` at anything
/// [`read_lines`] might not accept as it is (it then reads the file).
fn parse_block(b: &[u8], n: usize, field: Field) -> Option<Block> {
    let guess = b.len() / 12 + 1;
    let (mut rows, mut cols, mut ws) = (Vec::with_capacity(guess), Vec::with_capacity(guess), scan::Weights::default());
    let index = |v: u64| (1..=n as u64).contains(&v).then(|| (v - 1) as u32);
    let mut at = 0;
    while at < b.len() {
        scan::skip_space(b, &mut at);
        match b.get(at) {
            None => break,
            Some(b'\n') => {
                at += 1;
                continue;
            }
            Some(b'%') => {
                scan::skip_line(b, &mut at);
                continue;
            }
            Some(_) => {}
        }
        let i = index(scan::digits(b, &mut at)?)?;
        scan::skip_space(b, &mut at);
        let j = index(scan::digits(b, &mut at)?)?;
        match field {
            Field::Pattern => {}
            Field::Integer => {
                scan::skip_space(b, &mut at);
                let v = scan::digits(b, &mut at).filter(|&v| v <= MAX_EXACT_INTEGER as u64)?;
                ws.push(rows.len(), v as f64);
            }
            Field::Real => {
                scan::skip_space(b, &mut at);
                ws.push(rows.len(), scan::parse_f64(scan::token(b, &mut at)).filter(|&v| v >= 0.0)?);
            }
        }
        if !scan::end_of_line(b, &mut at) {
            return None;
        }
        rows.push(i);
        cols.push(j);
    }
    Some((rows, cols, ws))
}

/// The parallel reader; `None` wherever [`read_lines`] would not give the
/// same graph without complaint.
pub(super) fn fast(bytes: &[u8], opts: &MtxOptions) -> Option<Graph<(), ()>> {
    let mut t = super::alloc::clock();
    let h = header(bytes)?;
    let n = h.n;
    let blocks = scan::parse_blocks(&bytes[h.data..], |block| parse_block(block, n, h.field))?;
    lap("mtx parse", &mut t);
    let count: usize = blocks.iter().map(|b| b.0.len()).sum();
    if count != h.nnz || opts.limits.check_graph(n, h.nnz, ("entry", "entries")).is_err() {
        return None;
    }
    let undirected = h.symmetric || opts.symmetrize;
    let parts: Vec<counting::Part> = blocks.iter().map(|b: &Block| (&b.0[..], &b.1[..], &b.2.values[..])).collect();
    let csr = csr::assemble(n, &parts, undirected, opts.duplicates, false)?;
    lap("mtx assemble", &mut t);
    drop(parts);
    drop(blocks);
    lap("mtx free blocks", &mut t);
    let nnz = csr.1.len();
    let direction = if undirected { Direction::Undirected } else { Direction::Directed };
    let g = csr::graph(n, direction, csr, vec![(); n], vec![(); nnz]);
    lap("mtx check", &mut t);
    g
}

/// The line-by-line reader: slower, and the one that names the line of a
/// problem.
pub(super) fn read_lines(path: &Path, bytes: &[u8], opts: &MtxOptions) -> Result<Graph<(), ()>, IoError> {
    let mut lines = text::lines(bytes);
    let Some((_, banner)) = lines.next() else {
        return Err(IoError::Empty {
            path: path.into(),
            expected: "a Matrix Market banner \"%%MatrixMarket matrix coordinate ...\"".into(),
        });
    };
    let (field, symmetric) = parse_banner(path, banner)?;
    let mut toks = Vec::new();

    // size line
    let mut size = None;
    let mut seen = 1;
    for (line, l) in lines.by_ref() {
        seen = line;
        if text::is_blank(l) || l.starts_with(b"%") {
            continue;
        }
        text::split_ws(l, &mut toks);
        let nums: Option<Vec<usize>> = toks.iter().map(|t| text::parse_usize(t)).collect();
        match nums.as_deref() {
            Some(&[r, c, nnz]) if r == c && r <= MAX_NODES => size = Some((line, r, nnz)),
            Some(&[r, c, _]) if r != c => {
                return Err(malformed(path, line, "a square matrix (the adjacency of a graph)", format!("{r} x {c}")))
            }
            Some(&[r, _, _]) => {
                return Err(malformed(path, line, format!("at most {MAX_NODES} rows"), r.to_string()));
            }
            _ => return Err(malformed(path, line, "the size line \"rows cols entries\"", show(l))),
        }
        break;
    }
    let Some((size_line, n, nnz)) = size else {
        return Err(malformed(
            path,
            seen + 1,
            "the size line \"rows cols entries\" after the banner",
            "the end of the file",
        ));
    };

    let undirected = symmetric || opts.symmetrize;
    let direction = if undirected { Direction::Undirected } else { Direction::Directed };
    let want = if field == Field::Pattern { 2 } else { 3 };
    let entry_form = if want == 2 { "an entry \"i j\"" } else { "an entry \"i j value\"" };
    // Never trust the declared count for allocation beyond what the file can hold.
    let cap = nnz.min(bytes.len() / 4);
    let mut entries: Vec<(usize, usize, f64, usize)> = Vec::with_capacity(cap); // (i, j, w, line), 0-based ids
    let mut last_line = size_line;
    for (line, l) in lines {
        if text::is_blank(l) || l.starts_with(b"%") {
            continue;
        }
        last_line = line;
        if entries.len() == nnz {
            return Err(malformed(path, line, format!("no more entries (line {size_line} declares {nnz})"), show(l)));
        }
        text::split_ws(l, &mut toks);
        if toks.len() != want {
            return Err(malformed(path, line, entry_form, show(l)));
        }
        let mut ij = [0usize; 2];
        for (x, t) in ij.iter_mut().zip(&toks) {
            *x = match text::parse_usize(t) {
                Some(v) if (1..=n).contains(&v) => v - 1,
                _ => {
                    return Err(malformed(
                        path,
                        line,
                        format!("an index in 1..={n}"),
                        format!("{} in {}", show(t), show(l)),
                    ))
                }
            };
        }
        let w = match field {
            Field::Pattern => Some(1.0),
            Field::Integer => match text::parse_i64(toks[2]) {
                Some(v) if v > MAX_EXACT_INTEGER => {
                    return Err(malformed(
                        path,
                        line,
                        format!(
                            "an integer weight of at most 2^53 = {MAX_EXACT_INTEGER} (larger integers are not held \
                             exactly as weights; declare the field \"real\" in the banner to accept them rounded)"
                        ),
                        format!("{} in {}", show(toks[2]), show(l)),
                    ))
                }
                v => v.map(|v| v as f64).filter(|&v| v >= 0.0),
            },
            Field::Real => text::parse_f64(toks[2]).filter(|&v| v >= 0.0),
        };
        let Some(w) = w else {
            let what = if field == Field::Integer { "a non-negative integer weight" } else { "a finite weight >= 0" };
            return Err(malformed(path, line, what, format!("{} in {}", show(toks[2]), show(l))));
        };
        entries.push((ij[0], ij[1], w, line));
    }
    if entries.len() < nnz {
        return Err(IoError::LineCount {
            path: path.into(),
            line: last_line + 1,
            expected: nnz,
            found: entries.len(),
            why: format!("entries, as line {size_line} declares"),
        });
    }
    if let Err(r) = opts.limits.check_graph(n, nnz, ("entry", "entries")) {
        return Err(IoError::TooLarge {
            path: path.into(),
            line: size_line,
            found: format!("a {n} x {n} matrix (the adjacency of a graph of {n} nodes), which"),
            needed: r.needed,
            why: r.why,
        });
    }
    let mut b = GraphBuilder::<(), ()>::new(n, direction).default_node_labels().duplicates(opts.duplicates);
    b.reserve(if undirected { nnz.saturating_mul(2) } else { nnz });
    for &(i, j, w, _) in &entries {
        if undirected {
            b.push_edge(i, j, w, ());
        } else {
            b.push_arc(i, j, w, ());
        }
    }
    b.build().map_err(|e| match e {
        GraphError::DuplicateEdge { from, to } => {
            let same = |&&(i, j, _, _): &&(usize, usize, f64, usize)| {
                (i, j) == (from, to) || (undirected && (j, i) == (from, to))
            };
            let mut hits = entries.iter().filter(same);
            match (hits.next(), hits.next()) {
                (Some(a), Some(b)) => malformed(
                    path,
                    b.3,
                    "each entry once (remove or sum the repeated entries in the file)",
                    format!(
                        "entry {} {} again (first on line {}{})",
                        b.0 + 1,
                        b.1 + 1,
                        a.3,
                        if (a.0, a.1) != (b.0, b.1) { ", transposed" } else { "" }
                    ),
                ),
                _ => IoError::Graph { path: path.into(), source: e },
            }
        }
        other => IoError::Graph { path: path.into(), source: other },
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Pattern,
    Real,
    Integer,
}

/// Parses the banner: `(field, symmetric)`.
fn parse_banner(path: &Path, l: &[u8]) -> Result<(Field, bool), IoError> {
    let mut toks = Vec::new();
    text::split_ws(l, &mut toks);
    let lower: Vec<String> = toks.iter().map(|t| String::from_utf8_lossy(t).to_ascii_lowercase()).collect();
    let expected = "\"%%MatrixMarket matrix coordinate pattern|real|integer general|symmetric\"";
    if lower.len() != 5 || lower[0] != "%%matrixmarket" {
        return Err(malformed(path, 1, format!("the banner {expected}"), show(l)));
    }
    if lower[1] != "matrix" || lower[2] != "coordinate" {
        return Err(malformed(path, 1, "\"matrix coordinate\" (dense \"array\" files are not graphs)", show(l)));
    }
    let field = match lower[3].as_str() {
        "pattern" => Field::Pattern,
        "real" | "double" => Field::Real,
        "integer" => Field::Integer,
        other => return Err(malformed(path, 1, "field pattern, real or integer", format!("{other:?}"))),
    };
    let symmetric = match lower[4].as_str() {
        "general" => false,
        "symmetric" => true,
        other => return Err(malformed(path, 1, "symmetry general or symmetric", format!("{other:?}"))),
    };
    Ok((field, symmetric))
}

/// Writes `g`'s adjacency as a `real` Matrix Market file: `symmetric` with
/// the lower triangle (`i >= j`) of an undirected graph, `general` with every
/// arc of a directed one. Labels are not written. Weights are written in
/// Rust's shortest round-trip form, so [`read`] gives the same graph back.
///
/// The file is written atomically ([`output::write_atomically`](super::output::write_atomically)).
///
/// # Errors
/// [`IoError::Os`] when the file cannot be written.
pub fn write<N: Label, E: Label>(path: impl AsRef<Path>, g: &Graph<N, E>) -> Result<(), IoError> {
    let path = path.as_ref();
    let undirected = !g.is_directed();
    let n = g.num_nodes();
    let mut out = String::new();
    let sym = if undirected { "symmetric" } else { "general" };
    let count = if undirected { g.num_edges() } else { g.num_entries() };
    let _ = writeln!(out, "%%MatrixMarket matrix coordinate real {sym}\n{n} {n} {count}");
    for i in 0..n {
        for k in g.row_range(i) {
            let j = g.indices()[k];
            if !undirected || i >= j {
                let _ = writeln!(out, "{} {} {}", i + 1, j + 1, g.weights()[k]);
            }
        }
    }
    super::output::write_atomically(path, |w| w.write_all(out.as_bytes()))
}
