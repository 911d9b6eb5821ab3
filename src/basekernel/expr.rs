//! One-definition kernels: a kernel's formula written once, as an expression
//! over two labels' numeric fields and named hyperparameters, gives its value,
//! its range, its CPU gradient, its CUDA form and its GPU gradient.
//!
//! ```
//! use kronograph::basekernel::expr::{hyper, x, y};
//! use kronograph::basekernel::{BaseKernel, ExprKernel};
//! // The Laplacian exp(−|x − y|/ℓ) on the float field `charge`, ℓ ∈ [0.01, 100].
//! let ell = hyper("ell", 1.0, (1e-2, 1e2));
//! let k = ExprKernel::new((-(x("charge") - y("charge")).abs() / ell).exp()).unwrap();
//! # let _ = k;
//! ```
//!
//! # The one representation
//!
//! [`ExprKernel::new`] compiles the expression tree into a postfix program
//! over a small stack. One program is evaluated
//! - in `f64` for [`value`](BaseKernel::value),
//! - in dual numbers ([`Dual`]: a value and one tangent per trained
//!   hyperparameter, seeded with θ_k so the tangent is ∂/∂(log θ_k)) for
//!   [`gradient`](BaseKernel::gradient),
//! - in interval arithmetic for [`range`](BaseKernel::range) (fields range
//!   over all reals),
//!
//! and printed as a C++ expression for [`cuda`](BaseKernel::cuda), which the
//! CUDA layer evaluates in reals (the value) and in its own dual numbers
//! ([`cuda_dual_helper`](super::cuda_dual_helper), the gradient). The Rust
//! [`Dual`] follows the same rules as the CUDA one (including the
//! conventions where a derivative does not exist: `sqrt` and `abs` have
//! tangent 0 at 0, `pow(0, p)` has ∂/∂x = 1 if p = 1 else 0), so the CPU and
//! GPU gradients are the same computation and cannot drift apart.
//!
//! # Names
//!
//! A hyperparameter is identified by its name: the same name used twice in a
//! formula is one θ (its definitions must agree). A field is read from both
//! labels: [`x`] from the first, [`y`] from the second; fields must be of
//! kind `int` or `float`. On [`Record`](crate::graph::Record) labels the
//! names are resolved once when the kernel meets the data (the marginalized
//! graph kernel binds its kernels itself; [`BaseKernel::bind`] does it by
//! hand); on [`label_struct!`](crate::label_struct) types and plain numbers
//! (one field, `value`) too.

use super::hyper::Param;
use super::{builtin_ops, c_identifier, check_len, BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError};
use crate::graph::{FieldKind, Label, LabelError, Record, Schema, Value};
use smallvec::SmallVec;
use std::fmt;
use std::ops;
use std::sync::Arc;

