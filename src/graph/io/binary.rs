//! A binary graph format for loading one large graph again and again: the
//! CSR arrays as they are in memory, behind a versioned header and
//! checksums. Write one with [`write()`] (`kronograph convert GRAPH OUT.kgb`);
//! [`load`](super::load) and every subcommand recognise it by its first
//! bytes, whatever its name.
//!
//! # Layout (version 1, all integers little-endian)
//! | bytes | content |
//! | --- | --- |
//! | 0..8 | magic `\x89KGRAPH\n` |
//! | 8..12 | version (`u32`, 1) |
//! | 12..16 | flags (`u32`): bit 0 directed, bit 1 weights stored (else every weight is 1) |
//! | 16..24 | `n`, the number of nodes (`u64`) |
//! | 24..32 | `nnz`, the number of stored arcs (`u64`) |
//! | 32..40 | XXH3-64 of the payload (bytes 48..) |
//! | 40..48 | XXH3-64 of bytes 0..40 |
//! | 48.. | row offsets (`n + 1` × `u64`), column indices (`nnz` × `u32`), padding to 8 bytes, weights (`nnz` × `f64`, if stored) |
//!
//! A graph of `n` nodes and `nnz` arcs takes `48 + 8 (n + 1) + 4 nnz`
//! bytes (+ `8 nnz` with weights). Labels are not stored: the format holds
//! the unlabeled graphs of Matrix Market files and edge lists.
//!
//! # Checks on reading
//! The magic, the version, both checksums and the file's length are checked
//! before anything is decoded; then the structure (row offsets increasing
//! and ending at `nnz`, indices below `n` and strictly increasing in each
//! row, weights finite and `>= 0`) and, for an undirected graph, its
//! symmetry (a randomized multiset hash of the arcs `(i, j, w)` against that
//! of `(j, i, w)`). Each failure is a [`BinaryError`].
//!
//! The file is read whole into memory (in parallel blocks), not memory
//! mapped: the CSR the library works on owns its arrays in any case, and a
//! mapped file truncated by another process while it is read would end the
//! process with `SIGBUS`. The arrays are decoded in parallel into memory
//! backed by huge pages where available.
//!
//! # Examples
//! ```
//! use kronograph::graph::io::{binary, mtx};
//! let g = mtx::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/snap/oregon1_010331.mtx")).unwrap();
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("oregon.kgb");
//! binary::write(&path, &g).unwrap();
//! let back = binary::read(&path).unwrap();
//! assert_eq!((back.indptr(), back.indices(), back.weights()), (g.indptr(), g.indices(), g.weights()));
//! ```

use super::alloc::{filled, from_fn};
use super::{IoError, MAX_NODES};
use crate::graph::{Direction, Graph, Label};
use rayon::prelude::*;
use std::io::Write as _;
use std::path::Path;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// The first 8 bytes of every file.
pub const MAGIC: [u8; 8] = *b"\x89KGRAPH\n";
/// The version written, and the only one read.
pub const VERSION: u32 = 1;
const HEADER: usize = 48;
const DIRECTED: u32 = 1;
const WEIGHTS: u32 = 2;

/// What is wrong with a binary graph file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BinaryError {
    /// The file does not start with [`MAGIC`].
    #[error("not a kronograph binary graph (the file does not start with the magic bytes \\x89KGRAPH\\n)")]
    NotBinary,
    /// A version this build cannot read.
    #[error("binary graph format version {found}; this build reads version {supported} only: write the file again with `kronograph convert` from its source")]
    Version {
        /// The file's version.
        found: u32,
        /// The version read here.
        supported: u32,
    },
    /// Fewer bytes than the header promises.
    #[error("truncated: {found} bytes, the header promises {expected} (an interrupted copy or download?)")]
    Truncated {
        /// The bytes the file must have.
        expected: u64,
        /// The bytes it has.
        found: u64,
    },
    /// A checksum that does not match.
    #[error("the {what} checksum does not match (stored {stored:016x}, computed {computed:016x}): the file is damaged; write it again with `kronograph convert`")]
    Checksum {
        /// `header` or `data`.
        what: &'static str,
        /// The checksum in the file.
        stored: u64,
        /// The checksum of the bytes.
        computed: u64,
    },
    /// Content that passes the checksums but is not a valid graph.
    #[error("invalid content: {0}")]
    Invalid(String),
}

