//! The operators of the device's element-wise operations and their kernel
//! generation: [`GpuBinaryOp`] (a semiring's ⊕ or ⊗, from its CUDA form),
//! [`GpuUnaryOp`] (built-in unary operators and bound binary ones),
//! [`GpuSelectOp`] (index and value predicates), and the typed key of a
//! generated module, [`ElementKey`].
//!
//! A module is `kernels/graphblas_ewise.cu` after a preface that the key
//! writes: the element types, the operation kind, the mask kind, the
//! operator (`kg_op`, `kg_unary` or `kg_select`) and the accumulator
//! (`kg_accum`). Scalars (a bound operand, a `tril` offset, a value to
//! compare with) are launch arguments, so a loop over scalars compiles once.

use super::index::IndexWidth;
use super::GpuElement;
use crate::cuda::CudaError;
use crate::semirings::{CudaSemiring, Semiring};

/// The template every element-wise module appends to its preface.
pub const EWISE_TEMPLATE: &str = include_str!("../../../kernels/graphblas_ewise.cu");

/// The kernels of [`EWISE_TEMPLATE`], in launch-table order.
pub const EWISE_KERNELS: [&str; 3] = ["gbe_vector", "gbe_matrix_count", "gbe_matrix_fill"];

/// The per-type conversions between sparse and bitmap vectors.
pub const CONVERT_TEMPLATE: &str = include_str!("../../../kernels/graphblas_convert.cu");

/// The kernels of [`CONVERT_TEMPLATE`].
pub const CONVERT_KERNELS: [&str; 2] = ["gbc_scatter", "gbc_compact"];

/// The C++ spelling of an operand type a semiring does not read.
const UNREAD: &str = "unsigned char";

/// A binary operator on the device: the ⊕ (`add`) or the ⊗ (`mul`) of a
/// semiring, taken from its CUDA form ([`Semiring::cuda`]).
///
/// On an entry at `(i, j)` (a vector entry `i` is `(i, 0)`), ⊗ sees the
/// position `(i, k = i, j)`: `k` is the row of the second operand, so the
/// positional [`AnySecondi`](crate::semirings::AnySecondi) gives `i`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GpuBinaryOp {
    name: String,
    x: String,
    y: String,
    z: String,
    helpers: String,
    /// The body, its parameters named `x`, `y` (⊕) or `a`, `b`, `i`, `k`, `j` (⊗).
    body: String,
    mul: bool,
}

impl GpuBinaryOp {
    /// The ⊕ of `s`: `C × C → C`.
    pub fn add<S: Semiring>(s: &S) -> Self {
        Self::add_of(s.cuda())
    }

    /// The ⊗ of `s`: `A × B → C`.
    pub fn mul<S: Semiring>(s: &S) -> Self {
        Self::mul_of(s.cuda())
    }

    /// The ⊕ of a semiring's CUDA form.
    pub fn add_of(c: CudaSemiring) -> Self {
        GpuBinaryOp {
            name: format!("add_{}", c.name),
            x: c.c_type.clone(),
            y: c.c_type.clone(),
            z: c.c_type,
            helpers: c.helpers,
            body: c.add,
            mul: false,
        }
    }

    /// The ⊗ of a semiring's CUDA form.
    pub fn mul_of(c: CudaSemiring) -> Self {
        GpuBinaryOp {
            name: format!("mul_{}", c.name),
            x: c.a_type,
            y: c.b_type,
            z: c.c_type,
            helpers: c.helpers,
            body: c.multiply,
            mul: true,
        }
    }

    /// `second(x, y) = y` on `T`: the union of two disjoint patterns (the
    /// device's assign without an accumulator).
    pub(crate) fn second<T: GpuElement>() -> Self {
        GpuBinaryOp {
            name: format!("second_{}", T::CUDA.replace(' ', "_")),
            x: T::CUDA.into(),
            y: T::CUDA.into(),
            z: T::CUDA.into(),
            helpers: String::new(),
            body: "return y;".into(),
            mul: false,
        }
    }

    /// The name (`add_min_plus_f64`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The C++ types `(x, y, z)` of `z = op(x, y)`.
    pub fn types(&self) -> (&str, &str, &str) {
        (&self.x, &self.y, &self.z)
    }

