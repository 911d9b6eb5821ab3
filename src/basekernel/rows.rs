//! Table rows of the built-in kernels in vectorized form: the loops that
//! [`BaseKernel::table`](super::BaseKernel::table) of [`SquareExponential`](super::SquareExponential)
//! and [`KroneckerDelta`](super::KroneckerDelta) and the SPEC evaluator's
//! row-by-row tables share.
//!
//! Each row is one pass over `|b|` values in the widest vector instructions
//! the CPU has ([`crate::simd::on_widest_isa`]). The operations are those of the
//! scalar definitions in the same order (no fused multiply–add), so every
//! instruction set gives the same bits, and the square exponential's value is
//! [`fastexp::exp`](super::fastexp::exp) of `(x − y)²·coef`, as the tables
//! computed before.

use super::fastexp;
use super::Point;
use crate::simd::isa_dispatch;

/// Appends the rows of the square exponential's table to `out`.
#[inline(always)]
fn sqexp_rows(xs: &[f64], ys: &[f64], coef: f64, out: &mut Vec<f64>) {
    for &x in xs {
        // a row in place (one pass while it is in the first-level cache;
        // `extend` over an iterator would not be inlined into this build)
        let start = out.len();
        out.resize(start + ys.len(), 0.0);
        for (o, &y) in out[start..].iter_mut().zip(ys) {
            let d = x - y;
            *o = fastexp::exp(d * d * coef);
        }
    }
}

/// Appends the rows of the Kronecker delta's table on numbers to `out`.
#[inline(always)]
fn delta_rows(xs: &[f64], ys: &[f64], h: f64, out: &mut Vec<f64>) {
    for &x in xs {
        let start = out.len();
        out.resize(start + ys.len(), 0.0);
        for (o, &y) in out[start..].iter_mut().zip(ys) {
            *o = if x == y { 1.0 } else { h };
        }
    }
}

/// `out[j] ← out[j] ∘ r[j]`.
#[inline(always)]
fn combine_loop(op: char, out: &mut [f64], r: &[f64]) {
    let pairs = out.iter_mut().zip(r);
    match op {
        '+' => pairs.for_each(|(o, v)| *o += v),
        '-' => pairs.for_each(|(o, v)| *o -= v),
        '*' => pairs.for_each(|(o, v)| *o *= v),
        _ => pairs.for_each(|(o, v)| *o /= v),
    }
}

isa_dispatch!(
    /// `out[j] ← out[j] ∘ r[j]` for `∘` = `+`, `−`, `·` or `/` (`op` one of
    /// `'+'`, `'-'`, `'*'`, `'/'`).
    pub(crate) fn combine_row(op: char, out: &mut [f64], r: &[f64]) = combine_loop
);

isa_dispatch!(
    /// Appends the square exponential's table over two lists of numbers to
    /// `out`, row by row.
    pub(crate) fn sqexp_extend(xs: &[f64], ys: &[f64], coef: f64, out: &mut Vec<f64>) = sqexp_rows
);

isa_dispatch!(
    /// Appends the Kronecker delta's table over two lists of numbers (or
    /// class numbers) to `out`, row by row: `1` where `x == y`, else `h`.
    pub(crate) fn delta_extend(xs: &[f64], ys: &[f64], h: f64, out: &mut Vec<f64>) = delta_rows
);

/// The square exponential's whole table over two lists of numbers
/// (`out` cleared, `|xs|·|ys|` values).
pub(crate) fn sqexp_table(xs: &[f64], ys: &[f64], coef: f64, out: &mut Vec<f64>) {
    out.clear();
    out.reserve(xs.len() * ys.len());
    sqexp_extend(xs, ys, coef, out)
}

/// The Kronecker delta's whole table over two lists of numbers (or class
/// numbers) (`out` cleared, `|xs|·|ys|` values).
pub(crate) fn delta_table(xs: &[f64], ys: &[f64], h: f64, out: &mut Vec<f64>) {
    out.clear();
    out.reserve(xs.len() * ys.len());
    delta_extend(xs, ys, h, out)
}

/// The numbers of two lists of points when every point is a number of one
/// kind ([`Point::as_scalar`]), else `None`.
pub(crate) fn scalars<T: Point + ?Sized>(a: &[&T], b: &[&T]) -> Option<(Vec<f64>, Vec<f64>)> {
    let tag = a.iter().chain(b).next()?.as_scalar()?.1;
    let num = |p: &&T| p.as_scalar().filter(|s| s.1 == tag).map(|s| s.0);
    Some((a.iter().map(num).collect::<Option<_>>()?, b.iter().map(num).collect::<Option<_>>()?))
}

