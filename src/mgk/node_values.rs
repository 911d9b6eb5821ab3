//! The node kernel's values on the data: the one check of a node kernel
//! that may be negative (declared within `[−1, 1]`, such as a normalized dot
//! product), which every backend of [`MarginalizedGraphKernel`](super::MarginalizedGraphKernel)'s methods gets
//! (the API calls it before an engine solves).

use super::MgkError;
use crate::basekernel::BaseKernel;
use crate::graph::{Graph, Label};

/// The check on the data that [`check_ranges`](super::system::check_ranges) leaves to the backends, in
/// one place for all of them (the API calls it before any engine solves):
/// where the node kernel's declared range reaches below 0 (a normalized dot
/// product, the cosine), every value `κv(v_i, v'_i')` the `pairs` use
/// (graph `a` of `x`, graph `b` of `y`, of `x` when `None`) is evaluated
/// ([`BaseKernel::table`], pairs in parallel) and the first negative one, in
/// the order of `pairs`, is [`MgkError::NodeKernelNegative`] naming the
/// graphs and nodes. A kernel declared within `[0, 1]` costs nothing here.
/// `O(Σ n n')` kernel evaluations, as many as the CPU's diagonals.
///
/// # Errors
/// [`MgkError::NodeKernelNegative`].
pub(crate) fn check_node_kernel_values<N: Label, E: Label, KV: BaseKernel<N>>(
    kv: &KV,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
    pairs: &[(usize, usize)],
) -> Result<(), MgkError> {
    use rayon::prelude::*;
    if kv.range().0 >= 0.0 {
        return Ok(());
    }
    let yy = y.unwrap_or(x);
    let found = pairs.par_iter().map_init(Vec::new, |table, &(a, b)| {
        let (la, lb) = (x[a].node_labels(), yy[b].node_labels());
        let ra: Vec<&N> = la.iter().collect();
        let rb: Vec<&N> = lb.iter().collect();
        kv.table(&ra, &rb, table);
        let m = lb.len().max(1);
        table.iter().position(|&v| v < 0.0).map(|at| MgkError::NodeKernelNegative {
            pair: (a, b),
            at: (at / m, at % m),
            value: table[at],
        })
    });
    match found.find_map_first(|e| e) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
