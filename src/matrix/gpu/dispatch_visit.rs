//! The device implementation of the BFS level steps
//! [`vxm_visit`](crate::matrix::vxm_visit) and
//! [`visit_levels`](crate::matrix::visit_levels): the level-step kernels of
//! `kernels/graphblas_frontier.cu` over a [`DeviceVisited`] allocated once
//! per matrix.
//!
//! A level step is two launches of a fixed grid that read the frontier's
//! size and the direction state from a step log on the device: `kgb_step`
//! decides push or pull (Beamer's rule, or forced), then pushes (a warp
//! per frontier node claims the unvisited neighbours by `atomicCAS` on the
//! level array, which is the complemented structural mask; the arcs of the
//! nodes of out-degree ≥ 1024 are cut into chunks for the second launch,
//! `kgb_step_big`, a block per chunk) or pulls (each unvisited node scans
//! its in-arcs, the CSC, and stops at the first one in the frontier's
//! bitmap). Both count the new nodes and their out-arcs in the log. So
//! [`visit_levels`](crate::matrix::visit_levels) enqueues a batch of steps
//! and reads the log once (a step after the search ended does nothing);
//! [`vxm_visit`](crate::matrix::vxm_visit) is a batch of one step with the
//! direction given.

use super::frontier::{alloc, big_len, frontier_kernels, seed_log, spread_grid, step_grid, RING, SLOT};
use super::objects::DeviceMatrix;
use super::scan::grid;
use super::{GpuElement, Idx};
use crate::cuda::device::{check, Device};
use crate::matrix::place_visit::{pulls, BfsDirection, LevelState, LevelStep, Reached, VisitOp};
use crate::matrix::{check_dim, MergeStrategy, SpmspvOptions};
use cudarc::driver::{CudaFunction, CudaSlice, PinnedHostSlice, PushKernelArg};

/// Level steps per batch of [`visit_levels`](crate::matrix::visit_levels):
/// a step after the end of the search costs two empty launches, a batch
/// one read of the log.
const BATCH: usize = 8;

/// The visit state of a BFS on a device: levels, parents, two frontier
/// queues, three frontier bitmaps, the big list, the step log (and its
/// page-locked copy on the host), with the frontier kernels of the
/// matrix's index width.
pub struct DeviceVisited {
    n: usize,
    kernels: Vec<CudaFunction>,
    levels: CudaSlice<i32>,
    parents: CudaSlice<i64>,
    queues: [Idx; 2],
    bits: CudaSlice<u32>,
    big: Idx,
    log: CudaSlice<u64>,
    host_log: PinnedHostSlice<u64>,
    /// The frontier's level, nodes and out-arcs.
    level: usize,
    frontier: Reached,
    degrees: Vec<usize>,
    stream: std::sync::Arc<cudarc::driver::CudaStream>,
}

