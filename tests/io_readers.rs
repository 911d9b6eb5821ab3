//! End-to-end tests of the readers on the bundled data, and one test per
//! kind of malformed input (broken copies written into temporary folders).

use kronograph::graph::io::{self, edgelist, mtx, npy, tu, IoError};
use kronograph::graph::{Direction, Duplicates, FieldValues, GraphLabels, Value};
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

/// Number of non-blank lines of a file (an independent count to compare with).
fn count_lines(p: &Path) -> usize {
    std::fs::read_to_string(p).unwrap().lines().filter(|l| !l.trim().is_empty()).count()
}

/// Checks that `e` is about `file` (by name), at `line` when given, and
/// that its message contains every needle.
#[track_caller]
fn check(e: IoError, file: &str, line: Option<usize>, needles: &[&str]) {
    let msg = e.to_string();
    assert_eq!(e.path().file_name().unwrap().to_string_lossy(), file, "wrong file in: {msg}");
    assert!(msg.contains(file), "message does not name {file}: {msg}");
    if let Some(l) = line {
        assert_eq!(e.line(), Some(l), "wrong line in: {msg}");
        assert!(msg.contains(&format!("{file}:{l}:")), "message does not show {file}:{l}: {msg}");
    }
    for n in needles {
        assert!(msg.contains(n), "message lacks {n:?}: {msg}");
    }
}

// ---------------------------------------------------------------- bundled data

#[test]
fn mutag_loads_with_the_documented_counts() {
    let ds = tu::read_dataset(data("MUTAG")).unwrap();
    let a_lines = count_lines(&data("MUTAG/MUTAG_A.txt"));
    assert_eq!(a_lines, 7442);
    assert_eq!((ds.name.as_str(), ds.len(), ds.num_nodes()), ("MUTAG", 188, 3371));
    assert_eq!(ds.num_entries(), a_lines);
    assert_eq!(ds.num_edges(), 3721);
    assert_eq!(ds.num_self_loops(), 0);
    assert_eq!(ds.node_schema.describe(), "label: int");
    assert_eq!(ds.edge_schema.describe(), "label: int");
    assert!(matches!(ds.node_fields()[0].values, FieldValues::Int { distinct: 7, min: 0, max: 6 }));
    assert!(matches!(ds.edge_fields()[0].values, FieldValues::Int { distinct: 4, min: 0, max: 3 }));
    match ds.graph_label_summary().unwrap() {
        GraphLabels::Classes(c) => {
            assert_eq!(c.iter().map(|x| x.0).collect::<Vec<_>>(), [-1, 1]);
            assert_eq!(c.iter().map(|x| x.1).sum::<usize>(), 188);
        }
        other => panic!("{other:?}"),
    }
    // Graph 1 is nodes 1..=17 of the file; its first A line is "2, 1".
    let g = &ds.graphs[0];
    assert_eq!(g.num_nodes(), 17);
    assert!(g.find_entry(1, 0).is_some() && g.find_entry(0, 1).is_some());
    assert!(g.weights().iter().all(|&w| w == 1.0));
}

#[test]
fn nci1_and_proteins_load() {
    let nci = tu::read_dataset(data("NCI1")).unwrap();
    assert_eq!((nci.len(), nci.num_nodes()), (4110, 122747));
    assert_eq!(nci.num_entries(), count_lines(&data("NCI1/NCI1_A.txt")));
    assert_eq!(nci.graph_labels.as_ref().unwrap().len(), 4110);

    let pro = tu::read_dataset(data("PROTEINS")).unwrap();
    assert_eq!((pro.len(), pro.num_nodes()), (1113, 43471));
    assert_eq!(pro.num_entries(), count_lines(&data("PROTEINS/PROTEINS_A.txt")));
    assert_eq!(pro.node_schema.describe(), "label: int, attr0: float");
    let f = pro.node_features(&["attr0"]).unwrap();
    assert_eq!(f.data.len(), 43471);
    assert_eq!(f.data[0], 23.0); // first line " 23.000000"
}

#[test]
fn synthetic_sets_load_with_weights_from_attributes() {
    for name in ["NWS96", "BA96", "NWS96L", "BA96L"] {
        let dir = data(&format!("synthetic/{name}"));
        let ds = tu::read_dataset(&dir).unwrap();
        assert_eq!((ds.len(), ds.num_nodes()), (160, 15360), "{name}");
        assert_eq!(ds.num_entries(), count_lines(&dir.join(format!("{name}_A.txt"))), "{name}");
        if name.ends_with('L') {
            assert_eq!(ds.edge_schema.describe(), "label: int, attr0: float, attr1: float");
            let w = ds.with_weights_from("attr0").unwrap();
            for g in &w.graphs {
                assert!(g.weights().iter().all(|&x| [1.0, 2.0, 3.0, 4.0].contains(&x)));
                for (k, e) in g.edge_labels().iter().enumerate() {
                    assert_eq!(e.get("attr0"), Some(&Value::Float(g.weights()[k])));
                    let len = e.get("attr1").and_then(Value::as_f64).unwrap();
                    assert!((0.0..1.0).contains(&len));
                }
            }
        } else {
            assert!(ds.edge_schema.is_empty() && ds.node_schema.is_empty());
            let e = ds.with_weights_from("attr0").unwrap_err().to_string();
            assert!(e.contains("attr0") && e.contains("no fields"), "{e}");
        }
    }
}