/// Up to this many label classes, the Kronecker delta's tables compare class
/// numbers ([`classes`] costs `O((|a| + |b|)·classes)` label comparisons);
/// beyond, they compare the labels pair by pair.
pub(crate) const MAX_CLASSES: usize = 32;

/// The class of each label of `a` and of `b` under `==`, numbered by first
/// appearance in `a`: labels of `a` and `b` are equal exactly where their
/// classes are; a label of `b` equal to none of `a` gets `u32::MAX` (it
/// equals no label of `a`). `None` when `a` has more than `limit` classes
/// (the `O((|a| + |b|)·classes)` search would cost about as much as the
/// table itself).
pub(crate) fn classes<T: PartialEq + ?Sized>(a: &[&T], b: &[&T], limit: usize) -> Option<(Vec<u32>, Vec<u32>)> {
    let mut reps: Vec<&T> = Vec::new();
    let mut ca = Vec::with_capacity(a.len());
    for &x in a {
        let c = match reps.iter().position(|&r| r == x) {
            Some(c) => c,
            None if reps.len() < limit => {
                reps.push(x);
                reps.len() - 1
            }
            None => return None,
        };
        ca.push(c as u32);
    }
    let cb = b.iter().map(|&y| reps.iter().position(|&r| r == y).map_or(u32::MAX, |c| c as u32)).collect();
    Some((ca, cb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The vectorized tables equal the scalar definitions bit for bit.
        #[test]
        fn rows_equal_scalar_definitions(
            xs in proptest::collection::vec(-3.0f64..3.0, 0..20),
            ys in proptest::collection::vec(-3.0f64..3.0, 0..40),
            scale in 0.05f64..5.0,
            h in 0.0f64..1.0,
        ) {
            let coef = -0.5 / (scale * scale);
            let mut t = Vec::new();
            sqexp_table(&xs, &ys, coef, &mut t);
            prop_assert_eq!(t.len(), xs.len() * ys.len());
            for (i, &x) in xs.iter().enumerate() {
                for (j, &y) in ys.iter().enumerate() {
                    let want = fastexp::exp((x - y) * (x - y) * coef);
                    prop_assert_eq!(t[i * ys.len() + j].to_bits(), want.to_bits());
                    // and within 1e-15 relative of f64::exp (0 where e^x < 1e-307)
                    let e = ((x - y) * (x - y) * coef).exp();
                    prop_assert!((t[i * ys.len() + j] - e).abs() <= 1e-15 * e + 1e-307);
                }
            }
            let (la, lb): (Vec<f64>, Vec<f64>) = (xs.iter().map(|x| (x.abs() * 2.0).floor()).collect(),
                ys.iter().map(|y| (y.abs() * 2.0).floor()).collect());
            delta_table(&la, &lb, h, &mut t);
            for (i, &x) in la.iter().enumerate() {
                for (j, &y) in lb.iter().enumerate() {
                    prop_assert_eq!(t[i * lb.len() + j], if x == y { 1.0 } else { h });
                }
            }
        }

        /// Classes reproduce `==` between the lists (NaN equal to nothing).
        #[test]
        fn classes_reproduce_equality(
            a in proptest::collection::vec(prop_oneof![(0u8..6).prop_map(f64::from), Just(f64::NAN)], 0..30),
            b in proptest::collection::vec(prop_oneof![(0u8..8).prop_map(f64::from), Just(f64::NAN)], 0..30),
        ) {
            let (ra, rb): (Vec<&f64>, Vec<&f64>) = (a.iter().collect(), b.iter().collect());
            let Some((ca, cb)) = classes(&ra, &rb, usize::MAX) else { unreachable!() };
            for (i, x) in a.iter().enumerate() {
                for (j, y) in b.iter().enumerate() {
                    prop_assert_eq!(x == y, ca[i] == cb[j]);
                }
            }
        }
    }

    #[test]
    fn classes_give_up_beyond_the_limit() {
        let a = [1, 2, 3];
        let r: Vec<&i32> = a.iter().collect();
        assert!(classes(&r, &r, 2).is_none());
        assert_eq!(classes(&r, &r[..1], 3), Some((vec![0, 1, 2], vec![0])));
    }

    #[test]
    fn combine_row_applies_each_operation() {
        for (op, want) in [('+', 5.0), ('-', -1.0), ('*', 6.0), ('/', 2.0 / 3.0)] {
            let mut o = [2.0];
            combine_row(op, &mut o, &[3.0]);
            assert_eq!(o[0], want);
        }
    }
}
