//! [`ExprKernel`]: an [`Expr`] compiled once into a tree of operations whose
//! leaves are numbers, fields, hyperparameters and built-in kernels.

use super::closure::{self, Closure};
use super::leaf::LeafKernel;
use super::num::{interval_binary, interval_unary, powf, Dual, Num, ALL};
use super::{Bin, Expr, ExprLabel, KernelLeaf, Node, Un};
use crate::basekernel::combine::cuda_normalize;
use crate::basekernel::hyper::Param;
use crate::basekernel::{
    builtin_ops, c_identifier, check_len, BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError, KroneckerDelta,
    LowRank, SquareExponential,
};
use crate::graph::{FieldKind, LabelError, Record, Schema, Value};
use smallvec::SmallVec;

/// The compiled expression: one node per operation. Built-in kernels
/// (written with [`kernel_on`](super::kernel_on), parsed from a SPEC, or
/// recognized in the expression: the Kronecker delta
/// `if_eq(x(f), y(f), 1, h)` and the square exponential
/// `exp(-(x(f) - y(f))² / (2 ℓ²))`) are leaves that run the built-in kernel.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Code {
    Const(f64),
    Param(u32),
    X(u32),
    Y(u32),
    Un(Un, Box<Code>),
    Bin(Bin, Box<Code>, Box<Code>),
    Powf(Box<Code>, f64),
    IfEq(Box<[Code; 4]>),
    /// A built-in kernel with hyperparameters of its own (contiguous slots).
    Leaf(u32),
    /// A built-in kernel recognized in the expression `generic`: values run
    /// the kernel, gradients, ranges and CUDA the expression.
    Fused(u32, Box<Code>),
    Normalize(Box<Code>),
}

/// A built-in kernel of the compiled expression.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LeafSlot {
    pub kernel: LeafKernel,
    /// Position in the kernel's field list (`None`: the label itself).
    pub field: Option<u32>,
    /// The expression's hyperparameters that the kernel's are, in its order.
    pub params: SmallVec<[u32; 2]>,
    /// Whether it reads record values (vectors, sets) rather than numbers.
    pub values: bool,
}

/// A base kernel written as one [`Expr`] (see the [module documentation](super)).
///
/// SPEC kernels ([`SpecKernel`](crate::basekernel::SpecKernel)) are
/// expression kernels too: one representation, one evaluator.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprKernel {
    expr: Expr,
    code: Code,
    names: Vec<String>,
    params: Vec<Param>,
    /// For each hyperparameter: the leaf that owns it (validates its values), if any.
    owner: Vec<Option<u32>>,
    leaves: Vec<LeafSlot>,
    fields: Vec<String>,
    /// Whether a field is read as a number (`x`, `y`, recognized kernels).
    numeric: Vec<bool>,
    /// Positions of `fields` in the bound schema (empty until bound).
    index: Vec<u32>,
    /// C member names of `fields` in the bound schema.
    members: Vec<String>,
    /// The closure tree on records (built when bound).
    closure: Closure,
}

builtin_ops!(impl[] ExprKernel);

const MISSING: Value = Value::Float(f64::NAN);

