//! The sieve's random values, drawn from a counter-based hash so that the
//! CPU and the GPU (`kernels/motif.cu`, same function) draw the same value
//! for the same `(seed, run, what, index)` without storing or sending them.
//!
//! `draw(key, tag, a, b) = mix(mix(mix(key ⊕ tag) ⊕ a) ⊕ b)` with `mix` the
//! SplitMix64 finalizer and `key = mix(seed ⊕ mix(run + φ))`; a field
//! element takes the low 8 bits (GF(2^8)) or all 64 bits (GF(2^64)).

/// Tag of μ_{i,d} (vertex `i`, shade `d`).
pub(crate) const TAG_MU: u64 = 1;
/// Tag of ν_{d,ℓ} (shade `d`, label `ℓ`).
pub(crate) const TAG_NU: u64 = 2;
/// Tag of α_{s,e} (level `s`, oriented edge `e` = its position in the CSR).
pub(crate) const TAG_ALPHA: u64 = 3;

/// The SplitMix64 finalizer (a bijection of `u64`).
#[inline(always)]
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The key of run `run` of a search seeded with `seed`.
pub(crate) fn run_key(seed: u64, run: u32) -> u64 {
    mix(seed ^ mix((run as u64).wrapping_add(0x9E37_79B9_7F4A_7C15)))
}

/// The hash behind every random value.
#[inline(always)]
pub(crate) fn draw(key: u64, tag: u64, a: u64, b: u64) -> u64 {
    mix(mix(mix(key ^ tag) ^ a) ^ b)
}
