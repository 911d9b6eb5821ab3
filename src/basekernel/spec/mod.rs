//! Kernel SPECs: base kernels on [`Record`] labels written as text, as the
//! command-line tool takes them (`--node-kernel "delta(label, 0.5)"`).
//!
//! # Grammar
//!
//! ```text
//! spec     := sum
//! sum      := product ( ("+" | "-") product )*
//! product  := power ( ("*" | "/") power )*
//! power    := "-" power                        negation
//!           | atom ( "^" NUMBER )?             k ^ p: power, p > 0 (fixed)
//! atom     := NUMBER                           a constant kernel, c > 0
//!           | "(" sum ")"
//!           | KERNEL
//!           | ("x" | "y") "." FIELD            a field of the first / second label (int or float)
//!           | FUNC "(" sum ")"                 FUNC: exp, ln (or log), abs, sqrt
//!           | "hyper" "(" FIELD "," value [, BOUNDS] ")"   a named hyperparameter, value > 0
//!                                              (fixed without BOUNDS)
//! KERNEL   := "constant" "(" c [, BOUNDS] ")"                         c > 0
//!           | "delta"    "(" FIELD "," h [, BOUNDS] ")"               0 <= h <= 1
//!           | "sqexp"    "(" FIELD "," scale [, BOUNDS] ")"           scale > 0
//!           | "rq"       "(" FIELD "," scale "," alpha [, BOUNDS, BOUNDS] ")"
//!           | "poly"     "(" FIELD "," offset "," DEGREE [, BOUNDS] ")" offset >= 0
//!           | "wendland" "(" FIELD "," radius [, BOUNDS] ")"          radius > 0
//!           | "normalize" "(" sum ")"
//!           | "rconv"    "(" FIELD "," element [, "sum" | "mean"] ")"
//! element  := the same grammar without FIELD arguments (and without rconv):
//!             a kernel on the integer elements of a set field
//! BOUNDS   := "[" NUMBER "," NUMBER "]" | "fixed"
//! FIELD    := NAME | '"' any characters but '"' '"'
//! NAME     := [A-Za-z_][A-Za-z0-9_]*
//! NUMBER   := decimal or scientific literal (1, 0.5, 1e-3), or "inf"
//! DEGREE   := integer 0..=64
//! ```
//!
//! The expression forms (`x.f`, `y.f`, `hyper`, `exp`, …, `-`, `/`) write
//! any formula [`expr`](super::expr) can, so that a kernel such as
//! GraphDot's Laplacian is a SPEC: `exp(-abs(x.charge - y.charge) /
//! hyper(h, 1.0, [0.1, 10]))`, hyperparameter path `h`. The kernel's range
//! (which the graph kernel checks: `0 ≤ κv ≤ 1`) is found by interval
//! arithmetic over all field values.
//!
//! Long names are accepted too: `kroneckerdelta`, `squareexponential`,
//! `rationalquadratic`, `polynomial`, `compact` (for `wendland`). Spaces are
//! free; `*` binds tighter than `+`, `^` tighter than `*`.
//!
//! | kernel | κ(x, y) | hyperparameter paths |
//! | --- | --- | --- |
//! | `constant(c)`, `c` | c | `constant` |
//! | `delta(f, h)` | 1 if x.f = y.f else h (`int` fields) | `f.h` |
//! | `sqexp(f, l)` | exp(−‖x.f − y.f‖²/(2l²)) | `f.scale` |
//! | `rq(f, l, a)` | (1 + ‖x.f − y.f‖²/(2al²))^(−a) | `f.scale`, `f.alpha` |
//! | `poly(f, c, d)` | (x.f · y.f + c)^d | `f.offset` |
//! | `wendland(f, R)` | Wendland φ₃,₁(‖x.f − y.f‖/R) | `f.radius` |
//! | `normalize(k)` | k(x,y)/√(k(x,x)k(y,y)) | k's |
//! | `rconv(f, e, mean)` | Σ (or mean) of e over pairs of elements of the set fields x.f, y.f | `f.` + e's |
//! | `k ^ p` | k^p | `exponent` (fixed) |
//!
//! Without BOUNDS a hyperparameter gets the kernel's default bounds (see
//! [`basekernel`](super)); `fixed` excludes it from training.
//!
//! Examples: `delta(label, 0.5)`, `delta(label, 0.5) * sqexp(attr1, 0.1)`,
//! `0.5 * delta(label, 0.2) + 0.5`, `sqexp(attr1, 0.1, [0.01, 10])`,
//! `normalize(poly(coords, 1.0, 2))`, `rconv(atoms, delta(0.5), mean)`.
//!
//! # Limits
//!
//! A SPEC may nest parentheses and kernel calls at most [`MAX_DEPTH`] deep
//! and hold at most [`MAX_NODES`] kernels (leaves and operators); one value
//! of the kernel may cost at most [`MAX_EVALUATIONS`] leaf evaluations
//! (`normalize(k)` evaluates `k` three times). Larger SPECs are refused with
//! a [`SpecError`] naming the limit. `normalize(k)` of a kernel whose
//! diagonal is identically 1 (a `normalize(…)`, or a product or power of
//! such kernels) is `k` itself and is built as `k`, so nested normalizations
//! cost nothing extra.
//!
//! A SPEC compiles to the representation of the one-definition kernels: an
//! [`ExprKernel`] whose leaves are the built-in kernels (module
//! [`expr`](super::expr)), so SPEC kernels and expression kernels have one
//! evaluator, one gradient (dual numbers over the built-in kernels' analytic
//! derivatives) and one CUDA form. [`SpecKernel`] wraps it as a
//! [`BaseKernel<Record>`]; bind it to the data set's [`Schema`] before use
//! ([`SpecKernel::parse_for`] does both). [`SpecKernel`]'s `Display` prints a
//! SPEC that parses back to the same kernel.
//!
//! A SPEC is read by `lexer` (tokens with their columns) and `parser`
//! (tokens to an [`Expr`](super::Expr)), and written back by `printer`.

