//! Base kernels κ(a, b): similarities between two node or edge labels.
//!
//! A base kernel has
//! - a value κ(a, b) in f64 (and f32),
//! - a value range `(min, max)` over all labels, which the marginalized graph
//!   kernel checks (it needs `0 < κv ≤ 1` and `0 ≤ κe ≤ 1`),
//! - hyperparameters θ, each with a value and bounds (or fixed), addressed by
//!   a path such as `length.scale` (the graph kernel prefixes `node.`/`edge.`),
//! - an analytic gradient ∂κ/∂(log θ) for every hyperparameter,
//! - a CUDA C++ form: an expression over the two labels and a parameter array,
//!   so that hyperparameter values are launch-time data, never literals; the
//!   same expression evaluated in dual numbers gives the exact ∂κ/∂(log θ) on
//!   the GPU ([`cuda_gradient_function`], [`cuda_gradient_body`]).
//!
//! Kernels compose in Rust (`k1 * k2`, `k1 + k2`, `c * k`, …) into a concrete
//! type, so the CPU hot loop is monomorphized: no dynamic dispatch per matrix
//! element. Users write their own kernel once as an expression
//! ([`ExprKernel`], module [`expr`]: value, range, gradient, CUDA form and GPU
//! gradient from one formula), or implement [`BaseKernel`] (only
//! [`value`](BaseKernel::value) and [`range`](BaseKernel::range) are
//! required). Plain structs of numbers become labels with
//! [`label_struct!`](crate::label_struct).
//!
//! # The kernels
//!
//! | kernel | κ(x, y) | hyperparameters (default bounds) | range |
//! | --- | --- | --- | --- |
//! | [`Constant`] | c | `constant` ∈ [1e-3, 1e3] | (c, c) |
//! | [`KroneckerDelta`] | 1 if x = y else h | `h` ∈ [1e-3, 1] | (h, 1) |
//! | [`SquareExponential`] | exp(−‖x−y‖²/(2ℓ²)) | `scale` ∈ [1e-3, 1e3] | [0, 1] |
//! | [`RationalQuadratic`] | (1 + ‖x−y‖²/(2αℓ²))^(−α) | `scale`, `alpha` ∈ [1e-3, 1e3] | [0, 1] |
//! | [`Polynomial`] | (x·y + c)^d, integer d | `offset` ∈ [1e-3, 1e3] | see type |
//! | [`CompactPolynomial`] | Wendland φ₃,₁(‖x−y‖/R) | `radius` ∈ [1e-3, 1e3] | [0, 1] |
//! | [`Product`] `k1 * k2`, [`Sum`] `k1 + k2` | k1·k2, k1+k2 | the children's | interval arithmetic |
//! | [`Scaled`] `c * k` | c·k | `factor` ∈ [1e-3, 1e3] | c·range(k) |
//! | [`Power`] `k.pow(p)` ([`KernelExt`]) | k^p | `exponent` (fixed) | see type |
//! | [`Normalize`] | k(x,y)/√(k(x,x)k(y,y)) | the child's | ⊂ [−1, 1] |
//! | [`TensorProduct`], [`Additive`] | Π / Σ (or mean) over a tuple of kernels | the children's | interval arithmetic |
//! | [`RConvolution`] | Σ (or mean) over element pairs of two sets | the child's | see type |
//! | [`Field`], [`Project`] | κ on one field of a [`Record`](crate::graph::Record) / user struct | the child's, prefixed | the child's |
//! | [`ExprKernel`] | any formula over label fields ([`expr`]) | named in the formula | interval arithmetic |
//!
//! Default bounds are widened to contain the initial value (so
//! `KroneckerDelta::new(0.0)` has bounds `[0, 1]`); set others with
//! `with_bounds` or freeze a hyperparameter with `fixed()`.
//!
//! Scalar kernels work on every [`Scalar`] type (`u8` … `i64`, `f32`, `f64`),
//! on fixed arrays `[S; K]` and slices (Euclidean distance / dot product), and
//! on record [`Value`](crate::graph::Value)s through [`Field`]. The CUDA form
//! of a whole kernel on record labels is assembled by [`cuda_kappa_function`]
//! together with [`cuda_label_struct`]. Kernels can also be parsed from a
//! text SPEC ([`SpecKernel`], grammar in [`spec`]).

