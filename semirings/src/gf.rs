//! Finite fields GF(2^8) and GF(2^64) as semirings (xor add, field multiply).

/// The GF(2^8) modulus `x^8 + x^4 + x^3 + x^2 + 1` (0x11D).
pub const GF256_MODULUS: u16 = 0x11D;

/// The low part of the GF(2^64) modulus `x^64 + x^4 + x^3 + x + 1`: the
/// reduction polynomial without `x^64` (0x1B).
pub const GF2P64_MODULUS_LOW: u64 = 0x1B;

/// Multiplication in GF(2) polynomial form by shift-and-add, reducing by 0x11D.
const fn gf256_mul_slow(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    let mut i = 0;
    while i < 8 {
        if b & 1 != 0 {
            p ^= a;
        }
        let hi = a & 0x80;
        a <<= 1;
        if hi != 0 {
            a ^= (GF256_MODULUS & 0xFF) as u8;
        }
        b >>= 1;
        i += 1;
    }
    p
}

/// `(exp, log)` tables for the generator `x` (0x02), which is primitive for 0x11D.
const fn gf256_tables() -> ([u8; 512], [u8; 256]) {
    let mut exp = [0u8; 512];
    let mut log = [0u8; 256];
    let mut x = 1u8;
    let mut i = 0;
    while i < 255 {
        exp[i] = x;
        log[x as usize] = i as u8;
        x = gf256_mul_slow(x, 2);
        i += 1;
    }
    while i < 512 {
        exp[i] = exp[i - 255];
        i += 1;
    }
    (exp, log)
}

const GF256_TABLES: ([u8; 512], [u8; 256]) = gf256_tables();

/// Multiplication in GF(2^8) modulo 0x11D, by log/exp tables: `O(1)`.
///
/// ```
/// use kronograph_semirings::gf256_mul;
/// assert_eq!(gf256_mul(0x53, 0xCA), 0x8F);
/// ```
#[inline]
pub fn gf256_mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        return 0;
    }
    let (exp, log) = &GF256_TABLES;
    exp[log[a as usize] as usize + log[b as usize] as usize]
}

/// Reduces the 128-bit carry-less product `hi·x^64 + lo` modulo
/// `x^64 + x^4 + x^3 + x + 1`, using `x^64 ≡ x^4 + x^3 + x + 1`.
#[inline]
fn gf2p64_reduce(lo: u64, hi: u64) -> u64 {
    let fold = |h: u128| h ^ (h << 1) ^ (h << 3) ^ (h << 4);
    let t = fold(hi as u128);
    let t2 = fold(t >> 64); // at most 4 bits in, 8 bits out: no further overflow
    lo ^ (t as u64) ^ (t2 as u64)
}

/// Portable carry-less multiply `a ⊗ b` (64 × 64 → 128 bits).
#[inline]
fn clmul_portable(a: u64, b: u64) -> (u64, u64) {
    let a = a as u128;
    let mut r = 0u128;
    for i in 0..64 {
        let mask = 0u128.wrapping_sub(((b >> i) & 1) as u128);
        r ^= (a << i) & mask;
    }
    (r as u64, (r >> 64) as u64)
}

/// Multiplication in GF(2^64) modulo `x^64 + x^4 + x^3 + x + 1`, portable
/// shift-and-xor form (64 steps).
pub fn gf2p64_mul_portable(a: u64, b: u64) -> u64 {
    let (lo, hi) = clmul_portable(a, b);
    gf2p64_reduce(lo, hi)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq", enable = "sse2")]
unsafe fn gf2p64_mul_pclmul(a: u64, b: u64) -> u64 {
    use core::arch::x86_64::{_mm_clmulepi64_si128, _mm_set_epi64x, _mm_storeu_si128};
    let x = _mm_set_epi64x(0, a as i64);
    let y = _mm_set_epi64x(0, b as i64);
    let p = _mm_clmulepi64_si128(x, y, 0x00);
    let mut out = [0u64; 2];
    // SAFETY: `out` is 16 writable bytes; storeu has no alignment requirement.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), p) };
    gf2p64_reduce(out[0], out[1])
}

/// Multiplication in GF(2^64) modulo `x^64 + x^4 + x^3 + x + 1`: the CPU's
/// carry-less multiply (`pclmulqdq`) where the CPU has it (checked at run
/// time, cached by the standard library), else [`gf2p64_mul_portable`].
///
/// ```
/// use kronograph_semirings::{gf2p64_mul, gf2p64_mul_portable};
/// assert_eq!(gf2p64_mul(1 << 63, 2), 0x1B); // x^63 · x = x^64 ≡ x^4 + x^3 + x + 1
/// assert_eq!(gf2p64_mul(0xDEAD_BEEF, 0x1234_5678_9ABC), gf2p64_mul_portable(0xDEAD_BEEF, 0x1234_5678_9ABC));
/// ```
#[inline]
pub fn gf2p64_mul(a: u64, b: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("pclmulqdq") {
            // SAFETY: the feature was detected on this CPU.
            return unsafe { gf2p64_mul_pclmul(a, b) };
        }
    }
    gf2p64_mul_portable(a, b)
}

