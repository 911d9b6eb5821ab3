//! CUDA forms of the base kernels: well-formed expressions, parameter slots
//! equal to θ (never literals), label structs, and (when libnvrtc can be
//! loaded) compilation with NVRTC.
//!
//! The NVRTC test is skipped when the library is missing, unless
//! `KRONOGRAPH_REQUIRE_GPU=1` or `KRONOGRAPH_REQUIRE_NVRTC=1`.

use kronograph::basekernel::*;
use kronograph::graph::{FieldKind, Record, Schema};

fn schema() -> Schema {
    Schema::new()
        .with("label", FieldKind::Int)
        .with("attr0", FieldKind::Float)
        .with("attr1", FieldKind::Float)
        .with("coords", FieldKind::Array(3))
        .with("atoms", FieldKind::Set)
        .with("bond-type", FieldKind::Int)
        .with("int", FieldKind::Float)
}

/// Hyperparameter values chosen so that none appears by accident in the source.
const SPECS: &[&str] = &[
    "constant(1.2345)",
    "delta(label, 0.3456)",
    "delta(\"bond-type\", 0.3457)",
    "sqexp(attr1, 0.4567)",
    "sqexp(coords, 0.4568)",
    "rq(attr0, 1.5678, 2.6789)",
    "poly(attr0, 1.7891, 2)",
    "poly(coords, 1.7892, 3)",
    "wendland(coords, 2.8912)",
    "wendland(int, 2.8913)",
    "delta(label, 0.3458) * sqexp(attr1, 0.4569)",
    "0.5123 * delta(label, 0.2345) + 0.5124",
    "normalize(poly(coords, 1.7893, 2) + sqexp(attr0, 0.4571))",
    "(delta(label, 0.3459) + constant(0.6123)) ^ 2.0123",
    "rconv(atoms, delta(0.3461))",
    "rconv(atoms, delta(0.3462) * sqexp(1.4573), mean)",
    "normalize(rconv(atoms, rq(1.4574, 2.5123) + wendland(3.1234)))",
    "poly(attr0, 1.7894, 1)",
    "poly(attr0, 1.7895, 0)",
    "delta(label, 0.3466, fixed) * sqexp(attr1, 0.4575)",
    "rq(coords, 1.5676, 2.6786) ^ 1.5123",
    "1.2346 * wendland(attr0, 0.9123)",
    "normalize(rconv(atoms, delta(0.3467) * sqexp(1.4575), mean) * rq(attr1, 1.5675, 2.6785, [0.01, 10], fixed))",
    "exp(-abs(x.attr0 - y.attr0) / hyper(h, 0.8123, [0.1, 10]))",
    "ln(1.1234 + abs(x.int - y.int)) / hyper(c, 2.3457) - sqrt(x.attr1 * y.attr1 + 1.2347) * -0.5125",
];

fn balanced(s: &str) -> bool {
    let mut depth = 0i64;
    for c in s.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// The hyperparameter values as they would be printed as literals.
fn no_literals(source: &str, theta: &[f64]) {
    for t in theta {
        let lit = format!("{t}");
        assert!(!source.contains(&lit), "hyperparameter {lit} appears as a literal in\n{source}");
    }
}

/// A Rust evaluator of a kernel on record labels.
type Eval = Box<dyn Fn(&Record, &Record) -> f64>;

/// A Rust evaluator of κ and its log-θ gradient (`BaseKernel::gradient`).
type GradEval = Box<dyn Fn(&Record, &Record, &mut [f64]) -> f64>;

/// One kernel: its name, value and gradient CUDA functions, θ, and the Rust
/// value and gradient.
struct Case {
    name: String,
    value: CudaFunction,
    grad: CudaFunction,
    theta: Vec<f64>,
    eval: Eval,
    eval_grad: GradEval,
}

fn case<K: BaseKernel<Record> + 'static>(name: &str, id: &str, k: K, real: &str) -> Case {
    let value = cuda_kappa_function(&format!("kappa_{id}"), "NodeLabel", &k, real).unwrap();
    let grad = cuda_gradient_function(&format!("kappa_grad_{id}"), "NodeLabel", &k, real).unwrap();
    let theta = k.theta();
    let k2 = k.clone();
    Case {
        name: name.to_string(),
        value,
        grad,
        theta,
        eval: Box::new(move |x: &Record, y: &Record| k.value(x, y)),
        eval_grad: Box::new(move |x: &Record, y: &Record, g: &mut [f64]| k2.gradient(x, y, g)),
    }
}