mod codegen;
mod combine;
mod cuda;
pub mod expr;
mod fastexp;
mod field;
mod hyper;
mod leaf;
mod lowrank;
mod point;
mod rconv;
mod rows;
pub mod spec;

pub(crate) use self::codegen::schema_identifiers;
pub use self::codegen::{
    c_identifier, cuda_gradient_body, cuda_gradient_function, cuda_kappa_function, cuda_label_struct, cuda_preamble,
    CudaFunction,
};
pub use self::combine::{
    additive, normalize, power, product, scale, sum, tensor_product, Additive, KernelTuple, Normalize, Power, Product,
    Scaled, Sum, TensorProduct,
};
pub use self::cuda::{cuda_dual_helper, CudaGen};
pub use self::expr::{Dual, Expr, ExprKernel, ExprLabel, LeafKernel};
pub use self::field::{Field, Project, ProjectFn, ValueKernel};
pub(crate) use self::hyper::{bounds_log, theta_from_log, theta_log};
pub use self::hyper::{Bounds, Hyperparameter};
pub use self::leaf::{CompactPolynomial, Constant, KroneckerDelta, Polynomial, RationalQuadratic, SquareExponential};
pub use self::lowrank::{LowRank, RankOne, MAX_RANK as MAX_LOW_RANK};
pub use self::point::{Point, Scalar};
pub use self::rconv::{RConvolution, Reduction};
pub use self::spec::{ElementKernel, SpecError, SpecKernel};

use crate::graph::Schema;
use std::fmt::Debug;

/// A base kernel on labels of type `T`.
///
/// Implementations must satisfy `value(a, b) == value(b, a)` and, for the
/// graph kernels, be positive semi-definite.
///
/// # Hyperparameter order
/// [`hyperparameters`](Self::hyperparameters), [`theta`](Self::theta),
/// [`set_theta`](Self::set_theta), [`gradient`](Self::gradient) and
/// [`cuda`](Self::cuda) all list the hyperparameters in one order: the
/// kernel's own, then its children's, depth first. Fixed hyperparameters are
/// listed too (their gradient entries are zero). Paths are unique: combinators
/// prefix their parts' paths with the part's position (`0.h`, `1.h`) where
/// two parts would share one.
pub trait BaseKernel<T: ?Sized>: Clone + Debug + Send + Sync {
    /// κ(a, b) in f64.
    fn value(&self, a: &T, b: &T) -> f64;

    /// κ(a, b) in f32. The default rounds the f64 value.
    #[inline]
    fn value_f32(&self, a: &T, b: &T) -> f32 {
        self.value(a, b) as f32
    }

    /// The closed interval `(min, max)` that holds every value κ can take.
    fn range(&self) -> (f64, f64);

    /// The table `out[i·|b| + j] = κ(a_i, b_j)` of every pair of labels
    /// (`out` resized to `|a|·|b|`, its capacity reused): what the
    /// marginalized graph kernel computes once per pair of graphs. The
    /// default calls [`value`](Self::value) `|a|·|b|` times; kernels
    /// override it to evaluate whole tables at once (the combinators table
    /// their children, [`Field`] reads each record's field once,
    /// [`SquareExponential`] runs a vectorized `exp`). Values agree with
    /// [`value`](Self::value) to a few ulps.
    fn table(&self, a: &[&T], b: &[&T], out: &mut Vec<f64>) {
        out.clear();
        out.reserve(a.len() * b.len());
        for x in a {
            out.extend(b.iter().map(|y| self.value(x, y)));
        }
    }

    /// The rows of [`table`](Self::table), one at a time and in order:
    /// `row(i, κ(a_i, b_·))` (`|b|` values each, the same values as the
    /// table's); `buf` is work memory (capacity reused). The default tables
    /// into `buf` and hands out its rows; kernels evaluated row by row
    /// (SPEC and expression kernels) hand out each row as it is computed,
    /// so that a caller that transforms the rows (the MGK's slot table)
    /// never writes or reads the `|a|·|b|` table.
    fn for_each_row(&self, a: &[&T], b: &[&T], buf: &mut Vec<f64>, row: &mut dyn FnMut(usize, &[f64])) {
        self.table(a, b, buf);
        each_row(a.len(), b.len(), buf, row);
    }

