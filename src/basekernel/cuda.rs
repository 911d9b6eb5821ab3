//! [`CudaGen`]: collects what base kernels need to emit their CUDA form.

/// Collects the hyperparameter slots and helper functions that base kernels
/// use in their CUDA expressions.
///
/// Hyperparameters live in one parameter array (`theta` in the generated
/// source; constant memory or a launch argument), so that changing their
/// values never changes the source and never recompiles.
#[derive(Clone, Debug, Default)]
pub struct CudaGen {
    /// The real type of the generated code: `"float"` or `"double"`.
    pub real: &'static str,
    /// Name of the parameter array in the generated code.
    pub params_name: String,
    /// Name of the device array that holds the elements of set-valued
    /// fields (see [`cuda_label_struct`](super::cuda_label_struct)); set by
    /// [`cuda_kappa_function`](super::cuda_kappa_function).
    pub set_values: String,
    params: Vec<f64>,
    helpers: Vec<String>,
    dual: bool,
}

impl CudaGen {
    /// A generator for real type `real` (`"float"` or `"double"`), reading
    /// hyperparameters from the array `params_name`.
    pub fn new(real: &'static str, params_name: &str) -> Self {
        CudaGen {
            real,
            params_name: params_name.to_string(),
            set_values: "kg_set_values".to_string(),
            params: Vec::new(),
            helpers: Vec::new(),
            dual: false,
        }
    }

    /// A generator for the *gradient* form: the parameter array
    /// `params_name` holds dual numbers `kg_dual_<s><D>` (see
    /// [`cuda_dual_helper`]) instead of reals, so that the expression a
    /// kernel's [`cuda`](super::BaseKernel::cuda) returns evaluates κ and its
    /// derivatives with respect to the seeded slots at once (forward-mode
    /// automatic differentiation). The dual type is registered as the first
    /// helper.
    ///
    /// Kernel expressions need no change for this: the dual type has the
    /// arithmetic operators, comparisons and `exp`, `log`, `sqrt`, `fabs`,
    /// `pow` of the value form. Helpers that take hyperparameter-dependent
    /// arguments check [`is_dual`](Self::is_dual) and add an overload for
    /// duals. Used by [`cuda_gradient_body`](super::cuda_gradient_body).
    pub fn new_dual(real: &'static str, params_name: &str) -> Self {
        let mut cg = CudaGen::new(real, params_name);
        cg.dual = true;
        let helper = cuda_dual_helper(real);
        cg.helper(&helper);
        cg
    }

    /// Whether the parameter array holds dual numbers ([`new_dual`](Self::new_dual)).
    pub fn is_dual(&self) -> bool {
        self.dual
    }

    /// Reserves a parameter slot holding `value` now, and returns the C
    /// expression that reads it (`theta[k]`).
    pub fn param(&mut self, value: f64) -> String {
        self.params.push(value);
        format!("{}[{}]", self.params_name, self.params.len() - 1)
    }

    /// The parameter values, in slot order (to upload before a launch).
    pub fn params(&self) -> &[f64] {
        &self.params
    }

    /// Number of parameter slots reserved so far.
    pub fn num_params(&self) -> usize {
        self.params.len()
    }

    /// Forgets the slots reserved after the first `len`, so that emitting the
    /// same kernel again reuses the same slots. [`Normalize`](super::Normalize)
    /// emits its child three times this way, keeping the parameter array
    /// equal to the kernel's θ.
    pub fn rewind(&mut self, len: usize) {
        self.params.truncate(len);
    }

    /// A C literal of the real type: `1` → `((float)1)`.
    pub fn lit(&self, x: f64) -> String {
        format!("(({}){x:?})", self.real)
    }

    /// Adds a `__device__` helper function once (identical text is kept once).
    pub fn helper(&mut self, source: &str) {
        if !self.helpers.iter().any(|h| h == source) {
            self.helpers.push(source.to_string());
        }
    }

    /// The helper functions, in the order they were added.
    pub fn helpers(&self) -> &[String] {
        &self.helpers
    }
}

