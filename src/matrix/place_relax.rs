//! The relaxation steps of near-far delta-stepping as operations on every
//! place: [`relax_near`] and [`split_far`], over a state
//! ([`RelaxOp::Relaxed`]: distances, a near and a far queue) that lives
//! where the weights do.
//!
//! In GraphBLAS terms a relaxation round is `t = fᵀ A` over `(min, +)` for
//! the near queue `f` (with its distances), `d = min(d, t)` (as
//! [`assign_min`](super::assign_min)), and a `select` of the lowered
//! entries by the threshold into the next near queue and the far queue
//! (LAGraph's delta-stepping writes it as `vxm`, `eWiseAdd` and `select`
//! calls); here each is one fused step. On the host ([`HostRelaxed`]) the
//! near queue's arcs are relaxed in parallel (rayon, an atomic minimum on
//! the distances' bits); on a device
//! ([`DeviceRelaxed`](super::gpu::DeviceRelaxed)) by the near-far kernels
//! of `kernels/graphblas_frontier.cu` (a warp per node, the arcs of nodes
//! of out-degree ≥ 1024 in chunks of 1024, a block per chunk; the near
//! phase's rounds, [`relax_rounds`], in batches read once).

use super::place::Located;
use super::SparseMatrix;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// The queue sizes after a step, and (after a split) the smallest distance
/// left in the far queue (`+∞` when empty).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Queues {
    /// Nodes in the near queue.
    pub near: usize,
    /// Nodes in the far queue.
    pub far: usize,
    /// The smallest distance in the far queue (set by [`split_far`]).
    pub far_min: f64,
}

/// What [`RelaxOp::weights`] finds: the extremes of the weights and the
/// first arc whose weight is not finite and `>= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightStats {
    /// The largest weight (0 without arcs).
    pub max: f64,
    /// The smallest positive weight (`+∞` if none).
    pub min_pos: f64,
    /// The first bad arc `(from, to, weight)` in row order.
    pub invalid: Option<(usize, usize, f64)>,
    /// Stored arcs.
    pub arcs: usize,
}

/// A square matrix of arc weights whose place runs the near-far steps;
/// implemented by [`SparseMatrix<f64>`] and
/// [`DeviceMatrix<f64>`](super::gpu::DeviceMatrix).
pub trait RelaxOp: Located {
    /// The state on this place: distances, queues, stamps.
    type Relaxed;

    /// The weights' extremes and first bad arc (on a device the extremes
    /// are found there; a bad arc's place by a download).
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn weights(&self) -> crate::Result<WeightStats>;

    /// The factor on [`auto_delta`](crate::algorithms::auto_delta)'s rule
    /// for the bucket width this place runs best with when none is given:
    /// 1 on the host; on a device, where every relaxation round costs two
    /// launches and each bucket a read of its counters, fewer and wider
    /// buckets pay more than the re-relaxations they add.
    fn delta_scale(&self) -> f64 {
        1.0
    }