#[test]
fn snap_mtx_files_load() {
    let fb = mtx::read(data("snap/facebook_combined.mtx")).unwrap();
    assert_eq!((fb.num_nodes(), fb.num_edges(), fb.is_directed()), (4039, 88234, false));
    assert_eq!(fb.num_entries(), 2 * 88234);
    let or = mtx::read(data("snap/oregon1_010331.mtx")).unwrap();
    assert_eq!((or.num_nodes(), or.num_edges()), (10670, 22002));
    // the file's first entry "2 1" is the edge {1, 0}
    assert!(fb.find_entry(0, 1).is_some() && fb.find_entry(1, 0).is_some());
}

#[test]
fn load_dispatches_on_the_path() {
    let ds = io::load(data("MUTAG")).unwrap();
    assert_eq!((ds.len(), ds.num_nodes(), ds.num_edges()), (188, 3371, 3721));
    let ds = io::load(data("snap/oregon1_010331.mtx")).unwrap();
    assert_eq!((ds.name.as_str(), ds.len(), ds.num_nodes(), ds.num_edges()), ("oregon1_010331", 1, 10670, 22002));
    assert!(ds.node_schema.is_empty() && ds.graph_labels.is_none());

    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("g.edges");
    std::fs::write(&p, "# SNAP style, both directions\n0\t1\n1\t0\n1\t2\n").unwrap();
    let ds = io::load(&p).unwrap();
    assert_eq!((ds.num_nodes(), ds.num_edges()), (3, 2));
    let e = io::load(d.path().join("missing.txt")).unwrap_err();
    check(e, "missing.txt", None, &["No such file"]);
}

// ---------------------------------------------------------------- round trips

#[test]
fn mtx_writer_round_trips() {
    let ds = tu::read_dataset(data("synthetic/NWS96L")).unwrap().with_weights_from("attr1").unwrap();
    let g = &ds.graphs[3];
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("g.mtx");
    mtx::write(&p, g).unwrap();
    let h = mtx::read(&p).unwrap();
    assert_eq!(h.num_nodes(), g.num_nodes());
    assert!(!h.is_directed());
    assert_eq!(h.to_dense(), g.to_dense());

    let dg = edgelist::read_with(
        {
            let q = d.path().join("d.txt");
            std::fs::write(&q, "0 1 0.5\n1 0 2\n2 2 1\n").unwrap();
            q
        },
        &edgelist::EdgeListOptions { direction: Direction::Directed, ..Default::default() },
    )
    .unwrap();
    mtx::write(&p, &dg).unwrap();
    let h = mtx::read(&p).unwrap();
    assert!(h.is_directed());
    assert_eq!(h.to_dense(), dg.to_dense());
}

#[test]
fn npy_round_trips() {
    let d = tempfile::tempdir().unwrap();
    let read = |name: &str| {
        let bytes = std::fs::read(d.path().join(name)).unwrap();
        npyz::NpyFile::new(std::io::Cursor::new(bytes)).unwrap()
    };
    let m: Vec<f64> = (0..12).map(|i| i as f64 * 0.5 - 1.0).collect();
    npy::write_matrix(d.path().join("m.npy"), 3, 4, &m).unwrap();
    let f = read("m.npy");
    assert_eq!((f.shape(), f.order()), (&[3u64, 4][..], npyz::Order::C));
    assert_eq!(f.into_vec::<f64>().unwrap(), m);

    let m32: Vec<f32> = m.iter().map(|&x| x as f32).collect();
    npy::write_matrix(d.path().join("m32.npy"), 4, 3, &m32).unwrap();
    let f = read("m32.npy");
    assert_eq!(f.shape(), &[4, 3]);
    assert_eq!(f.into_vec::<f32>().unwrap(), m32);

    npy::write_vector(d.path().join("i.npy"), &[-3i64, 0, 7]).unwrap();
    assert_eq!(read("i.npy").into_vec::<i64>().unwrap(), [-3, 0, 7]);
    npy::write_vector(d.path().join("u.npy"), &[u64::MAX, 1]).unwrap();
    let f = read("u.npy");
    assert_eq!(f.shape(), &[2]);
    assert_eq!(f.into_vec::<u64>().unwrap(), [u64::MAX, 1]);
    npy::write_vector::<f64>(d.path().join("e.npy"), &[]).unwrap();
    assert_eq!(read("e.npy").shape(), &[0]);

    let e = npy::write_matrix(d.path().join("bad.npy"), 2, 2, &[1.0f64; 3]).unwrap_err();
    check(e, "bad.npy", None, &["shape [2, 2]", "3 values"]);
    assert!(!d.path().join("bad.npy").exists());

    let ds = tu::read_dataset(data("PROTEINS")).unwrap();
    npy::write_node_features(d.path().join("x.npy"), &ds, &["label", "attr0"]).unwrap();
    let f = read("x.npy");
    assert_eq!(f.shape(), &[43471, 2]);
    let x = f.into_vec::<f64>().unwrap();
    let expect = ds.node_features(&["label", "attr0"]).unwrap();
    assert_eq!(x, expect.data);
    assert!(npy::write_node_features(d.path().join("y.npy"), &ds, &["charge"]).is_err());
}

