//! Base kernels: values against their formulas, symmetry, ranges, positive
//! semi-definiteness, gradients against finite differences, bounds, f32.

use kronograph::basekernel::*;
use kronograph::graph::{FieldKind, Record, Schema, Value};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smallvec::SmallVec;
use std::sync::Arc;

// ------------------------------------------------------------- helpers

/// Symmetry, range, f32 agreement and positive semi-definiteness on `labels`.
fn check_kernel<T: ?Sized, K: BaseKernel<T>>(name: &str, k: &K, labels: &[&T], psd: bool) {
    let n = labels.len();
    let (lo, hi) = k.range();
    assert!(lo <= hi, "{name}: range ({lo}, {hi})");
    let mut gram = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let v = k.value(labels[i], labels[j]);
            let w = k.value(labels[j], labels[i]);
            assert!(v.is_finite(), "{name}: value {v}");
            assert!((v - w).abs() <= 1e-12 * (1.0 + v.abs()), "{name}: not symmetric: {v} vs {w}");
            let tol = 1e-12 * (1.0 + v.abs());
            assert!(v >= lo - tol && v <= hi + tol, "{name}: value {v} outside its range ({lo}, {hi})");
            let v32 = k.value_f32(labels[i], labels[j]) as f64;
            assert!((v32 - v).abs() <= 2e-5 * (1.0 + v.abs()), "{name}: f32 {v32} vs f64 {v}");
            gram[i * n + j] = v;
        }
    }
    if psd {
        assert_psd(name, &gram, n);
    }
}

/// Cholesky of G + εI with a small relative jitter: fails iff G has an
/// eigenvalue below about −ε.
fn assert_psd(name: &str, g: &[f64], n: usize) {
    let scale = (0..n).map(|i| g[i * n + i].abs()).fold(1e-300, f64::max);
    let jitter = 1e-9 * scale;
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = g[j * n + j] + jitter;
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        assert!(d > 0.0, "{name}: Gram matrix not positive semi-definite (pivot {d} at {j})");
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = g[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
}

/// Gradient against central differences in log θ.
fn check_gradient<T: ?Sized, K: BaseKernel<T>>(name: &str, k: &K, a: &T, b: &T) -> Result<(), TestCaseError> {
    let theta = k.theta();
    let m = k.num_hyperparameters();
    prop_assert_eq!(m, theta.len());
    prop_assert_eq!(m, k.hyperparameters().len());
    let mut grad = vec![f64::NAN; m];
    let v = k.gradient(a, b, &mut grad);
    prop_assert!(
        (v - k.value(a, b)).abs() <= 1e-12 * (1.0 + v.abs()),
        "{}: gradient's value {} vs {}",
        name,
        v,
        k.value(a, b)
    );
    let eps = 1e-6;
    let hs = k.hyperparameters();
    for i in 0..m {
        if !hs[i].is_active() {
            prop_assert_eq!(grad[i], 0.0, "{}: fixed {} has a gradient", name, &hs[i].name);
            continue;
        }
        let eval = |s: f64| {
            let mut t = theta.clone();
            t[i] *= s.exp();
            let mut kk = k.clone();
            kk.set_theta(&t).expect("perturbed theta within bounds");
            kk.value(a, b)
        };
        let fd = (eval(eps) - eval(-eps)) / (2.0 * eps);
        prop_assert!(
            (fd - grad[i]).abs() <= 1e-6 * (1.0 + grad[i].abs()),
            "{}: d/dlog {} analytic {} vs finite difference {}",
            name,
            k.hyperparameters()[i].name,
            grad[i],
            fd
        );
    }
    Ok(())
}

fn schema() -> Arc<Schema> {
    Arc::new(
        Schema::new()
            .with("label", FieldKind::Int)
            .with("x", FieldKind::Float)
            .with("v", FieldKind::Array(3))
            .with("s", FieldKind::Set),
    )
}

fn record(schema: &Arc<Schema>, label: i64, x: f64, v: [f64; 3], s: &[i64]) -> Record {
    let mut set: SmallVec<[i64; 4]> = s.iter().copied().collect();
    set.sort_unstable();
    Record::new(
        schema.clone(),
        [Value::Int(label), Value::Float(x), Value::Array(SmallVec::from_slice(&v)), Value::Set(set)],
    )
    .unwrap()
}

fn random_records(n: usize, seed: u64) -> Vec<Record> {
    let s = schema();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let len = rng.random_range(0..4);
            let set: Vec<i64> = (0..len).map(|_| rng.random_range(0..4)).collect();
            record(
                &s,
                rng.random_range(0..3),
                rng.random_range(-1.5..1.5),
                [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)],
                &set,
            )
        })
        .collect()
}

