//! Whole tables of kernel values (`BaseKernel::table`, what the marginalized
//! graph kernel computes once per pair of graphs) against the scalar
//! definition `value`, pair by pair: the vectorized square exponential and
//! Kronecker delta on record values (numbers of one kind, mixed kinds, NaN,
//! arrays; few and many label classes) and SPEC kernels evaluated row by row.
//!
//! Tolerance: tables run `basekernel`'s branch-free `exp`, within 1e-15
//! relative of `f64::exp` (0 below e^−708); everything else is exact.

use kronograph::basekernel::*;
use kronograph::graph::{FieldKind, Record, Schema, Value};
use proptest::prelude::*;
use smallvec::SmallVec;
use std::sync::Arc;

/// `t` (a table entry) against `v` (the scalar value).
fn agrees(t: f64, v: f64) -> bool {
    (t.is_nan() && v.is_nan()) || (t - v).abs() <= 1e-15 * v.abs() + 1e-300
}

fn check_table<T: ?Sized, K: BaseKernel<T>>(k: &K, a: &[&T], b: &[&T], exact: bool) -> Result<(), TestCaseError> {
    let mut t = vec![f64::NAN; 3]; // stale content must not leak
    k.table(a, b, &mut t);
    prop_assert_eq!(t.len(), a.len() * b.len());
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            let (got, want) = (t[i * b.len() + j], k.value(x, y));
            if exact {
                prop_assert!(got.to_bits() == want.to_bits(), "({i}, {j}): {got} vs {want}");
            } else {
                prop_assert!(agrees(got, want), "({i}, {j}): {got} vs {want}");
            }
        }
    }
    Ok(())
}

/// Record values: mostly floats, or ints, with NaN, mixed kinds and arrays
/// now and then.
fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => (-2.0f64..2.0).prop_map(Value::Float),
        4 => (0i64..40).prop_map(Value::Int),
        1 => Just(Value::Float(f64::NAN)),
        1 => proptest::collection::vec(-1.0f64..1.0, 1..3).prop_map(|v| Value::Array(SmallVec::from_vec(v))),
    ]
}

/// Lists of one kind (floats only or ints only) most of the time.
fn values() -> impl Strategy<Value = Vec<Value>> {
    prop_oneof![
        proptest::collection::vec((-2.0f64..2.0).prop_map(Value::Float), 0..50),
        proptest::collection::vec((0i64..6).prop_map(Value::Int), 0..50),
        proptest::collection::vec((0i64..60).prop_map(Value::Int), 0..70),
        proptest::collection::vec(value(), 0..30),
    ]
}

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new().with("label", FieldKind::Int).with("attr1", FieldKind::Float))
}

fn records(labels: Vec<(i64, f64)>) -> Vec<Record> {
    let s = schema();
    labels.into_iter().map(|(l, x)| Record::new(s.clone(), [Value::Int(l), Value::Float(x)]).unwrap()).collect()
}

fn record_lists() -> impl Strategy<Value = (Vec<Record>, Vec<Record>)> {
    (1i64..45).prop_flat_map(|classes| {
        let rec = (0..classes, -1.5f64..1.5);
        (
            proptest::collection::vec(rec.clone(), 0..60).prop_map(records),
            proptest::collection::vec(rec, 0..60).prop_map(records),
        )
    })
}

/// `for_each_row` hands out the rows of `table` in order, bit for bit
/// (row by row for SPEC kernels, from the whole table by default).
fn check_rows<K: BaseKernel<Record>>(k: &K, a: &[&Record], b: &[&Record]) -> Result<(), TestCaseError> {
    let mut table = Vec::new();
    k.table(a, b, &mut table);
    let (mut rows, mut next, mut buf) = (Vec::new(), 0, vec![7.0; 3]);
    k.for_each_row(a, b, &mut buf, &mut |i, r| {
        assert_eq!((i, r.len()), (next, b.len()), "rows in order, |b| values each");
        next += 1;
        rows.extend_from_slice(r);
    });
    prop_assert_eq!(next, a.len());
    prop_assert_eq!(
        rows.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        table.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Square exponential and Kronecker delta tables on record values.
    #[test]
    fn leaf_tables_match_values(a in values(), b in values(), scale in 0.05f64..3.0, h in 0.0f64..=1.0) {
        let (ra, rb): (Vec<&Value>, Vec<&Value>) = (a.iter().collect(), b.iter().collect());
        check_table(&SquareExponential::new(scale), &ra, &rb, false)?;
        check_table(&KroneckerDelta::new(h), &ra, &rb, true)?;
        // on plain numbers too
        let (fa, fb): (Vec<f64>, Vec<f64>) = (a.iter().map(|_| 0.5).collect(), b.iter().map(|_| -0.25).collect());
        let (xa, xb): (Vec<&f64>, Vec<&f64>) = (fa.iter().collect(), fb.iter().collect());
        check_table(&SquareExponential::new(scale), &xa, &xb, false)?;
        check_table(&KroneckerDelta::new(h), &xa, &xb, true)?;
    }

    /// SPEC kernels (evaluated row by row) against their values, and the
    /// reference edge kernel against the same kernel composed in Rust: the
    /// same bits.
    #[test]
    fn spec_tables_match_values((a, b) in record_lists(), h in 0.0f64..=1.0, scale in 0.05f64..2.0) {
        let s = schema();
        let (ra, rb): (Vec<&Record>, Vec<&Record>) = (a.iter().collect(), b.iter().collect());
        for spec in [
            format!("delta(label, {h}) * sqexp(attr1, {scale})"),
            format!("delta(label, {h}) + 2 * sqexp(attr1, {scale})"),
            format!("sqexp(attr1, {scale}) * (constant(2) + delta(label, {h})) * delta(label, 0.5)"),
            format!("rq(attr1, {scale}, 2) * delta(label, {h})"),
        ] {
            let k = SpecKernel::parse_for(&spec, &s).unwrap();
            check_table(&k, &ra, &rb, false)?;
            check_rows(&k, &ra, &rb)?;
        }
        let spec = SpecKernel::parse_for(&format!("delta(label, {h}) * sqexp(attr1, {scale})"), &s).unwrap();
        let mut rust = Field::new("label", KroneckerDelta::new(h)) * Field::new("attr1", SquareExponential::new(scale));
        rust.bind(&s).unwrap();
        check_rows(&rust, &ra, &rb)?;
        let (mut ts, mut tr) = (Vec::new(), Vec::new());
        spec.table(&ra, &rb, &mut ts);
        rust.table(&ra, &rb, &mut tr);
        prop_assert_eq!(ts.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), tr.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    }
}
