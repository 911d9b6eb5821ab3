//! [`Number`]: the numeric scalar types of the arithmetic semirings.

use std::fmt::Debug;

/// A numeric scalar (`f32`, `f64`, `i32`, `i64`, `u32`, `u64`) with what
/// the arithmetic semirings need.
///
/// Integer `add`/`mul` wrap (arithmetic modulo `2^bits`, which is a ring, and
/// what CUDA does); `MIN_VALUE`/`MAX_VALUE` are `∓∞` for floats and the
/// type's extremes for integers, which the tropical semirings treat as `∓∞`.
pub trait Number: Copy + Send + Sync + Debug + PartialEq + PartialOrd + Default + 'static {
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// `+∞` (floats) or the largest value (integers).
    const MAX_VALUE: Self;
    /// `−∞` (floats) or the smallest value (integers).
    const MIN_VALUE: Self;
    /// The CUDA C++ type.
    const CUDA_TYPE: &'static str;
    /// CUDA literal for `MAX_VALUE`.
    const CUDA_MAX: &'static str;
    /// CUDA literal for `MIN_VALUE`.
    const CUDA_MIN: &'static str;
    /// Whether the type is a float.
    const IS_FLOAT: bool;
    /// Whether the type is signed.
    const IS_SIGNED: bool;
    /// A short name (`"f64"`).
    const NAME: &'static str;

    /// `a + b` (wrapping for integers).
    fn add(self, b: Self) -> Self;
    /// `a · b` (wrapping for integers).
    fn mul(self, b: Self) -> Self;
    /// `a + b` with `MAX_VALUE` as `+∞` and, for floats and signed integers,
    /// `MIN_VALUE` as `−∞` (an infinite operand gives that infinity, `+∞`
    /// first); integers saturate. For unsigned integers 0 is an ordinary value.
    fn add_inf(self, b: Self) -> Self;
    /// Lossy conversion from a small integer (tests, counting).
    fn from_i64(v: i64) -> Self;
    /// Lossy conversion to f64.
    fn to_f64(self) -> f64;
    /// Whether the value is not zero (valued masks).
    #[inline]
    fn is_nonzero(self) -> bool {
        self != Self::ZERO
    }
    /// The smaller of two values (`a` when unordered).
    #[inline]
    fn min2(self, b: Self) -> Self {
        if b < self {
            b
        } else {
            self
        }
    }
    /// The larger of two values (`a` when unordered).
    #[inline]
    fn max2(self, b: Self) -> Self {
        if b > self {
            b
        } else {
            self
        }
    }
}

macro_rules! float_number {
    ($t:ty, $cuda:literal, $max:literal, $min:literal) => {
        impl Number for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const MAX_VALUE: Self = <$t>::INFINITY;
            const MIN_VALUE: Self = <$t>::NEG_INFINITY;
            const CUDA_TYPE: &'static str = $cuda;
            const CUDA_MAX: &'static str = $max;
            const CUDA_MIN: &'static str = $min;
            const IS_FLOAT: bool = true;
            const IS_SIGNED: bool = true;
            const NAME: &'static str = stringify!($t);
            #[inline]
            fn add(self, b: Self) -> Self {
                self + b
            }
            #[inline]
            fn mul(self, b: Self) -> Self {
                self * b
            }
            #[inline]
            fn add_inf(self, b: Self) -> Self {
                if self == Self::INFINITY || b == Self::INFINITY {
                    Self::INFINITY
                } else {
                    self + b
                }
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}

macro_rules! int_number {
    ($t:ty, $cuda:literal, $max:literal, $min:literal, $signed:literal) => {
        impl Number for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MAX_VALUE: Self = <$t>::MAX;
            const MIN_VALUE: Self = <$t>::MIN;
            const CUDA_TYPE: &'static str = $cuda;
            const CUDA_MAX: &'static str = $max;
            const CUDA_MIN: &'static str = $min;
            const IS_FLOAT: bool = false;
            const IS_SIGNED: bool = $signed;
            const NAME: &'static str = stringify!($t);
            #[inline]
            fn add(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
            #[inline]
            fn mul(self, b: Self) -> Self {
                self.wrapping_mul(b)
            }
            #[inline]
            fn add_inf(self, b: Self) -> Self {
                if self == Self::MAX || b == Self::MAX {
                    Self::MAX
                } else if $signed && (self == Self::MIN || b == Self::MIN) {
                    Self::MIN
                } else {
                    self.saturating_add(b)
                }
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}

float_number!(f32, "float", "(__int_as_float(0x7f800000))", "(__int_as_float(0xff800000))");
float_number!(
    f64,
    "double",
    "(__longlong_as_double(0x7ff0000000000000LL))",
    "(__longlong_as_double(0xfff0000000000000ULL))"
);
int_number!(i32, "int", "(2147483647)", "(-2147483647 - 1)", true);
int_number!(i64, "long long", "(9223372036854775807LL)", "(-9223372036854775807LL - 1LL)", true);
int_number!(u32, "unsigned int", "(4294967295U)", "(0U)", false);
int_number!(u64, "unsigned long long", "(18446744073709551615ULL)", "(0ULL)", false);
