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
//!   so that hyperparameter values are launch-time data, never literals.
//!
//! Kernels compose in Rust (`k1 * k2`, `k1 + k2`, `c * k`, …) into a concrete
//! type, so the CPU hot loop is monomorphized: no dynamic dispatch per matrix
//! element. Users write their own kernel by implementing [`BaseKernel`].

mod cuda;
mod hyper;

pub use self::cuda::CudaGen;
pub use self::hyper::{Bounds, Hyperparameter};

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
/// listed too (their gradient entries are zero).
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

    /// The hyperparameters, with paths relative to this kernel.
    fn hyperparameters(&self) -> Vec<Hyperparameter>;

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
    /// # Errors
    /// [`KernelError`] when a value lies outside its bounds or the length is wrong.
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError>;

    /// κ(a, b), and into `grad` (length
    /// [`num_hyperparameters`](Self::num_hyperparameters)) the derivatives
    /// ∂κ/∂(log θ_k) = θ_k ∂κ/∂θ_k.
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64;

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
    /// expressions for the two labels (of the label struct that `gen`
    /// describes) and hyperparameters are read from the parameter array
    /// (`gen.param(...)`), never inlined.
    ///
    /// # Errors
    /// [`KernelError::NoCudaForm`] for a kernel that has none.
    fn cuda(&self, a: &str, b: &str, gen: &mut CudaGen) -> Result<String, KernelError>;
}

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
    #[error("kernel {0} has no CUDA form")]
    NoCudaForm(String),
}
