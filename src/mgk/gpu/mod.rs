//! The CUDA backend of the marginalized graph kernel, as a [`PairEngine`]:
//! the graphs (with this kernel's start probabilities) are reordered,
//! packed into octiles and uploaded, and the pairs solved by the batched
//! device kernels of [`crate::mgk::GpuGram`].
//!
//! # Layout
//! - `gram`: [`GpuGram`], its public calls and nodal similarities;
//! - `upload`: [`GpuGraphs`] (reordered, packed, uploaded graphs);
//! - `batched`: routing of pairs and the batched launch;
//! - `large`: the single-large-pair path; `grad`: gradients;
//! - [`codegen`]: the CUDA sources; [`reference`]: the CPU specification of
//!   the GPU algorithm; `output`: what the calls return.
//!
//! # The GPU algorithm
//! - [`codegen`]: the CUDA C++ sources: a generated preface (real type,
//!   label structs, `kappa_node` / `kappa_edge` from the base kernels' CUDA
//!   forms, and for the gradient kernel their log-θ gradients by forward-mode
//!   differentiation of the same expressions) followed by the templates in
//!   `kernels/`. Hyperparameters are read from a `theta` array passed at
//!   launch, never baked into the source, so changing θ never recompiles;
//!   nor does the block size, which is a launch parameter.
//! - [`GpuGram`] (feature `cuda`): Gram matrices (`gram`, `gram_xy`, `diag`),
//!   their gradients (`gram_with_gradient`, …) and nodal similarities
//!   (`nodal`, `nodal_all`) of graphs uploaded once as [`GpuGraphs`]
//!   (reordered as [`MgkConfig::reorder`](crate::mgk::MgkConfig::reorder) says and packed into octiles at upload). One launch per
//!   call: persistent blocks take pairs from an atomic job counter (largest
//!   pairs first); a block stages both graphs from their octiles in shared
//!   memory (the first by rows, the second as its nonzeros in octile order)
//!   and keeps the search direction and the product in shared memory. The
//!   product (weights w w′ κe computed on the fly) follows the scheme
//!   [`MgkConfig::xmv`](crate::mgk::MgkConfig::xmv) names ([`XmvScheme`](crate::mgk::XmvScheme)): by default a loop over work
//!   items (a row of the first graph × a chunk of the second graph's
//!   nonzeros, one item per warp at a time; sums in registers, one shared
//!   atomic per lane and item), or tile pair by tile pair (a row-structured
//!   or a sparse primitive by nonzero count; `kernels/mgk_pcg.cu`).
//!   The gradient kernel (`kernels/mgk_grad.cu`) solves the adjoint system
//!   too and sums the gradient over product nodes and arc pairs. Pairs whose
//!   vectors do not fit in shared memory (or, in a mixed set, are over 32
//!   KiB) stay in the same launch with p and y in global memory, their graphs
//!   staged in shared memory or, when too large, in global memory too (the
//!   mid-size and large paths: the whole PCG on the device, one block per
//!   pair; those pairs compute diag A and M⁻¹ where needed rather than
//!   store them, keep K's sum rather than x unless nodal output is asked,
//!   and get pᵀAp from the XMV itself: `pcg_global` in
//!   `kernels/mgk_pcg.cu`). The gradient kernel does the same for pairs
//!   that do not fit in shared memory (`gram_with_gradient` on any pair
//!   below 2³¹ product nodes). A launch with no pair in global memory runs a kernel compiled
//!   with the shared-memory copy only ([`codegen::VectorPlacement`]), a
//!   third of the code to compile on a cold start. The single-large-pair path (a host PCG loop, one XMV launch per
//!   iteration, `kernels/mgk_large.cu`; values and nodal output, no
//!   gradients) runs only when forced (`GpuGramParams::large_pair_path`).
//! - [`reference`](mod@reference): a CPU implementation of exactly the algorithm the GPU runs
//!   (same start vector, same preconditioner, same stopping rule), in f64 or
//!   f32, used to check the GPU and as an executable specification.
//!
//! # The system solved per pair
//! For graphs G (n nodes) and G′ (n′ nodes), with degrees d_i = Σ_j w_ij (1
//! where that sum is 0), stop probability q and start probabilities p:
//!
//! (D× V×⁻¹ − (W ⊗ W′) ⊙ E×) r = D× 1,  D× = (D ⊗ D′)/(1 − q)²,
//! V× = diag κv(v_i, v′_i′), E×[(i,i′),(j,j′)] = κe(e_ij, e′_i′j′),
//!
//! index (i, i′) ↦ i·n′ + i′, and K(G, G′) = Σ p_i p′_i′ r_ii′; with lmin = 1
//! the length-one term Σ p_i p′_i′ κv(v_i, v′_i′) is subtracted.
//!
//! It is solved by preconditioned conjugate gradients with the Jacobi
//! preconditioner M = D× V×⁻¹ (the diagonal of the operator for graphs
//! without self-loops), started from x₀ = 0, stopped when
//! ‖r_k‖ ≤ tol · ‖D× 1‖.
//!
//! Without the `cuda` feature, [`Gpu`] is an uninhabited type that
//! implements the same trait: the compiler keeps the two builds in step.

use super::engine::{PairEngine, PairOut, Want};
use super::{MarginalizedGraphKernel, MgkError};
use crate::basekernel::BaseKernel;
use crate::cuda::GpuLabel;
use crate::graph::Graph;