    /// `__device__ z name(x, y, i, j)` evaluating this operator.
    fn device_fn(&self, name: &str) -> String {
        let (x, y, z) = (&self.x, &self.y, &self.z);
        if self.mul {
            format!(
                "__device__ __forceinline__ {z} {name}({x} a, {y} b, long long i, long long j) {{\n    \
                 typedef {x} kg_a_t; typedef {y} kg_b_t; typedef {z} kg_c_t;\n    long long k = i; (void)k;\n    {}\n}}\n",
                self.body
            )
        } else {
            format!(
                "__device__ __forceinline__ {z} {name}({x} x, {y} y, long long i, long long j) {{\n    \
                 typedef {z} kg_c_t;\n    {}\n}}\n",
                self.body
            )
        }
    }

    /// Checks the operand and result types against the element types.
    fn check(&self, role: &str, x: &str, y: &str, z: &str) -> Result<(), CudaError> {
        let mismatch = |what: &str, have: &str, want: &str| {
            Err(CudaError::Mismatch {
                uploaded: format!("{what} of type {have}"),
                expected: format!("{want} for the {role} {}", self.name),
            })
        };
        if self.x != UNREAD && self.x != x {
            return mismatch("a first operand", x, &self.x);
        }
        if self.y != UNREAD && self.y != y {
            return mismatch("a second operand", y, &self.y);
        }
        if self.z != z {
            return mismatch("a result", z, &self.z);
        }
        Ok(())
    }
}

/// What a [`GpuUnaryOp`] computes from an entry `x` (at `(i, j)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnaryForm {
    /// `x` (converted to the output type).
    Identity,
    /// `−x` (wrapping for unsigned types; the identity on `bool`).
    Ainv,
    /// `|x|`.
    Abs,
    /// `1`.
    One,
    /// `op(s, x)` with the scalar `s` bound first.
    BindFirst(GpuBinaryOp),
    /// `op(x, s)` with the scalar `s` bound second.
    BindSecond(GpuBinaryOp),
}

/// A unary operator of [`apply`](crate::matrix::op::apply): a built-in one or a binary
/// operator with one operand bound to a scalar.
///
/// ```
/// use kronograph::matrix::gpu::{GpuBinaryOp, GpuUnaryOp};
/// use kronograph::semirings::PlusTimes;
/// let double = GpuUnaryOp::bind_second(GpuBinaryOp::mul(&PlusTimes::<f64>::new()), 2.0f64);
/// assert!(double.is_ok());
/// // the scalar must have the operand's type
/// assert!(GpuUnaryOp::bind_second(GpuBinaryOp::mul(&PlusTimes::<f64>::new()), 2i32).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GpuUnaryOp {
    pub(crate) form: UnaryForm,
    pub(crate) scalar: u64,
    pub(crate) scalar_type: &'static str,
}

impl GpuUnaryOp {
    /// A built-in operator (not `BindFirst` / `BindSecond`, which take a
    /// scalar: see [`bind_first`](Self::bind_first)).
    ///
    /// # Errors
    /// [`CudaError::InvalidParameter`] for a bound form.
    pub fn new(form: UnaryForm) -> Result<Self, CudaError> {
        if matches!(form, UnaryForm::BindFirst(_) | UnaryForm::BindSecond(_)) {
            return Err(CudaError::InvalidParameter(
                "a bound unary operator needs its scalar: use GpuUnaryOp::bind_first or bind_second".into(),
            ));
        }
        Ok(GpuUnaryOp { form, scalar: 0, scalar_type: UNREAD })
    }

    /// `x ↦ op(s, x)`.
    ///
    /// # Errors
    /// [`CudaError::Mismatch`] when `s` is not of `op`'s first operand type.
    pub fn bind_first<T: GpuElement>(op: GpuBinaryOp, s: T) -> Result<Self, CudaError> {
        if op.x != UNREAD && op.x != T::CUDA {
            return Err(CudaError::Mismatch {
                uploaded: format!("a scalar of type {}", T::CUDA),
                expected: format!("{} for the first operand of {}", op.x, op.name),
            });
        }
        Ok(GpuUnaryOp { form: UnaryForm::BindFirst(op), scalar: s.to_bits(), scalar_type: T::CUDA })
    }

