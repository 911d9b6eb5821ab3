//! SPEC strings compile to expression kernels (`ExprKernel` with built-in
//! kernel leaves): values, hyperparameter paths and log-θ gradients equal
//! the same kernels composed in Rust from the built-in kernels and
//! combinators, on random labels and hyperparameters (f64, ≤ 1e-12
//! relative); recognized delta / square-exponential subexpressions equal the
//! unrecognized form.

use kronograph::basekernel::expr::{constant, hyper, if_eq, kernel_on, x, y};
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

type Lab = (i64, f64, f64, f64, Vec<i64>);

fn rec(l: &Lab) -> Record {
    let (label, a0, a1, c, atoms) = l;
    Record::new(
        schema(),
        [
            Value::Int(*label),
            Value::Float(*a0),
            Value::Float(*a1),
            Value::Array(SmallVec::from_slice(&[*c, *a1])),
            Value::Set(atoms.iter().copied().collect()),
        ],
    )
    .unwrap()
}

fn lab() -> impl Strategy<Value = Lab> {
    (0i64..3, -2.0f64..2.0, 0.0f64..1.0, -1.0f64..1.0, proptest::collection::vec(0i64..4, 1..4))
}

fn f<K>(name: &str, k: K) -> Field<K> {
    Field::new(name, k)
}

fn rel_close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300) || (a - b).abs() < 1e-300
}

/// Compares the SPEC kernel with the composed one at θ·`scale` on `x`, `y`.
fn check<K: BaseKernel<Record>>(
    spec: &str,
    mut composed: K,
    scale: f64,
    a: &Lab,
    b: &Lab,
) -> Result<(), TestCaseError> {
    let s = schema();
    let mut k = SpecKernel::parse_for(spec, &s).unwrap();
    composed.bind(&s).unwrap();
    let names = |h: Vec<Hyperparameter>| h.into_iter().map(|h| h.name).collect::<Vec<_>>();
    prop_assert_eq!(names(k.hyperparameters()), names(composed.hyperparameters()), "{}", spec);
    // move every trained hyperparameter by `scale`, clamped to its bounds
    let theta: Vec<f64> = k
        .hyperparameters()
        .iter()
        .map(|h| match h.bounds {
            Bounds::Range(lo, hi) => (h.value * scale).clamp(lo, hi),
            Bounds::Fixed => h.value,
        })
        .collect();
    k.set_theta(&theta).unwrap();
    composed.set_theta(&theta).unwrap();
    let (x, y) = (rec(a), rec(b));
    let n = theta.len();
    let (mut g1, mut g2) = (vec![0.0; n], vec![0.0; n]);
    let (v1, v2) = (k.gradient(&x, &y, &mut g1), composed.gradient(&x, &y, &mut g2));
    prop_assert!(rel_close(v1, v2, 1e-12), "{}: value {} vs {}", spec, v1, v2);
    prop_assert!(rel_close(k.value(&x, &y), v2, 1e-12), "{}: value {} vs {}", spec, k.value(&x, &y), v2);
    for (i, (p, q)) in g1.iter().zip(&g2).enumerate() {
        let tol = 1e-12 * (1.0 + g2.iter().fold(0.0f64, |m, g| m.max(g.abs())));
        prop_assert!((p - q).abs() <= tol, "{}: d/dlog θ_{} {} vs {}", spec, i, p, q);
    }
    prop_assert_eq!(k.range(), composed.range(), "{}", spec);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn compiled_specs_equal_the_composed_kernels(a in lab(), b in lab(), scale in 0.3f64..3.0) {
        check("delta(label, 0.5) * sqexp(attr1, 0.1)",
            f("label", KroneckerDelta::new(0.5)) * f("attr1", SquareExponential::new(0.1)), scale, &a, &b)?;
        check("delta(label, 0.5) * delta(label, 0.3)",
            f("label", KroneckerDelta::new(0.5)) * f("label", KroneckerDelta::new(0.3)), scale, &a, &b)?;
        check("0.5 * delta(label, 0.2) + 0.5",
            product(Constant::new(0.5), f("label", KroneckerDelta::new(0.2))) + Constant::new(0.5), scale, &a, &b)?;
        check("(sqexp(attr0, 0.7) + rq(coords, 0.5, 2)) ^ 2",
            power(f("attr0", SquareExponential::new(0.7)) + f("coords", RationalQuadratic::new(0.5, 2.0)), 2.0),
            scale, &a, &b)?;
        check("normalize(poly(coords, 1, 2) + 0.5) * wendland(attr1, 2, fixed)",
            normalize(f("coords", Polynomial::new(1.0, 2)) + Constant::new(0.5))
                * f("attr1", CompactPolynomial::new(2.0).fixed()), scale, &a, &b)?;
        check("rconv(atoms, delta(0.5) * sqexp(2.5), mean) * sqexp(attr0, 1)",
            f("atoms", RConvolution::mean(KroneckerDelta::new(0.5) * SquareExponential::new(2.5)))
                * f("attr0", SquareExponential::new(1.0)), scale, &a, &b)?;
        check("rconv(atoms, normalize(poly(1, 2)))",
            f("atoms", RConvolution::sum(normalize(Polynomial::new(1.0, 2)))), scale, &a, &b)?;
    }

    /// The recognized forms of the delta and the square exponential run the
    /// built-in kernels; values and gradients equal the expression's.
    #[test]
    fn recognized_leaves_equal_the_expression(a in lab(), b in lab(), h in 0.01f64..1.0, l in 0.05f64..5.0) {
        let s = schema();
        let build = |one: Expr| {
            let e = if_eq(x("label"), y("label"), one, hyper("h", h, (1e-3, 1.0)))
                * (-(x("attr0") - y("attr0")).square() / (2.0 * hyper("l", l, (1e-3, 1e3)).square())).exp();
            let mut k = ExprKernel::new(e).unwrap();
            BaseKernel::<Record>::bind(&mut k, &s).unwrap();
            k
        };
        let fused = build(constant(1.0));
        // 0.5 + 0.5 is not the literal 1: no delta is recognized
        let plain = build(constant(0.5) + constant(0.5));
        let (x, y) = (rec(&a), rec(&b));
        let (v1, v2) = (fused.value(&x, &y), plain.value(&x, &y));
        prop_assert!(rel_close(v1, v2, 1e-12), "{} vs {}", v1, v2);
        let (mut g1, mut g2) = (vec![0.0; 2], vec![0.0; 2]);
        fused.gradient(&x, &y, &mut g1);
        plain.gradient(&x, &y, &mut g2);
        for (p, q) in g1.iter().zip(&g2) {
            prop_assert!((p - q).abs() <= 1e-12 * (1.0 + q.abs()), "{} vs {}", p, q);
        }
        // kernel_on is the same built-in kernel
        let mut on = ExprKernel::new(kernel_on("label", KroneckerDelta::new(h)) * kernel_on("attr0", SquareExponential::new(l))).unwrap();
        BaseKernel::<Record>::bind(&mut on, &s).unwrap();
        prop_assert!(rel_close(on.value(&x, &y), v2, 1e-12));
    }
}