// ------------------------------------------------------------- values

#[test]
fn values_match_the_formulas() {
    let (x, y) = (0.3f64, -0.5f64);
    let d2 = (x - y) * (x - y);
    assert_eq!(Constant::new(0.7).value(&x, &y), 0.7);
    assert_eq!(KroneckerDelta::new(0.3).value(&1u8, &1u8), 1.0);
    assert_eq!(KroneckerDelta::new(0.3).value(&1u8, &2u8), 0.3);
    assert_eq!(KroneckerDelta::new(0.3).value("ab", "ab"), 1.0);
    let se = SquareExponential::new(0.8);
    assert!((se.value(&x, &y) - (-d2 / (2.0 * 0.64)).exp()).abs() < 1e-15);
    let rq = RationalQuadratic::new(0.8, 1.5);
    assert!((rq.value(&x, &y) - (1.0 + d2 / (2.0 * 1.5 * 0.64)).powf(-1.5)).abs() < 1e-15);
    let poly = Polynomial::new(1.0, 3);
    assert!((poly.value(&x, &y) - (x * y + 1.0).powi(3)).abs() < 1e-15);
    let a = [1.0, 2.0, 0.5];
    let b = [0.5, -1.0, 2.0];
    assert!((poly.value(&a, &b) - (0.5f64 - 2.0 + 1.0 + 1.0).powi(3)).abs() < 1e-12);
    let w = CompactPolynomial::new(2.0);
    let r = 0.8f64 / 2.0;
    assert!((w.value(&x, &y) - (1.0 - r).powi(4) * (4.0 * r + 1.0)).abs() < 1e-15);
    assert_eq!(w.value(&0.0, &2.5), 0.0);
    assert_eq!(w.value(&1.0, &1.0), 1.0);
    // Integers and f32 labels.
    assert!((se.value(&3i32, &5i32) - (-4.0f64 / 1.28).exp()).abs() < 1e-15);
    assert!((se.value(&3.0f32, &5.0f32) - (-4.0f64 / 1.28).exp()).abs() < 1e-15);
    // Combinators.
    let k = KroneckerDelta::new(0.5) * SquareExponential::new(0.8);
    assert!((k.value(&x, &y) - 0.5 * se.value(&x, &y)).abs() < 1e-15);
    let k = 0.5 * KroneckerDelta::new(0.2) + 0.5;
    assert!((k.value(&1, &2) - 0.6).abs() < 1e-15);
    assert_eq!(BaseKernel::<i32>::range(&k), (0.6, 1.0));
    let k = SquareExponential::new(0.8).pow(2.0);
    assert!((k.value(&x, &y) - se.value(&x, &y).powi(2)).abs() < 1e-15);
    let k = Polynomial::new(1.0, 2).normalized();
    let expect = (x * y + 1.0).powi(2) / ((x * x + 1.0) * (y * y + 1.0));
    assert!((k.value(&x, &y) - expect).abs() < 1e-15);
    assert!((k.value(&x, &x) - 1.0).abs() < 1e-15);
    // R-convolution: sum and mean over element pairs.
    let rc = RConvolution::sum(KroneckerDelta::new(0.25));
    let (a, b) = (vec![1, 2], vec![2, 3, 4]);
    assert!((rc.value(&a, &b) - (1.0 + 5.0 * 0.25)).abs() < 1e-15);
    let rm = RConvolution::mean(KroneckerDelta::new(0.25));
    assert!((rm.value(&a, &b) - (1.0 + 5.0 * 0.25) / 6.0).abs() < 1e-15);
    assert_eq!(rm.value(&a, &vec![]), 0.0);
    assert_eq!(rc.value(&a[..], &b[..]), rc.value(&a, &b));
}

