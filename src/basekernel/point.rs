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
}

#[inline]
fn slice_sq_dist<S: Scalar>(x: &[S], y: &[S]) -> f64 {
    if x.len() != y.len() {
        return f64::NAN;
    }
    x.iter().zip(y).map(|(a, b)| a.sq_dist(b)).sum()
}

#[inline]
fn slice_sq_dist_f32<S: Scalar>(x: &[S], y: &[S]) -> f32 {
    if x.len() != y.len() {
        return f32::NAN;
    }
    x.iter().zip(y).map(|(a, b)| a.sq_dist_f32(b)).sum()
}

#[inline]
fn slice_dot<S: Scalar>(x: &[S], y: &[S]) -> f64 {
    if x.len() != y.len() {
        return f64::NAN;
    }
    x.iter().zip(y).map(|(a, b)| a.dot(b)).sum()
}

#[inline]
fn slice_dot_f32<S: Scalar>(x: &[S], y: &[S]) -> f32 {
    if x.len() != y.len() {
        return f32::NAN;
    }
    x.iter().zip(y).map(|(a, b)| a.dot_f32(b)).sum()
}

impl<S: Scalar, const K: usize> Point for [S; K] {
    #[inline]
    fn sq_dist(&self, other: &Self) -> f64 {
        slice_sq_dist(self, other)
    }
    #[inline]
    fn sq_dist_f32(&self, other: &Self) -> f32 {
        slice_sq_dist_f32(self, other)
    }
    #[inline]
    fn dot(&self, other: &Self) -> f64 {
        slice_dot(self, other)
    }
    #[inline]
    fn dot_f32(&self, other: &Self) -> f32 {
        slice_dot_f32(self, other)
    }
}

/// Slices of different lengths give NaN.
impl<S: Scalar> Point for [S] {
    #[inline]
    fn sq_dist(&self, other: &Self) -> f64 {
        slice_sq_dist(self, other)
    }
    #[inline]
    fn sq_dist_f32(&self, other: &Self) -> f32 {
        slice_sq_dist_f32(self, other)
    }
    #[inline]
    fn dot(&self, other: &Self) -> f64 {
        slice_dot(self, other)
    }
    #[inline]
    fn dot_f32(&self, other: &Self) -> f32 {
        slice_dot_f32(self, other)
    }
}

/// Vectors of different lengths give NaN.
impl<S: Scalar> Point for Vec<S> {
    #[inline]
    fn sq_dist(&self, other: &Self) -> f64 {
        slice_sq_dist(self, other)
    }
    #[inline]
    fn sq_dist_f32(&self, other: &Self) -> f32 {
        slice_sq_dist_f32(self, other)
    }
    #[inline]
    fn dot(&self, other: &Self) -> f64 {
        slice_dot(self, other)
    }
    #[inline]
    fn dot_f32(&self, other: &Self) -> f32 {
        slice_dot_f32(self, other)
    }
}

/// `Int` and `Float` are scalars, `Array` a vector; `Set` (and values of
/// different kinds) give NaN.
impl Point for Value {
    #[inline]
    fn sq_dist(&self, other: &Self) -> f64 {
        match (self, other) {
            (Value::Float(x), Value::Float(y)) => x.sq_dist(y),
            (Value::Int(x), Value::Int(y)) => x.sq_dist(y),
            (Value::Array(x), Value::Array(y)) => slice_sq_dist(x, y),
            _ => f64::NAN,
        }
    }
    #[inline]
    fn sq_dist_f32(&self, other: &Self) -> f32 {
        match (self, other) {
            (Value::Float(x), Value::Float(y)) => x.sq_dist_f32(y),
            (Value::Int(x), Value::Int(y)) => x.sq_dist_f32(y),
            (Value::Array(x), Value::Array(y)) => slice_sq_dist_f32(x, y),
            _ => f32::NAN,
        }
    }
    #[inline]
    fn dot(&self, other: &Self) -> f64 {
        match (self, other) {
            (Value::Float(x), Value::Float(y)) => x.dot(y),
            (Value::Int(x), Value::Int(y)) => x.dot(y),
            (Value::Array(x), Value::Array(y)) => slice_dot(x, y),
            _ => f64::NAN,
        }
    }
    #[inline]
    fn dot_f32(&self, other: &Self) -> f32 {
        match (self, other) {
            (Value::Float(x), Value::Float(y)) => x.dot_f32(y),
            (Value::Int(x), Value::Int(y)) => x.dot_f32(y),
            (Value::Array(x), Value::Array(y)) => slice_dot_f32(x, y),
            _ => f32::NAN,
        }
    }
}

/// The suffix that names helpers of one real type (`f` or `d`).
pub(crate) fn real_suffix(gen: &CudaGen) -> &'static str {
    if gen.real == "double" {
        "d"
    } else {
        "f"
    }
}

/// Registers the CUDA helpers `kg_sqdist_<s>` and `kg_dot_<s>` (overloaded for
/// the C integer and real types and for fixed arrays of the real type) and
/// returns their names.
pub(crate) fn point_helpers(gen: &mut CudaGen) -> (String, String) {
    let r = gen.real;
    let s = real_suffix(gen);
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
    gen.helper(&src);
    (format!("kg_sqdist_{s}"), format!("kg_dot_{s}"))
}