/// Whether `bytes` start with [`MAGIC`].
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Writes `g` (labels are not stored), atomically
/// ([`output::write_atomically`](super::output::write_atomically)).
///
/// # Errors
/// [`IoError::Os`] when the file cannot be written.
pub fn write<N: Label, E: Label>(path: impl AsRef<Path>, g: &Graph<N, E>) -> Result<(), IoError> {
    let (n, nnz) = (g.num_nodes(), g.num_entries());
    let with_weights = g.weights().par_iter().any(|&w| w != 1.0);
    let mut indptr = vec![0u8; 8 * (n + 1)];
    indptr
        .par_chunks_mut(8)
        .zip(g.indptr().par_iter())
        .for_each(|(c, &x)| c.copy_from_slice(&(x as u64).to_le_bytes()));
    let mut indices = vec![0u8; (4 * nnz).next_multiple_of(8)];
    indices
        .par_chunks_mut(4)
        .zip(g.indices().par_iter())
        .for_each(|(c, &x)| c.copy_from_slice(&(x as u32).to_le_bytes()));
    let mut weights = Vec::new();
    if with_weights {
        weights = vec![0u8; 8 * nnz];
        weights.par_chunks_mut(8).zip(g.weights().par_iter()).for_each(|(c, &w)| c.copy_from_slice(&w.to_le_bytes()));
    }
    let mut h = Xxh3::new();
    for part in [&indptr, &indices, &weights] {
        h.update(part);
    }
    let flags = if g.is_directed() { DIRECTED } else { 0 } | if with_weights { WEIGHTS } else { 0 };
    let mut head = Vec::with_capacity(HEADER);
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.extend_from_slice(&flags.to_le_bytes());
    head.extend_from_slice(&(n as u64).to_le_bytes());
    head.extend_from_slice(&(nnz as u64).to_le_bytes());
    head.extend_from_slice(&h.digest().to_le_bytes());
    let hc = xxh3_64(&head);
    head.extend_from_slice(&hc.to_le_bytes());
    super::output::write_atomically(path.as_ref(), |w| {
        for part in [&head, &indptr, &indices, &weights] {
            w.write_all(part)?;
        }
        Ok(())
    })
}

/// Reads a binary graph file.
///
/// # Errors
/// [`IoError::Os`] when it cannot be read, [`IoError::Binary`] when it is
/// not a valid binary graph file (see the module documentation).
pub fn read(path: impl AsRef<Path>) -> Result<Graph<(), ()>, IoError> {
    let path = path.as_ref();
    let mut t = super::alloc::clock();
    let bytes = super::source::read_input(path)?;
    super::alloc::lap("read", &mut t);
    decode(path, &bytes)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or_default())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default())
}

/// Decodes the bytes of a binary graph file (`path` names it in errors).
pub(super) fn decode(path: &Path, b: &[u8]) -> Result<Graph<(), ()>, IoError> {
    let mut t = super::alloc::clock();
    check(b)
        .inspect(|_| super::alloc::lap("binary checksums", &mut t))
        .and_then(|(n, nnz, flags)| build(b, n, nnz, flags))
        .inspect(|_| super::alloc::lap("binary decode and checks", &mut t))
        .map_err(|source| IoError::Binary { path: path.into(), source })
}

