//! The boundary between the marginalized graph kernel's API and its
//! backends: "solve this list of pairs with these outputs".
//!
//! The API ([`super::api`]) enumerates the pairs of a call, asks one
//! [`PairEngine`] for their values (and gradients or nodal similarities), and
//! assembles and normalizes the results, once for every backend. The CPU
//! ([`super::cpu::Cpu`]) and the CUDA backend ([`super::gpu::Gpu`]) implement
//! the trait; without the `cuda` feature the GPU engine is an uninhabited
//! type that still implements it, so the compiler keeps both in step.

use super::{MarginalizedGraphKernel, MgkError};
use crate::graph::Graph;

/// What a call needs of each pair besides its value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Want {
    /// The gradient with respect to the log of every active hyperparameter
    /// (one adjoint solve more per pair).
    pub gradient: bool,
    /// The nodal similarity `K_ii'`, in the graphs' own node order.
    pub nodal: bool,
}

/// What one pair gives.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PairOut {
    /// `K(G, G')`.
    pub value: f64,
    /// `∂K/∂ log θ_t` for the active hyperparameters, in the order of
    /// [`MarginalizedGraphKernel::hyperparameters`]; empty unless asked.
    pub grad: Vec<f64>,
    /// The `n × n'` nodal similarity, row-major; `None` unless asked.
    pub nodal: Option<Vec<f64>>,
    /// The size of the terms `value` is the difference of (`|p×ᵀ r|` and the
    /// length-one term), for telling rounding of 0 from a negative value;
    /// `None`: unknown, the largest value of the call is used.
    pub magnitude: Option<f64>,
}

/// A backend of the marginalized graph kernel.
pub(crate) trait PairEngine<N, E, KV, KE> {
    /// Solves pair `(a, b)` for each entry of `pairs`: graph `a` of `x` and
    /// graph `b` of `y` (of `x` when `y` is `None`), with `kernel`'s base
    /// kernels, start probabilities and [`MgkConfig`](super::MgkConfig).
    /// The outputs are in the order of `pairs`.
    ///
    /// # Errors
    /// [`MgkError`] naming the failing pair or parameter;
    /// [`MgkError::Cuda`] from the GPU.
    fn solve_pairs(
        &self,
        kernel: &MarginalizedGraphKernel<N, E, KV, KE>,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        pairs: &[(usize, usize)],
        want: Want,
    ) -> Result<Vec<PairOut>, MgkError>;
}