    /// An exact low-rank form `κ(a_i, b_j) = Σ_r u_r[i]·v_r[j]` of the
    /// table over `a × b` ([`LowRank`]), when κ has one; `None` (the
    /// default) otherwise. [`Constant`] has rank 1, [`KroneckerDelta`]
    /// `h + (1 − h)[x = y]` rank 1 + (classes present in both lists);
    /// products, sums and scalings combine their parts' forms (`None` if a
    /// part has none), [`Field`] and [`Project`] forward to their kernel.
    /// The marginalized graph kernel's CPU backend uses it to apply the
    /// Kronecker product in factorized form where that is cheaper.
    fn low_rank(&self, _a: &[&T], _b: &[&T]) -> Option<LowRank> {
        None
    }

    /// The hyperparameters, with paths relative to this kernel. The default
    /// is none.
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        Vec::new()
    }

    /// Number of hyperparameters (fixed ones included).
    fn num_hyperparameters(&self) -> usize {
        self.hyperparameters().len()
    }

    /// Current hyperparameter values θ, in order.
    fn theta(&self) -> Vec<f64> {
        self.hyperparameters().iter().map(|h| h.value).collect()
    }

    /// Sets the hyperparameters from `theta` (which has
    /// [`num_hyperparameters`](Self::num_hyperparameters) entries).
    ///
    /// The default accepts only an empty `theta` (a kernel without
    /// hyperparameters); a kernel with some implements it.
    ///
    /// # Errors
    /// [`KernelError`] when a value lies outside its bounds or the length is wrong.
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        check_len(theta, self.num_hyperparameters())?;
        if theta.is_empty() {
            return Ok(());
        }
        Err(KernelError::InvalidParameter(format!(
            "kernel {} lists hyperparameters but does not implement BaseKernel::set_theta",
            std::any::type_name::<Self>()
        )))
    }

    /// κ(a, b), and into `grad` (length
    /// [`num_hyperparameters`](Self::num_hyperparameters)) the derivatives
    /// ∂κ/∂(log θ_k) = θ_k ∂κ/∂θ_k (0 for fixed hyperparameters).
    ///
    /// The default approximates them by central differences in log θ_k
    /// (step 10⁻⁵, one-sided at a bound; relative error about 10⁻¹⁰, two
    /// [`value`](Self::value)s and two clones per hyperparameter). Kernels
    /// written as an [`ExprKernel`] get exact gradients by dual numbers, the
    /// built-in ones analytic ones.
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        let v = self.value(a, b);
        let hs = self.hyperparameters();
        let theta: Vec<f64> = hs.iter().map(|h| h.value).collect();
        let at = |k: usize, s: f64| -> Option<f64> {
            let mut t = theta.clone();
            t[k] *= s.exp();
            let mut kk = self.clone();
            kk.set_theta(&t).ok()?;
            Some(kk.value(a, b))
        };
        const H: f64 = 1e-5;
        for (k, g) in grad.iter_mut().enumerate() {
            *g = match hs.get(k) {
                Some(h) if h.is_active() => match (at(k, H), at(k, -H)) {
                    (Some(p), Some(m)) => (p - m) / (2.0 * H),
                    (Some(p), None) => (p - v) / H,
                    (None, Some(m)) => (v - m) / H,
                    (None, None) => 0.0,
                },
                _ => 0.0,
            };
        }
        v
    }

    /// Binds field names to positions of a record [`Schema`] and checks the
    /// field kinds; called once before use on record labels. The default
    /// does nothing.
    ///
    /// # Errors
    /// [`KernelError::Label`] for a missing field or a field of the wrong kind.
    fn bind(&mut self, _schema: &Schema) -> Result<(), KernelError> {
        Ok(())
    }

    /// The CUDA C++ expression of κ(a, b), where `a` and `b` are C
    /// expressions for the two labels (of the label struct that `cg`
    /// describes) and hyperparameters are read from the parameter array
    /// (`cg.param(...)`), never inlined.
    ///
    /// The same expression gives the CUDA gradient: [`cuda_gradient_body`]
    /// evaluates it with `cg` in dual mode ([`CudaGen::new_dual`]), where the
    /// parameter array holds dual numbers. Arithmetic, comparisons, `exp`,
    /// `log`, `sqrt`, `fabs` and `pow` work on them as written (a cast of a
    /// hyperparameter to `real` does not: write `(real)2 * theta[k]`, not
    /// `(real)theta[k]`); a helper
    /// function of your own that takes a hyperparameter-dependent argument
    /// needs an overload for the dual type when [`CudaGen::is_dual`] (see
    /// [`cuda_dual_helper`]), and the slots reserved must be
    /// [`hyperparameters`](Self::hyperparameters), in order.
    ///
    /// The default has none: a CPU-only kernel needs no CUDA form
    /// (`Backend::Auto` then computes on the CPU; an explicit CUDA backend
    /// reports [`KernelError::NoCudaForm`] naming the kernel type). An
    /// [`ExprKernel`] has one.
    ///
    /// # Errors
    /// [`KernelError::NoCudaForm`] for a kernel that has none.
    fn cuda(&self, _a: &str, _b: &str, _gen: &mut CudaGen) -> Result<String, KernelError> {
        Err(KernelError::NoCudaForm(std::any::type_name::<Self>().to_string()))
    }

    /// The hyperparameter at path `name`, if any.
    fn hyperparameter(&self, name: &str) -> Option<Hyperparameter> {
        self.hyperparameters().into_iter().find(|h| h.name == name)
    }

    /// The trained (non-fixed) hyperparameters, in the order of
    /// [`theta_log`](Self::theta_log) and [`gradient_log`](Self::gradient_log).
    fn active_hyperparameters(&self) -> Vec<Hyperparameter> {
        self.hyperparameters().into_iter().filter(Hyperparameter::is_active).collect()
    }

    /// θ as scikit-learn has it (the convention of the graph kernels'
    /// `theta_log`): the logarithms of the trained hyperparameters.
    fn theta_log(&self) -> Vec<f64> {
        theta_log(&self.hyperparameters())
    }

    /// The bounds of [`theta_log`](Self::theta_log) in log space (a lower
    /// bound 0 gives −∞).
    fn bounds_log(&self) -> Vec<(f64, f64)> {
        bounds_log(&self.hyperparameters())
    }

    /// Sets the trained hyperparameters from their logarithms (the order of
    /// [`theta_log`](Self::theta_log)); fixed ones keep their values.
    ///
    /// # Errors
    /// [`KernelError::ThetaLength`] for a wrong length; otherwise as
    /// [`set_theta`](Self::set_theta) (the kernel is then unchanged).
    fn set_theta_log(&mut self, theta_log: &[f64]) -> Result<(), KernelError> {
        let theta = theta_from_log(&self.hyperparameters(), theta_log)?;
        self.set_theta(&theta)
    }

    /// κ(a, b), and into `grad` (length: the number of trained
    /// hyperparameters) ∂κ/∂θ in the θ of [`theta_log`](Self::theta_log).
    fn gradient_log(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        let hs = self.hyperparameters();
        let mut full = vec![0.0; hs.len()];
        let v = self.gradient(a, b, &mut full);
        let active = full.iter().zip(&hs).filter(|(_, h)| h.is_active());
        for (g, (x, _)) in grad.iter_mut().zip(active) {
            *g = *x;
        }
        v
    }

    /// Sets the hyperparameter at path `name` (as listed by
    /// [`hyperparameters`](Self::hyperparameters); the first one if a path
    /// repeats) to `value`.
    ///
    /// # Errors
    /// [`KernelError::UnknownHyperparameter`] for an unknown path (naming the
    /// known ones), [`KernelError::OutOfBounds`] for a value outside its bounds.
    fn set_hyperparameter(&mut self, name: &str, value: f64) -> Result<(), KernelError> {
        let hs = self.hyperparameters();
        let Some(i) = hs.iter().position(|h| h.name == name) else {
            return Err(KernelError::UnknownHyperparameter {
                name: name.to_string(),
                available: hs.iter().map(|h| h.name.as_str()).collect::<Vec<_>>().join(", "),
            });
        };
        let mut theta: Vec<f64> = hs.iter().map(|h| h.value).collect();
        theta[i] = value;
        self.set_theta(&theta)
    }
}

