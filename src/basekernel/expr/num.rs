//! The number types an expression is evaluated in: `f64`, [`Dual`] numbers
//! (the gradient) and intervals (the range).

use super::{Bin, Un};
use smallvec::SmallVec;

/// The number types the program runs in: `f64` and [`Dual`].
pub(super) trait Num: Clone {
    fn real(x: f64) -> Self;
    /// x^p for a constant p.
    fn powf(self, p: f64) -> Self {
        self.binary(Bin::Pow, Self::real(p))
    }
    fn value(&self) -> f64;
    fn unary(self, op: Un) -> Self;
    fn binary(self, op: Bin, r: Self) -> Self;
}

/// x^p; x·x for p = 2 (equal up to rounding to the `pow` of the dual and
/// CUDA forms).
#[inline(always)]
pub(super) fn powf(x: f64, p: f64) -> f64 {
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
/// type ([`cuda_dual_helper`](crate::basekernel::cuda_dual_helper)).
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
    pub(super) fn chain(v: f64, c: f64, a: &Dual) -> Self {
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

pub(super) fn interval_unary(op: Un, (lo, hi): (f64, f64)) -> (f64, f64) {
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

pub(super) const ALL: (f64, f64) = (f64::NEG_INFINITY, f64::INFINITY);

pub(super) fn interval_binary(op: Bin, (a, b): (f64, f64), (c, d): (f64, f64)) -> (f64, f64) {
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
