//! Property tests (fuzzing) of the readers: random bytes as each file, and
//! valid small files with lines deleted, duplicated or corrupted, huge
//! declared sizes and ids, byte-order marks. Every input must give `Ok` or
//! an error that names a file of the input (and, where it points at a line,
//! one that exists in that file, or the line right after its end) — never a
//! panic, never a hang, never a graph larger than the [`io::Limits`] allow
//! (so allocation stays bounded by the file's content and the limits).

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

/// Limits small enough that refusals show up with small numbers.
const LIMITS: io::Limits = io::Limits { max_nodes: 1000, max_bytes: Some(256 << 20) };

/// A number for a size line or an id: mostly small, sometimes huge.
fn size() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..20, 0u64..5000, any::<u64>(), Just(1_000_000_000), Just(2_000_000_000), Just(u64::MAX)]
}

/// Checks that a graph read under [`LIMITS`] respects them.
fn check_bounded(g: &kronograph::graph::Graph, entries: usize) -> Result<(), TestCaseError> {
    let n = g.num_nodes();
    prop_assert!(n <= LIMITS.max_nodes || n / 2 <= entries, "{n} nodes from {entries} entries");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn mtx_huge_declared_sizes(
        rows in size(), cols in size(), nnz in size(),
        entries in prop::collection::vec((size(), size()), 0..6),
        symmetric in any::<bool>(),
    ) {
        let sym = if symmetric { "symmetric" } else { "general" };
        let mut c = format!("%%MatrixMarket matrix coordinate pattern {sym}\n{rows} {cols} {nnz}\n");
        for (i, j) in &entries {
            c += &format!("{i} {j}\n");
        }
        let o = mtx::MtxOptions { limits: LIMITS, duplicates: kronograph::graph::Duplicates::KeepFirst, ..Default::default() };
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("h.mtx");
        std::fs::write(&p, &c).unwrap();
        match mtx::read_with(&p, &o) {
            Ok(g) => check_bounded(&g, entries.len())?,
            Err(e) => check_result::<()>(Err(e), d.path())?,
        }
    }

    #[test]
    fn edgelist_huge_ids(ids in prop::collection::vec((size(), size()), 1..6), one_based in any::<bool>()) {
        let c: String = ids.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
        let o = edgelist::EdgeListOptions {
            limits: LIMITS,
            one_based,
            duplicates: kronograph::graph::Duplicates::KeepFirst,
            ..Default::default()
        };
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("h.txt");
        std::fs::write(&p, &c).unwrap();
        match edgelist::read_with(&p, &o) {
            Ok(g) => check_bounded(&g, ids.len())?,
            Err(e) => check_result::<()>(Err(e), d.path())?,
        }
    }

    #[test]
    fn bom_before_any_file_is_named(which in 0usize..TU.len() + 2, utf16 in any::<bool>()) {
        let bom: &[u8] = if utf16 { b"\xFF\xFE" } else { b"\xEF\xBB\xBF" };
        let msg = if which < TU.len() {
            let d = tempfile::tempdir().unwrap();
            let dir = d.path().join("F");
            std::fs::create_dir(&dir).unwrap();
            for (k, (name, text)) in TU.iter().enumerate() {
                let mut c = if k == which { bom.to_vec() } else { Vec::new() };
                c.extend_from_slice(text.as_bytes());
                std::fs::write(dir.join(name), c).unwrap();
            }
            let e = tu::read_dataset(&dir).unwrap_err();
            prop_assert_eq!(e.line(), Some(1));
            prop_assert!(e.path().ends_with(TU[which].0), "{}", e);
            e.to_string()
        } else {
            let (name, text) = if which == TU.len() { ("b.mtx", MTX) } else { ("b.txt", EDGES) };
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join(name);
            let mut c = bom.to_vec();
            c.extend_from_slice(text.as_bytes());
            std::fs::write(&p, c).unwrap();
            let e = io::load(&p).unwrap_err();
            prop_assert_eq!(e.line(), Some(1));
            e.to_string()
        };
        prop_assert!(msg.contains("byte-order mark (BOM"), "{}", msg);
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
    // Matrix Market content is recognized in a file of any name.
    let p = d.path().join("m.txt");
    std::fs::write(&p, MTX).unwrap();
    let ds = io::load(&p).unwrap();
    assert_eq!((ds.num_nodes(), ds.num_edges(), ds.num_self_loops()), (5, 6, 1));
}

// ---- Inputs that are not regular files (issue 26) ----

/// The CLI's `info` on `path`, with `stdin` piped from `input` (if any) and
/// extra environment.
fn cli_info(path: &str, input: Option<&[u8]>, env: &[(&str, &str)]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut c = Command::new(env!("CARGO_BIN_EXE_kronograph"));
    c.args(["info", path]).envs(env.iter().copied()).stdout(Stdio::piped()).stderr(Stdio::piped());
    c.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = c.spawn().unwrap();
    if let Some(bytes) = input {
        let mut stdin = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        // A reader that stops early must not make the test fail on EPIPE.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    child.wait_with_output().unwrap()
}

/// What `info` prints for a file (the summary without its first line,
/// which names the path) or its error (without the path).
fn outcome(o: &std::process::Output, path: &str) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    let body: String = out.lines().skip(1).collect::<Vec<_>>().join("\n");
    format!("{:?}|{body}|{}", o.status.code(), String::from_utf8_lossy(&o.stderr).replace(path, "PATH"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The same bytes through a pipe (`/dev/stdin`) and as a regular file
    /// give the same summary or the same error (nothing lost to sniffing).
    #[test]
    fn a_pipe_reads_like_the_file(which in 0usize..2, ms in prop::collection::vec(mutation(), 0..3)) {
        let text = if which == 0 { MTX } else { EDGES };
        let content = mutate(text, &ms);
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("g");
        std::fs::write(&p, &content).unwrap();
        let ps = p.to_str().unwrap();
        let file = outcome(&cli_info(ps, None, &[]), ps);
        let pipe = outcome(&cli_info("/dev/stdin", Some(&content), &[]), "/dev/stdin");
        prop_assert_eq!(file, pipe);
    }
}

#[cfg(unix)]
#[test]
fn fifos_and_process_substitution_read_once() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("g.txt");
    std::fs::write(&file, "0 1\n1 2\n2 0\n").unwrap();
    let fifo = d.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, "0 1\n1 2\n2 0\n").unwrap())
    };
    // `triangles` on the FIFO: one triangle, as on the file (no second open, no hang).
    let run = |path: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kronograph"))
            .args(["triangles", path.to_str().unwrap(), "--backend", "cpu"])
            .output()
            .unwrap()
    };
    let (a, b) = (run(&fifo), run(&file));
    writer.join().unwrap();
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let first = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or("").to_string();
    assert_eq!(first(&a), first(&b));
    assert!(first(&a).contains('1'), "{}", first(&a));
    // Process substitution, through bash.
    let cmd = format!("{} info <(cat {})", env!("CARGO_BIN_EXE_kronograph"), file.display());
    let o = std::process::Command::new("bash").args(["-c", &cmd]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("edges:          3"), "{o:?}");
}

