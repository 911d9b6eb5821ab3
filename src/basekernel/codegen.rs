//! CUDA code generation for record labels: the label struct of a [`Schema`]
//! and the `__device__` function κ(a, b) of a kernel.

use super::{BaseKernel, CudaGen, KernelError};
use crate::graph::{FieldKind, Record, Schema};

const C_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "asm",
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "constexpr",
    "const_cast",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "nullptr",
    "operator",
    "or",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "real",
    "theta",
];

/// A field name made a C identifier: characters other than ASCII letters,
/// digits and `_` become `_`, a leading digit (or an empty name) gets a `_`
/// before it, and C++ keywords (and `real`, `theta`) get a `_` after them.
///
/// ```
/// use kronograph::basekernel::c_identifier;
/// assert_eq!(c_identifier("attr0"), "attr0");
/// assert_eq!(c_identifier("bond-order"), "bond_order");
/// assert_eq!(c_identifier("3d"), "_3d");
/// assert_eq!(c_identifier("int"), "int_");
/// ```
pub fn c_identifier(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if C_KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// The C identifiers of a schema's fields, in order: [`c_identifier`], with
/// `_<position>` appended where two names would collide.
pub(crate) fn schema_identifiers(schema: &Schema) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(schema.len());
    for (i, (name, _)) in schema.fields().enumerate() {
        let mut id = c_identifier(name);
        if out.contains(&id) {
            id = format!("{id}_{i}");
        }
        out.push(id);
    }
    out
}

/// Registers the preamble (see [`cuda_preamble`]) as a helper.
pub(crate) fn types_helper(cg: &mut CudaGen) {
    cg.helper(&cuda_preamble());
}

/// The types the generated code uses, guarded so it can appear more than
/// once: `int32_t` (as `int`, which it is on every CUDA target; NVRTC has no
/// `<cstdint>`) and
///
/// ```c
/// struct kg_set { int32_t offset; int32_t length; };
/// ```
///
/// the label member of a [`FieldKind::Set`] field: the set's elements are
/// `values[offset .. offset + length]` of one global `int32_t` array.
pub fn cuda_preamble() -> String {
    "#ifndef KG_BASEKERNEL_TYPES\n#define KG_BASEKERNEL_TYPES\ntypedef int int32_t;\n\
     struct kg_set { int32_t offset; int32_t length; };\n#endif\n"
        .to_string()
}

/// The C struct of the labels of `schema`, named `name`, with the preamble
/// ([`cuda_preamble`]) before it:
///
/// | field kind | member |
/// | --- | --- |
/// | `Int` | `int32_t <field>;` |
/// | `Float` | `real <field>;` |
/// | `Array(k)` | `real <field>[k];` |
/// | `Set` | `kg_set <field>;` (offset and length into `<name>_set_values`) |
///
/// where `real` is `float` or `double` and `<field>` the field name made a C
/// identifier ([`c_identifier`], made unique). When the schema has a set
/// field, a `__device__ const int32_t* <name>_set_values;` follows: the
/// backend writes the device address of the concatenated set elements of all
/// labels there (`cuModuleGetGlobal`) before launching.
///
/// # Errors
/// [`KernelError::InvalidParameter`] when `real` is not `float` or `double`,
/// or `name` is not a C identifier.
pub fn cuda_label_struct(name: &str, schema: &Schema, real: &str) -> Result<String, KernelError> {
    check_real(real)?;
    check_ident(name)?;
    let mut s = cuda_preamble();
    s += &format!("struct {name} {{\n");
    for ((_, kind), id) in schema.fields().zip(schema_identifiers(schema)) {
        s += &match kind {
            FieldKind::Int => format!("  int32_t {id};\n"),
            FieldKind::Float => format!("  {real} {id};\n"),
            FieldKind::Array(k) => format!("  {real} {id}[{}];\n", k.max(1)),
            FieldKind::Set => format!("  kg_set {id};\n"),
        };
    }
    s += "};\n";
    if schema.fields().any(|(_, k)| k == FieldKind::Set) {
        s += &format!("__device__ const int32_t* {name}_set_values;\n");
    }
    Ok(s)
}

/// The generated CUDA form of a kernel: a `__device__` function and the
/// parameter values it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct CudaFunction {
    /// The function name.
    pub name: String,
    /// Helper functions, then the function itself.
    pub source: String,
    /// The expression of κ(a, b) alone (inside `source`).
    pub expression: String,
    /// The values of `theta[0..]` at generation time: the kernel's θ, in the
    /// order of [`BaseKernel::theta`]. Upload `kernel.theta()` after training
    /// steps; the source does not change.
    pub params: Vec<f64>,
}

