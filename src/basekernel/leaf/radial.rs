//! The radial leaf kernels, functions of ‖x − y‖ on any [`Point`]:
//! [`SquareExponential`], [`RationalQuadratic`] and [`CompactPolynomial`].

use super::invalid;
use crate::basekernel::cuda::dual_name;
use crate::basekernel::hyper::{positive, Param};
use crate::basekernel::point::{point_helpers, real_suffix, Point};
use crate::basekernel::{builtin_ops, check_len, BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError};

// ------------------------------------------------------- SquareExponential

/// The square exponential kernel κ(x, y) = exp(−‖x − y‖²/(2ℓ²)), ℓ > 0, on
/// any [`Point`] (scalars, arrays, numeric record values).
///
/// Hyperparameter `scale` = ℓ (default bounds [1e-3, 1e3], widened).
/// Range [0, 1]. ℓ ∂κ/∂ℓ = κ ‖x − y‖²/ℓ².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SquareExponential {
    scale: Param,
    /// −1/(2ℓ²), cached.
    coef: f64,
    coef32: f32,
}

impl SquareExponential {
    /// κ = exp(−‖x − y‖²/(2ℓ²)).
    ///
    /// # Panics
    /// Unless ℓ is finite and > 0 (use [`try_new`](Self::try_new) for user input).
    pub fn new(scale: f64) -> Self {
        Self::try_new(scale).unwrap_or_else(|e| panic!("{e}"))
    }

    /// κ = exp(−‖x − y‖²/(2ℓ²)).
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] unless ℓ is finite and > 0.
    pub fn try_new(scale: f64) -> Result<Self, KernelError> {
        if !positive(scale) {
            return Err(invalid("sqexp", "scale", scale, "finite and > 0"));
        }
        let mut k = SquareExponential { scale: Param::widened(scale, 1e-3, 1e3), coef: 0.0, coef32: 0.0 };
        k.cache();
        Ok(k)
    }

    fn cache(&mut self) {
        let l = self.scale.value;
        self.coef = -0.5 / (l * l);
        self.coef32 = -0.5 / ((l as f32) * (l as f32));
    }

    /// The length scale ℓ.
    pub fn scale(&self) -> f64 {
        self.scale.value
    }

    /// −1/(2ℓ²), the factor of ‖x − y‖² in the exponent.
    pub(crate) fn coef(&self) -> f64 {
        self.coef
    }
}
one_param_builders!(SquareExponential, scale, "scale", positive);
builtin_ops!(impl[] SquareExponential);

impl<T: Point + ?Sized> BaseKernel<T> for SquareExponential {
    #[inline(always)]
    fn value(&self, a: &T, b: &T) -> f64 {
        (a.sq_dist(b) * self.coef).exp()
    }
    fn table(&self, a: &[&T], b: &[&T], out: &mut Vec<f64>) {
        if let Some((xa, xb)) = crate::basekernel::rows::scalars(a, b) {
            // contiguous numbers: one vectorized pass per row, same values
            return crate::basekernel::rows::sqexp_table(&xa, &xb, self.coef, out);
        }
        out.clear();
        out.reserve(a.len() * b.len());
        for x in a {
            out.extend(b.iter().map(|y| x.sq_dist(y) * self.coef));
        }
        crate::basekernel::fastexp::exp_in_place(out);
    }
    #[inline(always)]
    fn value_f32(&self, a: &T, b: &T) -> f32 {
        (a.sq_dist_f32(b) * self.coef32).exp()
    }
    fn range(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![self.scale.hyper("scale")]
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        1
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, 1)?;
        self.scale.check("scale", theta[0], positive)?;
        self.scale.value = theta[0];
        self.cache();
        Ok(())
    }
    #[inline]
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        let d2 = a.sq_dist(b);
        let k = (d2 * self.coef).exp();
        grad[0] = self.scale.grad(-2.0 * self.coef * d2 * k);
        k
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let (sqd, _) = point_helpers(cg);
        let l = cg.param(self.scale.value);
        Ok(format!("exp({} * {sqd}({a}, {b}) / ({l} * {l}))", cg.lit(-0.5)))
    }
}

// ------------------------------------------------------- RationalQuadratic