    /// `x ↦ op(x, s)`.
    ///
    /// # Errors
    /// [`CudaError::Mismatch`] when `s` is not of `op`'s second operand type.
    pub fn bind_second<T: GpuElement>(op: GpuBinaryOp, s: T) -> Result<Self, CudaError> {
        if op.y != UNREAD && op.y != T::CUDA {
            return Err(CudaError::Mismatch {
                uploaded: format!("a scalar of type {}", T::CUDA),
                expected: format!("{} for the second operand of {}", op.y, op.name),
            });
        }
        Ok(GpuUnaryOp { form: UnaryForm::BindSecond(op), scalar: s.to_bits(), scalar_type: T::CUDA })
    }

    /// The operator `form` with a zero scalar of C++ type `scalar_type`,
    /// unchecked: for kernel generation alone (the compile tests); calls
    /// build their operators with [`new`](Self::new),
    /// [`bind_first`](Self::bind_first) or [`bind_second`](Self::bind_second).
    pub fn for_generation(form: UnaryForm, scalar_type: &'static str) -> Self {
        GpuUnaryOp { form, scalar: 0, scalar_type }
    }

    fn name(&self) -> String {
        match &self.form {
            UnaryForm::BindFirst(op) => format!("bind1st_{}", op.name),
            UnaryForm::BindSecond(op) => format!("bind2nd_{}", op.name),
            f => format!("{f:?}").to_lowercase(),
        }
    }
}

/// What a [`GpuSelectOp`] keeps: an entry `x` at `(i, j)` (a vector entry
/// `i` is `(i, 0)`), against the offset or value `s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SelectForm {
    /// `j ≤ i + s` (lower triangle; `s = −1`: strictly lower).
    Tril,
    /// `j ≥ i + s` (upper triangle; `s = 1`: strictly upper).
    Triu,
    /// `j = i + s`.
    Diag,
    /// `j ≠ i + s`.
    Offdiag,
    /// `x = s`.
    ValueEq,
    /// `x ≠ s`.
    ValueNe,
    /// `x < s`.
    ValueLt,
    /// `x ≤ s`.
    ValueLe,
    /// `x > s`.
    ValueGt,
    /// `x ≥ s`.
    ValueGe,
}

/// A predicate of [`select`](crate::matrix::op::select), as GraphBLAS' `GrB_IndexUnaryOp`s.
///
/// ```
/// use kronograph::matrix::gpu::{GpuSelectOp, SelectForm};
/// let strictly_lower = GpuSelectOp::index(SelectForm::Tril, -1).unwrap();
/// let positive = GpuSelectOp::value(SelectForm::ValueGt, 0.0f64).unwrap();
/// assert!(GpuSelectOp::index(SelectForm::ValueGt, 0).is_err());
/// # let _ = (strictly_lower, positive);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GpuSelectOp {
    pub(crate) form: SelectForm,
    pub(crate) scalar: u64,
    pub(crate) scalar_type: &'static str,
}

impl SelectForm {
    fn is_index(self) -> bool {
        matches!(self, SelectForm::Tril | SelectForm::Triu | SelectForm::Diag | SelectForm::Offdiag)
    }
}

impl GpuSelectOp {
    /// An index predicate (`Tril`, `Triu`, `Diag`, `Offdiag`) with offset `k`.
    ///
    /// # Errors
    /// [`CudaError::InvalidParameter`] for a value form.
    pub fn index(form: SelectForm, k: i64) -> Result<Self, CudaError> {
        if !form.is_index() {
            return Err(CudaError::InvalidParameter(format!(
                "{form:?} compares values: build it with GpuSelectOp::value"
            )));
        }
        Ok(GpuSelectOp { form, scalar: k.to_bits(), scalar_type: i64::CUDA })
    }

    /// The predicate `form` with a zero scalar of C++ type `scalar_type`,
    /// unchecked: for kernel generation alone (the compile tests).
    pub fn for_generation(form: SelectForm, scalar_type: &'static str) -> Self {
        GpuSelectOp { form, scalar: 0, scalar_type }
    }