/// An expression over two labels' fields and named hyperparameters (see the
/// [module documentation](self)). Build it with [`x`], [`y`], [`hyper`],
/// [`constant`], the operators `+ - * /` (also with `f64` on either side),
/// unary `-`, and the methods [`exp`](Self::exp), [`ln`](Self::ln),
/// [`abs`](Self::abs), [`sqrt`](Self::sqrt), [`powf`](Self::powf),
/// [`pow`](Self::pow), [`square`](Self::square) and [`if_eq`].
#[derive(Clone, Debug, PartialEq)]
pub struct Expr(Arc<Node>);

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Const(f64),
    Hyper { name: String, value: f64, bounds: Bounds },
    Field { second: bool, name: String },
    Unary(Un, Expr),
    Binary(Bin, Expr, Expr),
    Powf(Expr, f64),
    IfEq(Expr, Expr, Expr, Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Un {
    Neg,
    Exp,
    Ln,
    Abs,
    Sqrt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// The field `name` of the first label.
pub fn x(name: &str) -> Expr {
    Expr(Arc::new(Node::Field { second: false, name: name.to_string() }))
}

/// The field `name` of the second label.
pub fn y(name: &str) -> Expr {
    Expr(Arc::new(Node::Field { second: true, name: name.to_string() }))
}

/// A constant.
pub fn constant(c: f64) -> Expr {
    Expr(Arc::new(Node::Const(c)))
}

/// The hyperparameter `name`, now `value`, trained within `bounds` (a
/// `(lo, hi)` pair or a [`Bounds`]; [`Bounds::Fixed`] keeps it fixed). Its
/// value must be positive: the gradient is taken with respect to log θ.
pub fn hyper(name: &str, value: f64, bounds: impl Into<Bounds>) -> Expr {
    Expr(Arc::new(Node::Hyper { name: name.to_string(), value, bounds: bounds.into() }))
}

/// `then` where `a == b`, else `otherwise` (e.g. the Kronecker delta
/// `if_eq(x("label"), y("label"), constant(1.0), hyper("h", 0.5, (1e-3, 1.0)))`).
pub fn if_eq(a: Expr, b: Expr, then: Expr, otherwise: Expr) -> Expr {
    Expr(Arc::new(Node::IfEq(a, b, then, otherwise)))
}

impl From<(f64, f64)> for Bounds {
    fn from((lo, hi): (f64, f64)) -> Self {
        Bounds::Range(lo, hi)
    }
}

impl From<f64> for Expr {
    fn from(c: f64) -> Self {
        constant(c)
    }
}

impl Expr {
    fn unary(self, op: Un) -> Expr {
        Expr(Arc::new(Node::Unary(op, self)))
    }
    /// eˣ.
    pub fn exp(self) -> Expr {
        self.unary(Un::Exp)
    }
    /// ln x.
    pub fn ln(self) -> Expr {
        self.unary(Un::Ln)
    }
    /// |x|.
    pub fn abs(self) -> Expr {
        self.unary(Un::Abs)
    }
    /// √x.
    pub fn sqrt(self) -> Expr {
        self.unary(Un::Sqrt)
    }
    /// x^p for a constant p.
    pub fn powf(self, p: f64) -> Expr {
        Expr(Arc::new(Node::Powf(self, p)))
    }
    /// x² (as `x.powf(2.0)`, so that its range is known to be ≥ 0).
    pub fn square(self) -> Expr {
        self.powf(2.0)
    }
    /// x^e for an expression e (x must be positive where e varies).
    pub fn pow(self, e: impl Into<Expr>) -> Expr {
        Expr(Arc::new(Node::Binary(Bin::Pow, self, e.into())))
    }
}

impl ops::Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.unary(Un::Neg)
    }
}

macro_rules! expr_binop {
    ($tr:ident, $f:ident, $op:expr) => {
        impl<R: Into<Expr>> ops::$tr<R> for Expr {
            type Output = Expr;
            fn $f(self, rhs: R) -> Expr {
                Expr(Arc::new(Node::Binary($op, self, rhs.into())))
            }
        }
        impl ops::$tr<Expr> for f64 {
            type Output = Expr;
            fn $f(self, rhs: Expr) -> Expr {
                Expr(Arc::new(Node::Binary($op, constant(self), rhs)))
            }
        }
    };
}
expr_binop!(Add, add, Bin::Add);
expr_binop!(Sub, sub, Bin::Sub);
expr_binop!(Mul, mul, Bin::Mul);
expr_binop!(Div, div, Bin::Div);

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Node::Const(c) => write!(f, "{c:?}"),
            Node::Hyper { name, .. } => write!(f, "{name}"),
            Node::Field { second, name } => write!(f, "{}.{name}", if *second { "y" } else { "x" }),
            Node::Unary(Un::Neg, a) => write!(f, "(-{a})"),
            Node::Unary(op, a) => write!(f, "{}({a})", format!("{op:?}").to_lowercase()),
            Node::Binary(Bin::Pow, a, b) => write!(f, "pow({a}, {b})"),
            Node::Binary(op, a, b) => {
                let s = match op {
                    Bin::Add => "+",
                    Bin::Sub => "-",
                    Bin::Mul => "*",
                    _ => "/",
                };
                write!(f, "({a} {s} {b})")
            }
            Node::Powf(a, p) => write!(f, "pow({a}, {p:?})"),
            Node::IfEq(a, b, t, e) => write!(f, "({a} == {b} ? {t} : {e})"),
        }
    }
}

