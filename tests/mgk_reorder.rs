//! Reordering before packing (issue 6): the marginalized graph kernel's
//! values must not change when the graphs are reordered by RCM or PBR, and
//! nodal outputs come back in the original node order.

use crate::mgk_common;
use mgk_common::max_rel;

use kronograph::basekernel::spec::SpecKernel;
use kronograph::graph::io;
use kronograph::graph::reorder::Method;
use kronograph::mgk::MarginalizedGraphKernel;

fn data(name: &str) -> String {
    format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn gram_is_invariant_under_reordering() {
    // labeled, weighted: the reference set-up of the synthetic sets
    let mut nws = io::load(data("synthetic/NWS96L")).unwrap().with_weights_from("attr0").unwrap();
    nws.graphs.truncate(4);
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &nws.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr1, 0.1)", &nws.edge_schema).unwrap();
    let plain = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap();
    let base = plain.gram(&nws.graphs).unwrap();
    for method in [Method::Rcm, Method::Pbr] {
        let mgk = plain.clone().with_reorder(Some(method));
        assert_eq!(mgk.reorder(), Some(method));
        let k = mgk.gram(&nws.graphs).unwrap();
        let err = max_rel(base.as_slice(), k.as_slice());
        assert!(err <= 1e-12, "{method}: relative difference {err:e}");
    }

    // MUTAG (molecules: many small graphs, labels on nodes and edges), f64
    let mut mutag = io::load(data("MUTAG")).unwrap();
    mutag.graphs.truncate(20);
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &mutag.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5)", &mutag.edge_schema).unwrap();
    let plain = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap();
    let base = plain.gram_normalized(&mutag.graphs).unwrap();
    let k = plain.clone().with_reorder(Some(Method::Pbr)).gram_normalized(&mutag.graphs).unwrap();
    let err = max_rel(base.as_slice(), k.as_slice());
    assert!(err <= 1e-12, "MUTAG PBR: relative difference {err:e}");
}

#[test]
fn nodal_output_returns_to_the_original_order() {
    let ds = io::load(data("MUTAG")).unwrap();
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema).unwrap();
    let plain = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap();
    for method in [Method::Rcm, Method::Pbr] {
        // the order must actually change for this test to mean anything:
        // take the first two graphs that the method reorders
        let moved: Vec<_> = ds
            .graphs
            .iter()
            .filter(|g| !kronograph::graph::reorder::permutation(g, method).is_identity())
            .take(2)
            .collect();
        assert_eq!(moved.len(), 2, "{method} reorders fewer than two MUTAG graphs");
        let (g, h) = (moved[0], moved[1]);
        let base = plain.nodal(g, h).unwrap();
        let r = plain.clone().with_reorder(Some(method)).nodal(g, h).unwrap();
        assert_eq!((r.rows(), r.cols()), (g.num_nodes(), h.num_nodes()));
        let err = max_rel(base.as_slice(), r.as_slice());
        assert!(err <= 1e-10, "{method}: nodal relative difference {err:e}");
    }
}

#[test]
fn cli_gram_accepts_reorder() {
    let exe = env!("CARGO_BIN_EXE_kronograph");
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], out: &str| {
        let path = dir.path().join(out);
        let status = std::process::Command::new(exe)
            .args(["-q", "gram", &data("MUTAG"), "--first", "8", "--backend", "cpu", "--out"])
            .arg(&path)
            .args(extra)
            .status()
            .unwrap();
        assert!(status.success());
        let f = npyz::NpyFile::new(std::fs::File::open(&path).unwrap()).unwrap();
        f.into_vec::<f64>().unwrap()
    };
    let natural = run(&[], "a.npy");
    let pbr = run(&["--reorder", "pbr"], "b.npy");
    assert!(max_rel(&natural, &pbr) <= 1e-12);
    let bad =
        std::process::Command::new(exe).args(["-q", "gram", &data("MUTAG"), "--reorder", "metis"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected natural, rcm or pbr"));
}
