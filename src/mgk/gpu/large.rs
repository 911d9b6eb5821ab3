//! The single-large-pair path: PCG for one pair as a host loop over device
//! vectors with one on-the-fly XMV launch per iteration
//! (`kernels/mgk_large.cu`). Since the batched kernel keeps large pairs'
//! vectors and graphs in global memory, it runs only when forced
//! ([`GpuGramParams::large_pair_path`](crate::mgk::GpuGramParams::large_pair_path)), as a comparison path.
//!
//! Per iteration: `y = diag ⊙ p` and `y −= ((W ⊗ W′) ⊙ E×) p` (many blocks,
//! one warp per pair of non-empty octiles, global atomics), `pᵀy` (one
//! read-back), the fused update `x += αp, r −= αy` with `rᵀr` and `rᵀM⁻¹r`
//! (one read-back), `p = M⁻¹r + βp`. Five launches and two 64-byte
//! read-backs per iteration; the vectors (6 · n n′ reals) stay on the device.
//!
//! `src/solver`'s generic `cg` over [`DeviceVec`](crate::cuda::DeviceVec)
//! with this module's `_xmv` kernel as the product (the device
//! `KronProduct` of `kron_device.rs`, [`crate::kron::DeviceKron`])
//! does about the same per iteration (the direction update, the diagonal
//! product, the XMV, `pᵀq` and the fused update with its two reductions: five
//! launches, two read-backs); this path keeps its own set-up and result
//! kernels for the MGK's right-hand side and output. The algorithm is the same (Jacobi PCG from x₀ = 0,
//! stopped at ‖r‖ ≤ tol ‖b‖), and it is checked against the CPU reference.

use super::codegen::{mgk_large_source, LARGE_KERNELS};
use super::gram::GpuGram;
use super::upload::{real_bytes, GpuGraphs};
use crate::basekernel::BaseKernel;
use crate::cuda::device::{check, FunctionKey};
use crate::cuda::jit::compile_cached;
use crate::cuda::label::GpuLabel;
use crate::cuda::{CudaError, Origin, Precision};
use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};

/// Offsets and sizes of one pair inside its two batches (the kernel's
/// `PairInfo`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(super) struct PairInfo {
    na0: i32,
    n1: i32,
    nb0: i32,
    n2: i32,
    ta0: i32,
    nta: i32,
    tb0: i32,
    ntb: i32,
    za0: i32,
    nza: i32,
    zb0: i32,
    nzb: i32,
}

// SAFETY: plain old data, laid out as the kernel's `struct PairInfo` (12 ints).
unsafe impl DeviceRepr for PairInfo {}

impl PairInfo {
    /// Graph `i` of `a` and graph `j` of `b`.
    pub(super) fn of(a: &GpuGraphs, i: usize, b: &GpuGraphs, j: usize) -> Self {
        let (n1, n2) = (a.num_nodes[i], b.num_nodes[j]);
        PairInfo {
            na0: first_of(&a.num_nodes, i),
            n1: n1 as i32,
            nb0: first_of(&b.num_nodes, j),
            n2: n2 as i32,
            ta0: first_of(&a.num_tiles, i),
            nta: a.num_tiles[i] as i32,
            tb0: first_of(&b.num_tiles, j),
            ntb: b.num_tiles[j] as i32,
            za0: first_of(&a.nnz, i),
            nza: a.nnz[i] as i32,
            zb0: first_of(&b.nnz, j),
            nzb: b.nnz[j] as i32,
        }
    }
}

/// One solved large pair.
pub(crate) struct LargeSolve {
    pub(crate) value: f64,
    pub(crate) iterations: u32,
    /// `p_i p′_i′ (r_ii′ − lmin κv)` in the uploaded (reordered) node order.
    pub(crate) nodal: Option<Vec<f64>>,
}

pub(super) fn first_of(counts: &[usize], i: usize) -> i32 {
    counts[..i].iter().sum::<usize>() as i32
}

pub(super) const BLOCK: u32 = 256;

/// Kernels, vectors and reduction slots of the large-pair path, reused over
/// the large pairs of one call.
pub(super) struct LargeWork {
    fs: Vec<CudaFunction>,
    /// The module's name, where its image came from, seconds to get it ready.
    pub(super) kernel: (String, Origin, f64),
    /// x, r, p, M⁻¹, diag(A), y: `n` reals each.
    vecs: [CudaSlice<u8>; 6],
    acc: CudaSlice<f64>,
    theta_d: CudaSlice<u8>,
    nodal: Option<CudaSlice<f64>>,
    n: usize,
}

