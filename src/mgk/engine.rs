//! The boundary between the marginalized graph kernel's API and its
//! backends: "solve this list of pairs with these outputs".
//!
//! The API ([`super::api`]) enumerates the pairs of a call, asks one
//! [`PairEngine`] for their values (and gradients or nodal similarities), and
//! assembles and normalizes the results, once for every backend. The CPU
//! ([`super::cpu::Cpu`]) and the CUDA backend ([`super::gpu::Gpu`]) implement
//! the trait; without the `cuda` feature the GPU engine is an uninhabited
//! type that still implements it, so the compiler keeps both in step.

use super::system::{pair_diagonal, start_product};
use super::{MarginalizedGraphKernel, MgkError};
use crate::basekernel::BaseKernel;
use crate::graph::{Graph, Label};
use crate::kron::{Factor, Factored, LabelKernel, LabelPower, Part};

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

/// The marginalized graph kernel's system as a user's
/// [`PairSystem`](crate::kron::PairSystem): the same kernel through the
/// generic pair-system path ([`crate::kron::solve_pairs`], batched on the
/// CPU and the GPU), with
///
/// ```text
/// d = s (D ⊗ D') V×⁻¹,   b = s (D ⊗ D') 1,   o = p ⊗ p',   c = 1
/// ```
///
/// for the kernel's [`KronSystem`](super::KronSystem) (`s`, the degree
/// rule; the random-walk kernel's `KronSystem::random_walk(λ)` with
/// unlabeled kernels gives `d = b = 1/λ`, `o = 1`: the geometric random
/// walk), node kernel (floored as every backend floors it) and start
/// probabilities. `oᵀx` is then `K(G, G')` of
/// [`MarginalizedGraphKernel::gram`] (unnormalized, `lmin = 0`), which the
/// tests check to 1e-12 on both backends. Invalid node-kernel values or
/// start probabilities become NaN entries, which
/// [`solve_pairs`](crate::kron::solve_pairs) reports as
/// [`PairSystemError::NotFinite`](crate::kron::PairSystemError::NotFinite).
/// The gradient with respect to the kernel's hyperparameters is not
/// expressed (the edge kernel's enter `K` itself, not `d`, `b` or `o`):
/// use the kernel's own `gram_with_gradient`.
pub struct MgkPairSystem<'a, N, E, KV, KE> {
    kernel: &'a MarginalizedGraphKernel<N, E, KV, KE>,
}

impl<'a, N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>> MgkPairSystem<'a, N, E, KV, KE> {
    /// The system of `kernel`.
    ///
    /// # Errors
    /// [`MgkError::InvalidLmin`] for `lmin = 1` (its length-one term is a
    /// constant outside `oᵀx`).
    pub fn new(kernel: &'a MarginalizedGraphKernel<N, E, KV, KE>) -> Result<Self, MgkError> {
        if kernel.lmin() != 0 {
            return Err(MgkError::InvalidLmin(kernel.lmin()));
        }
        Ok(MgkPairSystem { kernel })
    }
}

impl<N: Label, E: Label, KV: BaseKernel<N> + 'static, KE: BaseKernel<E>> crate::kron::PairSystem<N, E>
    for MgkPairSystem<'_, N, E, KV, KE>
where
    MarginalizedGraphKernel<N, E, KV, KE>: Sync,
{
    type EdgeKernel = KE;

    fn edge_kernel(&self) -> &KE {
        self.kernel.edge_kernel()
    }

    fn coupling(&self) -> f64 {
        1.0
    }

    fn diagonal(&self, g: &Graph<N, E>, h: &Graph<N, E>, d: &mut [f64]) {
        let sys = self.kernel.config().system();
        let (da, db) = (sys.node_degrees(g), sys.node_degrees(h));
        let (mut dx, mut diag) = (Vec::new(), Vec::new());
        let r = pair_diagonal::<f64, N, KV>(
            &da,
            &db,
            g.node_labels(),
            h.node_labels(),
            self.kernel.node_kernel(),
            sys.scale,
            &mut dx,
            &mut diag,
        );
        match r {
            Ok(()) => d.copy_from_slice(&diag),
            Err(_) => d.fill(f64::NAN),
        }
    }

    fn rhs(&self, g: &Graph<N, E>, h: &Graph<N, E>, b: &mut [f64]) {
        let sys = self.kernel.config().system();
        let (da, db) = (sys.node_degrees(g), sys.node_degrees(h));
        for (row, &a) in b.chunks_exact_mut(db.len().max(1)).zip(&da) {
            row.iter_mut().zip(&db).for_each(|(v, &d2)| *v = sys.scale * a * d2);
        }
    }

    /// `d = s (D ⊗ D') V×⁻¹`, `b = s (D ⊗ D') 1`, `o = p ⊗ p'`: the solvers
    /// generate them per pair (on a device inside the batched kernel, as the
    /// engine does); the dense methods give the same values.
    fn factored(&self) -> Option<Factored<N>> {
        let s = self.kernel.config().system().scale;
        Some(Factored {
            diagonal: Factor::new(s).with_label(LabelPower::Divide),
            rhs: Factor::new(s),
            output: Factor::new(1.0),
            label_kernel: Some(LabelKernel::new(self.kernel.node_kernel().clone())),
        })
    }

    /// The degrees of the kernel's [`KronSystem`](super::KronSystem) for the
    /// diagonal and the right-hand side, the start probabilities for the
    /// output (NaN where they are invalid).
    fn node_factor(&self, g: &Graph<N, E>, part: Part, out: &mut [f64]) {
        match part {
            Part::Diagonal | Part::Rhs => out.copy_from_slice(&self.kernel.config().system().node_degrees(g)),
            Part::Output => match self.kernel.start_probabilities(g, 0) {
                Ok(p) => out.copy_from_slice(&p),
                Err(_) => out.fill(f64::NAN),
            },
        }
    }

    fn output(&self, g: &Graph<N, E>, h: &Graph<N, E>, o: &mut [f64]) {
        match (self.kernel.start_probabilities(g, 0), self.kernel.start_probabilities(h, 0)) {
            (Ok(pa), Ok(pb)) => {
                let mut p = Vec::new();
                start_product::<f64>(&pa, &pb, &mut p);
                o.copy_from_slice(&p);
            }
            _ => o.fill(f64::NAN),
        }
    }
}