/// Boxed kernels forward to the kernel inside (used by recursive kernel
/// trees such as [`SpecKernel`]).
impl<T: ?Sized, K: BaseKernel<T>> BaseKernel<T> for Box<K> {
    #[inline]
    fn value(&self, a: &T, b: &T) -> f64 {
        (**self).value(a, b)
    }
    #[inline]
    fn value_f32(&self, a: &T, b: &T) -> f32 {
        (**self).value_f32(a, b)
    }
    fn range(&self) -> (f64, f64) {
        (**self).range()
    }
    fn table(&self, a: &[&T], b: &[&T], out: &mut Vec<f64>) {
        (**self).table(a, b, out)
    }
    fn for_each_row(&self, a: &[&T], b: &[&T], buf: &mut Vec<f64>, row: &mut dyn FnMut(usize, &[f64])) {
        (**self).for_each_row(a, b, buf, row)
    }
    fn low_rank(&self, a: &[&T], b: &[&T]) -> Option<LowRank> {
        (**self).low_rank(a, b)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        (**self).hyperparameters()
    }
    fn num_hyperparameters(&self) -> usize {
        (**self).num_hyperparameters()
    }
    fn theta(&self) -> Vec<f64> {
        (**self).theta()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        (**self).set_theta(theta)
    }
    #[inline]
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        (**self).gradient(a, b, grad)
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        (**self).bind(schema)
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        (**self).cuda(a, b, cg)
    }
}

