//! A branch-free `exp` over slices that the compiler vectorizes, for whole
//! tables of kernel values ([`BaseKernel::table`](super::BaseKernel::table)).
//!
//! `eˣ = 2ᵏ eʳ` with `k = round(x / ln 2)` and `r = x − k ln 2` (Cody–Waite:
//! `ln 2` split in a high part with trailing zeros, so `k·ln2_hi` is exact),
//! `|r| ≤ ln 2 / 2`, `eʳ` by its Taylor polynomial of degree 13 (truncation
//! below `5·10⁻¹⁸`; Estrin's scheme, whose short dependency chains keep the
//! vector units busy), `2ᵏ` built in the exponent bits. The rounding of `k`
//! and the conversion use the `1.5·2⁵²` shift, so the loop has no calls and
//! no branches (and no `mul_add`, a library call without FMA). Relative error within a few ulps of `f64::exp` (checked by
//! the tests below); `x < −708` gives 0 (where `eˣ` is subnormal or 0),
//! `x > 709` gives `+∞` (`f64::exp` overflows from 709.78 on), NaN stays NaN.

const LOG2E: f64 = std::f64::consts::LOG2_E;
/// `ln 2` to 32 bits (fdlibm's `ln2_hi`): `k·LN2_HI` is exact for `|k| < 2²⁰`.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// `ln 2 − LN2_HI`.
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// `1.5·2⁵²`: adding it rounds to an integer held in the low mantissa bits.
const SHIFT: f64 = 6_755_399_441_055_744.0;
/// Below this `eˣ` is not a normal `f64`.
const LOW: f64 = -708.0;
/// Above this `eˣ` overflows.
const HIGH: f64 = 709.0;

/// `eˣ` without branches (see the [module documentation](self)).
#[inline(always)]
pub(crate) fn exp(x: f64) -> f64 {
    let xc = x.clamp(LOW, HIGH);
    let t = xc * LOG2E + SHIFT;
    let k = t - SHIFT;
    let r = (xc - k * LN2_HI) - k * LN2_LO;
    // Taylor coefficients 1/n!, n = 0..13, by Estrin's scheme (pairs, then
    // r², r⁴, r⁸: a dependency chain of 5 multiply–adds instead of Horner's 13)
    let (r2, q0, q1) = (r * r, 1.0 + r, 0.5 + r * (1.0 / 6.0));
    let (q2, q3) = (1.0 / 24.0 + r * (1.0 / 120.0), 1.0 / 720.0 + r * (1.0 / 5_040.0));
    let (q4, q5) = (1.0 / 40_320.0 + r * (1.0 / 362_880.0), 1.0 / 3_628_800.0 + r * (1.0 / 39_916_800.0));
    let q6 = 1.0 / 479_001_600.0 + r * (1.0 / 6_227_020_800.0);
    let r4 = r2 * r2;
    let (s0, s1, s2) = (q0 + q1 * r2, q2 + q3 * r2, q4 + q5 * r2);
    let (t0, t1) = (s0 + s1 * r4, s2 + q6 * r4);
    let p = t0 + t1 * (r4 * r4);
    // k in [-1022, 1023]: the low bits of t hold k + 2^51 (two's complement)
    let ki = (t.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
    let scale = f64::from_bits(((ki + 1023) as u64) << 52);
    let v = p * scale;
    if x.is_nan() {
        x
    } else if x < LOW {
        0.0
    } else if x > HIGH {
        f64::INFINITY
    } else {
        v
    }
}

#[inline(always)]
fn exp_loop(v: &mut [f64]) {
    for x in v.iter_mut() {
        *x = exp(*x);
    }
}

crate::simd::isa_dispatch!(
    /// `v_i ← e^{v_i}` for every entry: eight lanes at a time with AVX-512,
    /// four with AVX2, two otherwise (chosen at run time; the same operations,
    /// hence the same bits, on every path).
    pub(crate) fn exp_in_place(v: &mut [f64]) = exp_loop
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_std_exp() {
        let mut worst = 0.0f64;
        let mut x: f64 = -707.9;
        while x < 708.9 {
            for dx in [0.0, 1e-3, std::f64::consts::LN_2 / 2.0, 0.5, std::f64::consts::LN_2] {
                let y: f64 = (x + dx).min(HIGH);
                let (a, b) = (exp(y), y.exp());
                worst = worst.max(((a - b) / b).abs());
            }
            x += 0.7310;
        }
        for &y in &[0.0, -0.0, 1e-300, -1e-17, 1.0, -1.0, -50.0, -0.5, 0.25] {
            let (a, b) = (exp(y), f64::exp(y));
            worst = worst.max(((a - b) / b).abs());
        }
        assert!(worst < 1e-15, "worst relative error {worst:e}");
        assert_eq!(exp(-1000.0), 0.0);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(1000.0), f64::INFINITY);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(0.0), 1.0);
    }
}