#[test]
fn record_fields_and_paths() {
    let s = schema();
    let a = record(&s, 1, 0.5, [0.0, 1.0, 2.0], &[1, 2]);
    let b = record(&s, 2, -0.5, [1.0, 1.0, 2.0], &[2]);
    let mut k = tensor_product((
        Field::new("label", KroneckerDelta::new(0.3)),
        SquareExponential::new(1.0).on_field("x"),
        Field::new("v", RationalQuadratic::new(1.0, 2.0)),
        Field::new("s", RConvolution::sum(KroneckerDelta::new(0.5))),
    ));
    let unbound = k.value(&a, &b);
    k.bind(&s).unwrap();
    let v = k.value(&a, &b);
    assert_eq!(v, unbound, "binding only resolves positions");
    let expect = 0.3 * (-0.5f64).exp() * (1.0 + 1.0 / 4.0f64).powf(-2.0) * (0.5 + 1.0);
    assert!((v - expect).abs() < 1e-14, "{v} vs {expect}");
    let names: Vec<String> = k.hyperparameters().into_iter().map(|h| h.name).collect();
    assert_eq!(names, ["label.h", "x.scale", "v.scale", "v.alpha", "s.h"]);
    k.set_hyperparameter("x.scale", 2.0).unwrap();
    assert_eq!(k.theta()[1], 2.0);
    let e = k.set_hyperparameter("y.scale", 2.0).unwrap_err();
    assert!(e.to_string().contains("label.h, x.scale"), "{e}");
    let e = k.set_hyperparameter("x.scale", -2.0).unwrap_err();
    assert!(matches!(&e, KernelError::OutOfBounds { name, .. } if name == "x.scale"), "{e}");

    let add =
        Additive::mean((Field::new("label", KroneckerDelta::new(0.3)), Field::new("x", SquareExponential::new(1.0))));
    assert!((add.value(&a, &b) - 0.5 * (0.3 + (-0.5f64).exp())).abs() < 1e-15);
    assert_eq!(add.range(), (0.15, 1.0));
}

#[test]
fn bind_reports_unknown_fields_and_wrong_kinds() {
    let s = schema();
    let mut k = Field::new("charge", SquareExponential::new(1.0));
    let e = k.bind(&s).unwrap_err().to_string();
    assert!(e.contains("\"charge\"") && e.contains("label: int, x: float, v: float[3], s: set"), "{e}");
    let mut k = Field::new("x", KroneckerDelta::new(0.5));
    let e = k.bind(&s).unwrap_err().to_string();
    assert!(e.contains("\"x\"") && e.contains("float") && e.contains("int"), "{e}");
    let mut k = Field::new("s", SquareExponential::new(1.0));
    assert!(k.bind(&s).is_err());
    let mut k = Field::new("label", RConvolution::sum(KroneckerDelta::new(0.5)));
    assert!(k.bind(&s).is_err());
    let big = Schema::new().with("p", FieldKind::Array(4));
    assert!(Field::new("p", CompactPolynomial::new(1.0)).bind(&big).is_err());
    let mut k = Field::new("v", CompactPolynomial::new(1.0) * SquareExponential::new(1.0));
    k.bind(&s).unwrap();
}

