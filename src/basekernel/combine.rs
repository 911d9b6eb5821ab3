//! Combinators: [`Product`], [`Sum`], [`Scaled`], [`Power`], [`Normalize`],
//! and the field-wise [`TensorProduct`] and [`Additive`] over tuples.

use super::cuda::dual_name;
use super::hyper::{unique_paths, Param};
use super::point::real_suffix;
use super::rconv::Reduction;
use super::{builtin_ops, check_len, BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError};
use crate::graph::Schema;
use smallvec::SmallVec;

/// The interval {x·y : x ∈ a, y ∈ b} (0 · ∞ taken as 0).
pub(crate) fn mul_range(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let m = |x: f64, y: f64| if x == 0.0 || y == 0.0 { 0.0 } else { x * y };
    let c = [m(a.0, b.0), m(a.0, b.1), m(a.1, b.0), m(a.1, b.1)];
    (c.iter().copied().fold(f64::INFINITY, f64::min), c.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

/// The interval {x + y : x ∈ a, y ∈ b}.
pub(crate) fn add_range(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 + b.0, a.1 + b.1)
}

fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// Sets `theta` on a clone of `k` by `set`, and keeps it only if every part succeeded.
fn set_all<K: Clone>(k: &mut K, set: impl FnOnce(&mut K) -> Result<(), KernelError>) -> Result<(), KernelError> {
    let mut new = k.clone();
    set(&mut new)?;
    *k = new;
    Ok(())
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
    fn low_rank(&self, x: &[&T], y: &[&T]) -> Option<super::LowRank> {
        self.a.low_rank(x, y)?.product(&self.b.low_rank(x, y)?)
    }
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
    #[inline]
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let (ga, gb) = grad.split_at_mut(self.a.num_hyperparameters());
        let ka = self.a.gradient(x, y, ga);
        let kb = self.b.gradient(x, y, gb);
        ga.iter_mut().for_each(|g| *g *= kb);
        gb.iter_mut().for_each(|g| *g *= ka);
        ka * kb
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.a.bind(schema)?;
        self.b.bind(schema)
    }
    fn cuda(&self, x: &str, y: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        Ok(format!("({} * {})", self.a.cuda(x, y, gen)?, self.b.cuda(x, y, gen)?))
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
    fn low_rank(&self, x: &[&T], y: &[&T]) -> Option<super::LowRank> {
        Some(self.a.low_rank(x, y)?.sum(self.b.low_rank(x, y)?))
    }
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
    #[inline]
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let (ga, gb) = grad.split_at_mut(self.a.num_hyperparameters());
        self.a.gradient(x, y, ga) + self.b.gradient(x, y, gb)
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.a.bind(schema)?;
        self.b.bind(schema)
    }
    fn cuda(&self, x: &str, y: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        Ok(format!("({} + {})", self.a.cuda(x, y, gen)?, self.b.cuda(x, y, gen)?))
    }
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
    /// As [`SquareExponential::with_bounds`](super::SquareExponential::with_bounds).
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
    fn low_rank(&self, x: &[&T], y: &[&T]) -> Option<super::LowRank> {
        Some(self.kernel.low_rank(x, y)?.scaled(self.factor.value))
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        unique_paths(vec![vec![self.factor.hyper("factor")], self.kernel.hyperparameters()])
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        1 + self.kernel.num_hyperparameters()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, self.num_hyperparameters())?;
        self.factor.check("factor", theta[0], positive)?;
        set_all(self, |k| {
            k.kernel.set_theta(&theta[1..])?;
            k.factor.value = theta[0];
            Ok(())
        })
    }
    #[inline]
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let c = self.factor.value;
        let k = self.kernel.gradient(x, y, &mut grad[1..]);
        grad[1..].iter_mut().for_each(|g| *g *= c);
        grad[0] = self.factor.grad(c * k);
        c * k
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.kernel.bind(schema)
    }
    fn cuda(&self, x: &str, y: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        let c = gen.param(self.factor.value);
        Ok(format!("({c} * {})", self.kernel.cuda(x, y, gen)?))
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
    /// As [`SquareExponential::with_bounds`](super::SquareExponential::with_bounds).
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
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        unique_paths(vec![vec![self.exponent.hyper("exponent")], self.kernel.hyperparameters()])
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        1 + self.kernel.num_hyperparameters()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, self.num_hyperparameters())?;
        self.exponent.check("exponent", theta[0], positive)?;
        set_all(self, |k| {
            k.kernel.set_theta(&theta[1..])?;
            k.exponent.value = theta[0];
            Ok(())
        })
    }
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
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.kernel.bind(schema)
    }
    fn cuda(&self, x: &str, y: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        let p = gen.param(self.exponent.value);
        Ok(format!("pow({}, {p})", self.kernel.cuda(x, y, gen)?))
    }
}

// --------------------------------------------------------------- Normalize

/// The normalized kernel κ(x, y) = κ₁(x, y) / √(κ₁(x, x) κ₁(y, y)), and 0
/// where κ₁(x, x) κ₁(y, y) ≤ 0.
///
/// κ(x, x) = 1 wherever κ₁(x, x) > 0. Hyperparameters are κ₁'s. Range, for a
/// positive semi-definite κ₁ with range (lo, hi) (Cauchy–Schwarz):
/// [max(0, lo/hi), 1] when lo ≥ 0, else [−1, 1]. Three evaluations of κ₁
/// per value; gradient by the quotient rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Normalize<K> {
    /// κ₁.
    pub kernel: K,
}

