//! [`Scalar`] and [`Point`]: what distance- and dot-product kernels need of a label.

use super::CudaGen;
use crate::graph::Value;

/// A number usable as a label: converts to `f64` and `f32`.
///
/// Implemented for `u8`, `u16`, `u32`, `u64`, `usize`, `i8`, `i16`, `i32`,
/// `i64`, `f32` and `f64`.
pub trait Scalar: Copy + Send + Sync + 'static {
    /// The value as `f64`.
    fn to_f64(self) -> f64;
    /// The value as `f32`.
    fn to_f32(self) -> f32;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn to_f32(self) -> f32 {
                self as f32
            }
        }
    )*};
}
scalar!(u8, u16, u32, u64, usize, i8, i16, i32, i64, f32, f64);

/// A point of a Euclidean space ℝ^d: a scalar (d = 1), a fixed array, a
/// slice, or a numeric record [`Value`] (`Int`, `Float`, `Array`).
///
/// The distance kernels use ‖x − y‖² and the polynomial kernel x·y. The f32
/// forms round the coordinates to `f32` first and compute in `f32`, as the
/// GPU does with `float` labels. Complexity O(d).
///
/// For [`Value`]s of different kinds or lengths (which a kernel bound to a
/// schema with [`BaseKernel::bind`](super::BaseKernel::bind) never sees) the
/// results are NaN.
pub trait Point {
    /// ‖x − y‖².
    fn sq_dist(&self, other: &Self) -> f64;
    /// ‖x − y‖² in `f32`.
    fn sq_dist_f32(&self, other: &Self) -> f32;
    /// x · y.
    fn dot(&self, other: &Self) -> f64;
    /// x · y in `f32`.
    fn dot_f32(&self, other: &Self) -> f32;
    /// The point as one number `x` with a tag of its kind, where it is one:
    /// two points with numbers `x`, `y` and the same tag have
    /// `sq_dist = (x − y)²` (in `f64`, the same bits). Lets whole tables
    /// run on contiguous numbers ([`BaseKernel::table`](super::BaseKernel::table)).
    /// The default: `None`.
    #[inline]
    fn as_scalar(&self) -> Option<(f64, u8)> {
        None
    }
}

impl<S: Scalar> Point for S {
    #[inline(always)]
    fn sq_dist(&self, other: &Self) -> f64 {
        let d = self.to_f64() - other.to_f64();
        d * d
    }
    #[inline(always)]
    fn sq_dist_f32(&self, other: &Self) -> f32 {
        let d = self.to_f32() - other.to_f32();
        d * d
    }
    #[inline(always)]
    fn dot(&self, other: &Self) -> f64 {
        self.to_f64() * other.to_f64()
    }
    #[inline(always)]
    fn dot_f32(&self, other: &Self) -> f32 {
        self.to_f32() * other.to_f32()
    }
    #[inline(always)]
    fn as_scalar(&self) -> Option<(f64, u8)> {
        Some((self.to_f64(), 0))
    }
}

/// Σ f(xᵢ, yᵢ) over two coordinate slices; `nan` when their lengths differ.
#[inline(always)]
fn zip_sum<S, R: std::iter::Sum<R>>(x: &[S], y: &[S], nan: R, f: impl Fn(&S, &S) -> R) -> R {
    if x.len() != y.len() {
        return nan;
    }
    x.iter().zip(y).map(|(a, b)| f(a, b)).sum()
}