    /// A value predicate (`ValueEq` … `ValueGe`) against `s`, of the
    /// selected vector's or matrix's element type.
    ///
    /// # Errors
    /// [`CudaError::InvalidParameter`] for an index form.
    pub fn value<T: GpuElement>(form: SelectForm, s: T) -> Result<Self, CudaError> {
        if form.is_index() {
            return Err(CudaError::InvalidParameter(format!(
                "{form:?} compares indices: build it with GpuSelectOp::index"
            )));
        }
        Ok(GpuSelectOp { form, scalar: s.to_bits(), scalar_type: T::CUDA })
    }
}

/// Which positions a mask lets an operation write, as compiled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskKind {
    /// No mask: every position.
    None,
    /// The mask's positions (structural or valued: folded into its bytes or pattern).
    Mask,
    /// The other positions.
    Complemented,
}

/// The operation of an element-wise module.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ElementOp {
    /// Union: `op(x, y)` where both are present, the present one elsewhere.
    Add(GpuBinaryOp),
    /// Intersection: `op(x, y)` where both are present.
    Mult(GpuBinaryOp),
    /// `f(x)` on the present entries.
    Apply(GpuUnaryOp),
    /// The present entries that satisfy the predicate.
    Select(GpuSelectOp),
}

/// The typed key of a generated element-wise module: the operation and its
/// operator, the accumulator, the element types of the inputs `x`, `y` and
/// of the output `z`, the mask kind and the index width. One module per key, compiled once
/// (memory and disk caches) and loaded once per device.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ElementKey {
    /// The operation.
    pub op: ElementOp,
    /// The accumulator `z = accum(c, t)`, if any.
    pub accum: Option<GpuBinaryOp>,
    /// C++ element type of the first input.
    pub x: &'static str,
    /// C++ element type of the second input (the first's for one-input operations).
    pub y: &'static str,
    /// C++ element type of the output.
    pub z: &'static str,
    /// The mask kind.
    pub mask: MaskKind,
    /// The width of the indices.
    pub index: IndexWidth,
}

impl ElementKey {
    /// Checks every operator's types against the element types.
    ///
    /// # Errors
    /// [`CudaError::Mismatch`] naming the operand and the types.
    pub fn check(&self) -> Result<(), CudaError> {
        let same = |what: &str, have: &str, want: &str| -> Result<(), CudaError> {
            if have == want {
                Ok(())
            } else {
                Err(CudaError::Mismatch { uploaded: format!("{what} of type {have}"), expected: want.to_string() })
            }
        };
        match &self.op {
            ElementOp::Add(op) => {
                same("the second input", self.y, self.x)?;
                same("the output", self.z, self.x)?;
                op.check("operator", self.x, self.y, self.z)?;
            }
            ElementOp::Mult(op) => op.check("operator", self.x, self.y, self.z)?,
            ElementOp::Apply(u) => match &u.form {
                UnaryForm::BindFirst(op) => op.check("operator", u.scalar_type, self.x, self.z)?,
                UnaryForm::BindSecond(op) => op.check("operator", self.x, u.scalar_type, self.z)?,
                _ => {}
            },
            ElementOp::Select(s) => {
                same("the output", self.z, self.x)?;
                if !s.form.is_index() {
                    same("the select scalar", s.scalar_type, self.x)?;
                }
            }
        }
        if let Some(acc) = &self.accum {
            acc.check("accumulator", self.z, self.z, self.z)?;
        }
        Ok(())
    }

