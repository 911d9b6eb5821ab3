//! Property tests (fuzzing) of the readers: random bytes as each file, and
//! valid small files with lines deleted, duplicated or corrupted. Every
//! input must give `Ok` or an error that names a file of the input (and,
//! where it points at a line, one that exists in that file, or the line
//! right after its end) — never a panic, never a hang.

use kronograph::graph::io::{self, edgelist, mtx, tu, IoError};
use kronograph::graph::Direction;
use proptest::prelude::*;
use std::path::Path;

/// A small valid TU set "F": a triangle, a path and a single node, with
/// every optional file.
const TU: [(&str, &str); 7] = [
    ("F_A.txt", "1, 2\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n4, 5\n5, 4\n5, 6\n6, 5\n"),
    ("F_graph_indicator.txt", "1\n1\n1\n2\n2\n2\n3\n"),
    ("F_graph_labels.txt", "1\n-1\n1\n"),
    ("F_node_labels.txt", "0\n1\n2\n0\n1\n2\n3\n"),
    ("F_edge_labels.txt", "1\n1\n2\n2\n3\n3\n1\n1\n2\n2\n"),
    ("F_node_attributes.txt", "0.5, 1\n1.5, 2\n2.5, 3\n3.5, 4\n4.5, 5\n5.5, 6\n6.5, 7\n"),
    (
        "F_edge_attributes.txt",
        "1.0, 0.1\n1.0, 0.1\n2.0, 0.2\n2.0, 0.2\n3.0, 0.3\n3.0, 0.3\n4.0, 0.4\n4.0, 0.4\n1e0, 5e-1\n1e0, 5e-1\n",
    ),
];

const MTX: &str =
    "%%MatrixMarket matrix coordinate real symmetric\n% comment\n5 5 6\n2 1 1.5\n3 2 1\n4 3 2\n5 4 0.5\n5 1 3\n3 3 1\n";
const EDGES: &str = "# SNAP-like\n0\t1\n1\t2\n2\t3\n3\t0\n% another comment\n4 0\n";

/// Checks the outcome of reading: an error must be about `file` inside
/// `dir`, and any line it points at must exist in the file it names (or be
/// the line just after the file's last line: "the file ends too early").
fn check_result<T>(r: Result<T, IoError>, dir: &Path) -> Result<(), TestCaseError> {
    let Err(e) = r else { return Ok(()) };
    let msg = e.to_string();
    let p = e.path();
    prop_assert!(p.starts_with(dir), "error not about a file of the input: {msg}");
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    prop_assert!(msg.contains(&name), "message does not name the file: {msg}");
    if let Some(line) = e.line() {
        prop_assert!(msg.contains(&format!("{name}:{line}:")), "message does not show file:line: {msg}");
        let lines = std::fs::read(p).map(|b| b.split(|&c| c == b'\n').count()).unwrap_or(0);
        prop_assert!(line >= 1 && line <= lines + 1, "line {line} of a {lines}-line file: {msg}");
    }
    Ok(())
}

#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    SetByte(usize, u8),
    InsertByte(usize, u8),
    DeleteByte(usize),
    Truncate(usize),
}

/// Bytes that make plausible damage in a text file of numbers.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![prop::sample::select(b"0123456789,. -+\n\r\teE#%xn".to_vec()), any::<u8>(),]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let i = 0usize..400;
    prop_oneof![
        i.clone().prop_map(Mutation::DeleteLine),
        i.clone().prop_map(Mutation::DuplicateLine),
        (i.clone(), i.clone()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (i.clone(), byte()).prop_map(|(a, b)| Mutation::SetByte(a, b)),
        (i.clone(), byte()).prop_map(|(a, b)| Mutation::InsertByte(a, b)),
        i.clone().prop_map(Mutation::DeleteByte),
        i.prop_map(Mutation::Truncate),
    ]
}

