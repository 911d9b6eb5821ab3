//! Checks made before a long computation: the `--out` path
//! ([`check_out`]) and the memory a Gram matrix needs ([`check_gram_memory`]).

use kronograph::graph::io::{limits, output};
use kronograph::graph::{Graph, Label};
use std::path::Path;

/// Checks that `--out` (when given) can be written and is not the input
/// `input` (a file, or a data set folder: none of its files): fails at once,
/// before anything is read or computed.
///
/// # Errors
/// [`IoError::Output`](kronograph::graph::io::IoError::Output) saying what
/// to change.
pub fn check_out(out: Option<&Path>, input: &Path) -> kronograph::Result<()> {
    if let Some(out) = out {
        output::check_target(out, &[input])?;
    }
    Ok(())
}

/// Bytes per graph pair of the bookkeeping of a Gram computation: the pair
/// list and each pair's result (`per_pair` in [`gram_bytes`]).
pub const MGK_BYTES_PER_PAIR: u64 = 72;
/// The same for the random-walk kernel (pair and value).
pub const RW_BYTES_PER_PAIR: u64 = 24;
/// Vectors of the product system's size that one solve keeps (PCG/CG:
/// solution, residual, direction, preconditioned residual, product,
/// diagonal, right-hand side, scratch).
const SOLVER_VECTORS: u64 = 8;

/// The estimated memory of the Gram matrix of graphs with `sizes` nodes:
/// the `N × N` float64 output, `per_pair` bytes for each of the
/// `N(N+1)/2` pairs, and one solver workspace (of the largest product
/// system, `max n²` unknowns of 8 bytes) per thread that can run at once.
pub fn gram_bytes(sizes: &[usize], per_pair: u64) -> u64 {
    let n = sizes.len() as u64;
    let pairs = n.saturating_mul(n + 1) / 2;
    let largest = sizes.iter().copied().max().unwrap_or(0) as u64;
    let threads = (rayon::current_num_threads() as u64).clamp(1, pairs.max(1));
    let workspace = largest.saturating_mul(largest).saturating_mul(8 * SOLVER_VECTORS);
    n.saturating_mul(n)
        .saturating_mul(8)
        .saturating_add(pairs.saturating_mul(per_pair))
        .saturating_add(threads.saturating_mul(workspace))
}

/// Refuses, before computing, a Gram matrix over `graphs` whose estimated
/// memory ([`gram_bytes`]) exceeds the memory available
/// ([`limits::memory_budget`]), saying how many graphs `--first` could take.
///
/// # Errors
/// [`kronograph::Error::InsufficientMemory`].
pub fn check_gram_memory<N: Label, E: Label>(
    what: &str,
    graphs: &[Graph<N, E>],
    per_pair: u64,
) -> kronograph::Result<()> {
    let Some(budget) = limits::memory_budget() else { return Ok(()) };
    let sizes: Vec<usize> = graphs.iter().map(Graph::num_nodes).collect();
    let needed = gram_bytes(&sizes, per_pair);
    if needed <= budget {
        return Ok(());
    }
    let n = sizes.len();
    // The most leading graphs that fit (the estimate grows with k).
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if gram_bytes(&sizes[..mid], per_pair) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let hint = if lo >= 2 {
        format!(
            "use --first {lo} (or fewer) to take fewer graphs: --first {lo} needs about {}",
            limits::human_bytes(gram_bytes(&sizes[..lo], per_pair))
        )
    } else {
        "even two graphs do not fit: the largest graph's product system is too big for this machine".to_string()
    };
    Err(kronograph::Error::InsufficientMemory {
        what: format!(
            "{what} over {n} graphs (a {n} x {n} float64 matrix of {} plus {} pairs of work)",
            limits::human_bytes((n as u64).saturating_mul(n as u64).saturating_mul(8)),
            (n as u64).saturating_mul(n as u64 + 1) / 2
        ),
        needed,
        available: budget,
        budget_from: limits::memory_budget_source().to_string(),
        hint,
    })
}
