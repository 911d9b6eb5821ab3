//! The CUDA implementations of [`super`]'s algorithms.

use super::GpuBfsOptions;
use crate::algorithms::bfs::BfsResult;
use crate::algorithms::AlgorithmError;
use crate::cuda::device::{check, Device};
use crate::cuda::CudaError;
use crate::matrix::gpu::scan::{flagged_indices, grid, util_kernels, zeros_idx, Util};
use crate::matrix::gpu::{
    frontier_offsets, mxm_masked_costs, pull, reduce_mxm_masked, semiring_kernels, spmspv, DeviceDenseVector,
    DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector, GpuElement, GpuMergeStrategy, GpuMxmStrategy, Idx,
};
use crate::matrix::Descriptor;
use crate::semirings::{AnySecondi, PlusPair};
use cudarc::driver::{CudaSlice, PushKernelArg};
use std::time::Instant;

/// How a GPU BFS ran: the time of its level loop (transfers excluded) and
/// what each level did.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuBfsRun {
    /// Seconds from the first level to the last (the device synchronized
    /// at both ends; upload of the matrix and download of the result excluded).
    pub seconds: f64,
    /// For each level after the source: `None` for pull, else the push's merge strategy.
    pub levels: Vec<Option<GpuMergeStrategy>>,
    /// For each level: the frontier's size and out-arcs (the SpMSpV's terms).
    pub frontier: Vec<(usize, usize)>,
    /// For each level: seconds from reading its frontier's size to reading
    /// the next one's (its product, visit and the next degree scan).
    pub level_seconds: Vec<f64>,
}

fn square<T: GpuElement>(what: &'static str, a: &DeviceMatrix<T>) -> Result<usize, AlgorithmError> {
    if a.nrows() != a.ncols() {
        return Err(AlgorithmError::NotSquare { what, rows: a.nrows(), cols: a.ncols() });
    }
    Ok(a.nrows())
}

fn source_in(source: usize, n: usize) -> Result<(), AlgorithmError> {
    if source >= n {
        return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n });
    }
    Ok(())
}

fn up<T: GpuElement>(dev: &Device, what: &str, v: &[T]) -> Result<CudaSlice<T>, CudaError> {
    check(what, || dev.stream.clone_htod(v))
}

fn sync(dev: &Device) -> Result<(), CudaError> {
    check("synchronizing", || dev.stream.synchronize())
}