#[test]
fn bounds_are_checked() {
    assert!(KroneckerDelta::try_new(1.5).is_err());
    assert!(KroneckerDelta::try_new(-0.1).is_err());
    assert!(SquareExponential::try_new(0.0).is_err());
    assert!(SquareExponential::try_new(f64::NAN).is_err());
    assert!(RationalQuadratic::try_new(1.0, -1.0).is_err());
    assert!(Constant::try_new(0.0).is_err());
    assert!(Polynomial::try_new(-1.0, 2).is_err());
    assert!(CompactPolynomial::try_new(f64::INFINITY).is_err());
    assert!(Scaled::try_new(0.0, Constant::new(1.0)).is_err());
    assert!(Power::try_new(Constant::new(1.0), -2.0).is_err());
    // Default bounds contain the initial value.
    let h = <KroneckerDelta as BaseKernel<i64>>::hyperparameters(&KroneckerDelta::new(0.0));
    assert_eq!(h[0].bounds, Bounds::Range(0.0, 1.0));

    let mut k = SquareExponential::new(1.0).with_bounds(Bounds::Range(0.5, 2.0)).unwrap();
    assert!(SquareExponential::new(1.0).with_bounds(Bounds::Range(2.0, 3.0)).is_err());
    assert!(SquareExponential::new(1.0).with_bounds(Bounds::Range(2.0, 0.5)).is_err());
    assert!(SquareExponential::new(1.0).with_bounds(Bounds::Range(-1.0, 2.0)).is_err());
    let e = BaseKernel::<f64>::set_theta(&mut k, &[3.0]).unwrap_err();
    assert_eq!(e, KernelError::OutOfBounds { name: "scale".into(), value: 3.0, bounds: Bounds::Range(0.5, 2.0) });
    assert!(matches!(
        BaseKernel::<f64>::set_theta(&mut k, &[1.0, 2.0]),
        Err(KernelError::ThetaLength { expected: 1, found: 2 })
    ));
    BaseKernel::<f64>::set_theta(&mut k, &[2.0]).unwrap();
    assert_eq!(k.scale(), 2.0);

    // A failing composite set_theta changes nothing.
    let mut p = KroneckerDelta::new(0.5) * SquareExponential::new(1.0);
    let before = p.clone();
    assert!(BaseKernel::<f64>::set_theta(&mut p, &[0.25, -1.0]).is_err());
    assert_eq!(p, before);
    BaseKernel::<f64>::set_theta(&mut p, &[0.25, 3.0]).unwrap();
    assert_eq!(BaseKernel::<f64>::theta(&p), vec![0.25, 3.0]);

    // Fixed hyperparameters accept any value in their domain and have zero gradient.
    let f = KroneckerDelta::new(0.5).fixed() * SquareExponential::new(1.0);
    let h = BaseKernel::<i64>::hyperparameters(&f);
    assert!(!h[0].is_active() && h[1].is_active());
    let mut g = [f64::NAN; 2];
    f.gradient(&1, &3, &mut g);
    assert_eq!(g[0], 0.0);
    assert!(g[1] > 0.0);
}

#[test]
fn ranges_compose() {
    let d = KroneckerDelta::new(0.2);
    let c = Constant::new(2.0);
    assert_eq!(BaseKernel::<i64>::range(&(d * c)), (0.4, 2.0));
    assert_eq!(BaseKernel::<i64>::range(&(d + c)), (2.2, 3.0));
    assert_eq!(BaseKernel::<i64>::range(&(3.0 * d)), (0.6000000000000001, 3.0));
    assert_eq!(BaseKernel::<i64>::range(&power(d, 2.0)), (0.04000000000000001, 1.0));
    assert_eq!(BaseKernel::<f64>::range(&normalize(Polynomial::new(1.0, 3))), (-1.0, 1.0));
    assert_eq!(BaseKernel::<f64>::range(&normalize(Polynomial::new(1.0, 2))), (0.0, 1.0));
    assert_eq!(BaseKernel::<i64>::range(&normalize(d + c)), (2.2 / 3.0, 1.0));
    assert_eq!(BaseKernel::<Vec<i64>>::range(&RConvolution::sum(d)), (0.0, f64::INFINITY));
    assert_eq!(BaseKernel::<Vec<i64>>::range(&RConvolution::mean(d)), (0.0, 1.0));
    assert_eq!(BaseKernel::<f64>::range(&Polynomial::new(1.0, 3)), (f64::NEG_INFINITY, f64::INFINITY));
    assert_eq!(BaseKernel::<f64>::range(&power(Polynomial::new(1.0, 3), 2.0)), (0.0, f64::INFINITY));
}

// ------------------------------------------------ properties on samples

