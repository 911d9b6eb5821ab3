//! Kernel SPECs: base kernels on [`Record`] labels written as text, as the
//! command-line tool takes them (`--node-kernel "delta(label, 0.5)"`).
//!
//! # Grammar
//!
//! ```text
//! spec     := sum
//! sum      := product ( "+" product )*
//! product  := power ( "*" power )*
//! power    := atom ( "^" NUMBER )?             k ^ p: power, p > 0 (fixed)
//! atom     := NUMBER                           a constant kernel, c > 0
//!           | "(" sum ")"
//!           | KERNEL
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
//! A SPEC parses into a [`SpecKernel`], which implements
//! [`BaseKernel<Record>`]; bind it to the data set's [`Schema`] before use
//! ([`SpecKernel::parse_for`] does both). [`SpecKernel`]'s `Display` prints a
//! SPEC that parses back to the same kernel.

use super::{
    normalize, BaseKernel, Bounds, CompactPolynomial, Constant, CudaGen, Field, Hyperparameter, KernelError,
    KroneckerDelta, Normalize, Polynomial, Power, Product, RConvolution, RationalQuadratic, Reduction,
    SquareExponential, Sum,
};
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

/// A base kernel on [`Record`] labels built from a SPEC (see [`spec`](self)).
///
/// An enum tree over the built-in kernels: evaluation dispatches on the
/// variant (a branch per node per call; build the kernel in Rust for a fully
/// monomorphized hot loop).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SpecKernel {
    /// `constant(c)`.
    Constant(Constant),
    /// `delta(field, h)`.
    Delta(Field<KroneckerDelta>),
    /// `sqexp(field, scale)`.
    SqExp(Field<SquareExponential>),
    /// `rq(field, scale, alpha)`.
    Rq(Field<RationalQuadratic>),
    /// `poly(field, offset, degree)`.
    Poly(Field<Polynomial>),
    /// `wendland(field, radius)`.
    Wendland(Field<CompactPolynomial>),
    /// `rconv(field, element, sum|mean)`.
    RConv(Field<RConvolution<ElementKernel>>),
    /// `k1 * k2`.
    Product(Box<Product<SpecKernel, SpecKernel>>),
    /// `k1 + k2`.
    Sum(Box<Sum<SpecKernel, SpecKernel>>),
    /// `k ^ p`.
    Power(Box<Power<SpecKernel>>),
    /// `normalize(k)`.
    Normalize(Box<Normalize<SpecKernel>>),
}

/// A base kernel on the `i64` elements of set fields, from the element part
/// of `rconv(field, element)` (see [`spec`](self)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElementKernel {
    /// `constant(c)`.
    Constant(Constant),
    /// `delta(h)`.
    Delta(KroneckerDelta),
    /// `sqexp(scale)`.
    SqExp(SquareExponential),
    /// `rq(scale, alpha)`.
    Rq(RationalQuadratic),
    /// `poly(offset, degree)`.
    Poly(Polynomial),
    /// `wendland(radius)`.
    Wendland(CompactPolynomial),
    /// `k1 * k2`.
    Product(Box<Product<ElementKernel, ElementKernel>>),
    /// `k1 + k2`.
    Sum(Box<Sum<ElementKernel, ElementKernel>>),
    /// `k ^ p`.
    Power(Box<Power<ElementKernel>>),
    /// `normalize(k)`.
    Normalize(Box<Normalize<ElementKernel>>),
}