/// [`Point`] for a sequence of scalars, coordinate by coordinate through
/// [`zip_sum`] (lengths that differ give NaN).
macro_rules! slice_point {
    ($(#[$doc:meta])* [$($g:tt)*] $t:ty) => {
        $(#[$doc])*
        impl<$($g)*> Point for $t {
            #[inline]
            fn sq_dist(&self, other: &Self) -> f64 {
                zip_sum(self, other, f64::NAN, S::sq_dist)
            }
            #[inline]
            fn sq_dist_f32(&self, other: &Self) -> f32 {
                zip_sum(self, other, f32::NAN, S::sq_dist_f32)
            }
            #[inline]
            fn dot(&self, other: &Self) -> f64 {
                zip_sum(self, other, f64::NAN, S::dot)
            }
            #[inline]
            fn dot_f32(&self, other: &Self) -> f32 {
                zip_sum(self, other, f32::NAN, S::dot_f32)
            }
        }
    };
}
slice_point!([S: Scalar, const K: usize] [S; K]);
slice_point!(
    /// Slices of different lengths give NaN.
    [S: Scalar] [S]
);
slice_point!(
    /// Vectors of different lengths give NaN.
    [S: Scalar] Vec<S>
);

/// `Int` and `Float` are scalars, `Array` a vector; `Set` (and values of
/// different kinds) give NaN.
impl Point for Value {
    #[inline]
    fn sq_dist(&self, other: &Self) -> f64 {
        match (self, other) {
            (Value::Float(x), Value::Float(y)) => x.sq_dist(y),
            (Value::Int(x), Value::Int(y)) => x.sq_dist(y),
            (Value::Array(x), Value::Array(y)) => zip_sum(x, y, f64::NAN, f64::sq_dist),
            _ => f64::NAN,
        }
    }
    #[inline]
    fn sq_dist_f32(&self, other: &Self) -> f32 {
        match (self, other) {
            (Value::Float(x), Value::Float(y)) => x.sq_dist_f32(y),
            (Value::Int(x), Value::Int(y)) => x.sq_dist_f32(y),
            (Value::Array(x), Value::Array(y)) => zip_sum(x, y, f32::NAN, f64::sq_dist_f32),
            _ => f32::NAN,
        }
    }
    #[inline]
    fn dot(&self, other: &Self) -> f64 {
        match (self, other) {
            (Value::Float(x), Value::Float(y)) => x.dot(y),
            (Value::Int(x), Value::Int(y)) => x.dot(y),
            (Value::Array(x), Value::Array(y)) => zip_sum(x, y, f64::NAN, f64::dot),
            _ => f64::NAN,
        }
    }
    #[inline]
    fn dot_f32(&self, other: &Self) -> f32 {
        match (self, other) {
            (Value::Float(x), Value::Float(y)) => x.dot_f32(y),
            (Value::Int(x), Value::Int(y)) => x.dot_f32(y),
            (Value::Array(x), Value::Array(y)) => zip_sum(x, y, f32::NAN, f64::dot_f32),
            _ => f32::NAN,
        }
    }
    #[inline]
    fn as_scalar(&self) -> Option<(f64, u8)> {
        match self {
            Value::Float(x) => Some((*x, 1)),
            Value::Int(x) => Some((x.to_f64(), 2)),
            _ => None,
        }
    }
}

/// The suffix that names helpers of one real type (`f` or `d`).
pub(crate) fn real_suffix(cg: &CudaGen) -> &'static str {
    if cg.real == "double" {
        "d"
    } else {
        "f"
    }
}

/// Registers the CUDA helpers `kg_sqdist_<s>` and `kg_dot_<s>` (overloaded for
/// the C integer and real types and for fixed arrays of the real type) and
/// returns their names.
pub(crate) fn point_helpers(cg: &mut CudaGen) -> (String, String) {
    let r = cg.real;
    let s = real_suffix(cg);
    let mut src = format!("#ifndef KG_POINT_HELPERS_{s}\n#define KG_POINT_HELPERS_{s}\n");
    for t in ["int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float", "double"] {
        src += &format!(
            "__device__ inline {r} kg_sqdist_{s}({t} x, {t} y) {{ {r} d = ({r})x - ({r})y; return d * d; }}\n\
             __device__ inline {r} kg_dot_{s}({t} x, {t} y) {{ return ({r})x * ({r})y; }}\n"
        );
    }
    src += &format!(
        "template <int K> __device__ inline {r} kg_sqdist_{s}(const {r} (&x)[K], const {r} (&y)[K]) {{\n  \
         {r} acc = 0;\n  for (int i = 0; i < K; ++i) {{ {r} d = x[i] - y[i]; acc += d * d; }}\n  return acc;\n}}\n\
         template <int K> __device__ inline {r} kg_dot_{s}(const {r} (&x)[K], const {r} (&y)[K]) {{\n  \
         {r} acc = 0;\n  for (int i = 0; i < K; ++i) {{ acc += x[i] * y[i]; }}\n  return acc;\n}}\n#endif\n"
    );
    cg.helper(&src);
    (format!("kg_sqdist_{s}"), format!("kg_dot_{s}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zip_sum_pairs_coordinates_and_rejects_length_mismatch() {
        assert_eq!(zip_sum::<f64, f64>(&[], &[], f64::NAN, |a, b| a * b), 0.0);
        assert_eq!(zip_sum(&[1.0, 2.0], &[3.0, 5.0], f64::NAN, f64::dot), 13.0);
        assert!(zip_sum(&[1.0], &[1.0, 2.0], f64::NAN, f64::sq_dist).is_nan());
        assert!(zip_sum(&[1.0f32], &[], f32::NAN, f32::sq_dist_f32).is_nan());
        // the slice-like points and numeric values agree with the scalar sum
        let (x, y) = ([1u8, 4, 2], [3u8, 1, 2]);
        assert_eq!(x.sq_dist(&y), 13.0);
        assert_eq!(x[..].dot(&y[..]), 11.0);
        assert_eq!(x.to_vec().dot_f32(&y.to_vec()), 11.0);
        let (a, b) =
            (Value::Array(smallvec::smallvec![1.0, 4.0, 2.0]), Value::Array(smallvec::smallvec![3.0, 1.0, 2.0]));
        assert_eq!(a.sq_dist(&b), 13.0);
        assert!(a.dot(&Value::Array(smallvec::smallvec![1.0])).is_nan());
    }
}
