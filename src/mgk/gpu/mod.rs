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
// The reference set-ups whose kernels ship compiled (tests, bake_kernels).
#[cfg(feature = "testing")]
pub mod bake;

#[cfg(feature = "cuda")]
mod batched;
#[cfg(feature = "cuda")]
mod grad;
#[cfg(feature = "cuda")]
mod gram;
// GpuGram's upload methods (on GpuGraphs, upload.rs)
#[cfg(feature = "cuda")]
mod gram_upload;
#[cfg(feature = "cuda")]
pub(crate) mod kron_device;
// the batched launch of the generic pair systems (crate::kron::solve_pairs on a device)
#[cfg(feature = "cuda")]
pub(crate) mod kron_pairs;
// the batched power sums of the random-walk series kernels (rw/series_gpu.rs)
#[cfg(feature = "cuda")]
pub(crate) mod kron_series;
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
    pub(crate) fn on_devices(_devices: &[usize]) -> Result<Self, MgkError> {
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
    use super::pack::PackedBatch;
    use super::upload::GpuGraphs;
    use super::GpuGram;
    use super::*;
    use crate::spread::{spread, take_phases, trace_phase, tracing, ChunkQueue};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    /// The engine of a set of CUDA devices (one, or several: see
    /// [`solve_pairs`](PairEngine::solve_pairs)).
    #[derive(Clone, Debug)]
    pub(crate) struct Gpu {
        devices: Vec<usize>,
    }

    /// Pairs per chunk of a call spread in chunks at least (a launch that
    /// fills an H100's 132 multiprocessors several times over).
    const MIN_CHUNK_PAIRS: usize = 2048;

    /// From this many pairs on, one device runs a call in chunks on
    /// pipelined host threads too (below, in one launch: no chunk overhead).
    const PIPELINE_PAIRS: usize = 1 << 20;

    /// Host threads per device of a call spread in chunks (see
    /// [`GpuGramParams::spread_threads`](crate::mgk::GpuGramParams::spread_threads)).
    const THREADS_PER_DEVICE: usize = 2;

    impl Gpu {
        /// The engine of the devices `devices` (not empty; opened on first
        /// use; one device runs exactly as before device sets existed).
        pub(crate) fn on_devices(devices: &[usize]) -> Result<Self, MgkError> {
            if devices.is_empty() {
                return Err(MgkError::InvalidParameter("an empty device set".into()));
            }
            Ok(Gpu { devices: devices.to_vec() })
        }
    }

    /// The graphs with `kernel`'s start probabilities attached (the GPU reads
    /// them from the graphs).
    fn with_starts<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>>(
        kernel: &MarginalizedGraphKernel<N, E, KV, KE>,
        x: &[Graph<N, E>],
    ) -> Result<Vec<Graph<N, E>>, MgkError> {
        use rayon::prelude::*;
        x.par_iter()
            .enumerate()
            .map(|(i, g)| {
                let p = kernel.start_probabilities(g, i)?;
                g.clone().with_start_probabilities(p).map_err(|e| MgkError::InvalidParameter(format!("graph {i}: {e}")))
            })
            .collect()
    }

    /// The values (and gradients) of the pairs `part` of uploaded graphs in
    /// one launch: the one place both the single- and the multi-device
    /// calls solve pairs.
    fn solve_part<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>>(
        gpu: &GpuGram<N, E, KV, KE>,
        (a, b): (&GpuGraphs, &GpuGraphs),
        part: &[(usize, usize)],
        gradient: bool,
        active: &[bool],
    ) -> Result<Vec<PairOut>, MgkError> {
        if gradient {
            let r = gpu.run_gradient(a, b, part)?;
            let slots = r.slots.max(1);
            Ok(r.values
                .iter()
                .zip(r.gradient.chunks(slots))
                .map(|(&value, cell)| PairOut {
                    value,
                    grad: cell.iter().zip(active).filter(|&(_, &a)| a).map(|(&g, _)| g).collect(),
                    ..PairOut::default()
                })
                .collect())
        } else {
            let r = gpu.run(a, b, part, false)?;
            Ok(r.values.into_iter().map(|value| PairOut { value, ..PairOut::default() }).collect())
        }
    }

    /// The nodal outputs of `pairs` of one list of graphs.
    fn nodal_part<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>>(
        gpu: &GpuGram<N, E, KV, KE>,
        graphs: &[Graph<N, E>],
        pairs: &[(usize, usize)],
    ) -> Result<Vec<PairOut>, MgkError> {
        Ok(gpu
            .nodal_pairs(graphs, pairs)?
            .into_iter()
            .map(|o| PairOut { value: o.value, nodal: Some(o.values), ..PairOut::default() })
            .collect())
    }

    impl<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>> PairEngine<N, E, KV, KE> for Gpu {
        /// On one device and fewer than [`PIPELINE_PAIRS`] pairs (or with
        /// [`GpuGramParams::one_launch`](crate::mgk::GpuGramParams::one_launch)): the graphs uploaded once and
        /// the pairs in one launch (about 20 with a progress callback).
        /// Otherwise, on one device or several: the graphs reordered and
        /// packed once and uploaded to every device, then
        /// [`spread`]: two host threads per device
        /// ([`GpuGramParams::spread_threads`](crate::mgk::GpuGramParams::spread_threads)) take chunks of pairs
        /// from one queue ([`ChunkQueue::dealt`]: guided sizes, every chunk a
        /// cross-section of the whole set, no sort of the pair list), one
        /// launch each, while the other thread of the device prepares its
        /// next launch (routing, launch plan, job list) on the host; each
        /// thread writes its outputs into the pairs' places. Each pair is
        /// solved by the same kernel source on every device; only the launch
        /// it shares with other pairs differs (which can change its placement
        /// in shared or global memory and, as between two one-device calls,
        /// the order of the XMV's floating-point atomic additions), so the
        /// values agree with one launch's to the solver's rounding, not
        /// necessarily to the bit. `KRONOGRAPH_SPREAD_TRACE=1` prints where
        /// the time went ([`crate::spread`]).
        fn solve_pairs(
            &self,
            k: &MarginalizedGraphKernel<N, E, KV, KE>,
            x: &[Graph<N, E>],
            y: Option<&[Graph<N, E>]>,
            pairs: &[(usize, usize)],
            want: Want,
        ) -> Result<Vec<PairOut>, MgkError> {
            let t0 = Instant::now();
            // the API checked every node-kernel value of these pairs (node_values::check_node_kernel_values)
            let new_gram =
                |d: usize| GpuGram::with_check(d, k.node_kernel().clone(), k.edge_kernel().clone(), *k.config(), true);
            let xs = with_starts(k, x)?;
            let ys = y.map(|y| with_starts(k, y)).transpose()?;
            let active: Vec<bool> = k.hyperparameters().iter().map(|h| h.is_active()).collect();
            trace_phase("starts", t0.elapsed().as_secs_f64());
            if want.nodal {
                // one list, pairs across it
                let off = xs.len();
                let jobs: Vec<(usize, usize)> = match ys {
                    Some(_) => pairs.iter().map(|&(a, b)| (a, off + b)).collect(),
                    None => pairs.to_vec(),
                };
                let graphs: Vec<Graph<N, E>> = xs.into_iter().chain(ys.unwrap_or_default()).collect();
                let out = if self.devices.len() == 1 {
                    nodal_part(&new_gram(self.devices[0])?, &graphs, &jobs)?
                } else {
                    let queue = ChunkQueue::new(&vec![1.0; jobs.len()], self.devices.len(), 1);
                    spread(
                        &self.devices,
                        1,
                        &queue,
                        |&d| Ok(new_gram(d)?),
                        |gpu, chunk| {
                            let part: Vec<(usize, usize)> = chunk.iter().map(|&i| jobs[i]).collect();
                            nodal_part(gpu, &graphs, &part)
                        },
                    )?
                };
                if let Some(p) = k.progress() {
                    p(pairs.len(), pairs.len());
                }
                return Ok(out);
            }
            let params = k.config().gpu;
            if let [device] = self.devices[..] {
                if params.one_launch || pairs.len() < PIPELINE_PAIRS {
                    let gpu = new_gram(device)?;
                    let t = Instant::now();
                    let ux = gpu.upload(&xs)?;
                    let uy = ys.as_deref().map(|ys| gpu.upload(ys)).transpose()?;
                    trace_phase("upload", t.elapsed().as_secs_f64());
                    let b = uy.as_ref().unwrap_or(&ux);
                    // with a progress callback, the pairs go in about 20 launches and
                    // each reports when it is done; without one, in a single launch
                    let chunk = match k.progress() {
                        Some(_) => pairs.len().div_ceil(20).max(4096),
                        None => pairs.len().max(1),
                    };
                    let mut out = Vec::with_capacity(pairs.len());
                    for part in pairs.chunks(chunk) {
                        out.extend(solve_part(&gpu, (&ux, b), part, want.gradient, &active)?);
                        if let Some(p) = k.progress() {
                            p(out.len(), pairs.len());
                        }
                    }
                    if tracing() {
                        eprintln!(
                            "mgk gpu: 1 device, one launch, {} pairs, {:.3} s [{}]",
                            pairs.len(),
                            t0.elapsed().as_secs_f64(),
                            take_phases()
                        );
                    }
                    return Ok(out);
                }
            }
            let threads = params.spread_threads.unwrap_or(THREADS_PER_DEVICE);
            let queue = ChunkQueue::dealt(pairs.len(), self.devices.len() * threads, MIN_CHUNK_PAIRS);
            let done = AtomicUsize::new(0);
            // reordered and packed once (the same bytes for every device), by the first device set up
            type Packs = Arc<(PackedBatch, Option<PackedBatch>)>;
            let packs: Mutex<Option<Packs>> = Mutex::new(None);
            let t_spread = Instant::now();
            let out = spread(
                &self.devices,
                threads,
                &queue,
                |&d| {
                    let gpu = new_gram(d)?;
                    let p = {
                        let mut guard = packs.lock().unwrap_or_else(|e| e.into_inner());
                        match &*guard {
                            Some(p) => p.clone(),
                            None => {
                                let t = Instant::now();
                                let px = gpu.reorder_and_pack(&xs)?;
                                let py = ys.as_deref().map(|ys| gpu.reorder_and_pack(ys)).transpose()?;
                                trace_phase("pack", t.elapsed().as_secs_f64());
                                guard.insert(Arc::new((px, py))).clone()
                            }
                        }
                    };
                    let t = Instant::now();
                    let ux = gpu.upload_packed(&p.0)?;
                    let uy = p.1.as_ref().map(|py| gpu.upload_packed(py)).transpose()?;
                    trace_phase("upload", t.elapsed().as_secs_f64());
                    Ok((gpu, ux, uy))
                },
                |(gpu, ux, uy), chunk| {
                    let part: Vec<(usize, usize)> = chunk.iter().map(|&i| pairs[i]).collect();
                    let out = solve_part(gpu, (ux, uy.as_ref().unwrap_or(ux)), &part, want.gradient, &active)?;
                    let now = done.fetch_add(part.len(), Ordering::Relaxed) + part.len();
                    if let Some(p) = k.progress() {
                        p(now, pairs.len());
                    }
                    Ok(out)
                },
            );
            if tracing() {
                eprintln!(
                    "mgk gpu: {} devices × {threads} threads, {} pairs, {:.3} s (spread {:.3} s) [{}]",
                    self.devices.len(),
                    pairs.len(),
                    t0.elapsed().as_secs_f64(),
                    t_spread.elapsed().as_secs_f64(),
                    take_phases()
                );
            }
            out
        }
    }
}
