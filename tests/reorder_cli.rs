//! `kronograph reorder-stats`: end to end on the bundled MUTAG.

use kronograph::graph::io;
use kronograph::graph::reorder::{self, Method};
use std::process::Command;

fn kronograph() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kronograph"))
}

const MUTAG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/MUTAG");

#[test]
fn json_has_the_three_orders_and_agrees_with_the_library() {
    let out = kronograph().args(["reorder-stats", MUTAG, "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let obj = v.as_object().unwrap();
    assert_eq!(obj.len(), 3);
    let ds = io::load(MUTAG).unwrap();
    let expected = reorder::stats(&ds.graphs, &Method::ALL);
    for s in &expected {
        let o = &obj[s.method.name()];
        assert_eq!(o["tiles"].as_u64().unwrap() as usize, s.tiles.tiles, "{}", s.method);
        let density = o["density"].as_f64().unwrap();
        assert!((density - s.tiles.density()).abs() <= 1e-12 * density, "{}", s.method);
        assert!(o["seconds"].as_f64().unwrap() >= 0.0);
    }
    let tiles = |m: &str| obj[m]["tiles"].as_u64().unwrap();
    assert!(tiles("pbr") <= tiles("rcm") && tiles("pbr") <= tiles("natural"));
}

#[test]
fn table_lists_every_order() {
    let out = kronograph().args(["reorder-stats", MUTAG]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("188 graphs"), "{text}");
    for m in ["natural", "rcm", "pbr"] {
        assert!(text.lines().any(|l| l.starts_with(m)), "{m} missing in\n{text}");
    }
}

#[test]
fn a_missing_data_set_is_an_error_not_a_panic() {
    let out = kronograph().args(["reorder-stats", "/nonexistent/kronograph/DATA"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error") && err.contains("/nonexistent/kronograph/DATA"), "{err}");
    assert!(!err.contains("panicked"));
}
