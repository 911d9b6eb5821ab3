//! The batched power sums of the random-walk series kernels (the
//! exponential and p-step kinds of `rw/series_gpu.rs`): every pair of a call
//! in one launch of `kernels/kron_series.cu`, appended to the generic pair
//! systems' source (`kernels/kron_pairs.cu`), so that the staging of a pair
//! and its product are the batched marginalized graph kernel's, with the pair
//! systems' shared-memory plan and job order ([`plan`]). The device returns
//! the sums `1ᵀ z_k` of the masked power iteration; the host folds them with
//! the series' coefficients and truncation rule.

use super::codegen::kron_pairs_source;
use super::kron_device::upload_lists;
use super::kron_pairs::{plan, PairBatch};
use super::upload::GpuGraphs;
use crate::cuda::device::check;
use crate::cuda::{CudaError, GpuDevice, GpuLabel, Precision};
use crate::graph::Graph;
use crate::kron::Unlabeled;
use crate::mgk::Tuning;
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// The jobs of one launch: graph pairs of the uploaded list, each with its
/// λ and the number of sums it needs (at least 1).
pub(crate) struct SeriesJobs<'a> {
    /// `(graph, graph)` of the list per job.
    pub jobs: &'a [(usize, usize)],
    /// The job's λ (weights as uploaded).
    pub lam: &'a [f64],
    /// Sums `t_0..t_{K−1}` to compute per job.
    pub nterms: &'a [usize],
}

/// The graphs of a call on the device (weights as given, directed graphs
/// as they are) with the series kernel loaded and the node classes.
pub(crate) struct PowerSums {
    dev: GpuDevice,
    a: Arc<GpuGraphs>,
    func: CudaFunction,
    theta: CudaSlice<u8>,
    classes: Option<CudaSlice<i32>>,
}