/// Every SPEC and two static compositions.
fn cases(real: &str) -> Vec<Case> {
    let s = schema();
    let mut out = Vec::new();
    for (i, spec) in SPECS.iter().enumerate() {
        let k = SpecKernel::parse_for(spec, &s).unwrap();
        out.push(case(spec, &i.to_string(), k, real));
    }
    // Statically composed kernels.
    let mut t = tensor_product((
        Field::new("label", KroneckerDelta::new(0.3463)),
        Field::new("attr0", SquareExponential::new(0.4574)),
        Field::new("coords", RationalQuadratic::new(1.5679, 2.6781)),
    ));
    t.bind(&s).unwrap();
    out.push(case("tensor_product", "tensor", t, real));
    let mut a = Additive::mean((
        Field::new("label", KroneckerDelta::new(0.3464)),
        Field::new("atoms", RConvolution::sum(KroneckerDelta::new(0.3465))),
    ));
    a.bind(&s).unwrap();
    out.push(case("additive", "additive", a, real));
    // A one-definition kernel: every operation of an expression.
    {
        use kronograph::basekernel::expr::{constant, hyper, if_eq, x, y};
        let e = if_eq(x("label"), y("label"), constant(1.0), hyper("h", 0.3471, (1e-3, 1.0)))
            * (-(x("attr0") - y("attr0")).abs() / hyper("ell", 1.4576, (1e-2, 1e2))).exp()
            + 0.25
                * (1.0 + (x("attr1") - y("attr1")).square() / hyper("ell", 1.4576, (1e-2, 1e2))).pow(-hyper(
                    "alpha",
                    2.5124,
                    (1e-2, 1e2),
                ))
            + 0.125 * ((x("int") * y("int")).abs() + 1.0).sqrt().ln() / hyper("c", 3.1235, Bounds::Fixed)
            + if_eq(x("bond-type"), y("bond-type"), hyper("h", 0.3471, (1e-3, 1.0)), constant(0.5)).powf(1.5);
        let mut k = ExprKernel::new(e).unwrap();
        BaseKernel::<Record>::bind(&mut k, &s).unwrap();
        out.push(case("expr", "expr", k, real));
    }
    out
}

/// (name, CUDA function, θ, Rust evaluator) for every SPEC and two static compositions.
fn functions(real: &str) -> Vec<(String, CudaFunction, Vec<f64>, Eval)> {
    cases(real).into_iter().map(|c| (c.name, c.value, c.theta, c.eval)).collect()
}

#[test]
fn expressions_are_balanced_and_read_theta() {
    for real in ["float", "double"] {
        for (name, f, theta, _) in functions(real) {
            assert!(balanced(&f.source), "{name}: unbalanced\n{}", f.source);
            assert!(balanced(&f.expression), "{name}: unbalanced {}", f.expression);
            assert_eq!(f.params, theta, "{name}: parameter slots differ from theta");
            no_literals(&f.source, &theta);
            for i in 0..theta.len() {
                assert!(f.expression.contains(&format!("theta[{i}]")) || f.source.contains(&format!("theta[{i}]")));
            }
            assert!(!f.source.contains(&format!("theta[{}]", theta.len())), "{name}: slot beyond theta");
        }
    }
}

#[test]
fn normalize_reuses_its_slots() {
    let s = schema();
    let k = SpecKernel::parse_for("normalize(sqexp(attr0, 0.5) * delta(label, 0.25))", &s).unwrap();
    let f = cuda_kappa_function("kappa_node", "NodeLabel", &k, "float").unwrap();
    assert_eq!(f.params, vec![0.5, 0.25]);
    assert_eq!(f.expression.matches("theta[0]").count(), 6, "{}", f.expression);
}