/// One instruction of the compiled program.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Const(f64),
    Param(u32),
    X(u32),
    Y(u32),
    Un(Un),
    Bin(Bin),
    Powf(f64),
    IfEq,
}

/// Label types whose numeric fields an [`ExprKernel`] reads by position.
///
/// Implemented for [`Record`], for the plain number types (one field named
/// `value`) and by [`label_struct!`](crate::label_struct).
pub trait ExprLabel: Label {
    /// The value of the field at position `i` as `f64` (NaN when that field
    /// is not a number).
    fn number(&self, i: usize) -> f64;

    /// The field names and kinds of this label (records: their schema;
    /// plain numbers: one field `value`).
    fn fields(&self) -> Option<Arc<Schema>> {
        self.schema().cloned()
    }

    /// Whether the label is one number (its CUDA form is the label itself,
    /// not a struct member).
    const SCALAR: bool = false;
}

impl ExprLabel for Record {
    #[inline(always)]
    fn number(&self, i: usize) -> f64 {
        match self.values().get(i) {
            Some(Value::Float(v)) => *v,
            Some(Value::Int(v)) => *v as f64,
            _ => f64::NAN,
        }
    }
}

/// The schema of a plain-number label: one field `value` of `kind`.
fn scalar_schema(kind: FieldKind) -> Arc<Schema> {
    Arc::new(Schema::new().with("value", kind))
}

macro_rules! scalar_expr_label {
    ($kind:ident: $($t:ty),*) => {$(
        impl ExprLabel for $t {
            #[inline(always)]
            fn number(&self, _: usize) -> f64 {
                *self as f64
            }
            fn fields(&self) -> Option<Arc<Schema>> {
                Some(scalar_schema(FieldKind::$kind))
            }
            const SCALAR: bool = true;
        }
    )*};
}
scalar_expr_label!(Int: u8, u16, u32, i32, i64);
scalar_expr_label!(Float: f32, f64);

/// A base kernel written as one [`Expr`] (see the [module documentation](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct ExprKernel {
    expr: Expr,
    program: Vec<Op>,
    stack: usize,
    names: Vec<String>,
    params: Vec<Param>,
    fields: Vec<String>,
    /// Positions of `fields` in the bound schema (empty until bound).
    index: Vec<u32>,
    /// C member names of `fields` in the bound schema.
    members: Vec<String>,
}

builtin_ops!(impl[] ExprKernel);

impl ExprKernel {
    /// Compiles `expr`.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] when one hyperparameter name has two
    /// different definitions, a hyperparameter's value is not positive and
    /// finite or lies outside its bounds, or the expression holds no field
    /// and is deeper than 10 000 nodes.
    pub fn new(expr: Expr) -> Result<Self, KernelError> {
        let mut k = ExprKernel {
            expr: expr.clone(),
            program: Vec::new(),
            stack: 0,
            names: Vec::new(),
            params: Vec::new(),
            fields: Vec::new(),
            index: Vec::new(),
            members: Vec::new(),
        };
        let mut depth = 0usize;
        k.compile(&expr, &mut depth, 0)?;
        Ok(k)
    }

    /// The expression.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// The field names the expression reads, in first-use order.
    pub fn field_names(&self) -> &[String] {
        &self.fields
    }