#[cfg(unix)]
#[test]
fn unbounded_devices_are_refused_at_the_limit() {
    for dev in ["/dev/zero", "/dev/urandom"] {
        let t = std::time::Instant::now();
        let o = cli_info(dev, None, &[("KRONOGRAPH_MAX_INPUT", "2M")]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert!(e.contains(dev) && e.contains("not a regular file") && e.contains("KRONOGRAPH_MAX_INPUT"), "{e}");
        assert!(t.elapsed().as_secs() < 20);
    }
}

/// An optional file of a TU data set that exists but is not a regular
/// file is an error naming it, never read as absent.
#[cfg(unix)]
#[test]
fn non_regular_optional_tu_files_are_named() {
    for (kind, what) in
        [("dangling", "does not exist"), ("folder", "a folder"), ("fifo", "FIFO"), ("device", "a device")]
    {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("F");
        std::fs::create_dir(&dir).unwrap();
        for (name, text) in TU.iter().filter(|(n, _)| *n != "F_node_labels.txt") {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let p = dir.join("F_node_labels.txt");
        match kind {
            "dangling" => std::os::unix::fs::symlink(d.path().join("annex/missing"), &p).unwrap(),
            "folder" => std::fs::create_dir(&p).unwrap(),
            "fifo" => assert!(std::process::Command::new("mkfifo").arg(&p).status().unwrap().success()),
            _ => std::os::unix::fs::symlink("/dev/null", &p).unwrap(),
        }
        let e = tu::read_dataset(&dir).unwrap_err();
        assert!(matches!(e, IoError::NotRegular { .. }), "{kind}: {e}");
        let msg = e.to_string();
        assert!(msg.contains("F_node_labels.txt") && msg.contains(what), "{kind}: {msg}");
    }
}
