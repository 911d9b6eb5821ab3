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
//! [`ExprKernel::new`] compiles the expression once into a tree of
//! operations (constant subexpressions folded). Its leaves are numbers,
//! fields, hyperparameters and built-in kernels: [`kernel_on`] puts one in an
//! expression, SPEC strings ([`spec`](super::spec)) compile to such trees,
//! and the subexpressions that are exactly a built-in kernel on one field
//! (the Kronecker delta `if_eq(x(f), y(f), 1, h)` with h ≤ 1, the square
//! exponential `exp(-(x(f) - y(f)).square() / (2 * l.square()))`) are
//! recognized, so that their values run the built-in kernel (whole tables at
//! once in the graph kernels). The one tree is evaluated
//! - in `f64` for [`value`](crate::basekernel::BaseKernel::value),
//! - in dual numbers ([`Dual`]: a value and one tangent per trained
//!   hyperparameter, seeded with θ_k so the tangent is ∂/∂(log θ_k)) for
//!   [`gradient`](crate::basekernel::BaseKernel::gradient),
//! - in interval arithmetic for [`range`](crate::basekernel::BaseKernel::range) (fields range
//!   over all reals),
//!
//! and printed as a C++ expression for [`cuda`](crate::basekernel::BaseKernel::cuda), which the
//! CUDA layer evaluates in reals (the value) and in its own dual numbers
//! ([`cuda_dual_helper`](crate::basekernel::cuda_dual_helper), the gradient). The Rust
//! [`Dual`] follows the same rules as the CUDA one (including the
//! conventions where a derivative does not exist: `sqrt` and `abs` have
//! tangent 0 at 0, `pow(0, p)` has ∂/∂x = 1 if p = 1 else 0), so the CPU and
//! GPU gradients are the same computation and cannot drift apart.
//!
//! The hyperparameters of a built-in leaf are its own (with their paths, such
//! as `label.h`); a `pow` lists its exponent's hyperparameters before its
//! base's (as [`Power`](super::Power) does).
//!
//! # Names
//!
//! A hyperparameter is identified by its name: the same name used twice in a
//! formula is one θ (its definitions must agree). A field is read from both
//! labels: [`x`] from the first, [`y`] from the second; fields must be of
//! kind `int` or `float`. On [`Record`] labels the
//! names are resolved once when the kernel meets the data (the marginalized
//! graph kernel binds its kernels itself; [`BaseKernel::bind`](crate::basekernel::BaseKernel::bind) does it by
//! hand); on [`label_struct!`](crate::label_struct) types and plain numbers
//! (one field, `value`) too.

mod kernel;
mod num;

pub use self::kernel::ExprKernel;
pub use self::kernel::LeafKernel;
pub use self::num::Dual;

use super::{Bounds, KernelError};
use crate::graph::{FieldKind, Label, Record, Schema, Value};
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
pub struct Expr(pub(in crate::basekernel) Arc<Node>);

#[derive(Clone, Debug, PartialEq)]
pub(in crate::basekernel) enum Node {
    Const(f64),
    Hyper {
        name: String,
        value: f64,
        bounds: Bounds,
    },
    Field {
        second: bool,
        name: String,
    },
    Unary(Un, Expr),
    Binary(Bin, Expr, Expr),
    Powf(Expr, f64),
    IfEq(Expr, Expr, Expr, Expr),
    /// A built-in kernel on a field (`None`: on the label itself).
    Kernel(Box<KernelLeaf>),
    Normalize(Expr),
}

/// A built-in kernel on one field, with the path prefix of its hyperparameters.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::basekernel) struct KernelLeaf {
    /// The field (`None`: the label itself, a number).
    pub field: Option<String>,
    /// Prepended to the kernel's hyperparameter paths (empty or ending in `.`).
    pub prefix: String,
    pub kernel: LeafKernel,
}

