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

/// (name, CUDA function, θ, Rust evaluator) for every SPEC and two static compositions.
fn functions(real: &str) -> Vec<(String, CudaFunction, Vec<f64>, Eval)> {
    let s = schema();
    let mut out = Vec::new();
    for (i, spec) in SPECS.iter().enumerate() {
        let k = SpecKernel::parse_for(spec, &s).unwrap();
        let f = cuda_kappa_function(&format!("kappa_{i}"), "NodeLabel", &k, real).unwrap();
        let theta = k.theta();
        out.push((spec.to_string(), f, theta, Box::new(move |x: &Record, y: &Record| k.value(x, y)) as Eval));
    }
    // Statically composed kernels.
    let mut t = tensor_product((
        Field::new("label", KroneckerDelta::new(0.3463)),
        Field::new("attr0", SquareExponential::new(0.4574)),
        Field::new("coords", RationalQuadratic::new(1.5679, 2.6781)),
    ));
    t.bind(&s).unwrap();
    let f = cuda_kappa_function("kappa_tensor", "NodeLabel", &t, real).unwrap();
    let theta = BaseKernel::<Record>::theta(&t);
    out.push(("tensor_product".into(), f, theta, Box::new(move |x: &Record, y: &Record| t.value(x, y))));
    let mut a = Additive::mean((
        Field::new("label", KroneckerDelta::new(0.3464)),
        Field::new("atoms", RConvolution::sum(KroneckerDelta::new(0.3465))),
    ));
    a.bind(&s).unwrap();
    let f = cuda_kappa_function("kappa_additive", "NodeLabel", &a, real).unwrap();
    let theta = BaseKernel::<Record>::theta(&a);
    out.push(("additive".into(), f, theta, Box::new(move |x: &Record, y: &Record| a.value(x, y))));
    out
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
    let mut gen = CudaGen::new("float", "theta");
    let e = k.cuda("x", "y", &mut gen).unwrap();
    assert!(e.contains("x.element") && e.contains("y.charge"), "{e}");
    assert_eq!(gen.params(), &[0.5, 1.25]);
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
        for (_, f, _, _) in functions(real) {
            src += &f.source;
            calls += &format!("  acc += {}(x[0], x[1], theta);\n", f.name);
        }
        // A user struct through Project.
        #[derive(Clone, Debug)]
        struct Atom {
            element: u8,
            charge: f32,
        }
        let user = Project::new("element", |a: &Atom| &a.element, KroneckerDelta::new(0.5))
            * Project::new("charge", |a: &Atom| &a.charge, SquareExponential::new(1.25));
        let mut gen = CudaGen::new(if real == "float" { "float" } else { "double" }, "theta");
        let e = user.cuda("u[0]", "u[1]", &mut gen).unwrap();
        src += &gen.helpers().concat();
        src += &format!(
            "extern \"C\" __global__ void kg_test(const NodeLabel* x, const Atom* u, const {real}* theta, {real}* out) {{\n  \
             {real} acc = 0;\n{calls}  acc += {e};\n  out[threadIdx.x] = acc;\n}}\n"
        );
        let _ = Atom { element: 0, charge: 0.0 };
        let opts = cudarc::nvrtc::CompileOptions { arch: Some("compute_90"), ..Default::default() };
        match cudarc::nvrtc::compile_ptx_with_opts(&src, opts) {
            Ok(ptx) => assert!(ptx.to_src().contains("kg_test")),
            Err(e) => panic!("NVRTC ({real}) failed: {e:?}\n--- source ---\n{src}"),
        }
    }
}

/// The generated `double` code, compiled for the host by a C++ compiler
/// (`$CXX`, else `c++`) with `__device__` defined away, computes the same
/// values as the Rust kernels. Skipped when no C++ compiler runs.
#[test]
fn generated_code_matches_rust_on_the_host() {
    use kronograph::graph::Value;
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if std::process::Command::new(&cxx).arg("--version").output().is_err() {
        eprintln!("skipped: no C++ compiler ({cxx})");
        return;
    }
    let s = Arc::new(schema());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let n = 6;
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
    let mut src =
        "#include <cmath>\n#include <cstdio>\n#define __device__\nusing std::exp; using std::pow; using std::sqrt;\n"
            .to_string();
    src += &cuda_label_struct("NodeLabel", &s, "double").unwrap();
    let fs = functions("double");
    let mut main = format!(
        "int main() {{\n  static const int32_t sv[] = {{{}0}};\n  NodeLabel_set_values = sv;\n  \
         const NodeLabel L[{n}] = {{{}}};\n",
        set_values.iter().map(|v| format!("{v}, ")).collect::<String>(),
        c_labels.join(", ")
    );
    for (i, (_, f, theta, _)) in fs.iter().enumerate() {
        src += &f.source;
        main += &format!(
            "  {{ const double t[] = {{{}0}};\n    for (int i = 0; i < {n}; ++i) for (int j = 0; j < {n}; ++j)\n      \
             printf(\"{i} %d %d %.17g\\n\", i, j, {}(L[i], L[j], t)); }}\n",
            theta.iter().map(|v| format!("{v:?}, ")).collect::<String>(),
            f.name
        );
    }
    src += &main;
    src += "  return 0;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let (cpp, exe) = (dir.path().join("k.cpp"), dir.path().join("k"));
    std::fs::write(&cpp, &src).unwrap();
    let out = std::process::Command::new(&cxx).arg("-O1").arg("-o").arg(&exe).arg(&cpp).output().unwrap();
    assert!(out.status.success(), "{}\n--- source ---\n{src}", String::from_utf8_lossy(&out.stderr));
    let run = std::process::Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    let text = String::from_utf8(run.stdout).unwrap();
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
