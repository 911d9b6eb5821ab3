//! The fast BFS on the GPU: fused level kernels (`kernels/graphblas_frontier.cu`)
//! over buffers allocated once per graph and reused across sources.
//!
//! A push level is one launch that expands the frontier queue (a warp per
//! node), checks and claims the neighbours (`atomicCAS` on the level array)
//! and appends the new nodes to the next queue, plus one fixed-size launch
//! that spreads the arcs of the frontier's nodes of out-degree ≥ 1024 over the
//! whole grid. A pull level is one launch: each unvisited node scans its
//! in-arcs and stops at the first frontier node. Both count the new nodes and
//! their out-arcs on the device; the host reads these two numbers once per
//! level (the only synchronization) to apply Beamer's direction switch.

use super::{frontier_kernels, spread_grid, AlgorithmError, Held};
use crate::algorithms::bfs::{BfsDirection, BfsResult};
use crate::cuda::device::{check, Device};
use crate::cuda::CudaError;
use crate::matrix::gpu::scan::grid;
use crate::matrix::gpu::{DeviceMatrix, GpuElement, Idx};
use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};
use std::time::Instant;

/// A BFS workspace on one device matrix: the level, parent, two frontier
/// queues, the high-degree list and the counters, allocated once by
/// [`GpuBfs::new`] and reused by every [`GpuBfs::run`].
pub struct GpuBfs<'a, T: GpuElement> {
    a: Held<'a, T>,
    n: usize,
    kernels: Vec<CudaFunction>,
    levels: CudaSlice<i32>,
    parents: CudaSlice<i64>,
    queues: [Idx; 2],
    big: Idx,
    counters: CudaSlice<u64>,
    degrees: Vec<usize>,
}

fn alloc<T: GpuElement>(dev: &Device, what: &str, n: usize) -> Result<CudaSlice<T>, CudaError> {
    check(what, || dev.stream.alloc_zeros::<T>(n.max(1)))
}

impl<'a, T: GpuElement> GpuBfs<'a, T> {
    /// The workspace for BFS on the square device adjacency `a` (`A(u, v)`
    /// stored ⇔ arc `u → v`; values unread); compiles and loads the kernels
    /// on first use.
    ///
    /// # Errors
    /// [`AlgorithmError::NotSquare`]; NVRTC and driver errors.
    pub fn new(a: &'a DeviceMatrix<T>) -> crate::Result<Self> {
        Self::hold(Held::Borrowed(a))
    }

