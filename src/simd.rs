//! Runtime choice of the instruction set for hot loops: [`wide`] runs a
//! closure compiled (inlined) for AVX-512 or AVX2 when the CPU has it, as
//! is, otherwise. The closure does the same operations in the same order on
//! every path (no fused multiply–add is enabled), so the results are the
//! same bits; only the vector width of the generated code changes.

/// Runs `f` in a function compiled for the widest vector instructions the
/// CPU has (AVX-512F, else AVX2, else the build's baseline).
#[inline(always)]
pub(crate) fn wide<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above).
            return unsafe { avx512(f) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { avx2(f) };
        }
    }
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}