/// The rational quadratic kernel κ(x, y) = (1 + ‖x − y‖²/(2αℓ²))^(−α),
/// ℓ, α > 0 (GraphDot's parameterization), on any [`Point`].
///
/// Hyperparameters `scale` = ℓ and `alpha` = α (default bounds [1e-3, 1e3],
/// widened). Range [0, 1]. With u = 1 + ‖x − y‖²/(2αℓ²):
/// ℓ ∂κ/∂ℓ = κ ‖x − y‖²/(u ℓ²), α ∂κ/∂α = κ α ((u − 1)/u − ln u).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RationalQuadratic {
    scale: Param,
    alpha: Param,
    /// 1/(2αℓ²), cached.
    coef: f64,
    coef32: f32,
}

impl RationalQuadratic {
    /// κ = (1 + ‖x − y‖²/(2αℓ²))^(−α).
    ///
    /// # Panics
    /// Unless ℓ and α are finite and > 0 (use [`try_new`](Self::try_new) for user input).
    pub fn new(scale: f64, alpha: f64) -> Self {
        Self::try_new(scale, alpha).unwrap_or_else(|e| panic!("{e}"))
    }

    /// κ = (1 + ‖x − y‖²/(2αℓ²))^(−α).
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] unless ℓ and α are finite and > 0.
    pub fn try_new(scale: f64, alpha: f64) -> Result<Self, KernelError> {
        if !positive(scale) {
            return Err(invalid("rq", "scale", scale, "finite and > 0"));
        }
        if !positive(alpha) {
            return Err(invalid("rq", "alpha", alpha, "finite and > 0"));
        }
        let mut k = RationalQuadratic {
            scale: Param::widened(scale, 1e-3, 1e3),
            alpha: Param::widened(alpha, 1e-3, 1e3),
            coef: 0.0,
            coef32: 0.0,
        };
        k.cache();
        Ok(k)
    }

    fn cache(&mut self) {
        let (l, a) = (self.scale.value, self.alpha.value);
        self.coef = 0.5 / (a * l * l);
        self.coef32 = 0.5 / ((a as f32) * (l as f32) * (l as f32));
    }

    /// The same kernel with bounds for `scale` and `alpha`.
    ///
    /// # Errors
    /// As [`SquareExponential::with_bounds`].
    pub fn with_bounds(mut self, scale: Bounds, alpha: Bounds) -> Result<Self, KernelError> {
        self.scale.rebound("scale", scale, positive)?;
        self.alpha.rebound("alpha", alpha, positive)?;
        Ok(self)
    }

    /// The same kernel with both hyperparameters fixed.
    pub fn fixed(mut self) -> Self {
        self.scale.bounds = Bounds::Fixed;
        self.alpha.bounds = Bounds::Fixed;
        self
    }

    /// The length scale ℓ.
    pub fn scale(&self) -> f64 {
        self.scale.value
    }

    /// The shape α.
    pub fn alpha(&self) -> f64 {
        self.alpha.value
    }
}
builtin_ops!(impl[] RationalQuadratic);

impl<T: Point + ?Sized> BaseKernel<T> for RationalQuadratic {
    #[inline(always)]
    fn value(&self, a: &T, b: &T) -> f64 {
        (1.0 + a.sq_dist(b) * self.coef).powf(-self.alpha.value)
    }
    #[inline(always)]
    fn value_f32(&self, a: &T, b: &T) -> f32 {
        (1.0 + a.sq_dist_f32(b) * self.coef32).powf(-(self.alpha.value as f32))
    }
    fn range(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![self.scale.hyper("scale"), self.alpha.hyper("alpha")]
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        2
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, 2)?;
        self.scale.check("scale", theta[0], positive)?;
        self.alpha.check("alpha", theta[1], positive)?;
        self.scale.value = theta[0];
        self.alpha.value = theta[1];
        self.cache();
        Ok(())
    }
    #[inline]
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        let (l, al) = (self.scale.value, self.alpha.value);
        let d2 = a.sq_dist(b);
        let u = 1.0 + d2 * self.coef;
        let k = u.powf(-al);
        grad[0] = self.scale.grad(k * d2 / (u * l * l));
        grad[1] = self.alpha.grad(k * al * ((u - 1.0) / u - u.ln()));
        k
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let (sqd, _) = point_helpers(cg);
        let l = cg.param(self.scale.value);
        let al = cg.param(self.alpha.value);
        Ok(format!("pow({} + {sqd}({a}, {b}) / ({} * {al} * {l} * {l}), -{al})", cg.lit(1.0), cg.lit(2.0)))
    }
}

