//! The geometric random-walk kernel by fixed-point iteration on the GPU
//! (`kernels/rw_fixed.cu`): the systems `(I − λ P (W ⊗ W') P) x = P 1` that
//! are not symmetric (directed graphs), plain (`P = I`) and node-labeled
//! (`P` keeps the node pairs of equal classes), one block per pair, with the
//! CPU's fixed-point iteration and stopping rule
//! ([`fixed_point`](crate::solver::fixed_point): `x ← x + (b − A x)` from
//! `x = 0` until `‖b − A x‖ ≤ tol ‖b‖`). It converges when `λ ρ(W) ρ(W') < 1`,
//! which the host checks first. The host side is in `rw/gpu_pairs.rs`.
//!
//! A call is one upload (graphs, jobs and poisoned outputs in one
//! [`Blob`](crate::cuda::blob::Blob)), one launch and one download.
//!
//! Without the `cuda` feature, [`fixed_point_pairs`] returns
//! [`CudaError::NotCompiled`].

use super::series::SeriesCsr;
use crate::backend::Precision;
use crate::cuda::CudaError;

/// The CUDA C++ source of the fixed-point kernels.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub const SOURCE: &str = include_str!("../../../kernels/rw_fixed.cu");

/// The outcome of one pair's iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FixedOut {
    /// `1ᵀ x`; where `status` is not 0, the relative residual reached.
    pub(crate) value: f64,
    /// Iterations run.
    pub(crate) iterations: usize,
    /// 0: converged; 1: not within the iteration limit; 2: the residual
    /// became non-finite; anything else: the kernel did not write the pair.
    pub(crate) status: i32,
}

/// The settings of one call.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct FixedRule {
    /// Relative residual at which a pair stops.
    pub(crate) tol: f64,
    /// The most iterations.
    pub(crate) max_iters: usize,
    /// The arithmetic of the vectors.
    pub(crate) precision: Precision,
}

/// Solves the pairs `jobs` (graph indices into the list `csr`, `λ` per
/// pair for the scaled weights) with node classes `classes` (one per node
/// of the list; all equal for the plain kernel) on device `device`.
///
/// # Errors
/// Driver or NVRTC errors; without the `cuda` feature,
/// [`CudaError::NotCompiled`].
#[cfg(not(feature = "cuda"))]
pub(crate) fn fixed_point_pairs(
    _device: usize,
    _csr: &SeriesCsr,
    _classes: &[i32],
    _jobs: &[(usize, usize)],
    _lambdas: &[f64],
    _rule: FixedRule,
) -> Result<Vec<FixedOut>, CudaError> {
    Err(CudaError::NotCompiled)
}

#[cfg(feature = "cuda")]
pub(crate) use self::imp::fixed_point_pairs;

#[cfg(feature = "cuda")]
mod imp {
    use super::*;
    use crate::cuda::blob::{read, Blob};
    use crate::cuda::device::{check, device};
    use cudarc::driver::{LaunchConfig, PushKernelArg};

    /// The name the source is compiled (and cached) under.
    const MODULE: &str = "rw_fixed";
    const KERNELS: [&str; 2] = ["rw_fixed_f64", "rw_fixed_f32"];
    const BLOCK: u32 = 256;