mod lexer;
mod parser;
mod printer;

use super::{BaseKernel, CudaGen, ExprKernel, Hyperparameter, KernelError, LowRank};
use crate::graph::{Record, Schema};
use std::fmt;
use std::str::FromStr;

/// The deepest nesting of parentheses and kernel calls a SPEC may have.
pub const MAX_DEPTH: usize = 64;

/// The most kernels (leaves and operators) a SPEC may hold.
pub const MAX_NODES: usize = 1000;

/// The most leaf-kernel evaluations one value of a SPEC kernel may cost.
pub const MAX_EVALUATIONS: u64 = 100_000;

/// A SPEC that does not parse: where, what was found, what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid kernel spec at column {column} (found {found}): expected {expected}\n  {spec}\n  {caret}")]
pub struct SpecError {
    /// 1-based column (in characters) of the offending token.
    pub column: usize,
    /// The offending token, quoted (or `end of input`).
    pub found: String,
    /// What would have been valid there.
    pub expected: String,
    /// The whole SPEC.
    pub spec: String,
    caret: String,
}

/// A base kernel on [`Record`] labels built from a SPEC (see [`spec`](self)):
/// the compiled [`ExprKernel`] ([`kernel`](Self::kernel)), as a
/// [`BaseKernel<Record>`] that prints as its SPEC.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecKernel(ExprKernel);

/// The kernel on the `i64` elements of set fields in
/// `rconv(field, element)`: an [`ExprKernel`] on plain numbers.
pub type ElementKernel = ExprKernel;

/// Names that are SPEC keywords, not field names.
fn is_keyword(name: &str) -> bool {
    matches!(name, "inf" | "fixed" | "sum" | "mean")
}

impl SpecKernel {
    /// Parses a SPEC.
    ///
    /// # Errors
    /// [`SpecError`] pointing at the offending token.
    pub fn parse(spec: &str) -> Result<Self, SpecError> {
        let mut p = parser::Parser::new(spec)?;
        let e = p.sum(true)?;
        p.expect_end()?;
        ExprKernel::new(e)
            .map(SpecKernel)
            .map_err(|e| lexer::error(spec, 1, "the whole spec", &format!("a kernel that compiles ({e})")))
    }

    /// Parses a SPEC and binds it to `schema`.
    ///
    /// # Errors
    /// [`KernelError::Spec`] for a SPEC that does not parse,
    /// [`KernelError::Label`] for a field that is missing or of the wrong kind.
    pub fn parse_for(spec: &str, schema: &Schema) -> Result<Self, KernelError> {
        let mut k = Self::parse(spec)?;
        k.bind(schema)?;
        Ok(k)
    }

    /// The compiled expression kernel.
    pub fn kernel(&self) -> &ExprKernel {
        &self.0
    }

    /// The compiled expression kernel, by value.
    pub fn into_kernel(self) -> ExprKernel {
        self.0
    }
}

impl From<SpecKernel> for ExprKernel {
    fn from(k: SpecKernel) -> Self {
        k.0
    }
}

impl FromStr for SpecKernel {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, SpecError> {
        Self::parse(s)
    }
}

/// Prints the SPEC of the kernel (parses back to an equal kernel).
impl fmt::Display for SpecKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", printer::Spec(self.0.expr()))
    }
}

impl BaseKernel<Record> for SpecKernel {
    #[inline]
    fn value(&self, a: &Record, b: &Record) -> f64 {
        self.0.value(a, b)
    }
    fn table(&self, a: &[&Record], b: &[&Record], out: &mut Vec<f64>) {
        self.0.table(a, b, out)
    }
    fn for_each_row(&self, a: &[&Record], b: &[&Record], buf: &mut Vec<f64>, row: &mut dyn FnMut(usize, &[f64])) {
        self.0.for_each_row(a, b, buf, row)
    }
    fn low_rank(&self, a: &[&Record], b: &[&Record]) -> Option<LowRank> {
        self.0.low_rank(a, b)
    }
    fn range(&self) -> (f64, f64) {
        BaseKernel::<Record>::range(&self.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        BaseKernel::<Record>::hyperparameters(&self.0)
    }
    fn num_hyperparameters(&self) -> usize {
        BaseKernel::<Record>::num_hyperparameters(&self.0)
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        BaseKernel::<Record>::set_theta(&mut self.0, theta)
    }
    #[inline]
    fn gradient(&self, a: &Record, b: &Record, grad: &mut [f64]) -> f64 {
        self.0.gradient(a, b, grad)
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        BaseKernel::<Record>::bind(&mut self.0, schema)
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        BaseKernel::<Record>::cuda(&self.0, a, b, cg)
    }
}