#[test]
fn spec_kernels_are_expression_kernels() {
    let k = SpecKernel::parse("delta(label, 0.5) * sqexp(attr1, 0.1)").unwrap();
    let e: ExprKernel = k.clone().into();
    assert_eq!(&e, k.kernel());
    assert_eq!(e.field_names(), ["label", "attr1"]);
    // the one representation prints as the SPEC again
    assert_eq!(k.to_string(), "delta(label, 0.5) * sqexp(attr1, 0.1)");
}

#[test]
fn base_kernels_have_the_log_theta_convention() {
    let s = schema();
    let mut k = SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr1, 0.1, fixed) * rq(attr0, 2, 3)", &s).unwrap();
    let names: Vec<String> = k.active_hyperparameters().into_iter().map(|h| h.name).collect();
    assert_eq!(names, ["label.h", "attr0.scale", "attr0.alpha"]);
    assert_eq!(k.hyperparameter("attr1.scale").map(|h| h.bounds), Some(Bounds::Fixed));
    let t = k.theta_log();
    assert_eq!(t, [0.5f64.ln(), 2f64.ln(), 3f64.ln()]);
    assert_eq!(k.bounds_log()[0], (1e-3f64.ln(), 0.0));
    // gradients in the same order, equal to the full gradient's active entries
    let (x, y) = (rec(&(1, 0.3, 0.2, 0.1, vec![1])), rec(&(2, -0.4, 0.7, 0.5, vec![2])));
    let mut g = vec![0.0; 3];
    let v = k.gradient_log(&x, &y, &mut g);
    let mut full = vec![0.0; 4];
    assert_eq!(v, k.gradient(&x, &y, &mut full));
    assert_eq!(g, [full[0], full[2], full[3]]);
    // round trip, and the fixed one keeps its value
    k.set_theta_log(&[0.25f64.ln(), t[1], t[2]]).unwrap();
    assert!((k.hyperparameter("label.h").unwrap().value - 0.25).abs() < 1e-15);
    assert_eq!(k.hyperparameter("attr1.scale").unwrap().value, 0.1);
    assert!(k.set_theta_log(&[0.0]).is_err());
    // the same on a kernel composed in Rust
    let c = Field::new("label", KroneckerDelta::new(0.5)) * Field::new("attr0", SquareExponential::new(2.0));
    assert_eq!(c.theta_log(), [0.5f64.ln(), 2f64.ln()]);
}

/// After `set_theta` a SPEC kernel prints its new values (scikit-learn's
/// `clone_with_theta` in the Python package relies on it), and the printed
/// SPEC parses back to an equal kernel.
#[test]
fn spec_kernels_print_their_current_hyperparameters() {
    for spec in
        ["delta(label, 0.5)", "0.5 * delta(label, 0.5) * sqexp(attr0, 0.1) + 0.5", "(delta(label, 0.4) + 1) ^ 2"]
    {
        let mut k: SpecKernel = spec.parse().unwrap();
        let theta: Vec<f64> = k
            .hyperparameters()
            .iter()
            .map(|h| if matches!(h.bounds, Bounds::Fixed) { h.value } else { h.value * 0.5 })
            .collect();
        k.set_theta(&theta).unwrap();
        let printed = k.to_string();
        let back: SpecKernel = printed.parse().unwrap_or_else(|e| panic!("{printed}: {e}"));
        let got: Vec<f64> = back.hyperparameters().iter().map(|h| h.value).collect();
        assert_eq!(got, theta, "{spec} printed as {printed}");
        assert_eq!(back.to_string(), printed);
    }
}