/// Marker for kernel types that take part in the `*` and `+` operators
/// (`k1 * k2` → [`Product`], `k1 + k2` → [`Sum`], `c * k` / `k * c` →
/// [`Scaled`], `k + c` / `c + k` → a [`Sum`] with a [`Constant`]).
///
/// Every built-in kernel implements it. For a kernel of your own, use
/// [`kernel_ops!`](crate::kernel_ops): it implements this marker (so that
/// `builtin * mine` works) and gives your type `mine * k`, `mine + k`,
/// `c * mine` and `c + mine`. (`mine * c` with an `f64` on the right is
/// reserved to built-ins by Rust's coherence rules; write `c * mine`.)
/// The named constructors [`product`], [`sum`], [`scale`], [`power`] and
/// [`normalize`] work for any kernel.
pub trait KernelOps {}

/// Method forms of the unary combinators, for every kernel with [`KernelOps`]:
/// `k.pow(2.0)`, `k.normalized()`, `k.on_field("charge")`.
pub trait KernelExt: KernelOps + Sized {
    /// κ^p ([`power`]; panics unless p is finite and > 0).
    fn pow(self, p: f64) -> Power<Self> {
        power(self, p)
    }
    /// κ(x,y)/√(κ(x,x)κ(y,y)) ([`normalize`]).
    fn normalized(self) -> Normalize<Self> {
        normalize(self)
    }
    /// This kernel on the record field `name` ([`Field::new`]).
    fn on_field(self, name: &str) -> Field<Self> {
        Field::new(name, self)
    }
}

impl<K: KernelOps> KernelExt for K {}

/// Implements [`KernelOps`](crate::basekernel::KernelOps) and the operators
/// `*` and `+` for a kernel type: `k * other`, `k + other`, `c * k` and
/// `c + k` with `c: f64`. Generic parameters go in the brackets, each
/// followed by a comma: `kernel_ops!(impl[A, B,] Pair<A, B>)`.
///
/// ```
/// use kronograph::basekernel::*;
/// #[derive(Clone, Debug)]
/// struct Mine;
/// kronograph::kernel_ops!(impl[] Mine);
/// let _k = Mine * KroneckerDelta::new(0.5);
/// let _k2 = 2.0 * Mine + KroneckerDelta::new(0.5);
/// let _k3 = 1.0 + Mine;
/// ```
#[macro_export]
macro_rules! kernel_ops {
    (impl[$($g:tt)*] $t:ty) => {
        impl<$($g)*> $crate::basekernel::KernelOps for $t {}
        impl<$($g)* __R: $crate::basekernel::KernelOps> ::std::ops::Mul<__R> for $t {
            type Output = $crate::basekernel::Product<Self, __R>;
            #[inline]
            fn mul(self, rhs: __R) -> Self::Output {
                $crate::basekernel::product(self, rhs)
            }
        }
        impl<$($g)* __R: $crate::basekernel::KernelOps> ::std::ops::Add<__R> for $t {
            type Output = $crate::basekernel::Sum<Self, __R>;
            #[inline]
            fn add(self, rhs: __R) -> Self::Output {
                $crate::basekernel::sum(self, rhs)
            }
        }
        impl<$($g)*> ::std::ops::Mul<$t> for f64 {
            type Output = $crate::basekernel::Scaled<$t>;
            /// `c * k`: [`scale`]($crate::basekernel::scale)
            /// (panics unless `c` is finite and > 0).
            #[inline]
            fn mul(self, k: $t) -> Self::Output {
                $crate::basekernel::scale(self, k)
            }
        }
        impl<$($g)*> ::std::ops::Add<$t> for f64 {
            type Output = $crate::basekernel::Sum<$crate::basekernel::Constant, $t>;
            /// `c + k`: adds the [`Constant`]($crate::basekernel::Constant) kernel `c`
            /// (panics unless `c` is finite and > 0).
            #[inline]
            fn add(self, k: $t) -> Self::Output {
                $crate::basekernel::sum($crate::basekernel::Constant::new(self), k)
            }
        }
    };
}

