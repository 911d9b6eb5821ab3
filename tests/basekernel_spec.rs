//! The kernel SPEC parser: values, errors pointing at tokens, round trips.

use kronograph::basekernel::*;
use kronograph::graph::{FieldKind, Record, Schema, Value};
use proptest::prelude::*;
use smallvec::SmallVec;
use std::sync::Arc;

fn schema() -> Arc<Schema> {
    Arc::new(
        Schema::new()
            .with("label", FieldKind::Int)
            .with("attr0", FieldKind::Float)
            .with("attr1", FieldKind::Float)
            .with("coords", FieldKind::Array(2))
            .with("atoms", FieldKind::Set),
    )
}

fn rec(label: i64, a0: f64, a1: f64, coords: [f64; 2], atoms: &[i64]) -> Record {
    Record::new(
        schema(),
        [
            Value::Int(label),
            Value::Float(a0),
            Value::Float(a1),
            Value::Array(SmallVec::from_slice(&coords)),
            Value::Set(atoms.iter().copied().collect()),
        ],
    )
    .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn parses_the_reference_setup() {
    let s = schema();
    let (x, y) = (rec(1, 0.5, 1.0, [0.0, 0.0], &[1]), rec(1, 0.25, 1.3, [1.0, 0.0], &[1, 2]));
    let node = SpecKernel::parse_for("delta(label, 0.5)", &s).unwrap();
    assert_eq!(node.value(&x, &y), 1.0);
    assert_eq!(node.range(), (0.5, 1.0));
    let edge = SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr1, 0.1)", &s).unwrap();
    assert!(close(edge.value(&x, &y), (-0.09f64 / 0.02).exp()));
    let names: Vec<String> = edge.hyperparameters().into_iter().map(|h| h.name).collect();
    assert_eq!(names, ["label.h", "attr1.scale"]);
    assert_eq!(edge.range(), (0.0, 1.0));
}

#[test]
fn every_kernel_parses_to_its_rust_form() {
    let s = schema();
    let (x, y) = (rec(1, 0.5, 1.0, [0.0, 1.0], &[1, 3]), rec(2, 0.25, 1.3, [1.0, 0.5], &[1, 2, 2]));
    let mut cases: Vec<(&str, f64)> = vec![
        ("constant(1)", 1.0),
        ("2.5", 2.5),
        ("rq(attr0, 1.0, 2.0)", RationalQuadratic::new(1.0, 2.0).value(&0.5, &0.25)),
        ("poly(attr0, 1.0, 2)", Polynomial::new(1.0, 2).value(&0.5, &0.25)),
        ("poly(coords, 1.0, 3)", Polynomial::new(1.0, 3).value(&[0.0, 1.0], &[1.0, 0.5])),
        ("wendland(coords, 2)", CompactPolynomial::new(2.0).value(&[0.0, 1.0], &[1.0, 0.5])),
        ("compact(attr0, 2)", CompactPolynomial::new(2.0).value(&0.5, &0.25)),
        ("0.5 * delta(label, 0.2) + 0.5", 0.6),
        ("normalize(poly(attr1, 1, 2))", normalize(Polynomial::new(1.0, 2)).value(&1.0, &1.3)),
        ("rconv(atoms, delta(0.5))", RConvolution::sum(KroneckerDelta::new(0.5)).value(&vec![1, 3], &vec![1, 2, 2])),
        (
            "rconv(atoms, delta(0.5) * sqexp(2), mean)",
            RConvolution::mean(KroneckerDelta::new(0.5) * SquareExponential::new(2.0))
                .value(&vec![1, 3], &vec![1, 2, 2]),
        ),
        ("sqexp(attr1, 0.1) ^ 2", SquareExponential::new(0.1).value(&1.0, &1.3).powi(2)),
        (
            "delta(label, 0.5) * (constant(2) + sqexp(attr0, 1))",
            0.5 * (2.0 + SquareExponential::new(1.0).value(&0.5, &0.25)),
        ),
        ("SquareExponential(attr0, 1)", SquareExponential::new(1.0).value(&0.5, &0.25)),
        ("delta(\"label\", 0.3)", 0.3),
    ];
    cases.push(("  delta( label ,0.3 )*2  ", 0.6));
    for (spec, want) in cases {
        let k = SpecKernel::parse_for(spec, &s).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert!(close(k.value(&x, &y), want), "{spec}: {} vs {want}", k.value(&x, &y));
        assert!(close(k.value(&x, &y), k.value(&y, &x)));
    }
}