fn mutate(text: &str, ms: &[Mutation]) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    for m in ms {
        let mut lines: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
        let nl = lines.len();
        match *m {
            Mutation::DeleteLine(i) => {
                lines.remove(i % nl);
            }
            Mutation::DuplicateLine(i) => {
                let l = lines[i % nl].clone();
                lines.insert(i % nl, l);
            }
            Mutation::SwapLines(a, c) => lines.swap(a % nl, c % nl),
            Mutation::SetByte(i, x) if !b.is_empty() => {
                let k = i % b.len();
                b[k] = x;
                continue;
            }
            Mutation::InsertByte(i, x) => {
                let k = i % (b.len() + 1);
                b.insert(k, x);
                continue;
            }
            Mutation::DeleteByte(i) if !b.is_empty() => {
                let k = i % b.len();
                b.remove(k);
                continue;
            }
            Mutation::Truncate(i) => {
                b.truncate(i % (b.len() + 1));
                continue;
            }
            _ => continue,
        }
        b = lines.join(&b'\n');
    }
    b
}

/// Writes the TU set with file `which` replaced by `content` and reads it.
fn read_tu(which: usize, content: &[u8]) -> Result<(), TestCaseError> {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("F");
    std::fs::create_dir(&dir).unwrap();
    for (k, (name, text)) in TU.iter().enumerate() {
        std::fs::write(dir.join(name), if k == which { content } else { text.as_bytes() }).unwrap();
    }
    check_result(tu::read_dataset(&dir), &dir)
}

fn read_file(name: &str, content: &[u8], f: impl Fn(&Path) -> Result<(), IoError>) -> Result<(), TestCaseError> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join(name);
    std::fs::write(&p, content).unwrap();
    check_result(f(&p), d.path())
}

fn read_mtx(p: &Path) -> Result<(), IoError> {
    mtx::read(p).map(drop)
}

fn read_edges(p: &Path) -> Result<(), IoError> {
    edgelist::read(p, Direction::Undirected).map(drop)?;
    let o = edgelist::EdgeListOptions { direction: Direction::Directed, one_based: true, ..Default::default() };
    edgelist::read_with(p, &o).map(drop)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn tu_random_bytes(which in 0usize..TU.len(), content in prop::collection::vec(any::<u8>(), 0..200)) {
        read_tu(which, &content)?;
    }

    #[test]
    fn tu_mutated(which in 0usize..TU.len(), ms in prop::collection::vec(mutation(), 1..4)) {
        read_tu(which, &mutate(TU[which].1, &ms))?;
    }

    #[test]
    fn mtx_random_bytes(content in prop::collection::vec(any::<u8>(), 0..200)) {
        read_file("r.mtx", &content, read_mtx)?;
    }

    #[test]
    fn mtx_random_after_banner(content in prop::collection::vec(byte(), 0..120)) {
        let mut c = b"%%MatrixMarket matrix coordinate real general\n".to_vec();
        c.extend(content);
        read_file("b.mtx", &c, read_mtx)?;
    }

    #[test]
    fn mtx_mutated(ms in prop::collection::vec(mutation(), 1..4)) {
        read_file("m.mtx", &mutate(MTX, &ms), read_mtx)?;
    }

    #[test]
    fn edgelist_random_bytes(content in prop::collection::vec(any::<u8>(), 0..200)) {
        read_file("r.txt", &content, read_edges)?;
    }

    #[test]
    fn edgelist_mutated(ms in prop::collection::vec(mutation(), 1..4)) {
        read_file("e.txt", &mutate(EDGES, &ms), read_edges)?;
    }

    #[test]
    fn load_random_bytes(content in prop::collection::vec(any::<u8>(), 0..100), mtx in any::<bool>()) {
        let name = if mtx { "x.mtx" } else { "x.txt" };
        read_file(name, &content, |p| io::load(p).map(drop))?;
    }
}

#[test]
fn unmutated_inputs_are_valid() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("F");
    std::fs::create_dir(&dir).unwrap();
    for (name, text) in TU {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let ds = tu::read_dataset(&dir).unwrap();
    assert_eq!((ds.len(), ds.num_nodes(), ds.num_edges()), (3, 7, 5));
    let p = d.path().join("m.mtx");
    std::fs::write(&p, MTX).unwrap();
    let g = mtx::read(&p).unwrap();
    assert_eq!((g.num_nodes(), g.num_edges(), g.self_loops()), (5, 6, 1));
    let p = d.path().join("e.txt");
    std::fs::write(&p, EDGES).unwrap();
    assert_eq!(edgelist::read(&p, Direction::Undirected).unwrap().num_edges(), 5);
    assert_eq!(mutate(MTX, &[]), MTX.as_bytes());
}