impl<T: GpuElement> DeviceMatrix<T> {
    /// Enqueues `steps` level steps from the frontier of `v` (whose state,
    /// `pulling` and `unexplored` as in [`LevelState`], seeds the log),
    /// direction by `mode` (0 push, 1 pull, 2 Beamer's rule with `alpha`
    /// and `beta`), then reads the log once; returns the steps that ran.
    fn run_steps(
        &self,
        v: &mut DeviceVisited,
        steps: usize,
        mode: i32,
        (alpha, beta): (f64, f64),
        (pulling, unexplored): (bool, usize),
    ) -> crate::Result<Vec<LevelStep>> {
        let dev: &Device = &self.dev.dev;
        let s = &dev.stream;
        let (csr, csc) = (&self.csr, &self.csc);
        let iw = self.index_width();
        let n32 = iw.val(v.n);
        let words = v.n.div_ceil(32) as u64;
        let k0 = v.level;
        let k0_32 = i32::try_from(k0).map_err(|_| crate::cuda::CudaError::InvalidParameter("BFS level past i32".into()))?;
        let steps = steps.clamp(1, RING - 1);
        let (pulling, before) = (u64::from(pulling), unexplored.saturating_add(v.frontier.arcs) as u64);
        let values = [v.frontier.nodes as u64, v.frontier.arcs as u64, pulling, before];
        seed_log(dev, &v.kernels[1], &mut v.log, k0_32, steps, values)?;
        for i in 0..steps {
            let k = k0_32.saturating_add(i as i32);
            let [q0, q1] = &mut v.queues;
            let (q, nq) = if (k0 + i) % 2 == 0 { (&*q0, q1) } else { (&*q1, q0) };
            let mut lb = s.launch_builder(&v.kernels[2]);
            lb.arg(&k).arg(&mode).arg(&alpha).arg(&beta).arg(&n32).arg(&words);
            lb.arg(&csr.ptr).arg(&csr.ind).arg(&csc.ptr).arg(&csc.ind).arg(&mut v.levels).arg(&mut v.parents);
            lb.arg(q).arg(&mut *nq).arg(&mut v.bits).arg(&mut v.log).arg(&mut v.big);
            // SAFETY: matches kgb_step(k, mode, alpha, beta, n, words, rptr, rind, cptr, cind, levels,
            // parents, queue, next, bits, log, big): the CSR and CSC of the square n × n matrix,
            // buffers of n entries, 3 bitmaps of `words` words, the big list sized for every chunk
            // of 1024 arcs; queue q holds the log's count of distinct ids of level k.
            check("launching kgb_step", || unsafe { lb.launch(step_grid(dev)) })?;
            let mut lb = s.launch_builder(&v.kernels[3]);
            lb.arg(&k).arg(&words).arg(&csr.ptr).arg(&csr.ind).arg(&mut v.levels).arg(&mut v.parents);
            lb.arg(nq).arg(&mut v.bits).arg(&mut v.log).arg(&v.big);
            // SAFETY: matches kgb_step_big(k, words, rptr, rind, levels, parents, next, bits, log, big);
            // big holds the chunks kgb_step counted in the log.
            check("launching kgb_step_big", || unsafe { lb.launch(spread_grid(dev)) })?;
        }
        check("reading the step log", || s.memcpy_dtoh(&v.log, &mut v.host_log))?;
        let log = check("synchronizing", || v.host_log.as_slice())?;
        let slot = |k: usize| &log[(k % RING) * SLOT..(k % RING) * SLOT + SLOT];
        let mut out = Vec::with_capacity(steps);
        for i in 0..steps {
            let (prev, cur) = (slot(k0 + i), slot(k0 + i + 1));
            if i > 0 && (prev[0] == 0 || prev[1] == 0) {
                break;
            }
            let reached = Reached { nodes: cur[0] as usize, arcs: cur[1] as usize };
            out.push(LevelStep { pulled: cur[3] != 0, reached });
            if reached.nodes == 0 {
                break;
            }
        }
        v.level = k0 + out.len();
        v.frontier = out.last().map_or(Reached::default(), |l| l.reached);
        Ok(out)
    }
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
        // SAFETY: the log's copy is written by memcpy_dtoh before it is read.
        let host_log = check("allocating page-locked memory", || unsafe {
            dev.ctx.alloc_pinned_with_flags::<u64>(RING * SLOT, 0)
        })?;
        Ok(DeviceVisited {
            n,
            kernels,
            levels: alloc(dev, "allocating levels", n)?,
            parents: alloc(dev, "allocating parents", n)?,
            queues: [queue()?, queue()?],
            bits: alloc(dev, "allocating frontier bitmaps", 3 * n.div_ceil(32))?,
            big: Idx::zeros(&dev.stream, iw, big_len(self.nnz()))?,
            log: alloc(dev, "allocating the step log", RING * SLOT)?,
            host_log,
            level: 0,
            frontier: Reached::default(),
            degrees: ptr.windows(2).map(|w| w[1] - w[0]).collect(),
            stream: dev.stream.clone(),
        })
    }

    fn visit_source(&self, v: &mut DeviceVisited, source: usize) -> crate::Result<Reached> {
        check_dim("vxm_visit", "visit state", self.nrows(), v.n)?;
        let dev: &Device = &self.dev.dev;
        let iw = self.index_width();
        let (n32, src32, words) = (iw.val(v.n), iw.val(source), v.n.div_ceil(32) as u64);
        let mut lb = dev.stream.launch_builder(&v.kernels[0]);
        lb.arg(&n32).arg(&src32).arg(&words).arg(&mut v.levels).arg(&mut v.parents).arg(&mut v.queues[0]);
        lb.arg(&mut v.bits);
        // SAFETY: matches kgb_init(n, source, words, levels, parents, queue, bits); every buffer
        // holds n >= 1 entries, the bitmaps 3 × words.
        check("launching kgb_init", || unsafe { lb.launch(grid(dev, v.n)) })?;
        v.level = 0;
        v.frontier = Reached { nodes: 1, arcs: v.degrees[source] };
        Ok(v.frontier)
    }

    fn vxm_visit_op(&self, v: &mut DeviceVisited, level: usize, opts: &SpmspvOptions) -> crate::Result<Reached> {
        check_dim("vxm_visit", "visit state", self.nrows(), v.n)?;
        // the step claims for `level` the nodes next to the frontier (at `level - 1`)
        v.level = level.saturating_sub(1);
        let mode = i32::from(pulls(opts.direction, v.frontier.nodes, v.n));
        let steps = self.run_steps(v, 1, mode, (1.0, 1.0), (false, 0))?;
        Ok(steps.first().map_or(Reached::default(), |s| s.reached))
    }

    fn visit_levels_op(
        &self,
        v: &mut DeviceVisited,
        at: &LevelState,
        rule: BfsDirection,
        _strategy: MergeStrategy,
    ) -> crate::Result<Vec<LevelStep>> {
        check_dim("vxm_visit", "visit state", self.nrows(), v.n)?;
        (v.level, v.frontier) = (at.level, at.frontier);
        let (mode, ab) = match rule {
            BfsDirection::Push => (0, (1.0, 1.0)),
            BfsDirection::Pull => (1, (1.0, 1.0)),
            BfsDirection::Auto { alpha, beta } => (2, (alpha, beta)),
        };
        self.run_steps(v, BATCH, mode, ab, (at.pulling, at.unexplored))
    }

    fn visited_to_host(v: &DeviceVisited) -> crate::Result<(Vec<i64>, Vec<i64>)> {
        let s = &v.stream;
        let lv: Vec<i32> = check("downloading levels", || s.clone_dtoh(&v.levels))?;
        let pv: Vec<i64> = check("downloading parents", || s.clone_dtoh(&v.parents))?;
        check("synchronizing", || s.synchronize())?;
        Ok((lv[..v.n].iter().map(|&l| i64::from(l)).collect(), pv[..v.n].to_vec()))
    }
}