/// The header checks: `(n, nnz, flags)`.
fn check(b: &[u8]) -> Result<(usize, usize, u32), BinaryError> {
    if !is_binary(b) {
        return Err(BinaryError::NotBinary);
    }
    if b.len() < HEADER {
        return Err(BinaryError::Truncated { expected: HEADER as u64, found: b.len() as u64 });
    }
    let version = u32_at(b, 8);
    if version != VERSION {
        return Err(BinaryError::Version { found: version, supported: VERSION });
    }
    let (stored, computed) = (u64_at(b, 40), xxh3_64(&b[..40]));
    if stored != computed {
        return Err(BinaryError::Checksum { what: "header", stored, computed });
    }
    let flags = u32_at(b, 12);
    if flags & !(DIRECTED | WEIGHTS) != 0 {
        return Err(BinaryError::Invalid(format!("unknown flags {flags:#x}")));
    }
    let (n, nnz) = (u64_at(b, 16), u64_at(b, 24));
    if n > MAX_NODES as u64 || nnz > u32::MAX as u64 * 4 {
        return Err(BinaryError::Invalid(format!("{n} nodes and {nnz} arcs: more than a graph may have")));
    }
    let expected =
        HEADER as u64 + 8 * (n + 1) + (4 * nnz).next_multiple_of(8) + if flags & WEIGHTS != 0 { 8 * nnz } else { 0 };
    if (b.len() as u64) < expected {
        return Err(BinaryError::Truncated { expected, found: b.len() as u64 });
    }
    if b.len() as u64 > expected {
        return Err(BinaryError::Invalid(format!("{} bytes after the end of the graph", b.len() as u64 - expected)));
    }
    let (stored, computed) = (u64_at(b, 32), xxh3_64(&b[HEADER..]));
    if stored != computed {
        return Err(BinaryError::Checksum { what: "data", stored, computed });
    }
    Ok((n as usize, nnz as usize, flags))
}

/// The graph of a checked file, its structure validated.
fn build(b: &[u8], n: usize, nnz: usize, flags: u32) -> Result<Graph<(), ()>, BinaryError> {
    let bad = |s: String| Err(BinaryError::Invalid(s));
    let p0 = HEADER;
    let i0 = p0 + 8 * (n + 1);
    let w0 = i0 + (4 * nnz).next_multiple_of(8);
    let indptr: Vec<usize> = from_fn(n + 1, |i| u64_at(b, p0 + 8 * i) as usize);
    if indptr[0] != 0 || indptr[n] != nnz {
        return bad(format!("row offsets from {} to {}, expected from 0 to {nnz}", indptr[0], indptr[n]));
    }
    if let Some(i) = (0..n).into_par_iter().find_any(|&i| indptr[i] > indptr[i + 1]) {
        return bad(format!("row offsets decrease at row {i}"));
    }
    let indices: Vec<usize> = from_fn(nnz, |k| u32_at(b, i0 + 4 * k) as usize);
    let weights: Vec<f64> =
        if flags & WEIGHTS != 0 { from_fn(nnz, |k| f64::from_bits(u64_at(b, w0 + 8 * k))) } else { filled(nnz, 1.0) };
    let direction = if flags & DIRECTED != 0 { Direction::Directed } else { Direction::Undirected };
    let scan = scan_rows(&indptr, &indices, &weights, flags & WEIGHTS != 0);
    if let Some(i) = scan.bad_row {
        return bad(format!("row {i} has a column out of range or not strictly increasing"));
    }
    if let Some(k) = scan.bad_weight {
        return bad(format!("weight {} of arc {k}; weights must be finite and >= 0", weights[k]));
    }
    if direction == Direction::Undirected && scan.forward != scan.backward {
        return bad("the graph is marked undirected, but its arcs are not symmetric".into());
    }
    // SAFETY: the row offsets were checked above (from 0 to `nnz`, never
    // decreasing), the rows by `scan_rows` (columns below `n`, strictly increasing).
    Ok(unsafe { super::csr::graph_checked(n, direction, (indptr, indices, weights), vec![(); n], vec![(); nnz]) })
}

/// What one pass over the rows finds: the first row out of order (or
/// with a column out of range), the first bad weight, and the sums of
/// the hashes of the arcs `(i, j, w)` and of `(j, i, w)` under a random
/// key: equal for a symmetric graph, and different for an asymmetric
/// one but with probability about `2^-64`.
#[derive(Default)]
struct RowScan {
    bad_row: Option<usize>,
    bad_weight: Option<usize>,
    forward: u64,
    backward: u64,
}