#[cfg(any(feature = "cuda", feature = "testing"))]
pub mod codegen;
pub(crate) mod output;
// The octile batch packer (pure CPU): public only with `testing`.
#[cfg(all(feature = "cuda", not(feature = "testing")))]
pub(crate) mod pack;
#[cfg(feature = "testing")]
pub mod pack;
#[cfg(feature = "testing")]
pub mod reference;
pub(crate) mod rw_fixed;
pub(crate) mod rw_series;

#[cfg(feature = "cuda")]
mod batched;
#[cfg(feature = "cuda")]
mod grad;
#[cfg(feature = "cuda")]
mod gram;
#[cfg(feature = "cuda")]
mod large;
#[cfg(feature = "cuda")]
mod upload;

#[cfg(feature = "cuda")]
pub use self::gram::GpuGram;
#[cfg(feature = "cuda")]
pub use self::upload::GpuGraphs;

#[cfg(feature = "cuda")]
pub(crate) use self::imp::Gpu;

/// Without `cuda`: no value of this type exists.
#[cfg(not(feature = "cuda"))]
#[derive(Clone, Copy, Debug)]
pub(crate) enum Gpu {}

#[cfg(not(feature = "cuda"))]
impl Gpu {
    /// Always [`CudaError::NotCompiled`](crate::cuda::CudaError::NotCompiled).
    pub(crate) fn new(_device: usize) -> Result<Self, MgkError> {
        Err(crate::cuda::CudaError::NotCompiled.into())
    }
}

#[cfg(not(feature = "cuda"))]
impl<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>> PairEngine<N, E, KV, KE> for Gpu {
    fn solve_pairs(
        &self,
        _: &MarginalizedGraphKernel<N, E, KV, KE>,
        _: &[Graph<N, E>],
        _: Option<&[Graph<N, E>]>,
        _: &[(usize, usize)],
        _: Want,
    ) -> Result<Vec<PairOut>, MgkError> {
        match *self {}
    }
}

#[cfg(feature = "cuda")]
mod imp {
    use super::GpuGram;
    use super::*;

    /// The engine of CUDA device `device`.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Gpu {
        device: usize,
    }

    impl Gpu {
        /// The engine of device `device` (opened on first use).
        pub(crate) fn new(device: usize) -> Result<Self, MgkError> {
            Ok(Gpu { device })
        }
    }

    /// The graphs with `kernel`'s start probabilities attached (the GPU reads
    /// them from the graphs).
    fn with_starts<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>>(
        kernel: &MarginalizedGraphKernel<N, E, KV, KE>,
        x: &[Graph<N, E>],
    ) -> Result<Vec<Graph<N, E>>, MgkError> {
        x.iter()
            .enumerate()
            .map(|(i, g)| {
                let p = kernel.start_probabilities(g, i)?;
                g.clone().with_start_probabilities(p).map_err(|e| MgkError::InvalidParameter(format!("graph {i}: {e}")))
            })
            .collect()
    }

    impl<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>> PairEngine<N, E, KV, KE> for Gpu {
        fn solve_pairs(
            &self,
            k: &MarginalizedGraphKernel<N, E, KV, KE>,
            x: &[Graph<N, E>],
            y: Option<&[Graph<N, E>]>,
            pairs: &[(usize, usize)],
            want: Want,
        ) -> Result<Vec<PairOut>, MgkError> {
            let gpu = GpuGram::new(self.device, k.node_kernel().clone(), k.edge_kernel().clone(), *k.config())?;
            let xs = with_starts(k, x)?;
            let ys = y.map(|y| with_starts(k, y)).transpose()?;
            if want.nodal {
                // one list, pairs across it
                let off = xs.len();
                let jobs: Vec<(usize, usize)> = match ys {
                    Some(_) => pairs.iter().map(|&(a, b)| (a, off + b)).collect(),
                    None => pairs.to_vec(),
                };
                let graphs: Vec<Graph<N, E>> = xs.into_iter().chain(ys.unwrap_or_default()).collect();
                let out = gpu.nodal_pairs(&graphs, &jobs)?;
                if let Some(p) = k.progress() {
                    p(pairs.len(), pairs.len());
                }
                return Ok(out
                    .into_iter()
                    .map(|o| PairOut { value: o.value, nodal: Some(o.values), ..PairOut::default() })
                    .collect());
            }
            let ux = gpu.upload(&xs)?;
            let uy = ys.as_deref().map(|ys| gpu.upload(ys)).transpose()?;
            let b = uy.as_ref().unwrap_or(&ux);
            // with a progress callback, the pairs go in about 20 launches and
            // each reports when it is done; without one, in a single launch
            let chunk = match k.progress() {
                Some(_) => pairs.len().div_ceil(20).max(4096),
                None => pairs.len().max(1),
            };
            let active: Vec<bool> = k.hyperparameters().iter().map(|h| h.is_active()).collect();
            let mut out = Vec::with_capacity(pairs.len());
            for part in pairs.chunks(chunk) {
                if want.gradient {
                    let r = gpu.run_gradient(&ux, b, part)?;
                    let slots = r.slots.max(1);
                    out.extend(r.values.iter().zip(r.gradient.chunks(slots)).map(|(&value, cell)| PairOut {
                        value,
                        grad: cell.iter().zip(&active).filter(|(_, &a)| a).map(|(&g, _)| g).collect(),
                        ..PairOut::default()
                    }));
                } else {
                    let r = gpu.run(&ux, b, part, false)?;
                    out.extend(r.values.into_iter().map(|value| PairOut { value, ..PairOut::default() }));
                }
                if let Some(p) = k.progress() {
                    p(out.len(), pairs.len());
                }
            }
            Ok(out)
        }
    }
}
