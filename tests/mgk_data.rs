//! Graph kernels end to end on the bundled data sets, through the library
//! (SPEC kernels on record labels) and through the `kronograph` CLI.

use kronograph::basekernel::spec::SpecKernel;
use kronograph::graph::io;
use kronograph::mgk::{MarginalizedGraphKernel, Precision};
use kronograph::rw::RandomWalkKernel;
use std::process::Command;

fn data(name: &str) -> String {
    format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn read_npy(path: &std::path::Path) -> (Vec<u64>, Vec<f64>) {
    let f = npyz::NpyFile::new(std::fs::File::open(path).unwrap()).unwrap();
    let shape = f.shape().to_vec();
    (shape, f.into_vec::<f64>().unwrap())
}

#[test]
fn mutag_gram_is_symmetric_normalized_and_f32_close() {
    let mut ds = io::load(data("MUTAG")).unwrap();
    ds.graphs.truncate(12);
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema).unwrap();
    let mgk = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap();
    let k = mgk.gram(&ds.graphs).unwrap();
    let kn = mgk.gram_normalized(&ds.graphs).unwrap();
    let k32 = mgk.clone().with_precision(Precision::F32).gram(&ds.graphs).unwrap();
    for a in 0..12 {
        assert!((kn.get(a, a) - 1.0).abs() < 1e-12);
        for b in 0..12 {
            assert_eq!(k.get(a, b), k.get(b, a));
            assert!(k.get(a, b) > 0.0);
            assert!((k32.get(a, b) - k.get(a, b)).abs() <= 1e-4 * k.get(a, b));
            assert!((kn.get(a, b) - k.get(a, b) / (k.get(a, a) * k.get(b, b)).sqrt()).abs() < 1e-12);
        }
    }
    // node permutation of a record-labeled graph
    let g = &ds.graphs[3];
    let perm: Vec<usize> = (0..g.num_nodes()).rev().collect();
    let gp = g.permute(&perm).unwrap();
    let (x, y) = (mgk.pair(g, &ds.graphs[5]).unwrap(), mgk.pair(&gp, &ds.graphs[5]).unwrap());
    assert!((x - y).abs() <= 1e-10 * x);
    // gradients exist for the two delta hyperparameters
    let (_, grad) = mgk.gram_with_gradient(&ds.graphs[..4], false).unwrap();
    assert_eq!(grad.names(), &["node.label.h", "edge.label.h"]);
}

#[test]
fn labeled_synthetic_reference_setup_runs() {
    // the reference set-up of data/README (GraphDot-compatible)
    let mut ds = io::load(data("synthetic/NWS96L")).unwrap().with_weights_from("attr0").unwrap();
    ds.graphs.truncate(3);
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr1, 0.1)", &ds.edge_schema).unwrap();
    let mgk = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap();
    let k = mgk.gram(&ds.graphs).unwrap();
    let lazy = mgk.clone().with_edge_cache_limit(0).gram(&ds.graphs).unwrap();
    for (a, b) in k.as_slice().iter().zip(lazy.as_slice()) {
        assert!((a - b).abs() <= 1e-10 * a.abs());
    }
    let rw = RandomWalkKernel::new(1e-3).unwrap();
    let l = rw.gram_labeled(&ds.graphs).unwrap();
    let u = rw.gram(&ds.graphs).unwrap();
    for a in 0..3 {
        for b in 0..3 {
            // restricting walks to equal labels can only lose walks
            assert!(l.get(a, b) < u.get(a, b));
        }
    }
}

#[test]
fn cli_gram_and_rw_write_npy() {
    let dir = tempfile::tempdir().unwrap();
    let exe = env!("CARGO_BIN_EXE_kronograph");
    let out = dir.path().join("k.npy");
    let st = Command::new(exe)
        .args(["--quiet", "gram", &data("MUTAG"), "--first", "6", "--normalize", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let (shape, k) = read_npy(&out);
    assert_eq!(shape, vec![6, 6]);
    for a in 0..6 {
        assert!((k[a * 6 + a] - 1.0).abs() < 1e-12);
    }
    // same values as the library with the documented default kernels
    let mut ds = io::load(data("MUTAG")).unwrap();
    ds.graphs.truncate(6);
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema).unwrap();
    let want = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap().gram_normalized(&ds.graphs).unwrap();
    for (a, b) in k.iter().zip(want.as_slice()) {
        assert!((a - b).abs() < 1e-12);
    }
    let st = Command::new(exe)
        .args(["--quiet", "rw", &data("synthetic/NWS96L"), "--lambda", "0.001", "--labeled", "--first", "4", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let (shape, _) = read_npy(&out);
    assert_eq!(shape, vec![4, 4]);
}

#[test]
fn cli_reports_bad_spec_and_lambda() {
    let exe = env!("CARGO_BIN_EXE_kronograph");
    let st = Command::new(exe)
        .args(["--quiet", "gram", &data("MUTAG"), "--first", "2", "--node-kernel", "delta(label, 0.5"])
        .output()
        .unwrap();
    assert!(!st.status.success());
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(err.starts_with("error:"), "{err}");
    let st = Command::new(exe)
        .args(["--quiet", "gram", &data("MUTAG"), "--first", "2", "--edge-kernel", "2 * delta(label, 0.5)"])
        .output()
        .unwrap();
    assert!(!st.status.success());
    assert!(String::from_utf8_lossy(&st.stderr).contains("edge kernel"), "{}", String::from_utf8_lossy(&st.stderr));
    let st =
        Command::new(exe).args(["--quiet", "rw", &data("MUTAG"), "--lambda", "5", "--first", "3"]).output().unwrap();
    assert!(!st.status.success());
    assert!(String::from_utf8_lossy(&st.stderr).contains("too large"), "{}", String::from_utf8_lossy(&st.stderr));
}
