//! Tuples of kernels on the same labels ([`KernelTuple`]) and their
//! field-wise combinators [`TensorProduct`] (Π κᵢ) and [`Additive`] (Σ κᵢ or the mean).

use super::{add_range, mul_range, set_all};
use crate::basekernel::hyper::unique_paths;
use crate::basekernel::rconv::Reduction;
use crate::basekernel::{builtin_ops, check_len, BaseKernel, CudaGen, Hyperparameter, KernelError};
use crate::graph::Schema;

// ------------------------------------------------------ tuples of kernels

/// A tuple `(K1, K2, …)` of up to 8 kernels on the same labels, for
/// [`TensorProduct`] and [`Additive`]. Implemented for tuples; not meant to
/// be implemented elsewhere.
pub trait KernelTuple<T: ?Sized>: Clone + std::fmt::Debug + Send + Sync {
    /// Number of kernels.
    fn len(&self) -> usize;
    /// Whether there are none (never: tuples have 1 to 8 kernels).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Π κᵢ(a, b).
    fn product(&self, a: &T, b: &T) -> f64;
    /// Π κᵢ(a, b) in f32.
    fn product_f32(&self, a: &T, b: &T) -> f32;
    /// Σ κᵢ(a, b).
    fn sum(&self, a: &T, b: &T) -> f64;
    /// Σ κᵢ(a, b) in f32.
    fn sum_f32(&self, a: &T, b: &T) -> f32;
    /// The ranges of the kernels.
    fn ranges(&self) -> Vec<(f64, f64)>;
    /// All hyperparameters, in order.
    fn hyperparameters(&self) -> Vec<Hyperparameter>;
    /// Their number.
    fn num_hyperparameters(&self) -> usize;
    /// Sets all (atomically: nothing changes on error).
    ///
    /// # Errors
    /// As [`BaseKernel::set_theta`].
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError>;
    /// Each kernel's value into `values[i]`, its gradient into its slice of
    /// `grad`, its number of hyperparameters into `counts[i]`.
    fn gradients(&self, a: &T, b: &T, grad: &mut [f64], values: &mut [f64], counts: &mut [usize]);
    /// Binds every kernel.
    ///
    /// # Errors
    /// As [`BaseKernel::bind`].
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError>;
    /// Every kernel's CUDA expression.
    ///
    /// # Errors
    /// As [`BaseKernel::cuda`].
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<Vec<String>, KernelError>;
}

macro_rules! kernel_tuple {
    ($n:literal; $($k:ident $i:tt),+) => {
        impl<T: ?Sized, $($k: BaseKernel<T>),+> KernelTuple<T> for ($($k,)+) {
            #[inline]
            fn len(&self) -> usize {
                $n
            }
            #[inline(always)]
            fn product(&self, a: &T, b: &T) -> f64 {
                1.0 $(* self.$i.value(a, b))+
            }
            #[inline(always)]
            fn product_f32(&self, a: &T, b: &T) -> f32 {
                1.0 $(* self.$i.value_f32(a, b))+
            }
            #[inline(always)]
            fn sum(&self, a: &T, b: &T) -> f64 {
                0.0 $(+ self.$i.value(a, b))+
            }
            #[inline(always)]
            fn sum_f32(&self, a: &T, b: &T) -> f32 {
                0.0 $(+ self.$i.value_f32(a, b))+
            }
            fn ranges(&self) -> Vec<(f64, f64)> {
                vec![$(self.$i.range()),+]
            }
            fn hyperparameters(&self) -> Vec<Hyperparameter> {
                unique_paths(vec![$(self.$i.hyperparameters()),+])
            }
            #[inline]
            fn num_hyperparameters(&self) -> usize {
                0 $(+ self.$i.num_hyperparameters())+
            }
            fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
                check_len(theta, KernelTuple::<T>::num_hyperparameters(self))?;
                set_all(self, |k| {
                    let mut off = 0;
                    $(
                        let n = k.$i.num_hyperparameters();
                        k.$i.set_theta(&theta[off..off + n])?;
                        off += n;
                    )+
                    let _ = off;
                    Ok(())
                })
            }
            #[inline]
            fn gradients(&self, a: &T, b: &T, grad: &mut [f64], values: &mut [f64], counts: &mut [usize]) {
                let mut off = 0;
                $(
                    let n = self.$i.num_hyperparameters();
                    values[$i] = self.$i.gradient(a, b, &mut grad[off..off + n]);
                    counts[$i] = n;
                    off += n;
                )+
                let _ = off;
            }
            fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
                $(self.$i.bind(schema)?;)+
                Ok(())
            }
            fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<Vec<String>, KernelError> {
                Ok(vec![$(self.$i.cuda(a, b, cg)?),+])
            }
        }
    };
}
kernel_tuple!(1; K0 0);
kernel_tuple!(2; K0 0, K1 1);
kernel_tuple!(3; K0 0, K1 1, K2 2);
kernel_tuple!(4; K0 0, K1 1, K2 2, K3 3);
kernel_tuple!(5; K0 0, K1 1, K2 2, K3 3, K4 4);
kernel_tuple!(6; K0 0, K1 1, K2 2, K3 3, K4 4, K5 5);
kernel_tuple!(7; K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6);
kernel_tuple!(8; K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7);

