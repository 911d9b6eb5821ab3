//! The combinators with one hyperparameter of their own before their child's:
//! [`Scaled`] (c · κ) and [`Power`] (κ^p).

use super::{mul_range, set_all};
use crate::basekernel::hyper::{positive, unique_paths, Param};
use crate::basekernel::{builtin_ops, check_len, BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError};
use crate::graph::Schema;

/// The hyperparameter methods of a combinator with one positive parameter
/// of its own, `self.$own` reported as `$name`, before its child's
/// `self.kernel` (set atomically; the child bound as it is).
macro_rules! own_then_child_hyperparameters {
    ($own:ident, $name:literal) => {
        fn hyperparameters(&self) -> Vec<Hyperparameter> {
            unique_paths(vec![vec![self.$own.hyper($name)], self.kernel.hyperparameters()])
        }
        #[inline]
        fn num_hyperparameters(&self) -> usize {
            1 + self.kernel.num_hyperparameters()
        }
        fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
            check_len(theta, self.num_hyperparameters())?;
            self.$own.check($name, theta[0], positive)?;
            set_all(self, |k| {
                k.kernel.set_theta(&theta[1..])?;
                k.$own.value = theta[0];
                Ok(())
            })
        }
        fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
            self.kernel.bind(schema)
        }
    };
}

// ------------------------------------------------------------------ Scaled

/// The scaled kernel κ = c · κ₁, c > 0 (`c * k`).
///
/// Hyperparameter `factor` = c (default bounds [1e-3, 1e3], widened), then
/// κ₁'s. Range c · range(κ₁).
#[derive(Clone, Debug, PartialEq)]
pub struct Scaled<K> {
    factor: Param,
    /// κ₁.
    pub kernel: K,
}

/// c · κ (same as `c * k`).
///
/// # Panics
/// Unless c is finite and > 0 (use [`Scaled::try_new`] for user input).
pub fn scale<K>(c: f64, kernel: K) -> Scaled<K> {
    Scaled::try_new(c, kernel).unwrap_or_else(|e| panic!("{e}"))
}

impl<K> Scaled<K> {
    /// c · κ.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] unless c is finite and > 0.
    pub fn try_new(c: f64, kernel: K) -> Result<Self, KernelError> {
        if !positive(c) {
            return Err(KernelError::InvalidParameter(format!("scale: factor {c} must be finite and > 0")));
        }
        Ok(Scaled { factor: Param::widened(c, 1e-3, 1e3), kernel })
    }

    /// The same kernel with bounds `bounds` for the factor.
    ///
    /// # Errors
    /// As [`SquareExponential::with_bounds`](crate::basekernel::SquareExponential::with_bounds).
    pub fn with_bounds(mut self, bounds: Bounds) -> Result<Self, KernelError> {
        self.factor.rebound("factor", bounds, positive)?;
        Ok(self)
    }

    /// The same kernel with the factor fixed.
    pub fn fixed(mut self) -> Self {
        self.factor.bounds = Bounds::Fixed;
        self
    }

    /// The factor c.
    pub fn factor(&self) -> f64 {
        self.factor.value
    }
}
builtin_ops!(impl[K,] Scaled<K>);

impl<T: ?Sized, K: BaseKernel<T>> BaseKernel<T> for Scaled<K> {
    #[inline(always)]
    fn value(&self, x: &T, y: &T) -> f64 {
        self.factor.value * self.kernel.value(x, y)
    }
    #[inline(always)]
    fn value_f32(&self, x: &T, y: &T) -> f32 {
        self.factor.value as f32 * self.kernel.value_f32(x, y)
    }
    fn range(&self) -> (f64, f64) {
        mul_range((self.factor.value, self.factor.value), self.kernel.range())
    }
    fn table(&self, x: &[&T], y: &[&T], out: &mut Vec<f64>) {
        self.kernel.table(x, y, out);
        out.iter_mut().for_each(|o| *o *= self.factor.value);
    }
    fn low_rank(&self, x: &[&T], y: &[&T]) -> Option<crate::basekernel::LowRank> {
        Some(self.kernel.low_rank(x, y)?.scaled(self.factor.value))
    }
    own_then_child_hyperparameters!(factor, "factor");
    #[inline]
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let c = self.factor.value;
        let k = self.kernel.gradient(x, y, &mut grad[1..]);
        grad[1..].iter_mut().for_each(|g| *g *= c);
        grad[0] = self.factor.grad(c * k);
        c * k
    }
    fn cuda(&self, x: &str, y: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let c = cg.param(self.factor.value);
        Ok(format!("({c} * {})", self.kernel.cuda(x, y, cg)?))
    }
}

