//! Evaluating [`ExprKernel`]'s compiled tree on the CPU: one value, in `f64`
//! or with derivatives ([`Dual`]); tables and low-rank forms over label
//! lists; the value range.

use super::super::num::{interval_binary, interval_unary, Dual, Num, ALL};
use super::super::{Bin, ExprLabel, Un};
use super::leaf::LeafKernel;
use super::{Code, ExprKernel, LeafSlot};
use crate::basekernel::{rows, LowRank};
use crate::graph::{Record, Value};
use smallvec::SmallVec;

const MISSING: Value = Value::Float(f64::NAN);

impl ExprKernel {
    /// Field positions: the bound ones, else resolved by name on `label`.
    #[inline(always)]
    pub(super) fn positions<'a, T: ExprLabel>(&'a self, label: &T, buf: &'a mut SmallVec<[u32; 8]>) -> &'a [u32] {
        if !self.index.is_empty() || self.fields.is_empty() {
            return &self.index;
        }
        let schema = label.fields();
        buf.extend(self.fields.iter().map(|n| schema.as_ref().and_then(|s| s.index(n)).map_or(u32::MAX, |i| i as u32)));
        buf
    }

    /// Runs `f` with the field positions for labels like `label`.
    #[inline(always)]
    pub(super) fn with_positions<T: ExprLabel, R>(&self, label: &T, f: impl FnOnce(&[u32]) -> R) -> R {
        if !self.index.is_empty() || self.fields.is_empty() {
            return f(&self.index);
        }
        let mut buf = SmallVec::new();
        f(self.positions(label, &mut buf))
    }