// ----------------------------------------------------------- TensorProduct

/// The tensor product κ(x, y) = Π κᵢ(x, y) over a tuple of kernels, usually
/// one [`Field`](crate::basekernel::Field) kernel per label field:
///
/// ```
/// use kronograph::basekernel::*;
/// let k = tensor_product((
///     Field::new("element", KroneckerDelta::new(0.5)),
///     Field::new("charge", SquareExponential::new(1.0)),
/// ));
/// # let _ = k;
/// ```
///
/// Positive semi-definite when every κᵢ is; range by interval arithmetic;
/// hyperparameters in tuple order (each field's prefixed by its name).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorProduct<L> {
    /// The kernels.
    pub kernels: L,
}

/// Π κᵢ over the tuple `kernels`.
pub fn tensor_product<L>(kernels: L) -> TensorProduct<L> {
    TensorProduct { kernels }
}
builtin_ops!(impl[L,] TensorProduct<L>);

impl<T: ?Sized, L: KernelTuple<T>> BaseKernel<T> for TensorProduct<L> {
    #[inline(always)]
    fn value(&self, x: &T, y: &T) -> f64 {
        self.kernels.product(x, y)
    }
    #[inline(always)]
    fn value_f32(&self, x: &T, y: &T) -> f32 {
        self.kernels.product_f32(x, y)
    }
    fn range(&self) -> (f64, f64) {
        self.kernels.ranges().into_iter().fold((1.0, 1.0), mul_range)
    }
    child_hyperparameters!(kernels);
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let (mut values, mut counts) = ([0.0; 8], [0usize; 8]);
        self.kernels.gradients(x, y, grad, &mut values, &mut counts);
        let n = self.kernels.len();
        let mut off = 0;
        for i in 0..n {
            let others: f64 = (0..n).filter(|&j| j != i).map(|j| values[j]).product();
            grad[off..off + counts[i]].iter_mut().for_each(|g| *g *= others);
            off += counts[i];
        }
        values[..n].iter().product()
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.kernels.bind(schema)
    }
    fn cuda(&self, x: &str, y: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        Ok(format!("({})", self.kernels.cuda(x, y, cg)?.join(" * ")))
    }
}

// ---------------------------------------------------------------- Additive

/// The additive kernel over a tuple of kernels (usually one
/// [`Field`](crate::basekernel::Field) kernel per label field): κ = Σ κᵢ
/// ([`Reduction::Sum`]) or κ = (1/n) Σ κᵢ ([`Reduction::Mean`]).
///
/// Positive semi-definite when every κᵢ is. Range: the sum of the ranges, or
/// their mean (so the mean of n kernels with ranges in [0, 1] lies in
/// [0, 1], as the graph kernels need).
#[derive(Clone, Debug, PartialEq)]
pub struct Additive<L> {
    /// The kernels.
    pub kernels: L,
    /// Sum or mean.
    pub reduction: Reduction,
}

/// Σ κᵢ over the tuple `kernels`.
pub fn additive<L>(kernels: L) -> Additive<L> {
    Additive { kernels, reduction: Reduction::Sum }
}

impl<L> Additive<L> {
    /// Σ κᵢ.
    pub fn sum(kernels: L) -> Self {
        Additive { kernels, reduction: Reduction::Sum }
    }
    /// (1/n) Σ κᵢ.
    pub fn mean(kernels: L) -> Self {
        Additive { kernels, reduction: Reduction::Mean }
    }
}
builtin_ops!(impl[L,] Additive<L>);

#[inline(always)]
fn weight(reduction: Reduction, n: usize) -> f64 {
    match reduction {
        Reduction::Sum => 1.0,
        Reduction::Mean => 1.0 / n as f64,
    }
}

impl<T: ?Sized, L: KernelTuple<T>> BaseKernel<T> for Additive<L> {
    #[inline(always)]
    fn value(&self, x: &T, y: &T) -> f64 {
        weight(self.reduction, self.kernels.len()) * self.kernels.sum(x, y)
    }
    #[inline(always)]
    fn value_f32(&self, x: &T, y: &T) -> f32 {
        weight(self.reduction, self.kernels.len()) as f32 * self.kernels.sum_f32(x, y)
    }
    fn range(&self) -> (f64, f64) {
        let (lo, hi) = self.kernels.ranges().into_iter().fold((0.0, 0.0), add_range);
        let w = weight(self.reduction, self.kernels.len());
        (w * lo, w * hi)
    }
    child_hyperparameters!(kernels);
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let (mut values, mut counts) = ([0.0; 8], [0usize; 8]);
        self.kernels.gradients(x, y, grad, &mut values, &mut counts);
        let w = weight(self.reduction, self.kernels.len());
        grad.iter_mut().for_each(|g| *g *= w);
        w * values[..self.kernels.len()].iter().sum::<f64>()
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.kernels.bind(schema)
    }
    fn cuda(&self, x: &str, y: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let s = self.kernels.cuda(x, y, cg)?.join(" + ");
        Ok(match self.reduction {
            Reduction::Sum => format!("({s})"),
            Reduction::Mean => format!("(({s}) / {})", cg.lit(self.kernels.len() as f64)),
        })
    }
}
