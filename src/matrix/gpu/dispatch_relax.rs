//! The device implementation of the near-far steps
//! [`relax_near`](crate::matrix::relax_near) and
//! [`split_far`](crate::matrix::split_far) (Davidson, Baxter, Garland &
//! Owens, "Work-efficient parallel GPU methods for single-source shortest
//! paths", IPDPS 2014): the `kgs_*` kernels of
//! `kernels/graphblas_frontier.cu` over a [`DeviceRelaxed`] allocated once
//! per matrix. A relaxation round is two launches of a fixed grid (a warp
//! per near node; the arcs of nodes of out-degree ≥ 1024 in chunks, a block
//! per chunk) that read the near queue's size from a step log on the
//! device, so [`relax_rounds`](crate::matrix::relax_rounds) enqueues a
//! batch of rounds and reads the log once; a split is one launch and one
//! read.

use super::frontier::{alloc, big_len, frontier_kernels, seed_log, spread_grid, step_grid, RING, SLOT};
use super::objects::DeviceMatrix;
use super::scan::grid;
use super::Idx;
use crate::cuda::device::{check, Device};
use crate::cuda::CudaError;
use crate::matrix::place_relax::{Queues, RelaxOp, WeightStats};
use crate::matrix::check_dim;
use cudarc::driver::{CudaFunction, CudaSlice, PinnedHostSlice, PushKernelArg};

/// The near-far state on a device: distances (as the bits of
/// non-negative doubles), stamps, far flags, two near and two far queues,
/// the high-degree list and the counters, with the frontier kernels.
pub struct DeviceRelaxed {
    n: usize,
    kernels: Vec<CudaFunction>,
    dist: CudaSlice<u64>,
    stamp: CudaSlice<u32>,
    in_far: CudaSlice<u32>,
    near: [Idx; 2],
    far: [Idx; 2],
    big: Idx,
    counters: CudaSlice<u64>,
    /// The queues in use, their sizes, the relaxation round.
    cn: usize,
    cf: usize,
    nnear: usize,
    nfar: usize,
    round: u32,
    stream: std::sync::Arc<cudarc::driver::CudaStream>,
    /// Relaxation rounds of the last near phase.
    last_rounds: usize,
    /// The step log of the relaxation rounds.
    log: CudaSlice<u64>,
    /// Page-locked copies of the log and the counters.
    host_log: PinnedHostSlice<u64>,
    host_counters: PinnedHostSlice<u64>,
}

fn read_counters(dev: &Device, c: &CudaSlice<u64>) -> Result<Vec<u64>, CudaError> {
    let v = check("reading the queue counters", || dev.stream.clone_dtoh(c))?;
    check("synchronizing", || dev.stream.synchronize())?;
    Ok(v)
}

/// The most relaxation rounds of the first batch of a near phase
/// ([`relax_rounds`](crate::matrix::relax_rounds)): a round after the near
/// queue emptied costs two empty launches, a batch one read of the log and
/// the counters.
const BATCH: usize = 16;