// ------------------------------------------------------------------- Power

/// The power κ = κ₁^p, p > 0 (`k.pow(p)` through [`power`]).
///
/// Positive semi-definite for integer p when κ₁ is (Schur product); for other
/// p only when κ₁ is infinitely divisible. Hyperparameter `exponent` = p,
/// fixed by default (see [`with_bounds`](Self::with_bounds)), then κ₁'s.
/// Range: the image of range(κ₁) under x ↦ x^p; (−∞, ∞) when κ₁ can be
/// negative and p is not an integer (κ is NaN there).
/// p ∂κ/∂p = p ln(κ₁) κ₁^p (0 where κ₁ = 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Power<K> {
    exponent: Param,
    /// κ₁.
    pub kernel: K,
}

/// κ^p.
///
/// # Panics
/// Unless p is finite and > 0 (use [`Power::try_new`] for user input).
pub fn power<K>(kernel: K, p: f64) -> Power<K> {
    Power::try_new(kernel, p).unwrap_or_else(|e| panic!("{e}"))
}

impl<K> Power<K> {
    /// κ^p with p fixed.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] unless p is finite and > 0.
    pub fn try_new(kernel: K, p: f64) -> Result<Self, KernelError> {
        if !positive(p) {
            return Err(KernelError::InvalidParameter(format!("power: exponent {p} must be finite and > 0")));
        }
        Ok(Power { exponent: Param { value: p, bounds: Bounds::Fixed }, kernel })
    }

    /// The same kernel with the exponent trainable within `bounds`.
    ///
    /// # Errors
    /// As [`SquareExponential::with_bounds`](crate::basekernel::SquareExponential::with_bounds).
    pub fn with_bounds(mut self, bounds: Bounds) -> Result<Self, KernelError> {
        self.exponent.rebound("exponent", bounds, positive)?;
        Ok(self)
    }

    /// The exponent p.
    pub fn exponent(&self) -> f64 {
        self.exponent.value
    }
}
builtin_ops!(impl[K,] Power<K>);

fn pow_range(r: (f64, f64), p: f64) -> (f64, f64) {
    let (lo, hi) = r;
    if lo >= 0.0 {
        return (lo.powf(p), hi.powf(p));
    }
    if p.fract() != 0.0 {
        return (f64::NEG_INFINITY, f64::INFINITY);
    }
    let (a, b) = (lo.powf(p), hi.powf(p));
    if p % 2.0 != 0.0 {
        (a, b)
    } else if hi >= 0.0 {
        (0.0, a.max(b))
    } else {
        (b, a)
    }
}

impl<T: ?Sized, K: BaseKernel<T>> BaseKernel<T> for Power<K> {
    #[inline(always)]
    fn value(&self, x: &T, y: &T) -> f64 {
        self.kernel.value(x, y).powf(self.exponent.value)
    }
    #[inline(always)]
    fn value_f32(&self, x: &T, y: &T) -> f32 {
        self.kernel.value_f32(x, y).powf(self.exponent.value as f32)
    }
    fn range(&self) -> (f64, f64) {
        pow_range(self.kernel.range(), self.exponent.value)
    }
    own_then_child_hyperparameters!(exponent, "exponent");
    #[inline]
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let p = self.exponent.value;
        let k = self.kernel.gradient(x, y, &mut grad[1..]);
        let kp = k.powf(p);
        let dk = if k == 0.0 {
            if p == 1.0 {
                1.0
            } else {
                0.0
            }
        } else {
            p * kp / k
        };
        grad[1..].iter_mut().for_each(|g| *g *= dk);
        grad[0] = if k == 0.0 { 0.0 } else { self.exponent.grad(p * k.abs().ln() * kp) };
        kp
    }
    fn cuda(&self, x: &str, y: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let p = cg.param(self.exponent.value);
        Ok(format!("pow({}, {p})", self.kernel.cuda(x, y, cg)?))
    }
}
