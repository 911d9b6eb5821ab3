//! The SPEC parser: tokens to an [`Expr`] of built-in kernel leaves, sums,
//! products, powers and normalizations (compiled by [`ExprKernel::new`]).

use super::lexer::{error, lex, Tok, Token};
use super::{is_keyword, SpecError, MAX_DEPTH, MAX_EVALUATIONS, MAX_NODES};
use crate::basekernel::expr::{self, Bin, Expr, LeafKernel, Node, Un};
use crate::basekernel::hyper::positive;
use crate::basekernel::{
    Bounds, CompactPolynomial, Constant, ExprKernel, KernelError, KroneckerDelta, Polynomial, RConvolution,
    RationalQuadratic, Reduction, SquareExponential,
};
use std::collections::HashSet;

/// `a op b`, the two parts' hyperparameter paths made unique as the
/// combinators make them: where one path occurs in both, every path of part
/// `i` is prefixed `i.`.
fn combine(op: Bin, a: Expr, b: Expr) -> Expr {
    let (mut pa, mut pb) = (HashSet::new(), HashSet::new());
    a.paths(&mut pa);
    b.paths(&mut pb);
    let (a, b) = if pa.is_disjoint(&pb) { (a, b) } else { (a.prefixed("0."), b.prefixed("1.")) };
    Expr::node(Node::Binary(op, a, b))
}

/// `k ^ p`: a power with the fixed hyperparameter `exponent` (listed first).
fn power(k: Expr, p: f64) -> Expr {
    let e = expr::hyper("exponent", p, Bounds::Fixed);
    let (mut pk, mut pe) = (HashSet::new(), HashSet::new());
    k.paths(&mut pk);
    e.paths(&mut pe);
    let (k, e) = if pk.is_disjoint(&pe) { (k, e) } else { (k.prefixed("1."), e.prefixed("0.")) };
    Expr::node(Node::Binary(Bin::Pow, k, e))
}

/// Whether κ(x, x) = 1 for every x by construction.
fn unit_diagonal(e: &Expr) -> bool {
    match &*e.0 {
        Node::Normalize(_) => true,
        Node::Kernel(k) => matches!(&k.kernel, LeafKernel::Constant(c) if c.c() == 1.0),
        Node::Binary(Bin::Mul, a, b) => unit_diagonal(a) && unit_diagonal(b),
        Node::Binary(Bin::Pow, a, _) => unit_diagonal(a),
        _ => false,
    }
}

/// Built-in kernel evaluations per value (saturating).
fn evaluations(e: &Expr) -> u64 {
    match &*e.0 {
        Node::Binary(Bin::Mul | Bin::Add, a, b) => evaluations(a).saturating_add(evaluations(b)),
        Node::Binary(Bin::Pow, a, _) => evaluations(a),
        Node::Normalize(a) => evaluations(a).saturating_mul(3),
        Node::Kernel(k) => match &k.kernel {
            LeafKernel::RConv(r) => evaluations(r.kernel.expr()),
            _ => 1,
        },
        _ => 1,
    }
}

pub(super) struct Parser<'s> {
    spec: &'s str,
    toks: Vec<Token>,
    pos: usize,
    /// Current nesting of parentheses and calls.
    depth: usize,
    /// Kernels built so far.
    nodes: usize,
}

const KERNELS: &str = "a number, `(`, `-`, a kernel (constant, delta, sqexp, rq, poly, wendland, normalize, rconv), \
                       a field x.NAME or y.NAME, a function (exp, ln, abs, sqrt) or hyper(NAME, value[, BOUNDS])";