impl DeviceMatrix<f64> {
    /// Enqueues up to `rounds` relaxation rounds from the near queue of `r`
    /// (its size seeds the step log), each a fixed-grid `kgs_relax` (its
    /// queue's size read from the log) and `kgs_relax_big`, then reads the
    /// log and the counters once: the queue sizes after the last round
    /// that ran, and the number of rounds that ran.
    fn run_rounds(&self, r: &mut DeviceRelaxed, thr: f64, rounds: usize) -> crate::Result<(Queues, usize)> {
        check_dim("relax_near", "state", self.nrows(), r.n)?;
        let dev: &Device = &self.dev.dev;
        let s = &dev.stream;
        let csr = &self.csr;
        let rounds = rounds.clamp(1, RING - 1);
        seed_log(dev, &r.kernels[1], &mut r.log, 0, rounds, [r.nnear as u64, 0, 0, 0])?;
        for j in 0..rounds {
            let j32 = j as i32;
            let round = r.round.wrapping_add(1 + j as u32);
            let [q0, q1] = &mut r.near;
            let (q, nq) = if (r.cn + j) % 2 == 0 { (&*q0, q1) } else { (&*q1, q0) };
            let far = &mut r.far[r.cf];
            let mut lb = s.launch_builder(&r.kernels[6]);
            lb.arg(&j32).arg(q).arg(&csr.ptr).arg(&csr.ind).arg(&csr.val).arg(&thr).arg(&round);
            lb.arg(&mut r.dist).arg(&mut r.stamp).arg(&mut r.in_far).arg(&mut *nq).arg(&mut *far);
            lb.arg(&mut r.log).arg(&mut r.counters).arg(&mut r.big);
            // SAFETY: matches kgs_relax(j, near, ptr, ind, w, thr, round, dist, stamp, in_far,
            // near_next, far, log, counters, big); the queue holds the log's count of distinct ids
            // below n, buffers n entries (a node is at most once in each queue), the big list sized
            // for every chunk of 1024 arcs.
            check("launching kgs_relax", || unsafe { lb.launch(step_grid(dev)) })?;
            let mut lb = s.launch_builder(&r.kernels[7]);
            lb.arg(&j32).arg(&csr.ptr).arg(&csr.ind).arg(&csr.val).arg(&thr).arg(&round);
            lb.arg(&mut r.dist).arg(&mut r.stamp).arg(&mut r.in_far).arg(nq).arg(far);
            lb.arg(&mut r.log).arg(&mut r.counters).arg(&r.big);
            // SAFETY: matches kgs_relax_big(j, ptr, ind, w, thr, round, dist, stamp, in_far,
            // near_next, far, log, counters, big); big holds the chunks kgs_relax counted in the log.
            check("launching kgs_relax_big", || unsafe { lb.launch(spread_grid(dev)) })?;
        }
        check("reading the step log", || s.memcpy_dtoh(&r.log, &mut r.host_log))?;
        check("reading the queue counters", || s.memcpy_dtoh(&r.counters, &mut r.host_counters))?;
        let log = check("synchronizing", || r.host_log.as_slice())?;
        let far = check("synchronizing", || r.host_counters.as_slice())?[4] as usize;
        // round j ran when its near queue (slot j) was not empty
        let ran = (0..rounds).take_while(|&j| log[j * SLOT] > 0).count().max(1);
        let near = log[ran * SLOT] as usize;
        r.round = r.round.wrapping_add(ran as u32);
        r.cn = (r.cn + ran) % 2;
        (r.nnear, r.nfar) = (near, far);
        Ok((Queues { near, far, far_min: f64::INFINITY }, ran))
    }
}

/// The device's factor on the automatic bucket width
/// ([`RelaxOp::delta_scale`]): on one H200, R-MAT 22 from one source,
/// ×2–×4 the rule's `Δ` took delta-stepping from 21.8 to 15.4–16.0 ms with
/// integer weights in `[1, 100)` (101 relaxation rounds to 40–63) and from
/// 8.2 to 7.4 ms with unit weights; ×8 was slower again with weights.
const DEVICE_DELTA_SCALE: f64 = 4.0;

impl RelaxOp for DeviceMatrix<f64> {
    type Relaxed = DeviceRelaxed;

    fn delta_scale(&self) -> f64 {
        DEVICE_DELTA_SCALE
    }

    fn weights(&self) -> crate::Result<WeightStats> {
        let dev: &Device = &self.dev.dev;
        let kernels = frontier_kernels(dev, self.index_width())?;
        let mut stats = alloc::<u64>(dev, "allocating counters", 8)?;
        let nnz = self.nnz() as u64;
        let mut lb = dev.stream.launch_builder(&kernels[5]);
        lb.arg(&nnz).arg(&self.csr.val).arg(&mut stats);
        // SAFETY: matches kgs_weights(nnz, w, stats); w holds nnz values, stats 8 zeroed entries.
        check("launching kgs_weights", || unsafe { lb.launch(grid(dev, self.nnz())) })?;
        let c = read_counters(dev, &stats)?;
        let invalid = if c[0] > 0 { self.download()?.weights()?.invalid } else { None };
        Ok(WeightStats { max: f64::from_bits(c[1]), min_pos: f64::from_bits(!c[2]), invalid, arcs: self.nnz() })
    }

    fn relaxed(&self) -> crate::Result<DeviceRelaxed> {
        check_dim("relax_near", "columns", self.nrows(), self.ncols())?;
        let n = self.nrows();
        let dev: &Device = &self.dev.dev;
        let iw = self.index_width();
        let queue = || Idx::zeros(&dev.stream, iw, n);
        Ok(DeviceRelaxed {
            n,
            kernels: frontier_kernels(dev, iw)?,
            dist: alloc(dev, "allocating distances", n)?,
            stamp: alloc(dev, "allocating stamps", n)?,
            in_far: alloc(dev, "allocating far flags", n)?,
            near: [queue()?, queue()?],
            far: [queue()?, queue()?],
            big: Idx::zeros(&dev.stream, iw, big_len(self.nnz()))?,
            counters: alloc(dev, "allocating counters", 8)?,
            cn: 0,
            cf: 0,
            nnear: 0,
            nfar: 0,
            round: 0,
            stream: dev.stream.clone(),
            last_rounds: 1,
            log: alloc(dev, "allocating the step log", RING * SLOT)?,
            // SAFETY (both): written by memcpy_dtoh before they are read.
            host_log: check("allocating page-locked memory", || unsafe {
                dev.ctx.alloc_pinned_with_flags::<u64>(RING * SLOT, 0)
            })?,
            host_counters: check("allocating page-locked memory", || unsafe {
                dev.ctx.alloc_pinned_with_flags::<u64>(8, 0)
            })?,
        })
    }

