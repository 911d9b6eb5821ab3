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
pub(crate) fn types_helper(gen: &mut CudaGen) {
    gen.helper(&cuda_preamble());
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
    let real = check_real(real)?;
    check_ident(fn_name)?;
    check_ident(label_struct)?;
    let mut gen = CudaGen::new(real, "theta");
    gen.set_values = format!("{label_struct}_set_values");
    types_helper(&mut gen);
    let expression = kernel.cuda("a", "b", &mut gen)?;
    let mut source = gen.helpers().concat();
    source += &format!(
        "__device__ inline {real} {fn_name}(const {label_struct}& a, const {label_struct}& b, const {real}* theta) {{\n  \
         (void)a; (void)b; (void)theta;\n  return {expression};\n}}\n"
    );
    Ok(CudaFunction { name: fn_name.to_string(), source, expression, params: gen.params().to_vec() })
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