/// [`kernel_ops!`] plus `k * c` and `k + c` with `c: f64` on the right
/// (possible for the crate's own types only).
macro_rules! builtin_ops {
    (impl[$($g:tt)*] $t:ty) => {
        $crate::kernel_ops!(impl[$($g)*] $t);
        impl<$($g)*> ::std::ops::Mul<f64> for $t {
            type Output = $crate::basekernel::Scaled<Self>;
            /// `k * c`: [`scale`]($crate::basekernel::scale) (panics unless `c` is finite and > 0).
            #[inline]
            fn mul(self, c: f64) -> Self::Output {
                $crate::basekernel::scale(c, self)
            }
        }
        impl<$($g)*> ::std::ops::Add<f64> for $t {
            type Output = $crate::basekernel::Sum<Self, $crate::basekernel::Constant>;
            /// `k + c`: adds the [`Constant`]($crate::basekernel::Constant) kernel `c`
            /// (panics unless `c` is finite and > 0).
            #[inline]
            fn add(self, c: f64) -> Self::Output {
                $crate::basekernel::sum(self, $crate::basekernel::Constant::new(c))
            }
        }
    };
}
pub(crate) use builtin_ops;

/// Errors in building, binding or evaluating base kernels.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum KernelError {
    /// A hyperparameter value outside its bounds.
    #[error("hyperparameter {name} = {value} is outside its bounds {bounds}")]
    OutOfBounds {
        /// Path of the hyperparameter.
        name: String,
        /// The value given.
        value: f64,
        /// Its bounds.
        bounds: Bounds,
    },
    /// An invalid construction parameter.
    #[error("invalid kernel parameter: {0}")]
    InvalidParameter(String),
    /// The wrong number of hyperparameter values.
    #[error("expected {expected} hyperparameter values, got {found}")]
    ThetaLength {
        /// Number expected.
        expected: usize,
        /// Number given.
        found: usize,
    },
    /// A label field problem found while binding.
    #[error(transparent)]
    Label(#[from] crate::graph::LabelError),
    /// A kernel without a CUDA form.
    #[error(
        "kernel {0} has no CUDA form: compute on the CPU (Backend::Cpu or Auto), or write the kernel as an \
         ExprKernel (basekernel::expr), which has one"
    )]
    NoCudaForm(String),
    /// A hyperparameter path that the kernel does not have.
    #[error("no hyperparameter {name:?}; the kernel has {available}")]
    UnknownHyperparameter {
        /// The path asked for.
        name: String,
        /// The kernel's hyperparameter paths, comma-separated.
        available: String,
    },
    /// A kernel SPEC that does not parse.
    #[error(transparent)]
    Spec(#[from] SpecError),
}

/// Hands out the `na` rows of `nb` values of `table` in order (empty rows
/// when `nb = 0`).
pub(crate) fn each_row(na: usize, nb: usize, table: &[f64], row: &mut dyn FnMut(usize, &[f64])) {
    for i in 0..na {
        row(i, &table[i * nb..(i + 1) * nb]);
    }
}

/// Checks that `theta` has `expected` entries.
#[inline]
pub(crate) fn check_len(theta: &[f64], expected: usize) -> Result<(), KernelError> {
    if theta.len() != expected {
        return Err(KernelError::ThetaLength { expected, found: theta.len() });
    }
    Ok(())
}