// ------------------------------------------------------- CompactPolynomial

/// A compactly supported, positive-definite radial polynomial: Wendland's
/// φ₃,₁ with support radius R > 0,
///
/// κ(x, y) = (1 − r)₊⁴ (4r + 1),  r = ‖x − y‖ / R,
///
/// which is C² and positive definite on ℝ^D for D ≤ 3 (Wendland 1995); so
/// [`Field`](crate::basekernel::Field) accepts scalar fields and arrays of length ≤ 3.
/// κ = 0 for ‖x − y‖ ≥ R, so Gram matrices are sparse for small R.
///
/// Hyperparameter `radius` = R (default bounds [1e-3, 1e3], widened).
/// Range [0, 1]. R ∂κ/∂R = 20 r² (1 − r)₊³.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompactPolynomial {
    radius: Param,
}

impl CompactPolynomial {
    /// Wendland φ₃,₁ with support radius R.
    ///
    /// # Panics
    /// Unless R is finite and > 0 (use [`try_new`](Self::try_new) for user input).
    pub fn new(radius: f64) -> Self {
        Self::try_new(radius).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Wendland φ₃,₁ with support radius R.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] unless R is finite and > 0.
    pub fn try_new(radius: f64) -> Result<Self, KernelError> {
        if !positive(radius) {
            return Err(invalid("wendland", "radius", radius, "finite and > 0"));
        }
        Ok(CompactPolynomial { radius: Param::widened(radius, 1e-3, 1e3) })
    }

    /// The support radius R.
    pub fn radius(&self) -> f64 {
        self.radius.value
    }
}
one_param_builders!(CompactPolynomial, radius, "radius", positive);
builtin_ops!(impl[] CompactPolynomial);

impl<T: Point + ?Sized> BaseKernel<T> for CompactPolynomial {
    #[inline(always)]
    fn value(&self, a: &T, b: &T) -> f64 {
        let r = a.sq_dist(b).sqrt() / self.radius.value;
        let t = (1.0 - r).max(0.0);
        let t2 = t * t;
        t2 * t2 * (4.0 * r + 1.0)
    }
    #[inline(always)]
    fn value_f32(&self, a: &T, b: &T) -> f32 {
        let r = a.sq_dist_f32(b).sqrt() / self.radius.value as f32;
        let t = (1.0 - r).max(0.0);
        let t2 = t * t;
        t2 * t2 * (4.0 * r + 1.0)
    }
    fn range(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![self.radius.hyper("radius")]
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        1
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, 1)?;
        self.radius.check("radius", theta[0], positive)?;
        self.radius.value = theta[0];
        Ok(())
    }
    #[inline]
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        let r = a.sq_dist(b).sqrt() / self.radius.value;
        let t = (1.0 - r).max(0.0);
        let t3 = t * t * t;
        grad[0] = self.radius.grad(20.0 * r * r * t3);
        t3 * t * (4.0 * r + 1.0)
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let (sqd, _) = point_helpers(cg);
        let s = real_suffix(cg);
        let r = cg.real;
        cg.helper(&format!(
            "#ifndef KG_WENDLAND31_{s}\n#define KG_WENDLAND31_{s}\n\
             __device__ inline {r} kg_wendland31_{s}({r} x) {{\n  {r} t = x < ({r})1 ? ({r})1 - x : ({r})0;\n  \
             {r} t2 = t * t;\n  return t2 * t2 * (({r})4 * x + ({r})1);\n}}\n#endif\n"
        ));
        if cg.is_dual() {
            let t = dual_name(r);
            cg.helper(&format!(
                "#ifndef KG_WENDLAND31_DUAL_{s}\n#define KG_WENDLAND31_DUAL_{s}\n\
                 template <int D> __device__ inline {t}<D> kg_wendland31_{s}(const {t}<D>& x) {{\n  \
                 {t}<D> t = x < ({r})1 ? ({r})1 - x : {t}<D>(({r})0);\n  \
                 {t}<D> t2 = t * t;\n  return t2 * t2 * (({r})4 * x + ({r})1);\n}}\n#endif\n"
            ));
        }
        let rad = cg.param(self.radius.value);
        Ok(format!("kg_wendland31_{s}(sqrt({sqd}({a}, {b})) / {rad})"))
    }
}