impl KernelLeaf {
    /// The hyperparameters with their paths in the expression.
    fn hyperparameters(&self) -> Vec<super::Hyperparameter> {
        let field = self.field.as_ref().map_or(String::new(), |f| format!("{f}."));
        let mut hs = self.kernel.hyperparameters();
        for h in &mut hs {
            h.name = format!("{}{field}{}", self.prefix, h.name);
        }
        hs
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::basekernel) enum Un {
    Neg,
    Exp,
    Ln,
    Abs,
    Sqrt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::basekernel) enum Bin {
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

/// The built-in kernel `kernel` on the field `name` of both labels (on
/// [`Record`] labels any field kind the kernel accepts: `sqexp` on `float[k]`,
/// `rconv` on sets). Its hyperparameters keep their paths (`name.scale`);
/// value, gradient and CUDA form are the built-in kernel's, so this is as
/// fast as the kernel composed in Rust.
pub fn kernel_on(name: &str, kernel: impl Into<LeafKernel>) -> Expr {
    let leaf = KernelLeaf { field: Some(name.to_string()), prefix: String::new(), kernel: kernel.into() };
    Expr(Arc::new(Node::Kernel(Box::new(leaf))))
}

/// The built-in kernel `kernel` on the labels themselves (plain-number
/// labels, such as set elements; or a [`Constant`](super::Constant)).
pub fn kernel(kernel: impl Into<LeafKernel>) -> Expr {
    Expr(Arc::new(Node::Kernel(Box::new(KernelLeaf { field: None, prefix: String::new(), kernel: kernel.into() }))))
}

impl From<(f64, f64)> for Bounds {
    fn from((lo, hi): (f64, f64)) -> Self {
        Bounds::Range(lo, hi)
    }
}

impl Expr {
    /// The hyperparameter paths of the expression (in no particular order).
    pub(in crate::basekernel) fn paths(&self, out: &mut std::collections::HashSet<String>) {
        match &*self.0 {
            Node::Const(_) | Node::Field { .. } => {}
            Node::Hyper { name, .. } => {
                out.insert(name.clone());
            }
            Node::Kernel(k) => out.extend(k.hyperparameters().into_iter().map(|h| h.name)),
            Node::Unary(_, a) | Node::Powf(a, _) | Node::Normalize(a) => a.paths(out),
            Node::Binary(_, a, b) => {
                a.paths(out);
                b.paths(out);
            }
            Node::IfEq(a, b, t, o) => [a, b, t, o].iter().for_each(|e| e.paths(out)),
        }
    }

    /// The expression with every hyperparameter and built-in kernel leaf
    /// replaced by what `leaf` makes of it (the rest of the tree rebuilt
    /// around them).
    fn map_leaves<E>(&self, leaf: &dyn Fn(&Node) -> Result<Node, E>) -> Result<Expr, E> {
        let node = match &*self.0 {
            Node::Const(_) | Node::Field { .. } => return Ok(self.clone()),
            n @ (Node::Hyper { .. } | Node::Kernel(_)) => leaf(n)?,
            Node::Unary(op, a) => Node::Unary(*op, a.map_leaves(leaf)?),
            Node::Powf(a, p) => Node::Powf(a.map_leaves(leaf)?, *p),
            Node::Normalize(a) => Node::Normalize(a.map_leaves(leaf)?),
            Node::Binary(op, a, b) => Node::Binary(*op, a.map_leaves(leaf)?, b.map_leaves(leaf)?),
            Node::IfEq(a, b, t, o) => {
                Node::IfEq(a.map_leaves(leaf)?, b.map_leaves(leaf)?, t.map_leaves(leaf)?, o.map_leaves(leaf)?)
            }
        };
        Ok(Expr(Arc::new(node)))
    }

    /// The expression with `prefix` before every hyperparameter path.
    pub(in crate::basekernel) fn prefixed(&self, prefix: &str) -> Expr {
        let mapped = self.map_leaves::<std::convert::Infallible>(&|n| {
            Ok(match n {
                Node::Hyper { name, value, bounds } => {
                    Node::Hyper { name: format!("{prefix}{name}"), value: *value, bounds: *bounds }
                }
                Node::Kernel(k) => {
                    Node::Kernel(Box::new(KernelLeaf { prefix: format!("{prefix}{}", k.prefix), ..(**k).clone() }))
                }
                other => other.clone(),
            })
        });
        match mapped {
            Ok(e) => e,
            Err(never) => match never {},
        }
    }

    /// The expression with the hyperparameter values that `value` gives by
    /// path (the others kept): what a kernel compiled from it prints after
    /// its θ changed.
    ///
    /// # Errors
    /// Those of a built-in kernel's `set_theta`.
    pub(in crate::basekernel) fn with_values(&self, value: &dyn Fn(&str) -> Option<f64>) -> Result<Expr, KernelError> {
        self.map_leaves(&|n| match n {
            Node::Hyper { name, value: v, bounds } => {
                Ok(Node::Hyper { name: name.clone(), value: value(name).unwrap_or(*v), bounds: *bounds })
            }
            Node::Kernel(k) => {
                let theta: Vec<f64> = k.hyperparameters().iter().map(|h| value(&h.name).unwrap_or(h.value)).collect();
                let mut leaf = (**k).clone();
                leaf.kernel.set_theta(&theta)?;
                Ok(Node::Kernel(Box::new(leaf)))
            }
            other => Ok(other.clone()),
        })
    }

    /// A node.
    pub(in crate::basekernel) fn node(node: Node) -> Expr {
        Expr(Arc::new(node))
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
    /// k(x, y)/√(k(x, x)·k(y, y)) (0 where the product is not positive).
    pub fn normalized(self) -> Expr {
        Expr(Arc::new(Node::Normalize(self)))
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
            Node::Kernel(k) => match &k.field {
                Some(n) => write!(f, "{}({n})", k.kernel.name()),
                None => write!(f, "{}", k.kernel.name()),
            },
            Node::Normalize(a) => write!(f, "normalize({a})"),
        }
    }
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

    /// The label as a [`Record`] (records only): built-in kernels on
    /// [`kernel_on`] fields read its values (vectors, sets) directly.
    #[inline(always)]
    fn record(&self) -> Option<&Record> {
        None
    }

    /// Whether the label is one number (its CUDA form is the label itself,
    /// not a struct member).
    const SCALAR: bool = false;
}

impl ExprLabel for Record {
    #[inline(always)]
    fn record(&self) -> Option<&Record> {
        Some(self)
    }
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
