//! Reading and writing graphs: the TU Dortmund format ([`tu`]), Matrix
//! Market ([`mtx`]), SNAP-style edge lists ([`edgelist`]), and .npy output
//! ([`npy`]).
//!
//! [`load`] picks the reader from the path and the content: a folder is a
//! TU data set, a file with the `%%MatrixMarket` banner (or a `.mtx` name)
//! is Matrix Market, anything else an edge list.
//!
//! # Errors
//! Every reader returns an [`IoError`] that names the file and, for bad
//! content, the 1-based line and what was expected there versus what was
//! found. No input makes a reader panic or loop: the readers are single
//! passes over the bytes, with checked integer arithmetic, ids checked
//! against their ranges before use, and sizes declared by a file never
//! trusted for allocation beyond what the file itself holds: a graph whose
//! declared size or largest id is not justified by its entries, or that
//! would not fit in memory, is refused before it is allocated ([`limits`]),
//! with the memory it would need. A file that starts with a byte-order mark
//! (BOM) is refused with a message that says so.
//!
//! Writers ([`npy`], [`mtx::write`]) never leave a partial file: see
//! [`output`].
//!
//! # Examples
//! ```
//! use kronograph::graph::io;
//! // a TU folder; `kronograph::datasets::mutag()` unpacks the bundled MUTAG and reads it so
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/MUTAG");
//! let ds = io::load(dir).unwrap();
//! assert_eq!((ds.graphs.len(), ds.num_nodes(), ds.num_edges()), (188, 3371, 3721));
//! ```
//!
//! A bad file gives an error that points at the line:
//! ```
//! use kronograph::graph::io::edgelist;
//! use kronograph::graph::Direction;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("g.txt");
//! std::fs::write(&path, "# a comment\n0 1\n1 two\n").unwrap();
//! let err = edgelist::read(&path, Direction::Undirected).unwrap_err();
//! assert!(err.to_string().contains("g.txt:3:"), "{err}");
//! ```

use super::Dataset;
use super::GraphError;
use std::path::{Path, PathBuf};

mod alloc;
pub mod binary;
mod counting;
mod csr;
pub mod edgelist;
#[cfg(test)]
mod fast_tests;
pub mod limits;
pub mod mtx;
pub mod npy;
pub mod output;
mod scan;
pub mod source;
mod text;
pub mod tiled;
pub mod tu;

pub use self::limits::Limits;

/// The largest number of nodes a reader accepts for one graph
/// (`2³¹ − 1`, what 32-bit signed node ids on the GPU can address).
///
/// Matrix Market files declare their size and edge lists take it from their
/// largest id, so a single bad number could otherwise ask for an adjacency
/// of billions of rows.
pub const MAX_NODES: usize = i32::MAX as usize;

