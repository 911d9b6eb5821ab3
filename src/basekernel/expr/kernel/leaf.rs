//! Built-in kernels as leaves of an expression: how SPEC kernels
//! (`delta(label, 0.5)`, `rconv(atoms, …)`) and the expression patterns that
//! are exactly a built-in kernel run at the built-in kernel's speed.

use super::ExprKernel;
use crate::basekernel::{
    BaseKernel, CompactPolynomial, Constant, CudaGen, Hyperparameter, KernelError, KroneckerDelta, LowRank, Polynomial,
    RConvolution, RationalQuadratic, SquareExponential, ValueKernel,
};
use crate::graph::{FieldKind, Value};

/// A built-in kernel used as a leaf of an [`Expr`](crate::basekernel::expr::Expr) (see
/// [`kernel_on`](crate::basekernel::expr::kernel_on)): its hyperparameters become the
/// expression's (with their paths), its value, gradient and CUDA form are the
/// built-in kernel's.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum LeafKernel {
    /// [`Constant`].
    Constant(Constant),
    /// [`KroneckerDelta`].
    Delta(KroneckerDelta),
    /// [`SquareExponential`].
    SqExp(SquareExponential),
    /// [`RationalQuadratic`].
    Rq(RationalQuadratic),
    /// [`Polynomial`].
    Poly(Polynomial),
    /// [`CompactPolynomial`].
    Wendland(CompactPolynomial),
    /// [`RConvolution`] over an expression kernel on set elements (set fields only).
    RConv(RConvolution<ExprKernel>),
}

macro_rules! leaf_from {
    ($($v:ident($t:ty)),*) => {$(
        impl From<$t> for LeafKernel {
            fn from(k: $t) -> Self {
                LeafKernel::$v(k)
            }
        }
    )*};
}
leaf_from!(
    Constant(Constant),
    Delta(KroneckerDelta),
    SqExp(SquareExponential),
    Rq(RationalQuadratic),
    Poly(Polynomial),
    Wendland(CompactPolynomial),
    RConv(RConvolution<ExprKernel>)
);

/// `$e` with `$k` bound to the point kernel of every variant but `RConv`,
/// which gives `$r`.
macro_rules! on_point {
    ($s:expr, $k:ident => $e:expr, $rk:pat => $r:expr) => {
        match $s {
            LeafKernel::Constant($k) => $e,
            LeafKernel::Delta($k) => $e,
            LeafKernel::SqExp($k) => $e,
            LeafKernel::Rq($k) => $e,
            LeafKernel::Poly($k) => $e,
            LeafKernel::Wendland($k) => $e,
            LeafKernel::RConv($rk) => $r,
        }
    };
}

impl LeafKernel {
    /// The SPEC name of the kernel (`delta`, `sqexp`, …).
    pub fn name(&self) -> &'static str {
        match self {
            LeafKernel::Constant(_) => "constant",
            LeafKernel::Delta(_) => "delta",
            LeafKernel::SqExp(_) => "sqexp",
            LeafKernel::Rq(_) => "rq",
            LeafKernel::Poly(_) => "poly",
            LeafKernel::Wendland(_) => "wendland",
            LeafKernel::RConv(_) => "rconv",
        }
    }

    /// κ on two numbers (NaN for `RConv`, which compares sets).
    #[inline(always)]
    pub(crate) fn num(&self, a: f64, b: f64) -> f64 {
        on_point!(self, k => BaseKernel::<f64>::value(k, &a, &b), _ => f64::NAN)
    }

    /// κ on two record values.
    #[inline(always)]
    pub(crate) fn val(&self, a: &Value, b: &Value) -> f64 {
        on_point!(self, k => BaseKernel::<Value>::value(k, a, b), k => BaseKernel::<Value>::value(k, a, b))
    }

    /// κ and ∂κ/∂(log θ) on two numbers.
    pub(crate) fn grad_num(&self, a: f64, b: f64, g: &mut [f64]) -> f64 {
        on_point!(self, k => BaseKernel::<f64>::gradient(k, &a, &b, g), _ => f64::NAN)
    }

    /// κ and ∂κ/∂(log θ) on two record values.
    pub(crate) fn grad_val(&self, a: &Value, b: &Value, g: &mut [f64]) -> f64 {
        on_point!(self, k => BaseKernel::<Value>::gradient(k, a, b, g),
            k => BaseKernel::<Value>::gradient(k, a, b, g))
    }

    /// The table of κ on two lists of numbers.
    pub(crate) fn table_num(&self, a: &[&f64], b: &[&f64], out: &mut Vec<f64>) {
        on_point!(self, k => BaseKernel::<f64>::table(k, a, b, out), _ => {
            out.clear();
            out.resize(a.len() * b.len(), f64::NAN);
        })
    }

    /// The table of κ on two lists of record values.
    pub(crate) fn table_val(&self, a: &[&Value], b: &[&Value], out: &mut Vec<f64>) {
        on_point!(self, k => BaseKernel::<Value>::table(k, a, b, out), k => BaseKernel::<Value>::table(k, a, b, out))
    }

    /// An exact low-rank form of κ on two lists of numbers, if it has one.
    pub(crate) fn low_rank_num(&self, a: &[&f64], b: &[&f64]) -> Option<LowRank> {
        on_point!(self, k => BaseKernel::<f64>::low_rank(k, a, b), _ => None)
    }

    /// An exact low-rank form of κ on two lists of record values, if it has one.
    pub(crate) fn low_rank_val(&self, a: &[&Value], b: &[&Value]) -> Option<LowRank> {
        on_point!(self, k => BaseKernel::<Value>::low_rank(k, a, b), k => BaseKernel::<Value>::low_rank(k, a, b))
    }

    /// The kernel's range.
    pub(crate) fn range(&self) -> (f64, f64) {
        on_point!(self, k => BaseKernel::<Value>::range(k), k => BaseKernel::<Value>::range(k))
    }

    /// The kernel's hyperparameters, paths relative to it.
    pub(crate) fn hyperparameters(&self) -> Vec<Hyperparameter> {
        on_point!(self, k => BaseKernel::<Value>::hyperparameters(k), k => BaseKernel::<Value>::hyperparameters(k))
    }

    /// Sets the kernel's hyperparameters.
    pub(crate) fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        on_point!(self, k => BaseKernel::<Value>::set_theta(k, theta), k => BaseKernel::<Value>::set_theta(k, theta))
    }

    /// Whether the kernel compares record values of kind `kind` (else what it accepts).
    pub(crate) fn accepts(&self, kind: FieldKind) -> Result<(), String> {
        on_point!(self, k => k.accepts(kind), k => k.accepts(kind))
    }

    /// The CUDA form on two record values (members of the label struct).
    pub(crate) fn cuda_val(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        on_point!(self, k => BaseKernel::<Value>::cuda(k, a, b, cg), k => BaseKernel::<Value>::cuda(k, a, b, cg))
    }

    /// The CUDA form on two numbers.
    pub(crate) fn cuda_num(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        on_point!(self, k => BaseKernel::<f64>::cuda(k, a, b, cg), _ => Err(KernelError::InvalidParameter(
            "rconv compares sets: it needs a set field of a record label".into()
        )))
    }
}