    fn compile(&mut self, e: &Expr, depth: &mut usize, level: usize) -> Result<(), KernelError> {
        if level > 10_000 {
            return Err(KernelError::InvalidParameter("kernel expression deeper than 10000 nodes".into()));
        }
        let push = |k: &mut Self, op: Op, depth: &mut usize, delta: isize| {
            k.program.push(op);
            *depth = (*depth as isize + delta) as usize;
            k.stack = k.stack.max(*depth);
        };
        match &*e.0 {
            Node::Const(c) => push(self, Op::Const(*c), depth, 1),
            Node::Hyper { name, value, bounds } => {
                let i = match self.names.iter().position(|n| n == name) {
                    Some(i) => {
                        let p = self.params[i];
                        if p.value != *value || p.bounds != *bounds {
                            return Err(KernelError::InvalidParameter(format!(
                                "hyperparameter {name:?} is defined twice, as {} in {} and as {value} in {bounds}; \
                                 give the two different names or one definition",
                                p.value, p.bounds
                            )));
                        }
                        i
                    }
                    None => {
                        if !(value.is_finite() && *value > 0.0) {
                            return Err(KernelError::InvalidParameter(format!(
                                "hyperparameter {name:?} = {value}: must be finite and > 0 (gradients are taken \
                                 with respect to its logarithm)"
                            )));
                        }
                        let mut p = Param { value: *value, bounds: Bounds::Fixed };
                        p.rebound(name, *bounds, |v| v > 0.0)?;
                        self.names.push(name.clone());
                        self.params.push(p);
                        self.params.len() - 1
                    }
                };
                push(self, Op::Param(i as u32), depth, 1)
            }
            Node::Field { second, name } => {
                let i = match self.fields.iter().position(|n| n == name) {
                    Some(i) => i,
                    None => {
                        self.fields.push(name.clone());
                        self.fields.len() - 1
                    }
                };
                let op = if *second { Op::Y(i as u32) } else { Op::X(i as u32) };
                push(self, op, depth, 1)
            }
            Node::Unary(op, a) => {
                self.compile(a, depth, level + 1)?;
                push(self, Op::Un(*op), depth, 0)
            }
            Node::Binary(op, a, b) => {
                self.compile(a, depth, level + 1)?;
                self.compile(b, depth, level + 1)?;
                push(self, Op::Bin(*op), depth, -1)
            }
            Node::Powf(a, p) => {
                self.compile(a, depth, level + 1)?;
                push(self, Op::Powf(*p), depth, 0)
            }
            Node::IfEq(a, b, t, o) => {
                for c in [a, b, t, o] {
                    self.compile(c, depth, level + 1)?;
                }
                push(self, Op::IfEq, depth, -3)
            }
        }
        Ok(())
    }

    /// Field positions: the bound ones, else resolved by name on `label`.
    #[inline(always)]
    fn positions<'a, T: ExprLabel>(&'a self, label: &T, buf: &'a mut SmallVec<[u32; 8]>) -> &'a [u32] {
        if !self.index.is_empty() || self.fields.is_empty() {
            return &self.index;
        }
        let schema = label.fields();
        buf.extend(self.fields.iter().map(|n| schema.as_ref().and_then(|s| s.index(n)).map_or(u32::MAX, |i| i as u32)));
        buf
    }

    /// Runs the program in the number type `V`.
    #[inline(always)]
    fn run<T: ExprLabel, V: Num>(&self, a: &T, b: &T, param: impl Fn(usize) -> V) -> V {
        let mut buf = SmallVec::new();
        let pos = self.positions(a, &mut buf);
        let field = |l: &T, i: u32| match pos.get(i as usize) {
            Some(&p) if p != u32::MAX => l.number(p as usize),
            _ => f64::NAN,
        };
        let mut st: SmallVec<[V; 16]> = SmallVec::with_capacity(self.stack);
        for op in &self.program {
            match *op {
                Op::Const(c) => st.push(V::real(c)),
                Op::Param(i) => st.push(param(i as usize)),
                Op::X(i) => st.push(V::real(field(a, i))),
                Op::Y(i) => st.push(V::real(field(b, i))),
                Op::Un(u) => {
                    let v = st.pop().expect("compiled program");
                    st.push(v.unary(u));
                }
                Op::Bin(o) => {
                    let r = st.pop().expect("compiled program");
                    let l = st.pop().expect("compiled program");
                    st.push(l.binary(o, r));
                }
                Op::Powf(p) => {
                    let v = st.pop().expect("compiled program");
                    st.push(v.powf(p));
                }
                Op::IfEq => {
                    let o = st.pop().expect("compiled program");
                    let t = st.pop().expect("compiled program");
                    let r = st.pop().expect("compiled program");
                    let l = st.pop().expect("compiled program");
                    st.push(if l.value() == r.value() { t } else { o });
                }
            }
        }
        st.pop().expect("compiled program")
    }