/// Assembles the `__device__` function
///
/// ```c
/// __device__ real <fn_name>(const <label_struct>& a, const <label_struct>& b, const real* theta)
/// ```
///
/// (with `real` spelled `float` or `double`) that returns κ(a, b), preceded
/// by the helpers it uses; include it after [`cuda_label_struct`]'s output.
/// Bind the kernel to the schema first (so field names map to the struct
/// members). Typical use: `cuda_kappa_function("kappa_node", "NodeLabel", &k, "float")`.
///
/// # Errors
/// [`KernelError::NoCudaForm`] from a kernel without one;
/// [`KernelError::InvalidParameter`] for a `real` other than `float`/`double`
/// or names that are not C identifiers.
pub fn cuda_kappa_function<K: BaseKernel<Record>>(
    fn_name: &str,
    label_struct: &str,
    kernel: &K,
    real: &str,
) -> Result<CudaFunction, KernelError> {
    let (real, mut cg) = function_gen(fn_name, label_struct, real)?;
    let expression = kernel.cuda("a", "b", &mut cg)?;
    let mut source = cg.helpers().concat();
    source += &format!(
        "__device__ inline {real} {fn_name}(const {label_struct}& a, const {label_struct}& b, const {real}* theta) {{\n  \
         (void)a; (void)b; (void)theta;\n  return {expression};\n}}\n"
    );
    Ok(CudaFunction { name: fn_name.to_string(), source, expression, params: cg.params().to_vec() })
}

/// The C++ statements that evaluate κ(a, b) and its gradient with respect to
/// the logarithms of the kernel's hyperparameters, by forward-mode automatic
/// differentiation of the kernel's own CUDA form: the expression of
/// [`BaseKernel::cuda`], evaluated with the parameter array typed as dual
/// numbers ([`cuda_dual_helper`](super::cuda_dual_helper)). Slot k of the
/// kernel (k = 0 … n−1, n = [`num_hyperparameters`](BaseKernel::num_hyperparameters),
/// in the order of [`hyperparameters`](BaseKernel::hyperparameters)) is read
/// from `<theta>[first + k]` and seeded with value θ_k and tangent θ_k·e_j
/// (j counting the trained slots only), so that tangent j is
/// ∂κ/∂(log θ_k) = θ_k ∂κ/∂θ_k, exact up to rounding.
///
/// The statements, to be the whole body of a function returning `real`:
///
/// ```c
/// const kg_dual_f<D> kg_t[n] = { kg_dual_seed_f<D>(theta[first + 0], 0), kg_dual_f<D>(theta[first + 1]), ... };
/// const kg_dual_f<D> kg_k(<κ(a, b) on kg_t>);
/// grad[first + 0] = kg_k.d[0];
/// grad[first + 1] = (float)0;   // a fixed hyperparameter
/// ...
/// return kg_k.v;
/// ```
///
/// `a`, `b` are C expressions of the two labels, `theta` and `grad` the names
/// of a `const real*` and a `real*` in scope; the statements read
/// `theta[first .. first + n]` and write exactly `grad[first .. first + n]`
/// (both indexed by global slot, so a node kernel at `first = 0` and an edge
/// kernel at `first = n_node` share one θ and one gradient array).
/// Fixed hyperparameters get gradient 0, as in [`BaseKernel::gradient`], and
/// no tangent: D is the number of trained hyperparameters (at least 1), and
/// the cost is about D + 1 times the value's.
///
/// `cg` is the *value* generator ([`CudaGen::new`]) of the source the
/// statements go into: the dual type and every helper they use are added to
/// its helpers (identical ones kept once, all guarded), its slots are not
/// touched, and its `set_values` is used for set-valued fields.
///
/// # Errors
/// [`KernelError::NoCudaForm`] from a kernel without a CUDA form;
/// [`KernelError::InvalidParameter`] when the kernel's CUDA form reserves a
/// different number of slots than it has hyperparameters (a user kernel
/// whose [`cuda`](BaseKernel::cuda) and
/// [`hyperparameters`](BaseKernel::hyperparameters) disagree).
pub fn cuda_gradient_body<T: ?Sized, K: BaseKernel<T>>(
    kernel: &K,
    a: &str,
    b: &str,
    theta: &str,
    grad: &str,
    first: usize,
    cg: &mut CudaGen,
) -> Result<String, KernelError> {
    gradient_parts(kernel, a, b, theta, grad, first, cg).map(|(body, _)| body)
}

