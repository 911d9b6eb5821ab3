//! [`GpuGram`]: Gram matrices of the marginalized graph kernel on a GPU.

use super::codegen::{mgk_block, mgk_source_with};
use super::device::{check, device, Device, FunctionKey};
use super::jit::{compile_tiered, Tier};
use super::label::{GpuLabel, LabelLayout};
use super::pack::{pack_graphs_for, PackedBatch};
use super::DeviceInfo;
use super::{CudaError, GramOutput, MgkParams, Origin, Precision, XmvScheme};
use crate::basekernel::BaseKernel;
use crate::graph::Graph;
use crate::mgk::system::{cross_pairs, diagonal_pairs, upper_pairs};
use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

mod grad;
mod large;

/// Graphs packed in octile form and uploaded to one device, for one
/// precision. Upload once, use in many calls.
pub struct GpuGraphs {
    dev: Arc<Device>,
    precision: Precision,
    node_layout: LabelLayout,
    edge_layout: LabelLayout,
    num_nodes: Vec<usize>,
    num_tiles: Vec<usize>,
    nnz: Vec<usize>,
    set: GraphSet,
    _bufs: Vec<CudaSlice<u8>>,
}

impl std::fmt::Debug for GpuGraphs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuGraphs")
            .field("device", &self.dev.info.ordinal)
            .field("precision", &self.precision)
            .field("graphs", &self.num_nodes.len())
            .finish()
    }
}

impl GpuGraphs {
    /// Number of graphs.
    pub fn len(&self) -> usize {
        self.num_nodes.len()
    }

    /// Whether there are no graphs.
    pub fn is_empty(&self) -> bool {
        self.num_nodes.is_empty()
    }

    /// Number of nodes of each graph.
    pub fn num_nodes(&self) -> &[usize] {
        &self.num_nodes
    }

    /// Number of stored entries (arcs) of each graph.
    pub fn num_entries(&self) -> &[usize] {
        &self.nnz
    }

    /// The precision the graphs were uploaded for.
    pub fn precision(&self) -> Precision {
        self.precision
    }
}

/// Device pointers of one uploaded batch, as the kernel's `GraphSet`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct GraphSet {
    node_off: u64,
    tile_off: u64,
    nz_off: u64,
    tile_ij: u64,
    tile_bm: u64,
    tile_nz: u64,
    nz_pos: u64,
    nz_w: u64,
    nz_e: u64,
    deg: u64,
    vlab: u64,
    start: u64,
}

// SAFETY: plain old data, laid out as the kernel's `struct GraphSet` (12 pointers).
unsafe impl DeviceRepr for GraphSet {}

/// The marginalized graph kernel on a CUDA device: node kernel `KN` on node
/// labels `N`, edge kernel `KE` on edge labels `E`.
///
/// The kernels' CUDA forms are compiled once per distinct source (cached in
/// memory and on disk); their hyperparameters go to the device with each
/// call, so [`kernels_mut`](Self::kernels_mut) followed by another call does
/// not recompile.
pub struct GpuGram<N, E, KN, KE> {
    dev: Arc<Device>,
    node_kernel: KN,
    edge_kernel: KE,
    params: MgkParams,
    scratch: Mutex<Option<CudaSlice<u8>>>,
    force_large: bool,
    _labels: PhantomData<fn(&N, &E)>,
}

/// Waits for the background compiles ([`jit::wait_background`](super::jit::wait_background)):
/// at most about one full compile (0.5 s on a cold cache), so that no NVRTC
/// thread outlives the kernel at process exit and the full image reaches the
/// disk cache for the next process. A program that ends with
/// `std::process::exit` while a `GpuGram` is alive must call
/// `jit::wait_background()` first.
impl<N, E, KN, KE> Drop for GpuGram<N, E, KN, KE> {
    fn drop(&mut self) {
        super::jit::wait_background();
    }
}

impl<N, E, KN, KE> std::fmt::Debug for GpuGram<N, E, KN, KE> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuGram").field("device", &self.dev.info).field("params", &self.params).finish()
    }
}

fn real_bytes(v: &[f64], p: Precision) -> Vec<u8> {
    match p {
        Precision::F32 => v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect(),
        Precision::F64 => v.iter().flat_map(|&x| x.to_le_bytes()).collect(),
    }
}