#[test]
fn scalar_kernels_are_symmetric_in_range_and_psd() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let xs: Vec<f64> = (0..14).map(|_| rng.random_range(-2.0..2.0)).collect();
    let l: Vec<&f64> = xs.iter().collect();
    check_kernel("constant", &Constant::new(0.7), &l, true);
    check_kernel("sqexp", &SquareExponential::new(0.8), &l, true);
    check_kernel("rq", &RationalQuadratic::new(0.8, 1.5), &l, true);
    check_kernel("poly", &Polynomial::new(1.0, 3), &l, true);
    check_kernel("wendland", &CompactPolynomial::new(1.5), &l, true);
    check_kernel("product", &(SquareExponential::new(0.8) * RationalQuadratic::new(2.0, 0.5)), &l, true);
    check_kernel("sum", &(SquareExponential::new(0.8) + 0.5 * CompactPolynomial::new(1.0)), &l, true);
    check_kernel("power", &power(RationalQuadratic::new(1.0, 1.0), 3.0), &l, true);
    check_kernel("normalize", &normalize(Polynomial::new(0.5, 4)), &l, true);
    let ints: Vec<i32> = (0..14).map(|_| rng.random_range(0..4)).collect();
    let li: Vec<&i32> = ints.iter().collect();
    check_kernel("delta", &KroneckerDelta::new(0.3), &li, true);
    check_kernel("delta*sqexp", &(KroneckerDelta::new(0.3) * SquareExponential::new(2.0)), &li, true);
    let arrays: Vec<[f64; 3]> = (0..14)
        .map(|_| [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)])
        .collect();
    let la: Vec<&[f64; 3]> = arrays.iter().collect();
    check_kernel("sqexp[3]", &SquareExponential::new(0.8), &la, true);
    check_kernel("wendland[3]", &CompactPolynomial::new(1.2), &la, true);
    check_kernel("poly[3]", &Polynomial::new(1.0, 2), &la, true);
    let sets: Vec<Vec<i64>> =
        (0..14).map(|_| (0..rng.random_range(0..5)).map(|_| rng.random_range(0..4)).collect()).collect();
    let ls: Vec<&Vec<i64>> = sets.iter().collect();
    check_kernel("rconv sum", &RConvolution::sum(KroneckerDelta::new(0.3)), &ls, true);
    check_kernel("rconv mean", &RConvolution::mean(SquareExponential::new(1.0)), &ls, true);
}

#[test]
fn record_kernels_are_symmetric_in_range_and_psd() {
    let s = schema();
    let records = random_records(16, 11);
    let l: Vec<&Record> = records.iter().collect();
    let specs = [
        "delta(label, 0.5)",
        "delta(label, 0.5) * sqexp(x, 0.7)",
        "0.5 * delta(label, 0.2) + 0.5",
        "rq(x, 0.5, 2.0) * sqexp(v, 1.0)",
        "normalize(poly(v, 1.0, 2))",
        "poly(x, 0.5, 3)",
        "wendland(v, 1.5) + wendland(x, 1.0)",
        "rconv(s, delta(0.3))",
        "rconv(s, delta(0.3) * sqexp(1.0), mean)",
        "normalize(rconv(s, delta(0.2)))",
        "(delta(label, 0.4) + constant(0.5)) ^ 2",
        "normalize(sqexp(x, 1.0) + delta(label, 0.1))",
    ];
    for spec in specs {
        let k = SpecKernel::parse_for(spec, &s).unwrap();
        check_kernel(spec, &k, &l, true);
    }
}

// ------------------------------------------------------------- gradients

type GradientCheck = Box<dyn Fn(f64, f64) -> Result<(), TestCaseError>>;
type ValuePair = Box<dyn Fn(&f64, &f64) -> (f64, f32)>;