    /// The complete CUDA source of this key's module.
    pub fn source(&self) -> String {
        let mut s = format!("// element-wise {:?}\n{}", self.op_name(), self.index.preface());
        s.push_str(&format!("typedef {} kg_x_t;\ntypedef {} kg_y_t;\ntypedef {} kg_z_t;\n", self.x, self.y, self.z));
        let (kind, scalar) = match &self.op {
            ElementOp::Add(_) => (0, UNREAD),
            ElementOp::Mult(_) => (1, UNREAD),
            ElementOp::Apply(u) => (2, u.scalar_type),
            ElementOp::Select(o) => (3, o.scalar_type),
        };
        s.push_str(&format!("typedef {scalar} kg_s_t;\n#define KG_KIND {kind}\n"));
        let mask = match self.mask {
            MaskKind::None => 0,
            MaskKind::Mask => 1,
            MaskKind::Complemented => 2,
        };
        s.push_str(&format!("#define KG_MASK {mask}\n#define KG_ACCUM {}\n", self.accum.is_some() as u8));
        let mut helpers: Vec<&str> = Vec::new();
        let ops: Vec<&GpuBinaryOp> = [self.binary_op(), self.accum.as_ref()].into_iter().flatten().collect();
        for op in &ops {
            if !op.helpers.is_empty() && !helpers.contains(&op.helpers.as_str()) {
                helpers.push(&op.helpers);
            }
        }
        for h in helpers {
            s.push_str(h);
            s.push('\n');
        }
        if let Some(op) = self.binary_op() {
            s.push_str(&op.device_fn("kg_op"));
        }
        match &self.op {
            ElementOp::Apply(u) => s.push_str(&unary_fn(&u.form)),
            ElementOp::Select(o) => s.push_str(&select_fn(o.form)),
            _ => {}
        }
        if let Some(acc) = &self.accum {
            s.push_str(&acc.device_fn("kg_accum"));
        }
        s.push_str(EWISE_TEMPLATE);
        s
    }

    /// The module name: `graphblas_ewise_<operation>_<hash of the source>`.
    pub fn module(&self, source: &str) -> String {
        format!("graphblas_ewise_{}_{}", self.op_name(), &crate::cuda::hash_hex(&[source.as_bytes()])[..12])
    }

    fn op_name(&self) -> String {
        match &self.op {
            ElementOp::Add(op) => format!("union_{}", op.name),
            ElementOp::Mult(op) => format!("intersect_{}", op.name),
            ElementOp::Apply(u) => format!("apply_{}", u.name()),
            ElementOp::Select(o) => format!("select_{:?}", o.form).to_lowercase(),
        }
    }

    fn binary_op(&self) -> Option<&GpuBinaryOp> {
        match &self.op {
            ElementOp::Add(op) | ElementOp::Mult(op) => Some(op),
            ElementOp::Apply(GpuUnaryOp { form: UnaryForm::BindFirst(op) | UnaryForm::BindSecond(op), .. }) => Some(op),
            _ => None,
        }
    }
}

/// `kg_unary(x, s, i, j)`.
fn unary_fn(form: &UnaryForm) -> String {
    let body = match form {
        UnaryForm::Identity => "return (kg_z_t)x;",
        UnaryForm::Ainv => "return (kg_z_t)(-x);",
        UnaryForm::Abs => "return (kg_z_t)(x < (kg_x_t)0 ? -x : x);",
        UnaryForm::One => "return (kg_z_t)1;",
        UnaryForm::BindFirst(_) => "return kg_op(s, x, i, j);",
        UnaryForm::BindSecond(_) => "return kg_op(x, s, i, j);",
    };
    format!(
        "__device__ __forceinline__ kg_z_t kg_unary(kg_x_t x, kg_s_t s, long long i, long long j) {{\n    \
         (void)s; (void)i; (void)j;\n    {body}\n}}\n"
    )
}

/// `kg_select(x, s, i, j)`.
fn select_fn(form: SelectForm) -> String {
    let body = match form {
        SelectForm::Tril => "return j <= i + (long long)s;",
        SelectForm::Triu => "return j >= i + (long long)s;",
        SelectForm::Diag => "return j == i + (long long)s;",
        SelectForm::Offdiag => "return j != i + (long long)s;",
        SelectForm::ValueEq => "return x == s;",
        SelectForm::ValueNe => "return x != s;",
        SelectForm::ValueLt => "return x < s;",
        SelectForm::ValueLe => "return x <= s;",
        SelectForm::ValueGt => "return x > s;",
        SelectForm::ValueGe => "return x >= s;",
    };
    format!(
        "__device__ __forceinline__ bool kg_select(kg_x_t x, kg_s_t s, long long i, long long j) {{\n    \
         (void)x; (void)s; (void)i; (void)j;\n    {body}\n}}\n"
    )
}

/// The source of the sparse/bitmap conversions for element type `t` and
/// indices of width `w`.
pub fn convert_source(t: &str, w: IndexWidth) -> String {
    format!("{}typedef {t} kg_t;\n{CONVERT_TEMPLATE}", w.preface())
}