    /// Evaluates `c` in the number type `V`.
    #[inline]
    pub(super) fn eval<T: ExprLabel, V: Eval>(&self, c: &Code, a: &T, b: &T, pos: &[u32], cx: &V::Cx) -> V {
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

    /// The table of `c` on every pair of `a` × `b`, row by row: what each
    /// leaf reads is gathered once into contiguous lists ([`RowCode`]), then
    /// every row of `out` is evaluated in vectorized passes over a row of
    /// `|b|` values (sums and products of sub-tables stay in the first-level
    /// cache instead of streaming whole tables through memory).
    pub(super) fn table_rows<T: ExprLabel>(&self, c: &Code, a: &[&T], b: &[&T], pos: &[u32], out: &mut Vec<f64>) {
        let nb = b.len();
        let rc = self.row_code(c, a, b, pos);
        if let RowCode::Table(t) = rc {
            *out = t;
            return;
        }
        out.clear();
        out.reserve(a.len() * nb);
        let mut scratch = vec![vec![0.0; nb]; rc.depth()];
        for i in 0..a.len() {
            rc.extend_row(i, nb, out, &mut scratch);
        }
    }

    /// The rows of [`table_rows`](Self::table_rows)' table handed to `row`
    /// one at a time as they are evaluated (into `buf`), without the table
    /// ([`BaseKernel::for_each_row`](crate::basekernel::BaseKernel::for_each_row)).
    pub(super) fn each_row<T: ExprLabel>(
        &self,
        c: &Code,
        a: &[&T],
        b: &[&T],
        pos: &[u32],
        buf: &mut Vec<f64>,
        row: &mut dyn FnMut(usize, &[f64]),
    ) {
        let nb = b.len();
        let rc = self.row_code(c, a, b, pos);
        if let RowCode::Table(t) = rc {
            return crate::basekernel::each_row(a.len(), nb, &t, row);
        }
        let mut scratch = vec![vec![0.0; nb]; rc.depth()];
        for i in 0..a.len() {
            buf.clear();
            rc.extend_row(i, nb, buf, &mut scratch);
            row(i, buf);
        }
    }

    /// `c` prepared for [`table_rows`](Self::table_rows).
    fn row_code<T: ExprLabel>(&self, c: &Code, a: &[&T], b: &[&T], pos: &[u32]) -> RowCode {
        match c {
            Code::Leaf(i) | Code::Fused(i, _) => self.on_leaf_lists(
                &self.leaves[*i as usize],
                a,
                b,
                pos,
                &mut (),
                |slot, va, vb, _| {
                    let ids = |l: Vec<u32>| l.into_iter().map(f64::from).collect::<Vec<f64>>();
                    match &slot.kernel {
                        LeafKernel::Delta(k) => {
                            if let Some((ca, cb)) = rows::classes(va, vb, rows::MAX_CLASSES) {
                                return RowCode::Delta(k.h(), ids(ca), ids(cb));
                            }
                        }
                        LeafKernel::SqExp(k) => {
                            if let Some((xa, xb)) = rows::scalars(va, vb) {
                                return RowCode::SqExp(k.coef(), xa, xb);
                            }
                        }
                        _ => {}
                    }
                    let mut t = Vec::new();
                    slot.kernel.table_val(va, vb, &mut t);
                    RowCode::Table(t)
                },
                |slot, na, nb, _| {
                    let nums = |l: &[&f64]| l.iter().map(|x| **x).collect::<Vec<f64>>();
                    match &slot.kernel {
                        LeafKernel::Delta(k) => RowCode::Delta(k.h(), nums(na), nums(nb)),
                        LeafKernel::SqExp(k) => RowCode::SqExp(k.coef(), nums(na), nums(nb)),
                        k => {
                            let mut t = Vec::new();
                            k.table_num(na, nb, &mut t);
                            RowCode::Table(t)
                        }
                    }
                },
            ),
            Code::Bin(op @ (Bin::Add | Bin::Sub | Bin::Mul | Bin::Div), l, r) => {
                let op = match op {
                    Bin::Add => '+',
                    Bin::Sub => '-',
                    Bin::Mul => '*',
                    _ => '/',
                };
                RowCode::Bin(op, Box::new(self.row_code(l, a, b, pos)), Box::new(self.row_code(r, a, b, pos)))
            }
            Code::Const(v) => RowCode::Const(*v),
            _ => {
                let mut t = Vec::with_capacity(a.len() * b.len());
                for x in a {
                    t.extend(b.iter().map(|y| self.eval::<T, f64>(c, x, y, pos, &())));
                }
                RowCode::Table(t)
            }
        }
    }

    /// Runs `val` on the lists of record values the leaf `slot` compares
    /// over `a` × `b`, or `num` on its lists of numbers.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_leaf_lists<T: ExprLabel, X: ?Sized, R>(
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
    pub(super) fn low_rank_code<T: ExprLabel>(&self, c: &Code, a: &[&T], b: &[&T], pos: &[u32]) -> Option<LowRank> {
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
    pub(super) fn interval(&self, c: &Code) -> (f64, f64) {
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
}

/// A compiled expression prepared for one table over `a` × `b`
/// ([`ExprKernel::table_rows`]): the built-in kernels that have vectorized
/// rows hold their arguments as contiguous numbers, anything else its whole
/// table (evaluated entry by entry or by the kernel's own
/// [`table`](crate::basekernel::BaseKernel::table)).
enum RowCode {
    Const(f64),
    /// Kronecker delta on numbers (or class numbers, equal where the labels
    /// are): `h`, the numbers of `a`, of `b`.
    Delta(f64, Vec<f64>, Vec<f64>),
    /// Square exponential on numbers: `−1/(2ℓ²)`, the numbers of `a`, of `b`.
    SqExp(f64, Vec<f64>, Vec<f64>),
    /// The whole table, `|a|·|b|` values.
    Table(Vec<f64>),
    /// `+`, `−`, `·` or `/` of two sub-tables.
    Bin(char, Box<RowCode>, Box<RowCode>),
}

impl RowCode {
    /// The number of scratch rows [`row`](Self::row) needs.
    fn depth(&self) -> usize {
        match self {
            RowCode::Bin(_, l, r) => l.depth().max(1 + r.depth()),
            _ => 0,
        }
    }

    /// Appends row `i` of the table (`nb` values) to `out`, with
    /// [`depth`](Self::depth) scratch rows of `nb` values.
    fn extend_row(&self, i: usize, nb: usize, out: &mut Vec<f64>, scratch: &mut [Vec<f64>]) {
        match self {
            RowCode::Const(v) => out.resize(out.len() + nb, *v),
            RowCode::Delta(h, xa, xb) => rows::delta_extend(&xa[i..i + 1], xb, *h, out),
            RowCode::SqExp(coef, xa, xb) => rows::sqexp_extend(&xa[i..i + 1], xb, *coef, out),
            RowCode::Table(t) => out.extend_from_slice(&t[i * nb..(i + 1) * nb]),
            RowCode::Bin(op, l, r) => {
                let start = out.len();
                l.extend_row(i, nb, out, scratch);
                let (tmp, rest) = scratch.split_first_mut().expect("RowCode::depth scratch rows");
                tmp.clear();
                r.extend_row(i, nb, tmp, rest);
                rows::combine_row(*op, &mut out[start..], tmp);
            }
        }
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
pub(super) trait Eval: Num {
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
pub(super) type DualCx = (Vec<Option<u32>>, usize);

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
