//! One-definition kernels (`basekernel::expr`): values against their
//! formulas, gradients by dual numbers against finite differences (proptest)
//! and against the built-in kernels' analytic ones, ranges, binding errors,
//! `label_struct!` labels, unique hyperparameter paths, and the
//! marginalized graph kernel with an expression kernel against the same
//! kernel composed from built-ins.

use kronograph::basekernel::expr::{constant, hyper, if_eq, x, y};
use kronograph::basekernel::*;
use kronograph::graph::{Direction, FieldKind, GraphBuilder, Label, Record, Schema, Value};
use kronograph::mgk::{MarginalizedGraphKernel, MgkError};
use proptest::prelude::*;
use std::sync::Arc;

kronograph::label_struct! {
    /// A test atom.
    pub struct Atom { pub element: u8, pub charge: f64 }
}

fn laplacian(ell: f64) -> ExprKernel {
    let l = hyper("ell", ell, (1e-2, 1e2));
    ExprKernel::new((-(x("charge") - y("charge")).abs() / l).exp()).unwrap()
}

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new().with("label", FieldKind::Int).with("charge", FieldKind::Float))
}

fn rec(s: &Arc<Schema>, label: i64, charge: f64) -> Record {
    Record::new(s.clone(), [Value::Int(label), Value::Float(charge)]).unwrap()
}

/// A few expressions over `charge` (and `element`/`label`) with their
/// hyperparameters, for the gradient tests.
fn expressions() -> Vec<ExprKernel> {
    let ell = || hyper("ell", 0.7, (1e-2, 1e2));
    let a = || hyper("alpha", 1.3, (1e-2, 1e2));
    let d = || x("charge") - y("charge");
    vec![
        ExprKernel::new((-d().abs() / ell()).exp()).unwrap(),
        ExprKernel::new((-d().square() / (2.0 * ell().square())).exp()).unwrap(),
        ExprKernel::new((1.0 + d().square() / (2.0 * a() * ell().square())).pow(-a())).unwrap(),
        ExprKernel::new(
            if_eq(x("element"), y("element"), constant(1.0), hyper("h", 0.4, (1e-3, 1.0))) * (-d().abs() / ell()).exp(),
        )
        .unwrap(),
        ExprKernel::new((d().abs() + 1.0).sqrt().powf(-1.5) * (ell() / (ell() + 1.0)) + a().ln().abs() * 0.1).unwrap(),
    ]
}

#[test]
fn laplacian_value_range_and_labels() {
    let k = laplacian(0.5);
    let s = schema();
    let (p, q) = (rec(&s, 1, 0.3), rec(&s, 2, -0.2));
    let want = (-0.5f64 / 0.5).exp();
    assert!((k.value(&p, &q) - want).abs() < 1e-15);
    // bound and unbound (by name) agree
    let mut kb = k.clone();
    BaseKernel::<Record>::bind(&mut kb, &s).unwrap();
    assert_eq!(kb.value(&p, &q), k.value(&p, &q));
    // the same kernel on a label_struct and on plain numbers
    let (a, b) = (Atom { element: 1, charge: 0.3 }, Atom { element: 2, charge: -0.2 });
    assert!((k.value(&a, &b) - want).abs() < 1e-15);
    let kx = ExprKernel::new((-(x("value") - y("value")).abs() / hyper("ell", 0.5, (1e-2, 1e2))).exp()).unwrap();
    assert!((kx.value(&0.3f64, &-0.2f64) - want).abs() < 1e-15);
    assert_eq!(BaseKernel::<Record>::range(&k), (0.0, 1.0));
    let hs = BaseKernel::<Record>::hyperparameters(&k);
    assert_eq!(hs.len(), 1);
    assert_eq!(hs[0].name, "ell");
    assert_eq!(hs[0].bounds, Bounds::Range(1e-2, 1e2));
    assert_eq!(a.schema().unwrap().describe(), "element: int, charge: float");
}