    /// [`run`](Self::run) in `f64` on a bound kernel, with the stack in a
    /// fixed array (the hot path of [`value`](BaseKernel::value)).
    #[inline(always)]
    fn run_f64<T: ExprLabel>(&self, a: &T, b: &T) -> f64 {
        let mut st = [0.0f64; FAST_STACK];
        let mut sp = 0usize;
        for op in &self.program {
            match *op {
                Op::Const(c) => {
                    st[sp] = c;
                    sp += 1;
                }
                Op::Param(i) => {
                    st[sp] = self.params[i as usize].value;
                    sp += 1;
                }
                Op::X(i) => {
                    st[sp] = a.number(self.index[i as usize] as usize);
                    sp += 1;
                }
                Op::Y(i) => {
                    st[sp] = b.number(self.index[i as usize] as usize);
                    sp += 1;
                }
                Op::Un(u) => st[sp - 1] = st[sp - 1].unary(u),
                Op::Bin(o) => {
                    sp -= 1;
                    st[sp - 1] = st[sp - 1].binary(o, st[sp]);
                }
                Op::Powf(p) => st[sp - 1] = powf(st[sp - 1], p),
                Op::IfEq => {
                    sp -= 3;
                    st[sp - 1] = if st[sp - 1] == st[sp] { st[sp + 1] } else { st[sp + 2] };
                }
            }
        }
        st[0]
    }

    /// The interval of values over all field values at the current θ.
    fn interval(&self) -> (f64, f64) {
        let mut st: Vec<(f64, f64)> = Vec::with_capacity(self.stack);
        for op in &self.program {
            let v = match *op {
                Op::Const(c) => (c, c),
                Op::Param(i) => (self.params[i as usize].value, self.params[i as usize].value),
                Op::X(_) | Op::Y(_) => (f64::NEG_INFINITY, f64::INFINITY),
                Op::Un(u) => interval_unary(u, st.pop().expect("compiled program")),
                Op::Bin(o) => {
                    let r = st.pop().expect("compiled program");
                    let l = st.pop().expect("compiled program");
                    interval_binary(o, l, r)
                }
                Op::Powf(p) => interval_binary(Bin::Pow, st.pop().expect("compiled program"), (p, p)),
                Op::IfEq => {
                    let o = st.pop().expect("compiled program");
                    let t = st.pop().expect("compiled program");
                    st.pop();
                    st.pop();
                    (t.0.min(o.0), t.1.max(o.1))
                }
            };
            st.push(if v.0.is_nan() || v.1.is_nan() { (f64::NEG_INFINITY, f64::INFINITY) } else { v });
        }
        st.pop().expect("compiled program")
    }

    fn bind_schema(&mut self, schema: &Schema) -> Result<(), KernelError> {
        let idents = super::codegen::schema_identifiers(schema);
        let (mut index, mut members) = (Vec::new(), Vec::new());
        for name in &self.fields {
            let i = schema
                .index(name)
                .ok_or_else(|| LabelError::UnknownField { name: name.clone(), available: schema.describe() })?;
            let (_, kind) = schema.fields().nth(i).expect("index from the schema");
            if !matches!(kind, FieldKind::Int | FieldKind::Float) {
                return Err(LabelError::FieldKind {
                    name: name.clone(),
                    expected: "int or float (a kernel expression reads numbers)".into(),
                    found: kind,
                }
                .into());
            }
            index.push(i as u32);
            members.push(idents[i].clone());
        }
        self.index = index;
        self.members = members;
        Ok(())
    }
}