/// BFS on a square device adjacency matrix (`A(u, v)` stored ⇔ arc
/// `u → v`; values unread), with how it ran.
///
/// Each level computes the next frontier `q'⟨¬visited, replace⟩ = qᵀ A` over
/// `(any, secondi)`: by push (SpMSpV over the frontier's rows with
/// `strategy`) or pull (every unvisited node scans its in-arcs, the
/// CSC of `A`, and stops at the first in the frontier), switching as
/// `opts.direction` says; then the new nodes get their level and parent.
/// One host synchronization per level reads the frontier's size and arcs.
///
/// # Errors
/// [`AlgorithmError::NotSquare`], [`AlgorithmError::SourceOutOfRange`], CUDA errors.
pub fn bfs_device<T: GpuElement>(
    a: &DeviceMatrix<T>,
    source: usize,
    opts: &GpuBfsOptions,
    strategy: GpuMergeStrategy,
) -> crate::Result<(BfsResult, GpuBfsRun)> {
    let n = square("BFS", a)?;
    source_in(source, n)?;
    let dev: &Device = &a.dev.dev;
    let s = &dev.stream;
    let sr = AnySecondi::<u64, T>::new();
    let iw = a.index_width();
    let k = semiring_kernels(dev, &sr, iw)?;
    let util = util_kernels(dev, iw)?;
    let pull_fn = k_fn(&k, "gb_vxm_pull");
    let mut visited = DeviceMask { n, bits: up(dev, "allocating visited", &vec![0u8; n])?, complement: true };
    let mut levels = up(dev, "allocating levels", &vec![-1i32; n])?;
    let mut parents = up(dev, "allocating parents", &vec![-1i64; n])?;
    let mut fbits = up(dev, "allocating the frontier bitmap", &vec![0u8; n])?;
    let mut wpull = DeviceDenseVector::<u64>::new(&a.dev, n)?;
    let mut fidx = Idx::upload(s, iw, "uploading the source", &[source])?;
    let mut fval = up(dev, "uploading the source", &[source as u64])?;
    let mut f = 1usize;
    sync(dev)?;
    let t0 = Instant::now();
    visit(dev, &util, &fidx, &fval, f, 0, &mut visited.bits, &mut levels, &mut parents)?;
    let nnz = a.nnz();
    let (mut explored, mut arcs, mut level) = (0usize, 0usize, 0i32);
    let mut pulling = false;
    let mut ran = Vec::new();
    let (mut frontier, mut level_seconds) = (Vec::new(), Vec::new());
    let mut last = Instant::now();
    loop {
        let (off, mf) = frontier_offsets(dev, &k, &util, &a.csr, &fidx, f)?;
        let now = Instant::now();
        if !frontier.is_empty() {
            level_seconds.push((now - last).as_secs_f64());
        }
        last = now;
        arcs += mf;
        if mf == 0 {
            break;
        }
        let unexplored = nnz.saturating_sub(explored);
        pulling = opts.direction.pulls(pulling, f, mf, unexplored, n);
        explored += mf;
        level += 1;
        frontier.push((f, mf));
        let (nidx, nval, nf) = if pulling {
            ran.push(None);
            check("clearing the frontier bitmap", || s.memset_zeros(&mut fbits))?;
            let one: u8 = 1;
            let f32_ = iw.val(f);
            let mut lb = s.launch_builder(&util.set_bytes);
            lb.arg(&f32_).arg(&fidx).arg(&one).arg(&mut fbits);
            // SAFETY: matches gbu_set_bytes(f, idx, value, bytes); idx holds f ids below n.
            check("launching gbu_set_bytes", || unsafe { lb.launch(grid(dev, f)) })?;
            pull(dev, pull_fn, n, &a.csc, &fval, &fbits, Some(&visited), true, &mut wpull)?;
            let mut flag = zeros_idx(dev, &util, n)?;
            let (n32, zero) = (iw.val(n), 0i32);
            let mut lb = s.launch_builder(&util.flags_from_bytes);
            lb.arg(&n32).arg(&wpull.pres).arg(&zero).arg(&mut flag);
            // SAFETY: matches gbu_flags_from_bytes(n, bytes, comp, flag).
            check("launching gbu_flags_from_bytes", || unsafe { lb.launch(grid(dev, n)) })?;
            let (nidx, nf) = flagged_indices(dev, &util, &flag, n)?;
            let mut nval = crate::matrix::gpu::scan::zeros_u64(dev, nf)?;
            if nf > 0 {
                let nf32 = iw.val(nf);
                let mut lb = s.launch_builder(&util.gather_u64);
                lb.arg(&nf32).arg(&nidx).arg(&wpull.val).arg(&mut nval);
                // SAFETY: matches gbu_gather_u64(f, idx, dense, out).
                check("launching gbu_gather_u64", || unsafe { lb.launch(grid(dev, nf)) })?;
            }
            (nidx, nval, nf)
        } else {
            let u = DeviceSparseVector { dev: a.dev.clone(), n, nnz: f, idx: fidx, val: fval };
            let (nidx, nval, nf, st) =
                spmspv::<u64, T, u64>(dev, &k, &util, 0, &a.csr, n, &u, Some(&visited), strategy, Some((off, mf)))?;
            ran.push(Some(st));
            (nidx, nval, nf)
        };
        if nf == 0 {
            level_seconds.push(last.elapsed().as_secs_f64());
            break;
        }
        visit(dev, &util, &nidx, &nval, nf, level, &mut visited.bits, &mut levels, &mut parents)?;
        fidx = nidx;
        fval = nval;
        f = nf;
    }
    sync(dev)?;
    let seconds = t0.elapsed().as_secs_f64();
    let lv: Vec<i32> = check("downloading levels", || s.clone_dtoh(&levels))?;
    let pv: Vec<i64> = check("downloading parents", || s.clone_dtoh(&parents))?;
    sync(dev)?;
    let levels: Vec<i64> = lv.into_iter().map(i64::from).collect();
    let reached = levels.iter().filter(|&&l| l >= 0).count();
    let depth = levels.iter().copied().max().unwrap_or(0).max(0) as usize;
    let pulled = ran.iter().map(Option::is_none).collect();
    Ok((
        BfsResult { levels, parents: pv, reached, depth, arcs_in_component: arcs, pulled },
        GpuBfsRun { seconds, levels: ran, frontier, level_seconds },
    ))
}