impl<N, E, KN, KE> GpuGram<N, E, KN, KE>
where
    N: GpuLabel,
    E: GpuLabel,
    KN: BaseKernel<N>,
    KE: BaseKernel<E>,
{
    /// The kernels of the large-pair module, loaded once per source.
    fn large_functions(&self, a: &GpuGraphs) -> Result<(Vec<CudaFunction>, String, Origin, Vec<f64>), CudaError> {
        let src = mgk_large_source(
            &self.node_kernel,
            &self.edge_kernel,
            &a.node_layout,
            &a.edge_layout,
            self.params.precision,
            &self.params.gpu.tuning,
        )?;
        let names: Vec<String> = LARGE_KERNELS.iter().map(|s| format!("{}{s}", src.name)).collect();
        {
            let map = self.dev.functions.read().unwrap_or_else(|e| e.into_inner());
            let found: Vec<CudaFunction> =
                names.iter().filter_map(|n| map.get(&FunctionKey::full(n)).cloned()).collect();
            if found.len() == names.len() {
                return Ok((found, src.name, Origin::Memory, src.theta));
            }
        }
        let compiled = compile_cached(&src.source, &src.name, self.dev.info.compute_capability)?;
        let module = check("loading the large-pair kernels", || {
            self.dev.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(compiled.image.to_vec()))
        })?;
        let mut fs = Vec::with_capacity(names.len());
        let mut map = self.dev.functions.write().unwrap_or_else(|e| e.into_inner());
        for n in &names {
            let f = check("finding a large-pair kernel in its module", || module.load_function(n))?;
            map.insert(FunctionKey::full(n), f.clone());
            fs.push(f);
        }
        Ok((fs, src.name, compiled.origin, src.theta))
    }

    /// A workspace for pairs of up to `n` product nodes (kernels loaded,
    /// vectors allocated once for all the large pairs of a call).
    pub(super) fn large_work(&self, a: &GpuGraphs, n: usize, nodal: bool) -> Result<LargeWork, CudaError> {
        let t_jit = std::time::Instant::now();
        let (fs, name, origin, theta) = self.large_functions(a)?;
        let jit_seconds = t_jit.elapsed().as_secs_f64();
        let precision = self.params.precision;
        let stream = &self.dev.stream;
        let len = n.max(1) * precision.size();
        let alloc = || check("allocating large-pair vectors", || stream.alloc_zeros::<u8>(len));
        let vecs = [alloc()?, alloc()?, alloc()?, alloc()?, alloc()?, alloc()?];
        let acc = check("allocating reductions", || stream.alloc_zeros::<f64>(8))?;
        let mut theta = theta;
        theta.resize(theta.len().max(1), 0.0);
        let theta_d = check("uploading hyperparameters", || stream.clone_htod(&real_bytes(&theta, precision)))?;
        let nodal =
            if nodal { Some(check("allocating nodal output", || stream.alloc_zeros::<f64>(n.max(1)))?) } else { None };
        Ok(LargeWork { fs, kernel: (name, origin, jit_seconds), vecs, acc, theta_d, nodal, n })
    }

    /// Solves the pair (graph `i` of `a`, graph `j` of `b`) by the host PCG
    /// loop over device vectors; with a nodal buffer in `w`, also reads back
    /// the nodal similarity. Cost per iteration O(tile pairs · 64 + n n′) on
    /// the device.
    pub(super) fn solve_large(
        &self,
        w: &mut LargeWork,
        a: &GpuGraphs,
        i: usize,
        b: &GpuGraphs,
        j: usize,
    ) -> Result<LargeSolve, CudaError> {
        let (n1, n2) = (a.num_nodes[i], b.num_nodes[j]);
        let n = n1 * n2;
        let want_nodal = w.nodal.is_some();
        if n == 0 {
            return Ok(LargeSolve { value: 0.0, iterations: 0, nodal: want_nodal.then(Vec::new) });
        }
        if n > i32::MAX as usize || n > w.n {
            return Err(CudaError::PairTooLarge { n1, n2, needed: n, available: w.n.min(i32::MAX as usize) });
        }
        let info = PairInfo::of(a, i, b, j);
        let precision = self.params.precision;
        let stream = &self.dev.stream;
        let LargeWork { fs, vecs, acc, theta_d, nodal: nodal_d, .. } = w;
        let [x, r, p, minv, diag, y] = vecs;
        let dscale = self.params.system().scale;
        let tol = self.params.tolerance();
        let sms = self.dev.info.multiprocessors as u32;
        let ew_grid = (n.div_ceil(BLOCK as usize) as u32).clamp(1, sms * 8);
        let ew = LaunchConfig { grid_dim: (ew_grid, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        let tile_pairs = a.num_tiles[i] as u64 * b.num_tiles[j] as u64;
        let xmv_grid = (tile_pairs.div_ceil((BLOCK / 32) as u64) as u32).clamp(1, sms * 32);
        let xcfg = LaunchConfig { grid_dim: (xmv_grid, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        let n_arg = n as i64;
        let dense_min = i32::try_from(self.params.gpu.tuning.dense_min).unwrap_or(i32::MAX);
        let lmin = self.params.lmin as i32;
        let (f_init, f_ap, f_xmv, f_dot, f_update, f_dir, f_final) =
            (&fs[0], &fs[1], &fs[2], &fs[3], &fs[4], &fs[5], &fs[6]);
        // Pushes a real scalar in the kernels' precision (the builder keeps a reference, so both
        // forms live in the caller).
        macro_rules! real_arg {
            ($lb:expr, $v64:expr, $v32:expr) => {
                match precision {
                    Precision::F32 => $lb.arg($v32),
                    Precision::F64 => $lb.arg($v64),
                }
            };
        }
        let read_acc = |acc: &CudaSlice<f64>| -> Result<Vec<f64>, CudaError> {
            let v = check("reading reductions", || stream.clone_dtoh(acc))?;
            check("synchronizing", || stream.synchronize())?;
            Ok(v)
        };

        // SAFETY (every launch below): the arguments match the parameter lists in
        // kernels/mgk_large.cu; vectors hold n reals of the kernels' precision; every buffer
        // outlives the launches (the stream is synchronized at each read-back).
        let dscale32 = dscale as f32;
        // the slots still hold the previous pair's result
        check("clearing reductions", || stream.memset_zeros(&mut *acc))?;
        {
            let mut lb = stream.launch_builder(f_init);
            lb.arg(&a.set).arg(&b.set).arg(&info).arg(&*theta_d);
            real_arg!(lb, &dscale, &dscale32);
            lb.arg(&*x).arg(&*r).arg(&*p).arg(&*minv).arg(&*diag).arg(&mut *acc);
            check("launching the large-pair set-up", || unsafe { lb.launch(ew) })?;
        }
        let init = read_acc(acc)?;
        let (mut rz, bb) = (init[0], init[1]);
        let thresh = tol * tol * bb;
        let mut it = 0u32;
        while it < self.params.max_iter {
            check("clearing reductions", || stream.memset_zeros(&mut *acc))?;
            {
                let mut lb = stream.launch_builder(f_ap);
                lb.arg(&n_arg).arg(&*diag).arg(&*p).arg(&mut *y);
                check("launching the diagonal product", || unsafe { lb.launch(ew) })?;
            }
            {
                let mut lb = stream.launch_builder(f_xmv);
                lb.arg(&a.set).arg(&b.set).arg(&info).arg(&*theta_d).arg(&dense_min);
                real_arg!(lb, &-1.0f64, &-1.0f32);
                lb.arg(&*p).arg(&mut *y);
                check("launching the large-pair XMV", || unsafe { lb.launch(xcfg) })?;
            }
            {
                let mut lb = stream.launch_builder(f_dot);
                lb.arg(&n_arg).arg(&*p).arg(&*y).arg(&mut *acc);
                check("launching a dot product", || unsafe { lb.launch(ew) })?;
            }
            let pap = read_acc(acc)?[0];
            let alpha = rz / pap;
            let alpha32 = alpha as f32;
            check("clearing reductions", || stream.memset_zeros(&mut *acc))?;
            {
                let mut lb = stream.launch_builder(f_update);
                lb.arg(&n_arg);
                real_arg!(lb, &alpha, &alpha32);
                lb.arg(&mut *x).arg(&mut *r).arg(&*p).arg(&*y).arg(&*minv).arg(&mut *acc);
                check("launching the PCG update", || unsafe { lb.launch(ew) })?;
            }
            let red = read_acc(acc)?;
            let (rr, rzn) = (red[0], red[1]);
            it += 1;
            // stop also on NaN (a breakdown), as the batched kernel does
            if rr.partial_cmp(&thresh) != Some(std::cmp::Ordering::Greater) {
                break;
            }
            let beta = rzn / rz;
            let beta32 = beta as f32;
            rz = rzn;
            {
                let mut lb = stream.launch_builder(f_dir);
                lb.arg(&n_arg);
                real_arg!(lb, &beta, &beta32);
                lb.arg(&mut *p).arg(&*r).arg(&*minv);
                check("launching the direction update", || unsafe { lb.launch(ew) })?;
            }
        }
        check("clearing reductions", || stream.memset_zeros(&mut *acc))?;
        let null: u64 = 0;
        {
            let mut lb = stream.launch_builder(f_final);
            lb.arg(&a.set).arg(&b.set).arg(&info).arg(&*theta_d).arg(&lmin).arg(&*x);
            match nodal_d.as_mut() {
                Some(d) => lb.arg(d),
                None => lb.arg(&null),
            };
            lb.arg(&mut *acc);
            check("launching the large-pair result", || unsafe { lb.launch(ew) })?;
        }
        let value = read_acc(acc)?[0];
        let nodal = match nodal_d {
            Some(d) => {
                let mut v = check("reading nodal output", || stream.clone_dtoh(&*d))?;
                v.truncate(n);
                Some(v)
            }
            None => None,
        };
        check("synchronizing", || stream.synchronize())?;
        Ok(LargeSolve { value, iterations: it, nodal })
    }
}