#[test]
fn label_struct_layout() {
    let src = cuda_label_struct("NodeLabel", &schema(), "float").unwrap();
    for member in [
        "int32_t label;",
        "float attr0;",
        "float attr1;",
        "float coords[3];",
        "kg_set atoms;",
        "int32_t bond_type;",
        "float int_;",
        "__device__ const int32_t* NodeLabel_set_values;",
    ] {
        assert!(src.contains(member), "{member} missing in\n{src}");
    }
    let src = cuda_label_struct("EdgeLabel", &Schema::new().with("w", FieldKind::Float), "double").unwrap();
    assert!(src.contains("double w;") && !src.contains("set_values"), "{src}");
    assert!(cuda_label_struct("Node Label", &schema(), "float").is_err());
    assert!(cuda_label_struct("NodeLabel", &schema(), "half").is_err());
    let s = Schema::new().with("a-b", FieldKind::Int).with("a_b", FieldKind::Int);
    let src = cuda_label_struct("L", &s, "float").unwrap();
    assert!(src.contains("int32_t a_b;") && src.contains("int32_t a_b_1;"), "{src}");
    let mut k = Field::new("a_b", KroneckerDelta::new(0.5));
    k.bind(&s).unwrap();
    let f = cuda_kappa_function("kappa_node", "L", &k, "float").unwrap();
    assert!(f.expression.contains("a.a_b_1"), "{}", f.expression);
}

#[test]
fn project_uses_member_names() {
    #[derive(Clone, Debug)]
    struct Atom {
        element: u8,
        charge: f32,
    }
    let k = Project::new("element", |a: &Atom| &a.element, KroneckerDelta::new(0.5))
        * Project::new("charge", |a: &Atom| &a.charge, SquareExponential::new(1.25));
    let mut cg = CudaGen::new("float", "theta");
    let e = k.cuda("x", "y", &mut cg).unwrap();
    assert!(e.contains("x.element") && e.contains("y.charge"), "{e}");
    assert_eq!(cg.params(), &[0.5, 1.25]);
    let _ = Atom { element: 6, charge: 0.0 };
}

#[cfg(feature = "cuda")]
#[test]
fn nvrtc_compiles_every_generated_function() {
    let required = ["KRONOGRAPH_REQUIRE_GPU", "KRONOGRAPH_REQUIRE_NVRTC"]
        .iter()
        .any(|v| std::env::var(v).map(|s| s == "1").unwrap_or(false));
    // SAFETY: only tries to dlopen the library by its usual names.
    let present = unsafe { cudarc::nvrtc::sys::is_culib_present() };
    if !present {
        assert!(!required, "libnvrtc cannot be loaded but KRONOGRAPH_REQUIRE_GPU/NVRTC=1");
        eprintln!("skipped: libnvrtc not found (put its folder on LD_LIBRARY_PATH)");
        return;
    }
    for real in ["float", "double"] {
        let mut src = cuda_label_struct("NodeLabel", &schema(), real).unwrap();
        src += "struct Atom { unsigned char element; float charge; };\n";
        let mut calls = String::new();
        // The value and the gradient functions, side by side in one source.
        for c in cases(real) {
            src += &c.value.source;
            src += &c.grad.source;
            calls += &format!("  acc += {}(x[0], x[1], theta);\n", c.value.name);
            calls += &format!("  acc += {}(x[0], x[1], theta, out + 1);\n", c.grad.name);
        }
        // A user struct through Project.
        let user = Project::new("element", |a: &Atom| &a.element, KroneckerDelta::new(0.5))
            * Project::new("charge", |a: &Atom| &a.charge, SquareExponential::new(1.25));
        let mut cg = CudaGen::new(if real == "float" { "float" } else { "double" }, "theta");
        let e = user.cuda("u[0]", "u[1]", &mut cg).unwrap();
        // Its gradient through the lower-level form, at a slot offset.
        let body = cuda_gradient_body(&user, "u[0]", "u[1]", "theta", "g", 1, &mut cg).unwrap();
        // And a kernel without hyperparameters.
        let same = SameElement { reserve: false };
        let body0 = cuda_gradient_body(&same, "u[0]", "u[1]", "theta", "g", 3, &mut cg).unwrap();
        src += &cg.helpers().concat();
        src += &format!("__device__ {real} kg_user_grad(const Atom* u, const {real}* theta, {real}* g) {{\n{body}}}\n");
        src +=
            &format!("__device__ {real} kg_same_grad(const Atom* u, const {real}* theta, {real}* g) {{\n{body0}}}\n");
        src += &format!(
            "extern \"C\" __global__ void kg_test(const NodeLabel* x, const Atom* u, const {real}* theta, {real}* out) {{\n  \
             {real} acc = 0;\n{calls}  acc += {e};\n  acc += kg_user_grad(u, theta, out + 1);\n  \
             acc += kg_same_grad(u, theta, out + 1);\n  \
             out[threadIdx.x] = acc;\n}}\n"
        );
        let _ = Atom { element: 0, charge: 0.0 };
        let opts = cudarc::nvrtc::CompileOptions { arch: Some("compute_90"), ..Default::default() };
        match cudarc::nvrtc::compile_ptx_with_opts(&src, opts) {
            Ok(ptx) => assert!(ptx.to_src().contains("kg_test")),
            Err(e) => panic!("NVRTC ({real}) failed: {e:?}\n--- source ---\n{src}"),
        }
    }
}