/// [`cuda_gradient_body`], and the dual-number expression of κ in it.
fn gradient_parts<T: ?Sized, K: BaseKernel<T>>(
    kernel: &K,
    a: &str,
    b: &str,
    theta: &str,
    grad: &str,
    first: usize,
    cg: &mut CudaGen,
) -> Result<(String, String), KernelError> {
    let real = cg.real;
    let mut dual = CudaGen::new_dual(real, "kg_t");
    dual.set_values = cg.set_values.clone();
    let expression = kernel.cuda(a, b, &mut dual)?;
    let hypers = kernel.hyperparameters();
    if dual.num_params() != hypers.len() {
        return Err(KernelError::InvalidParameter(format!(
            "the kernel's CUDA form reserves {} parameter slots but it has {} hyperparameters",
            dual.num_params(),
            hypers.len()
        )));
    }
    for h in dual.helpers() {
        cg.helper(h);
    }
    let active = hypers.iter().filter(|h| h.is_active()).count();
    let t = format!("{}<{}>", super::cuda::dual_name(real), active.max(1));
    let seed = format!("kg_dual_seed_{}<{}>", if real == "double" { "d" } else { "f" }, active.max(1));
    let (mut init, mut writes, mut j) = (Vec::new(), String::new(), 0);
    for (k, h) in hypers.iter().enumerate() {
        let slot = first + k;
        if h.is_active() {
            init.push(format!("{seed}({theta}[{slot}], {j})"));
            writes += &format!("  {grad}[{slot}] = kg_k.d[{j}];\n");
            j += 1;
        } else {
            init.push(format!("{t}({theta}[{slot}])"));
            writes += &format!("  {grad}[{slot}] = ({real})0;\n");
        }
    }
    if init.is_empty() {
        init.push(format!("{t}(({real})0)"));
    }
    let body = format!(
        "  const {t} kg_t[{}] = {{{}}};\n  (void)kg_t;\n  const {t} kg_k({expression});\n{writes}  return kg_k.v;\n",
        init.len(),
        init.join(", ")
    );
    Ok((body, expression))
}

/// Assembles the `__device__` function
///
/// ```c
/// __device__ inline real <fn_name>(const <label_struct>& a, const <label_struct>& b, const real* theta, real* grad)
/// ```
///
/// (with `real` spelled `float` or `double`) that returns κ(a, b) and writes
/// `grad[k]` = ∂κ/∂(log θ_k) = θ_k ∂κ/∂θ_k for k = 0 …
/// [`num_hyperparameters`](BaseKernel::num_hyperparameters) − 1 (0 for fixed
/// hyperparameters), exactly what [`BaseKernel::gradient`] computes, by
/// forward-mode automatic differentiation of the kernel's CUDA form (see
/// [`cuda_gradient_body`], here with `first = 0`). The helpers it uses come
/// first; include it after [`cuda_label_struct`]'s output. It may sit next to
/// [`cuda_kappa_function`]'s output in one source (shared helpers are
/// guarded). `expression` holds the dual-number expression of κ; `params`
/// are θ, as for [`cuda_kappa_function`].
///
/// # Errors
/// As [`cuda_kappa_function`], and as [`cuda_gradient_body`].
pub fn cuda_gradient_function<K: BaseKernel<Record>>(
    fn_name: &str,
    label_struct: &str,
    kernel: &K,
    real: &str,
) -> Result<CudaFunction, KernelError> {
    let (real, mut cg) = function_gen(fn_name, label_struct, real)?;
    let (body, expression) = gradient_parts(kernel, "a", "b", "theta", "grad", 0, &mut cg)?;
    let mut source = cg.helpers().concat();
    source += &format!(
        "__device__ inline {real} {fn_name}(const {label_struct}& a, const {label_struct}& b, const {real}* theta, \
         {real}* grad) {{\n  (void)a; (void)b; (void)theta; (void)grad;\n{body}}}\n"
    );
    Ok(CudaFunction { name: fn_name.to_string(), source, expression, params: kernel.theta() })
}

/// The checked real type and the generator (parameters in `theta`, set
/// values of `label_struct`, the shared types helper) of a standalone
/// function `fn_name` on labels `label_struct`.
fn function_gen(fn_name: &str, label_struct: &str, real: &str) -> Result<(&'static str, CudaGen), KernelError> {
    let real = check_real(real)?;
    check_ident(fn_name)?;
    check_ident(label_struct)?;
    let mut cg = CudaGen::new(real, "theta");
    cg.set_values = format!("{label_struct}_set_values");
    types_helper(&mut cg);
    Ok((real, cg))
}

fn check_real(real: &str) -> Result<&'static str, KernelError> {
    match real {
        "float" => Ok("float"),
        "double" => Ok("double"),
        _ => Err(KernelError::InvalidParameter(format!("real type {real:?}: expected \"float\" or \"double\""))),
    }
}

fn check_ident(name: &str) -> Result<(), KernelError> {
    if c_identifier(name) != name || name.starts_with("kg_") {
        return Err(KernelError::InvalidParameter(format!(
            "{name:?} is not usable as a C identifier (or starts with the reserved kg_)"
        )));
    }
    Ok(())
}