impl SpecKernel {
    /// Parses a SPEC.
    ///
    /// # Errors
    /// [`SpecError`] pointing at the offending token.
    pub fn parse(spec: &str) -> Result<Self, SpecError> {
        let mut p = Parser::new(spec)?;
        let k = p.sum::<SpecKernel>()?;
        p.expect_end()?;
        Ok(k)
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
}

impl FromStr for SpecKernel {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, SpecError> {
        Self::parse(s)
    }
}

macro_rules! dispatch {
    ($self:expr, $k:ident => $e:expr; $($v:ident),*) => {
        match $self {
            $(Self::$v($k) => $e,)*
        }
    };
}

macro_rules! enum_kernel {
    ($ty:ty, $label:ty; $($v:ident),*) => {
        impl BaseKernel<$label> for $ty {
            #[inline]
            fn value(&self, a: &$label, b: &$label) -> f64 {
                dispatch!(self, k => BaseKernel::<$label>::value(k, a, b); $($v),*)
            }
            #[inline]
            fn value_f32(&self, a: &$label, b: &$label) -> f32 {
                dispatch!(self, k => BaseKernel::<$label>::value_f32(k, a, b); $($v),*)
            }
            fn range(&self) -> (f64, f64) {
                dispatch!(self, k => BaseKernel::<$label>::range(k); $($v),*)
            }
            fn table(&self, a: &[&$label], b: &[&$label], out: &mut Vec<f64>) {
                dispatch!(self, k => BaseKernel::<$label>::table(k, a, b, out); $($v),*)
            }
            fn low_rank(&self, a: &[&$label], b: &[&$label]) -> Option<super::LowRank> {
                dispatch!(self, k => BaseKernel::<$label>::low_rank(k, a, b); $($v),*)
            }
            fn hyperparameters(&self) -> Vec<Hyperparameter> {
                dispatch!(self, k => BaseKernel::<$label>::hyperparameters(k); $($v),*)
            }
            fn num_hyperparameters(&self) -> usize {
                dispatch!(self, k => BaseKernel::<$label>::num_hyperparameters(k); $($v),*)
            }
            fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
                dispatch!(self, k => BaseKernel::<$label>::set_theta(k, theta); $($v),*)
            }
            #[inline]
            fn gradient(&self, a: &$label, b: &$label, grad: &mut [f64]) -> f64 {
                dispatch!(self, k => BaseKernel::<$label>::gradient(k, a, b, grad); $($v),*)
            }
            fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
                dispatch!(self, k => BaseKernel::<$label>::bind(k, schema); $($v),*)
            }
            fn cuda(&self, a: &str, b: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
                dispatch!(self, k => BaseKernel::<$label>::cuda(k, a, b, gen); $($v),*)
            }
        }
    };
}
enum_kernel!(SpecKernel, Record; Constant, Delta, SqExp, Rq, Poly, Wendland, RConv, Product, Sum, Power, Normalize);
enum_kernel!(ElementKernel, i64; Constant, Delta, SqExp, Rq, Poly, Wendland, Product, Sum, Power, Normalize);

// ------------------------------------------------------------------ Display

fn fmt_bounds(f: &mut fmt::Formatter<'_>, h: &Hyperparameter, default: &Hyperparameter) -> fmt::Result {
    match h.bounds {
        b if b == default.bounds => Ok(()),
        Bounds::Fixed => write!(f, ", fixed"),
        Bounds::Range(lo, hi) => write!(f, ", [{lo}, {hi}]"),
    }
}

fn fmt_field(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain && !is_keyword(name) {
        write!(f, "{name}, ")
    } else {
        write!(f, "\"{name}\", ")
    }
}

fn is_keyword(name: &str) -> bool {
    matches!(name, "inf" | "fixed" | "sum" | "mean")
}