    pub(crate) fn fixed_point_pairs(
        device_ordinal: usize,
        csr: &SeriesCsr,
        classes: &[i32],
        jobs: &[(usize, usize)],
        lambdas: &[f64],
        rule: FixedRule,
    ) -> Result<Vec<FixedOut>, CudaError> {
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        let nodes = csr.ptr.len().saturating_sub(1);
        if classes.len() != nodes || lambdas.len() != jobs.len() {
            return Err(CudaError::InvalidParameter(format!(
                "{} node classes for {nodes} nodes, {} λ for {} pairs",
                classes.len(),
                lambdas.len(),
                jobs.len()
            )));
        }
        let size = |g: usize| (csr.node_off[g + 1] - csr.node_off[g]) as usize;
        let max_n = jobs.iter().map(|&(a, b)| size(a) * size(b)).max().unwrap_or(0).max(1);
        if csr.exp.len() > i32::MAX as usize || jobs.len() > i32::MAX as usize || csr.idx.len() > i32::MAX as usize {
            return Err(CudaError::InvalidParameter(format!(
                "{} graphs, {} pairs: the random-walk fixed-point kernel indexes with 32 bits; use the CPU backend",
                csr.exp.len(),
                jobs.len()
            )));
        }
        let dev = device(device_ordinal)?;
        let fs = dev.module_functions(SOURCE, MODULE, &KERNELS)?;
        let stream = &dev.stream;
        let job_ids: Vec<i32> = jobs.iter().flat_map(|&(a, b)| [a as i32, b as i32]).collect();
        let mut blob = Blob::with_capacity(8 * (csr.ptr.len() + 2 * csr.idx.len() + 4 * jobs.len() + nodes));
        let o_jobs = blob.push(&job_ids);
        let o_lambda = blob.push(lambdas);
        let o_node = blob.push(&csr.node_off);
        let o_ptr = blob.push(&csr.ptr);
        let o_idx = blob.push(&csr.idx);
        let o_w = blob.push(&csr.w);
        let o_cls = blob.push(classes);
        let out_start = blob.len();
        let o_out = blob.fill(f64::NAN, jobs.len());
        let o_iters = blob.fill(-1i32, jobs.len());
        let o_status = blob.fill(-1i32, jobs.len());
        let mut blob_d = check("uploading the graphs", || stream.clone_htod(blob.bytes()))?;
        // one block per pair at a time; the scratch (2 vectors per block) within a quarter of the memory
        let rs = rule.precision.size();
        let by_memory = (dev.info.total_memory / 4 / (2 * max_n * rs)).max(1);
        let grid = jobs.len().min(dev.info.multiprocessors * 8).min(by_memory).max(1);
        let (n_jobs, max_iter) = (jobs.len() as i32, rule.max_iters.min(i32::MAX as usize - 1) as i32);
        let scratch_n = max_n as i64;
        let cfg = LaunchConfig { grid_dim: (grid as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        macro_rules! launch {
            ($t:ty, $f:expr) => {{
                let mut scratch =
                    check("allocating fixed-point scratch", || stream.alloc_zeros::<$t>(grid * 2 * max_n))?;
                let mut lb = stream.launch_builder($f);
                lb.arg(&n_jobs)
                    .arg(&max_iter)
                    .arg(&rule.tol)
                    .arg(&mut blob_d)
                    .arg(&o_jobs)
                    .arg(&o_lambda)
                    .arg(&o_node)
                    .arg(&o_ptr)
                    .arg(&o_idx)
                    .arg(&o_w)
                    .arg(&o_cls)
                    .arg(&o_out)
                    .arg(&o_iters)
                    .arg(&o_status)
                    .arg(&mut scratch)
                    .arg(&scratch_n);
                // SAFETY: the arguments match rw_fixed's parameters; every offset
                // is of an array of the blob sized for it, the scratch holds
                // 2 · max N reals per block.
                check("launching rw_fixed", || unsafe { lb.launch(cfg) })?;
                check("downloading the results", || stream.clone_dtoh(&blob_d.slice(out_start..blob.len())))?
            }};
        }
        let back = match rule.precision {
            Precision::F64 => launch!(f64, &fs[0]),
            Precision::F32 => launch!(f32, &fs[1]),
        };
        let base = out_start as i64;
        let values =
            read(&back, (o_out - base) as usize, jobs.len(), |s| f64::from_ne_bytes(s.try_into().unwrap_or([0xff; 8])));
        let i32s = |off: i64| {
            read(&back, (off - base) as usize, jobs.len(), |s| i32::from_ne_bytes(s.try_into().unwrap_or([0xff; 4])))
        };
        let (iters, status) = (i32s(o_iters), i32s(o_status));
        Ok(values
            .into_iter()
            .zip(iters.into_iter().zip(status))
            .map(|(value, (it, st))| FixedOut { value, iterations: it.max(0) as usize, status: st })
            .collect())
    }
}