impl<'s> Parser<'s> {
    pub(super) fn new(spec: &'s str) -> Result<Self, SpecError> {
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

    pub(super) fn expect_end(&mut self) -> Result<(), SpecError> {
        let t = self.next();
        if t.tok == Tok::End {
            Ok(())
        } else {
            Err(self.err_at(&t, "`+`, `*`, `^` or the end of the spec"))
        }
    }

    /// `sum` of record kernels (`fields`) or element kernels.
    pub(super) fn sum(&mut self, fields: bool) -> Result<Expr, SpecError> {
        let mut k = self.product(fields)?;
        while let Some(op) = self.eat_op(&[('+', Bin::Add), ('-', Bin::Sub)]) {
            let r = self.product(fields)?;
            self.count_node()?;
            k = combine(op, k, r);
        }
        Ok(k)
    }

    fn product(&mut self, fields: bool) -> Result<Expr, SpecError> {
        let mut k = self.power(fields)?;
        while let Some(op) = self.eat_op(&[('*', Bin::Mul), ('/', Bin::Div)]) {
            let r = self.power(fields)?;
            self.count_node()?;
            k = combine(op, k, r);
        }
        Ok(k)
    }

    /// The operator of `ops` that comes next, read.
    fn eat_op(&mut self, ops: &[(char, Bin)]) -> Option<Bin> {
        let op = ops.iter().find(|(c, _)| self.peek().tok == Tok::Punct(*c)).map(|&(_, op)| op);
        if op.is_some() {
            self.next();
        }
        op
    }

    fn power(&mut self, fields: bool) -> Result<Expr, SpecError> {
        if self.eat('-') {
            // unary minus binds as a power does: -a ^ 2 = -(a ^ 2)
            let k = self.power(fields)?;
            self.count_node()?;
            return Ok(Expr::node(Node::Unary(Un::Neg, k)));
        }
        let k = self.atom(fields)?;
        if self.eat('^') {
            let p = self.number("an exponent > 0", positive)?;
            self.count_node()?;
            return Ok(power(k, p));
        }
        Ok(k)
    }

    fn number(&mut self, expected: &str, valid: impl Fn(f64) -> bool) -> Result<f64, SpecError> {
        let minus = (self.peek().tok == Tok::Punct('-')).then(|| self.next());
        let sign = if minus.is_some() { -1.0 } else { 1.0 };
        let t = self.next();
        match t.tok {
            Tok::Number(x) if valid(sign * x) => Ok(sign * x),
            // a negative number is reported as one token, `-1`, at the minus sign
            Tok::Number(_) if minus.is_some() => {
                let m = minus.expect("checked");
                Err(self.err_at(&Token { text: format!("-{}", t.text), ..m }, expected))
            }
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

    fn atom(&mut self, fields: bool) -> Result<Expr, SpecError> {
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
                return Ok(expr::kernel(Constant::new(*c)));
            }
            Tok::Punct('(') => {
                let k = self.sum(fields)?;
                self.punct(')', "`)`, `+`, `*` or `^`")?;
                k
            }
            Tok::Name(name) if (name == "x" || name == "y") && self.peek().tok == Tok::Punct('.') => {
                self.next();
                let f = self.next();
                let field = match &f.tok {
                    Tok::Name(n) | Tok::Quoted(n) => n.clone(),
                    _ => return Err(self.err_at(&f, "a field name after `x.` or `y.`")),
                };
                self.count_node()?;
                if name == "x" {
                    expr::x(&field)
                } else {
                    expr::y(&field)
                }
            }
            Tok::Name(name) => self.call(&t, &name.to_ascii_lowercase(), fields)?,
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

    fn call(&mut self, name_tok: &Token, name: &str, fields: bool) -> Result<Expr, SpecError> {
        let canonical = match name {
            "constant" => "constant",
            "delta" | "kroneckerdelta" => "delta",
            "sqexp" | "squareexponential" => "sqexp",
            "rq" | "rationalquadratic" => "rq",
            "poly" | "polynomial" => "poly",
            "wendland" | "compact" | "compactpolynomial" => "wendland",
            "normalize" => "normalize",
            "rconv" => "rconv",
            "exp" | "ln" | "log" | "abs" | "sqrt" => return self.function(name, fields),
            "hyper" => return self.hyper(),
            _ => return Err(self.err_at(name_tok, KERNELS)),
        };
        self.punct('(', &format!("`(` after {canonical}"))?;
        self.count_node()?;
        let field = if fields && !matches!(canonical, "constant" | "normalize") { Some(self.field()?) } else { None };
        let leaf = match canonical {
            "constant" => {
                let c = self.number("a constant c > 0", positive)?;
                let b = self.bounds()?;
                LeafKernel::Constant(self.apply_bounds(Constant::new(c), b, Constant::with_bounds)?)
            }
            "delta" => {
                let h = self.number("h in [0, 1] (the value for unequal labels)", |x| (0.0..=1.0).contains(&x))?;
                let b = self.bounds()?;
                LeafKernel::Delta(self.apply_bounds(KroneckerDelta::new(h), b, KroneckerDelta::with_bounds)?)
            }
            "sqexp" => {
                let l = self.number("a length scale > 0", positive)?;
                let b = self.bounds()?;
                LeafKernel::SqExp(self.apply_bounds(SquareExponential::new(l), b, SquareExponential::with_bounds)?)
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
                LeafKernel::Rq(k)
            }
            "poly" => {
                let c = self.number("an offset >= 0", |x| x.is_finite() && x >= 0.0)?;
                self.punct(',', "`,` and the degree")?;
                let d =
                    self.number("an integer degree in 0..=64", |x| x.fract() == 0.0 && (0.0..=64.0).contains(&x))?;
                let b = self.bounds()?;
                LeafKernel::Poly(self.apply_bounds(Polynomial::new(c, d as u32), b, Polynomial::with_bounds)?)
            }
            "wendland" => {
                let r = self.number("a support radius > 0", positive)?;
                let b = self.bounds()?;
                LeafKernel::Wendland(self.apply_bounds(CompactPolynomial::new(r), b, CompactPolynomial::with_bounds)?)
            }
            "normalize" => {
                let k = self.sum(fields)?;
                self.close("normalize(")?;
                if unit_diagonal(&k) {
                    // κ(x, x) = 1 already: normalize(κ) = κ, at no cost
                    return Ok(k);
                }
                let k = Expr::node(Node::Normalize(k));
                if evaluations(&k) > MAX_EVALUATIONS {
                    return Err(self.err_at(
                        name_tok,
                        &format!(
                            "a kernel that costs at most {MAX_EVALUATIONS} base-kernel evaluations per value \
                             (normalize(k) evaluates k three times; this one needs {}): nest fewer normalize(",
                            evaluations(&k)
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
                let elem_tok = self.peek().clone();
                let elem = self.sum(false)?;
                let elem =
                    ExprKernel::new(elem).map_err(|e| self.err_at(&elem_tok, &format!("an element kernel ({e})")))?;
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
                return Ok(expr::kernel_on(&field, RConvolution { kernel: elem, reduction }));
            }
        };
        self.close(&format!("{canonical}("))?;
        Ok(match field {
            Some(f) if !matches!(leaf, LeafKernel::Constant(_)) => expr::kernel_on(&f, leaf),
            _ => expr::kernel(leaf),
        })
    }

    /// `exp(sum)`, `ln(sum)` (or `log`), `abs(sum)`, `sqrt(sum)`.
    fn function(&mut self, name: &str, fields: bool) -> Result<Expr, SpecError> {
        self.punct('(', &format!("`(` after {name}"))?;
        self.count_node()?;
        let a = self.sum(fields)?;
        self.close(&format!("{name}("))?;
        let op = match name {
            "exp" => Un::Exp,
            "ln" | "log" => Un::Ln,
            "abs" => Un::Abs,
            _ => Un::Sqrt,
        };
        Ok(Expr::node(Node::Unary(op, a)))
    }

    /// `hyper(NAME, value [, BOUNDS])`: a named hyperparameter (fixed
    /// without BOUNDS); the same name twice in one term is one θ.
    fn hyper(&mut self) -> Result<Expr, SpecError> {
        self.punct('(', "`(` after hyper")?;
        self.count_node()?;
        let t = self.next();
        let name = match &t.tok {
            Tok::Name(n) | Tok::Quoted(n) => n.clone(),
            _ => return Err(self.err_at(&t, "a hyperparameter name")),
        };
        self.punct(',', "`,` and the hyperparameter's value")?;
        let v = self.number("a finite value > 0 (hyperparameters train in log space)", positive)?;
        let b = match self.bounds()? {
            None => Bounds::Fixed,
            Some((Bounds::Range(lo, hi), t)) if !(0.0 < lo && lo <= v && v <= hi) => {
                return Err(self.err_at(&t, &format!("bounds [lo, hi] with 0 < lo <= {v} <= hi")))
            }
            Some((b, _)) => b,
        };
        self.close("hyper(")?;
        Ok(expr::hyper(&name, v, b))
    }

    /// `BOUNDS` right after a `,` that was just read.
    fn bounds_required(&mut self) -> Result<(Bounds, Token), SpecError> {
        self.pos -= 1; // back onto the `,`, which `bounds` reads
        let next = self.toks[self.pos + 1].clone();
        self.bounds()?.ok_or_else(|| self.err_at(&next, "bounds `[lo, hi]` or `fixed`"))
    }
}