#[test]
fn expression_kernels_match_the_built_in_ones() {
    let s = schema();
    let labels: Vec<Record> = (0..6).map(|i| rec(&s, i % 3, (i as f64 * 0.37).sin())).collect();
    let mut built = Field::new("label", KroneckerDelta::new(0.3)) * Field::new("charge", SquareExponential::new(0.8));
    built.bind(&s).unwrap();
    let mut expr = ExprKernel::new(
        if_eq(x("label"), y("label"), constant(1.0), hyper("h", 0.3, (1e-3, 1.0)))
            * (-(x("charge") - y("charge")).square() / (2.0 * hyper("scale", 0.8, (1e-3, 1e3)).square())).exp(),
    )
    .unwrap();
    BaseKernel::<Record>::bind(&mut expr, &s).unwrap();
    for a in &labels {
        for b in &labels {
            let (mut g1, mut g2) = ([0.0; 2], [0.0; 2]);
            let v1 = built.gradient(a, b, &mut g1);
            let v2 = expr.gradient(a, b, &mut g2);
            assert!((v1 - v2).abs() <= 1e-14, "{v1} vs {v2}");
            for t in 0..2 {
                assert!((g1[t] - g2[t]).abs() <= 1e-13, "slot {t}: {} vs {}", g1[t], g2[t]);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// ∂κ/∂log θ by dual numbers equals central differences in log θ.
    #[test]
    fn gradients_match_finite_differences(c1 in -2.0..2.0f64, c2 in -2.0..2.0f64, e1 in 0u8..3, e2 in 0u8..3) {
        let (a, b) = (Atom { element: e1, charge: c1 }, Atom { element: e2, charge: c2 });
        for k in expressions() {
            let n = BaseKernel::<Atom>::num_hyperparameters(&k);
            let mut g = vec![0.0; n];
            let v = k.gradient(&a, &b, &mut g);
            prop_assert!((v - k.value(&a, &b)).abs() <= 1e-14 * (1.0 + v.abs()));
            let theta = BaseKernel::<Atom>::theta(&k);
            for t in 0..n {
                let h = 1e-6;
                let at = |s: f64| {
                    let mut th = theta.clone();
                    th[t] *= s.exp();
                    let mut kk = k.clone();
                    BaseKernel::<Atom>::set_theta(&mut kk, &th).unwrap();
                    kk.value(&a, &b)
                };
                let fd = (at(h) - at(-h)) / (2.0 * h);
                prop_assert!((fd - g[t]).abs() <= 1e-6 * (1.0 + v.abs()), "{}: slot {t}: fd {fd} vs dual {}", k.expr(), g[t]);
            }
        }
    }
}

#[test]
fn default_gradient_is_finite_differences() {
    /// A CPU-only kernel: value, range and its hyperparameter only.
    #[derive(Clone, Debug)]
    struct Lap(f64);
    impl BaseKernel<f64> for Lap {
        fn value(&self, a: &f64, b: &f64) -> f64 {
            (-(a - b).abs() / self.0).exp()
        }
        fn range(&self) -> (f64, f64) {
            (0.0, 1.0)
        }
        fn hyperparameters(&self) -> Vec<Hyperparameter> {
            vec![Hyperparameter::new("ell", self.0, Bounds::Range(1e-2, 1e2))]
        }
        fn set_theta(&mut self, t: &[f64]) -> Result<(), KernelError> {
            self.0 = t[0];
            Ok(())
        }
    }
    let k = Lap(0.5);
    let mut g = [0.0];
    let v = k.gradient(&0.3, &-0.2, &mut g);
    // ∂/∂log ℓ exp(−d/ℓ) = (d/ℓ) exp(−d/ℓ)
    assert!((g[0] - v * 0.5 / 0.5).abs() < 1e-9, "{}", g[0]);
    let e = k.cuda("a", "b", &mut CudaGen::new("float", "theta")).unwrap_err();
    assert!(matches!(e, KernelError::NoCudaForm(ref n) if n.contains("Lap")), "{e}");
}

#[test]
fn names_and_definitions_are_checked() {
    let e = ExprKernel::new(hyper("h", 0.5, (0.1, 1.0)) * hyper("h", 0.6, (0.1, 1.0))).unwrap_err();
    assert!(e.to_string().contains("\"h\" is defined twice"), "{e}");
    let e = ExprKernel::new(hyper("h", 0.0, (0.0, 1.0)) * x("a")).unwrap_err();
    assert!(e.to_string().contains("> 0"), "{e}");
    let e = ExprKernel::new(hyper("h", 2.0, (0.1, 1.0)) * x("a")).unwrap_err();
    assert!(matches!(e, KernelError::OutOfBounds { .. } | KernelError::InvalidParameter(_)), "{e}");
    // one name used twice is one θ
    let k = ExprKernel::new(hyper("h", 0.5, (0.1, 1.0)) * hyper("h", 0.5, (0.1, 1.0))).unwrap();
    assert_eq!(BaseKernel::<f64>::num_hyperparameters(&k), 1);
    let mut g = [0.0];
    assert!((k.gradient(&1.0f64, &2.0, &mut g) - 0.25).abs() < 1e-15);
    assert!((g[0] - 0.5).abs() < 1e-15); // ∂h²/∂log h = 2h²
                                         // binding: a misspelt field and a field of the wrong kind
    let s = Schema::new().with("label", FieldKind::Int).with("coords", FieldKind::Array(3));
    let mut k = ExprKernel::new(if_eq(x("lable"), y("lable"), constant(1.0), hyper("h", 0.5, (0.1, 1.0)))).unwrap();
    let e = BaseKernel::<Record>::bind(&mut k, &s).unwrap_err().to_string();
    assert!(e.contains("lable") && e.contains("label: int"), "{e}");
    let mut k = ExprKernel::new(x("coords") * y("coords")).unwrap();
    let e = BaseKernel::<Record>::bind(&mut k, &s).unwrap_err().to_string();
    assert!(e.contains("coords") && e.contains("int or float"), "{e}");
}

#[test]
fn combined_kernels_have_unique_paths() {
    let k = KroneckerDelta::new(0.5) * KroneckerDelta::new(0.6);
    let names: Vec<String> = BaseKernel::<u8>::hyperparameters(&k).into_iter().map(|h| h.name).collect();
    assert_eq!(names, ["0.h", "1.h"]);
    let mut k2 = k.clone();
    BaseKernel::<u8>::set_hyperparameter(&mut k2, "1.h", 0.25).unwrap();
    assert_eq!(BaseKernel::<u8>::theta(&k2), vec![0.5, 0.25]);
    // no collision: paths stay short
    let k = KroneckerDelta::new(0.5) * SquareExponential::new(1.0);
    let names: Vec<String> = BaseKernel::<u8>::hyperparameters(&k).into_iter().map(|h| h.name).collect();
    assert_eq!(names, ["h", "scale"]);
}

fn atom_graph(charges: &[f64]) -> kronograph::graph::Graph<Atom, Atom> {
    let n = charges.len();
    let nodes: Vec<Atom> =
        charges.iter().enumerate().map(|(i, &c)| Atom { element: (i % 2) as u8, charge: c }).collect();
    let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(nodes);
    for i in 0..n {
        let j = (i + 1) % n;
        if i < j || n > 2 {
            b = b.edge(i, j, 1.0, Atom { element: 0, charge: 0.1 * i as f64 });
        }
    }
    b.build().unwrap()
}

fn graphs() -> Vec<kronograph::graph::Graph<Atom, Atom>> {
    vec![atom_graph(&[0.1, -0.3, 0.5]), atom_graph(&[0.2, 0.0, -0.4, 0.3]), atom_graph(&[1.0, 0.9, -0.2, 0.0, 0.4])]
}

/// A Laplacian node kernel (range [0, 1], no longer refused) in the MGK:
/// values and gradients against the same kernel as a user struct with
/// analytic gradient… here a built-in composition for the Gaussian case.
#[test]
fn mgk_with_an_expression_kernel_matches_a_composed_kernel() {
    let gs = graphs();
    let node_e = ExprKernel::new(
        if_eq(x("element"), y("element"), constant(1.0), hyper("h", 0.4, (1e-3, 1.0)))
            * (-(x("charge") - y("charge")).square() / (2.0 * hyper("scale", 0.8, (1e-3, 1e3)).square())).exp(),
    )
    .unwrap();
    let edge_e = ExprKernel::new((-(x("charge") - y("charge")).abs() / hyper("ell", 0.5, (1e-2, 1e2))).exp()).unwrap();
    let node_c = Project::new("element", |a: &Atom| &a.element, KroneckerDelta::new(0.4))
        * Project::new("charge", |a: &Atom| &a.charge, SquareExponential::new(0.8));
    let edge_c = ExprKernel::new((-(x("charge") - y("charge")).abs() / hyper("ell", 0.5, (1e-2, 1e2))).exp()).unwrap();
    let ke = MarginalizedGraphKernel::new(node_e, edge_e, 0.1).unwrap();
    let kc = MarginalizedGraphKernel::new(node_c, edge_c, 0.1).unwrap();
    let (a, ga) = ke.gram_with_gradient(&gs, false).unwrap();
    let (b, gb) = kc.gram_with_gradient(&gs, false).unwrap();
    assert_eq!(ga.names(), ["node.h", "node.scale", "edge.ell"]);
    for i in 0..gs.len() {
        for j in 0..gs.len() {
            assert!((a.get(i, j) - b.get(i, j)).abs() <= 1e-10 * b.get(i, j));
            for t in 0..3 {
                assert!((ga.get(i, j, t) - gb.get(i, j, t)).abs() <= 1e-9 * b.get(i, j), "{t}");
            }
        }
    }
    // scikit-learn's θ: log of the active hyperparameters, same order as the gradient
    let th = ke.theta_log();
    assert_eq!(th.len(), 3);
    assert!((th[2] - 0.5f64.ln()).abs() < 1e-15);
    let k2 = ke.clone_with_theta(&[th[0], th[1], 0.25f64.ln()]).unwrap();
    assert!((k2.hyperparameter("edge.ell").unwrap().value - 0.25).abs() < 1e-15);
    assert_eq!(ke.bounds_log()[2], (1e-2f64.ln(), 1e2f64.ln()));
    let e = ke.clone().set_hyperparameter("edge.scale", 1.0).unwrap_err().to_string();
    assert!(e.contains("edge.ell"), "{e}");
}

#[test]
fn mgk_binds_record_kernels_itself_and_names_a_missing_field() {
    let s = schema();
    let g = |cs: &[f64]| {
        let n = cs.len();
        let nodes: Vec<Record> = cs.iter().enumerate().map(|(i, &c)| rec(&s, i as i64 % 2, c)).collect();
        let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(nodes);
        for i in 0..n - 1 {
            b = b.edge(i, i + 1, 1.0, ());
        }
        b.build().unwrap()
    };
    let gs = vec![g(&[0.1, 0.2, -0.3]), g(&[0.5, -0.1])];
    // no explicit bind
    let kv = Field::new("label", KroneckerDelta::new(0.5)) * laplacian(0.7);
    let mgk = MarginalizedGraphKernel::new(kv, kronograph::kron::Unlabeled, 0.1).unwrap();
    let k = mgk.gram(&gs).unwrap();
    assert!(k.get(0, 1) > 0.0 && k.get(0, 1).is_finite());
    // a misspelt field is an error naming it and the available fields
    let kv = Field::new("lable", KroneckerDelta::new(0.5)) * laplacian(0.7);
    let mgk = MarginalizedGraphKernel::new(kv, kronograph::kron::Unlabeled, 0.1).unwrap();
    let e = mgk.gram(&gs).unwrap_err();
    assert!(matches!(e, MgkError::Binding { which: "node", .. }), "{e}");
    let e = e.to_string();
    assert!(e.contains("\"lable\"") && e.contains("label: int, charge: float"), "{e}");
}

#[test]
fn node_kernel_ranges_accept_positive_kernels_only() {
    // sqexp as the node kernel: range [0, 1], accepted now
    let kv = Project::new("charge", |a: &Atom| &a.charge, SquareExponential::new(1.0));
    assert!(MarginalizedGraphKernel::<Atom, Atom, _, _>::new(kv, laplacian(1.0), 0.1).is_ok());
    // a kernel with negative values is refused, the hint says what works
    let kv = ExprKernel::new(x("charge") * y("charge")).unwrap();
    let e = MarginalizedGraphKernel::<Atom, Atom, _, _>::new(kv, laplacian(1.0), 0.1).unwrap_err().to_string();
    assert!(e.contains("negative values") && e.contains("exp"), "{e}");
    let kv = ExprKernel::new(constant(2.0) + (-(x("charge") - y("charge")).abs()).exp()).unwrap();
    let e = MarginalizedGraphKernel::<Atom, Atom, _, _>::new(kv, laplacian(1.0), 0.1).unwrap_err().to_string();
    assert!(e.contains("multiply it by 1/3"), "{e}");
}

/// A projection through a function pointer has a type one can name.
#[test]
fn project_fn_is_nameable() {
    type ElementDelta = ProjectFn<Atom, u8, KroneckerDelta>;
    fn element_delta(h: f64) -> ElementDelta {
        Project::new("element", (|a: &Atom| &a.element) as fn(&Atom) -> &u8, KroneckerDelta::new(h))
    }
    let k = element_delta(0.25);
    let (a, b) = (Atom { element: 6, charge: 0.0 }, Atom { element: 8, charge: 0.0 });
    assert_eq!(k.value(&a, &b), 0.25);
    assert_eq!(k.value(&a, &a), 1.0);
}
