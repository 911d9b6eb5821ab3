//! The leaf kernels on any label type: [`Constant`] and [`KroneckerDelta`].

use super::invalid;
use crate::basekernel::hyper::{positive, unit, Param};
use crate::basekernel::{builtin_ops, check_len, BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError, LowRank};

// ---------------------------------------------------------------- Constant

/// The constant kernel κ(x, y) = c, c > 0, on any label type.
///
/// Hyperparameter `constant` (default bounds [1e-3, 1e3], widened to contain
/// c). Range (c, c). CUDA: the parameter slot itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constant {
    c: Param,
}

impl Constant {
    /// κ = c.
    ///
    /// # Panics
    /// Unless c is finite and > 0 (use [`try_new`](Self::try_new) for user input).
    pub fn new(c: f64) -> Self {
        Self::try_new(c).unwrap_or_else(|e| panic!("{e}"))
    }

    /// κ = c.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] unless c is finite and > 0.
    pub fn try_new(c: f64) -> Result<Self, KernelError> {
        if !positive(c) {
            return Err(invalid("constant", "c", c, "finite and > 0"));
        }
        Ok(Constant { c: Param::widened(c, 1e-3, 1e3) })
    }

    /// The value c.
    pub fn c(&self) -> f64 {
        self.c.value
    }
}
one_param_builders!(Constant, c, "constant", positive);
builtin_ops!(impl[] Constant);

impl<T: ?Sized> BaseKernel<T> for Constant {
    #[inline(always)]
    fn value(&self, _a: &T, _b: &T) -> f64 {
        self.c.value
    }
    #[inline(always)]
    fn value_f32(&self, _a: &T, _b: &T) -> f32 {
        self.c.value as f32
    }
    fn range(&self) -> (f64, f64) {
        (self.c.value, self.c.value)
    }
    fn low_rank(&self, a: &[&T], b: &[&T]) -> Option<LowRank> {
        Some(LowRank::constant(self.c.value, a.len(), b.len()))
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![self.c.hyper("constant")]
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        1
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, 1)?;
        self.c.check("constant", theta[0], positive)?;
        self.c.value = theta[0];
        Ok(())
    }
    #[inline]
    fn gradient(&self, _a: &T, _b: &T, grad: &mut [f64]) -> f64 {
        grad[0] = self.c.grad(self.c.value);
        self.c.value
    }
    fn cuda(&self, _a: &str, _b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        Ok(cg.param(self.c.value))
    }
}

// ---------------------------------------------------------- KroneckerDelta

/// The Kronecker delta kernel κ(x, y) = 1 if x = y else h, 0 ≤ h ≤ 1
/// (GraphDot's parameterization), on any `PartialEq` label (record `Int`
/// fields through [`Field`](crate::basekernel::Field)).
///
/// Hyperparameter `h` (default bounds [1e-3, 1], widened to contain h).
/// Range (h, 1). Positive semi-definite: h·J + (1 − h)·[x = y].
/// CUDA: `(a == b ? 1 : h)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KroneckerDelta {
    h: Param,
}

impl KroneckerDelta {
    /// κ = 1 if equal else h.
    ///
    /// # Panics
    /// Unless 0 ≤ h ≤ 1 (use [`try_new`](Self::try_new) for user input).
    pub fn new(h: f64) -> Self {
        Self::try_new(h).unwrap_or_else(|e| panic!("{e}"))
    }

    /// κ = 1 if equal else h.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] unless 0 ≤ h ≤ 1.
    pub fn try_new(h: f64) -> Result<Self, KernelError> {
        if !unit(h) {
            return Err(invalid("delta", "h", h, "in [0, 1]"));
        }
        Ok(KroneckerDelta { h: Param::widened(h, 1e-3, 1.0) })
    }

    /// The value h for unequal labels.
    pub fn h(&self) -> f64 {
        self.h.value
    }
}
one_param_builders!(KroneckerDelta, h, "h", unit);
builtin_ops!(impl[] KroneckerDelta);

impl<T: PartialEq + ?Sized> BaseKernel<T> for KroneckerDelta {
    #[inline(always)]
    fn value(&self, a: &T, b: &T) -> f64 {
        if a == b {
            1.0
        } else {
            self.h.value
        }
    }
    #[inline(always)]
    fn value_f32(&self, a: &T, b: &T) -> f32 {
        if a == b {
            1.0
        } else {
            self.h.value as f32
        }
    }
    fn range(&self) -> (f64, f64) {
        (self.h.value, 1.0)
    }
    fn table(&self, a: &[&T], b: &[&T], out: &mut Vec<f64>) {
        // few label classes: compare class numbers in one vectorized pass per row
        match crate::basekernel::rows::classes(a, b, crate::basekernel::rows::MAX_CLASSES) {
            Some((ca, cb)) => {
                let num = |c: Vec<u32>| c.into_iter().map(f64::from).collect::<Vec<f64>>();
                crate::basekernel::rows::delta_table(&num(ca), &num(cb), self.h.value, out)
            }
            None => {
                out.clear();
                out.reserve(a.len() * b.len());
                for x in a {
                    out.extend(b.iter().map(|y| self.value(*x, *y)));
                }
            }
        }
    }
    fn low_rank(&self, a: &[&T], b: &[&T]) -> Option<LowRank> {
        // h·J + (1 − h)·[x = y]
        let h = self.h.value;
        let (na, nb) = (a.len(), b.len());
        Some(LowRank::constant(h, na, nb).sum(LowRank::equality(1.0 - h, a, b)))
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![self.h.hyper("h")]
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        1
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, 1)?;
        self.h.check("h", theta[0], unit)?;
        self.h.value = theta[0];
        Ok(())
    }
    #[inline]
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        if a == b {
            grad[0] = 0.0;
            1.0
        } else {
            grad[0] = self.h.grad(self.h.value);
            self.h.value
        }
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let h = cg.param(self.h.value);
        Ok(format!("(({a}) == ({b}) ? {} : {h})", cg.lit(1.0)))
    }
}