/// Labels for the host tests: the Rust records, the C initializers of
/// `NodeLabel`s and the concatenated set elements.
fn host_labels(n: usize) -> (Vec<Record>, Vec<String>, Vec<i64>) {
    use kronograph::graph::Value;
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;
    let s = Arc::new(schema());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let mut labels = Vec::new();
    let (mut c_labels, mut set_values) = (Vec::new(), Vec::<i64>::new());
    for _ in 0..n {
        let (label, a0, a1) =
            (rng.random_range(0..3i64), rng.random_range(-1.0..1.0f64), rng.random_range(-1.0..1.0f64));
        let coords: [f64; 3] = [rng.random(), rng.random(), rng.random()];
        let mut set: Vec<i64> = (0..rng.random_range(0..4)).map(|_| rng.random_range(0..3)).collect();
        set.sort_unstable();
        let (bond, int) = (rng.random_range(0..2i64), rng.random_range(0.0..2.0f64));
        c_labels.push(format!(
            "{{{label}, {a0:?}, {a1:?}, {{{:?}, {:?}, {:?}}}, {{{}, {}}}, {bond}, {int:?}}}",
            coords[0],
            coords[1],
            coords[2],
            set_values.len(),
            set.len()
        ));
        set_values.extend(&set);
        labels.push(
            Record::new(
                s.clone(),
                [
                    Value::Int(label),
                    Value::Float(a0),
                    Value::Float(a1),
                    Value::Array(coords.iter().copied().collect()),
                    Value::Set(set.into_iter().collect()),
                    Value::Int(bond),
                    Value::Float(int),
                ],
            )
            .unwrap(),
        );
    }
    (labels, c_labels, set_values)
}

/// Compiles `functions` (sources of `double` functions) with a `main` that
/// runs `calls` (each with the labels `L[0..n]` in scope) with the host C++
/// compiler (`$CXX`, else `c++`, `__device__` defined away) and returns the
/// output; `None` when no C++ compiler runs.
fn run_on_host(functions: &str, n: usize, c_labels: &[String], set_values: &[i64], calls: &str) -> Option<String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if std::process::Command::new(&cxx).arg("--version").output().is_err() {
        eprintln!("skipped: no C++ compiler ({cxx})");
        return None;
    }
    let mut src = "#include <cmath>\n#include <cstdio>\n#define __device__\n\
                   using std::exp; using std::pow; using std::sqrt; using std::log; using std::fabs;\n"
        .to_string();
    src += &cuda_label_struct("NodeLabel", &schema(), "double").unwrap();
    src += functions;
    src += &format!(
        "int main() {{\n  static const int32_t sv[] = {{{}0}};\n  NodeLabel_set_values = sv;\n  \
         const NodeLabel L[{n}] = {{{}}};\n{calls}  return 0;\n}}\n",
        set_values.iter().map(|v| format!("{v}, ")).collect::<String>(),
        c_labels.join(", ")
    );
    let dir = tempfile::tempdir().unwrap();
    let (cpp, exe) = (dir.path().join("k.cpp"), dir.path().join("k"));
    std::fs::write(&cpp, &src).unwrap();
    let out = std::process::Command::new(&cxx).arg("-O1").arg("-o").arg(&exe).arg(&cpp).output().unwrap();
    assert!(out.status.success(), "{}\n--- source ---\n{src}", String::from_utf8_lossy(&out.stderr));
    let run = std::process::Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    Some(String::from_utf8(run.stdout).unwrap())
}

/// The C initializer of θ (a trailing 0 keeps it non-empty).
fn c_theta(theta: &[f64]) -> String {
    format!("{{{}0}}", theta.iter().map(|v| format!("{v:?}, ")).collect::<String>())
}