fn scalar_kernels(p: &[f64]) -> Vec<(&'static str, GradientCheck)> {
    let (a, b, c, d) = (p[0], p[1], p[2], p[3]);
    macro_rules! g {
        ($name:literal, $k:expr) => {{
            let k = $k;
            ($name, Box::new(move |x: f64, y: f64| check_gradient($name, &k, &x, &y)) as GradientCheck)
        }};
    }
    vec![
        g!("constant", Constant::new(a)),
        g!("sqexp", SquareExponential::new(a)),
        g!("rq", RationalQuadratic::new(a, b)),
        g!("poly", Polynomial::new(c, 3)),
        g!("wendland", CompactPolynomial::new(a + 0.5)),
        g!("product", SquareExponential::new(a) * RationalQuadratic::new(b, c)),
        g!("sum", SquareExponential::new(a) + Constant::new(d)),
        g!("scaled", d * RationalQuadratic::new(a, b)),
        g!("power", power(SquareExponential::new(a), b).with_bounds(Bounds::Range(1e-3, 1e3)).unwrap()),
        g!("normalize", normalize(Polynomial::new(c, 2) + SquareExponential::new(a))),
        g!("normalize poly", normalize(Polynomial::new(c, 3))),
        g!("tensor", tensor_product((SquareExponential::new(a), Constant::new(d), RationalQuadratic::new(b, c)))),
        g!("additive", Additive::mean((SquareExponential::new(a), CompactPolynomial::new(b + 1.0)))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn gradients_match_finite_differences(
        p in prop::array::uniform4(0.2f64..3.0),
        x in -2.0f64..2.0,
        y in -2.0f64..2.0,
    ) {
        for (_, check) in scalar_kernels(&p) {
            check(x, y)?;
        }
    }

    #[test]
    fn delta_and_rconv_gradients(h in 0.05f64..0.95, l in 0.3f64..3.0, a in 0i64..3, b in 0i64..3,
                                 sa in prop::collection::vec(0i64..4, 0..4), sb in prop::collection::vec(0i64..4, 0..4)) {
        check_gradient("delta", &KroneckerDelta::new(h), &a, &b)?;
        check_gradient("delta*sqexp", &(KroneckerDelta::new(h) * SquareExponential::new(l)), &a, &b)?;
        check_gradient("rconv", &RConvolution::sum(KroneckerDelta::new(h) * SquareExponential::new(l)), &sa, &sb)?;
        check_gradient("rconv mean", &RConvolution::mean(KroneckerDelta::new(h)), &sa, &sb)?;
        check_gradient("normalize rconv", &normalize(RConvolution::sum(KroneckerDelta::new(h))), &sa, &sb)?;
    }

    #[test]
    fn record_gradients(seed in 0u64..1000, h in 0.05f64..0.95, l in 0.3f64..3.0) {
        let s = schema();
        let r = random_records(2, seed);
        let specs = [
            format!("delta(label, {h}) * sqexp(x, {l})"),
            format!("0.5 * delta(label, {h}) + rq(v, {l}, 1.5)"),
            format!("normalize(poly(v, {l}, 2) * delta(label, {h}))"),
            format!("rconv(s, delta({h}) + sqexp({l}), mean) * wendland(x, {})", l + 1.0),
            format!("(sqexp(v, {l}) + constant({h})) ^ 3"),
        ];
        for spec in &specs {
            let k = SpecKernel::parse_for(spec, &s).unwrap();
            check_gradient(spec, &k, &r[0], &r[1])?;
        }
    }

    #[test]
    fn random_hyperparameters_stay_psd(
        p in prop::array::uniform4(0.2f64..3.0),
        h in 0.0f64..=1.0,
        xs in prop::collection::vec(-2.0f64..2.0, 2..10),
        ls in prop::collection::vec(0i64..3, 2..10),
        sets in prop::collection::vec(prop::collection::vec(0i64..4, 0..4), 2..8),
    ) {
        let l: Vec<&f64> = xs.iter().collect();
        check_kernel("sqexp", &SquareExponential::new(p[0]), &l, true);
        check_kernel("rq", &RationalQuadratic::new(p[0], p[1]), &l, true);
        check_kernel("wendland", &CompactPolynomial::new(p[2]), &l, true);
        check_kernel("normalize poly", &normalize(Polynomial::new(p[3], 3)), &l, true);
        check_kernel("scaled sum", &(p[1] * SquareExponential::new(p[0]) + p[2]), &l, true);
        let li: Vec<&i64> = ls.iter().collect();
        check_kernel("delta", &KroneckerDelta::new(h), &li, true);
        check_kernel("delta^3", &KroneckerDelta::new(h).pow(3.0), &li, true);
        let lsets: Vec<&Vec<i64>> = sets.iter().collect();
        check_kernel("rconv", &RConvolution::mean(KroneckerDelta::new(h) * SquareExponential::new(p[0])), &lsets, true);
    }

    #[test]
    fn f32_agrees_with_f64(p in prop::array::uniform4(0.2f64..3.0), x in -2.0f64..2.0, y in -2.0f64..2.0) {
        let ks: Vec<ValuePair> = vec![
            Box::new(move |a, b| { let k = SquareExponential::new(p[0]); (k.value(a, b), k.value_f32(a, b)) }),
            Box::new(move |a, b| { let k = RationalQuadratic::new(p[0], p[1]); (k.value(a, b), k.value_f32(a, b)) }),
            Box::new(move |a, b| { let k = normalize(Polynomial::new(p[2], 3)); (k.value(a, b), k.value_f32(a, b)) }),
            Box::new(move |a, b| { let k = CompactPolynomial::new(p[3]); (k.value(a, b), k.value_f32(a, b)) }),
            Box::new(move |a, b| { let k = p[1] * SquareExponential::new(p[0]) + p[2]; (k.value(a, b), k.value_f32(a, b)) }),
        ];
        for k in ks {
            let (v, v32) = k(&x, &y);
            prop_assert!((v32 as f64 - v).abs() <= 1e-5 * (1.0 + v.abs()), "{} vs {}", v32, v);
        }
    }
}