    /// A state for searches on this matrix, reused across sources.
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`](super::MatrixError) for a
    /// non-square matrix; CUDA errors on a device.
    fn relaxed(&self) -> crate::Result<Self::Relaxed>;

    /// Resets `r` to a search from `source` (below `n`): `d(source) = 0`,
    /// `+∞` elsewhere; the near queue holds the source, the far queue nothing.
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn relax_source(&self, r: &mut Self::Relaxed, source: usize) -> crate::Result<()>;

    /// See [`relax_near`].
    ///
    /// # Errors
    /// As [`relax_near`].
    fn relax_near_op(&self, r: &mut Self::Relaxed, thr: f64) -> crate::Result<Queues>;

    /// See [`relax_rounds`]; by default [`RelaxOp::relax_near_op`] until
    /// the near queue is empty.
    ///
    /// # Errors
    /// As [`relax_near`].
    fn relax_rounds_op(&self, r: &mut Self::Relaxed, thr: f64) -> crate::Result<(Queues, usize)> {
        let mut rounds = 0;
        loop {
            let q = self.relax_near_op(r, thr)?;
            rounds += 1;
            if q.near == 0 {
                return Ok((q, rounds));
            }
        }
    }

    /// See [`split_far`].
    ///
    /// # Errors
    /// As [`relax_near`].
    fn split_far_op(&self, r: &mut Self::Relaxed, lo: f64, thr: f64) -> crate::Result<Queues>;

    /// The distances of `r` on the host.
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn distances_to_host(r: &Self::Relaxed) -> crate::Result<Vec<f64>>;
}

/// A relaxation round: every arc `u → v` of weight `w` leaving the near
/// queue lowers `d(v)` to `d(u) + w` when smaller; each lowered `v` joins
/// the next near queue when `d(v) < thr` (once), else the far queue (once
/// while it is there). Returns the queue sizes.
///
/// # Errors
/// [`MatrixError::DimensionMismatch`](super::MatrixError) if `r` was made
/// for another size; CUDA errors on a device.
pub fn relax_near<M: RelaxOp>(r: &mut M::Relaxed, a: &M, thr: f64) -> crate::Result<Queues> {
    a.relax_near_op(r, thr)
}

/// [`relax_near`] rounds while the near queue is not empty (it is, when
/// called): returns the queue sizes after the last round and the number of
/// rounds. The fused form of the near phase: on a device the rounds read
/// their queue sizes on the device, and the host reads them once per batch
/// of rounds instead of once per round.
///
/// # Errors
/// As [`relax_near`].
pub fn relax_rounds<M: RelaxOp>(r: &mut M::Relaxed, a: &M, thr: f64) -> crate::Result<(Queues, usize)> {
    a.relax_rounds_op(r, thr)
}

/// Splits the far queue at `thr`: its nodes with `lo <= d < thr` become
/// the near queue, those with `d >= thr` stay far, those below `lo` (settled
/// by an earlier near phase) leave. Returns the queue sizes and the far
/// queue's smallest distance.
///
/// # Errors
/// As [`relax_near`].
pub fn split_far<M: RelaxOp>(r: &mut M::Relaxed, a: &M, lo: f64, thr: f64) -> crate::Result<Queues> {
    a.split_far_op(r, lo, thr)
}

/// The near-far state on the host.
pub struct HostRelaxed {
    n: usize,
    dist: Vec<AtomicU64>,
    /// `stamp[v] == round`: v is already in this round's near queue.
    stamp: Vec<AtomicU32>,
    in_far: Vec<AtomicU32>,
    round: u32,
    near: Vec<usize>,
    far: Vec<usize>,
}

/// Below this many near nodes a round runs on one task.
const PAR_MIN_NODES: usize = 64;

impl RelaxOp for SparseMatrix<f64> {
    type Relaxed = HostRelaxed;

    fn weights(&self) -> crate::Result<WeightStats> {
        let (max, min_pos) = self
            .values()
            .par_iter()
            .copied()
            .filter(|w| w.is_finite() && *w >= 0.0)
            .fold(|| (0.0f64, f64::INFINITY), |(mx, mn), w| (mx.max(w), if w > 0.0 { mn.min(w) } else { mn }))
            .reduce(|| (0.0, f64::INFINITY), |(a, b), (c, d)| (a.max(c), b.min(d)));
        let bad = self.values().par_iter().position_first(|w| !(w.is_finite() && *w >= 0.0));
        let invalid = bad.map(|k| {
            let from = self.indptr().partition_point(|&p| p <= k) - 1;
            (from, self.indices()[k], self.values()[k])
        });
        Ok(WeightStats { max, min_pos, invalid, arcs: self.nnz() })
    }

    fn relaxed(&self) -> crate::Result<HostRelaxed> {
        super::check_dim("relax_near", "columns", self.nrows(), self.ncols())?;
        let n = self.nrows();
        Ok(HostRelaxed {
            n,
            dist: (0..n).into_par_iter().map(|_| AtomicU64::new(f64::INFINITY.to_bits())).collect(),
            stamp: (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect(),
            in_far: (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect(),
            round: 0,
            near: Vec::new(),
            far: Vec::new(),
        })
    }

    fn relax_source(&self, r: &mut HostRelaxed, source: usize) -> crate::Result<()> {
        super::check_dim("relax_near", "state", self.nrows(), r.n)?;
        let inf = f64::INFINITY.to_bits();
        r.dist.par_iter().for_each(|d| d.store(inf, Relaxed));
        r.stamp.par_iter().for_each(|s| s.store(0, Relaxed));
        r.in_far.par_iter().for_each(|s| s.store(0, Relaxed));
        r.dist[source].store(0, Relaxed);
        (r.round, r.near, r.far) = (0, vec![source], Vec::new());
        Ok(())
    }

    fn relax_near_op(&self, r: &mut HostRelaxed, thr: f64) -> crate::Result<Queues> {
        super::check_dim("relax_near", "state", self.nrows(), r.n)?;
        r.round = r.round.wrapping_add(1);
        if r.round == 0 {
            r.stamp.par_iter().for_each(|s| s.store(0, Relaxed));
            r.round = 1;
        }
        let (round, dist, stamp, in_far) = (r.round, &r.dist, &r.stamp, &r.in_far);
        let relax_node = |(mut near, mut far): (Vec<usize>, Vec<usize>), &u: &usize| {
            let du = f64::from_bits(dist[u].load(Relaxed));
            let (cols, ws) = self.row(u);
            for (&v, &w) in cols.iter().zip(ws) {
                let nd = du + w;
                let nb = nd.to_bits();
                if nb < dist[v].load(Relaxed) && nb < dist[v].fetch_min(nb, Relaxed) {
                    if nd < thr {
                        if stamp[v].swap(round, Relaxed) != round {
                            near.push(v);
                        }
                    } else if in_far[v].swap(1, Relaxed) == 0 {
                        far.push(v);
                    }
                }
            }
            (near, far)
        };
        let (near, far) = if r.near.len() < PAR_MIN_NODES {
            r.near.iter().fold((Vec::new(), Vec::new()), relax_node)
        } else {
            r.near.par_iter().with_min_len(PAR_MIN_NODES).fold(|| (Vec::new(), Vec::new()), relax_node).reduce(
                || (Vec::new(), Vec::new()),
                |(mut a, mut b), (mut c, mut d)| {
                    a.append(&mut c);
                    b.append(&mut d);
                    (a, b)
                },
            )
        };
        r.near = near;
        r.far.extend(far);
        Ok(Queues { near: r.near.len(), far: r.far.len(), far_min: f64::INFINITY })
    }

    fn split_far_op(&self, r: &mut HostRelaxed, lo: f64, thr: f64) -> crate::Result<Queues> {
        super::check_dim("relax_near", "state", self.nrows(), r.n)?;
        let (dist, in_far) = (&r.dist, &r.in_far);
        let d = |v: usize| f64::from_bits(dist[v].load(Relaxed));
        let near: Vec<usize> = r.far.par_iter().copied().filter(|&v| d(v) >= lo && d(v) < thr).collect();
        let far: Vec<usize> = r.far.par_iter().copied().filter(|&v| d(v) >= thr).collect();
        r.far.par_iter().for_each(|&v| in_far[v].store(u32::from(d(v) >= thr), Relaxed));
        let far_min = far.par_iter().map(|&v| d(v)).reduce(|| f64::INFINITY, f64::min);
        (r.near, r.far) = (near, far);
        Ok(Queues { near: r.near.len(), far: r.far.len(), far_min })
    }

    fn distances_to_host(r: &HostRelaxed) -> crate::Result<Vec<f64>> {
        Ok(r.dist.iter().map(|d| f64::from_bits(d.load(Relaxed))).collect())
    }
}
