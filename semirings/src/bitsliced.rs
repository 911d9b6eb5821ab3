//! Bit-sliced GF(2^8) (modulus 0x11D, as [`gf256_mul`](crate::gf256_mul)):
//! many field elements at once with Boolean word operations.
//!
//! A *line* of `64·W` elements is stored as eight bit planes
//! ([`Planes<W>`]): bit `t` of word `w` of plane `b` is bit `b` of element
//! `64·w + t`. Addition is a plane-wise xor; multiplication is the
//! schoolbook (Mastrovito) product of the planes (64 and, 49 xor) followed
//! by the reduction `x^8 = x^4 + x^3 + x^2 + 1` (28 xor), so one
//! multiplication of two lines costs about 141 word operations for `64·W`
//! products. The loops over `w` are written so that the compiler
//! vectorizes them (one AVX-512 register holds a plane for `W = 8`).
//!
//! Multiplying a line by one field scalar is cheaper: [`Scalar`] holds the
//! eight masks of the scalar's bits, and [`acc_scaled_wide`] adds
//! `α · line` to a 15-plane *unreduced* accumulator with 64 and-xor; sums
//! of many scaled lines are reduced once at the end ([`reduce_wide`]),
//! since the reduction is linear.
//!
//! ```
//! use kronograph_semirings::bitsliced::{from_bytes, mul, to_bytes};
//! use kronograph_semirings::gf256_mul;
//! let a: Vec<u8> = (0..64).map(|t| (t * 7 + 3) as u8).collect();
//! let b: Vec<u8> = (0..64).map(|t| (t * 13 + 1) as u8).collect();
//! let c = to_bytes::<1>(&mul(&from_bytes::<1>(&a), &from_bytes::<1>(&b)));
//! for t in 0..64 {
//!     assert_eq!(c[t], gf256_mul(a[t], b[t]));
//! }
//! ```

// index loops over planes and words: the shape the vectorizer wants
#![allow(clippy::needless_range_loop)]

/// A line of `64·W` elements of GF(2^8) as eight bit planes of `W` words.
pub type Planes<const W: usize> = [[u64; W]; 8];

/// An unreduced product: 15 bit planes (degrees 0..=14).
pub type WidePlanes<const W: usize> = [[u64; W]; 15];

/// The zero line.
#[inline(always)]
pub const fn zero<const W: usize>() -> Planes<W> {
    [[0; W]; 8]
}

/// The zero unreduced accumulator.
#[inline(always)]
pub const fn zero_wide<const W: usize>() -> WidePlanes<W> {
    [[0; W]; 15]
}

/// `a += b` (xor).
#[inline(always)]
pub fn add_assign<const W: usize>(a: &mut Planes<W>, b: &Planes<W>) {
    for p in 0..8 {
        for w in 0..W {
            a[p][w] ^= b[p][w];
        }
    }
}

/// Reduces an unreduced accumulator modulo 0x11D.
#[inline(always)]
pub fn reduce_wide<const W: usize>(mut c: WidePlanes<W>) -> Planes<W> {
    // x^d = x^(d-8) · x^8 ≡ x^(d-8) (x^4 + x^3 + x^2 + 1), from the top down
    for d in (8..15).rev() {
        for w in 0..W {
            let v = c[d][w];
            c[d - 4][w] ^= v;
            c[d - 5][w] ^= v;
            c[d - 6][w] ^= v;
            c[d - 8][w] ^= v;
        }
    }
    let mut out = zero::<W>();
    out.copy_from_slice(&c[..8]);
    out
}

/// `acc += a ⊙ b` unreduced (element-wise product of two lines).
#[inline(always)]
pub fn acc_mul_wide<const W: usize>(acc: &mut WidePlanes<W>, a: &Planes<W>, b: &Planes<W>) {
    for i in 0..8 {
        for j in 0..8 {
            for w in 0..W {
                acc[i + j][w] ^= a[i][w] & b[j][w];
            }
        }
    }
}

/// The element-wise product `a ⊙ b` of two lines.
#[inline(always)]
pub fn mul<const W: usize>(a: &Planes<W>, b: &Planes<W>) -> Planes<W> {
    let mut c = zero_wide::<W>();
    acc_mul_wide(&mut c, a, b);
    reduce_wide(c)
}

/// A field scalar prepared for multiplying lines: the all-ones / all-zeros
/// mask of each of its eight bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar {
    masks: [u64; 8],
}