fn k_fn<'a>(k: &'a crate::matrix::gpu::SemiringKernels, name: &str) -> &'a cudarc::driver::CudaFunction {
    k.get(name)
}

#[allow(clippy::too_many_arguments)]
fn visit(
    dev: &Device,
    util: &Util,
    idx: &Idx,
    par: &CudaSlice<u64>,
    f: usize,
    level: i32,
    visited: &mut CudaSlice<u8>,
    levels: &mut CudaSlice<i32>,
    parents: &mut CudaSlice<i64>,
) -> Result<(), CudaError> {
    let f32_ = util.width.val(f);
    let mut lb = dev.stream.launch_builder(&util.bfs_visit);
    lb.arg(&f32_).arg(idx).arg(par).arg(&level).arg(visited).arg(levels).arg(parents);
    // SAFETY: matches gbu_bfs_visit(f, idx, par, level, visited, levels, parents); idx holds f ids below n.
    check("launching gbu_bfs_visit", || unsafe { lb.launch(grid(dev, f)) })?;
    Ok(())
}

/// Triangles from the device lower triangle `l` (relabelled by degree) and
/// its structural mask, the masked product's form chosen automatically
/// (see [`triangles_lower_with`]).
///
/// # Errors
/// CUDA errors.
pub fn triangles_lower(l: &DeviceMatrix<bool>, mask: &DeviceMatrixMask) -> crate::Result<u64> {
    Ok(triangles_lower_with(l, mask, GpuMxmStrategy::Auto)?.0)
}

/// Triangles from the device lower triangle `l` and its structural mask,
/// by `strategy`: `Σ C` for `C⟨L⟩ = L ·(plus, pair) Lᵀ` by dot products
/// (each merges two rows of `L`), or `C⟨L⟩ = L ·(plus, pair) L` by the hash
/// form (row `i` gathers the rows `L(k,:)`, `k ∈ L(i,:)`); `Auto` measures
/// both forms' operation counts on the device and runs the cheaper
/// ([`GpuMxmStrategy::choose`]). Returns the count and the form that ran.
///
/// # Errors
/// CUDA errors.
pub fn triangles_lower_with(
    l: &DeviceMatrix<bool>,
    mask: &DeviceMatrixMask,
    strategy: GpuMxmStrategy,
) -> crate::Result<(u64, GpuMxmStrategy)> {
    let s = PlusPair::<bool, bool, u64>::new();
    let (dot, hash) = (Descriptor::DEFAULT.transpose_second(), Descriptor::DEFAULT);
    let st = match strategy {
        GpuMxmStrategy::Auto => {
            let d = mxm_masked_costs(mask, s, l, l, &dot)?[0];
            let h = mxm_masked_costs(mask, s, l, l, &hash)?[1];
            GpuMxmStrategy::choose(d, h)
        }
        st => st,
    };
    let desc = if st == GpuMxmStrategy::Dot { dot } else { hash };
    reduce_mxm_masked(mask, s, l, l, &desc, st)
}