#[test]
fn bounds_syntax() {
    let k = SpecKernel::parse("sqexp(attr1, 0.1, [0.01, 10])").unwrap();
    assert_eq!(k.hyperparameters()[0].bounds, Bounds::Range(0.01, 10.0));
    let k = SpecKernel::parse("delta(label, 0.5, fixed) * constant(2, [1, inf])").unwrap();
    let h = k.hyperparameters();
    assert_eq!(h[0].bounds, Bounds::Fixed);
    assert_eq!(h[1].bounds, Bounds::Range(1.0, f64::INFINITY));
    let k = SpecKernel::parse("rq(attr0, 1, 2, [0.1, 10], fixed)").unwrap();
    let h = k.hyperparameters();
    assert_eq!((h[0].bounds, h[1].bounds), (Bounds::Range(0.1, 10.0), Bounds::Fixed));
    let e = SpecKernel::parse("sqexp(attr1, 0.1, [1, 10])").unwrap_err();
    assert_eq!(e.column, 19, "{e}");
    assert!(e.expected.contains("bounds"), "{e}");
}

/// (spec, column, token) of the error.
#[test]
fn errors_point_at_the_offending_token() {
    let cases: &[(&str, usize, &str, &str)] = &[
        ("delta(label, 1.5)", 14, "`1.5`", "h in [0, 1]"),
        ("delta(label 0.5)", 13, "`0.5`", "`,`"),
        ("delta(0.5)", 7, "`0.5`", "field"),
        ("gauss(x, 1)", 1, "`gauss`", "a kernel"),
        ("delta(label, 0.5) *", 20, "end of input", "a kernel"),
        ("delta(label, 0.5))", 18, "`)`", "end of the spec"),
        ("sqexp(attr1, -1)", 14, "`-1`", "length scale > 0"),
        ("poly(attr0, 1, 2.5)", 16, "`2.5`", "integer degree"),
        ("rconv(atoms, delta(label, 0.5))", 20, "`label`", "h in [0, 1]"),
        ("rconv(atoms, delta(0.5), max)", 26, "`max`", "`sum` or `mean`"),
        ("delta(label, 0.5) $ 2", 19, "`$`", "a kernel"),
        ("(delta(label, 0.5)", 19, "end of input", "`)`"),
        ("sqexp(attr1, 0.1) ^ 0", 21, "`0`", "exponent"),
        ("0 * delta(label, 0.5)", 1, "`0`", "constant > 0"),
        ("delta(\"label, 0.5)", 7, "an unterminated quote", "`\"`"),
        ("", 1, "end of input", "a kernel"),
    ];
    for &(spec, column, found, expected) in cases {
        let e = SpecKernel::parse(spec).expect_err(spec);
        assert_eq!((e.column, e.found.as_str()), (column, found), "{spec}: {e}");
        assert!(e.expected.contains(expected), "{spec}: expected {expected:?} in {e}");
        let msg = e.to_string();
        assert!(msg.contains(&format!("column {column}")) && msg.contains(spec), "{msg}");
    }
}

#[test]
fn bind_errors_name_the_fields() {
    let s = schema();
    let e = SpecKernel::parse_for("delta(labl, 0.5)", &s).unwrap_err().to_string();
    assert!(e.contains("labl") && e.contains("label: int, attr0: float"), "{e}");
    let e = SpecKernel::parse_for("delta(attr0, 0.5)", &s).unwrap_err().to_string();
    assert!(e.contains("attr0") && e.contains("int"), "{e}");
    let e = SpecKernel::parse_for("rconv(label, delta(0.5))", &s).unwrap_err().to_string();
    assert!(e.contains("set"), "{e}");
    let e: kronograph::Error = SpecKernel::parse_for("sqexp(", &s).unwrap_err().into();
    assert!(e.to_string().contains("column 7"), "{e}");
}