// ---------------------------------------------------------------- TU: bad input

/// A small valid TU set "T": graph 1 = path 1-2-3, graph 2 = edge 4-5.
fn tu_files() -> Vec<(&'static str, String)> {
    vec![
        ("T_A.txt", "1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n".into()),
        ("T_graph_indicator.txt", "1\n1\n1\n2\n2\n".into()),
        ("T_graph_labels.txt", "1\n-1\n".into()),
        ("T_node_labels.txt", "0\n1\n0\n2\n2\n".into()),
        ("T_edge_labels.txt", "1\n1\n2\n2\n1\n1\n".into()),
        ("T_node_attributes.txt", "0.5, 1\n0.5, 2\n1.5, 3\n2, 4\n2.5, 5\n".into()),
        ("T_edge_attributes.txt", "1.0\n1.0\n2.0\n2.0\n3.0\n3.0\n".into()),
    ]
}

/// Writes the small set into a fresh folder "T" with `file` replaced by
/// `content` (or removed when `None`), and reads it.
fn tu_with(file: &str, content: Option<&str>) -> Result<kronograph::graph::Dataset, IoError> {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("T");
    std::fs::create_dir(&dir).unwrap();
    for (name, text) in tu_files() {
        if name == file {
            if let Some(c) = content {
                std::fs::write(dir.join(name), c).unwrap();
            }
        } else {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    tu::read_dataset(&dir)
}

#[test]
fn tu_small_set_reads_and_tolerates_crlf_and_trailing_blank_lines() {
    let ds = tu_with("", None).unwrap();
    assert_eq!((ds.len(), ds.num_nodes(), ds.num_edges()), (2, 5, 3));
    assert_eq!(ds.node_schema.describe(), "label: int, attr0: float, attr1: float");
    assert_eq!(ds.edge_schema.describe(), "label: int, attr0: float");
    let ds = tu_with("T_A.txt", Some("1,2\r\n2,1\r\n2 3\r\n3\t2\r\n4, 5\r\n5 ,4\r\n\r\n\n")).unwrap();
    assert_eq!(ds.num_edges(), 3);
}

#[test]
fn tu_missing_and_empty_files() {
    check(tu_with("T_A.txt", None).unwrap_err(), "T_A.txt", None, &["not found", "DS_A.txt"]);
    check(tu_with("T_graph_indicator.txt", None).unwrap_err(), "T_graph_indicator.txt", None, &["not found"]);
    check(tu_with("T_A.txt", Some("")).unwrap_err(), "T_A.txt", Some(1), &["empty"]);
    check(tu_with("T_graph_indicator.txt", Some("\n\n")).unwrap_err(), "T_graph_indicator.txt", Some(1), &["empty"]);
    check(tu_with("T_node_labels.txt", Some("")).unwrap_err(), "T_node_labels.txt", Some(1), &["empty", "5 lines"]);
    // optional files may be absent
    assert!(tu_with("T_edge_attributes.txt", None).is_ok());
    // not a folder
    let e = tu::read_dataset(data("MUTAG/MUTAG_A.txt")).unwrap_err();
    assert!(matches!(e, IoError::Os { .. }), "{e}");
    check(e, "MUTAG_A.txt", None, &[]);
}

#[test]
fn tu_bad_adjacency() {
    let a = |s: &str| tu_with("T_A.txt", Some(s)).unwrap_err();
    check(a("1, 2\n2, 1, 3\n"), "T_A.txt", Some(2), &["two node ids", "\"2, 1, 3\""]);
    check(a("1, 2\n2\n"), "T_A.txt", Some(2), &["two node ids"]);
    check(a("1, 2\n2, x\n"), "T_A.txt", Some(2), &["two node ids", "\"2, x\""]);
    check(a("1, 2\n\n2, 1\n"), "T_A.txt", Some(2), &["an empty line"]);
    check(a("1, 2\n2, -1\n"), "T_A.txt", Some(2), &["two node ids"]);
    check(a("1, 2\n2, 1\n0, 1\n"), "T_A.txt", Some(3), &["node ids in 1..=5", "found 0"]);
    check(a("1, 6\n"), "T_A.txt", Some(1), &["node ids in 1..=5", "found 6"]);
    check(
        a("1, 2\n2, 1\n3, 4\n4, 3\n"),
        "T_A.txt",
        Some(3),
        &["same graph", "node 3 in graph 1 and node 4 in graph 2"],
    );
    // Edge-count files are checked against A too.
    let e = tu_with("T_A.txt", Some("1, 2\n2, 1\n")).unwrap_err();
    check(e, "T_edge_labels.txt", Some(3), &["expected 2 data lines", "found 6", "one per line of T_A.txt"]);
}

#[test]
fn tu_asymmetric_and_duplicate_arcs() {
    let a = |s: &str| tu_with("T_A.txt", Some(s)).unwrap_err();
    // Drop edge files so only A matters.
    let e = {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("T");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("T_A.txt"), "1, 2\n2, 3\n3, 2\n").unwrap();
        std::fs::write(dir.join("T_graph_indicator.txt"), "1\n1\n1\n").unwrap();
        tu::read_dataset(&dir).unwrap_err()
    };
    check(e, "T_A.txt", Some(1), &["reverse arc \"2, 1\""]);
    check(a("1, 2\n2, 1\n1, 2\n3, 2\n4, 5\n5, 4\n"), "T_A.txt", Some(3), &["each arc once", "also on line 1"]);
    // labels of the two directions differ
    let e = tu_with("T_edge_labels.txt", Some("1\n1\n2\n3\n1\n1\n")).unwrap_err();
    check(e, "T_edge_labels.txt", Some(3), &["same values as line 4", "[2] against [3]"]);
    let e = tu_with("T_edge_attributes.txt", Some("1.0\n1.5\n2.0\n2.0\n3.0\n3.0\n")).unwrap_err();
    check(e, "T_edge_attributes.txt", Some(1), &["same values as line 2"]);
}

#[test]
fn tu_bad_graph_indicator() {
    let g = |s: &str| tu_with("T_graph_indicator.txt", Some(s)).unwrap_err();
    check(g("2\n2\n2\n3\n3\n"), "T_graph_indicator.txt", Some(1), &["graph id 1"]);
    check(g("1\n1\n2\n1\n2\n"), "T_graph_indicator.txt", Some(4), &["sorted by graph"]);
    check(g("1\n1\n1\n3\n3\n"), "T_graph_indicator.txt", Some(4), &["contiguous", "found \"3\""]);
    check(g("1\n1\none\n2\n2\n"), "T_graph_indicator.txt", Some(3), &["one graph id"]);
    check(g("1\n1\n1, 1\n2\n2\n"), "T_graph_indicator.txt", Some(3), &["one graph id"]);
    check(g("1\n1\n0\n2\n2\n"), "T_graph_indicator.txt", Some(3), &["graph id 1 or 2"]);
    // one node fewer: node id 5 in A is now out of range
    check(g("1\n1\n1\n2\n"), "T_A.txt", Some(5), &["node ids in 1..=4"]);
}

#[test]
fn tu_bad_label_and_attribute_files() {
    let f = |file: &str, s: &str| tu_with(file, Some(s)).unwrap_err();
    // truncated / too long
    check(
        f("T_node_labels.txt", "0\n1\n0\n"),
        "T_node_labels.txt",
        Some(4),
        &["expected 5", "found 3", "ends too early"],
    );
    check(f("T_node_labels.txt", "0\n1\n0\n2\n2\n2\n7\n"), "T_node_labels.txt", Some(6), &["found 7", "extra lines"]);
    check(f("T_graph_labels.txt", "1\n"), "T_graph_labels.txt", Some(2), &["one per graph"]);
    check(f("T_graph_labels.txt", "1\n-1\n1\n"), "T_graph_labels.txt", Some(3), &["expected 2"]);
    check(f("T_edge_labels.txt", "1\n1\n2\n2\n1\n"), "T_edge_labels.txt", Some(6), &["expected 6", "found 5"]);
    // non-numbers, bad columns
    check(f("T_node_labels.txt", "0\n1\nC\n2\n2\n"), "T_node_labels.txt", Some(3), &["an integer", "\"C\""]);
    check(f("T_node_labels.txt", "0\n1\n0.5\n2\n2\n"), "T_node_labels.txt", Some(3), &["an integer"]);
    check(
        f("T_node_labels.txt", "0\n1\n0\n2, 3\n2\n"),
        "T_node_labels.txt",
        Some(4),
        &["1 comma-separated", "2 values"],
    );
    check(
        f("T_node_attributes.txt", "0.5, 1\n0.5\n1.5, 3\n2, 4\n2.5, 5\n"),
        "T_node_attributes.txt",
        Some(2),
        &["2 comma-separated", "as on line 1"],
    );
    check(
        f("T_node_attributes.txt", "0.5, 1\n0.5, nan\n1.5, 3\n2, 4\n2.5, 5\n"),
        "T_node_attributes.txt",
        Some(2),
        &["finite real number", "\"nan\""],
    );
    check(
        f("T_edge_attributes.txt", "1.0\n1.0\n2.0,\n2.0\n3.0\n3.0\n"),
        "T_edge_attributes.txt",
        Some(3),
        &["comma-separated"],
    );
    check(f("T_graph_labels.txt", "1, 2\n-1, 2\n"), "T_graph_labels.txt", Some(1), &["one value per line"]);
    check(f("T_graph_labels.txt", "1\nx\n"), "T_graph_labels.txt", Some(2), &["a finite real number"]);
}

#[test]
fn tu_truncated_mutag_copy() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("MUTAG");
    std::fs::create_dir(&dir).unwrap();
    for e in std::fs::read_dir(data("MUTAG")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    assert_eq!(tu::read_dataset(&dir).unwrap().len(), 188);
    // cut the node labels mid-line and mid-file
    let full = std::fs::read(dir.join("MUTAG_node_labels.txt")).unwrap();
    std::fs::write(dir.join("MUTAG_node_labels.txt"), &full[..full.len() / 2]).unwrap();
    let e = tu::read_dataset(&dir).unwrap_err();
    assert!(matches!(e, IoError::LineCount { expected: 3371, .. }), "{e}");
    check(e, "MUTAG_node_labels.txt", None, &["expected 3371 data lines", "one per node"]);
    std::fs::write(dir.join("MUTAG_node_labels.txt"), &full).unwrap();
    // cut A in the middle of a line: "12, " or "12" – both malformed or a missing reverse arc
    let a = std::fs::read(dir.join("MUTAG_A.txt")).unwrap();
    std::fs::write(dir.join("MUTAG_A.txt"), &a[..a.len() - 3]).unwrap();
    let e = tu::read_dataset(&dir).unwrap_err();
    assert!(e.path().ends_with("MUTAG_A.txt") || e.path().ends_with("MUTAG_edge_labels.txt"), "{e}");
    assert!(e.line().is_some(), "{e}");
}

#[test]
fn tu_folder_detection() {
    let d = tempfile::tempdir().unwrap();
    for (name, text) in tu_files() {
        std::fs::write(d.path().join(name), text).unwrap();
    }
    // the folder's name is not "T", but T_A.txt is the only candidate
    assert_eq!(tu::read_dataset(d.path()).unwrap().name, "T");
    std::fs::write(d.path().join("U_A.txt"), "1, 2\n").unwrap();
    let e = tu::read_dataset(d.path()).unwrap_err();
    assert!(matches!(&e, IoError::Ambiguous { candidates, .. } if candidates.len() == 2), "{e}");
    assert!(e.to_string().contains("T_A.txt, U_A.txt"), "{e}");
    let empty = tempfile::tempdir().unwrap();
    let e = tu::read_dataset(empty.path()).unwrap_err();
    assert!(matches!(e, IoError::MissingFile { .. }), "{e}");
}

// ---------------------------------------------------------------- Matrix Market: bad input

fn mtx_text(s: &str) -> Result<kronograph::graph::Graph, IoError> {
    mtx_with(s, &mtx::MtxOptions::default())
}

fn mtx_with(s: &str, o: &mtx::MtxOptions) -> Result<kronograph::graph::Graph, IoError> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("m.mtx");
    std::fs::write(&p, s).unwrap();
    mtx::read_with(&p, o)
}

