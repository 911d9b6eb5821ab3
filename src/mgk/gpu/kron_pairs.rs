//! The batched launch of the generic pair systems ([`crate::kron::solve_pairs`]
//! on a CUDA device): every pair of a call in one launch of the kernel
//! `kernels/kron_pairs.cu`, whose staging of a pair and product are the
//! batched marginalized graph kernel's (`kernels/mgk_xmv.cu`, row scheme),
//! with its shared-memory sizing ([`GpuGram::batched_smem`]) and job order
//! ([`costliest_first`]); the user's diagonal, right-hand side and output
//! functional per pair come from the host in flat buffers.

use super::batched::costliest_first;
use super::codegen::kron_pairs_source;
use super::kron_device::{bind_edge_kernel, upload_lists};
use super::upload::{real_bytes, GpuGraphs};
use super::GpuGram;
use crate::basekernel::BaseKernel;
use crate::cuda::device::check;
use crate::cuda::{CudaError, GpuDevice, GpuLabel, Precision};
use crate::graph::Graph;
use crate::kron::Unlabeled;
use crate::mgk::Tuning;
use crate::mgk::XmvScheme;
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

/// Per-job flags of the kernel (`KP_*` in `kernels/kron_pairs.cu`).
const VEC_SHARED: u8 = 1;
const STAGE_GLOBAL: u8 = 2;
const DIRECTED: u8 = 4;

/// p and y of an undirected pair stay in shared memory up to this many
/// bytes (as the marginalized graph kernel's occupancy rule).
const SHARED_VECTOR_BYTES: usize = 32 * 1024;

/// The pairs of one call and their systems, vectors flat in the order of
/// `jobs` (job `k`'s `n·n'` entries at `offsets[k]`).
pub(crate) struct PairBatch<'a> {
    /// `(graph of x, graph of y)` per job.
    pub jobs: &'a [(usize, usize)],
    /// Whether a job has a directed graph (solved by BiCGSTAB).
    pub directed: &'a [bool],
    /// First entry of each job's vectors.
    pub offsets: &'a [usize],
    /// Diagonals, right-hand sides and output functionals.
    pub d: &'a [f64],
    /// Right-hand sides.
    pub b: &'a [f64],
    /// Output functionals.
    pub o: &'a [f64],
    /// The product nodes of all jobs (the length of `d`, `b` and `o`
    /// unless the system is factored, when those are empty).
    pub total: usize,
}

/// A factored system's per-node vectors on the host
/// (see [`crate::kron::Factored`]): node `v` of the graph list at `3 v`
/// (diagonal), `3 v + 1` (right-hand side), `3 v + 2` (output), nodes in
/// the order of the uploaded list.
pub(crate) struct HostFactors<N> {
    /// The nodes of the first list.
    pub x: Vec<f64>,
    /// The nodes of the second list (`None`: the first's).
    pub y: Option<Vec<f64>>,
    /// The scales of the three parts.
    pub scale: [f64; 3],
    /// The label powers of the three parts (`-1`, `0`, `1`).
    pub power: [i32; 3],
    /// The node-label kernel (bound), where a part uses it.
    pub label: Option<crate::kron::LabelKernel<N>>,
}

/// [`HostFactors`] on the device.
struct DeviceFactors {
    x: CudaSlice<u8>,
    y: Option<CudaSlice<u8>>,
    scale: CudaSlice<u8>,
    lpow: i32,
}

/// What the launch gives back, per job in the order of the batch.
pub(crate) struct BatchOut {
    /// `oᵀ x`.
    pub values: Vec<f64>,
    /// Forward iterations.
    pub iterations: Vec<u32>,
    /// Bit 0: the forward solve, bit 1: the adjoint solve did not converge.
    pub status: Vec<i32>,
    /// The solutions, flat (when asked).
    pub x: Option<Vec<f64>>,
    /// The adjoint solutions and `K x`, flat (when asked).
    pub adjoint: Option<(Vec<f64>, Vec<f64>)>,
}

/// Solver settings of a launch.
pub(crate) struct Settings {
    pub coupling: f64,
    pub tol: f64,
    pub max_iter: usize,
    /// Read the solutions back.
    pub want_x: bool,
    /// Solve the adjoint systems and compute `K x` (undirected jobs only).
    pub adjoint: bool,
}

/// The graphs of a call on the device with the kernel generated for its
/// edge kernel: solves batches of pairs ([`solve`](Self::solve)).
pub(crate) struct BatchSolver {
    dev: GpuDevice,
    a: std::sync::Arc<GpuGraphs>,
    b: std::sync::Arc<GpuGraphs>,
    func: CudaFunction,
    theta: Vec<f64>,
    precision: Precision,
    factors: Option<DeviceFactors>,
}