/// The generated `double` code, compiled for the host by a C++ compiler
/// (`$CXX`, else `c++`) with `__device__` defined away, computes the same
/// values as the Rust kernels. Skipped when no C++ compiler runs.
#[test]
fn generated_code_matches_rust_on_the_host() {
    let n = 6;
    let (labels, c_labels, set_values) = host_labels(n);
    let fs = functions("double");
    let (mut sources, mut calls) = (String::new(), String::new());
    for (i, (_, f, theta, _)) in fs.iter().enumerate() {
        sources += &f.source;
        calls += &format!(
            "  {{ const double t[] = {};\n    for (int i = 0; i < {n}; ++i) for (int j = 0; j < {n}; ++j)\n      \
             printf(\"{i} %d %d %.17g\\n\", i, j, {}(L[i], L[j], t)); }}\n",
            c_theta(theta),
            f.name
        );
    }
    let Some(text) = run_on_host(&sources, n, &c_labels, &set_values, &calls) else {
        return;
    };
    let mut checked = 0;
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (f, i, j): (usize, usize, usize) = (w[0].parse().unwrap(), w[1].parse().unwrap(), w[2].parse().unwrap());
        let got: f64 = w[3].parse().unwrap();
        let want = (fs[f].3)(&labels[i], &labels[j]);
        assert!(
            (got - want).abs() <= 1e-12 * (1.0 + want.abs()),
            "{}: C++ {got} vs Rust {want} on labels {i}, {j}",
            fs[f].0
        );
        checked += 1;
    }
    assert_eq!(checked, fs.len() * n * n);
}

/// The generated `double` gradient functions (`cuda_gradient_function`),
/// compiled for the host, agree with the Rust `gradient` on every slot and
/// label pair: |C++ − Rust| ≤ 1e-10 · max(|Rust|, |κ(a, b)|) per entry,
/// i.e. relative 1e-10, measured against κ where an entry is far smaller
/// than κ (∂κ/∂log θ is κ times a log-derivative; where that cancels, as
/// α ∂κ/∂α of the rational quadratic for close labels, both sides carry
/// rounding errors of the order of ε·κ). The value they return agrees with
/// `value` to 1e-12 · (1 + |value|), as the value functions do.
/// Skipped when no C++ compiler runs.
#[test]
fn generated_gradients_match_rust_on_the_host() {
    let n = 6;
    let (labels, c_labels, set_values) = host_labels(n);
    let cs = cases("double");
    let (mut sources, mut calls) = (String::new(), String::new());
    for (i, c) in cs.iter().enumerate() {
        sources += &c.grad.source;
        let m = c.theta.len();
        calls += &format!(
            "  {{ const double t[] = {};\n    for (int i = 0; i < {n}; ++i) for (int j = 0; j < {n}; ++j) {{\n      \
             double g[{}];\n      for (int k = 0; k < {}; ++k) g[k] = -12345.0;\n      \
             double v = {}(L[i], L[j], t, g);\n      printf(\"{i} %d %d %.17g\", i, j, v);\n      \
             for (int k = 0; k < {}; ++k) printf(\" %.17g\", g[k]);\n      printf(\"\\n\"); }} }}\n",
            c_theta(&c.theta),
            m + 1,
            m + 1,
            c.grad.name,
            m + 1
        );
    }
    let Some(text) = run_on_host(&sources, n, &c_labels, &set_values, &calls) else {
        return;
    };
    let (mut checked, mut nonzero) = (0, 0);
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (f, i, j): (usize, usize, usize) = (w[0].parse().unwrap(), w[1].parse().unwrap(), w[2].parse().unwrap());
        let c = &cs[f];
        let got: Vec<f64> = w[3..].iter().map(|x| x.parse().unwrap()).collect();
        let m = c.theta.len();
        assert_eq!(got.len(), m + 2, "{}: {line}", c.name);
        let want_value = (c.eval)(&labels[i], &labels[j]);
        let mut want = vec![f64::NAN; m];
        let want_value2 = (c.eval_grad)(&labels[i], &labels[j], &mut want);
        assert!((want_value - want_value2).abs() <= 1e-12 * (1.0 + want_value.abs()), "{}", c.name);
        assert!(
            (got[0] - want_value).abs() <= 1e-12 * (1.0 + want_value.abs()),
            "{}: C++ value {} vs Rust {want_value} on labels {i}, {j}",
            c.name,
            got[0]
        );
        for k in 0..m {
            let (g, w) = (got[1 + k], want[k]);
            assert!(
                (g - w).abs() <= 1e-10 * w.abs().max(want_value.abs()),
                "{}: slot {k} ({}): C++ {g} vs Rust {w} on labels {i}, {j}",
                c.name,
                c.theta[k]
            );
            nonzero += (w != 0.0) as usize;
        }
        assert_eq!(got[1 + m], -12345.0, "{}: wrote past its slots", c.name);
        checked += 1;
    }
    assert_eq!(checked, cs.len() * n * n);
    assert!(nonzero > checked, "too few non-zero gradient entries ({nonzero}) to test anything");
}

