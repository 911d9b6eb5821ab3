//! Runtime choice of the instruction set for hot loops: [`on_widest_isa`] runs a
//! closure compiled (inlined) for AVX-512 or AVX2 when the CPU has it, as
//! is, otherwise; [`isa_dispatch!`] defines a function that does the same
//! for a named `#[inline(always)]` body (for loops a closure is not
//! reliably inlined into). The closure does the same operations in the same order on
//! every path (no fused multiply–add is enabled), so the results are the
//! same bits; only the vector width of the generated code changes.

/// Runs `f` in a function compiled for the widest vector instructions the
/// CPU has (AVX-512F, else AVX2, else the build's baseline).
#[inline(always)]
pub(crate) fn on_widest_isa<R>(f: impl FnOnce() -> R) -> R {
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

/// `isa_dispatch!(/// doc  vis fn name<T: Bound, ..>(arg: Ty, ..) -> Ret = body)`
/// defines `name`, which runs the `#[inline(always)]` function `body` with
/// the same arguments compiled for AVX-512F, else AVX2, else the build's
/// baseline, chosen at run time (explicit `target_feature` builds: a closure
/// handed to [`on_widest_isa`] is not always inlined into them). The body is the same
/// on every path, so are the results' bits.
macro_rules! isa_dispatch {
    (
        $(#[$doc:meta])*
        $vis:vis fn $name:ident $(<$($g:ident: $b:path),+>)? ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $body:ident
    ) => {
        $(#[$doc])*
        $vis fn $name $(<$($g: $b),+>)? ($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                fn avx512 $(<$($g: $b),+>)? ($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2")]
                fn avx2 $(<$($g: $b),+>)? ($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has AVX-512F (checked just above).
                    return unsafe { avx512($($arg),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2 (checked just above).
                    return unsafe { avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use isa_dispatch;
