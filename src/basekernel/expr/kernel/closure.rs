//! The compiled expression as a tree of closures on [`Record`] labels, built
//! once the field positions are bound: the hot path of
//! [`value`](crate::basekernel::BaseKernel::value) on records, with every
//! built-in kernel's type known inside its closure (no dispatch per kernel,
//! one indirect call per node).

use super::super::num::{powf, Num};
use super::super::{Bin, Un};
use super::leaf::LeafKernel;
use super::{Code, LeafSlot};
use crate::basekernel::BaseKernel;
use crate::graph::{Record, Value};
use std::fmt;
use std::sync::Arc;

/// κ on two records.
pub(super) type RecordFn = Arc<dyn Fn(&Record, &Record) -> f64 + Send + Sync>;

/// The closure tree, when built (compares equal always: it is derived from
/// the expression, which the kernel compares).
#[derive(Clone, Default)]
pub(super) struct Closure(pub Option<RecordFn>);

impl PartialEq for Closure {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for Closure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Closure({})", if self.0.is_some() { "built" } else { "none" })
    }
}

const MISSING: Value = Value::Float(f64::NAN);

#[inline(always)]
fn val(r: &Record, p: usize) -> &Value {
    r.values().get(p).unwrap_or(&MISSING)
}

#[inline(always)]
fn num(r: &Record, p: usize) -> f64 {
    match r.values().get(p) {
        Some(Value::Float(v)) => *v,
        Some(Value::Int(v)) => *v as f64,
        _ => f64::NAN,
    }
}

/// The closure of `c`; `params` are the hyperparameter values, `index` the
/// bound field positions.
pub(super) fn build(c: &Code, params: &[f64], leaves: &[LeafSlot], index: &[u32]) -> RecordFn {
    let sub = |c: &Code| build(c, params, leaves, index);
    let pos = |i: u32| index.get(i as usize).copied().unwrap_or(u32::MAX) as usize;
    match c {
        Code::Const(v) => {
            let v = *v;
            Arc::new(move |_, _| v)
        }
        Code::Param(i) => {
            let v = params[*i as usize];
            Arc::new(move |_, _| v)
        }
        Code::X(i) => {
            let p = pos(*i);
            Arc::new(move |a, _| num(a, p))
        }
        Code::Y(i) => {
            let p = pos(*i);
            Arc::new(move |_, b| num(b, p))
        }
        Code::Un(u, x) => {
            let f = sub(x);
            match u {
                Un::Neg => Arc::new(move |a, b| -f(a, b)),
                Un::Exp => Arc::new(move |a, b| f(a, b).exp()),
                u => {
                    let u = *u;
                    Arc::new(move |a, b| f(a, b).unary(u))
                }
            }
        }
        Code::Bin(o, l, r) => {
            let (l, r) = (sub(l), sub(r));
            match o {
                Bin::Add => Arc::new(move |a, b| l(a, b) + r(a, b)),
                Bin::Sub => Arc::new(move |a, b| l(a, b) - r(a, b)),
                Bin::Mul => Arc::new(move |a, b| l(a, b) * r(a, b)),
                Bin::Div => Arc::new(move |a, b| l(a, b) / r(a, b)),
                Bin::Pow => Arc::new(move |a, b| l(a, b).powf(r(a, b))),
            }
        }
        Code::Powf(x, p) => {
            let (f, p) = (sub(x), *p);
            Arc::new(move |a, b| powf(f(a, b), p))
        }
        Code::IfEq(q) => {
            let [l, r, t, o] = [sub(&q[0]), sub(&q[1]), sub(&q[2]), sub(&q[3])];
            Arc::new(move |a, b| if l(a, b) == r(a, b) { t(a, b) } else { o(a, b) })
        }
        Code::Normalize(k) => {
            let k = sub(k);
            Arc::new(move |a, b| {
                let d = k(a, a) * k(b, b);
                if d > 0.0 {
                    k(a, b) / d.sqrt()
                } else {
                    0.0
                }
            })
        }
        Code::Leaf(i) | Code::Fused(i, _) => leaf(&leaves[*i as usize], pos),
    }
}

/// The closure of one built-in kernel, its type known inside.
fn leaf(slot: &LeafSlot, pos: impl Fn(u32) -> usize) -> RecordFn {
    macro_rules! on {
        ($k:expr) => {{
            let k = $k.clone();
            match slot.field {
                Some(f) if slot.values => {
                    let p = pos(f);
                    Arc::new(move |a: &Record, b: &Record| BaseKernel::<Value>::value(&k, val(a, p), val(b, p)))
                        as RecordFn
                }
                Some(f) => {
                    let p = pos(f);
                    Arc::new(move |a: &Record, b: &Record| BaseKernel::<f64>::value(&k, &num(a, p), &num(b, p)))
                }
                None => Arc::new(move |a: &Record, b: &Record| BaseKernel::<f64>::value(&k, &num(a, 0), &num(b, 0))),
            }
        }};
    }
    match &slot.kernel {
        LeafKernel::Constant(k) => {
            let v = BaseKernel::<f64>::value(k, &0.0, &0.0);
            Arc::new(move |_, _| v)
        }
        LeafKernel::Delta(k) => on!(k),
        LeafKernel::SqExp(k) => on!(k),
        LeafKernel::Rq(k) => on!(k),
        LeafKernel::Poly(k) => on!(k),
        LeafKernel::Wendland(k) => on!(k),
        LeafKernel::RConv(k) => {
            let k = k.clone();
            let p = slot.field.map_or(usize::MAX, &pos);
            Arc::new(move |a, b| BaseKernel::<Value>::value(&k, val(a, p), val(b, p)))
        }
    }
}