impl BatchSolver {
    /// Uploads `x` (and `y`; directed graphs too when `directed`) to `dev`
    /// and loads the kernel generated for `kernel`'s CUDA form (bound to
    /// record labels' schema first) in precision `p` with the knobs `tuning`.
    ///
    /// # Errors
    /// [`CudaError`] from the upload (a graph the device cannot hold), the
    /// kernel's code generation (no CUDA form, a misspelt field) and the
    /// driver.
    #[allow(clippy::type_complexity)] // the graph sets: X, and Y unless it is X
    pub(crate) fn new<N: GpuLabel, E: GpuLabel, K: BaseKernel<E>>(
        dev: &GpuDevice,
        (x, y): (&[Graph<N, E>], Option<&[Graph<N, E>]>),
        kernel: &K,
        factors: Option<&HostFactors<N>>,
        (p, tuning): (Precision, &Tuning),
        directed: bool,
    ) -> Result<Self, CudaError> {
        let kernel = bind_edge_kernel(kernel, x, y)?;
        let (a, b) = upload_lists(dev, x, y, p, directed)?;
        let src = match factors.and_then(|f| f.label.as_ref()) {
            Some(kv) => kron_pairs_source::<N, E, _, _>(kv, &kernel, &a.node_layout, &a.edge_layout, p, tuning)?,
            None => kron_pairs_source::<N, E, _, _>(&Unlabeled, &kernel, &a.node_layout, &a.edge_layout, p, tuning)?,
        };
        let stream = &dev.dev.stream;
        let up = |what: &str, v: &[f64]| check(what, || stream.clone_htod(&real_bytes(v, p)));
        let factors = match factors {
            None => None,
            Some(f) => Some(DeviceFactors {
                x: up("uploading node factors", &padded(&f.x))?,
                y: f.y.as_ref().map(|v| up("uploading node factors", &padded(v))).transpose()?,
                scale: up("uploading factor scales", &f.scale)?,
                lpow: (f.power[0] + 1) | ((f.power[1] + 1) << 2) | ((f.power[2] + 1) << 4),
            }),
        };
        let func = dev.dev.module_functions(&src.source, &src.name, &[&src.name])?.remove(0);
        let max_dyn = dev.info().max_shared_per_block.saturating_sub(func.shared_size_bytes().unwrap_or(0) as usize);
        check("raising the kernel's shared-memory limit", || {
            func.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                max_dyn as i32,
            )
        })?;
        Ok(BatchSolver { dev: dev.clone(), a, b, func, theta: src.theta, precision: p, factors })
    }

    /// Solves every job of `batch` in one launch.
    ///
    /// # Errors
    /// [`CudaError::PairTooLarge`] for a pair of more than 2³¹ − 1 product
    /// nodes; driver errors.
    pub(crate) fn solve(&self, batch: &PairBatch<'_>, s: &Settings) -> Result<BatchOut, CudaError> {
        let BatchSolver { dev, a, b, func, precision: p, .. } = self;
        let p = *p;
        solve_batch(dev, (a, b), func, (&self.theta, self.factors.as_ref()), p, batch, s)
    }
}

/// `v`, or one zero for an empty `v` (never allocate zero bytes).
fn padded(v: &[f64]) -> std::borrow::Cow<'_, [f64]> {
    if v.is_empty() {
        std::borrow::Cow::Owned(vec![0.0])
    } else {
        std::borrow::Cow::Borrowed(v)
    }
}

