//! Single-source shortest paths on the GPU by near-far delta-stepping
//! (Davidson, Baxter, Garland & Owens, "Work-efficient parallel GPU methods
//! for single-source shortest paths", IPDPS 2014), over the frontier
//! kernels of `kernels/graphblas_frontier.cu` and buffers allocated once per
//! graph.
//!
//! Near-far is delta-stepping with two buckets instead of `max d / Δ`: the
//! near queue holds the nodes whose distance is below the threshold `t`, the
//! far queue every other lowered node. Rounds relax all arcs of the near
//! queue (no light/heavy split: a heavy arc lands in the far queue, as a
//! heavy-phase relaxation lands in a later bucket) until it is empty; then
//! `t += Δ` and the far queue is split at the new `t` (nodes settled by an
//! earlier phase dropped); when nothing falls below it, `t` jumps to the far
//! queue's smallest distance plus `Δ`. A relaxation round is two launches
//! (a warp per node; nodes of out-degree ≥ 1024 spread over the whole grid)
//! and one read of the queue sizes.

use super::{frontier_kernels, spread_grid, AlgorithmError, Held};
use crate::algorithms::delta_stepping::delta_rule;
use crate::algorithms::sssp::{check_weights, SsspResult};
use crate::cuda::device::{check, Device};
use crate::cuda::CudaError;
use crate::matrix::gpu::scan::grid;
use crate::matrix::gpu::{DeviceMatrix, Idx};
use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};
use std::time::Instant;

/// A delta-stepping workspace on one device matrix of weights: distances,
/// stamps, two near and two far queues, the high-degree list and the
/// counters, allocated once by [`GpuSssp::new`] and reused by every
/// [`GpuSssp::run`].
pub struct GpuSssp<'a> {
    a: Held<'a, f64>,
    n: usize,
    delta: f64,
    kernels: Vec<CudaFunction>,
    dist: CudaSlice<u64>,
    stamp: CudaSlice<u32>,
    in_far: CudaSlice<u32>,
    near: [Idx; 2],
    far: [Idx; 2],
    big: Idx,
    counters: CudaSlice<u64>,
}

fn alloc<T: crate::matrix::gpu::GpuElement>(dev: &Device, what: &str, n: usize) -> Result<CudaSlice<T>, CudaError> {
    check(what, || dev.stream.alloc_zeros::<T>(n.max(1)))
}

fn read_counters(dev: &Device, c: &CudaSlice<u64>) -> Result<Vec<u64>, CudaError> {
    let v = check("reading the queue counters", || dev.stream.clone_dtoh(c))?;
    check("synchronizing", || dev.stream.synchronize())?;
    Ok(v)
}

impl<'a> GpuSssp<'a> {
    /// The workspace for shortest paths along arcs `u → v` of weight
    /// `A(u, v)` of the square device matrix `a`, with bucket width `delta`
    /// (`None`: the CPU's [`auto_delta`](crate::algorithms::auto_delta)
    /// rule, from the weights' extremes found on the device). Checks the
    /// weights on the device.
    ///
    /// # Errors
    /// [`AlgorithmError::NotSquare`], [`AlgorithmError::InvalidWeight`] (a
    /// negative, infinite or NaN weight: the first such arc),
    /// [`AlgorithmError::InvalidDelta`]; NVRTC and driver errors.
    pub fn new(a: &'a DeviceMatrix<f64>, delta: Option<f64>) -> crate::Result<Self> {
        Self::hold(Held::Borrowed(a), delta)
    }