fn pod_bytes<T: Copy>(v: &[T], f: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

impl<N, E, KN, KE> GpuGram<N, E, KN, KE>
where
    N: GpuLabel,
    E: GpuLabel,
    KN: BaseKernel<N>,
    KE: BaseKernel<E>,
{
    /// The kernel on device `ordinal`.
    ///
    /// # Errors
    /// [`CudaError::InvalidParameter`] for bad `params`;
    /// [`CudaError::KernelRange`] when κv is not within (0, 1] or κe not
    /// within [0, 1] (the system would not be positive definite);
    /// device errors from opening the device.
    pub fn new(ordinal: usize, node_kernel: KN, edge_kernel: KE, params: MgkParams) -> Result<Self, CudaError> {
        params.validate().map_err(|e| CudaError::InvalidParameter(e.to_string()))?;
        check_ranges(&node_kernel, &edge_kernel)?;
        // NVRTC's start-up overlaps opening the device; without a device no
        // GpuGram will wait for it at drop, so wait here (a thread still in
        // NVRTC at process exit crashes the process)
        super::jit::warm_up();
        let dev = device(ordinal).inspect_err(|_| super::jit::wait_background())?;
        Ok(GpuGram {
            dev,
            node_kernel,
            edge_kernel,
            params,
            scratch: Mutex::new(None),
            force_large: false,
            _labels: PhantomData,
        })
    }

    /// The device.
    pub fn device(&self) -> &DeviceInfo {
        self.dev.info()
    }

    /// The parameters.
    pub fn params(&self) -> &MgkParams {
        &self.params
    }

    /// With `true`, every pair goes to the single-large-pair path (a host PCG
    /// loop over device vectors, one XMV launch over all tile pairs per
    /// iteration), not only the pairs too large for the batched kernel's
    /// shared memory. For testing and comparison; default `false`.
    pub fn set_large_pair_path(&mut self, force: bool) {
        self.force_large = force;
    }

    /// The nodal similarity of one pair on the GPU: the `n × n′` row-major
    /// matrix `K_ii′ = p_i p′_i′ r_ii′ − lmin p_i p′_i′ κv(v_i, v′_i′)` in the
    /// graphs' own node order (the reordering applied at upload is undone),
    /// as `MarginalizedGraphKernel::nodal` on the CPU. Solved by the batched
    /// kernel (or the single-large-pair path when the pair does not fit in
    /// shared memory). Cost: one PCG solve, O(n n′) read back.
    ///
    /// # Errors
    /// As [`upload`](Self::upload) and [`gram_xy`](Self::gram_xy).
    pub fn nodal(&self, g: &Graph<N, E>, h: &Graph<N, E>) -> Result<super::NodalOutput, CudaError> {
        let graphs = [g.clone(), h.clone()];
        self.nodal_pairs(&graphs, &[(0, 1)]).map(|mut v| v.remove(0))
    }

    /// The nodal similarity of every pair `i ≤ j` of a (small) set, in the
    /// order (0,0), (0,1), …, (0,m−1), (1,1), …; see [`nodal`](Self::nodal).
    /// Cost: m(m+1)/2 solves in one batched launch; Σ n n′ values read back.
    ///
    /// # Errors
    /// As [`nodal`](Self::nodal).
    pub fn nodal_all(&self, graphs: &[Graph<N, E>]) -> Result<Vec<super::NodalOutput>, CudaError> {
        self.nodal_pairs(graphs, &upper_pairs(graphs.len()))
    }

    pub(crate) fn nodal_pairs(
        &self,
        graphs: &[Graph<N, E>],
        pairs: &[(usize, usize)],
    ) -> Result<Vec<super::NodalOutput>, CudaError> {
        use crate::graph::reorder::reorder;
        check_ranges(&self.node_kernel, &self.edge_kernel)?;
        let (reordered, perms): (Vec<_>, Vec<_>) = graphs.iter().map(|g| reorder(g, self.params.reorder)).unzip();
        let up = self.upload_packed(&self.pack(&reordered)?)?;
        let mut r = self.run(&up, &up, pairs, true)?;
        let nodal = r.nodal.take().expect("nodal output requested");
        let mut out = Vec::with_capacity(pairs.len());
        for (k, (&(i, j), y)) in pairs.iter().zip(nodal).enumerate() {
            let values = perms[i]
                .apply_inverse_pairs(&perms[j], &y)
                .map_err(|e| CudaError::InvalidParameter(format!("nodal output of pair ({i}, {j}): {e}")))?;
            out.push(super::NodalOutput {
                rows: graphs[i].num_nodes(),
                cols: graphs[j].num_nodes(),
                values,
                value: r.values[k],
                iterations: r.iterations[k],
            });
        }
        Ok(out)
    }

    /// The node and edge kernels, to change hyperparameters between calls.
    pub fn kernels_mut(&mut self) -> (&mut KN, &mut KE) {
        (&mut self.node_kernel, &mut self.edge_kernel)
    }

    /// Reorders each graph (by [`MgkParams::reorder`], in parallel), packs
    /// the graphs into octiles and uploads them for this kernel's precision.
    /// Starts compiling the batched kernel for these labels in the
    /// background (see [`jit::prefetch`](super::jit::prefetch)), so that the
    /// first `gram` finds it ready or nearly so.
    ///
    /// # Errors
    /// [`CudaError::UnsupportedGraph`] / [`CudaError::Label`] from packing;
    /// [`CudaError::Driver`] from the copies.
    pub fn upload(&self, graphs: &[Graph<N, E>]) -> Result<GpuGraphs, CudaError> {
        use crate::graph::reorder::{reorder, Method};
        use rayon::prelude::*;
        self.prefetch(graphs);
        let packed = match self.params.reorder {
            Method::Natural => self.pack(graphs)?,
            m => {
                let reordered: Vec<Graph<N, E>> = graphs.par_iter().map(|g| reorder(g, m).0).collect();
                self.pack(&reordered)?
            }
        };
        self.upload_packed(&packed)
    }

    /// Starts compiling the batched kernel for the labels of `graphs` (with
    /// [`MgkParams::xmv`]'s scheme, as the calls will) in the background,
    /// unless it is loaded already. Label layouts come from the
    /// first graph with nodes (edges), as in packing.
    fn prefetch(&self, graphs: &[Graph<N, E>]) {
        let p = self.params.precision;
        let first_nodes = graphs.iter().find(|g| g.num_nodes() > 0).map(|g| g.node_labels()).unwrap_or(&[]);
        let first_edges = graphs.iter().find(|g| g.num_entries() > 0).map(|g| g.edge_labels()).unwrap_or(&[]);
        let (Ok(nl), Ok(el)) = (N::layout(first_nodes, p), E::layout(first_edges, p)) else { return };
        if let Ok(src) = mgk_source_with(&self.node_kernel, &self.edge_kernel, &nl, &el, p, self.params.xmv) {
            if !self.dev.functions.read().unwrap_or_else(|e| e.into_inner()).contains_key(&FunctionKey::full(&src.name))
            {
                super::jit::prefetch(src.source, src.name, self.dev.info.compute_capability);
            }
        }
    }

    /// Packs `graphs` for this kernel's precision, with the degrees of its
    /// system ([`MgkParams::system`]).
    fn pack(&self, graphs: &[Graph<N, E>]) -> Result<PackedBatch, CudaError> {
        pack_graphs_for(graphs, self.params.precision, &self.params.system())
    }

    /// Uploads an already packed batch.
    ///
    /// # Errors
    /// [`CudaError::Driver`] from the copies.
    pub fn upload_packed(&self, b: &PackedBatch) -> Result<GpuGraphs, CudaError> {
        let p = b.precision;
        let i32b = |v: &[i32]| pod_bytes(v, |x| x.to_le_bytes().to_vec());
        let host: [Vec<u8>; 12] = [
            i32b(&b.node_offsets),
            i32b(&b.tile_offsets),
            i32b(&b.nz_offsets),
            pod_bytes(&b.tile_ij, |x| x.to_le_bytes().to_vec()),
            pod_bytes(&b.tile_bitmap, |x| x.to_le_bytes().to_vec()),
            i32b(&b.tile_start),
            b.nz_pos.clone(),
            real_bytes(&b.nz_weight, p),
            b.nz_label.clone(),
            real_bytes(&b.degree, p),
            b.node_label.clone(),
            real_bytes(&b.start, p),
        ];
        let stream = &self.dev.stream;
        let mut bufs = Vec::with_capacity(12);
        let mut ptrs = [0u64; 12];
        for (k, h) in host.iter().enumerate() {
            // never allocate zero bytes
            let data: &[u8] = if h.is_empty() { &[0u8; 8] } else { h };
            let d = check("uploading graphs", || stream.clone_htod(data))?;
            ptrs[k] = d.device_ptr(stream).0;
            bufs.push(d);
        }
        let set = GraphSet {
            node_off: ptrs[0],
            tile_off: ptrs[1],
            nz_off: ptrs[2],
            tile_ij: ptrs[3],
            tile_bm: ptrs[4],
            tile_nz: ptrs[5],
            nz_pos: ptrs[6],
            nz_w: ptrs[7],
            nz_e: ptrs[8],
            deg: ptrs[9],
            vlab: ptrs[10],
            start: ptrs[11],
        };
        Ok(GpuGraphs {
            dev: self.dev.clone(),
            precision: p,
            node_layout: b.node_layout.clone(),
            edge_layout: b.edge_layout.clone(),
            num_nodes: (0..b.len()).map(|g| b.num_nodes(g)).collect(),
            num_tiles: (0..b.len()).map(|g| b.num_tiles(g)).collect(),
            nnz: b.nnz.clone(),
            set,
            _bufs: bufs,
        })
    }

    /// The Gram matrix K(G_i, G_j) of one batch (symmetric, `len × len`).
    ///
    /// # Errors
    /// See [`gram_xy`](Self::gram_xy).
    pub fn gram(&self, g: &GpuGraphs) -> Result<GramOutput, CudaError> {
        let m = g.len();
        let jobs = upper_pairs(m);
        let r = self.run(g, g, &jobs, false)?;
        let mut values = vec![f64::NAN; m * m];
        let mut iterations = vec![0; m * m];
        for (k, &(i, j)) in jobs.iter().enumerate() {
            values[i * m + j] = r.values[k];
            values[j * m + i] = r.values[k];
            iterations[i * m + j] = r.iterations[k];
            iterations[j * m + i] = r.iterations[k];
        }
        Ok(GramOutput { values, rows: m, cols: m, iterations, xmv_products: r.work, kernel: r.kernel })
    }

    /// The cross Gram matrix K(X_i, Y_j) (`x.len() × y.len()`).
    ///
    /// # Errors
    /// [`CudaError::Mismatch`] when the batches were uploaded for another
    /// precision, label layout or device; [`CudaError::PairTooLarge`] when
    /// a pair has more than 2³¹ − 1 product nodes (pairs that do not fit in
    /// shared memory go to the single-large-pair path); [`CudaError::Compile`] /
    /// [`CudaError::Driver`] from compiling and running.
    pub fn gram_xy(&self, x: &GpuGraphs, y: &GpuGraphs) -> Result<GramOutput, CudaError> {
        let (m, n) = (x.len(), y.len());
        let jobs = cross_pairs(m, n);
        let r = self.run(x, y, &jobs, false)?;
        Ok(GramOutput {
            values: r.values,
            rows: m,
            cols: n,
            iterations: r.iterations,
            xmv_products: r.work,
            kernel: r.kernel,
        })
    }

    /// The diagonal K(G_i, G_i) (`1 × len`).
    ///
    /// # Errors
    /// See [`gram_xy`](Self::gram_xy).
    pub fn diag(&self, g: &GpuGraphs) -> Result<GramOutput, CudaError> {
        let r = self.run(g, g, &diagonal_pairs(g.len()), false)?;
        Ok(GramOutput {
            values: r.values,
            rows: 1,
            cols: g.len(),
            iterations: r.iterations,
            xmv_products: r.work,
            kernel: r.kernel,
        })
    }

    fn check_batch(&self, g: &GpuGraphs, layouts: (&LabelLayout, &LabelLayout)) -> Result<(), CudaError> {
        let expected = format!("{:?} on device {}", self.params.precision, self.dev.info.ordinal);
        if g.precision != self.params.precision || !Arc::ptr_eq(&g.dev, &self.dev) {
            return Err(CudaError::Mismatch {
                uploaded: format!("{:?} on device {}", g.precision, g.dev.info.ordinal),
                expected,
            });
        }
        if (&g.node_layout, &g.edge_layout) != layouts {
            return Err(CudaError::Mismatch {
                uploaded: format!("labels {:?} / {:?}", g.node_layout, g.edge_layout),
                expected: format!("labels {:?} / {:?}", layouts.0, layouts.1),
            });
        }
        Ok(())
    }

    /// The loaded kernel `name` of `source`: the fully optimized one when it
    /// is ready, else the fast-tier one while the full one compiles in the
    /// background (see [`compile_tiered`]); later calls pick up the full one.
    fn function(&self, name: &str, source: &str) -> Result<(CudaFunction, Origin), CudaError> {
        {
            let funcs = self.dev.functions.read().unwrap_or_else(|e| e.into_inner());
            if let Some(f) = funcs.get(&FunctionKey::full(name)) {
                return Ok((f.clone(), Origin::Memory));
            }
            // the full image still compiling: keep running the fast one
            if let Some(f) = funcs.get(&FunctionKey::fast(name)) {
                if super::jit::ready(source, name, self.dev.info.compute_capability).is_none() {
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
    fn scratch(&self, bytes: usize) -> Result<std::sync::MutexGuard<'_, Option<CudaSlice<u8>>>, CudaError> {
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
    fn launch_buffers(
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
    /// each part rounded up to 8 bytes: p and y (2N reals), then
    /// - [`XmvScheme::Rows`]: graph i by rows ((real + edge label + 4 B) per
    ///   nonzero, 4 B per row pointer), graph j's nonzeros ((real + edge
    ///   label + 4 B) each);
    /// - [`XmvScheme::TilePairs`]: both graphs' octiles (16 B per tile,
    ///   (real + edge label + 1 B) per nonzero).
    fn batched_smem(a: &GpuGraphs, i: usize, b: &GpuGraphs, j: usize, xmv: XmvScheme) -> usize {
        let rs = a.precision.size();
        let es = a.edge_layout.size_align(a.precision).0.max(1);
        let nn = a.num_nodes[i] * b.num_nodes[j];
        let graphs = match xmv {
            XmvScheme::Rows => {
                let rows = (rs + es + 4) * a.nnz[i] + 4 * (a.num_nodes[i] + 1) + 24;
                let nonzeros = (rs + es + 4) * b.nnz[j] + 24;
                rows + nonzeros
            }
            XmvScheme::TilePairs => {
                let tiles = |g: &GpuGraphs, k: usize| 16 * g.num_tiles[k] + (rs + es + 1) * g.nnz[k] + 24;
                tiles(a, i) + tiles(b, j)
            }
        };
        (2 * nn * rs).div_ceil(8) * 8 + graphs
    }

    /// Runs the jobs: those that fit in shared memory by the batched kernel,
    /// the others (or all, with [`set_large_pair_path`](Self::set_large_pair_path))
    /// one by one by the single-large-pair path. With `nodal`, also returns
    /// each job's nodal similarity (in the uploaded node order).
    pub(crate) fn run(
        &self,
        a: &GpuGraphs,
        b: &GpuGraphs,
        jobs: &[(usize, usize)],
        nodal: bool,
    ) -> Result<RunOut, CudaError> {
        check_ranges(&self.node_kernel, &self.edge_kernel)?;
        self.check_batch(a, (&a.node_layout, &a.edge_layout))?;
        self.check_batch(b, (&a.node_layout, &a.edge_layout))?;
        // margin for the kernel's static shared memory
        let limit = self.dev.info.max_shared_per_block.saturating_sub(4096);
        let xmv = self.params.xmv;
        let fits = |&(i, j): &(usize, usize)| Self::batched_smem(a, i, b, j, xmv) <= limit;
        let (small, big): (Vec<usize>, Vec<usize>) =
            (0..jobs.len()).partition(|&k| !self.force_large && fits(&jobs[k]));
        if big.is_empty() {
            return self.run_batched(a, b, jobs, nodal);
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
            let mut so = self.run_batched(a, b, &sj, nodal)?;
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
    /// [`XmvScheme::Rows`]).
    ///
    /// # Errors
    /// [`CudaError::PairTooLarge`] when a pair does not fit in shared memory.
    fn plan(
        &self,
        a: &GpuGraphs,
        b: &GpuGraphs,
        jobs: &[(usize, usize)],
        func: &CudaFunction,
        xmv: XmvScheme,
    ) -> Result<Plan, CudaError> {
        let sum_nn: f64 = jobs.iter().map(|&(i, j)| (a.num_nodes[i] * b.num_nodes[j]) as f64).sum();
        let mean_nn = sum_nn / jobs.len().max(1) as f64;
        let block = mgk_block().unwrap_or(if mean_nn >= 4096.0 {
            1024
        } else if mean_nn >= 512.0 {
            512
        } else {
            256
        });
        let (mut smem, mut max_nn, mut big) = (0usize, 0usize, (0, 0));
        for &(i, j) in jobs {
            let bytes = Self::batched_smem(a, i, b, j, xmv);
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
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        let cost = |k: usize| {
            let (i, j) = jobs[k];
            (a.nnz[i] as u64 + 1) * (b.nnz[j] as u64 + 1) + (a.num_nodes[i] * b.num_nodes[j]) as u64
        };
        order.sort_by_key(|&k| std::cmp::Reverse(cost(k)));
        let job_ids: Vec<i32> = order.iter().flat_map(|&k| [jobs[k].0 as i32, jobs[k].1 as i32]).collect();
        let per_sm =
            check("computing occupancy", || func.occupancy_max_active_blocks_per_multiprocessor(block, smem, None))?
                .max(1) as usize;
        let grid = (per_sm * self.dev.info.multiprocessors).min(jobs.len()).max(1);
        Ok(Plan { block, smem, grid, order, job_ids, scratch_n: max_nn.max(1) })
    }

    fn run_batched(
        &self,
        a: &GpuGraphs,
        b: &GpuGraphs,
        jobs: &[(usize, usize)],
        nodal: bool,
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
        let precision = self.params.precision;
        let rs = precision.size();
        let src = mgk_source_with(
            &self.node_kernel,
            &self.edge_kernel,
            &a.node_layout,
            &a.edge_layout,
            self.params.precision,
            self.params.xmv,
        )?;
        let t_jit = std::time::Instant::now();
        let (func, origin) = self.function(&src.name, &src.source)?;
        let jit_seconds = t_jit.elapsed().as_secs_f64();
        let Plan { block, smem, grid, order, job_ids, scratch_n } = self.plan(a, b, jobs, &func, self.params.xmv)?;
        let stream = &self.dev.stream;
        let scratch_guard = self.scratch(grid * 4 * scratch_n * rs)?;
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

        let dscale = self.params.system().scale;
        let tol = self.params.tolerance();
        let (dscale32, tol32) = (dscale as f32, tol as f32);
        let n_jobs = jobs.len() as i32;
        let max_iter = self.params.max_iter.min(i32::MAX as u32) as i32;
        let lmin = self.params.lmin as i32;
        let scratch_n_arg = scratch_n as i64;
        let cfg =
            LaunchConfig { grid_dim: (grid as u32, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: smem as u32 };
        let mut lb = stream.launch_builder(&func);
        lb.arg(&a.set).arg(&b.set).arg(&jobs_d).arg(&n_jobs).arg(&theta_d);
        match precision {
            Precision::F32 => lb.arg(&dscale32).arg(&tol32),
            Precision::F64 => lb.arg(&dscale).arg(&tol),
        };
        lb.arg(&max_iter).arg(&lmin).arg(scratch).arg(&scratch_n_arg).arg(&out_d).arg(&iters_d);
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
        Ok(r)
    }
}

/// Launch shape of a batched kernel (see `GpuGram::plan`).
struct Plan {
    block: u32,
    smem: usize,
    grid: usize,
    /// Jobs in launch order (biggest first).
    order: Vec<usize>,
    /// (graph of A, graph of B) per launched job.
    job_ids: Vec<i32>,
    /// Largest N = n n′.
    scratch_n: usize,
}

/// Device buffers of one batched launch (see `GpuGram::launch_buffers`).
struct LaunchBuffers {
    jobs_d: CudaSlice<i32>,
    theta_d: CudaSlice<u8>,
    out_d: CudaSlice<f64>,
    iters_d: CudaSlice<i32>,
    counter_d: CudaSlice<u32>,
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

/// The base kernels' ranges ([`crate::mgk::system::check_ranges`]), as a
/// [`CudaError::KernelRange`].
fn check_ranges<N, E, KN: BaseKernel<N>, KE: BaseKernel<E>>(kn: &KN, ke: &KE) -> Result<(), CudaError> {
    crate::mgk::system::check_ranges(kn, ke).map_err(|e| CudaError::KernelRange(e.to_string()))
}