/// Writes a leaf kernel; `field` is `Some` for record kernels.
fn fmt_leaf(f: &mut fmt::Formatter<'_>, leaf: Leaf<'_>, field: Option<&str>) -> fmt::Result {
    let fld = |f: &mut fmt::Formatter<'_>| field.map_or(Ok(()), |n| fmt_field(f, n));
    match leaf {
        Leaf::Constant(k) => {
            let h = <Constant as BaseKernel<()>>::hyperparameters(k);
            let d = <Constant as BaseKernel<()>>::hyperparameters(&Constant::new(k.c()));
            if h == d {
                write!(f, "{}", k.c())
            } else {
                write!(f, "constant({}", k.c())?;
                fmt_bounds(f, &h[0], &d[0])?;
                write!(f, ")")
            }
        }
        Leaf::Delta(k) => {
            let h = hyper::<_, i64>(k);
            let d = hyper::<_, i64>(&KroneckerDelta::new(k.h()));
            write!(f, "delta(")?;
            fld(f)?;
            write!(f, "{}", k.h())?;
            fmt_bounds(f, &h[0], &d[0])?;
            write!(f, ")")
        }
        Leaf::SqExp(k) => {
            let h = hyper::<_, i64>(k);
            let d = hyper::<_, i64>(&SquareExponential::new(k.scale()));
            write!(f, "sqexp(")?;
            fld(f)?;
            write!(f, "{}", k.scale())?;
            fmt_bounds(f, &h[0], &d[0])?;
            write!(f, ")")
        }
        Leaf::Rq(k) => {
            let h = hyper::<_, i64>(k);
            let d = hyper::<_, i64>(&RationalQuadratic::new(k.scale(), k.alpha()));
            write!(f, "rq(")?;
            fld(f)?;
            write!(f, "{}, {}", k.scale(), k.alpha())?;
            if h != d {
                for hi in &h {
                    match hi.bounds {
                        Bounds::Fixed => write!(f, ", fixed")?,
                        Bounds::Range(lo, up) => write!(f, ", [{lo}, {up}]")?,
                    }
                }
            }
            write!(f, ")")
        }
        Leaf::Poly(k) => {
            let h = hyper::<_, i64>(k);
            let d = hyper::<_, i64>(&Polynomial::new(k.offset(), k.degree()));
            write!(f, "poly(")?;
            fld(f)?;
            write!(f, "{}, {}", k.offset(), k.degree())?;
            fmt_bounds(f, &h[0], &d[0])?;
            write!(f, ")")
        }
        Leaf::Wendland(k) => {
            let h = hyper::<_, i64>(k);
            let d = hyper::<_, i64>(&CompactPolynomial::new(k.radius()));
            write!(f, "wendland(")?;
            fld(f)?;
            write!(f, "{}", k.radius())?;
            fmt_bounds(f, &h[0], &d[0])?;
            write!(f, ")")
        }
    }
}

fn hyper<K: BaseKernel<T>, T>(k: &K) -> Vec<Hyperparameter> {
    k.hyperparameters()
}

