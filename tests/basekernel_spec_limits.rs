//! SPEC limits: deep nesting, huge products and nested `normalize(` are
//! refused or simplified instead of overflowing the stack or taking
//! exponential time.

use kronograph::basekernel::spec::{MAX_DEPTH, MAX_EVALUATIONS, MAX_NODES};
use kronograph::basekernel::*;
use kronograph::graph::{FieldKind, Record, Schema, Value};
use std::sync::Arc;
use std::time::Instant;

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new().with("label", FieldKind::Int).with("attr0", FieldKind::Float))
}

fn rec(label: i64, a0: f64) -> Record {
    Record::new(schema(), [Value::Int(label), Value::Float(a0)]).unwrap()
}

#[test]
fn deep_parentheses_are_refused() {
    let spec = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    let e = SpecKernel::parse(&spec).unwrap_err().to_string();
    assert!(e.contains(&format!("nested at most {MAX_DEPTH} deep")), "{e}");
    // just inside the limit is fine
    let d = MAX_DEPTH - 1;
    let spec = format!("{}delta(label, 0.5){}", "(".repeat(d), ")".repeat(d));
    let k = SpecKernel::parse_for(&spec, &schema()).unwrap();
    assert_eq!(k.value(&rec(1, 0.0), &rec(2, 0.0)), 0.5);
}

#[test]
fn deep_calls_are_refused() {
    let spec = format!("{}poly(attr0, 1, 2){}", "normalize(".repeat(3000), ")".repeat(3000));
    let e = SpecKernel::parse(&spec).unwrap_err().to_string();
    assert!(e.contains("nested at most"), "{e}");
}

#[test]
fn huge_products_and_sums_are_refused() {
    for op in ["*", "+"] {
        let spec = vec!["delta(label, 0.5)"; 60_000].join(op);
        let e = SpecKernel::parse(&spec).unwrap_err().to_string();
        assert!(e.contains(&format!("at most {MAX_NODES} kernels")), "{e}");
    }
    let spec = vec!["1"; 60_000].join("*");
    assert!(SpecKernel::parse(&spec).is_err());
    // a long but reasonable product is fine
    let spec = vec!["delta(label, 0.9)"; 200].join(" * ");
    let k = SpecKernel::parse_for(&spec, &schema()).unwrap();
    assert!((k.value(&rec(1, 0.0), &rec(2, 0.0)) - 0.9f64.powi(200)).abs() < 1e-15);
}

#[test]
fn nested_normalize_costs_linear_time() {
    let inner = "poly(attr0, 1, 2)";
    let (x, y) = (rec(1, 0.3), rec(2, 1.7));
    let reference = SpecKernel::parse_for(&format!("normalize({inner})"), &schema()).unwrap().value(&x, &y);
    for depth in [1, 2, 16, 60] {
        let spec = format!("{}{inner}{}", "normalize(".repeat(depth), ")".repeat(depth));
        let t = Instant::now();
        let k = SpecKernel::parse_for(&spec, &schema()).unwrap();
        let v = k.value(&x, &y);
        assert!(t.elapsed().as_secs_f64() < 1.0, "depth {depth}: {:?}", t.elapsed());
        assert_eq!(v.to_bits(), reference.to_bits(), "depth {depth}");
        // normalize of a normalized kernel is that kernel
        assert_eq!(k.to_string(), format!("normalize({inner})"));
    }
    // products of normalized kernels have a unit diagonal too
    let k = SpecKernel::parse("normalize(normalize(poly(attr0, 1, 2)) * normalize(poly(attr0, 2, 3)))").unwrap();
    assert_eq!(k.to_string(), "normalize(poly(attr0, 1, 2)) * normalize(poly(attr0, 2, 3))");
}

#[test]
fn exponential_normalize_nests_are_refused() {
    // normalize(k + 1) does not have a unit diagonal: each level triples the cost
    let mut spec = "poly(attr0, 1, 2)".to_string();
    let mut levels = 0;
    let err = loop {
        spec = format!("normalize({spec} + 1)");
        levels += 1;
        match SpecKernel::parse(&spec) {
            Ok(k) => assert!(levels < 20, "{k}"),
            Err(e) => break e.to_string(),
        }
    };
    assert!(err.contains(&MAX_EVALUATIONS.to_string()) && err.contains("normalize"), "{err}");
    assert!(3u64.pow(levels) > MAX_EVALUATIONS / 2, "refused only at {levels} levels");
}