/// The checks of every row, in parallel (see [`RowScan`]); the weights
/// enter the hashes only where they are stored (else they are all 1).
fn scan_rows(indptr: &[usize], indices: &[usize], weights: &[f64], weighted: bool) -> RowScan {
    let n = indptr.len() - 1;
    let key: u64 = rand::random();
    let mix = |mut x: u64| {
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    };
    let h = |i: usize, j: usize, w: f64| {
        let x = mix(key ^ (((i as u64) << 32) | j as u64));
        if weighted {
            mix(x ^ w.to_bits())
        } else {
            x
        }
    };
    let first = |a: Option<usize>, b: Option<usize>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    (0..n)
        .into_par_iter()
        .with_min_len(1 << 12)
        .map(|i| {
            let mut s = RowScan::default();
            let row = &indices[indptr[i]..indptr[i + 1]];
            if row.last().is_some_and(|&j| j >= n) || row.windows(2).any(|w| w[0] >= w[1]) {
                s.bad_row = Some(i);
                return s;
            }
            for (k, &j) in (indptr[i]..).zip(row) {
                let w = weights[k];
                if !(w.is_finite() && w >= 0.0) {
                    s.bad_weight = Some(k);
                    return s;
                }
                s.forward = s.forward.wrapping_add(h(i, j, w));
                s.backward = s.backward.wrapping_add(h(j, i, w));
            }
            s
        })
        .reduce(RowScan::default, |x, y| RowScan {
            bad_row: first(x.bad_row, y.bad_row),
            bad_weight: first(x.bad_weight, y.bad_weight),
            forward: x.forward.wrapping_add(y.forward),
            backward: x.backward.wrapping_add(y.backward),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    fn sample(directed: bool, w: f64) -> Graph<(), ()> {
        let d = if directed { Direction::Directed } else { Direction::Undirected };
        GraphBuilder::<(), ()>::new(5, d)
            .default_node_labels()
            .edge(0, 1, 1.0, ())
            .edge(1, 2, w, ())
            .edge(3, 3, 1.0, ())
            .build()
            .unwrap()
    }

    fn bytes_of(g: &Graph<(), ()>) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.kgb");
        write(&p, g).unwrap();
        std::fs::read(p).unwrap()
    }

    #[test]
    fn round_trips_and_types_every_damage() {
        for (directed, w) in [(false, 1.0), (false, 2.5), (true, 0.0)] {
            let g = sample(directed, w);
            let b = bytes_of(&g);
            let back = decode(Path::new("g"), &b).unwrap();
            assert_eq!((back.indptr(), back.indices(), back.weights()), (g.indptr(), g.indices(), g.weights()));
            assert_eq!(back.direction(), g.direction());
        }
        let b = bytes_of(&sample(false, 2.5));
        let err = |b: &[u8]| match decode(Path::new("g"), b) {
            Err(IoError::Binary { source, .. }) => source,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            err(&b[..b.len() - 3]),
            BinaryError::Truncated { expected: b.len() as u64, found: b.len() as u64 - 3 }
        );
        assert!(matches!(err(&b[..20]), BinaryError::Truncated { .. }));
        let mut v = b.clone();
        v[8] = 2;
        assert!(matches!(err(&v), BinaryError::Version { found: 2, supported: 1 }));
        let mut v = b.clone();
        v[17] ^= 1;
        assert!(matches!(err(&v), BinaryError::Checksum { what: "header", .. }));
        let mut v = b.clone();
        let last = v.len() - 1;
        v[last] ^= 0x40;
        assert!(matches!(err(&v), BinaryError::Checksum { what: "data", .. }));
        assert_eq!(err(b"\x89KGRAPH"), BinaryError::NotBinary);
        let mut v = b.clone();
        v.push(0);
        assert!(matches!(err(&v), BinaryError::Invalid(_)));
    }

    /// A file whose checksums are right but whose content is not a graph
    /// (as a hand-made file could be): refused by the structure checks.
    #[test]
    fn refuses_asymmetric_content_with_valid_checksums() {
        let g = GraphBuilder::<(), ()>::new(3, Direction::Directed)
            .default_node_labels()
            .arc(0, 1, 1.0, ())
            .build()
            .unwrap();
        let mut b = bytes_of(&g);
        b[12] &= !(DIRECTED as u8);
        let hc = xxh3_64(&b[..40]);
        b[40..48].copy_from_slice(&hc.to_le_bytes());
        assert!(
            matches!(decode(Path::new("g"), &b), Err(IoError::Binary { source: BinaryError::Invalid(m), .. }) if m.contains("symmetric"))
        );
    }
}