impl PowerSums {
    /// Uploads `graphs` to `dev` with `classes` (one per node of the list,
    /// graph after graph; `None`: every node pair matches) and loads the
    /// kernel generated with the knobs `tuning`.
    ///
    /// # Errors
    /// [`CudaError`] from the upload (a graph the device cannot hold), the
    /// code generation and the driver; [`CudaError::InvalidParameter`] for
    /// classes of another length than the list's nodes.
    pub(crate) fn new<N: GpuLabel, E: GpuLabel>(
        dev: &GpuDevice,
        graphs: &[Graph<N, E>],
        classes: Option<&[i32]>,
        tuning: &Tuning,
    ) -> Result<Self, CudaError> {
        let p = Precision::F64;
        let nodes: usize = graphs.iter().map(Graph::num_nodes).sum();
        if classes.is_some_and(|c| c.len() != nodes) {
            return Err(CudaError::InvalidParameter(format!(
                "{} node classes for {nodes} nodes",
                classes.map_or(0, <[_]>::len)
            )));
        }
        let (a, _) = upload_lists(dev, graphs, None, p, true)?;
        let src = kron_pairs_source::<N, E, _, _>(&Unlabeled, &Unlabeled, &a.node_layout, &a.edge_layout, p, tuning)?;
        let name = format!("{}_series", src.name);
        let func = dev.dev.module_functions(&src.source, &src.name, &[&name])?.remove(0);
        let max_dyn = dev.info().max_shared_per_block.saturating_sub(func.shared_size_bytes().unwrap_or(0) as usize);
        check("raising the kernel's shared-memory limit", || {
            func.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                max_dyn as i32,
            )
        })?;
        let stream = &dev.dev.stream;
        let mut theta = src.theta;
        theta.resize(theta.len().max(1), 0.0);
        let theta = check("uploading hyperparameters", || stream.clone_htod(&super::upload::real_bytes(&theta, p)))?;
        let classes = match classes {
            Some(c) if !c.is_empty() => Some(check("uploading node classes", || stream.clone_htod(c))?),
            _ => None,
        };
        Ok(PowerSums { dev: dev.clone(), a, func, theta, classes })
    }

    /// The sums of every job of `batch` in one launch, flat: job `k`'s
    /// `nterms[k]` sums after those of jobs `0..k`. Step `k` multiplies by
    /// `lam / div[k]` (`div` at least as long as the longest job's steps).
    ///
    /// # Errors
    /// [`CudaError::PairTooLarge`] for a pair of more than 2³¹ − 1 product
    /// nodes; [`CudaError::InvalidParameter`] for mismatched lengths;
    /// driver errors.
    pub(crate) fn sums(&self, batch: &SeriesJobs<'_>, div: &[f64]) -> Result<Vec<f64>, CudaError> {
        let n_jobs = batch.jobs.len();
        let most = batch.nterms.iter().copied().max().unwrap_or(0);
        if batch.lam.len() != n_jobs || batch.nterms.len() != n_jobs || div.len() + 1 < most {
            return Err(CudaError::InvalidParameter(format!(
                "series jobs: {n_jobs} pairs, {} λ, {} term counts, {} divisors for {most} terms",
                batch.lam.len(),
                batch.nterms.len(),
                div.len()
            )));
        }
        if batch.nterms.iter().any(|&k| k == 0 || k > i32::MAX as usize) {
            return Err(CudaError::InvalidParameter("a series job of 0 (or over 2³¹) terms".into()));
        }
        let offsets: Vec<usize> = batch
            .nterms
            .iter()
            .scan(0usize, |acc, &k| {
                let o = *acc;
                *acc += k;
                Some(o)
            })
            .collect();
        let total: usize = batch.nterms.iter().sum();
        if n_jobs == 0 {
            return Ok(Vec::new());
        }
        let (dev, a, p) = (&self.dev, &*self.a, Precision::F64);
        let directed = vec![false; n_jobs];
        let pairs = PairBatch { jobs: batch.jobs, directed: &directed, offsets: &[], d: &[], b: &[], o: &[], total: 0 };
        let plan = plan(dev, a, a, &pairs, p)?;
        let mean_n =
            batch.jobs.iter().map(|&(i, j)| (a.num_nodes[i] * a.num_nodes[j]) as f64).sum::<f64>() / n_jobs as f64;
        let block = if mean_n >= 4096.0 {
            1024
        } else if mean_n >= 512.0 {
            512
        } else {
            256
        };
        let func = &self.func;
        let per_sm = check("computing occupancy", || {
            func.occupancy_max_active_blocks_per_multiprocessor(block, plan.smem, None)
        })?
        .max(1) as usize;
        let per_block = (2 * plan.scratch_n * p.size() + plan.stage_bytes).max(1);
        let by_memory = (dev.info().total_memory / 4 / per_block).max(1);
        let grid = (per_sm * dev.info().multiprocessors).min(n_jobs).min(by_memory).max(1);

        let stream = &dev.dev.stream;
        let job_ids: Vec<i32> =
            plan.order.iter().flat_map(|&k| [batch.jobs[k].0 as i32, batch.jobs[k].1 as i32]).collect();
        let flags: Vec<u8> = plan.order.iter().map(|&k| plan.flags[k]).collect();
        let lam: Vec<f64> = plan.order.iter().map(|&k| batch.lam[k]).collect();
        let nterms: Vec<i32> = plan.order.iter().map(|&k| batch.nterms[k] as i32).collect();
        let toff: Vec<i64> = plan.order.iter().map(|&k| offsets[k] as i64).collect();
        let div = if div.is_empty() { vec![1.0] } else { div.to_vec() };
        let jobs_d = check("uploading jobs", || stream.clone_htod(&job_ids))?;
        let flags_d = check("uploading job flags", || stream.clone_htod(&flags))?;
        let lam_d = check("uploading λ", || stream.clone_htod(&lam))?;
        let div_d = check("uploading divisors", || stream.clone_htod(&div))?;
        let nterms_d = check("uploading term counts", || stream.clone_htod(&nterms))?;
        let toff_d = check("uploading term offsets", || stream.clone_htod(&toff))?;
        let scratch = check("allocating scratch", || stream.alloc_zeros::<u8>(grid * per_block))?;
        let terms_d = check("allocating sums", || stream.clone_htod(&vec![f64::NAN; total.max(1)]))?;
        let counter_d = check("allocating the job counter", || stream.alloc_zeros::<u32>(1))?;
        let stage_d = if plan.stage_bytes > 0 {
            Some(check("allocating staging", || stream.alloc_zeros::<u8>(grid * plan.stage_bytes))?)
        } else {
            None
        };
        let null_ptr: u64 = 0;
        let n_jobs_arg = n_jobs as i32;
        let scratch_n = plan.scratch_n as i64;
        let stage_bytes = plan.stage_bytes as i64;
        let cfg = LaunchConfig {
            grid_dim: (grid as u32, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: plan.smem as u32,
        };
        let mut lb = stream.launch_builder(func);
        lb.arg(&a.set).arg(&a.set).arg(&jobs_d).arg(&n_jobs_arg).arg(&self.theta).arg(&flags_d);
        match &self.classes {
            Some(c) => lb.arg(c).arg(c),
            None => lb.arg(&null_ptr).arg(&null_ptr),
        };
        lb.arg(&lam_d).arg(&div_d).arg(&nterms_d).arg(&toff_d).arg(&scratch).arg(&scratch_n);
        match &stage_d {
            Some(g) => lb.arg(g),
            None => lb.arg(&null_ptr),
        };
        lb.arg(&stage_bytes).arg(&terms_d).arg(&counter_d);
        // SAFETY: the arguments match the kernel's parameter list in kernels/kron_series.cu; every
        // buffer holds what the kernel reads or writes (the classes one per node of the list, the
        // sums `total` doubles at the jobs' offsets, divisors for the longest job's steps, scratch
        // of grid · 2 · scratch_n reals, staging of grid · stage_bytes) and outlives the launch
        // (the stream is synchronized by the read-back below).
        check("launching the batched random-walk series kernel", || unsafe { lb.launch(cfg) })?;
        let mut out = check("reading the series sums", || stream.clone_dtoh(&terms_d))?;
        check("synchronizing", || stream.synchronize())?;
        out.truncate(total);
        Ok(out)
    }
}