/// Errors reading or writing files. Each names the file and, for bad
/// content, the 1-based line and what was expected.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IoError {
    /// The operating system refused (missing file, no permission, …).
    #[error("{}: {source}", path.display())]
    Os {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A line whose content is not what the format requires.
    #[error("{}:{line}: expected {expected}, found {found}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The line, 1-based.
        line: usize,
        /// What the format requires there.
        expected: String,
        /// What the line holds.
        found: String,
    },
    /// A file with no data at all.
    #[error("{}:1: the file is empty; expected {expected}", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
        /// What the file should hold.
        expected: String,
    },
    /// A file whose number of data lines disagrees with another file (or
    /// with its own header).
    #[error(
        "{}:{line}: expected {expected} data line{} ({why}), found {found}{}",
        path.display(),
        if *expected == 1 { "" } else { "s" },
        if found < expected { " (the file ends too early)" } else { " (extra lines from here on)" }
    )]
    LineCount {
        /// The file.
        path: PathBuf,
        /// The first missing line (a file that is too short) or the first
        /// extra line (too long), 1-based.
        line: usize,
        /// The number of data lines required.
        expected: usize,
        /// The number of data lines found.
        found: usize,
        /// Where the requirement comes from.
        why: String,
    },
    /// A required file of a data set is missing.
    #[error("{}: not found; expected {what}", path.display())]
    MissingFile {
        /// The file looked for.
        path: PathBuf,
        /// What it should hold.
        what: String,
    },
    /// A folder with several candidate data sets.
    #[error("{}: cannot tell which data set to read: found {}; name the folder after one of them", path.display(), candidates.join(", "))]
    Ambiguous {
        /// The folder.
        path: PathBuf,
        /// The candidate files.
        candidates: Vec<String>,
    },
    /// The file is readable but describes a graph that cannot be built
    /// (where the line could not be determined).
    #[error("{}: {source}", path.display())]
    Graph {
        /// The file.
        path: PathBuf,
        /// What the graph builder rejected.
        source: GraphError,
    },
    /// A file whose content asks for a graph larger than the [`Limits`]
    /// allow (a huge id or declared size with few entries, or more memory
    /// than is available).
    #[error(
        "{}:{line}: {found} would need about {} of memory; refused: {why}",
        path.display(),
        limits::human_bytes(*needed)
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The line with the id or size, 1-based.
        line: usize,
        /// What the line asks for.
        found: String,
        /// The estimated memory, in bytes.
        needed: u64,
        /// Which limit it exceeds and what to do.
        why: String,
    },
    /// A file of a TU data set given where its folder is expected.
    #[error(
        "{}: this is a file of the TU data set {name}; pass its folder {} instead",
        path.display(),
        folder.display()
    )]
    TuFile {
        /// The file given.
        path: PathBuf,
        /// The data set's name.
        name: String,
        /// The folder to pass.
        folder: PathBuf,
    },
    /// A graph index past the end of a data set.
    #[error(
        "{}: there is no graph {index}: {}",
        path.display(),
        match count {
            0 => "the data set has no graphs".to_string(),
            1 => "the data set has 1 graph, number 0".to_string(),
            _ => format!("the data set has {count} graphs, numbered from 0 to {}", count - 1),
        }
    )]
    GraphIndex {
        /// The data set.
        path: PathBuf,
        /// The index asked for (0-based).
        index: usize,
        /// The number of graphs.
        count: usize,
    },
    /// An output path that cannot or must not be written.
    #[error("{}: cannot write the output here: {problem}", path.display())]
    Output {
        /// The output path.
        path: PathBuf,
        /// What is wrong and what to do.
        problem: String,
    },
    /// An input larger than may be read: a stream (pipe, FIFO, device) past
    /// [`source::max_stream_bytes`], or a regular file larger than the memory
    /// available.
    #[error(
        "{}: more than {} ({} bytes read or found); refused: {why}",
        path.display(),
        limits::human_bytes(*limit),
        size
    )]
    InputTooLarge {
        /// The input.
        path: PathBuf,
        /// The bytes read (a stream: one past the limit) or the file's size.
        size: u64,
        /// The limit, in bytes.
        limit: u64,
        /// Which limit and what to do.
        why: String,
    },
    /// A file of a data set that exists, but not as a readable regular
    /// file (a dangling symbolic link, a folder, a FIFO, a device).
    #[error("{}: exists but is {what}; a data set's files must be regular files (remove it, or put the file there)", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is instead.
        what: String,
    },
    /// A binary graph file ([`binary`]) that cannot be read.
    #[error("{}: {source}", path.display())]
    Binary {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: binary::BinaryError,
    },
    /// Data to write whose length does not fit the shape asked for.
    #[error("{}: cannot write {found} values as an array of shape {shape:?} ({expected} values)", path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// The shape asked for.
        shape: Vec<usize>,
        /// The number of values the shape holds.
        expected: usize,
        /// The number of values given.
        found: usize,
    },
}

impl IoError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            IoError::Os { path, .. }
            | IoError::Malformed { path, .. }
            | IoError::Empty { path, .. }
            | IoError::LineCount { path, .. }
            | IoError::MissingFile { path, .. }
            | IoError::Ambiguous { path, .. }
            | IoError::Graph { path, .. }
            | IoError::TooLarge { path, .. }
            | IoError::TuFile { path, .. }
            | IoError::GraphIndex { path, .. }
            | IoError::Output { path, .. }
            | IoError::InputTooLarge { path, .. }
            | IoError::NotRegular { path, .. }
            | IoError::Binary { path, .. }
            | IoError::Shape { path, .. } => path,
        }
    }

    /// The 1-based line the error points at, where there is one.
    pub fn line(&self) -> Option<usize> {
        match self {
            IoError::Malformed { line, .. } | IoError::LineCount { line, .. } | IoError::TooLarge { line, .. } => {
                Some(*line)
            }
            IoError::Empty { .. } => Some(1),
            _ => None,
        }
    }
}