#[test]
fn display_round_trips_examples() {
    for spec in [
        "delta(label, 0.5)",
        "delta(label, 0.5) * sqexp(attr1, 0.1)",
        "0.5 * delta(label, 0.2) + 0.5",
        "sqexp(attr1, 0.1, [0.01, 10])",
        "rq(attr0, 1, 2, fixed, [0.5, 4])",
        "normalize(poly(coords, 1, 2)) ^ 2",
        "rconv(atoms, delta(0.5) * (sqexp(1) + 0.5), mean)",
        "delta(label, 0.5) * (2 + sqexp(attr0, 1))",
        "constant(2, [1, 3]) * wendland(coords, 0.5, fixed)",
    ] {
        let k = SpecKernel::parse(spec).unwrap();
        assert_eq!(k.to_string(), spec);
    }
    let k = SpecKernel::parse("1 + (2 + 3)").unwrap();
    assert_eq!(k.to_string(), "1 + (2 + 3)");
    assert_eq!(SpecKernel::parse(&k.to_string()).unwrap(), k);
    let k = SpecKernel::parse("(1 * 2) * 3 + 1 * (2 * 3)").unwrap();
    assert_eq!(k.to_string(), "1 * 2 * 3 + 1 * (2 * 3)");
    let k = SpecKernel::parse("delta(\"bond-type\", 0.5)").unwrap();
    assert_eq!(k.to_string(), "delta(\"bond-type\", 0.5)");
}

fn leaf() -> impl Strategy<Value = String> {
    let fields = prop::sample::select(vec!["attr0", "attr1", "coords"]);
    prop_oneof![
        (0.01f64..5.0).prop_map(|c| format!("{c}")),
        (0.0f64..=1.0).prop_map(|h| format!("delta(label, {h})")),
        (0.0f64..=1.0, 0.0f64..=1.0).prop_map(|(h, lo)| format!("delta(label, {h}, [{}, 1])", lo.min(h))),
        (fields.clone(), 0.01f64..10.0).prop_map(|(f, l)| format!("sqexp({f}, {l})")),
        (fields.clone(), 0.01f64..10.0, 0.1f64..5.0).prop_map(|(f, l, a)| format!("rq({f}, {l}, {a})")),
        (fields.clone(), 0.0f64..2.0, 0u32..5).prop_map(|(f, c, d)| format!("poly({f}, {c}, {d})")),
        (fields, 0.1f64..5.0).prop_map(|(f, r)| format!("wendland({f}, {r}, fixed)")),
        (0.0f64..1.0).prop_map(|h| format!("rconv(atoms, delta({h}) * sqexp(2.5), mean)")),
    ]
}

fn spec_strategy() -> impl Strategy<Value = String> {
    leaf().prop_recursive(3, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} * {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) + ({b})")),
            (inner.clone(), 1u32..4).prop_map(|(a, p)| format!("({a}) ^ {p}")),
            inner.prop_map(|a| format!("normalize({a})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn parse_print_round_trip(spec in spec_strategy()) {
        let k = SpecKernel::parse(&spec).unwrap();
        let printed = k.to_string();
        let again = SpecKernel::parse(&printed).unwrap();
        prop_assert_eq!(&again, &k, "{} printed as {}", spec, printed);
        prop_assert_eq!(again.to_string(), printed);
        let s = schema();
        let (mut k, x, y) = (k, rec(1, 0.5, 1.0, [0.0, 1.0], &[1, 3]), rec(2, 0.25, 1.3, [1.0, 0.5], &[1, 2, 2]));
        k.bind(&s).unwrap();
        let mut again = again;
        again.bind(&s).unwrap();
        prop_assert_eq!(k.value(&x, &y).to_bits(), again.value(&x, &y).to_bits());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// `BaseKernel::table` (children tabled, fields read once, vectorized
    /// `exp`) equals `value` on every pair, to 1e-14 relative.
    #[test]
    fn table_equals_value(
        recs in proptest::collection::vec((0i64..4, -3.0f64..3.0, 0.0f64..1.0, -1.0f64..1.0), 0..12),
        spec in prop::sample::select(vec![
            "delta(label, 0.5) * sqexp(attr1, 0.1)",
            "0.5 * delta(label, 0.2) + 0.5",
            "sqexp(attr0, 0.3) + rq(attr1, 0.5, 2.0) * sqexp(coords, 0.7)",
            "normalize(poly(coords, 1.0, 2)) * wendland(attr1, 2.0)",
            "constant(2) * sqexp(attr0, 1e-3) ^ 2",
            "rconv(atoms, delta(0.5), mean)",
        ]),
    ) {
        let s = schema();
        let k = SpecKernel::parse_for(spec, &s).unwrap();
        let rs: Vec<Record> =
            recs.iter().map(|&(l, a0, a1, c)| rec(l, a0, a1, [c, a1], &[l, l + 1])).collect();
        let refs: Vec<&Record> = rs.iter().collect();
        let (a, b) = refs.split_at(refs.len() / 2);
        let mut t = Vec::new();
        k.table(a, b, &mut t);
        prop_assert_eq!(t.len(), a.len() * b.len());
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                let v = k.value(x, y);
                prop_assert!(close(t[i * b.len() + j], v), "{} vs {} ({})", t[i * b.len() + j], v, spec);
            }
        }
    }
}

