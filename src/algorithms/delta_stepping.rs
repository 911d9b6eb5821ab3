//! The bucket width of delta-stepping (Meyer & Sanders, "Δ-stepping: a
//! parallelizable shortest path algorithm", J. Algorithms 2003), whose
//! near-far form is [`DeltaStepping`](super::DeltaStepping).

use crate::matrix::SparseMatrix;
use rayon::prelude::*;

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
/// (on a device `max` and `min_pos` are found there).
pub(crate) fn delta_rule(max: f64, min_pos: f64, nnz: usize, n: usize) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let mean_degree = (nnz as f64 / n.max(1) as f64).max(1.0);
    (max / mean_degree).max(min_pos)
}