impl ExprKernel {
    /// Compiles `expr`.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] when one hyperparameter name has two
    /// different definitions, a hyperparameter's value is not positive and
    /// finite or lies outside its bounds, or the expression is deeper than
    /// 10 000 nodes.
    pub fn new(expr: Expr) -> Result<Self, KernelError> {
        let mut k = ExprKernel {
            expr: expr.clone(),
            code: Code::Const(0.0),
            names: Vec::new(),
            params: Vec::new(),
            owner: Vec::new(),
            leaves: Vec::new(),
            fields: Vec::new(),
            numeric: Vec::new(),
            index: Vec::new(),
            members: Vec::new(),
            closure: Closure::default(),
        };
        k.code = k.compile(&expr, 0)?;
        k.rebuild();
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

    fn field(&mut self, name: &str, numeric: bool) -> u32 {
        let i = match self.fields.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.fields.push(name.to_string());
                self.numeric.push(false);
                self.fields.len() - 1
            }
        };
        self.numeric[i] |= numeric;
        i as u32
    }

    fn hyper(&mut self, name: &str, value: f64, bounds: Bounds) -> Result<u32, KernelError> {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            let p = self.params[i];
            if self.owner[i].is_some() || p.value != value || p.bounds != bounds {
                return Err(KernelError::InvalidParameter(format!(
                    "hyperparameter {name:?} is defined twice, as {} in {} and as {value} in {bounds}; \
                     give the two different names or one definition",
                    p.value, p.bounds
                )));
            }
            return Ok(i as u32);
        }
        if !(value.is_finite() && value > 0.0) {
            return Err(KernelError::InvalidParameter(format!(
                "hyperparameter {name:?} = {value}: must be finite and > 0 (gradients are taken \
                 with respect to its logarithm)"
            )));
        }
        let mut p = Param { value, bounds: Bounds::Fixed };
        p.rebound(name, bounds, |v| v > 0.0)?;
        self.names.push(name.to_string());
        self.params.push(p);
        self.owner.push(None);
        Ok(self.params.len() as u32 - 1)
    }

    /// Registers a built-in kernel with hyperparameters of its own (an equal
    /// one used twice is one leaf).
    fn leaf(&mut self, leaf: &KernelLeaf) -> Result<u32, KernelError> {
        let hs = leaf.hyperparameters();
        let field = leaf.field.as_deref().map(|f| self.field(f, false));
        let slot = LeafSlot { kernel: leaf.kernel.clone(), field, params: SmallVec::new(), values: field.is_some() };
        if let Some(i) = self.leaves.iter().position(|l| l.kernel == slot.kernel && l.field == slot.field && l.values) {
            let names: Vec<&str> = self.leaves[i].params.iter().map(|&p| self.names[p as usize].as_str()).collect();
            if names.iter().copied().eq(hs.iter().map(|h| h.name.as_str())) {
                return Ok(i as u32);
            }
        }
        let li = self.leaves.len() as u32;
        let mut slot = slot;
        for h in hs {
            if self.names.contains(&h.name) {
                return Err(KernelError::InvalidParameter(format!(
                    "hyperparameter {:?} is defined twice; give the two kernels different paths",
                    h.name
                )));
            }
            self.names.push(h.name);
            self.params.push(Param { value: h.value, bounds: h.bounds });
            self.owner.push(Some(li));
            slot.params.push(self.params.len() as u32 - 1);
        }
        self.leaves.push(slot);
        Ok(li)
    }

    fn compile(&mut self, e: &Expr, level: usize) -> Result<Code, KernelError> {
        if level > 10_000 {
            return Err(KernelError::InvalidParameter("kernel expression deeper than 10000 nodes".into()));
        }
        let code = match &*e.0 {
            Node::Const(c) => Code::Const(*c),
            Node::Hyper { name, value, bounds } => Code::Param(self.hyper(name, *value, *bounds)?),
            Node::Field { second, name } => {
                let i = self.field(name, true);
                if *second {
                    Code::Y(i)
                } else {
                    Code::X(i)
                }
            }
            Node::Unary(op, a) => match self.compile(a, level + 1)? {
                Code::Const(c) => Code::Const(c.unary(*op)),
                a => Code::Un(*op, Box::new(a)),
            },
            Node::Binary(op, a, b) => {
                // the exponent's hyperparameters come first, as in `Power`
                let (a, b) = if *op == Bin::Pow {
                    let b = self.compile(b, level + 1)?;
                    (self.compile(a, level + 1)?, b)
                } else {
                    (self.compile(a, level + 1)?, self.compile(b, level + 1)?)
                };
                match (a, b) {
                    (Code::Const(x), Code::Const(y)) => Code::Const(x.binary(*op, y)),
                    (a, b) => Code::Bin(*op, Box::new(a), Box::new(b)),
                }
            }
            Node::Powf(a, p) => match self.compile(a, level + 1)? {
                Code::Const(c) => Code::Const(powf(c, *p)),
                a => Code::Powf(Box::new(a), *p),
            },
            Node::IfEq(a, b, t, o) => {
                let c = [
                    self.compile(a, level + 1)?,
                    self.compile(b, level + 1)?,
                    self.compile(t, level + 1)?,
                    self.compile(o, level + 1)?,
                ];
                Code::IfEq(Box::new(c))
            }
            Node::Kernel(leaf) => Code::Leaf(self.leaf(leaf)?),
            Node::Normalize(a) => Code::Normalize(Box::new(self.compile(a, level + 1)?)),
        };
        Ok(self.fuse(e, code))
    }

    /// `code` as a built-in kernel where `e` is exactly one on a field.
    fn fuse(&mut self, e: &Expr, code: Code) -> Code {
        let same_field = |a: &Expr, b: &Expr| match (&*a.0, &*b.0) {
            (Node::Field { second: false, name: n }, Node::Field { second: true, name: m })
            | (Node::Field { second: true, name: n }, Node::Field { second: false, name: m })
                if n == m =>
            {
                Some(n.clone())
            }
            _ => None,
        };
        let hyper = |e: &Expr| match &*e.0 {
            Node::Hyper { name, value, bounds } => Some((name.clone(), *value, *bounds)),
            _ => None,
        };
        let found: Option<(String, String, LeafKernel)> = match &*e.0 {
            // if_eq(x.f, y.f, 1, h) with h ≤ 1: the Kronecker delta
            Node::IfEq(a, b, t, o) if matches!(&*t.0, Node::Const(c) if *c == 1.0) => {
                match (same_field(a, b), hyper(o)) {
                    (Some(f), Some((h, v, bounds)))
                        if v <= 1.0 && !matches!(bounds, Bounds::Range(_, hi) if hi > 1.0) =>
                    {
                        KroneckerDelta::try_new(v).ok().map(|k| (f, h, k.fixed().into()))
                    }
                    _ => None,
                }
            }
            // exp(-(x.f - y.f)² / (2 ℓ²)): the square exponential
            Node::Unary(Un::Exp, q) => match &*q.0 {
                Node::Binary(Bin::Div, n, d) => match (&*n.0, &*d.0) {
                    (Node::Unary(Un::Neg, s), Node::Binary(Bin::Mul, two, l2)) => match (&*s.0, &*two.0, &*l2.0) {
                        (Node::Powf(diff, p), Node::Const(c), Node::Powf(l, q))
                            if *p == 2.0 && *c == 2.0 && *q == 2.0 =>
                        {
                            match (&*diff.0, hyper(l)) {
                                (Node::Binary(Bin::Sub, a, b), Some((h, v, _))) => same_field(a, b)
                                    .and_then(|f| Some((f, h, SquareExponential::try_new(v).ok()?.fixed().into()))),
                                _ => None,
                            }
                        }
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some((field, hname, kernel)) = found else { return code };
        let Some(p) = self.names.iter().position(|n| *n == hname) else { return code };
        let field = Some(self.field(&field, true));
        self.leaves.push(LeafSlot { kernel, field, params: SmallVec::from_elem(p as u32, 1), values: false });
        Code::Fused(self.leaves.len() as u32 - 1, Box::new(code))
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

    /// Runs `f` with the field positions for labels like `label`.
    #[inline(always)]
    fn with_positions<T: ExprLabel, R>(&self, label: &T, f: impl FnOnce(&[u32]) -> R) -> R {
        if !self.index.is_empty() || self.fields.is_empty() {
            return f(&self.index);
        }
        let mut buf = SmallVec::new();
        f(self.positions(label, &mut buf))
    }

    /// Evaluates `c` in the number type `V`.
    #[inline]
    fn eval<T: ExprLabel, V: Eval>(&self, c: &Code, a: &T, b: &T, pos: &[u32], cx: &V::Cx) -> V {
        match c {
            Code::Const(v) => V::real(*v),
            Code::Param(i) => V::param(cx, *i, self.params[*i as usize].value),
            Code::X(i) => V::real(number(a, pos, *i)),
            Code::Y(i) => V::real(number(b, pos, *i)),
            Code::Un(u, x) => self.eval::<T, V>(x, a, b, pos, cx).unary(*u),
            Code::Bin(o, l, r) => {
                let l = self.eval::<T, V>(l, a, b, pos, cx);
                l.binary(*o, self.eval::<T, V>(r, a, b, pos, cx))
            }
            Code::Powf(x, p) => self.eval::<T, V>(x, a, b, pos, cx).powf(*p),
            Code::IfEq(q) => {
                let l = self.eval::<T, V>(&q[0], a, b, pos, cx);
                let r = self.eval::<T, V>(&q[1], a, b, pos, cx);
                self.eval::<T, V>(if l.value() == r.value() { &q[2] } else { &q[3] }, a, b, pos, cx)
            }
            Code::Leaf(i) => V::leaf(cx, &self.leaves[*i as usize], a, b, pos),
            Code::Fused(i, generic) => {
                if V::FUSED {
                    V::leaf(cx, &self.leaves[*i as usize], a, b, pos)
                } else {
                    self.eval::<T, V>(generic, a, b, pos, cx)
                }
            }
            Code::Normalize(k) => {
                let d = self.eval::<T, V>(k, a, a, pos, cx).binary(Bin::Mul, self.eval::<T, V>(k, b, b, pos, cx));
                if d.value() > 0.0 {
                    self.eval::<T, V>(k, a, b, pos, cx).binary(Bin::Div, d.unary(Un::Sqrt))
                } else {
                    V::real(0.0)
                }
            }
        }
    }

    /// The table of `c` on every pair of `a` × `b`.
    fn table_code<T: ExprLabel>(&self, c: &Code, a: &[&T], b: &[&T], pos: &[u32], out: &mut Vec<f64>) {
        match c {
            Code::Leaf(i) | Code::Fused(i, _) => self.on_leaf_lists(
                &self.leaves[*i as usize],
                a,
                b,
                pos,
                out,
                |slot, va, vb, out| slot.kernel.table_val(va, vb, out),
                |slot, na, nb, out| slot.kernel.table_num(na, nb, out),
            ),
            Code::Bin(op @ (Bin::Add | Bin::Sub | Bin::Mul | Bin::Div), l, r) => {
                self.table_code(l, a, b, pos, out);
                let mut t = Vec::new();
                self.table_code(r, a, b, pos, &mut t);
                // one loop per operation (vectorized), not a match per entry
                let pairs = out.iter_mut().zip(t);
                match op {
                    Bin::Mul => pairs.for_each(|(o, v)| *o *= v),
                    Bin::Add => pairs.for_each(|(o, v)| *o += v),
                    _ => pairs.for_each(|(o, v)| *o = o.binary(*op, v)),
                }
            }
            Code::Const(v) => {
                out.clear();
                out.resize(a.len() * b.len(), *v);
            }
            _ => {
                out.clear();
                out.reserve(a.len() * b.len());
                for x in a {
                    out.extend(b.iter().map(|y| self.eval::<T, f64>(c, x, y, pos, &())));
                }
            }
        }
    }

    /// Runs `val` on the lists of record values the leaf `slot` compares
    /// over `a` × `b`, or `num` on its lists of numbers.
    #[allow(clippy::too_many_arguments)]
    fn on_leaf_lists<T: ExprLabel, X: ?Sized, R>(
        &self,
        slot: &LeafSlot,
        a: &[&T],
        b: &[&T],
        pos: &[u32],
        cx: &mut X,
        val: impl FnOnce(&LeafSlot, &[&Value], &[&Value], &mut X) -> R,
        num: impl FnOnce(&LeafSlot, &[&f64], &[&f64], &mut X) -> R,
    ) -> R {
        let p = |i: u32| pos.get(i as usize).copied().unwrap_or(u32::MAX) as usize;
        match slot.field {
            Some(f) if slot.values && a.iter().chain(b).all(|l| l.record().is_some()) => {
                let va: Vec<&Value> = a.iter().map(|l| value_at(l.record().expect("checked"), p(f))).collect();
                let vb: Vec<&Value> = b.iter().map(|l| value_at(l.record().expect("checked"), p(f))).collect();
                val(slot, &va, &vb, cx)
            }
            _ => {
                let get = |l: &&T| match slot.field {
                    Some(f) => number(*l, pos, f),
                    None => l.number(0),
                };
                let (na, nb): (Vec<f64>, Vec<f64>) = (a.iter().map(get).collect(), b.iter().map(get).collect());
                let (ra, rb): (Vec<&f64>, Vec<&f64>) = (na.iter().collect(), nb.iter().collect());
                num(slot, &ra, &rb, cx)
            }
        }
    }

    /// An exact low-rank form of `c` over `a` × `b`: constants, parameters,
    /// built-in kernels that have one, and sums, differences and products
    /// of those; `None` for anything else.
    fn low_rank_code<T: ExprLabel>(&self, c: &Code, a: &[&T], b: &[&T], pos: &[u32]) -> Option<LowRank> {
        let (na, nb) = (a.len(), b.len());
        match c {
            Code::Const(v) => Some(LowRank::constant(*v, na, nb)),
            Code::Param(i) => Some(LowRank::constant(self.params[*i as usize].value, na, nb)),
            Code::Leaf(i) | Code::Fused(i, _) => self.on_leaf_lists(
                &self.leaves[*i as usize],
                a,
                b,
                pos,
                &mut (),
                |slot, va, vb, _| slot.kernel.low_rank_val(va, vb),
                |slot, xa, xb, _| slot.kernel.low_rank_num(xa, xb),
            ),
            Code::Bin(Bin::Add, l, r) => Some(self.low_rank_code(l, a, b, pos)?.sum(self.low_rank_code(r, a, b, pos)?)),
            Code::Bin(Bin::Sub, l, r) => {
                Some(self.low_rank_code(l, a, b, pos)?.sum(self.low_rank_code(r, a, b, pos)?.scaled(-1.0)))
            }
            Code::Bin(Bin::Mul, l, r) => self.low_rank_code(l, a, b, pos)?.product(&self.low_rank_code(r, a, b, pos)?),
            _ => None,
        }
    }

    /// The interval of values of `c` over all field values at the current θ.
    fn interval(&self, c: &Code) -> (f64, f64) {
        let v = match c {
            Code::Const(v) => (*v, *v),
            Code::Param(i) => (self.params[*i as usize].value, self.params[*i as usize].value),
            Code::X(_) | Code::Y(_) => ALL,
            Code::Un(u, x) => interval_unary(*u, self.interval(x)),
            Code::Bin(o, l, r) => interval_binary(*o, self.interval(l), self.interval(r)),
            Code::Powf(x, p) => interval_binary(Bin::Pow, self.interval(x), (*p, *p)),
            Code::IfEq(q) => {
                let (t, o) = (self.interval(&q[2]), self.interval(&q[3]));
                (t.0.min(o.0), t.1.max(o.1))
            }
            Code::Leaf(i) => self.leaves[*i as usize].kernel.range(),
            Code::Fused(_, generic) => self.interval(generic),
            Code::Normalize(k) => {
                let (lo, hi) = self.interval(k);
                if lo >= 0.0 {
                    let m = if hi.is_finite() && hi > 0.0 { (lo / hi).min(1.0) } else { 0.0 };
                    (m, 1.0)
                } else {
                    (-1.0, 1.0)
                }
            }
        };
        if v.0.is_nan() || v.1.is_nan() {
            ALL
        } else {
            v
        }
    }

    /// The CUDA form of `c`; `base` is the slot of hyperparameter 0.
    fn cuda_code<T: ExprLabel>(
        &self,
        c: &Code,
        a: &str,
        b: &str,
        gen: &mut CudaGen,
        base: usize,
    ) -> Result<String, KernelError> {
        let real = gen.real;
        let member = |l: &str, i: u32| -> String {
            if T::SCALAR {
                format!("(({real}){l})")
            } else {
                format!("(({real}){l}.{})", self.member(i))
            }
        };
        let sub = |c: &Code, a: &str, b: &str, gen: &mut CudaGen| self.cuda_code::<T>(c, a, b, gen, base);
        Ok(match c {
            Code::Const(v) => gen.lit(*v),
            Code::Param(i) => format!("{}[{}]", gen.params_name, base + *i as usize),
            Code::X(i) => member(a, *i),
            Code::Y(i) => member(b, *i),
            Code::Un(u, x) => {
                let v = sub(x, a, b, gen)?;
                match u {
                    Un::Neg => format!("(-{v})"),
                    Un::Exp => format!("exp({v})"),
                    Un::Ln => format!("log({v})"),
                    Un::Abs => format!("fabs({v})"),
                    Un::Sqrt => format!("sqrt({v})"),
                }
            }
            Code::Bin(o, l, r) => {
                let (l, r) = (sub(l, a, b, gen)?, sub(r, a, b, gen)?);
                match o {
                    Bin::Add => format!("({l} + {r})"),
                    Bin::Sub => format!("({l} - {r})"),
                    Bin::Mul => format!("({l} * {r})"),
                    Bin::Div => format!("({l} / {r})"),
                    Bin::Pow => format!("pow({l}, {r})"),
                }
            }
            Code::Powf(x, p) => {
                let v = sub(x, a, b, gen)?;
                format!("pow({v}, {})", gen.lit(*p))
            }
            Code::IfEq(q) => {
                let s: Vec<String> = q.iter().map(|c| sub(c, a, b, gen)).collect::<Result<_, _>>()?;
                // a real branch converts to the dual type implicitly in the gradient form
                format!("({} == {} ? {} : {})", s[0], s[1], s[2], s[3])
            }
            Code::Fused(_, generic) => sub(generic, a, b, gen)?,
            Code::Leaf(i) => {
                // the leaf reserves its own slots: rewind to its first, re-reserve the rest after
                let slot = &self.leaves[*i as usize];
                let first = slot.params.first().map_or(self.params.len(), |&p| p as usize);
                let end = first + slot.params.len();
                gen.rewind(base + first);
                let s = match slot.field {
                    Some(f) if slot.values && !T::SCALAR => {
                        let m = self.member(f);
                        slot.kernel.cuda_val(&format!("{a}.{m}"), &format!("{b}.{m}"), gen)?
                    }
                    Some(f) => slot.kernel.cuda_num(&member(a, f), &member(b, f), gen)?,
                    None => slot.kernel.cuda_num(a, b, gen)?,
                };
                if gen.num_params() != base + end {
                    return Err(KernelError::InvalidParameter(format!(
                        "the CUDA form of {} reserved {} parameter slots for {} hyperparameters",
                        slot.kernel.name(),
                        gen.num_params() - base - first,
                        slot.params.len()
                    )));
                }
                for p in &self.params[end..] {
                    gen.param(p.value);
                }
                s
            }
            Code::Normalize(k) => {
                let kxy = sub(k, a, b, gen)?;
                let kxx = sub(k, a, a, gen)?;
                let kyy = sub(k, b, b, gen)?;
                cuda_normalize(gen, &kxy, &kxx, &kyy)
            }
        })
    }

    /// The C member name of field `i` (bound: the schema's identifier).
    fn member(&self, i: u32) -> String {
        self.members.get(i as usize).cloned().unwrap_or_else(|| c_identifier(&self.fields[i as usize]))
    }

    fn bind_schema(&mut self, schema: &Schema) -> Result<(), KernelError> {
        let idents = crate::basekernel::codegen::schema_identifiers(schema);
        let (mut index, mut members) = (Vec::new(), Vec::new());
        for (fi, name) in self.fields.iter().enumerate() {
            let i = schema
                .index(name)
                .ok_or_else(|| LabelError::UnknownField { name: name.clone(), available: schema.describe() })?;
            let (_, kind) = schema.fields().nth(i).expect("index from the schema");
            for slot in self.leaves.iter().filter(|s| s.values && s.field == Some(fi as u32)) {
                slot.kernel.accepts(kind).map_err(|expected| LabelError::FieldKind {
                    name: name.clone(),
                    expected,
                    found: kind,
                })?;
            }
            if self.numeric[fi] && !matches!(kind, FieldKind::Int | FieldKind::Float) {
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
        self.rebuild();
        Ok(())
    }

    /// Rebuilds the closure tree on records (bound kernels, or kernels without fields).
    fn rebuild(&mut self) {
        self.closure = Closure(None);
        if !self.index.is_empty() || self.fields.is_empty() {
            let params: Vec<f64> = self.params.iter().map(|p| p.value).collect();
            self.closure = Closure(Some(closure::build(&self.code, &params, &self.leaves, &self.index)));
        }
    }

    /// Positions of the trained hyperparameters among the tangents.
    fn active(&self) -> (Vec<Option<u32>>, usize) {
        let mut n = 0;
        let act = self
            .params
            .iter()
            .map(|p| {
                (p.bounds != Bounds::Fixed).then(|| {
                    n += 1;
                    n as u32 - 1
                })
            })
            .collect();
        (act, n)
    }
}

/// Field `i` of `l` as a number (NaN where missing).
#[inline(always)]
fn number<T: ExprLabel>(l: &T, pos: &[u32], i: u32) -> f64 {
    match pos.get(i as usize) {
        Some(&p) if p != u32::MAX => l.number(p as usize),
        _ => f64::NAN,
    }
}

/// Field value `p` of a record (NaN where missing).
#[inline(always)]
fn value_at(r: &Record, p: usize) -> &Value {
    r.values().get(p).unwrap_or(&MISSING)
}

/// The number types the compiled expression is evaluated in, with what
/// hyperparameters and built-in kernels are in them.
trait Eval: Num {
    /// What a hyperparameter's value needs (nothing; or the tangent positions).
    type Cx;
    /// Whether recognized built-in kernels run as the kernel.
    const FUSED: bool;
    fn param(cx: &Self::Cx, i: u32, value: f64) -> Self;
    fn leaf<T: ExprLabel>(cx: &Self::Cx, slot: &LeafSlot, a: &T, b: &T, pos: &[u32]) -> Self;
}

/// What a built-in kernel compares: two record values or two numbers.
enum Args<'a> {
    Val(&'a Value, &'a Value),
    Num(f64, f64),
}

/// The two labels' values for a built-in kernel.
#[inline(always)]
fn leaf_args<'a, T: ExprLabel>(slot: &LeafSlot, a: &'a T, b: &'a T, pos: &[u32]) -> Args<'a> {
    match slot.field {
        Some(f) => {
            if slot.values {
                if let (Some(ra), Some(rb)) = (a.record(), b.record()) {
                    let p = pos.get(f as usize).copied().unwrap_or(u32::MAX) as usize;
                    return Args::Val(value_at(ra, p), value_at(rb, p));
                }
            }
            Args::Num(number(a, pos, f), number(b, pos, f))
        }
        None => Args::Num(a.number(0), b.number(0)),
    }
}

impl Eval for f64 {
    type Cx = ();
    const FUSED: bool = true;
    #[inline(always)]
    fn param(_: &(), _: u32, value: f64) -> Self {
        value
    }
    #[inline(always)]
    fn leaf<T: ExprLabel>(_: &(), slot: &LeafSlot, a: &T, b: &T, pos: &[u32]) -> Self {
        match leaf_args(slot, a, b, pos) {
            Args::Val(x, y) => slot.kernel.val(x, y),
            Args::Num(x, y) => slot.kernel.num(x, y),
        }
    }
}

/// The tangent position of each hyperparameter (`None`: fixed) and their number.
type DualCx = (Vec<Option<u32>>, usize);

impl Eval for Dual {
    type Cx = DualCx;
    const FUSED: bool = false;
    fn param((act, n): &DualCx, i: u32, value: f64) -> Self {
        match act[i as usize] {
            Some(j) => Dual::seed(value, j as usize, *n),
            None => Dual::constant(value, *n),
        }
    }
    fn leaf<T: ExprLabel>((act, n): &DualCx, slot: &LeafSlot, a: &T, b: &T, pos: &[u32]) -> Self {
        let mut g: SmallVec<[f64; 4]> = SmallVec::from_elem(0.0, slot.params.len());
        let v = match leaf_args(slot, a, b, pos) {
            Args::Val(x, y) => slot.kernel.grad_val(x, y, &mut g),
            Args::Num(x, y) => slot.kernel.grad_num(x, y, &mut g),
        };
        let mut d = Dual::constant(v, *n);
        for (&p, gj) in slot.params.iter().zip(g) {
            if let Some(j) = act[p as usize] {
                d.d[j as usize] += gj;
            }
        }
        d
    }
}

impl<T: ExprLabel> BaseKernel<T> for ExprKernel {
    #[inline]
    fn value(&self, a: &T, b: &T) -> f64 {
        if let (Some(f), Some(ra), Some(rb)) = (&self.closure.0, a.record(), b.record()) {
            return f(ra, rb);
        }
        self.with_positions(a, |pos| self.eval::<T, f64>(&self.code, a, b, pos, &()))
    }

    fn table(&self, a: &[&T], b: &[&T], out: &mut Vec<f64>) {
        match a.first().or(b.first()) {
            Some(l) => self.with_positions(*l, |pos| self.table_code(&self.code, a, b, pos, out)),
            None => out.clear(),
        }
    }

    fn low_rank(&self, a: &[&T], b: &[&T]) -> Option<LowRank> {
        match a.first().or(b.first()) {
            Some(l) => self.with_positions(*l, |pos| self.low_rank_code(&self.code, a, b, pos)),
            None => Some(LowRank::zero(a.len(), b.len())),
        }
    }

    fn range(&self) -> (f64, f64) {
        self.interval(&self.code)
    }

    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        self.names.iter().zip(&self.params).map(|(n, p)| p.hyper(n)).collect()
    }

    fn num_hyperparameters(&self) -> usize {
        self.params.len()
    }

    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, self.params.len())?;
        for (((p, n), o), &v) in self.params.iter().zip(&self.names).zip(&self.owner).zip(theta) {
            if o.is_none() {
                p.check(n, v, |v| v > 0.0)?;
            }
        }
        let mut leaves = self.leaves.clone();
        for slot in &mut leaves {
            let vals: SmallVec<[f64; 4]> = slot.params.iter().map(|&p| theta[p as usize]).collect();
            slot.kernel.set_theta(&vals).map_err(|e| match e {
                KernelError::OutOfBounds { value, bounds, name } => {
                    let full =
                        slot.params.iter().find(|&&p| theta[p as usize] == value).map(|&p| &self.names[p as usize]);
                    KernelError::OutOfBounds { name: full.cloned().unwrap_or(name), value, bounds }
                }
                e => e,
            })?;
        }
        let names = &self.names;
        self.expr = self.expr.with_values(&|n: &str| names.iter().position(|m| m == n).map(|i| theta[i]))?;
        for (p, &v) in self.params.iter_mut().zip(theta) {
            p.value = v;
        }
        self.leaves = leaves;
        self.rebuild();
        Ok(())
    }

    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        let cx = self.active();
        let d = self.with_positions(a, |pos| self.eval::<T, Dual>(&self.code, a, b, pos, &cx));
        grad.iter_mut().for_each(|g| *g = 0.0);
        for (k, j) in cx.0.iter().enumerate() {
            if let (Some(j), Some(g)) = (j, grad.get_mut(k)) {
                *g = d.d.get(*j as usize).copied().unwrap_or(0.0);
            }
        }
        d.v
    }

    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.bind_schema(schema)
    }

    fn cuda(&self, a: &str, b: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        let base = gen.num_params();
        for p in &self.params {
            gen.param(p.value);
        }
        self.cuda_code::<T>(&self.code, a, b, gen, base)
    }
}