const BANNER: &str = "%%MatrixMarket matrix coordinate";

#[test]
fn mtx_variants() {
    let g = mtx_text(&format!("{BANNER} real general\n% c\n3 3 3\n1 2 0.5\n2 1 1.5\n\n3 3 2\n")).unwrap();
    assert!(g.is_directed());
    assert_eq!(g.to_dense(), [0.0, 0.5, 0.0, 1.5, 0.0, 0.0, 0.0, 0.0, 2.0]);
    let g = mtx_text("%%matrixmarket MATRIX Coordinate Integer Symmetric\n3 3 2\n2 1 4\n3 1 0\n").unwrap();
    assert!(!g.is_directed());
    assert_eq!(g.to_dense(), [0.0, 4.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let sym = mtx::MtxOptions { symmetrize: true, duplicates: Duplicates::KeepFirst, ..Default::default() };
    let g = mtx_with(&format!("{BANNER} pattern general\n2 2 2\n1 2\n2 1\n"), &sym).unwrap();
    assert_eq!((g.is_directed(), g.num_edges()), (false, 1));
    let g = mtx_text(&format!("{BANNER} pattern symmetric\n0 0 0\n")).unwrap();
    assert_eq!(g.num_nodes(), 0);
}

#[test]
fn mtx_bad_input() {
    let e = |s: String| mtx_text(&s).unwrap_err();
    check(e(String::new()), "m.mtx", Some(1), &["empty", "banner"]);
    check(e("3 3 1\n1 2\n".into()), "m.mtx", Some(1), &["banner"]);
    check(e("%%MatrixMarket matrix array real general\n2 2\n".into()), "m.mtx", Some(1), &["coordinate"]);
    check(e(format!("{BANNER} complex general\n")), "m.mtx", Some(1), &["pattern, real or integer", "\"complex\""]);
    check(e(format!("{BANNER} real skew-symmetric\n")), "m.mtx", Some(1), &["general or symmetric"]);
    check(e(format!("{BANNER} real general\n% only comments\n")), "m.mtx", Some(3), &["size line", "end of the file"]);
    check(e(format!("{BANNER} real general")), "m.mtx", Some(2), &["size line", "end of the file"]);
    check(e(format!("{BANNER} real general\n3 4 1\n")), "m.mtx", Some(2), &["square", "3 x 4"]);
    check(e(format!("{BANNER} real general\n3 3\n")), "m.mtx", Some(2), &["size line"]);
    check(e(format!("{BANNER} real general\n3 3 x\n")), "m.mtx", Some(2), &["size line"]);
    check(e(format!("{BANNER} real general\n9999999999 9999999999 0\n")), "m.mtx", Some(2), &["at most"]);
    check(e(format!("{BANNER} real general\n3 3 2\n1 2 1\n2 3\n")), "m.mtx", Some(4), &["\"i j value\""]);
    check(e(format!("{BANNER} pattern general\n3 3 2\n1 2\n2 3 1\n")), "m.mtx", Some(4), &["\"i j\""]);
    check(e(format!("{BANNER} pattern general\n3 3 1\n0 2\n")), "m.mtx", Some(3), &["index in 1..=3", "\"0\""]);
    check(e(format!("{BANNER} pattern general\n3 3 1\n1 4\n")), "m.mtx", Some(3), &["index in 1..=3", "\"4\""]);
    check(e(format!("{BANNER} pattern general\n3 3 1\n1 b\n")), "m.mtx", Some(3), &["index in 1..=3"]);
    check(e(format!("{BANNER} real general\n3 3 1\n1 2 -1\n")), "m.mtx", Some(3), &["weight >= 0", "\"-1\""]);
    check(e(format!("{BANNER} real general\n3 3 1\n1 2 inf\n")), "m.mtx", Some(3), &["finite weight"]);
    check(e(format!("{BANNER} integer general\n3 3 1\n1 2 1.5\n")), "m.mtx", Some(3), &["integer weight"]);
    check(
        e(format!("{BANNER} pattern general\n3 3 1\n1 2\n2 3\n")),
        "m.mtx",
        Some(4),
        &["no more entries", "declares 1"],
    );
    check(
        e(format!("{BANNER} pattern general\n3 3 3\n1 2\n2 3\n")),
        "m.mtx",
        Some(5),
        &["expected 3", "found 2", "ends too early"],
    );
    check(
        e(format!("{BANNER} pattern general\n3 3 2\n1 2\n% c\n1 2\n")),
        "m.mtx",
        Some(5),
        &["each entry once", "first on line 3"],
    );
    check(
        e(format!("{BANNER} pattern symmetric\n3 3 2\n2 1\n1 2\n")),
        "m.mtx",
        Some(4),
        &["each entry once", "first on line 3, transposed"],
    );
}

// ---------------------------------------------------------------- edge lists

fn el(s: &str, o: &edgelist::EdgeListOptions) -> Result<kronograph::graph::Graph, IoError> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("e.txt");
    std::fs::write(&p, s).unwrap();
    edgelist::read_with(&p, o)
}

#[test]
fn edgelist_variants() {
    let und = edgelist::EdgeListOptions::default();
    let g = el("# c\n% c\n\n  # indented comment\n0 1 2.5\n1\t3  1\r\n", &und).unwrap();
    assert_eq!((g.num_nodes(), g.num_edges()), (4, 2));
    assert_eq!(g.degrees(), &[2.5, 3.5, 0.0, 1.0]);
    let dir = edgelist::EdgeListOptions { direction: Direction::Directed, one_based: true, ..und };
    let g = el("1 2\n2 1\n3 3\n", &dir).unwrap();
    assert_eq!((g.num_nodes(), g.num_edges(), g.is_directed()), (3, 3, true));
    assert_eq!(g.self_loops(), 1);
}

#[test]
fn edgelist_bad_input() {
    let und = edgelist::EdgeListOptions::default();
    let e = |s: &str| el(s, &und).unwrap_err();
    check(e(""), "e.txt", Some(1), &["empty", "at least one edge"]);
    check(e("# only\n# comments\n"), "e.txt", Some(1), &["empty"]);
    check(e("0 1\n2\n"), "e.txt", Some(2), &["\"u v\"", "\"2\""]);
    check(e("0 1\n2 3 4 5\n"), "e.txt", Some(2), &["\"u v weight\""]);
    check(e("0 1\n2 x\n"), "e.txt", Some(2), &["node id in 0..", "\"x\""]);
    check(e("0 1\n-2 3\n"), "e.txt", Some(2), &["node id", "\"-2\""]);
    check(e("0 99999999999999\n"), "e.txt", Some(1), &["node id"]);
    check(e("0 1 1\n1 2\n"), "e.txt", Some(2), &["a weight column, as on line 1"]);
    check(e("0 1\n1 2 1\n"), "e.txt", Some(2), &["no weight column"]);
    check(e("0 1 -1\n"), "e.txt", Some(1), &["weight >= 0"]);
    check(e("0 1 NaN\n"), "e.txt", Some(1), &["finite weight"]);
    check(e("0 1\n1 2\n1 0\n"), "e.txt", Some(3), &["each edge once", "first on line 1"]);
    let one = edgelist::EdgeListOptions { one_based: true, ..und };
    check(el("1 2\n0 1\n", &one).unwrap_err(), "e.txt", Some(2), &["node id in 1..="]);
}

// ---------------------------------------------------------------- hardening (issue 10)

#[test]
fn tu_zero_based_indicator_is_refused_at_its_first_line() {
    // With every optional file present (labels too), the indicator is blamed.
    let e = tu_with("T_graph_indicator.txt", Some("0\n0\n0\n1\n1\n")).unwrap_err();
    check(e, "T_graph_indicator.txt", Some(1), &["graph id 1", "0-based", "found \"0\""]);
    // A 0 further down is out of order, not a 0-based file.
    let e = tu_with("T_graph_indicator.txt", Some("1\n1\n1\n0\n0\n")).unwrap_err();
    check(e, "T_graph_indicator.txt", Some(4), &["graph id 1 or 2"]);
}

/// Limits small enough to see refusals without huge numbers.
fn small_limits() -> io::Limits {
    io::Limits { max_nodes: 1000, max_bytes: Some(1 << 30) }
}

#[test]
fn edgelist_huge_id_is_refused_with_the_memory_it_needs() {
    let und = edgelist::EdgeListOptions::default();
    // The 13-byte file: a billion nodes for one edge.
    let e = el("0 1000000000\n", &und).unwrap_err();
    assert!(matches!(e, IoError::TooLarge { .. }), "{e}");
    check(e, "e.txt", Some(1), &["node id 1000000000", "1000000001 nodes", "would need about 200.0 GB", "renumber"]);
    // The line of the largest id is named; 1-based ids are reported as given.
    let o = edgelist::EdgeListOptions { one_based: true, limits: small_limits(), ..und };
    check(el("1 2\n2 5000\n3 4\n", &o).unwrap_err(), "e.txt", Some(2), &["node id 5000", "5000 nodes"]);
    // Many ids with enough edges, or few ids under the limit, are fine.
    let o = edgelist::EdgeListOptions { limits: small_limits(), ..und };
    assert_eq!(el("0 999\n", &o).unwrap().num_nodes(), 1000);
    let many: String = (0..1500).map(|i| format!("{} {}\n", 2 * i, 2 * i + 1)).collect();
    assert_eq!(el(&many, &o).unwrap().num_nodes(), 3000);
    // The memory budget applies too.
    let o = edgelist::EdgeListOptions { limits: io::Limits { max_nodes: usize::MAX, max_bytes: Some(10_000) }, ..und };
    check(el("0 999\n", &o).unwrap_err(), "e.txt", Some(1), &["10.0 kB of memory available"]);
}

#[test]
fn mtx_huge_declared_size_is_refused_before_allocating() {
    let e = mtx_text(&format!("{BANNER} pattern symmetric\n2000000000 2000000000 1\n1 2\n")).unwrap_err();
    assert!(matches!(e, IoError::TooLarge { .. }), "{e}");
    check(e, "m.mtx", Some(2), &["2000000000 x 2000000000", "would need about 400.0 GB"]);
    // A huge declared entry count is only a count: the file ends too early.
    let e = mtx_text(&format!("{BANNER} pattern general\n5 5 99999999999\n1 2\n")).unwrap_err();
    check(e, "m.mtx", Some(4), &["expected 99999999999 data lines", "ends too early"]);
    // Above MAX_NODES the size line itself is refused.
    let e = mtx_text(&format!("{BANNER} pattern general\n3000000000 3000000000 1\n1 2\n")).unwrap_err();
    check(e, "m.mtx", Some(2), &["at most 2147483647 rows"]);
    let o = mtx::MtxOptions { limits: small_limits(), ..Default::default() };
    check(
        mtx_with(&format!("{BANNER} pattern general\n1001 1001 1\n1 2\n"), &o).unwrap_err(),
        "m.mtx",
        Some(2),
        &["only 1 entry"],
    );
    assert_eq!(mtx_with(&format!("{BANNER} pattern general\n1000 1000 1\n1 2\n"), &o).unwrap().num_nodes(), 1000);
}

#[test]
fn a_bom_is_named_by_every_reader() {
    let bom = "\u{feff}";
    let needles = ["byte-order mark (BOM", "without BOM"];
    check(el(&format!("{bom}0 1\n"), &Default::default()).unwrap_err(), "e.txt", Some(1), &needles);
    check(mtx_text(&format!("{bom}{BANNER} pattern general\n2 2 1\n1 2\n")).unwrap_err(), "m.mtx", Some(1), &needles);
    for file in ["T_A.txt", "T_graph_indicator.txt", "T_node_labels.txt", "T_graph_labels.txt"] {
        let content = tu_files().into_iter().find(|(n, _)| *n == file).unwrap().1;
        let e = tu_with(file, Some(&format!("{bom}{content}"))).unwrap_err();
        check(e, file, Some(1), &needles);
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("u16.txt");
    std::fs::write(&p, b"\xFF\xFE0\x00 \x001\x00\n\x00").unwrap();
    check(io::load(&p).unwrap_err(), "u16.txt", Some(1), &["UTF-16", "iconv"]);
}

#[test]
fn load_recognizes_matrix_market_by_its_banner() {
    let d = tempfile::tempdir().unwrap();
    // In a .txt file, the size line must not become a self-loop.
    for (name, banner) in [("m.txt", "%%MatrixMarket"), ("m.edges", "%%matrixmarket"), ("m", "%%MATRIXMARKET")] {
        let p = d.path().join(name);
        std::fs::write(&p, format!("{banner} matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n")).unwrap();
        let ds = io::load(&p).unwrap();
        assert_eq!((ds.num_nodes(), ds.num_edges(), ds.num_self_loops()), (3, 2, 0), "{name}");
        assert!(ds.graphs[0].neighbors(0) == [1], "{name}: ids shifted");
    }
    // Errors are Matrix Market errors, at the right line.
    let p = d.path().join("bad.txt");
    std::fs::write(&p, "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n4 1\n").unwrap();
    check(io::load(&p).unwrap_err(), "bad.txt", Some(3), &["an index in 1..=3"]);
}

#[test]
fn a_tu_file_given_for_its_folder_gets_a_hint() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("T");
    std::fs::create_dir(&dir).unwrap();
    for (name, text) in tu_files() {
        std::fs::write(dir.join(name), text).unwrap();
    }
    for file in ["T_A.txt", "T_graph_indicator.txt", "T_node_labels.txt", "T_edge_attributes.txt"] {
        let e = io::load(dir.join(file)).unwrap_err();
        assert!(matches!(e, IoError::TuFile { .. }), "{e}");
        check(e, file, None, &["file of the TU data set T", "pass its folder", &dir.display().to_string()]);
    }
    // The folder above data set folders names them.
    let e = io::load(d.path()).unwrap_err();
    assert!(e.to_string().contains("holds data set folders (T): pass one of them"), "{e}");
    // An edge list that only looks like a TU name is still an edge list.
    let p = d.path().join("X_A.txt");
    std::fs::write(&p, "0 1\n").unwrap();
    assert_eq!(io::load(&p).unwrap().num_edges(), 1);
}

#[test]
fn writers_replace_files_whole() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("k.npy");
    npy::write_matrix(&p, 2, 2, &[1.0f64, 2.0, 3.0, 4.0]).unwrap();
    npy::write_matrix(&p, 1, 1, &[5.0f64]).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    let arr = npyz::NpyFile::new(&bytes[..]).unwrap();
    assert_eq!((arr.shape().to_vec(), arr.into_vec::<f64>().unwrap()), (vec![1, 1], vec![5.0]));
    // A target that cannot be written leaves nothing behind.
    assert!(npy::write_vector(d.path().join("no/k.npy"), &[1.0f64]).is_err());
    let e = npy::write_vector(d.path(), &[1.0f64]).unwrap_err();
    assert!(e.to_string().contains("is a folder"), "{e}");
    let g = mtx_text(&format!("{BANNER} pattern symmetric\n2 2 1\n2 1\n")).unwrap();
    mtx::write(d.path().join("g.mtx"), &g).unwrap();
    let mut names: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["g.mtx", "k.npy"]);
}