    /// [`GpuBfs::new`] owning its matrix (to keep one prepared BFS, e.g.
    /// for many sources, without keeping the matrix elsewhere).
    ///
    /// # Errors
    /// As [`GpuBfs::new`].
    pub fn owning(a: DeviceMatrix<T>) -> crate::Result<GpuBfs<'static, T>> {
        GpuBfs::hold(Held::Owned(Box::new(a)))
    }

    fn hold(a: Held<'a, T>) -> crate::Result<Self> {
        if a.nrows() != a.ncols() {
            return Err(AlgorithmError::NotSquare { what: "BFS", rows: a.nrows(), cols: a.ncols() }.into());
        }
        let n = a.nrows();
        let dev: &Device = &a.dev.dev;
        let iw = a.index_width();
        let kernels = frontier_kernels(dev, iw)?;
        let ptr = a.csr.ptr.download(&dev.stream, "downloading row pointers", n + 1)?;
        let degrees = ptr.windows(2).map(|w| w[1] - w[0]).collect();
        let queue = || Idx::zeros(&dev.stream, iw, n);
        Ok(GpuBfs {
            n,
            kernels,
            levels: alloc(dev, "allocating levels", n)?,
            parents: alloc(dev, "allocating parents", n)?,
            queues: [queue()?, queue()?],
            big: queue()?,
            counters: alloc(dev, "allocating counters", 4)?,
            degrees,
            a,
        })
    }

    /// BFS from `source` with direction policy `direction` (`Auto`: Beamer's
    /// switch on the frontier's out-arcs against the unexplored arcs, and on
    /// the frontier's size): the levels equal the CPU's; each parent is a
    /// frontier node one level up (by pull the smallest, by push any). Also
    /// returns the seconds of the level loop (initialization included; device
    /// synchronized at both ends; download excluded).
    ///
    /// # Errors
    /// [`AlgorithmError::SourceOutOfRange`]; driver errors.
    pub fn run(&mut self, source: usize, direction: BfsDirection) -> crate::Result<(BfsResult, f64)> {
        let n = self.n;
        if source >= n {
            return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n }.into());
        }
        let dev: &Device = &self.a.dev.dev;
        let s = &dev.stream;
        let (init, push, push_big, pull) = (&self.kernels[0], &self.kernels[1], &self.kernels[2], &self.kernels[3]);
        let (csr, csc) = (&self.a.csr, &self.a.csc);
        let nnz = self.a.nnz();
        let iw = self.a.index_width();
        let (n32, src32) = (iw.val(n), iw.val(source));
        let big_grid = spread_grid(dev);
        check("synchronizing", || s.synchronize())?;
        let t0 = Instant::now();
        let mut lb = s.launch_builder(init);
        lb.arg(&n32).arg(&src32).arg(&mut self.levels).arg(&mut self.parents).arg(&mut self.queues[0]);
        // SAFETY: matches kgb_init(n, source, levels, parents, queue); every buffer holds n >= 1.
        check("launching kgb_init", || unsafe { lb.launch(grid(dev, n)) })?;
        let (mut f, mut mf) = (1usize, self.degrees[source]);
        let mut arcs = mf;
        let (mut explored, mut level, mut cur) = (0usize, 0i32, 0usize);
        let mut pulling = false;
        let mut pulled = Vec::new();
        while f > 0 && mf > 0 {
            let unexplored = nnz.saturating_sub(explored);
            pulling = direction.pulls(pulling, f, mf, unexplored, n);
            explored += mf;
            check("clearing counters", || s.memset_zeros(&mut self.counters))?;
            let (q, nq) = if cur == 0 {
                let [a, b] = &mut self.queues;
                (&*a, b)
            } else {
                let [a, b] = &mut self.queues;
                (&*b, a)
            };
            if pulling {
                let mut lb = s.launch_builder(pull);
                lb.arg(&n32).arg(&csc.ptr).arg(&csc.ind).arg(&csr.ptr).arg(&level);
                lb.arg(&mut self.levels).arg(&mut self.parents).arg(nq).arg(&mut self.counters);
                // SAFETY: matches kgb_pull(n, cptr, cind, rptr, level, levels, parents, next, counters);
                // the CSC and CSR of the square n × n matrix, buffers of n entries.
                check("launching kgb_pull", || unsafe { lb.launch(grid(dev, n)) })?;
            } else {
                let f32_ = iw.val(f);
                let mut lb = s.launch_builder(push);
                lb.arg(&f32_).arg(q).arg(&csr.ptr).arg(&csr.ind).arg(&level);
                lb.arg(&mut self.levels)
                    .arg(&mut self.parents)
                    .arg(&mut *nq)
                    .arg(&mut self.counters)
                    .arg(&mut self.big);
                // SAFETY: matches kgb_push(f, frontier, ptr, ind, level, levels, parents, next, counters, big);
                // the queue holds f distinct node ids below n; every other buffer n entries.
                check("launching kgb_push", || unsafe { lb.launch(grid(dev, f * 32)) })?;
                let mut lb = s.launch_builder(push_big);
                lb.arg(&csr.ptr).arg(&csr.ind).arg(&level);
                lb.arg(&mut self.levels).arg(&mut self.parents).arg(nq).arg(&mut self.counters).arg(&self.big);
                // SAFETY: matches kgb_push_big(ptr, ind, level, levels, parents, next, counters, big);
                // big holds counters[2] node ids written by kgb_push.
                check("launching kgb_push_big", || unsafe { lb.launch(big_grid) })?;
            }
            let c: Vec<u64> = check("reading the level counters", || s.clone_dtoh(&self.counters))?;
            check("synchronizing", || s.synchronize())?;
            pulled.push(pulling);
            level += 1;
            cur ^= 1;
            (f, mf) = (c[0] as usize, c[1] as usize);
            arcs += mf;
        }
        let seconds = t0.elapsed().as_secs_f64();
        let lv: Vec<i32> = check("downloading levels", || s.clone_dtoh(&self.levels))?;
        let pv: Vec<i64> = check("downloading parents", || s.clone_dtoh(&self.parents))?;
        check("synchronizing", || s.synchronize())?;
        let levels: Vec<i64> = lv[..n].iter().map(|&l| i64::from(l)).collect();
        let reached = levels.iter().filter(|&&l| l >= 0).count();
        let depth = levels.iter().copied().max().unwrap_or(0).max(0) as usize;
        let parents = pv[..n].to_vec();
        Ok((BfsResult { levels, parents, reached, depth, arcs_in_component: arcs, pulled }, seconds))
    }
}