impl<T: ExprLabel> BaseKernel<T> for ExprKernel {
    #[inline]
    fn value(&self, a: &T, b: &T) -> f64 {
        if self.stack <= FAST_STACK && (!self.index.is_empty() || self.fields.is_empty()) {
            return self.run_f64(a, b);
        }
        self.run(a, b, |i| self.params[i].value)
    }

    fn range(&self) -> (f64, f64) {
        self.interval()
    }

    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        self.names.iter().zip(&self.params).map(|(n, p)| p.hyper(n)).collect()
    }

    fn num_hyperparameters(&self) -> usize {
        self.params.len()
    }

    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, self.params.len())?;
        for ((p, n), &v) in self.params.iter().zip(&self.names).zip(theta) {
            p.check(n, v, |v| v > 0.0)?;
        }
        for (p, &v) in self.params.iter_mut().zip(theta) {
            p.value = v;
        }
        Ok(())
    }

    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        let active: Vec<usize> = (0..self.params.len()).filter(|&i| self.params[i].bounds != Bounds::Fixed).collect();
        let n = active.len();
        let d = self.run(a, b, |i| {
            let v = self.params[i].value;
            match active.iter().position(|&k| k == i) {
                Some(j) => Dual::seed(v, j, n),
                None => Dual::constant(v, n),
            }
        });
        grad.iter_mut().for_each(|g| *g = 0.0);
        for (j, &k) in active.iter().enumerate() {
            if let Some(g) = grad.get_mut(k) {
                *g = d.d.get(j).copied().unwrap_or(0.0);
            }
        }
        d.v
    }

    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.bind_schema(schema)
    }

    fn cuda(&self, a: &str, b: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        let slots: Vec<String> = self.params.iter().map(|p| gen.param(p.value)).collect();
        let real = gen.real;
        let member = |l: &str, i: u32| -> String {
            if T::SCALAR {
                format!("(({real}){l})")
            } else {
                let m = self.members.get(i as usize).cloned().unwrap_or_else(|| c_identifier(&self.fields[i as usize]));
                format!("(({real}){l}.{m})")
            }
        };
        let mut st: Vec<String> = Vec::new();
        for op in &self.program {
            let s = match *op {
                Op::Const(c) => gen.lit(c),
                Op::Param(i) => slots[i as usize].clone(),
                Op::X(i) => member(a, i),
                Op::Y(i) => member(b, i),
                Op::Un(u) => {
                    let v = st.pop().expect("compiled program");
                    match u {
                        Un::Neg => format!("(-{v})"),
                        Un::Exp => format!("exp({v})"),
                        Un::Ln => format!("log({v})"),
                        Un::Abs => format!("fabs({v})"),
                        Un::Sqrt => format!("sqrt({v})"),
                    }
                }
                Op::Bin(o) => {
                    let r = st.pop().expect("compiled program");
                    let l = st.pop().expect("compiled program");
                    match o {
                        Bin::Add => format!("({l} + {r})"),
                        Bin::Sub => format!("({l} - {r})"),
                        Bin::Mul => format!("({l} * {r})"),
                        Bin::Div => format!("({l} / {r})"),
                        Bin::Pow => format!("pow({l}, {r})"),
                    }
                }
                Op::Powf(p) => {
                    let v = st.pop().expect("compiled program");
                    format!("pow({v}, {})", gen.lit(p))
                }
                Op::IfEq => {
                    let o = st.pop().expect("compiled program");
                    let t = st.pop().expect("compiled program");
                    let r = st.pop().expect("compiled program");
                    let l = st.pop().expect("compiled program");
                    // a real branch converts to the dual type implicitly in the gradient form
                    format!("({l} == {r} ? {t} : {o})")
                }
            };
            st.push(s);
        }
        Ok(st.pop().expect("compiled program"))
    }
}