/// κ₁(x, y) / √(κ₁(x, x) κ₁(y, y)).
pub fn normalize<K>(kernel: K) -> Normalize<K> {
    Normalize { kernel }
}
builtin_ops!(impl[K,] Normalize<K>);

impl<T: ?Sized, K: BaseKernel<T>> BaseKernel<T> for Normalize<K> {
    #[inline]
    fn value(&self, x: &T, y: &T) -> f64 {
        let d = self.kernel.value(x, x) * self.kernel.value(y, y);
        if d > 0.0 {
            self.kernel.value(x, y) / d.sqrt()
        } else {
            0.0
        }
    }
    #[inline]
    fn value_f32(&self, x: &T, y: &T) -> f32 {
        let d = self.kernel.value_f32(x, x) * self.kernel.value_f32(y, y);
        if d > 0.0 {
            self.kernel.value_f32(x, y) / d.sqrt()
        } else {
            0.0
        }
    }
    fn range(&self) -> (f64, f64) {
        let (lo, hi) = self.kernel.range();
        if lo >= 0.0 {
            let m = if hi.is_finite() && hi > 0.0 { (lo / hi).min(1.0) } else { 0.0 };
            (m, 1.0)
        } else {
            (-1.0, 1.0)
        }
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        self.kernel.hyperparameters()
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        self.kernel.num_hyperparameters()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        self.kernel.set_theta(theta)
    }
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let n = grad.len();
        let mut gxx: SmallVec<[f64; 16]> = SmallVec::from_elem(0.0, n);
        let mut gyy: SmallVec<[f64; 16]> = SmallVec::from_elem(0.0, n);
        let kxx = self.kernel.gradient(x, x, &mut gxx);
        let kyy = self.kernel.gradient(y, y, &mut gyy);
        let kxy = self.kernel.gradient(x, y, grad);
        let d = kxx * kyy;
        if d <= 0.0 {
            grad.iter_mut().for_each(|g| *g = 0.0);
            return 0.0;
        }
        let s = d.sqrt();
        let k = kxy / s;
        for i in 0..n {
            grad[i] = grad[i] / s - 0.5 * k * (gxx[i] / kxx + gyy[i] / kyy);
        }
        k
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.kernel.bind(schema)
    }
    fn cuda(&self, x: &str, y: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        let mark = gen.num_params();
        let kxy = self.kernel.cuda(x, y, gen)?;
        gen.rewind(mark);
        let kxx = self.kernel.cuda(x, x, gen)?;
        gen.rewind(mark);
        let kyy = self.kernel.cuda(y, y, gen)?;
        Ok(cuda_normalize(gen, &kxy, &kxx, &kyy))
    }
}

/// The CUDA form of k(x,y)/√(k(x,x)k(y,y)) from the three values' C
/// expressions (0 where the diagonal product is not positive), its helper
/// function registered in `gen` (shared by [`Normalize`] and the expression
/// kernels' `normalize`).
pub(crate) fn cuda_normalize(gen: &mut CudaGen, kxy: &str, kxx: &str, kyy: &str) -> String {
    let (r, s) = (gen.real, real_suffix(gen));
    gen.helper(&format!(
        "#ifndef KG_NORMALIZE_{s}\n#define KG_NORMALIZE_{s}\n\
         __device__ inline {r} kg_normalize_{s}({r} kxy, {r} kxx, {r} kyy) {{\n  \
         {r} d = kxx * kyy;\n  return d > ({r})0 ? kxy / sqrt(d) : ({r})0;\n}}\n#endif\n"
    ));
    if gen.is_dual() {
        let t = dual_name(r);
        gen.helper(&format!(
            "#ifndef KG_NORMALIZE_DUAL_{s}\n#define KG_NORMALIZE_DUAL_{s}\n\
             template <int D> __device__ inline {t}<D> kg_normalize_{s}(const {t}<D>& kxy, const {t}<D>& kxx, \
             const {t}<D>& kyy) {{\n  {t}<D> d = kxx * kyy;\n  \
             return d > ({r})0 ? kxy / sqrt(d) : {t}<D>(({r})0);\n}}\n#endif\n"
        ));
    }
    format!("kg_normalize_{s}({kxy}, {kxx}, {kyy})")
}

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
    fn cuda(&self, a: &str, b: &str, gen: &mut CudaGen) -> Result<Vec<String>, KernelError>;
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
            fn cuda(&self, a: &str, b: &str, gen: &mut CudaGen) -> Result<Vec<String>, KernelError> {
                Ok(vec![$(self.$i.cuda(a, b, gen)?),+])
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
/// one [`Field`](super::Field) kernel per label field:
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
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        self.kernels.hyperparameters()
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        self.kernels.num_hyperparameters()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        self.kernels.set_theta(theta)
    }
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
    fn cuda(&self, x: &str, y: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        Ok(format!("({})", self.kernels.cuda(x, y, gen)?.join(" * ")))
    }
}

// ---------------------------------------------------------------- Additive

/// The additive kernel over a tuple of kernels (usually one
/// [`Field`](super::Field) kernel per label field): κ = Σ κᵢ
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
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        self.kernels.hyperparameters()
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        self.kernels.num_hyperparameters()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        self.kernels.set_theta(theta)
    }
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
    fn cuda(&self, x: &str, y: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        let s = self.kernels.cuda(x, y, gen)?.join(" + ");
        Ok(match self.reduction {
            Reduction::Sum => format!("({s})"),
            Reduction::Mean => format!("(({s}) / {})", gen.lit(self.kernels.len() as f64)),
        })
    }
}
