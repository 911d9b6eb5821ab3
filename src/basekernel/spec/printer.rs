//! The SPEC printer: a SPEC kernel's expression written back as a SPEC that
//! parses to the same kernel.

use super::is_keyword;
use crate::basekernel::expr::{Bin, Expr, LeafKernel, Node, Un};
use crate::basekernel::{
    BaseKernel, Bounds, CompactPolynomial, Constant, Hyperparameter, KroneckerDelta, Polynomial, RationalQuadratic,
    Reduction, SquareExponential,
};
use std::fmt;

/// An expression printed as a SPEC (nodes that no SPEC writes print as
/// [`Expr`]'s `Display`).
pub(super) struct Spec<'a>(pub &'a Expr);

/// Precedence for printing: 0 sum, 1 product, 2 power, 3 atom.
fn prec(e: &Expr) -> u8 {
    match &*e.0 {
        Node::Binary(Bin::Add | Bin::Sub, ..) => 0,
        Node::Binary(Bin::Mul | Bin::Div, ..) => 1,
        Node::Binary(Bin::Pow, ..) | Node::Unary(Un::Neg, _) => 2,
        _ => 3,
    }
}

impl fmt::Display for Spec<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 .0 {
            Node::Kernel(k) => fmt_leaf(f, &k.kernel, k.field.as_deref()),
            Node::Binary(Bin::Mul, a, b) => fmt_binary(f, a, "*", b, 1),
            Node::Binary(Bin::Add, a, b) => fmt_binary(f, a, "+", b, 0),
            Node::Binary(Bin::Pow, k, e) => match &*e.0 {
                Node::Hyper { value, .. } if prec(k) <= 2 => write!(f, "({}) ^ {value}", Spec(k)),
                Node::Hyper { value, .. } => write!(f, "{} ^ {value}", Spec(k)),
                _ => write!(f, "{}", self.0),
            },
            Node::Normalize(k) => write!(f, "normalize({})", Spec(k)),
            Node::Binary(Bin::Sub, a, b) => fmt_binary(f, a, "-", b, 0),
            Node::Binary(Bin::Div, a, b) => fmt_binary(f, a, "/", b, 1),
            Node::Unary(Un::Neg, a) if prec(a) < 2 => write!(f, "-({})", Spec(a)),
            Node::Unary(Un::Neg, a) => write!(f, "-{}", Spec(a)),
            Node::Unary(op, a) => {
                let name = match op {
                    Un::Exp => "exp",
                    Un::Ln => "ln",
                    Un::Abs => "abs",
                    _ => "sqrt",
                };
                write!(f, "{name}({})", Spec(a))
            }
            Node::Field { second, name } => {
                write!(f, "{}.", if *second { "y" } else { "x" })?;
                fmt_name(f, name)
            }
            Node::Hyper { name, value, bounds } => {
                write!(f, "hyper(")?;
                fmt_name(f, name)?;
                write!(f, ", {value}")?;
                match bounds {
                    Bounds::Fixed => write!(f, ")"),
                    Bounds::Range(lo, hi) => write!(f, ", [{lo}, {hi}])"),
                }
            }
            _ => write!(f, "{}", self.0),
        }
    }
}

fn fmt_binary(f: &mut fmt::Formatter<'_>, a: &Expr, op: &str, b: &Expr, p: u8) -> fmt::Result {
    // Left-associative: the left operand may be of the same precedence, the right one must bind tighter.
    if prec(a) < p {
        write!(f, "({})", Spec(a))?;
    } else {
        write!(f, "{}", Spec(a))?;
    }
    write!(f, " {op} ")?;
    if prec(b) <= p {
        write!(f, "({})", Spec(b))
    } else {
        write!(f, "{}", Spec(b))
    }
}

fn fmt_bounds(f: &mut fmt::Formatter<'_>, h: &Hyperparameter, default: &Hyperparameter) -> fmt::Result {
    match h.bounds {
        b if b == default.bounds => Ok(()),
        Bounds::Fixed => write!(f, ", fixed"),
        Bounds::Range(lo, hi) => write!(f, ", [{lo}, {hi}]"),
    }
}

fn fmt_field(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    fmt_name(f, name)?;
    write!(f, ", ")
}

/// A field or hyperparameter name, quoted unless it is a plain NAME.
fn fmt_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain && !is_keyword(name) {
        write!(f, "{name}")
    } else {
        write!(f, "\"{name}\"")
    }
}

fn hyper<K: BaseKernel<f64>>(k: &K) -> Vec<Hyperparameter> {
    k.hyperparameters()
}

/// Writes a built-in kernel; `field` is `Some` for record kernels.
fn fmt_leaf(f: &mut fmt::Formatter<'_>, leaf: &LeafKernel, field: Option<&str>) -> fmt::Result {
    let fld = |f: &mut fmt::Formatter<'_>| field.map_or(Ok(()), |n| fmt_field(f, n));
    match leaf {
        LeafKernel::Constant(k) => {
            let (h, d) = (hyper(k), hyper(&Constant::new(k.c())));
            if h == d {
                write!(f, "{}", k.c())
            } else {
                write!(f, "constant({}", k.c())?;
                fmt_bounds(f, &h[0], &d[0])?;
                write!(f, ")")
            }
        }
        LeafKernel::Delta(k) => {
            let (h, d) = (hyper(k), hyper(&KroneckerDelta::new(k.h())));
            write!(f, "delta(")?;
            fld(f)?;
            write!(f, "{}", k.h())?;
            fmt_bounds(f, &h[0], &d[0])?;
            write!(f, ")")
        }
        LeafKernel::SqExp(k) => {
            let (h, d) = (hyper(k), hyper(&SquareExponential::new(k.scale())));
            write!(f, "sqexp(")?;
            fld(f)?;
            write!(f, "{}", k.scale())?;
            fmt_bounds(f, &h[0], &d[0])?;
            write!(f, ")")
        }
        LeafKernel::Rq(k) => {
            let (h, d) = (hyper(k), hyper(&RationalQuadratic::new(k.scale(), k.alpha())));
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
        LeafKernel::Poly(k) => {
            let (h, d) = (hyper(k), hyper(&Polynomial::new(k.offset(), k.degree())));
            write!(f, "poly(")?;
            fld(f)?;
            write!(f, "{}, {}", k.offset(), k.degree())?;
            fmt_bounds(f, &h[0], &d[0])?;
            write!(f, ")")
        }
        LeafKernel::Wendland(k) => {
            let (h, d) = (hyper(k), hyper(&CompactPolynomial::new(k.radius())));
            write!(f, "wendland(")?;
            fld(f)?;
            write!(f, "{}", k.radius())?;
            fmt_bounds(f, &h[0], &d[0])?;
            write!(f, ")")
        }
        LeafKernel::RConv(k) => {
            write!(f, "rconv(")?;
            fld(f)?;
            write!(f, "{}", Spec(k.kernel.expr()))?;
            match k.reduction {
                Reduction::Sum => write!(f, ")"),
                Reduction::Mean => write!(f, ", mean)"),
            }
        }
    }
}
