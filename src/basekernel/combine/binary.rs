//! The binary combinators [`Product`] (κ₁ · κ₂) and [`Sum`] (κ₁ + κ₂).

use super::{add_range, mul_range, set_all};
use crate::basekernel::hyper::unique_paths;
use crate::basekernel::{builtin_ops, check_len, BaseKernel, CudaGen, Hyperparameter, KernelError};
use crate::graph::Schema;

/// The hyperparameter methods of a combinator of two parts `self.a` and
/// `self.b`: κ₁'s then κ₂'s (paths made unique), set atomically, both bound.
macro_rules! pair_hyperparameters {
    () => {
        fn hyperparameters(&self) -> Vec<Hyperparameter> {
            unique_paths(vec![self.a.hyperparameters(), self.b.hyperparameters()])
        }
        #[inline]
        fn num_hyperparameters(&self) -> usize {
            self.a.num_hyperparameters() + self.b.num_hyperparameters()
        }
        fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
            check_len(theta, self.num_hyperparameters())?;
            let na = self.a.num_hyperparameters();
            set_all(self, |k| {
                k.a.set_theta(&theta[..na])?;
                k.b.set_theta(&theta[na..])
            })
        }
        fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
            self.a.bind(schema)?;
            self.b.bind(schema)
        }
    };
}

// ----------------------------------------------------------------- Product

/// The product κ = κ₁ · κ₂ of two kernels on the same labels (`k1 * k2`).
///
/// Positive semi-definite when both are (Schur product theorem). Range by
/// interval arithmetic; hyperparameters κ₁'s then κ₂'s, unprefixed.
/// Gradient by the product rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Product<A, B> {
    /// κ₁.
    pub a: A,
    /// κ₂.
    pub b: B,
}

/// κ₁ · κ₂ (same as `a * b`).
pub fn product<A, B>(a: A, b: B) -> Product<A, B> {
    Product { a, b }
}
builtin_ops!(impl[A, B,] Product<A, B>);

impl<T: ?Sized, A: BaseKernel<T>, B: BaseKernel<T>> BaseKernel<T> for Product<A, B> {
    #[inline(always)]
    fn value(&self, x: &T, y: &T) -> f64 {
        self.a.value(x, y) * self.b.value(x, y)
    }
    #[inline(always)]
    fn value_f32(&self, x: &T, y: &T) -> f32 {
        self.a.value_f32(x, y) * self.b.value_f32(x, y)
    }
    fn range(&self) -> (f64, f64) {
        mul_range(self.a.range(), self.b.range())
    }
    fn table(&self, x: &[&T], y: &[&T], out: &mut Vec<f64>) {
        let mut tb = Vec::new();
        self.a.table(x, y, out);
        self.b.table(x, y, &mut tb);
        out.iter_mut().zip(&tb).for_each(|(o, v)| *o *= v);
    }
    fn low_rank(&self, x: &[&T], y: &[&T]) -> Option<crate::basekernel::LowRank> {
        self.a.low_rank(x, y)?.product(&self.b.low_rank(x, y)?)
    }
    pair_hyperparameters!();
    #[inline]
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let (ga, gb) = grad.split_at_mut(self.a.num_hyperparameters());
        let ka = self.a.gradient(x, y, ga);
        let kb = self.b.gradient(x, y, gb);
        ga.iter_mut().for_each(|g| *g *= kb);
        gb.iter_mut().for_each(|g| *g *= ka);
        ka * kb
    }
    fn cuda(&self, x: &str, y: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        Ok(format!("({} * {})", self.a.cuda(x, y, cg)?, self.b.cuda(x, y, cg)?))
    }
}

// --------------------------------------------------------------------- Sum

/// The sum κ = κ₁ + κ₂ of two kernels on the same labels (`k1 + k2`).
///
/// Positive semi-definite when both are. Range by interval arithmetic;
/// hyperparameters κ₁'s then κ₂'s, unprefixed.
#[derive(Clone, Debug, PartialEq)]
pub struct Sum<A, B> {
    /// κ₁.
    pub a: A,
    /// κ₂.
    pub b: B,
}

/// κ₁ + κ₂ (same as `a + b`).
pub fn sum<A, B>(a: A, b: B) -> Sum<A, B> {
    Sum { a, b }
}
builtin_ops!(impl[A, B,] Sum<A, B>);

impl<T: ?Sized, A: BaseKernel<T>, B: BaseKernel<T>> BaseKernel<T> for Sum<A, B> {
    #[inline(always)]
    fn value(&self, x: &T, y: &T) -> f64 {
        self.a.value(x, y) + self.b.value(x, y)
    }
    #[inline(always)]
    fn value_f32(&self, x: &T, y: &T) -> f32 {
        self.a.value_f32(x, y) + self.b.value_f32(x, y)
    }
    fn range(&self) -> (f64, f64) {
        add_range(self.a.range(), self.b.range())
    }
    fn table(&self, x: &[&T], y: &[&T], out: &mut Vec<f64>) {
        let mut tb = Vec::new();
        self.a.table(x, y, out);
        self.b.table(x, y, &mut tb);
        out.iter_mut().zip(&tb).for_each(|(o, v)| *o += v);
    }
    fn low_rank(&self, x: &[&T], y: &[&T]) -> Option<crate::basekernel::LowRank> {
        Some(self.a.low_rank(x, y)?.sum(self.b.low_rank(x, y)?))
    }
    pair_hyperparameters!();
    #[inline]
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let (ga, gb) = grad.split_at_mut(self.a.num_hyperparameters());
        self.a.gradient(x, y, ga) + self.b.gradient(x, y, gb)
    }
    fn cuda(&self, x: &str, y: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        Ok(format!("({} + {})", self.a.cuda(x, y, cg)?, self.b.cuda(x, y, cg)?))
    }
}