#[test]
fn expressions_in_specs_value_gradient_and_round_trip() {
    let s = schema();
    let (a, b) = (rec(1, 0.3, -1.0, [0.0, 1.0], &[]), rec(2, -0.9, 2.0, [1.0, 1.0], &[]));
    let spec = "exp(-abs(x.attr0 - y.attr0) / hyper(h, 0.8, [0.1, 10]))";
    let k = SpecKernel::parse_for(spec, &s).unwrap();
    assert!(close(k.value(&a, &b), (-(0.3f64 - -0.9).abs() / 0.8).exp()), "{}", k.value(&a, &b));
    let hs = k.hyperparameters();
    assert_eq!(hs.len(), 1);
    assert_eq!((hs[0].name.as_str(), hs[0].value, hs[0].bounds), ("h", 0.8, Bounds::Range(0.1, 10.0)));
    let (lo, hi) = k.range();
    assert!(lo >= 0.0 && hi <= 1.0, "a Laplacian's range is within [0, 1]: ({lo}, {hi})");
    // d/d log h of exp(-d/h) = exp(-d/h) d/h
    let mut g = [0.0];
    let v = k.gradient(&a, &b, &mut g);
    assert!(close(g[0], v * 1.2 / 0.8), "{} vs {}", g[0], v * 1.2 / 0.8);
    // printed back as a SPEC that parses to the same kernel
    let printed = k.to_string();
    let again = SpecKernel::parse_for(&printed, &s).unwrap();
    assert_eq!(again.to_string(), printed);
    assert!(close(again.value(&a, &b), k.value(&a, &b)));
    // every operator: - / unary minus, ln, sqrt, precedence
    for (spec, want) in [
        ("x.attr1 - y.attr1 - x.attr0", -1.0 - 2.0 - 0.3),
        ("x.attr1 / y.attr1 / 2", -1.0 / 2.0 / 2.0),
        ("-x.attr1 * y.attr1", 2.0),
        ("ln(x.label + y.label) + sqrt(y.label * 2)", 3f64.ln() + 2.0),
        ("2 - -x.attr0", 2.0 + 0.3),
        ("-(x.attr1 + 1) ^ 2", -0.0),
        ("hyper(w, 2) * delta(label, 0.5)", 1.0),
    ] {
        let k = SpecKernel::parse_for(spec, &s).unwrap();
        assert!(close(k.value(&a, &b), want), "{spec}: {} vs {want}", k.value(&a, &b));
        let again = SpecKernel::parse_for(&k.to_string(), &s).unwrap();
        assert!(close(again.value(&a, &b), want), "{spec} printed as {k}");
    }
    // errors point at the token
    for (spec, want) in [
        ("exp(-abs(x.attr0 - y.attr0) / hyper(h, -1))", "a finite value > 0"),
        ("hyper(h, 2, [3, 4])", "0 < lo <= 2 <= hi"),
        ("x. + 1", "a field name after"),
        ("exp(x.attr0", "`)` to close exp("),
        ("delta(label, 0.5) $ 1", "one of"),
    ] {
        let e = SpecKernel::parse_for(spec, &s).unwrap_err().to_string();
        assert!(e.contains(want), "{spec}: {e}");
    }
    // an unknown field is named when the kernel meets the schema
    assert!(SpecKernel::parse_for("x.nope * y.nope", &s).is_err());
}