#[allow(clippy::too_many_arguments)]
fn solve_batch(
    dev: &GpuDevice,
    (a, b): (&GpuGraphs, &GpuGraphs),
    func: &CudaFunction,
    (theta, factors): (&[f64], Option<&DeviceFactors>),
    p: Precision,
    batch: &PairBatch<'_>,
    s: &Settings,
) -> Result<BatchOut, CudaError> {
    let any_directed = batch.directed.iter().any(|&d| d);
    let d = &dev.dev;
    let n_jobs = batch.jobs.len();
    if n_jobs == 0 {
        return Ok(BatchOut { values: vec![], iterations: vec![], status: vec![], x: None, adjoint: None });
    }
    let plan = plan(dev, a, b, batch, p)?;
    let stream = &d.stream;
    let sum_n: f64 = batch.jobs.iter().map(|&(i, j)| (a.num_nodes[i] * b.num_nodes[j]) as f64).sum();
    let mean_n = sum_n / n_jobs as f64;
    let block = if mean_n >= 4096.0 {
        1024
    } else if mean_n >= 512.0 {
        512
    } else {
        256
    };
    let per_sm =
        check("computing occupancy", || func.occupancy_max_active_blocks_per_multiprocessor(block, plan.smem, None))?
            .max(1) as usize;
    let nvec: usize = if any_directed { 7 } else { 4 } + if factors.is_some() { 3 } else { 0 };
    let per_block = (nvec * plan.scratch_n * p.size() + plan.stage_bytes).max(1);
    let by_memory = (dev.info().total_memory / 4 / per_block).max(1);
    let grid = (per_sm * dev.info().multiprocessors).min(n_jobs).min(by_memory).max(1);

    let total = batch.total;
    let up = |what: &str, v: &[f64]| check(what, || stream.clone_htod(&real_bytes(v, p)));
    // a factored system's d, b and o are generated on the device: nothing to upload
    let (d_d, b_d, o_d) = if factors.is_some() {
        (None, None, None)
    } else {
        let (d, b) = (up("uploading diagonals", batch.d)?, up("uploading right-hand sides", batch.b)?);
        (Some(d), Some(b), Some(up("uploading output functionals", batch.o)?))
    };
    let poisoned = |what: &str| -> Result<CudaSlice<u8>, CudaError> {
        check(what, || stream.clone_htod(&real_bytes(&vec![f64::NAN; total.max(1)], p)))
    };
    let x_d = if s.want_x || s.adjoint { Some(poisoned("allocating solutions")?) } else { None };
    let (y_d, kx_d) = if s.adjoint {
        (Some(poisoned("allocating adjoint solutions")?), Some(poisoned("allocating K x")?))
    } else {
        (None, None)
    };
    let job_ids: Vec<i32> = plan.order.iter().flat_map(|&k| [batch.jobs[k].0 as i32, batch.jobs[k].1 as i32]).collect();
    let flags: Vec<u8> = plan.order.iter().map(|&k| plan.flags[k]).collect();
    let voff: Vec<i64> = plan.order.iter().map(|&k| batch.offsets[k] as i64).collect();
    let mut theta = theta.to_vec();
    theta.resize(theta.len().max(1), 0.0);
    let jobs_d = check("uploading jobs", || stream.clone_htod(&job_ids))?;
    let flags_d = check("uploading job flags", || stream.clone_htod(&flags))?;
    let voff_d = check("uploading vector offsets", || stream.clone_htod(&voff))?;
    let theta_d = up("uploading hyperparameters", &theta)?;
    let scratch = check("allocating scratch", || stream.alloc_zeros::<u8>(grid * per_block))?;
    let out_d = check("allocating values", || stream.clone_htod(&vec![f64::NAN; n_jobs]))?;
    let iters_d = check("allocating iteration counts", || stream.clone_htod(&vec![-1i32; n_jobs]))?;
    let status_d = check("allocating status", || stream.clone_htod(&vec![-1i32; n_jobs]))?;
    let counter_d = check("allocating the job counter", || stream.alloc_zeros::<u32>(1))?;
    let null_ptr: u64 = 0;
    let (c32, tol32) = (s.coupling as f32, s.tol as f32);
    let n_jobs_arg = n_jobs as i32;
    let max_iter = s.max_iter.min(i32::MAX as usize) as i32;
    let nvec_arg = nvec as i32;
    let scratch_n = plan.scratch_n as i64;
    let stage_bytes = plan.stage_bytes as i64;
    let stage_d = if plan.stage_bytes > 0 {
        Some(check("allocating staging", || stream.alloc_zeros::<u8>(grid * plan.stage_bytes))?)
    } else {
        None
    };
    let cfg =
        LaunchConfig { grid_dim: (grid as u32, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: plan.smem as u32 };
    let mut lb = stream.launch_builder(func);
    lb.arg(&a.set).arg(&b.set).arg(&jobs_d).arg(&n_jobs_arg).arg(&theta_d);
    match p {
        Precision::F32 => lb.arg(&c32).arg(&tol32),
        Precision::F64 => lb.arg(&s.coupling).arg(&s.tol),
    };
    lb.arg(&max_iter).arg(&flags_d).arg(&voff_d);
    for v in [&d_d, &b_d, &o_d] {
        match v {
            Some(v) => lb.arg(v),
            None => lb.arg(&null_ptr),
        };
    }
    let lpow = factors.map_or(0, |f| f.lpow);
    match factors {
        Some(f) => lb.arg(&f.x).arg(f.y.as_ref().unwrap_or(&f.x)).arg(&f.scale),
        None => lb.arg(&null_ptr).arg(&null_ptr).arg(&null_ptr),
    };
    lb.arg(&lpow);
    for v in [&x_d, &y_d, &kx_d] {
        match v {
            Some(v) => lb.arg(v),
            None => lb.arg(&null_ptr),
        };
    }
    lb.arg(&scratch).arg(&nvec_arg).arg(&scratch_n);
    match &stage_d {
        Some(g) => lb.arg(g),
        None => lb.arg(&null_ptr),
    };
    lb.arg(&stage_bytes).arg(&out_d).arg(&iters_d).arg(&status_d).arg(&counter_d);
    // SAFETY: the arguments match the kernel's parameter list in kernels/kron_pairs.cu; every
    // buffer holds what the kernel reads or writes (offsets within `total` entries, scratch of
    // grid · nvec · scratch_n reals, staging of grid · stage_bytes) and outlives the launch (the
    // stream is synchronized by the read-backs below).
    check("launching the batched pair-system kernel", || unsafe { lb.launch(cfg) })?;
    let out = check("reading values", || stream.clone_dtoh(&out_d))?;
    let its = check("reading iteration counts", || stream.clone_dtoh(&iters_d))?;
    let status = check("reading status", || stream.clone_dtoh(&status_d))?;
    let read = |v: &Option<CudaSlice<u8>>| -> Result<Option<Vec<f64>>, CudaError> {
        v.as_ref()
            .map(|v| check("reading solutions", || stream.clone_dtoh(v)).map(|h| from_real_bytes(&h, p)))
            .transpose()
    };
    let xs = read(&x_d)?;
    let adjoint = match (read(&y_d)?, read(&kx_d)?) {
        (Some(y), Some(kx)) => Some((y, kx)),
        _ => None,
    };
    check("synchronizing", || stream.synchronize())?;
    let mut r = BatchOut {
        values: vec![f64::NAN; n_jobs],
        iterations: vec![0; n_jobs],
        status: vec![-1; n_jobs],
        x: xs,
        adjoint,
    };
    for (slot, &k) in plan.order.iter().enumerate() {
        r.values[k] = out[slot];
        r.iterations[k] = its[slot].max(0) as u32;
        r.status[k] = status[slot];
    }
    Ok(r)
}

/// Reals of precision `p` as `f64`.
fn from_real_bytes(bytes: &[u8], p: Precision) -> Vec<f64> {
    match p {
        Precision::F32 => {
            bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")) as f64).collect()
        }
        Precision::F64 => bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect(),
    }
}

/// Where each job keeps its vectors and graphs, and the launch's sizes.
pub(super) struct Plan {
    /// Per job (batch order) the `KP_*` flags.
    pub(super) flags: Vec<u8>,
    /// Jobs in launch order (costliest first).
    pub(super) order: Vec<usize>,
    /// Dynamic shared memory per block.
    pub(super) smem: usize,
    /// Largest `n·n'`.
    pub(super) scratch_n: usize,
    /// Global staging per block (0 when no job stages its graphs there).
    pub(super) stage_bytes: usize,
}

pub(super) fn plan(
    dev: &GpuDevice,
    a: &GpuGraphs,
    b: &GpuGraphs,
    batch: &PairBatch<'_>,
    p: Precision,
) -> Result<Plan, CudaError> {
    let limit = dev.info().max_shared_per_block.saturating_sub(4096);
    let bytes =
        |i, j, vectors| GpuGram::<N0, E0, Unlabeled, Unlabeled>::batched_smem(a, i, b, j, XmvScheme::Rows, vectors);
    let (mut smem, mut scratch_n, mut stage_bytes) = (0usize, 1usize, 0usize);
    let mut flags = Vec::with_capacity(batch.jobs.len());
    for (k, &(i, j)) in batch.jobs.iter().enumerate() {
        let n = a.num_nodes[i] * b.num_nodes[j];
        if n > i32::MAX as usize {
            return Err(CudaError::PairTooLarge {
                n1: a.num_nodes[i],
                n2: b.num_nodes[j],
                needed: n,
                available: i32::MAX as usize,
            });
        }
        scratch_n = scratch_n.max(n);
        let (full, graphs) = (bytes(i, j, true), bytes(i, j, false));
        let mut f = if batch.directed[k] { DIRECTED } else { 0 };
        if !batch.directed[k] && 2 * n * p.size() <= SHARED_VECTOR_BYTES && full <= limit {
            f |= VEC_SHARED;
            smem = smem.max(full);
        } else if graphs <= limit {
            smem = smem.max(graphs);
        } else {
            f |= STAGE_GLOBAL;
            stage_bytes = stage_bytes.max(graphs.div_ceil(256) * 256);
        }
        flags.push(f);
    }
    let order = costliest_first(
        batch
            .jobs
            .iter()
            .map(|&(i, j)| (a.nnz[i] as u64 + 1) * (b.nnz[j] as u64 + 1) + (a.num_nodes[i] * b.num_nodes[j]) as u64),
    );
    Ok(Plan { flags, order, smem, scratch_n, stage_bytes })
}

/// Label types that only name [`GpuGram::batched_smem`] (which reads the
/// uploaded graphs, not its type parameters).
type N0 = u8;
type E0 = u8;