/// Whether [`gf2p64_mul`] uses the CPU's carry-less multiply on this machine.
pub fn gf2p64_has_clmul() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("pclmulqdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The field GF(2^8) (modulus 0x11D) as a semiring on `u8`: `⊕` = xor
/// (identity 0), `⊗` = field multiply (identity 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Gf256;

impl Gf256 {
    /// The semiring (as every semiring of this crate is built).
    pub const fn new() -> Self {
        Gf256
    }
}

/// The field GF(2^64) (modulus `x^64 + x^4 + x^3 + x + 1`) as a semiring on
/// `u64`: `⊕` = xor, `⊗` = carry-less multiply and reduction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Gf2p64;

impl Gf2p64 {
    /// The semiring (as every semiring of this crate is built).
    pub const fn new() -> Self {
        Gf2p64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn gf256_vectors() {
        for (a, b, c) in [
            (0x02, 0x80, 0x1D),
            (0x80, 0x80, 0x13),
            (0x03, 0x03, 0x05),
            (0x53, 0xCA, 0x8F),
            (0xFF, 0xFF, 0xE2),
            (0x57, 0x83, 0x31),
        ] {
            assert_eq!(gf256_mul(a, b), c, "{a:#x}·{b:#x}");
            assert_eq!(gf256_mul_slow(a, b), c, "{a:#x}·{b:#x} (slow)");
        }
    }

    #[test]
    fn gf256_table_matches_slow_everywhere() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(gf256_mul(a, b), gf256_mul_slow(a, b));
            }
        }
    }

    #[test]
    fn gf256_every_nonzero_has_inverse() {
        for a in 1..=255u8 {
            assert_eq!((1..=255u8).filter(|&b| gf256_mul(a, b) == 1).count(), 1, "{a}");
        }
    }

    #[test]
    fn gf2p64_reduction_examples() {
        assert_eq!(gf2p64_mul_portable(1 << 63, 2), 0x1B);
        // x^126 = x^62 · x^64 ≡ x^62 (x^4 + x^3 + x + 1)
        let x62 = 1u64 << 62;
        assert_eq!(gf2p64_mul_portable(x62, 0x1B), gf2p64_mul_portable(1 << 63, 1 << 63));
    }

    #[test]
    fn clmul_known_value() {
        // (x + 1)^2 = x^2 + 1 in GF(2)[x]
        assert_eq!(clmul_portable(3, 3), (5, 0));
        assert_eq!(clmul_portable(u64::MAX, 2), (u64::MAX - 1, 1));
    }

    proptest! {
        #[test]
        fn gf2p64_paths_agree(a: u64, b: u64) {
            prop_assert_eq!(gf2p64_mul(a, b), gf2p64_mul_portable(a, b));
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("pclmulqdq") {
                prop_assert_eq!(unsafe { gf2p64_mul_pclmul(a, b) }, gf2p64_mul_portable(a, b));
            }
        }

        #[test]
        fn gf2p64_field_laws(a: u64, b: u64, c: u64) {
            prop_assert_eq!(gf2p64_mul(a, b), gf2p64_mul(b, a));
            prop_assert_eq!(gf2p64_mul(gf2p64_mul(a, b), c), gf2p64_mul(a, gf2p64_mul(b, c)));
            prop_assert_eq!(gf2p64_mul(a, b ^ c), gf2p64_mul(a, b) ^ gf2p64_mul(a, c));
            prop_assert_eq!(gf2p64_mul(a, 1), a);
        }
    }
}
