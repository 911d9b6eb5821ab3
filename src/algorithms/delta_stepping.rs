//! The delta-stepping kernel of [`sssp_matrix`](super::sssp_matrix)
//! (Meyer & Sanders, "Δ-stepping: a parallelizable shortest path
//! algorithm", J. Algorithms 2003), parallel with rayon.

use crate::matrix::SparseMatrix;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// The automatic bucket width: `Δ = max(w_max / d̄, w_min⁺)`, with `w_max`
/// the largest weight, `d̄ = nnz / n` the mean out-degree and `w_min⁺` the
/// smallest positive weight (`Δ = 1` when no weight is positive).
///
/// `w_max / d̄` is Meyer and Sanders' `Θ(1/d)` for weights spread over
/// `[0, w_max]`: a node has about one light arc per unit of `Δ / w_max`
/// times its degree, so a bucket's light phases stay short while the
/// buckets stay few. The floor `w_min⁺` keeps at least the lightest arcs
/// light; with unit weights `Δ = 1` and each bucket is one BFS level.
/// Cost `O(nnz)`.
pub fn auto_delta(a: &SparseMatrix<f64>) -> f64 {
    let (max, min_pos) = a
        .values()
        .par_iter()
        .fold(|| (0.0f64, f64::INFINITY), |(mx, mn), &w| (mx.max(w), if w > 0.0 { mn.min(w) } else { mn }))
        .reduce(|| (0.0, f64::INFINITY), |(a, b), (c, d)| (a.max(c), b.min(d)));
    delta_rule(max, min_pos, a.nnz(), a.nrows())
}

/// [`auto_delta`]'s rule from the largest weight `max`, the smallest
/// positive one `min_pos` (`+∞` if none), the arc count and the node count
/// (shared by the GPU's delta-stepping, which finds `max` and `min_pos` on
/// the device).
pub(crate) fn delta_rule(max: f64, min_pos: f64, nnz: usize, n: usize) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let mean_degree = (nnz as f64 / n.max(1) as f64).max(1.0);
    (max / mean_degree).max(min_pos)
}

/// Distances from `source` (weights finite and `>= 0`, `delta > 0`, checked
/// by the caller) and the number of relaxation phases.
pub(super) fn delta_stepping(a: &SparseMatrix<f64>, source: usize, delta: f64) -> (Vec<f64>, usize) {
    let n = a.nrows();
    let split = |light: bool| {
        SparseMatrix::from_rows_into(n, n, |i, idx: &mut Vec<usize>, val: &mut Vec<f64>| {
            let (cols, ws) = a.row(i);
            for (&j, &w) in cols.iter().zip(ws) {
                if (w <= delta) == light {
                    idx.push(j);
                    val.push(w);
                }
            }
        })
    };
    // All arcs light (unit weights with Δ = 1, say): no copy, no heavy phases.
    let all_light = a.values().par_iter().all(|&w| w <= delta);
    let (light, heavy) =
        if all_light { (Cow::Borrowed(a), None) } else { (Cow::Owned(split(true)), Some(split(false))) };
    let dist: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(f64::INFINITY.to_bits())).collect();
    dist[source].store(0.0f64.to_bits(), Relaxed);
    // `stamp[v] == phase`: v is already listed in this phase's output.
    let stamp: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    let bucket_of = |v: usize| (f64::from_bits(dist[v].load(Relaxed)) / delta).floor() as u64;
    let mut buckets: BTreeMap<u64, Vec<usize>> = BTreeMap::from([(0, vec![source])]);
    let (mut phase, mut phases) = (0u32, 0usize);
    let mut next_phase = || {
        phase = phase.wrapping_add(1);
        if phase == 0 {
            stamp.par_iter().for_each(|s| s.store(0, Relaxed));
            phase = 1;
        }
        phase
    };
    while let Some((b, held)) = buckets.pop_first() {
        // Entries are not removed when a node moves to a lower bucket: skip the stale ones.
        let p = next_phase();
        let mut frontier: Vec<usize> =
            held.into_iter().filter(|&v| bucket_of(v) == b && stamp[v].swap(p, Relaxed) != p).collect();
        let mut emptied = Vec::new();
        while !frontier.is_empty() {
            emptied.extend_from_slice(&frontier);
            let updated = relax(&light, &frontier, &dist, &stamp, next_phase());
            phases += 1;
            frontier.clear();
            for v in updated {
                let bv = bucket_of(v);
                if bv == b {
                    frontier.push(v);
                } else {
                    buckets.entry(bv).or_default().push(v);
                }
            }
        }
        let Some(heavy) = &heavy else { continue };
        emptied.par_sort_unstable();
        emptied.dedup();
        let updated = relax(heavy, &emptied, &dist, &stamp, next_phase());
        phases += 1;
        for v in updated {
            buckets.entry(bucket_of(v)).or_default().push(v);
        }
    }
    (dist.into_iter().map(|d| f64::from_bits(d.into_inner())).collect(), phases)
}

/// Relaxes the arcs of `m` leaving `frontier` in parallel: `d(v) ← min(d(v),
/// d(u) + w)` by an atomic minimum on the bits (non-negative floats order as
/// their bit patterns). Returns the nodes lowered, each once.
fn relax(m: &SparseMatrix<f64>, frontier: &[usize], dist: &[AtomicU64], stamp: &[AtomicU32], phase: u32) -> Vec<usize> {
    frontier
        .par_iter()
        .with_min_len(64)
        .fold(Vec::new, |mut out, &u| {
            let du = f64::from_bits(dist[u].load(Relaxed));
            let (cols, ws) = m.row(u);
            for (&v, &w) in cols.iter().zip(ws) {
                let nd = (du + w).to_bits();
                if nd < dist[v].load(Relaxed)
                    && nd < dist[v].fetch_min(nd, Relaxed)
                    && stamp[v].swap(phase, Relaxed) != phase
                {
                    out.push(v);
                }
            }
            out
        })
        .reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            a
        })
}