/// The number types the program runs in: `f64` and [`Dual`].
trait Num: Clone {
    fn real(x: f64) -> Self;
    /// x^p for a constant p.
    fn powf(self, p: f64) -> Self {
        self.binary(Bin::Pow, Self::real(p))
    }
    fn value(&self) -> f64;
    fn unary(self, op: Un) -> Self;
    fn binary(self, op: Bin, r: Self) -> Self;
}

/// The stack depth up to which [`value`](BaseKernel::value) runs on a fixed array.
const FAST_STACK: usize = 16;

/// x^p; x·x for p = 2 (equal up to rounding to the `pow` of the dual and
/// CUDA forms).
#[inline(always)]
fn powf(x: f64, p: f64) -> f64 {
    if p == 2.0 {
        x * x
    } else {
        x.powf(p)
    }
}

impl Num for f64 {
    #[inline(always)]
    fn real(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn powf(self, p: f64) -> Self {
        powf(self, p)
    }
    #[inline(always)]
    fn value(&self) -> f64 {
        *self
    }
    #[inline(always)]
    fn unary(self, op: Un) -> Self {
        match op {
            Un::Neg => -self,
            Un::Exp => self.exp(),
            Un::Ln => self.ln(),
            Un::Abs => self.abs(),
            Un::Sqrt => self.sqrt(),
        }
    }
    #[inline(always)]
    fn binary(self, op: Bin, r: Self) -> Self {
        match op {
            Bin::Add => self + r,
            Bin::Sub => self - r,
            Bin::Mul => self * r,
            Bin::Div => self / r,
            Bin::Pow => self.powf(r),
        }
    }
}

/// A dual number: value `v` and tangents `d` (derivatives with respect to
/// the seeded hyperparameters' logarithms), with the rules of the CUDA dual
/// type ([`cuda_dual_helper`](super::cuda_dual_helper)).
#[derive(Clone, Debug, PartialEq)]
pub struct Dual {
    /// The value.
    pub v: f64,
    /// The tangents.
    pub d: SmallVec<[f64; 4]>,
}

impl Dual {
    /// A constant (tangents 0) among `n` tangents.
    pub fn constant(v: f64, n: usize) -> Self {
        Dual { v, d: SmallVec::from_elem(0.0, n) }
    }

    /// θ = `v` seeded as input `k` of `n`: tangent k is v (∂θ/∂log θ).
    pub fn seed(v: f64, k: usize, n: usize) -> Self {
        let mut z = Dual::constant(v, n);
        z.d[k] = v;
        z
    }

    /// The dual with value `v` and tangent `c · a.d`.
    fn chain(v: f64, c: f64, a: &Dual) -> Self {
        Dual { v, d: a.d.iter().map(|t| c * t).collect() }
    }

    /// The dual with value `v` and tangent `c · a.d + e · b.d`.
    fn chain2(v: f64, c: f64, a: &Dual, e: f64, b: &Dual) -> Self {
        let n = a.d.len().max(b.d.len());
        let at = |x: &Dual, i: usize| x.d.get(i).copied().unwrap_or(0.0);
        Dual { v, d: (0..n).map(|i| c * at(a, i) + e * at(b, i)).collect() }
    }
}

impl Num for Dual {
    fn real(x: f64) -> Self {
        Dual { v: x, d: SmallVec::new() }
    }