/// The C++ name of the dual-number template of a real type: `kg_dual_f` for
/// `float`, `kg_dual_d` for `double` (used as `kg_dual_f<D>`).
pub(crate) fn dual_name(real: &str) -> &'static str {
    if real == "double" {
        "kg_dual_d"
    } else {
        "kg_dual_f"
    }
}

/// The dual-number type of forward-mode differentiation in the generated
/// code, for real type `real` (`"float"` → `kg_dual_f`, else `kg_dual_d`),
/// guarded so it can appear more than once:
///
/// ```c
/// template <int D> struct kg_dual_f { float v; float d[D]; };
/// ```
///
/// a value `v` and `D` tangents `d[i]` (derivatives with respect to `D`
/// seeded inputs). It converts implicitly from `float` (tangents 0), never
/// back. Defined on it, in the global namespace, for any `D` (each costs
/// O(D)):
/// - `+ - * /` between two duals and between a dual and a `float` (either
///   side; the real converts implicitly), unary `-`, `+= -= *= /=`;
/// - `< > <= >= == !=`, comparing values;
/// - `exp`, `log`, `sqrt`, `fabs`, and `pow(dual, float)`, `pow(float, dual)`,
///   `pow(dual, dual)`;
/// - `kg_dual_seed_f<D>(x, k)` (`kg_dual_seed_d` for double): the dual with value x and tangent x·e_k (so
///   that tangent k is ∂/∂(log x)).
///
/// Conventions where the derivative does not exist, chosen to match the Rust
/// [`gradient`](super::BaseKernel::gradient)s: `sqrt` and `fabs` have
/// tangent 0 at 0; `pow(x, p)` at x = 0 has ∂/∂x = 1 if p = 1 else 0 and
/// ∂/∂p = 0 (otherwise ∂/∂x = p·x^p/x and ∂/∂p = ln|x|·x^p, as
/// [`Power`](super::Power)).
pub fn cuda_dual_helper(real: &str) -> String {
    let r = if real == "double" { "double" } else { "float" };
    let t = dual_name(r);
    let x = if r == "double" { "d" } else { "f" };
    let mut s = format!(
        "#ifndef KG_DUAL_{x}\n#define KG_DUAL_{x}\n\
         template <int D> struct {t} {{\n  {r} v;\n  {r} d[D];\n  __device__ {t}() {{}}\n  \
         __device__ {t}({r} x) : v(x) {{\n    for (int i = 0; i < D; ++i) d[i] = ({r})0;\n  }}\n}};\n"
    );
    // The dual of `v` with tangent c·a.d, and with tangent c·a.d + e·b.d.
    let dd = format!("const {t}<D>&");
    let tpl = format!("template <int D> __device__ inline {t}<D>");
    s += &format!(
        "{tpl} kg_dual_seed_{x}({r} x, int k) {{\n  {t}<D> z(x);\n  z.d[k] = x;\n  return z;\n}}\n\
         {tpl} kg_dual_chain_{x}({r} v, {r} c, {dd} a) {{\n  {t}<D> z;\n  z.v = v;\n  \
         for (int i = 0; i < D; ++i) z.d[i] = c * a.d[i];\n  return z;\n}}\n\
         {tpl} kg_dual_chain2_{x}({r} v, {r} c, {dd} a, {r} e, {dd} b) {{\n  {t}<D> z;\n  z.v = v;\n  \
         for (int i = 0; i < D; ++i) z.d[i] = c * a.d[i] + e * b.d[i];\n  return z;\n}}\n"
    );
    let (c1, c2) = (format!("kg_dual_chain_{x}"), format!("kg_dual_chain2_{x}"));
    let one = format!("({r})1");
    // Arithmetic.
    s += &format!(
        "{tpl} operator+({dd} a, {dd} b) {{ return {c2}(a.v + b.v, {one}, a, {one}, b); }}\n\
         {tpl} operator+({dd} a, {r} b) {{ {t}<D> z = a; z.v += b; return z; }}\n\
         {tpl} operator+({r} a, {dd} b) {{ {t}<D> z = b; z.v += a; return z; }}\n\
         {tpl} operator-({dd} a) {{ return {c1}(-a.v, -{one}, a); }}\n\
         {tpl} operator-({dd} a, {dd} b) {{ return {c2}(a.v - b.v, {one}, a, -{one}, b); }}\n\
         {tpl} operator-({dd} a, {r} b) {{ {t}<D> z = a; z.v -= b; return z; }}\n\
         {tpl} operator-({r} a, {dd} b) {{ return {c1}(a - b.v, -{one}, b); }}\n\
         {tpl} operator*({dd} a, {dd} b) {{ return {c2}(a.v * b.v, b.v, a, a.v, b); }}\n\
         {tpl} operator*({dd} a, {r} b) {{ return {c1}(a.v * b, b, a); }}\n\
         {tpl} operator*({r} a, {dd} b) {{ return {c1}(a * b.v, a, b); }}\n\
         {tpl} operator/({dd} a, {dd} b) {{\n  {r} q = a.v / b.v;\n  \
         return {c2}(q, {one} / b.v, a, -q / b.v, b);\n}}\n\
         {tpl} operator/({dd} a, {r} b) {{ return {c1}(a.v / b, {one} / b, a); }}\n\
         {tpl} operator/({r} a, {dd} b) {{\n  {r} q = a / b.v;\n  return {c1}(q, -q / b.v, b);\n}}\n"
    );
    for op in ["+", "-", "*", "/"] {
        s += &format!(
            "template <int D> __device__ inline {t}<D>& operator{op}=({t}<D>& a, {dd} b) {{ a = a {op} b; return a; }}\n\
             template <int D> __device__ inline {t}<D>& operator{op}=({t}<D>& a, {r} b) {{ a = a {op} b; return a; }}\n"
        );
    }
    for op in ["<", ">", "<=", ">=", "==", "!="] {
        s += &format!(
            "template <int D> __device__ inline bool operator{op}({dd} a, {dd} b) {{ return a.v {op} b.v; }}\n\
             template <int D> __device__ inline bool operator{op}({dd} a, {r} b) {{ return a.v {op} b; }}\n\
             template <int D> __device__ inline bool operator{op}({r} a, {dd} b) {{ return a {op} b.v; }}\n"
        );
    }
    // Functions.
    let zero = format!("({r})0");
    s += &format!(
        "{tpl} exp({dd} a) {{\n  {r} e = exp(a.v);\n  return {c1}(e, e, a);\n}}\n\
         {tpl} log({dd} a) {{ return {c1}(log(a.v), {one} / a.v, a); }}\n\
         {tpl} sqrt({dd} a) {{\n  {r} q = sqrt(a.v);\n  \
         return {c1}(q, q > {zero} ? {one} / (({r})2 * q) : {zero}, a);\n}}\n\
         {tpl} fabs({dd} a) {{\n  \
         return {c1}(fabs(a.v), a.v > {zero} ? {one} : (a.v < {zero} ? -{one} : {zero}), a);\n}}\n\
         {tpl} pow({dd} a, {r} p) {{\n  {r} y = pow(a.v, p);\n  \
         return {c1}(y, a.v == {zero} ? (p == {one} ? {one} : {zero}) : p * y / a.v, a);\n}}\n\
         {tpl} pow({r} a, {dd} p) {{\n  {r} y = pow(a, p.v);\n  \
         return {c1}(y, a == {zero} ? {zero} : log(fabs(a)) * y, p);\n}}\n\
         {tpl} pow({dd} a, {dd} p) {{\n  {r} y = pow(a.v, p.v);\n  \
         return {c2}(y, a.v == {zero} ? (p.v == {one} ? {one} : {zero}) : p.v * y / a.v, a,\n    \
         a.v == {zero} ? {zero} : log(fabs(a.v)) * y, p);\n}}\n#endif\n"
    );
    s
}