/// Reads a graph or a data set, choosing the reader from the path and the
/// file's first bytes:
///
/// - a folder: a TU Dortmund data set ([`tu::read_dataset`]);
/// - a file that starts with the magic bytes of the binary graph format
///   ([`binary`]): that graph;
/// - a file that starts with the `%%MatrixMarket` banner (any case, any
///   extension), or ends in `.mtx`: Matrix Market ([`mtx::read`]); a
///   `symmetric` file gives an undirected graph, a `general` one a directed
///   graph;
/// - one of the files of a TU data set (`DS_A.txt`,
///   `DS_graph_indicator.txt`, … next to each other): an error
///   ([`IoError::TuFile`]) that names the folder to pass instead;
/// - any other file: a whitespace edge list ([`edgelist`]) with 0-based ids,
///   read as an **undirected** graph in which an edge given more than once
///   (for instance in both directions, as many SNAP files do) is kept once
///   ([`Duplicates::KeepFirst`](super::Duplicates::KeepFirst)); the copies
///   must have the same weight (an edge given twice with different weights is
///   an error naming both lines).
///
/// A file is read once ([`source::read_input`]): pipes, FIFOs, process
/// substitution and `/dev/stdin` work and give what the same bytes in a
/// regular file give.
///
/// A single graph becomes a one-graph [`Dataset`] named after the file stem,
/// with empty node and edge schemas (every label an empty
/// [`Record`](super::Record)) and no graph labels. Single graphs are held to
/// the default [`Limits`].
///
/// Cost: linear in the size of the files (the text readers parse in
/// parallel and assemble the CSR by a counting sort).
///
/// # Errors
/// [`IoError::Os`] when the path cannot be read; [`IoError::TuFile`] for a
/// file of a TU data set; otherwise the errors of the chosen reader.
pub fn load(path: impl AsRef<Path>) -> Result<Dataset, IoError> {
    let path = path.as_ref();
    let meta = std::fs::metadata(path).map_err(|source| IoError::Os { path: path.to_path_buf(), source })?;
    if meta.is_dir() {
        return tu::read_dataset(path);
    }
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(Dataset::from_graph(name, &read_graph_file(path)?))
}

/// Reads one graph, without labels, as the single-graph commands use it:
/// a file as [`load`] reads it, or graph `index` (0-based) of a TU data set
/// (its labels dropped). Cheaper than [`load`] for a large file: no label
/// record is made per node and edge.
///
/// # Errors
/// The errors of [`load`], and [`IoError::GraphIndex`] when `index` is not
/// below the number of graphs (a single file holds graph 0 only).
pub fn load_graph(path: impl AsRef<Path>, index: usize) -> Result<super::Graph<(), ()>, IoError> {
    let path = path.as_ref();
    let meta = std::fs::metadata(path).map_err(|source| IoError::Os { path: path.to_path_buf(), source })?;
    if meta.is_dir() {
        let ds = tu::read_dataset(path)?;
        let count = ds.graphs.len();
        let g = ds.graphs.get(index).ok_or(IoError::GraphIndex { path: path.into(), index, count })?;
        return Ok(g.map_node_labels(|_| ()).map_edge_labels(|_| ()));
    }
    let g = read_graph_file(path)?;
    if index != 0 {
        return Err(IoError::GraphIndex { path: path.into(), index, count: 1 });
    }
    Ok(g)
}

/// A single-graph file, read once, its format sniffed from its bytes.
fn read_graph_file(path: &Path) -> Result<super::Graph<(), ()>, IoError> {
    let bytes = source::read_input(path)?;
    if binary::is_binary(&bytes) {
        return binary::decode(path, &bytes);
    }
    let is_mtx = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("mtx")) || has_mtx_banner(&bytes);
    if is_mtx {
        return mtx::parse(path, &bytes, &mtx::MtxOptions::default());
    }
    if let Some(e) = tu::file_of_dataset(path) {
        return Err(e);
    }
    let opts =
        edgelist::EdgeListOptions { duplicates: super::Duplicates::KeepFirst, ..edgelist::EdgeListOptions::default() };
    edgelist::parse(path, &bytes, &opts)
}

/// Whether the bytes start with `%%MatrixMarket` (any case, after an
/// optional UTF-8 byte-order mark, which the reader then reports).
fn has_mtx_banner(head: &[u8]) -> bool {
    let head = head.strip_prefix(text::UTF8_BOM).unwrap_or(head);
    head.len() >= 14 && head[..14].eq_ignore_ascii_case(b"%%MatrixMarket")
}

/// Reads a whole text file, refusing one that starts with a byte-order mark
/// (see [`text::check_bom`]).
fn read_bytes(path: &Path) -> Result<Vec<u8>, IoError> {
    let bytes = source::read_input(path)?;
    text::check_bom(path, &bytes)?;
    Ok(bytes)
}