    /// [`GpuSssp::new`] owning its matrix.
    ///
    /// # Errors
    /// As [`GpuSssp::new`].
    pub fn owning(a: DeviceMatrix<f64>, delta: Option<f64>) -> crate::Result<GpuSssp<'static>> {
        GpuSssp::hold(Held::Owned(Box::new(a)), delta)
    }

    fn hold(a: Held<'a, f64>, delta: Option<f64>) -> crate::Result<Self> {
        if a.nrows() != a.ncols() {
            return Err(AlgorithmError::NotSquare { what: "SSSP", rows: a.nrows(), cols: a.ncols() }.into());
        }
        if let Some(d) = delta.filter(|d| !(d.is_finite() && *d > 0.0)) {
            return Err(AlgorithmError::InvalidDelta { delta: d }.into());
        }
        let n = a.nrows();
        let dev: &Device = &a.dev.dev;
        let iw = a.index_width();
        let kernels = frontier_kernels(dev, iw)?;
        let queue = || Idx::zeros(&dev.stream, iw, n);
        let mut counters = alloc::<u64>(dev, "allocating counters", 8)?;
        let nnz = a.nnz() as u64;
        let mut lb = dev.stream.launch_builder(&kernels[5]);
        lb.arg(&nnz).arg(&a.csr.val).arg(&mut counters);
        // SAFETY: matches kgs_weights(nnz, w, stats); w holds nnz values, stats 8 zeroed entries.
        check("launching kgs_weights", || unsafe { lb.launch(grid(dev, a.nnz())) })?;
        let stats = read_counters(dev, &counters)?;
        if stats[0] > 0 {
            check_weights(&a.download()?)?;
        }
        let delta =
            delta.unwrap_or_else(|| delta_rule(f64::from_bits(stats[1]), f64::from_bits(!stats[2]), a.nnz(), n));
        Ok(GpuSssp {
            n,
            delta,
            kernels,
            dist: alloc(dev, "allocating distances", n)?,
            stamp: alloc(dev, "allocating stamps", n)?,
            in_far: alloc(dev, "allocating far flags", n)?,
            near: [queue()?, queue()?],
            far: [queue()?, queue()?],
            big: queue()?,
            counters,
            a,
        })
    }

    /// The bucket width in use.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// Distances from `source` (`+∞` where unreachable; equal to
    /// Dijkstra's up to the order of the additions along equal-length
    /// paths), the relaxation rounds in `rounds`, and the seconds of the
    /// loop (initialization included; device synchronized at both ends;
    /// download excluded).
    ///
    /// # Errors
    /// [`AlgorithmError::SourceOutOfRange`]; driver errors.
    pub fn run(&mut self, source: usize) -> crate::Result<(SsspResult, f64)> {
        let n = self.n;
        if source >= n {
            return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n }.into());
        }
        let dev: &Device = &self.a.dev.dev;
        let s = &dev.stream;
        let k = &self.kernels;
        let csr = &self.a.csr;
        let iw = self.a.index_width();
        let (n32, src32) = (iw.val(n), iw.val(source));
        let big_grid = spread_grid(dev);
        check("synchronizing", || s.synchronize())?;
        let t0 = Instant::now();
        let mut lb = s.launch_builder(&k[4]);
        lb.arg(&n32).arg(&src32).arg(&mut self.dist).arg(&mut self.stamp).arg(&mut self.in_far);
        lb.arg(&mut self.near[0]);
        // SAFETY: matches kgs_init(n, source, dist, stamp, in_far, queue); every buffer holds n >= 1.
        check("launching kgs_init", || unsafe { lb.launch(grid(dev, n)) })?;
        check("clearing counters", || s.memset_zeros(&mut self.counters))?;
        let (mut nnear, mut nfar) = (1usize, 0usize);
        let (mut cn, mut cf) = (0usize, 0usize);
        let (mut lo, mut thr) = (0.0f64, self.delta);
        let (mut round, mut rounds) = (0u32, 0usize);
        loop {
            while nnear > 0 {
                round += 1;
                rounds += 1;
                check("clearing counters", || s.memset_zeros(&mut self.counters.slice_mut(0..4)))?;
                let [q0, q1] = &mut self.near;
                let (q, nq) = if cn == 0 { (&*q0, q1) } else { (&*q1, q0) };
                let far = &mut self.far[cf];
                let f32_ = iw.val(nnear);
                let mut lb = s.launch_builder(&k[6]);
                lb.arg(&f32_).arg(q).arg(&csr.ptr).arg(&csr.ind).arg(&csr.val).arg(&thr).arg(&round);
                lb.arg(&mut self.dist).arg(&mut self.stamp).arg(&mut self.in_far).arg(&mut *nq).arg(&mut *far);
                lb.arg(&mut self.counters).arg(&mut self.big);
                // SAFETY: matches kgs_relax(f, near, ptr, ind, w, thr, round, dist, stamp, in_far,
                // near_next, far, counters, big); the queue holds f distinct ids below n, buffers n entries
                // (a node is at most once in each queue).
                check("launching kgs_relax", || unsafe { lb.launch(grid(dev, nnear * 32)) })?;
                let mut lb = s.launch_builder(&k[7]);
                lb.arg(&csr.ptr).arg(&csr.ind).arg(&csr.val).arg(&thr).arg(&round);
                lb.arg(&mut self.dist).arg(&mut self.stamp).arg(&mut self.in_far).arg(nq).arg(far);
                lb.arg(&mut self.counters).arg(&self.big);
                // SAFETY: matches kgs_relax_big(ptr, ind, w, thr, round, dist, stamp, in_far, near_next,
                // far, counters, big); big holds counters[2] ids written by kgs_relax.
                check("launching kgs_relax_big", || unsafe { lb.launch(big_grid) })?;
                let c = read_counters(dev, &self.counters)?;
                (nnear, nfar) = (c[0] as usize, c[4] as usize);
                cn ^= 1;
            }
            if nfar == 0 {
                break;
            }
            lo = lo.max(thr);
            thr += self.delta;
            loop {
                check("clearing counters", || s.memset_zeros(&mut self.counters))?;
                let [f0, f1] = &mut self.far;
                let (fq, nfq) = if cf == 0 { (&*f0, f1) } else { (&*f1, f0) };
                let nf32 = iw.val(nfar);
                let mut lb = s.launch_builder(&k[8]);
                lb.arg(&nf32).arg(fq).arg(&lo).arg(&thr).arg(&self.dist).arg(&mut self.in_far);
                lb.arg(&mut self.near[cn]).arg(nfq).arg(&mut self.counters);
                // SAFETY: matches kgs_split(nf, far, lo, thr, dist, in_far, near, far_next, counters);
                // the far queue holds nf distinct ids below n, the outputs n entries.
                check("launching kgs_split", || unsafe { lb.launch(grid(dev, nfar)) })?;
                let c = read_counters(dev, &self.counters)?;
                cf ^= 1;
                (nnear, nfar) = (c[0] as usize, c[4] as usize);
                if nnear > 0 || nfar == 0 {
                    break;
                }
                // nothing below thr: jump to the far queue's smallest distance
                let m = f64::from_bits(!c[6]);
                thr = (m + self.delta).max(f64::from_bits(m.to_bits() + 1));
            }
            if nnear == 0 {
                break;
            }
        }
        let seconds = t0.elapsed().as_secs_f64();
        let d: Vec<u64> = check("downloading distances", || s.clone_dtoh(&self.dist))?;
        check("synchronizing", || s.synchronize())?;
        let distances = d[..n].iter().map(|&b| f64::from_bits(b)).collect();
        Ok((SsspResult { distances, rounds, delta: Some(self.delta) }, seconds))
    }
}
