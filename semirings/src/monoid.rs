//! [`Monoid`]: the additive part of a semiring, and the built-in monoids.

use crate::number::Number;
use std::fmt::Debug;

/// A monoid `(T, ⊕, 0)`: an associative `combine` with an `identity`.
///
/// It is a value separate from `T` ([`Min`] is the min monoid on every
/// [`Number`]). Optionally it has a *terminal* value `z` with `z ⊕ x = z`
/// for all `x` (a reduction may stop once it reaches `z`), and it may be
/// idempotent (`x ⊕ x = x`), which allows unsynchronized scatter.
///
/// Kernels fold the terms of an output entry starting from the first term,
/// so `identity` is only used for empty reductions to a scalar; this is also
/// what makes [`Any`] (whose "identity" is nominal) usable.
pub trait Monoid<T>: Copy + Send + Sync + Debug + 'static {
    /// The identity `0`: `0 ⊕ x = x ⊕ 0 = x`.
    fn identity(&self) -> T;
    /// `a ⊕ b`.
    fn combine(&self, a: T, b: T) -> T;
    /// The terminal (absorbing) value, if the monoid has one.
    fn terminal(&self) -> Option<T> {
        None
    }
    /// Whether `x` is terminal: once an accumulated value is terminal, more
    /// terms cannot change it. [`Any`] says yes for every value.
    fn is_terminal(&self, x: &T) -> bool;
    /// Whether `x ⊕ x = x` for all `x`.
    fn is_idempotent(&self) -> bool {
        false
    }
    /// Short name (`"plus"`, `"min"`, …).
    fn name(&self) -> &'static str;
}

macro_rules! unit_struct {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl $name {
            /// The monoid (as every semiring and monoid of this crate is built).
            pub const fn new() -> Self {
                $name
            }
        }
    };
}

unit_struct!(
    /// `(T, +, 0)` on a [`Number`] (wrapping for integers).
    Plus
);
unit_struct!(
    /// `(T, ·, 1)` on a [`Number`] (wrapping for integers); `0` is terminal.
    Times
);
unit_struct!(
    /// `(T, min, +∞)`; `−∞` (the smallest integer) is terminal; idempotent.
    Min
);
unit_struct!(
    /// `(T, max, −∞)`; `+∞` (the largest integer) is terminal; idempotent.
    Max
);
unit_struct!(
    /// `(bool, ∨, false)`; `true` is terminal; idempotent.
    Lor
);
unit_struct!(
    /// `(bool, ∧, true)`; `false` is terminal; idempotent.
    Land
);
unit_struct!(
    /// `(T, ⊻, 0)`: bitwise exclusive or, the addition of GF(2^b).
    Xor
);
unit_struct!(
    /// GraphBLAS' ANY monoid: `a ⊕ b` is either operand — here the first, so
    /// results are deterministic. Every value is terminal: a reduction may
    /// stop at the first term. Its identity (`T::default()`) is nominal: it
    /// is only an identity for the absent entry, which is how kernels use it.
    Any
);

impl<T: Number> Monoid<T> for Plus {
    #[inline]
    fn identity(&self) -> T {
        T::ZERO
    }
    #[inline]
    fn combine(&self, a: T, b: T) -> T {
        a.add(b)
    }
    #[inline]
    fn is_terminal(&self, _: &T) -> bool {
        false
    }
    fn name(&self) -> &'static str {
        "plus"
    }
}

impl<T: Number> Monoid<T> for Times {
    #[inline]
    fn identity(&self) -> T {
        T::ONE
    }
    #[inline]
    fn combine(&self, a: T, b: T) -> T {
        a.mul(b)
    }
    fn terminal(&self) -> Option<T> {
        // 0 absorbs for integers; for floats 0·∞ = NaN, so no terminal.
        if T::IS_FLOAT {
            None
        } else {
            Some(T::ZERO)
        }
    }
    #[inline]
    fn is_terminal(&self, x: &T) -> bool {
        !T::IS_FLOAT && *x == T::ZERO
    }
    fn name(&self) -> &'static str {
        "times"
    }
}

impl<T: Number> Monoid<T> for Min {
    #[inline]
    fn identity(&self) -> T {
        T::MAX_VALUE
    }
    #[inline]
    fn combine(&self, a: T, b: T) -> T {
        a.min2(b)
    }
    fn terminal(&self) -> Option<T> {
        Some(T::MIN_VALUE)
    }
    #[inline]
    fn is_terminal(&self, x: &T) -> bool {
        *x == T::MIN_VALUE
    }
    fn is_idempotent(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "min"
    }
}

impl<T: Number> Monoid<T> for Max {
    #[inline]
    fn identity(&self) -> T {
        T::MIN_VALUE
    }
    #[inline]
    fn combine(&self, a: T, b: T) -> T {
        a.max2(b)
    }
    fn terminal(&self) -> Option<T> {
        Some(T::MAX_VALUE)
    }
    #[inline]
    fn is_terminal(&self, x: &T) -> bool {
        *x == T::MAX_VALUE
    }
    fn is_idempotent(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "max"
    }
}

impl Monoid<bool> for Lor {
    #[inline]
    fn identity(&self) -> bool {
        false
    }
    #[inline]
    fn combine(&self, a: bool, b: bool) -> bool {
        a || b
    }
    fn terminal(&self) -> Option<bool> {
        Some(true)
    }
    #[inline]
    fn is_terminal(&self, x: &bool) -> bool {
        *x
    }
    fn is_idempotent(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "lor"
    }
}

impl Monoid<bool> for Land {
    #[inline]
    fn identity(&self) -> bool {
        true
    }
    #[inline]
    fn combine(&self, a: bool, b: bool) -> bool {
        a && b
    }
    fn terminal(&self) -> Option<bool> {
        Some(false)
    }
    #[inline]
    fn is_terminal(&self, x: &bool) -> bool {
        !*x
    }
    fn is_idempotent(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "land"
    }
}

macro_rules! xor_monoid {
    ($($t:ty),*) => {$(
        impl Monoid<$t> for Xor {
            #[inline]
            fn identity(&self) -> $t {
                0
            }
            #[inline]
            fn combine(&self, a: $t, b: $t) -> $t {
                a ^ b
            }
            #[inline]
            fn is_terminal(&self, _: &$t) -> bool {
                false
            }
            fn name(&self) -> &'static str {
                "xor"
            }
        }
    )*};
}
xor_monoid!(u8, u16, u32, u64);

impl<T: Copy + Default + Send + Sync + 'static> Monoid<T> for Any {
    #[inline]
    fn identity(&self) -> T {
        T::default()
    }
    #[inline]
    fn combine(&self, a: T, _b: T) -> T {
        a
    }
    #[inline]
    fn is_terminal(&self, _: &T) -> bool {
        true
    }
    fn is_idempotent(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "any"
    }
}
