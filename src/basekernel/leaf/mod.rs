//! The leaf kernels, by family: [`Constant`] and [`KroneckerDelta`] on any
//! label (`discrete`); the radial kernels [`SquareExponential`],
//! [`RationalQuadratic`] and [`CompactPolynomial`] on any
//! [`Point`](super::Point) (`radial`); and the dot-product kernel
//! [`Polynomial`] (`polynomial`).

use super::KernelError;

fn invalid(kernel: &str, name: &str, v: f64, domain: &str) -> KernelError {
    KernelError::InvalidParameter(format!("{kernel}: {name} = {v} must be {domain}"))
}

/// Builder methods shared by the one-hyperparameter leaf kernels.
macro_rules! one_param_builders {
    ($t:ident, $field:ident, $hname:literal, $valid:ident) => {
        impl $t {
            /// The same kernel with bounds `bounds` for its hyperparameter.
            ///
            /// # Errors
            /// [`KernelError::InvalidParameter`] for an empty interval or one outside
            /// the domain, [`KernelError::OutOfBounds`] when the current value lies outside.
            pub fn with_bounds(mut self, bounds: Bounds) -> Result<Self, KernelError> {
                self.$field.rebound($hname, bounds, $valid)?;
                Ok(self)
            }

            /// The same kernel with its hyperparameter fixed (not trained).
            pub fn fixed(mut self) -> Self {
                self.$field.bounds = Bounds::Fixed;
                self
            }
        }
    };
}

mod discrete;
mod polynomial;
mod radial;

pub use self::discrete::{Constant, KroneckerDelta};
pub use self::polynomial::Polynomial;
pub use self::radial::{CompactPolynomial, RationalQuadratic, SquareExponential};
