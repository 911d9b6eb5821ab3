//! The batched launch: pairs routed to the kernel that suits them, the launch
//! shape (block, shared memory, grid), the launch and its read-back.
use super::codegen::{mgk_source_placed, VectorPlacement};
use super::gram::{check_ranges, GpuGram};
use super::upload::{real_bytes, GpuGraphs};
use crate::basekernel::BaseKernel;
use crate::cuda::device::{check, FunctionKey};
use crate::cuda::jit::{compile_tiered, Tier};
use crate::cuda::label::GpuLabel;
use crate::cuda::{CudaError, Origin, Precision};
use crate::mgk::XmvScheme;
use crate::spread::trace_phase;
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

mod order;
pub(super) use order::costliest_first;

/// Vectors (p and y) of a pair above this size go to global memory when only
/// a few pairs of the launch are that large (see `GpuGram::route`).
const SHARED_VECTOR_BYTES: usize = 32 * 1024;

/// Nonzero products per product node (`nnz·nnz′ / (n·n′)`, summed over the
/// launch's pairs) below which a value launch of large pairs counts as
/// sparse (see `GpuGram::plan`): NWS96L 4.8, BA96L 127.
const SPARSE_WORK: f64 = 16.0;

impl<N, E, KN, KE> GpuGram<N, E, KN, KE>
where
    N: GpuLabel,
    E: GpuLabel,
    KN: BaseKernel<N>,
    KE: BaseKernel<E>,
{
    /// The loaded kernel `name` of `source`: the fully optimized one when it
    /// is ready, else the fast-tier one while the full one compiles in the
    /// background (see [`compile_tiered`]); later calls pick up the full one.
    pub(super) fn function(&self, name: &str, source: &str) -> Result<(CudaFunction, Origin), CudaError> {
        {
            let funcs = self.dev.functions.read().unwrap_or_else(|e| e.into_inner());
            if let Some(f) = funcs.get(&FunctionKey::full(name)) {
                return Ok((f.clone(), Origin::Memory));
            }
            // the full image still compiling: keep running the fast one
            if let Some(f) = funcs.get(&FunctionKey::fast(name)) {
                if crate::cuda::jit::ready(source, name, self.dev.info.compute_capability).is_none() {
                    return Ok((f.clone(), Origin::FastTier));
                }
            }
        }
        let (compiled, tier) = compile_tiered(source, name, self.dev.info.compute_capability)?;
        let module = check("loading the compiled kernel", || {
            self.dev.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(compiled.image.to_vec()))
        })?;
        let f = check("finding the kernel in its module", || module.load_function(name))?;
        let max_dyn = self.dev.info.max_shared_per_block.saturating_sub(f.shared_size_bytes().unwrap_or(0) as usize);
        check("raising the kernel's shared-memory limit", || {
            f.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                max_dyn as i32,
            )
        })?;
        let (key, origin) = match tier {
            Tier::Full => (FunctionKey::full(name), compiled.origin),
            Tier::Fast => (FunctionKey::fast(name), Origin::FastTier),
        };
        self.dev.functions.write().unwrap_or_else(|e| e.into_inner()).insert(key, f.clone());
        Ok((f, origin))
    }

    /// The per-block PCG scratch, at least `bytes` long (kept between calls,
    /// grown when a call needs more), locked for the call.
    pub(super) fn scratch(&self, bytes: usize) -> Result<std::sync::MutexGuard<'_, Option<CudaSlice<u8>>>, CudaError> {
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        if guard.as_ref().is_none_or(|s| s.len() < bytes) {
            *guard = None;
            *guard = Some(check("allocating PCG scratch", || self.dev.stream.alloc_zeros::<u8>(bytes))?);
        }
        Ok(guard)
    }

    /// The buffers every batched launch takes: the jobs, θ (one slot at
    /// least), the values (poisoned with NaN), `iters_per_job` iteration
    /// counts per job (poisoned with −1) and the job counter (0).
    pub(super) fn launch_buffers(
        &self,
        job_ids: &[i32],
        theta: &[f64],
        n_jobs: usize,
        iters_per_job: usize,
    ) -> Result<LaunchBuffers, CudaError> {
        let stream = &self.dev.stream;
        let mut theta = theta.to_vec();
        theta.resize(theta.len().max(1), 0.0);
        Ok(LaunchBuffers {
            jobs_d: check("uploading jobs", || stream.clone_htod(job_ids))?,
            theta_d: check("uploading hyperparameters", || {
                stream.clone_htod(&real_bytes(&theta, self.params.precision))
            })?,
            out_d: check("allocating output", || stream.clone_htod(&vec![f64::NAN; n_jobs]))?,
            iters_d: check("allocating output", || stream.clone_htod(&vec![-1i32; iters_per_job * n_jobs]))?,
            counter_d: check("allocating the job counter", || stream.alloc_zeros::<u32>(1))?,
        })
    }

    /// Shared memory the batched kernel needs for pair (graph i of `a`,
    /// graph j of `b`) with the XMV scheme `xmv` (see `kernels/mgk_pcg.cu`),
    /// each part rounded up to 8 bytes: p and y (2N reals) unless the pair
    /// keeps them in global memory (`vectors_shared` false), then
    /// - [`XmvScheme::Rows`]: graph i by rows ((real + edge label + 4 B) per
    ///   nonzero, 4 B per row pointer), graph j's nonzeros ((real + edge
    ///   label + 4 B) each, and its row pointers);
    /// - [`XmvScheme::TilePairs`]: both graphs' octiles (16 B per tile,
    ///   (real + edge label + 1 B) per nonzero).
    pub(super) fn batched_smem(
        a: &GpuGraphs,
        i: usize,
        b: &GpuGraphs,
        j: usize,
        xmv: XmvScheme,
        vectors_shared: bool,
    ) -> usize {
        let rs = a.precision.size();
        let es = a.edge_layout.size_align(a.precision).0.max(1);
        let nn = a.num_nodes[i] * b.num_nodes[j];
        let graphs = match xmv {
            XmvScheme::Rows => {
                let rows = (rs + es + 4) * a.nnz[i] + 4 * (a.num_nodes[i] + 1) + 24;
                // with row pointers (MGK_XMV_CSR: G' staged by rows too)
                let nonzeros = (rs + es + 4) * b.nnz[j] + 4 * (b.num_nodes[j] + 1) + 24;
                rows + nonzeros
            }
            XmvScheme::TilePairs => {
                let tiles = |g: &GpuGraphs, k: usize| 16 * g.num_tiles[k] + (rs + es + 1) * g.nnz[k] + 24;
                tiles(a, i) + tiles(b, j)
            }
        };
        if vectors_shared {
            (2 * nn * rs).div_ceil(8) * 8 + graphs
        } else {
            graphs
        }
    }

    /// Routes the jobs (see `SHARED_VECTOR_BYTES` for the default threshold): `(shared_n, batched, large)`. Jobs of at most
    /// `shared_n` product nodes keep p and y in shared memory; larger ones
    /// keep them in global memory and stage their graphs in shared memory
    /// where they fit, else in global memory too (the mid-size and large
    /// paths); all go to the one batched launch (`batched`, job indices).
    /// Pairs of more than 2³¹ − 1 product nodes (or all, with
    /// [`GpuGramParams::large_pair_path`](crate::mgk::GpuGramParams::large_pair_path)) go to the
    /// single-large-pair path (`large`). `shared_n` is the largest N such
    /// that every job of at most N product nodes fits with its vectors,
    /// capped by [`GpuGramParams::shared_vector_limit`](crate::mgk::GpuGramParams::shared_vector_limit)
    /// when given, else,
    /// when at most a quarter of the jobs have more than 32 KiB of vectors, at
    /// that size.
    fn route(&self, a: &GpuGraphs, b: &GpuGraphs, jobs: &[(usize, usize)]) -> (usize, Vec<usize>, Vec<usize>) {
        let nn = |k: usize| a.num_nodes[jobs[k].0] * b.num_nodes[jobs[k].1];
        let mut shared_n = self.fitting_n(a, b, jobs, self.params.xmv);
        // A few pairs with large vectors would set the shared memory of the whole launch and
        // so its occupancy: when at most a quarter of the pairs have vectors over 32 KiB,
        // those keep them in global memory (PROTEINS f32: 0.82 s rather than 1.04 s).
        let occupancy_n = SHARED_VECTOR_BYTES / (2 * a.precision.size());
        let over = (0..jobs.len()).filter(|&k| nn(k) > occupancy_n).count();
        if self.vector_cap().is_none() && 4 * over <= jobs.len() {
            shared_n = shared_n.min(occupancy_n);
        }
        let (batched, large) =
            (0..jobs.len()).partition(|&k| !self.params.gpu.large_pair_path && nn(k) <= i32::MAX as usize);
        (shared_n, batched, large)
    }

    /// The largest N such that every job of at most N product nodes fits in
    /// shared memory with its vectors (p, y) and graphs under the XMV scheme
    /// `xmv` (the smallest misfit's N − 1; `usize::MAX` when all fit), capped
    /// by [`GpuGramParams::shared_vector_limit`](crate::mgk::GpuGramParams::shared_vector_limit) when given.
    pub(super) fn fitting_n(&self, a: &GpuGraphs, b: &GpuGraphs, jobs: &[(usize, usize)], xmv: XmvScheme) -> usize {
        let limit = self.smem_limit();
        let misfit = jobs
            .iter()
            .filter(|&&(i, j)| Self::batched_smem(a, i, b, j, xmv, true) > limit)
            .map(|&(i, j)| a.num_nodes[i] * b.num_nodes[j])
            .min();
        let n = misfit.map_or(usize::MAX, |n| n.saturating_sub(1));
        self.vector_cap().map_or(n, |cap| n.min(cap))
    }

    /// The explicit cap on product nodes with vectors in shared memory, if any.
    fn vector_cap(&self) -> Option<usize> {
        self.params.gpu.shared_vector_limit
    }

    /// Device buffers for the global staging of a plan: the per-job flags
    /// and `grid` areas of `stage_bytes` each (both `None` when no job
    /// stages its graphs in global memory).
    pub(super) fn staging(&self, plan: &Plan) -> Result<Staging, CudaError> {
        if plan.stage_bytes == 0 {
            return Ok((None, None));
        }
        let stream = &self.dev.stream;
        Ok((
            Some(check("uploading staging flags", || stream.clone_htod(&plan.stage_global))?),
            Some(check("allocating global staging", || stream.alloc_zeros::<u8>(plan.grid * plan.stage_bytes))?),
        ))
    }

    /// Dynamic shared memory a launch may use: the device's limit less a
    /// margin for the kernel's static shared memory.
    fn smem_limit(&self) -> usize {
        self.dev.info.max_shared_per_block.saturating_sub(4096)
    }

    /// Runs the jobs: those whose graphs fit in shared memory by the batched
    /// kernel (their vectors in shared or global memory, see
    /// [`route`](Self::route)), the others (or all, with
    /// [`GpuGramParams::large_pair_path`](crate::mgk::GpuGramParams::large_pair_path)) one by one by the
    /// single-large-pair path. With `nodal`, also returns each job's nodal
    /// similarity (in the uploaded node order).
    pub(crate) fn run(
        &self,
        a: &GpuGraphs,
        b: &GpuGraphs,
        jobs: &[(usize, usize)],
        nodal: bool,
    ) -> Result<RunOut, CudaError> {
        check_ranges(&self.node_kernel, &self.edge_kernel, self.values_checked)?;
        self.check_batch(a, (&a.node_layout, &a.edge_layout))?;
        self.check_batch(b, (&a.node_layout, &a.edge_layout))?;
        let t = std::time::Instant::now();
        let (shared_n, small, big) = self.route(a, b, jobs);
        trace_phase("route", t.elapsed().as_secs_f64());
        if big.is_empty() {
            return self.run_batched(a, b, jobs, nodal, shared_n);
        }
        let mut out = RunOut {
            values: vec![f64::NAN; jobs.len()],
            iterations: vec![0u32; jobs.len()],
            work: 0.0,
            kernel: (String::new(), Origin::Memory, 0.0),
            nodal: nodal.then(|| vec![Vec::new(); jobs.len()]),
        };
        if !small.is_empty() {
            let sj: Vec<(usize, usize)> = small.iter().map(|&k| jobs[k]).collect();
            let mut so = self.run_batched(a, b, &sj, nodal, shared_n)?;
            for (s, &k) in small.iter().enumerate() {
                out.values[k] = so.values[s];
                out.iterations[k] = so.iterations[s];
                if let (Some(dst), Some(src)) = (out.nodal.as_mut(), so.nodal.as_mut()) {
                    dst[k] = std::mem::take(&mut src[s]);
                }
            }
            out.work += so.work;
            out.kernel = so.kernel;
        }
        let max_n = big.iter().map(|&k| a.num_nodes[jobs[k].0] * b.num_nodes[jobs[k].1]).max().unwrap_or(0);
        let mut lw = self.large_work(a, max_n, nodal)?;
        if small.is_empty() {
            out.kernel = lw.kernel.clone();
        }
        for &k in &big {
            let (i, j) = jobs[k];
            let s = self.solve_large(&mut lw, a, i, b, j)?;
            out.values[k] = s.value;
            out.iterations[k] = s.iterations;
            out.work += s.iterations as f64 * a.nnz[i] as f64 * b.nnz[j] as f64;
            if let (Some(dst), Some(v)) = (out.nodal.as_mut(), s.nodal) {
                dst[k] = v;
            }
        }
        Ok(out)
    }

    /// Launch shape of the batched kernels for these jobs: threads per block
    /// (by the mean pair size: a block works on one pair), dynamic shared
    /// memory (the largest pair's), grid (full occupancy, at most one block
    /// per job), the jobs biggest first (for load balance) and the largest N.
    /// `xmv`: the scheme of the kernel `func` (the gradient kernel's is always
    /// [`XmvScheme::Rows`]); pairs of more than `shared_n` product nodes keep
    /// p and y in global memory; `vecs_per_block`: the vectors of max N
    /// reals each block's scratch holds (the grid is capped so that the
    /// scratch takes at most a quarter of the device's memory). A value
    /// launch (`value`) whose pairs all keep their vectors in shared memory,
    /// of 4096 product nodes or more on average but sparse (fewer than
    /// `SPARSE_WORK` nonzero products per product node), takes 512 threads
    /// per block rather than 1024: at 64 registers a thread that is two
    /// blocks per multiprocessor rather than one, so one block works while
    /// the other waits at a barrier or on the staging of its next pair
    /// (issue 31, H200: NWS96L 0.0143 s rather than 0.0164 s, NWS96 0.0037
    /// rather than 0.0041 s; BA96L, dense, 0.072 s rather than 0.059 s, so
    /// it keeps 1024).
    ///
    /// # Errors
    /// [`CudaError::PairTooLarge`] when a pair does not fit in shared memory.
    pub(super) fn plan(
        &self,
        a: &GpuGraphs,
        b: &GpuGraphs,
        jobs: &[(usize, usize)],
        func: &CudaFunction,
        xmv: XmvScheme,
        (shared_n, vecs_per_block, value): (usize, usize, bool),
    ) -> Result<Plan, CudaError> {
        let sum_nn: f64 = jobs.iter().map(|&(i, j)| (a.num_nodes[i] * b.num_nodes[j]) as f64).sum();
        let mean_nn = sum_nn / jobs.len().max(1) as f64;
        let (mut smem, mut max_nn, mut big) = (0usize, 0usize, (0, 0));
        let limit = self.smem_limit();
        let mut stage_bytes = 0usize;
        let mut staged_global = vec![false; jobs.len()];
        for (k, &(i, j)) in jobs.iter().enumerate() {
            let vectors_shared = a.num_nodes[i] * b.num_nodes[j] <= shared_n;
            let mut bytes = Self::batched_smem(a, i, b, j, xmv, vectors_shared);
            if !vectors_shared && (bytes > limit || self.params.gpu.global_staging) {
                // graphs staged in global memory
                staged_global[k] = true;
                stage_bytes = stage_bytes.max(bytes.div_ceil(256) * 256);
                bytes = 0;
            }
            if bytes > smem {
                smem = bytes;
                big = (a.num_nodes[i], b.num_nodes[j]);
            }
            max_nn = max_nn.max(a.num_nodes[i] * b.num_nodes[j]);
        }
        let static_smem = func.shared_size_bytes().unwrap_or(0) as usize;
        if smem + static_smem > self.dev.info.max_shared_per_block || max_nn > i32::MAX as usize {
            return Err(CudaError::PairTooLarge {
                n1: big.0,
                n2: big.1,
                needed: smem + static_smem,
                available: self.dev.info.max_shared_per_block,
            });
        }
        let order =
            costliest_first(jobs.iter().map(|&(i, j)| {
                (a.nnz[i] as u64 + 1) * (b.nnz[j] as u64 + 1) + (a.num_nodes[i] * b.num_nodes[j]) as u64
            }));
        let job_ids: Vec<i32> = order.iter().flat_map(|&k| [jobs[k].0 as i32, jobs[k].1 as i32]).collect();
        let stage_global: Vec<u8> =
            if stage_bytes > 0 { order.iter().map(|&k| u8::from(staged_global[k])).collect() } else { Vec::new() };
        let work: f64 = jobs.iter().map(|&(i, j)| a.nnz[i] as f64 * b.nnz[j] as f64).sum();
        let sparse = value && shared_n >= max_nn && work < SPARSE_WORK * sum_nn;
        let block = self.params.gpu.tuning.block.unwrap_or(if mean_nn >= 4096.0 && !sparse {
            1024
        } else if mean_nn >= 512.0 {
            512
        } else {
            256
        });
        let per_sm =
            check("computing occupancy", || func.occupancy_max_active_blocks_per_multiprocessor(block, smem, None))?
                .max(1) as usize;
        // the per-block scratch (vecs_per_block · max N reals) within a quarter of the device
        let per_block = (vecs_per_block * max_nn.max(1) * a.precision.size() + stage_bytes).max(1);
        let by_memory = (self.dev.info.total_memory / 4 / per_block).max(1);
        let grid = (per_sm * self.dev.info.multiprocessors).min(jobs.len()).min(by_memory).max(1);
        Ok(Plan { block, smem, grid, order, job_ids, scratch_n: max_nn.max(1), stage_global, stage_bytes })
    }

    /// The batched value kernel's source for a launch whose pairs need the
    /// vector placements `placement`: a launch with every pair's vectors in
    /// shared memory takes the kernel of [`VectorPlacement::Shared`] (a
    /// third of the code, so a cold start compiles about a third as long).
    pub(super) fn batched_source(
        &self,
        a: &GpuGraphs,
        placement: VectorPlacement,
    ) -> Result<super::codegen::KernelSource, CudaError> {
        let (kn, ke, p, xmv) = (&self.node_kernel, &self.edge_kernel, self.params.precision, self.params.xmv);
        mgk_source_placed(kn, ke, &a.node_layout, &a.edge_layout, p, xmv, placement, &self.params.gpu.tuning)
    }

    /// The vector placements a Gram matrix of graphs of these sizes (nodes,
    /// stored entries) with themselves is likely to need, by the rules of
    /// [`route`](Self::route) (an estimate from the largest graph paired
    /// with itself and from the node counts alone: it only picks the kernel
    /// compiled ahead at upload; each launch picks its own).
    pub(super) fn placement_hint(&self, sizes: &[(usize, usize)], edge_bytes: usize) -> VectorPlacement {
        let rs = self.params.precision.size();
        let Some(&(n, nz)) = sizes.iter().max_by_key(|s| s.0) else { return VectorPlacement::Shared };
        // a graph paired with itself: whether its vectors miss shared memory
        let misses = |&(n, nz): &(usize, usize)| {
            let graphs = 2 * (rs + edge_bytes.max(1) + 4) * nz + 8 * (n + 1) + 48;
            (2 * n * n * rs).div_ceil(8) * 8 + graphs > self.smem_limit()
                || self.vector_cap().is_some_and(|cap| n * n > cap)
        };
        let smallest = sizes.iter().min_by_key(|s| s.0).copied().unwrap_or((n, nz));
        if !self.params.gpu.any_placement && misses(&smallest) {
            return VectorPlacement::Global;
        }
        if misses(&(n, nz)) {
            return VectorPlacement::Any;
        }
        if self.vector_cap().is_some() {
            return VectorPlacement::Shared;
        }
        // pairs i <= j with n_i n_j over the occupancy size, by two pointers over the sorted counts
        let occupancy_n = SHARED_VECTOR_BYTES / (2 * rs);
        let mut ns: Vec<usize> = sizes.iter().map(|s| s.0).collect();
        ns.sort_unstable();
        let (m, mut over, mut hi) = (ns.len(), 0usize, ns.len());
        for (i, &ni) in ns.iter().enumerate() {
            while hi > 0 && ni * ns[hi - 1] > occupancy_n {
                hi -= 1;
            }
            // partners j >= max(i, hi)
            over += m - hi.max(i);
        }
        if over > 0 && 4 * over <= m * (m + 1) / 2 {
            VectorPlacement::Any
        } else {
            VectorPlacement::Shared
        }
    }

    /// One launch of the batched kernel for `jobs`; pairs of more than
    /// `shared_n` product nodes keep p and y in global memory.
    fn run_batched(
        &self,
        a: &GpuGraphs,
        b: &GpuGraphs,
        jobs: &[(usize, usize)],
        nodal: bool,
        shared_n: usize,
    ) -> Result<RunOut, CudaError> {
        if jobs.is_empty() {
            return Ok(RunOut {
                values: Vec::new(),
                iterations: Vec::new(),
                work: 0.0,
                kernel: (String::new(), Origin::Memory, 0.0),
                nodal: nodal.then(Vec::new),
            });
        }
        let t_prep = std::time::Instant::now();
        let precision = self.params.precision;
        let rs = precision.size();
        let global = |&(i, j): &(usize, usize)| a.num_nodes[i] * b.num_nodes[j] > shared_n;
        let any_global = jobs.iter().any(global);
        let placement = if self.params.gpu.any_placement {
            VectorPlacement::Any
        } else if jobs.iter().all(global) {
            VectorPlacement::Global
        } else if any_global {
            VectorPlacement::Any
        } else {
            VectorPlacement::Shared
        };
        let src = self.batched_source(a, placement)?;
        let t_jit = std::time::Instant::now();
        let (func, origin) = self.function(&src.name, &src.source)?;
        let jit_seconds = t_jit.elapsed().as_secs_f64();
        let nvec = if any_global { 6 } else { 4 };
        let plan = self.plan(a, b, jobs, &func, self.params.xmv, (shared_n, nvec, true))?;
        let (stage_flags_d, stage_d) = self.staging(&plan)?;
        let Plan { block, smem, grid, order, job_ids, scratch_n, stage_bytes, .. } = plan;
        // the kernel reads 6 vectors per block when shared_n < scratch_n
        let shared_n = if any_global { shared_n.min(scratch_n - 1) } else { scratch_n };
        let stream = &self.dev.stream;
        trace_phase("plan", t_prep.elapsed().as_secs_f64());
        let t_wait = std::time::Instant::now();
        let scratch_guard = self.scratch(grid * nvec * scratch_n * rs)?;
        trace_phase("wait", t_wait.elapsed().as_secs_f64());
        let t_gpu = std::time::Instant::now();
        let scratch = scratch_guard.as_ref().expect("allocated by scratch()");
        let LaunchBuffers { jobs_d, theta_d, out_d, iters_d, counter_d } =
            self.launch_buffers(&job_ids, &src.theta, jobs.len(), 1)?;
        // nodal outputs: job slot s's N values at nodal_off[s] (poisoned with NaN)
        let mut nodal_off = vec![0i64; jobs.len()];
        let mut total = 0i64;
        for (s, &k) in order.iter().enumerate() {
            nodal_off[s] = total;
            let (i, j) = jobs[k];
            total += if nodal { (a.num_nodes[i] * b.num_nodes[j]) as i64 } else { 0 };
        }
        let nodal_d = check("allocating nodal output", || stream.clone_htod(&vec![f64::NAN; total.max(1) as usize]))?;
        let nodal_off_d = check("uploading nodal offsets", || stream.clone_htod(&nodal_off))?;
        let null_ptr: u64 = 0;
        let stage_bytes_arg = stage_bytes as i64;

        let dscale = self.params.system().scale;
        let tol = self.params.tolerance();
        let (dscale32, tol32) = (dscale as f32, tol as f32);
        let n_jobs = jobs.len() as i32;
        let max_iter = self.params.max_iter.min(i32::MAX as u32) as i32;
        let lmin = self.params.lmin as i32;
        let scratch_n_arg = scratch_n as i64;
        let shared_n_arg = shared_n as i64;
        let cfg =
            LaunchConfig { grid_dim: (grid as u32, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: smem as u32 };
        let mut lb = stream.launch_builder(&func);
        lb.arg(&a.set).arg(&b.set).arg(&jobs_d).arg(&n_jobs).arg(&theta_d);
        match precision {
            Precision::F32 => lb.arg(&dscale32).arg(&tol32),
            Precision::F64 => lb.arg(&dscale).arg(&tol),
        };
        lb.arg(&max_iter).arg(&lmin).arg(scratch).arg(&scratch_n_arg).arg(&shared_n_arg);
        match (&stage_flags_d, &stage_d) {
            (Some(f), Some(g)) => lb.arg(f).arg(g),
            _ => lb.arg(&null_ptr).arg(&null_ptr),
        };
        lb.arg(&stage_bytes_arg).arg(&out_d).arg(&iters_d);
        if nodal {
            lb.arg(&nodal_d);
        } else {
            lb.arg(&null_ptr);
        }
        lb.arg(&nodal_off_d).arg(&counter_d);
        // SAFETY: the arguments match the kernel's parameter list in kernels/mgk_pcg.cu; every
        // buffer outlives the launch (the stream is synchronized below).
        check("launching the batched PCG kernel", || unsafe { lb.launch(cfg) })?;
        let out = check("reading results", || stream.clone_dtoh(&out_d))?;
        let its = check("reading iteration counts", || stream.clone_dtoh(&iters_d))?;
        let nodal_h = if nodal { Some(check("reading nodal output", || stream.clone_dtoh(&nodal_d))?) } else { None };
        check("synchronizing", || stream.synchronize())?;
        drop(scratch_guard);
        trace_phase("gpu", t_gpu.elapsed().as_secs_f64());
        let t_post = std::time::Instant::now();

        let mut r = RunOut {
            values: vec![f64::NAN; jobs.len()],
            iterations: vec![0u32; jobs.len()],
            work: 0.0,
            kernel: (src.name, origin, jit_seconds),
            nodal: nodal.then(|| vec![Vec::new(); jobs.len()]),
        };
        for (slot, &k) in order.iter().enumerate() {
            r.values[k] = out[slot];
            r.iterations[k] = its[slot].max(0) as u32;
            let (i, j) = jobs[k];
            r.work += r.iterations[k] as f64 * a.nnz[i] as f64 * b.nnz[j] as f64;
            if let (Some(dst), Some(h)) = (r.nodal.as_mut(), nodal_h.as_ref()) {
                let o = nodal_off[slot] as usize;
                dst[k] = h[o..o + a.num_nodes[i] * b.num_nodes[j]].to_vec();
            }
        }
        trace_phase("post", t_post.elapsed().as_secs_f64());
        Ok(r)
    }
}