#[derive(Clone, Copy)]
enum Leaf<'a> {
    Constant(&'a Constant),
    Delta(&'a KroneckerDelta),
    SqExp(&'a SquareExponential),
    Rq(&'a RationalQuadratic),
    Poly(&'a Polynomial),
    Wendland(&'a CompactPolynomial),
}

/// Precedence of a node for printing: 0 sum, 1 product, 2 power, 3 atom.
trait Prec: fmt::Display {
    fn prec(&self) -> u8;
}

fn fmt_binary<A: Prec>(f: &mut fmt::Formatter<'_>, a: &A, op: &str, b: &A, p: u8) -> fmt::Result {
    // Left-associative: the left operand may be of the same precedence, the right one must bind tighter.
    if a.prec() < p {
        write!(f, "({a})")?;
    } else {
        write!(f, "{a}")?;
    }
    write!(f, " {op} ")?;
    if b.prec() <= p {
        write!(f, "({b})")
    } else {
        write!(f, "{b}")
    }
}

fn fmt_power<A: Prec>(f: &mut fmt::Formatter<'_>, k: &Power<A>) -> fmt::Result {
    if k.kernel.prec() <= 2 {
        write!(f, "({}) ^ {}", k.kernel, k.exponent())
    } else {
        write!(f, "{} ^ {}", k.kernel, k.exponent())
    }
}

impl Prec for SpecKernel {
    fn prec(&self) -> u8 {
        match self {
            SpecKernel::Sum(_) => 0,
            SpecKernel::Product(_) => 1,
            SpecKernel::Power(_) => 2,
            _ => 3,
        }
    }
}

impl Prec for ElementKernel {
    fn prec(&self) -> u8 {
        match self {
            ElementKernel::Sum(_) => 0,
            ElementKernel::Product(_) => 1,
            ElementKernel::Power(_) => 2,
            _ => 3,
        }
    }
}

/// Prints the SPEC of the kernel (parses back to an equal kernel).
impl fmt::Display for SpecKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecKernel::Constant(k) => fmt_leaf(f, Leaf::Constant(k), None),
            SpecKernel::Delta(k) => fmt_leaf(f, Leaf::Delta(&k.kernel), Some(k.name())),
            SpecKernel::SqExp(k) => fmt_leaf(f, Leaf::SqExp(&k.kernel), Some(k.name())),
            SpecKernel::Rq(k) => fmt_leaf(f, Leaf::Rq(&k.kernel), Some(k.name())),
            SpecKernel::Poly(k) => fmt_leaf(f, Leaf::Poly(&k.kernel), Some(k.name())),
            SpecKernel::Wendland(k) => fmt_leaf(f, Leaf::Wendland(&k.kernel), Some(k.name())),
            SpecKernel::RConv(k) => {
                write!(f, "rconv(")?;
                fmt_field(f, k.name())?;
                write!(f, "{}", k.kernel.kernel)?;
                match k.kernel.reduction {
                    Reduction::Sum => write!(f, ")"),
                    Reduction::Mean => write!(f, ", mean)"),
                }
            }
            SpecKernel::Product(k) => fmt_binary(f, &k.a, "*", &k.b, 1),
            SpecKernel::Sum(k) => fmt_binary(f, &k.a, "+", &k.b, 0),
            SpecKernel::Power(k) => fmt_power(f, k),
            SpecKernel::Normalize(k) => write!(f, "normalize({})", k.kernel),
        }
    }
}

/// Prints the element SPEC of the kernel.
impl fmt::Display for ElementKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElementKernel::Constant(k) => fmt_leaf(f, Leaf::Constant(k), None),
            ElementKernel::Delta(k) => fmt_leaf(f, Leaf::Delta(k), None),
            ElementKernel::SqExp(k) => fmt_leaf(f, Leaf::SqExp(k), None),
            ElementKernel::Rq(k) => fmt_leaf(f, Leaf::Rq(k), None),
            ElementKernel::Poly(k) => fmt_leaf(f, Leaf::Poly(k), None),
            ElementKernel::Wendland(k) => fmt_leaf(f, Leaf::Wendland(k), None),
            ElementKernel::Product(k) => fmt_binary(f, &k.a, "*", &k.b, 1),
            ElementKernel::Sum(k) => fmt_binary(f, &k.a, "+", &k.b, 0),
            ElementKernel::Power(k) => fmt_power(f, k),
            ElementKernel::Normalize(k) => write!(f, "normalize({})", k.kernel),
        }
    }
}

// -------------------------------------------------------------------- lexer

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Quoted(String),
    Number(f64),
    Punct(char),
    End,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    text: String,
    column: usize,
}

