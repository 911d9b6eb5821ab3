//! [`ExprKernel`]: an [`Expr`] compiled once into a tree of operations whose
//! leaves are numbers, fields, hyperparameters and built-in kernels.

// the closure tree on records and the built-in kernels as leaves: parts of
// the compiled kernel (a leaf can be an R-convolution over an `ExprKernel`)
mod closure;
mod cuda;
mod eval;
mod leaf;

use self::closure::Closure;
pub use self::leaf::LeafKernel;
use super::num::{powf, Dual, Num};
use super::{Bin, Expr, ExprLabel, KernelLeaf, Node, Un};
use crate::basekernel::hyper::Param;
use crate::basekernel::{
    builtin_ops, check_len, BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError, KroneckerDelta, LowRank,
    SquareExponential,
};
use crate::graph::{FieldKind, LabelError, Schema};
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

    /// [`BaseKernel::bind`] without naming the label type (an `ExprKernel`
    /// is a kernel on every label type, so `k.bind(..)` through the trait
    /// needs `BaseKernel::<Record>::bind(&mut k, ..)`).
    ///
    /// # Errors
    /// [`KernelError::Label`] for a field the schema does not have, or of
    /// the wrong kind.
    pub fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.bind_schema(schema)
    }

    /// [`BaseKernel::range`] without naming the label type.
    pub fn range(&self) -> (f64, f64) {
        self.interval(&self.code)
    }

    /// [`BaseKernel::hyperparameters`] without naming the label type.
    pub fn hyperparameters(&self) -> Vec<Hyperparameter> {
        <Self as BaseKernel<crate::graph::Record>>::hyperparameters(self)
    }

    /// [`BaseKernel::theta`] without naming the label type.
    pub fn theta(&self) -> Vec<f64> {
        <Self as BaseKernel<crate::graph::Record>>::theta(self)
    }

    /// [`BaseKernel::set_theta`] without naming the label type.
    ///
    /// # Errors
    /// As [`BaseKernel::set_theta`].
    pub fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        <Self as BaseKernel<crate::graph::Record>>::set_theta(self, theta)
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
            Some(l) => self.with_positions(*l, |pos| self.table_rows(&self.code, a, b, pos, out)),
            None => out.clear(),
        }
    }

    fn for_each_row(&self, a: &[&T], b: &[&T], buf: &mut Vec<f64>, row: &mut dyn FnMut(usize, &[f64])) {
        match a.first().or(b.first()) {
            Some(l) => self.with_positions(*l, |pos| self.each_row(&self.code, a, b, pos, buf, row)),
            None => buf.clear(),
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

    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let base = cg.num_params();
        for p in &self.params {
            cg.param(p.value);
        }
        self.cuda_code::<T>(&self.code, a, b, cg, base)
    }
}
