//! Vectors of field elements, one per evaluation point, as the CPU sieve
//! uses them: bit-sliced GF(2^8) (64·W points per line) and GF(2^64)
//! (8 points per line, carry-less multiply).

use kronograph_semirings::bitsliced::{self as bs, Planes, WidePlanes};
use kronograph_semirings::{gf256_mul, gf2p64_mul};

/// A field's line of evaluation points and the few operations the
/// recurrence needs. Points are subsets `L ⊆ [k]` numbered by their bit
/// mask; a line holds `POINTS` consecutive ones.
pub(crate) trait Lines: Send + Sync + 'static {
    /// `POINTS` field elements.
    type Line: Copy + Send + Sync;
    /// A sum of products, possibly not yet reduced.
    type Acc: Copy + Send + Sync;
    /// A random scalar α as stored between uses (as small as the field).
    type Alpha: Copy + Send + Sync;
    /// A scalar prepared for multiplying lines.
    type Scale: Copy;
    /// Points per line.
    const POINTS: usize;
    /// The zero line.
    fn zero() -> Self::Line;
    /// The zero accumulator.
    fn zero_acc() -> Self::Acc;
    /// A field element from 64 random bits.
    fn scalar(h: u64) -> u64;
    /// The product of two field elements.
    fn mul_scalar(a: u64, b: u64) -> u64;
    /// The α drawn from 64 random bits (the field element
    /// [`scalar`](Self::scalar) gives, stored compactly).
    fn alpha(h: u64) -> Self::Alpha;
    /// Prepares `alpha` for [`acc_scaled`](Self::acc_scaled).
    fn prep(alpha: Self::Alpha) -> Self::Scale;
    /// `a += b`.
    fn add_assign(a: &mut Self::Line, b: &Self::Line);
    /// `acc += α · a`.
    fn acc_scaled(acc: &mut Self::Acc, a: &Self::Line, alpha: &Self::Scale);
    /// `acc += a ⊙ b`.
    fn acc_mul(acc: &mut Self::Acc, a: &Self::Line, b: &Self::Line);
    /// The line an accumulator holds.
    fn reduce(acc: &Self::Acc) -> Self::Line;
    /// The label sums `ζ^L = Σ_{ℓ ∈ L} ζ_ℓ` for the points `first ..
    /// first + POINTS` (`first` a multiple of `POINTS`), from the `k`
    /// labels `zeta` of one vertex.
    fn labels(zeta: &[u64], first: u64) -> Self::Line;
    /// The sum of the first `count` points of a line.
    fn sum(a: &Self::Line, count: usize) -> u64;
}

/// Bit-sliced GF(2^8), `64·W` points per line.
pub(crate) struct Bs8<const W: usize>;

/// Bit `ℓ` of the point index `t ∈ 0..64` as a word over `t`.
const PATTERN: [u64; 6] = [
    0xAAAA_AAAA_AAAA_AAAA,
    0xCCCC_CCCC_CCCC_CCCC,
    0xF0F0_F0F0_F0F0_F0F0,
    0xFF00_FF00_FF00_FF00,
    0xFFFF_0000_FFFF_0000,
    0xFFFF_FFFF_0000_0000,
];

impl<const W: usize> Lines for Bs8<W> {
    type Line = Planes<W>;
    type Acc = WidePlanes<W>;
    type Alpha = u8;
    type Scale = bs::Scalar;
    const POINTS: usize = 64 * W;