fn lex(spec: &str) -> Result<Vec<Token>, SpecError> {
    let chars: Vec<char> = spec.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            if s == "inf" {
                Tok::Number(f64::INFINITY)
            } else {
                Tok::Name(s)
            }
        } else if c.is_ascii_digit()
            || c == '.'
            || (c == '-' && i + 1 < chars.len() && (chars[i + 1].is_ascii_digit() || chars[i + 1] == '.'))
        {
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '.'
                    || ((chars[i] == '-' || chars[i] == '+') && matches!(chars[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            match s.parse::<f64>() {
                Ok(x) => Tok::Number(x),
                Err(_) => return Err(error(spec, start + 1, &format!("`{s}`"), "a number such as 0.5 or 1e-3")),
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            if i == chars.len() {
                return Err(error(spec, start + 1, "an unterminated quote", "a closing `\"`"));
            }
            i += 1;
            Tok::Quoted(chars[start + 1..i - 1].iter().collect())
        } else if "(),*+^[]".contains(c) {
            i += 1;
            Tok::Punct(c)
        } else {
            return Err(error(spec, start + 1, &format!("`{c}`"), "a kernel, a number or one of ( ) , * + ^ [ ]"));
        };
        out.push(Token { tok, text: chars[start..i].iter().collect(), column: start + 1 });
    }
    out.push(Token { tok: Tok::End, text: String::new(), column: chars.len() + 1 });
    Ok(out)
}

fn error(spec: &str, column: usize, found: &str, expected: &str) -> SpecError {
    SpecError {
        column,
        found: found.to_string(),
        expected: expected.to_string(),
        spec: spec.to_string(),
        caret: format!("{}^", " ".repeat(column.saturating_sub(1))),
    }
}

// ------------------------------------------------------------------- parser

/// What the parser builds: record kernels (leaves take a field) or element kernels.
trait Build: Sized {
    const FIELDS: bool;
    fn leaf(field: Option<String>, leaf: OwnedLeaf) -> Self;
    fn product(a: Self, b: Self) -> Self;
    fn sum(a: Self, b: Self) -> Self;
    fn power(k: Self, p: f64) -> Self;
    fn normalize(k: Self) -> Self;
    fn rconv(field: String, elem: ElementKernel, reduction: Reduction) -> Option<Self>;
    /// Whether κ(x, x) = 1 for every x by construction.
    fn unit_diagonal(&self) -> bool;
    /// Leaf evaluations per value (saturating).
    fn evaluations(&self) -> u64;
}

enum OwnedLeaf {
    Constant(Constant),
    Delta(KroneckerDelta),
    SqExp(SquareExponential),
    Rq(RationalQuadratic),
    Poly(Polynomial),
    Wendland(CompactPolynomial),
}

impl Build for SpecKernel {
    const FIELDS: bool = true;
    fn leaf(field: Option<String>, leaf: OwnedLeaf) -> Self {
        let name = field.unwrap_or_default();
        match leaf {
            OwnedLeaf::Constant(k) => SpecKernel::Constant(k),
            OwnedLeaf::Delta(k) => SpecKernel::Delta(Field::new(&name, k)),
            OwnedLeaf::SqExp(k) => SpecKernel::SqExp(Field::new(&name, k)),
            OwnedLeaf::Rq(k) => SpecKernel::Rq(Field::new(&name, k)),
            OwnedLeaf::Poly(k) => SpecKernel::Poly(Field::new(&name, k)),
            OwnedLeaf::Wendland(k) => SpecKernel::Wendland(Field::new(&name, k)),
        }
    }
    fn product(a: Self, b: Self) -> Self {
        SpecKernel::Product(Box::new(super::product(a, b)))
    }
    fn sum(a: Self, b: Self) -> Self {
        SpecKernel::Sum(Box::new(super::sum(a, b)))
    }
    fn power(k: Self, p: f64) -> Self {
        SpecKernel::Power(Box::new(super::power(k, p)))
    }
    fn normalize(k: Self) -> Self {
        SpecKernel::Normalize(Box::new(normalize(k)))
    }
    fn rconv(field: String, elem: ElementKernel, reduction: Reduction) -> Option<Self> {
        Some(SpecKernel::RConv(Field::new(&field, RConvolution { kernel: elem, reduction })))
    }
    fn unit_diagonal(&self) -> bool {
        match self {
            SpecKernel::Normalize(_) => true,
            SpecKernel::Constant(k) => k.c() == 1.0,
            SpecKernel::Product(k) => k.a.unit_diagonal() && k.b.unit_diagonal(),
            SpecKernel::Power(k) => k.kernel.unit_diagonal(),
            _ => false,
        }
    }
    fn evaluations(&self) -> u64 {
        match self {
            SpecKernel::Product(k) => k.a.evaluations().saturating_add(k.b.evaluations()),
            SpecKernel::Sum(k) => k.a.evaluations().saturating_add(k.b.evaluations()),
            SpecKernel::Power(k) => k.kernel.evaluations(),
            SpecKernel::Normalize(k) => k.kernel.evaluations().saturating_mul(3),
            SpecKernel::RConv(k) => k.kernel.kernel.evaluations(),
            _ => 1,
        }
    }
}

impl Build for ElementKernel {
    const FIELDS: bool = false;
    fn leaf(_field: Option<String>, leaf: OwnedLeaf) -> Self {
        match leaf {
            OwnedLeaf::Constant(k) => ElementKernel::Constant(k),
            OwnedLeaf::Delta(k) => ElementKernel::Delta(k),
            OwnedLeaf::SqExp(k) => ElementKernel::SqExp(k),
            OwnedLeaf::Rq(k) => ElementKernel::Rq(k),
            OwnedLeaf::Poly(k) => ElementKernel::Poly(k),
            OwnedLeaf::Wendland(k) => ElementKernel::Wendland(k),
        }
    }
    fn product(a: Self, b: Self) -> Self {
        ElementKernel::Product(Box::new(super::product(a, b)))
    }
    fn sum(a: Self, b: Self) -> Self {
        ElementKernel::Sum(Box::new(super::sum(a, b)))
    }
    fn power(k: Self, p: f64) -> Self {
        ElementKernel::Power(Box::new(super::power(k, p)))
    }
    fn normalize(k: Self) -> Self {
        ElementKernel::Normalize(Box::new(normalize(k)))
    }
    fn rconv(_field: String, _elem: ElementKernel, _reduction: Reduction) -> Option<Self> {
        None
    }
    fn unit_diagonal(&self) -> bool {
        match self {
            ElementKernel::Normalize(_) => true,
            ElementKernel::Constant(k) => k.c() == 1.0,
            ElementKernel::Product(k) => k.a.unit_diagonal() && k.b.unit_diagonal(),
            ElementKernel::Power(k) => k.kernel.unit_diagonal(),
            _ => false,
        }
    }
    fn evaluations(&self) -> u64 {
        match self {
            ElementKernel::Product(k) => k.a.evaluations().saturating_add(k.b.evaluations()),
            ElementKernel::Sum(k) => k.a.evaluations().saturating_add(k.b.evaluations()),
            ElementKernel::Power(k) => k.kernel.evaluations(),
            ElementKernel::Normalize(k) => k.kernel.evaluations().saturating_mul(3),
            _ => 1,
        }
    }
}

struct Parser<'s> {
    spec: &'s str,
    toks: Vec<Token>,
    pos: usize,
    /// Current nesting of parentheses and calls.
    depth: usize,
    /// Kernels built so far.
    nodes: usize,
}

const KERNELS: &str = "a number, `(`, or a kernel: constant, delta, sqexp, rq, poly, wendland, normalize, rconv";

fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

impl<'s> Parser<'s> {
    fn new(spec: &'s str) -> Result<Self, SpecError> {
        Ok(Parser { spec, toks: lex(spec)?, pos: 0, depth: 0, nodes: 0 })
    }

    fn peek(&self) -> &Token {
        &self.toks[self.pos]
    }

    fn next(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn err_at(&self, t: &Token, expected: &str) -> SpecError {
        let found = if t.tok == Tok::End { "end of input".to_string() } else { format!("`{}`", t.text) };
        error(self.spec, t.column, &found, expected)
    }

    fn punct(&mut self, c: char, expected: &str) -> Result<Token, SpecError> {
        let t = self.next();
        if t.tok == Tok::Punct(c) {
            Ok(t)
        } else {
            Err(self.err_at(&t, expected))
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek().tok == Tok::Punct(c) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect_end(&mut self) -> Result<(), SpecError> {
        let t = self.next();
        if t.tok == Tok::End {
            Ok(())
        } else {
            Err(self.err_at(&t, "`+`, `*`, `^` or the end of the spec"))
        }
    }

    fn sum<B: Build>(&mut self) -> Result<B, SpecError> {
        let mut k = self.product::<B>()?;
        while self.eat('+') {
            let r = self.product::<B>()?;
            self.count_node()?;
            k = B::sum(k, r);
        }
        Ok(k)
    }

    fn product<B: Build>(&mut self) -> Result<B, SpecError> {
        let mut k = self.power::<B>()?;
        while self.eat('*') {
            let r = self.power::<B>()?;
            self.count_node()?;
            k = B::product(k, r);
        }
        Ok(k)
    }

    fn power<B: Build>(&mut self) -> Result<B, SpecError> {
        let k = self.atom::<B>()?;
        if self.eat('^') {
            let p = self.number("an exponent > 0", positive)?;
            self.count_node()?;
            return Ok(B::power(k, p));
        }
        Ok(k)
    }

    fn number(&mut self, expected: &str, valid: impl Fn(f64) -> bool) -> Result<f64, SpecError> {
        let t = self.next();
        match t.tok {
            Tok::Number(x) if valid(x) => Ok(x),
            _ => Err(self.err_at(&t, expected)),
        }
    }

    /// Counts one more kernel against [`MAX_NODES`].
    fn count_node(&mut self) -> Result<(), SpecError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            let t = self.toks[self.pos.saturating_sub(1)].clone();
            return Err(self
                .err_at(&t, &format!("a SPEC of at most {MAX_NODES} kernels and operators (write a shorter kernel)")));
        }
        Ok(())
    }

    fn atom<B: Build>(&mut self) -> Result<B, SpecError> {
        let t = self.next();
        if matches!(t.tok, Tok::Punct('(') | Tok::Name(_)) {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.err_at(
                    &t,
                    &format!("parentheses and kernel calls nested at most {MAX_DEPTH} deep (simplify the SPEC)"),
                ));
            }
        }
        let k = match &t.tok {
            Tok::Number(c) => {
                if !positive(*c) {
                    return Err(self.err_at(&t, "a constant > 0"));
                }
                self.count_node()?;
                return Ok(B::leaf(None, OwnedLeaf::Constant(Constant::new(*c))));
            }
            Tok::Punct('(') => {
                let k = self.sum::<B>()?;
                self.punct(')', "`)`, `+`, `*` or `^`")?;
                k
            }
            Tok::Name(name) => self.call::<B>(&t, &name.to_ascii_lowercase())?,
            _ => return Err(self.err_at(&t, KERNELS)),
        };
        self.depth -= 1;
        Ok(k)
    }

    fn field(&mut self) -> Result<String, SpecError> {
        let t = self.next();
        let name = match &t.tok {
            Tok::Name(n) if !is_keyword(n) => n.clone(),
            Tok::Quoted(n) => n.clone(),
            _ => return Err(self.err_at(&t, "a label field name (such as label or attr0)")),
        };
        self.punct(',', "`,` after the field name")?;
        Ok(name)
    }

    /// Optional `, BOUNDS`; `Ok(None)` when absent.
    fn bounds(&mut self) -> Result<Option<(Bounds, Token)>, SpecError> {
        if self.peek().tok != Tok::Punct(',') {
            return Ok(None);
        }
        let save = self.pos;
        self.next();
        let t = self.peek().clone();
        match &t.tok {
            Tok::Name(n) if n == "fixed" => {
                self.next();
                Ok(Some((Bounds::Fixed, t)))
            }
            Tok::Punct('[') => {
                self.next();
                let lo = self.number("a lower bound", |x| !x.is_nan())?;
                self.punct(',', "`,` between the bounds")?;
                let hi = self.number("an upper bound", |x| !x.is_nan())?;
                self.punct(']', "`]` after the bounds")?;
                Ok(Some((Bounds::Range(lo, hi), t)))
            }
            _ => {
                self.pos = save;
                Ok(None)
            }
        }
    }

    fn apply_bounds<K>(
        &self,
        k: K,
        b: Option<(Bounds, Token)>,
        f: impl FnOnce(K, Bounds) -> Result<K, KernelError>,
    ) -> Result<K, SpecError> {
        match b {
            None => Ok(k),
            Some((bounds, t)) => f(k, bounds).map_err(|e| self.err_at(&t, &format!("valid bounds ({e})"))),
        }
    }

    fn close(&mut self, what: &str) -> Result<(), SpecError> {
        self.punct(')', &format!("`)` to close {what}"))?;
        Ok(())
    }

    fn call<B: Build>(&mut self, name_tok: &Token, name: &str) -> Result<B, SpecError> {
        let canonical = match name {
            "constant" => "constant",
            "delta" | "kroneckerdelta" => "delta",
            "sqexp" | "squareexponential" => "sqexp",
            "rq" | "rationalquadratic" => "rq",
            "poly" | "polynomial" => "poly",
            "wendland" | "compact" | "compactpolynomial" => "wendland",
            "normalize" => "normalize",
            "rconv" => "rconv",
            _ => return Err(self.err_at(name_tok, KERNELS)),
        };
        self.punct('(', &format!("`(` after {canonical}"))?;
        self.count_node()?;
        let field =
            if B::FIELDS && !matches!(canonical, "constant" | "normalize") { Some(self.field()?) } else { None };
        let leaf = match canonical {
            "constant" => {
                let c = self.number("a constant c > 0", positive)?;
                let b = self.bounds()?;
                OwnedLeaf::Constant(self.apply_bounds(Constant::new(c), b, Constant::with_bounds)?)
            }
            "delta" => {
                let h = self.number("h in [0, 1] (the value for unequal labels)", |x| (0.0..=1.0).contains(&x))?;
                let b = self.bounds()?;
                OwnedLeaf::Delta(self.apply_bounds(KroneckerDelta::new(h), b, KroneckerDelta::with_bounds)?)
            }
            "sqexp" => {
                let l = self.number("a length scale > 0", positive)?;
                let b = self.bounds()?;
                OwnedLeaf::SqExp(self.apply_bounds(SquareExponential::new(l), b, SquareExponential::with_bounds)?)
            }
            "rq" => {
                let l = self.number("a length scale > 0", positive)?;
                self.punct(',', "`,` and alpha > 0")?;
                let a = self.number("alpha > 0", positive)?;
                let k = RationalQuadratic::new(l, a);
                let k = match self.bounds()? {
                    None => k,
                    Some((bl, t)) => {
                        self.punct(',', "`,` and the bounds of alpha")?;
                        let (ba, _) = self.bounds_required()?;
                        k.with_bounds(bl, ba).map_err(|e| self.err_at(&t, &format!("valid bounds ({e})")))?
                    }
                };
                OwnedLeaf::Rq(k)
            }
            "poly" => {
                let c = self.number("an offset >= 0", |x| x.is_finite() && x >= 0.0)?;
                self.punct(',', "`,` and the degree")?;
                let d =
                    self.number("an integer degree in 0..=64", |x| x.fract() == 0.0 && (0.0..=64.0).contains(&x))?;
                let b = self.bounds()?;
                OwnedLeaf::Poly(self.apply_bounds(Polynomial::new(c, d as u32), b, Polynomial::with_bounds)?)
            }
            "wendland" => {
                let r = self.number("a support radius > 0", positive)?;
                let b = self.bounds()?;
                OwnedLeaf::Wendland(self.apply_bounds(CompactPolynomial::new(r), b, CompactPolynomial::with_bounds)?)
            }
            "normalize" => {
                let k = self.sum::<B>()?;
                self.close("normalize(")?;
                if k.unit_diagonal() {
                    // κ(x, x) = 1 already: normalize(κ) = κ, at no cost
                    return Ok(k);
                }
                let k = B::normalize(k);
                if k.evaluations() > MAX_EVALUATIONS {
                    return Err(self.err_at(
                        name_tok,
                        &format!(
                            "a kernel that costs at most {MAX_EVALUATIONS} base-kernel evaluations per value \
                             (normalize(k) evaluates k three times; this one needs {}): nest fewer normalize(",
                            k.evaluations()
                        ),
                    ));
                }
                return Ok(k);
            }
            _ => {
                // rconv
                let Some(field) = field else {
                    return Err(self.err_at(name_tok, "an element kernel (rconv cannot be nested in rconv)"));
                };
                let elem = self.sum::<ElementKernel>()?;
                let mut reduction = Reduction::Sum;
                if self.eat(',') {
                    let t = self.next();
                    reduction = match &t.tok {
                        Tok::Name(n) if n == "sum" => Reduction::Sum,
                        Tok::Name(n) if n == "mean" => Reduction::Mean,
                        _ => return Err(self.err_at(&t, "`sum` or `mean`")),
                    };
                }
                self.close("rconv(")?;
                return B::rconv(field, elem, reduction).ok_or_else(|| self.err_at(name_tok, "an element kernel"));
            }
        };
        self.close(&format!("{canonical}("))?;
        Ok(B::leaf(field, leaf))
    }

    /// `BOUNDS` right after a `,` that was just read.
    fn bounds_required(&mut self) -> Result<(Bounds, Token), SpecError> {
        self.pos -= 1; // back onto the `,`, which `bounds` reads
        let next = self.toks[self.pos + 1].clone();
        self.bounds()?.ok_or_else(|| self.err_at(&next, "bounds `[lo, hi]` or `fixed`"))
    }
}