impl Scalar {
    /// Prepares `alpha`.
    #[inline(always)]
    pub fn new(alpha: u8) -> Self {
        let mut masks = [0u64; 8];
        for (j, m) in masks.iter_mut().enumerate() {
            *m = 0u64.wrapping_sub(((alpha >> j) & 1) as u64);
        }
        Scalar { masks }
    }
}

/// `acc += α · a` unreduced: 64 and-xor per word.
#[inline(always)]
pub fn acc_scaled_wide<const W: usize>(acc: &mut WidePlanes<W>, a: &Planes<W>, alpha: &Scalar) {
    for j in 0..8 {
        let m = alpha.masks[j];
        for i in 0..8 {
            for w in 0..W {
                acc[i + j][w] ^= a[i][w] & m;
            }
        }
    }
}

/// The line whose every element is `x`.
#[inline(always)]
pub fn broadcast<const W: usize>(x: u8) -> Planes<W> {
    let mut p = zero::<W>();
    for (b, plane) in p.iter_mut().enumerate() {
        *plane = [0u64.wrapping_sub(((x >> b) & 1) as u64); W];
    }
    p
}

/// The sum (xor) of the first `count` elements of a line (`count ≤ 64·W`).
#[inline]
pub fn sum_prefix<const W: usize>(a: &Planes<W>, count: usize) -> u8 {
    let mut s = 0u8;
    for (b, plane) in a.iter().enumerate() {
        let mut ones = 0u32;
        for (w, &word) in plane.iter().enumerate() {
            let lo = 64 * w;
            let mask = if count >= lo + 64 {
                u64::MAX
            } else if count <= lo {
                0
            } else {
                (1u64 << (count - lo)) - 1
            };
            ones += (word & mask).count_ones();
        }
        s |= ((ones & 1) as u8) << b;
    }
    s
}

/// Packs up to `64·W` bytes into bit planes (missing elements are 0).
pub fn from_bytes<const W: usize>(bytes: &[u8]) -> Planes<W> {
    let mut p = zero::<W>();
    for (t, &x) in bytes.iter().take(64 * W).enumerate() {
        for (b, plane) in p.iter_mut().enumerate() {
            plane[t / 64] |= (((x >> b) & 1) as u64) << (t % 64);
        }
    }
    p
}

/// Unpacks the `64·W` elements of a line.
pub fn to_bytes<const W: usize>(p: &Planes<W>) -> Vec<u8> {
    (0..64 * W)
        .map(|t| {
            let mut x = 0u8;
            for (b, plane) in p.iter().enumerate() {
                x |= (((plane[t / 64] >> (t % 64)) & 1) as u8) << b;
            }
            x
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gf256_mul;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn mul_matches_table(a in proptest::collection::vec(any::<u8>(), 128), b in proptest::collection::vec(any::<u8>(), 128)) {
            let c = to_bytes::<2>(&mul(&from_bytes::<2>(&a), &from_bytes::<2>(&b)));
            for t in 0..128 {
                prop_assert_eq!(c[t], gf256_mul(a[t], b[t]));
            }
        }

        #[test]
        fn scaled_sum_matches_table(a in proptest::collection::vec(any::<u8>(), 64), b in proptest::collection::vec(any::<u8>(), 64), x in any::<u8>(), y in any::<u8>()) {
            let mut acc = zero_wide::<1>();
            acc_scaled_wide(&mut acc, &from_bytes::<1>(&a), &Scalar::new(x));
            acc_scaled_wide(&mut acc, &from_bytes::<1>(&b), &Scalar::new(y));
            let c = to_bytes::<1>(&reduce_wide(acc));
            for t in 0..64 {
                prop_assert_eq!(c[t], gf256_mul(a[t], x) ^ gf256_mul(b[t], y));
            }
        }

        #[test]
        fn prefix_sum_and_broadcast(a in proptest::collection::vec(any::<u8>(), 128), count in 0usize..=128, x in any::<u8>()) {
            let want = a[..count].iter().fold(0u8, |s, &v| s ^ v);
            prop_assert_eq!(sum_prefix(&from_bytes::<2>(&a), count), want);
            prop_assert!(to_bytes::<2>(&broadcast::<2>(x)).iter().all(|&v| v == x));
        }
    }

    #[test]
    fn add_is_xor() {
        let a: Vec<u8> = (0..64).map(|t| t as u8).collect();
        let b: Vec<u8> = (0..64).map(|t| (255 - t) as u8).collect();
        let mut p = from_bytes::<1>(&a);
        add_assign(&mut p, &from_bytes::<1>(&b));
        assert!(to_bytes::<1>(&p).iter().all(|&v| v == 0xFF));
    }
}