    #[inline(always)]
    fn zero() -> Self::Line {
        bs::zero()
    }
    #[inline(always)]
    fn zero_acc() -> Self::Acc {
        bs::zero_wide()
    }
    #[inline(always)]
    fn scalar(h: u64) -> u64 {
        h & 0xFF
    }
    #[inline(always)]
    fn mul_scalar(a: u64, b: u64) -> u64 {
        gf256_mul(a as u8, b as u8) as u64
    }
    #[inline(always)]
    fn alpha(h: u64) -> u8 {
        Self::scalar(h) as u8
    }
    #[inline(always)]
    fn prep(alpha: u8) -> Self::Scale {
        bs::Scalar::new(alpha)
    }
    #[inline(always)]
    fn add_assign(a: &mut Self::Line, b: &Self::Line) {
        for (x, y) in a.iter_mut().zip(b) {
            for w in 0..W {
                x[w] ^= y[w];
            }
        }
    }
    #[inline(always)]
    fn acc_scaled(acc: &mut Self::Acc, a: &Self::Line, alpha: &Self::Scale) {
        bs::acc_scaled_wide(acc, a, alpha)
    }
    #[inline(always)]
    fn acc_mul(acc: &mut Self::Acc, a: &Self::Line, b: &Self::Line) {
        bs::acc_mul_wide(acc, a, b)
    }
    #[inline(always)]
    fn reduce(acc: &Self::Acc) -> Self::Line {
        bs::reduce_wide(*acc)
    }
    #[inline(always)]
    fn labels(zeta: &[u64], first: u64) -> Self::Line {
        let mut p = bs::zero::<W>();
        for w in 0..W {
            let base = first + 64 * w as u64;
            for (l, &z) in zeta.iter().enumerate() {
                let bits = if l < 6 { PATTERN[l] } else { 0u64.wrapping_sub((base >> l) & 1) };
                for (b, plane) in p.iter_mut().enumerate() {
                    plane[w] ^= bits & 0u64.wrapping_sub((z >> b) & 1);
                }
            }
        }
        p
    }
    #[inline(always)]
    fn sum(a: &Self::Line, count: usize) -> u64 {
        bs::sum_prefix(a, count) as u64
    }
}

/// GF(2^64), 8 points per line.
pub(crate) struct Wide64;

impl Lines for Wide64 {
    type Line = [u64; 8];
    type Acc = [u64; 8];
    type Alpha = u64;
    type Scale = u64;
    const POINTS: usize = 8;

    fn zero() -> Self::Line {
        [0; 8]
    }
    fn zero_acc() -> Self::Acc {
        [0; 8]
    }
    fn scalar(h: u64) -> u64 {
        h
    }
    fn mul_scalar(a: u64, b: u64) -> u64 {
        gf2p64_mul(a, b)
    }
    fn alpha(h: u64) -> u64 {
        h
    }
    fn prep(alpha: u64) -> u64 {
        alpha
    }
    #[inline(always)]
    fn add_assign(a: &mut Self::Line, b: &Self::Line) {
        for t in 0..8 {
            a[t] ^= b[t];
        }
    }
    #[inline(always)]
    fn acc_scaled(acc: &mut Self::Acc, a: &Self::Line, alpha: &u64) {
        for t in 0..8 {
            acc[t] ^= gf2p64_mul(a[t], *alpha);
        }
    }
    #[inline(always)]
    fn acc_mul(acc: &mut Self::Acc, a: &Self::Line, b: &Self::Line) {
        for t in 0..8 {
            acc[t] ^= gf2p64_mul(a[t], b[t]);
        }
    }
    fn reduce(acc: &Self::Acc) -> Self::Line {
        *acc
    }
    fn labels(zeta: &[u64], first: u64) -> Self::Line {
        let mut out = [0u64; 8];
        for (t, o) in out.iter_mut().enumerate() {
            let p = first + t as u64;
            *o = zeta.iter().enumerate().filter(|(l, _)| (p >> l) & 1 == 1).fold(0, |s, (_, &z)| s ^ z);
        }
        out
    }
    fn sum(a: &Self::Line, count: usize) -> u64 {
        a.iter().take(count).fold(0, |s, &v| s ^ v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-sliced label sums agree with the direct sum over the subset's bits.
    #[test]
    fn labels_match_direct_sums() {
        let zeta: Vec<u64> = (0..11).map(|l| (l * 37 + 5) & 0xFF).collect();
        for first in [0u64, 512, 1536] {
            let line = <Bs8<8> as Lines>::labels(&zeta, first);
            let bytes = bs::to_bytes::<8>(&line);
            for (t, &b) in bytes.iter().enumerate() {
                let p = first + t as u64;
                let want = zeta.iter().enumerate().filter(|(l, _)| (p >> l) & 1 == 1).fold(0, |s, (_, &z)| s ^ z);
                assert_eq!(b as u64, want, "point {p}");
            }
        }
    }
}