/// Launch shape of a batched kernel (see `GpuGram::plan`).
pub(super) struct Plan {
    pub(super) block: u32,
    pub(super) smem: usize,
    pub(super) grid: usize,
    /// Jobs in launch order (biggest first).
    pub(super) order: Vec<usize>,
    /// (graph of A, graph of B) per launched job.
    pub(super) job_ids: Vec<i32>,
    /// Largest N = n n′.
    pub(super) scratch_n: usize,
    /// Per launched job, 1 where its graphs are staged in global memory
    /// (empty when none is).
    pub(super) stage_global: Vec<u8>,
    /// Bytes of global staging per block (0 when no job needs it).
    pub(super) stage_bytes: usize,
}

/// The global staging of a launch (see `GpuGram::staging`): per-job flags
/// and the staging areas, or neither.
pub(super) type Staging = (Option<CudaSlice<u8>>, Option<CudaSlice<u8>>);

/// Device buffers of one batched launch (see `GpuGram::launch_buffers`).
pub(super) struct LaunchBuffers {
    pub(super) jobs_d: CudaSlice<i32>,
    pub(super) theta_d: CudaSlice<u8>,
    pub(super) out_d: CudaSlice<f64>,
    pub(super) iters_d: CudaSlice<i32>,
    pub(super) counter_d: CudaSlice<u32>,
}

/// What a run of jobs gives back.
pub(crate) struct RunOut {
    /// K per job.
    pub(crate) values: Vec<f64>,
    /// PCG iterations per job.
    pub(crate) iterations: Vec<u32>,
    /// Σ iterations · nnz · nnz′.
    pub(crate) work: f64,
    /// Kernel name, where its image came from, seconds to get it ready.
    pub(crate) kernel: (String, Origin, f64),
    /// Per job, the nodal similarity in the uploaded node order, when asked.
    pub(crate) nodal: Option<Vec<Vec<f64>>>,
}

#[cfg(test)]
mod tests;
