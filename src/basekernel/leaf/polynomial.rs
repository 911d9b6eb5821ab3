//! The dot-product leaf kernel [`Polynomial`] on any [`Point`].

use super::invalid;
use crate::basekernel::hyper::{non_negative, Param};
use crate::basekernel::point::{point_helpers, Point};
use crate::basekernel::{builtin_ops, check_len, BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError};

// -------------------------------------------------------------- Polynomial

/// The polynomial kernel κ(x, y) = (x·y + c)^d, c ≥ 0, integer d ≥ 0, on any
/// [`Point`] (scalars and fixed-length vectors).
///
/// Hyperparameter `offset` = c (default bounds [1e-3, 1e3], widened; c = 0
/// gives the homogeneous kernel); the degree d is structural, not a
/// hyperparameter. c ∂κ/∂c = c d (x·y + c)^(d−1).
///
/// Range, since labels are unbounded: (1, 1) for d = 0, [0, ∞) for even d,
/// (−∞, ∞) for odd d. Use [`Normalize`](crate::basekernel::Normalize) to bring it into
/// [−1, 1] for the graph kernels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Polynomial {
    offset: Param,
    degree: i32,
}

impl Polynomial {
    /// κ = (x·y + c)^d.
    ///
    /// # Panics
    /// Unless c is finite and ≥ 0 and d ≤ 64 (use [`try_new`](Self::try_new) for user input).
    pub fn new(offset: f64, degree: u32) -> Self {
        Self::try_new(offset, degree).unwrap_or_else(|e| panic!("{e}"))
    }

    /// κ = (x·y + c)^d.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] unless c is finite and ≥ 0 and d ≤ 64.
    pub fn try_new(offset: f64, degree: u32) -> Result<Self, KernelError> {
        if !non_negative(offset) {
            return Err(invalid("poly", "offset", offset, "finite and >= 0"));
        }
        if degree > 64 {
            return Err(invalid("poly", "degree", degree as f64, "at most 64"));
        }
        Ok(Polynomial { offset: Param::widened(offset, 1e-3, 1e3), degree: degree as i32 })
    }

    /// The offset c.
    pub fn offset(&self) -> f64 {
        self.offset.value
    }

    /// The degree d.
    pub fn degree(&self) -> u32 {
        self.degree as u32
    }
}
one_param_builders!(Polynomial, offset, "offset", non_negative);
builtin_ops!(impl[] Polynomial);

impl<T: Point + ?Sized> BaseKernel<T> for Polynomial {
    #[inline(always)]
    fn value(&self, a: &T, b: &T) -> f64 {
        (a.dot(b) + self.offset.value).powi(self.degree)
    }
    #[inline(always)]
    fn value_f32(&self, a: &T, b: &T) -> f32 {
        (a.dot_f32(b) + self.offset.value as f32).powi(self.degree)
    }
    fn range(&self) -> (f64, f64) {
        match self.degree {
            0 => (1.0, 1.0),
            d if d % 2 == 0 => (0.0, f64::INFINITY),
            _ => (f64::NEG_INFINITY, f64::INFINITY),
        }
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![self.offset.hyper("offset")]
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        1
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, 1)?;
        self.offset.check("offset", theta[0], non_negative)?;
        self.offset.value = theta[0];
        Ok(())
    }
    #[inline]
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        let c = self.offset.value;
        let s = a.dot(b) + c;
        if self.degree == 0 {
            grad[0] = 0.0;
            return 1.0;
        }
        let p = s.powi(self.degree - 1);
        grad[0] = self.offset.grad(c * self.degree as f64 * p);
        p * s
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let (_, dot) = point_helpers(cg);
        let c = cg.param(self.offset.value);
        Ok(format!("pow({dot}({a}, {b}) + {c}, {})", cg.lit(self.degree as f64)))
    }
}
