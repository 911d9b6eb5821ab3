//! The device implementation of the BFS level step
//! [`vxm_visit`](crate::matrix::vxm_visit): the fused level kernels of
//! `kernels/graphblas_frontier.cu` over a [`DeviceVisited`] allocated once
//! per matrix.
//!
//! A push step is one launch that expands the frontier queue (a warp per
//! node), claims the unvisited neighbours (`atomicCAS` on the level array,
//! which is the complemented structural mask) and appends them to the next
//! queue, plus one fixed-size launch that spreads the arcs of the
//! frontier's nodes of out-degree ≥ 1024 over the whole grid: the scatter
//! merge of an `(any, secondi)` SpMSpV, whatever
//! [`SpmspvOptions::strategy`] names (a claim needs no sort). A pull step is
//! one launch: each unvisited node scans its in-arcs (the CSC) and stops at
//! the first frontier node. Both count the new nodes and their out-arcs on
//! the device; the host reads these two numbers once per step (the only
//! synchronization).

use super::frontier::{alloc, frontier_kernels, spread_grid};
use super::objects::DeviceMatrix;
use super::scan::grid;
use super::{GpuElement, Idx};
use crate::cuda::device::{check, Device};
use crate::matrix::place_visit::{pulls, Reached, VisitOp};
use crate::matrix::{check_dim, SpmspvOptions};
use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};

/// The visit state of a BFS on a device: levels, parents, two frontier
/// queues, the high-degree list and the counters, with the frontier
/// kernels of the matrix's index width.
pub struct DeviceVisited {
    n: usize,
    kernels: Vec<CudaFunction>,
    levels: CudaSlice<i32>,
    parents: CudaSlice<i64>,
    queues: [Idx; 2],
    /// The queue holding the frontier, and its size.
    cur: usize,
    f: usize,
    big: Idx,
    counters: CudaSlice<u64>,
    degrees: Vec<usize>,
    stream: std::sync::Arc<cudarc::driver::CudaStream>,
}

impl<T: GpuElement> VisitOp for DeviceMatrix<T> {
    type Visited = DeviceVisited;

    fn stored(&self) -> usize {
        self.nnz()
    }

    fn visited(&self) -> crate::Result<DeviceVisited> {
        check_dim("vxm_visit", "columns", self.nrows(), self.ncols())?;
        let n = self.nrows();
        let dev: &Device = &self.dev.dev;
        let iw = self.index_width();
        let kernels = frontier_kernels(dev, iw)?;
        let ptr = self.csr.ptr.download(&dev.stream, "downloading row pointers", n + 1)?;
        let queue = || Idx::zeros(&dev.stream, iw, n);
        Ok(DeviceVisited {
            n,
            kernels,
            levels: alloc(dev, "allocating levels", n)?,
            parents: alloc(dev, "allocating parents", n)?,
            queues: [queue()?, queue()?],
            cur: 0,
            f: 0,
            big: queue()?,
            counters: alloc(dev, "allocating counters", 4)?,
            degrees: ptr.windows(2).map(|w| w[1] - w[0]).collect(),
            stream: dev.stream.clone(),
        })
    }

    fn visit_source(&self, v: &mut DeviceVisited, source: usize) -> crate::Result<Reached> {
        check_dim("vxm_visit", "visit state", self.nrows(), v.n)?;
        let dev: &Device = &self.dev.dev;
        let iw = self.index_width();
        let (n32, src32) = (iw.val(v.n), iw.val(source));
        let mut lb = dev.stream.launch_builder(&v.kernels[0]);
        lb.arg(&n32).arg(&src32).arg(&mut v.levels).arg(&mut v.parents).arg(&mut v.queues[0]);
        // SAFETY: matches kgb_init(n, source, levels, parents, queue); every buffer holds n >= 1.
        check("launching kgb_init", || unsafe { lb.launch(grid(dev, v.n)) })?;
        (v.cur, v.f) = (0, 1);
        Ok(Reached { nodes: 1, arcs: v.degrees[source] })
    }

    fn vxm_visit_op(&self, v: &mut DeviceVisited, level: usize, opts: &SpmspvOptions) -> crate::Result<Reached> {
        check_dim("vxm_visit", "visit state", self.nrows(), v.n)?;
        let n = v.n;
        let dev: &Device = &self.dev.dev;
        let s = &dev.stream;
        let (csr, csc) = (&self.csr, &self.csc);
        let iw = self.index_width();
        // the kernels claim for `last + 1` the nodes next to those at `last`
        let last = i32::try_from(level.saturating_sub(1)).unwrap_or(i32::MAX);
        check("clearing counters", || s.memset_zeros(&mut v.counters))?;
        let [q0, q1] = &mut v.queues;
        let (q, nq) = if v.cur == 0 { (&*q0, q1) } else { (&*q1, q0) };
        if pulls(opts.direction, v.f, n) {
            let n32 = iw.val(n);
            let mut lb = s.launch_builder(&v.kernels[3]);
            lb.arg(&n32).arg(&csc.ptr).arg(&csc.ind).arg(&csr.ptr).arg(&last);
            lb.arg(&mut v.levels).arg(&mut v.parents).arg(nq).arg(&mut v.counters);
            // SAFETY: matches kgb_pull(n, cptr, cind, rptr, level, levels, parents, next, counters);
            // the CSC and CSR of the square n × n matrix, buffers of n entries.
            check("launching kgb_pull", || unsafe { lb.launch(grid(dev, n)) })?;
        } else {
            let f32_ = iw.val(v.f);
            let mut lb = s.launch_builder(&v.kernels[1]);
            lb.arg(&f32_).arg(q).arg(&csr.ptr).arg(&csr.ind).arg(&last);
            lb.arg(&mut v.levels).arg(&mut v.parents).arg(&mut *nq).arg(&mut v.counters).arg(&mut v.big);
            // SAFETY: matches kgb_push(f, frontier, ptr, ind, level, levels, parents, next, counters, big);
            // the queue holds f distinct node ids below n; every other buffer n entries.
            check("launching kgb_push", || unsafe { lb.launch(grid(dev, v.f * 32)) })?;
            let mut lb = s.launch_builder(&v.kernels[2]);
            lb.arg(&csr.ptr).arg(&csr.ind).arg(&last);
            lb.arg(&mut v.levels).arg(&mut v.parents).arg(nq).arg(&mut v.counters).arg(&v.big);
            // SAFETY: matches kgb_push_big(ptr, ind, level, levels, parents, next, counters, big);
            // big holds counters[2] node ids written by kgb_push.
            check("launching kgb_push_big", || unsafe { lb.launch(spread_grid(dev)) })?;
        }
        let c: Vec<u64> = check("reading the level counters", || s.clone_dtoh(&v.counters))?;
        check("synchronizing", || s.synchronize())?;
        v.cur ^= 1;
        v.f = c[0] as usize;
        Ok(Reached { nodes: v.f, arcs: c[1] as usize })
    }

    fn visited_to_host(v: &DeviceVisited) -> crate::Result<(Vec<i64>, Vec<i64>)> {
        let s = &v.stream;
        let lv: Vec<i32> = check("downloading levels", || s.clone_dtoh(&v.levels))?;
        let pv: Vec<i64> = check("downloading parents", || s.clone_dtoh(&v.parents))?;
        check("synchronizing", || s.synchronize())?;
        Ok((lv[..v.n].iter().map(|&l| i64::from(l)).collect(), pv[..v.n].to_vec()))
    }
}