/// A user kernel without hyperparameters (κ = 1 when the `element`s are
/// equal, else 1/2), or, with `reserve`, one whose CUDA form reserves a slot
/// it does not list.
#[derive(Clone, Debug)]
struct SameElement {
    reserve: bool,
}

#[derive(Clone, Debug)]
struct Atom {
    element: u8,
    charge: f32,
}

impl BaseKernel<Atom> for SameElement {
    fn value(&self, a: &Atom, b: &Atom) -> f64 {
        if a.element == b.element {
            1.0
        } else {
            0.5
        }
    }
    fn range(&self) -> (f64, f64) {
        (0.5, 1.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        Vec::new()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        if theta.is_empty() {
            Ok(())
        } else {
            Err(KernelError::ThetaLength { expected: 0, found: theta.len() })
        }
    }
    fn gradient(&self, a: &Atom, b: &Atom, _: &mut [f64]) -> f64 {
        self.value(a, b)
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let half = if self.reserve { cg.param(0.5) } else { cg.lit(0.5) };
        Ok(format!("({a}.element == {b}.element ? {} : {half})", cg.lit(1.0)))
    }
}

#[test]
fn gradient_of_a_kernel_without_hyperparameters_and_of_a_wrong_one() {
    let mut cg = CudaGen::new("double", "theta");
    let body = cuda_gradient_body(&SameElement { reserve: false }, "x", "y", "theta", "g", 2, &mut cg).unwrap();
    assert!(!body.contains("theta[") && !body.contains("g["), "{body}");
    assert!(body.contains("return kg_k.v;"), "{body}");
    let e = cuda_gradient_body(&SameElement { reserve: true }, "x", "y", "theta", "g", 0, &mut cg).unwrap_err();
    assert!(matches!(e, KernelError::InvalidParameter(_)), "{e}");
    let (c, o) = (Atom { element: 6, charge: -0.1 }, Atom { element: 8, charge: -0.1 });
    assert_eq!((SameElement { reserve: false }.value(&c, &o), c.charge), (0.5, o.charge));
}

/// The gradient functions read θ from the parameter array only and write
/// every slot of the gradient, no other.
#[test]
fn gradient_functions_read_theta_and_write_every_slot() {
    for real in ["float", "double"] {
        for c in cases(real) {
            let f = &c.grad;
            assert!(balanced(&f.source), "{}: unbalanced\n{}", c.name, f.source);
            assert!(balanced(&f.expression), "{}: unbalanced {}", c.name, f.expression);
            assert_eq!(f.params, c.theta, "{}", c.name);
            no_literals(&f.source, &c.theta);
            assert!(f.source.contains(&format!(
                "__device__ inline {real} {}(const NodeLabel& a, const NodeLabel& b, const {real}* theta, {real}* grad)",
                f.name
            )));
            for k in 0..c.theta.len() {
                assert!(f.source.contains(&format!("theta[{k}]")), "{}: slot {k} not read", c.name);
                assert_eq!(f.source.matches(&format!("grad[{k}] = ")).count(), 1, "{}: slot {k}", c.name);
            }
            assert!(!f.source.contains(&format!("theta[{}]", c.theta.len())), "{}: slot beyond theta", c.name);
            assert!(!f.source.contains(&format!("grad[{}]", c.theta.len())), "{}: slot beyond theta", c.name);
        }
    }
    // A slot offset (as for the edge kernel of the graph kernel): reads and
    // writes slots first .. first + n only.
    let s = schema();
    let k = SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr0, 0.25, fixed)", &s).unwrap();
    let mut cg = CudaGen::new("float", "theta");
    let body = cuda_gradient_body(&k, "a", "b", "th", "g", 3, &mut cg).unwrap();
    assert!(body.contains("th[3]") && body.contains("th[4]") && !body.contains("th[2]") && !body.contains("th[5]"));
    assert!(body.contains("g[3] = kg_k.d[0];") && body.contains("g[4] = (float)0;"), "{body}");
    assert!(cg.params().is_empty(), "the value generator's slots are untouched");
    assert!(cg.helpers().iter().any(|h| h.contains("struct kg_dual_f")));
}
