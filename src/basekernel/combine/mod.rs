//! Combinators: [`Product`], [`Sum`], [`Scaled`], [`Power`], [`Normalize`],
//! and the field-wise [`TensorProduct`] and [`Additive`] over tuples.
//!
//! One file per concern: `binary` (κ₁ · κ₂, κ₁ + κ₂), `scaled` (c · κ, κ^p:
//! one own hyperparameter before the child's), `normalize`, and `tuple`
//! (the [`KernelTuple`] of up to 8 kernels and its [`TensorProduct`] and
//! [`Additive`]). The interval arithmetic and the atomic `set_theta` they
//! share live here, with `child_hyperparameters!`, the hyperparameter
//! methods of the combinators that only forward them.

/// The hyperparameter methods of a combinator whose hyperparameters are
/// exactly its child's, `self.$child`: listed, counted and set by the child
/// (`bind` stays with each combinator: not all of them forward it).
macro_rules! child_hyperparameters {
    ($child:ident) => {
        fn hyperparameters(&self) -> Vec<$crate::basekernel::Hyperparameter> {
            self.$child.hyperparameters()
        }
        #[inline]
        fn num_hyperparameters(&self) -> usize {
            self.$child.num_hyperparameters()
        }
        fn set_theta(&mut self, theta: &[f64]) -> Result<(), $crate::basekernel::KernelError> {
            self.$child.set_theta(theta)
        }
    };
}
pub(crate) use child_hyperparameters;

mod binary;
mod normalize;
mod scaled;
mod tuple;

pub use self::binary::{product, sum, Product, Sum};
pub(crate) use self::normalize::cuda_normalize;
pub use self::normalize::{normalize, Normalize};
pub use self::scaled::{power, scale, Power, Scaled};
pub use self::tuple::{additive, tensor_product, Additive, KernelTuple, TensorProduct};

use super::KernelError;

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

/// Sets `theta` on a clone of `k` by `set`, and keeps it only if every part succeeded.
pub(super) fn set_all<K: Clone>(
    k: &mut K,
    set: impl FnOnce(&mut K) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let mut new = k.clone();
    set(&mut new)?;
    *k = new;
    Ok(())
}