    fn value(&self) -> f64 {
        self.v
    }
    fn unary(self, op: Un) -> Self {
        let a = &self;
        match op {
            Un::Neg => Dual::chain(-a.v, -1.0, a),
            Un::Exp => {
                let e = a.v.exp();
                Dual::chain(e, e, a)
            }
            Un::Ln => Dual::chain(a.v.ln(), 1.0 / a.v, a),
            Un::Abs => Dual::chain(
                a.v.abs(),
                if a.v > 0.0 {
                    1.0
                } else if a.v < 0.0 {
                    -1.0
                } else {
                    0.0
                },
                a,
            ),
            Un::Sqrt => {
                let q = a.v.sqrt();
                Dual::chain(q, if q > 0.0 { 1.0 / (2.0 * q) } else { 0.0 }, a)
            }
        }
    }
    fn binary(self, op: Bin, b: Self) -> Self {
        let a = &self;
        match op {
            Bin::Add => Dual::chain2(a.v + b.v, 1.0, a, 1.0, &b),
            Bin::Sub => Dual::chain2(a.v - b.v, 1.0, a, -1.0, &b),
            Bin::Mul => Dual::chain2(a.v * b.v, b.v, a, a.v, &b),
            Bin::Div => {
                let q = a.v / b.v;
                Dual::chain2(q, 1.0 / b.v, a, -q / b.v, &b)
            }
            Bin::Pow => {
                let y = a.v.powf(b.v);
                let dx = if a.v == 0.0 {
                    if b.v == 1.0 {
                        1.0
                    } else {
                        0.0
                    }
                } else {
                    b.v * y / a.v
                };
                let dp = if a.v == 0.0 { 0.0 } else { a.v.abs().ln() * y };
                Dual::chain2(y, dx, a, dp, &b)
            }
        }
    }
}

fn interval_unary(op: Un, (lo, hi): (f64, f64)) -> (f64, f64) {
    match op {
        Un::Neg => (-hi, -lo),
        Un::Exp => (lo.exp(), hi.exp()),
        Un::Ln => (if lo <= 0.0 { f64::NEG_INFINITY } else { lo.ln() }, hi.ln()),
        Un::Abs => {
            if lo >= 0.0 {
                (lo, hi)
            } else if hi <= 0.0 {
                (-hi, -lo)
            } else {
                (0.0, hi.max(-lo))
            }
        }
        Un::Sqrt => (lo.max(0.0).sqrt(), hi.sqrt()),
    }
}

/// `a * b` with 0 · ∞ = 0 (an interval end at 0 times an unbounded one).
fn mul0(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        a * b
    }
}

fn hull(v: [f64; 4]) -> (f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo, hi)
}

const ALL: (f64, f64) = (f64::NEG_INFINITY, f64::INFINITY);

fn interval_binary(op: Bin, (a, b): (f64, f64), (c, d): (f64, f64)) -> (f64, f64) {
    match op {
        Bin::Add => (a + c, b + d),
        Bin::Sub => (a - d, b - c),
        Bin::Mul => hull([mul0(a, c), mul0(a, d), mul0(b, c), mul0(b, d)]),
        Bin::Div => {
            if c <= 0.0 && d >= 0.0 {
                return ALL;
            }
            let (ic, id) = (1.0 / d, 1.0 / c);
            hull([mul0(a, ic), mul0(a, id), mul0(b, ic), mul0(b, id)])
        }
        Bin::Pow => {
            if c == d {
                let p = c;
                if a >= 0.0 {
                    // monotone on [0, ∞)
                    let (x, y) = (a.powf(p), b.powf(p));
                    return (x.min(y), x.max(y));
                }
                if p.fract() == 0.0 && p >= 0.0 {
                    let m = hull([a.powf(p), b.powf(p), a.powf(p), b.powf(p)]);
                    // an even power through 0 has its minimum at 0
                    return if (p as i64) % 2 == 0 && b >= 0.0 { (0.0, m.1) } else { m };
                }
                return ALL;
            }
            if a > 0.0 {
                // exp(e · ln x)
                let l = interval_unary(Un::Ln, (a, b));
                interval_unary(Un::Exp, interval_binary(Bin::Mul, (c, d), l))
            } else {
                ALL
            }
        }
    }
}
