//! Scalars and the vector operations the solvers use.

use std::fmt::Debug;

/// A real floating-point scalar (`f32` or `f64`) with lossless-enough
/// conversions to and from `f64`.
pub trait Real:
    num_traits::Float + num_traits::NumAssign + Copy + Send + Sync + Debug + Default + std::iter::Sum + 'static
{
    /// Rounds an `f64` to this type.
    fn of_f64(x: f64) -> Self;
    /// Widens to `f64`.
    fn as_f64(self) -> f64;
    /// A short name (`"f32"`, `"f64"`).
    const NAME: &'static str;
}

impl Real for f64 {
    #[inline(always)]
    fn of_f64(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn as_f64(self) -> f64 {
        self
    }
    const NAME: &'static str = "f64";
}

impl Real for f32 {
    #[inline(always)]
    fn of_f64(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn as_f64(self) -> f64 {
        self as f64
    }
    const NAME: &'static str = "f32";
}

/// The vector operations of the iterative solvers.
///
/// Implemented for `Vec<f64>` and `Vec<f32>` (CPU); a GPU backend implements
/// it for a device buffer. Reductions ([`dot`](Self::dot),
/// [`norm`](Self::norm)) return `f64`; the CPU implementation accumulates
/// in `f64` also for `f32` vectors.
pub trait Vector: Send + Sync {
    /// The element type.
    type Scalar: Real;

    /// Number of entries.
    fn len(&self) -> usize;

    /// Whether the vector has no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes the vector `n` long (new entries are zero; existing capacity is
    /// reused).
    fn resize(&mut self, n: usize);

    /// `self ← src` (same length).
    fn copy_from(&mut self, src: &Self);

    /// `self ← v` for every entry.
    fn fill(&mut self, v: Self::Scalar);

    /// `self ← self + a x`.
    fn axpy(&mut self, a: f64, x: &Self);

    /// `self ← x + a self`.
    fn xpay(&mut self, x: &Self, a: f64);

    /// `self ← x ⊙ d` (element-wise product).
    fn mul_elems(&mut self, x: &Self, d: &Self);

    /// `self_i ← 1 / self_i`; returns `false` (leaving the vector in an
    /// unspecified state) if an entry is zero or the result is not finite.
    fn invert_elems(&mut self) -> bool;

    /// `selfᵀ y`.
    fn dot(&self, y: &Self) -> f64;

    /// `‖self‖₂`.
    fn norm(&self) -> f64 {
        self.dot(self).sqrt()
    }
}

impl<T: Real> Vector for Vec<T> {
    type Scalar = T;

    #[inline]
    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn resize(&mut self, n: usize) {
        Vec::resize(self, n, T::zero());
    }

    #[inline]
    fn copy_from(&mut self, src: &Self) {
        self.copy_from_slice(src);
    }

    #[inline]
    fn fill(&mut self, v: T) {
        self.as_mut_slice().fill(v);
    }

    #[inline]
    fn axpy(&mut self, a: f64, x: &Self) {
        let a = T::of_f64(a);
        for (y, &x) in self.iter_mut().zip(x) {
            *y += a * x;
        }
    }

    #[inline]
    fn xpay(&mut self, x: &Self, a: f64) {
        let a = T::of_f64(a);
        for (y, &x) in self.iter_mut().zip(x) {
            *y = x + a * *y;
        }
    }

    #[inline]
    fn mul_elems(&mut self, x: &Self, d: &Self) {
        for ((y, &x), &d) in self.iter_mut().zip(x).zip(d) {
            *y = x * d;
        }
    }

    fn invert_elems(&mut self) -> bool {
        for v in self.iter_mut() {
            *v = T::one() / *v;
            if !v.is_finite() {
                return false;
            }
        }
        true
    }

    #[inline]
    fn dot(&self, y: &Self) -> f64 {
        dot_slices(self, y)
    }
}

/// `xᵀ y` accumulated in `f64` with four independent partial sums.
#[inline]
pub(crate) fn dot_slices<T: Real>(x: &[T], y: &[T]) -> f64 {
    let mut s = [0f64; 4];
    let xc = x.chunks_exact(4);
    let yc = y.chunks_exact(4);
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (a, b) in xc.zip(yc) {
        for k in 0..4 {
            s[k] += a[k].as_f64() * b[k].as_f64();
        }
    }
    let mut t = (s[0] + s[1]) + (s[2] + s[3]);
    for (a, b) in xr.iter().zip(yr) {
        t += a.as_f64() * b.as_f64();
    }
    t
}