    fn relax_source(&self, r: &mut DeviceRelaxed, source: usize) -> crate::Result<()> {
        check_dim("relax_near", "state", self.nrows(), r.n)?;
        let dev: &Device = &self.dev.dev;
        let iw = self.index_width();
        let (n32, src32) = (iw.val(r.n), iw.val(source));
        let mut lb = dev.stream.launch_builder(&r.kernels[4]);
        lb.arg(&n32).arg(&src32).arg(&mut r.dist).arg(&mut r.stamp).arg(&mut r.in_far);
        lb.arg(&mut r.near[0]);
        // SAFETY: matches kgs_init(n, source, dist, stamp, in_far, queue); every buffer holds n >= 1.
        check("launching kgs_init", || unsafe { lb.launch(grid(dev, r.n)) })?;
        check("clearing counters", || dev.stream.memset_zeros(&mut r.counters))?;
        (r.cn, r.cf, r.nnear, r.nfar, r.round) = (0, 0, 1, 0, 0);
        Ok(())
    }

    fn relax_near_op(&self, r: &mut DeviceRelaxed, thr: f64) -> crate::Result<Queues> {
        Ok(self.run_rounds(r, thr, 1)?.0)
    }

    /// Batches of rounds: the first as long as the last near phase was
    /// (at most `BATCH`), then twice the one before.
    fn relax_rounds_op(&self, r: &mut DeviceRelaxed, thr: f64) -> crate::Result<(Queues, usize)> {
        let (mut rounds, mut batch) = (0, r.last_rounds.clamp(1, BATCH));
        loop {
            let (q, k) = self.run_rounds(r, thr, batch)?;
            rounds += k;
            if q.near == 0 {
                r.last_rounds = rounds;
                return Ok((q, rounds));
            }
            batch = (2 * batch).min(RING - 1);
        }
    }

    fn split_far_op(&self, r: &mut DeviceRelaxed, lo: f64, thr: f64) -> crate::Result<Queues> {
        check_dim("relax_near", "state", self.nrows(), r.n)?;
        let dev: &Device = &self.dev.dev;
        let s = &dev.stream;
        let iw = self.index_width();
        check("clearing counters", || s.memset_zeros(&mut r.counters))?;
        let [f0, f1] = &mut r.far;
        let (fq, nfq) = if r.cf == 0 { (&*f0, f1) } else { (&*f1, f0) };
        let nf32 = iw.val(r.nfar);
        let mut lb = s.launch_builder(&r.kernels[8]);
        lb.arg(&nf32).arg(fq).arg(&lo).arg(&thr).arg(&r.dist).arg(&mut r.in_far);
        lb.arg(&mut r.near[r.cn]).arg(nfq).arg(&mut r.counters);
        // SAFETY: matches kgs_split(nf, far, lo, thr, dist, in_far, near, far_next, counters);
        // the far queue holds nf distinct ids below n, the outputs n entries.
        check("launching kgs_split", || unsafe { lb.launch(grid(dev, r.nfar)) })?;
        check("reading the queue counters", || s.memcpy_dtoh(&r.counters, &mut r.host_counters))?;
        let c = check("synchronizing", || r.host_counters.as_slice())?.to_vec();
        r.cf ^= 1;
        (r.nnear, r.nfar) = (c[0] as usize, c[4] as usize);
        let far_min = if r.nfar == 0 { f64::INFINITY } else { f64::from_bits(!c[6]) };
        Ok(Queues { near: r.nnear, far: r.nfar, far_min })
    }

    fn distances_to_host(r: &DeviceRelaxed) -> crate::Result<Vec<f64>> {
        let d: Vec<u64> = check("downloading distances", || r.stream.clone_dtoh(&r.dist))?;
        check("synchronizing", || r.stream.synchronize())?;
        Ok(d[..r.n].iter().map(|&b| f64::from_bits(b)).collect())
    }
}
