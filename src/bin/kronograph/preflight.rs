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
        check_name(out)?;
        output::check_target(out, &[input])?;
    }
    Ok(())
}

/// The longest file name most file systems take (ext4, XFS, Btrfs, tmpfs: `NAME_MAX`).
const NAME_MAX: usize = 255;
/// What the temporary file written next to an output adds to its name
/// (`.NAME.XXXXXX.tmp`, see [`output::write_atomically`]).
const TEMP_NAME_EXTRA: usize = 12;

/// Refuses an output path that cannot be a file name: one ending in `/`
/// (a folder), or a name too long for its temporary companion.
///
/// # Errors
/// [`IoError::Output`](kronograph::graph::io::IoError::Output) saying what to change.
pub fn check_name(out: &Path) -> kronograph::Result<()> {
    let refuse = |problem: String| kronograph::graph::io::IoError::Output { path: out.to_path_buf(), problem };
    let text = out.as_os_str().to_string_lossy();
    if text.ends_with('/') || text.ends_with("/.") || text.ends_with("/..") || text == "." || text == ".." {
        return Err(refuse(format!(
            "names a folder (it ends with `{}`); give a file name, such as {}out.npy",
            if text.ends_with('/') { "/" } else { "." },
            text.trim_end_matches('.').trim_end_matches('/').to_string() + "/"
        ))
        .into());
    }
    let len = out.file_name().map_or(0, |n| n.len());
    if len + TEMP_NAME_EXTRA > NAME_MAX {
        return Err(refuse(format!(
            "its file name has {len} bytes; the temporary file written next to it (.NAME.XXXXXX.tmp) adds \
             {TEMP_NAME_EXTRA}, beyond the {NAME_MAX} bytes a file name can have: shorten the name to at most {} bytes",
            NAME_MAX - TEMP_NAME_EXTRA
        ))
        .into());
    }
    Ok(())
}

/// Refuses two output options that name the same file (`fglt --out X
/// --csv X` would write one over the other), before anything is computed.
///
/// # Errors
/// [`IoError::Output`](kronograph::graph::io::IoError::Output) naming both options.
pub fn check_distinct(outs: &[(&str, Option<&Path>)]) -> kronograph::Result<()> {
    // the same file whether or not it exists yet: the canonical folder and the name
    let key = |p: &Path| {
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let resolved = std::fs::canonicalize(p).ok();
        resolved.unwrap_or_else(|| dir.join(p.file_name().unwrap_or_default()))
    };
    let given: Vec<(&str, &Path, std::path::PathBuf)> =
        outs.iter().filter_map(|(flag, p)| p.map(|p| (*flag, p, key(p)))).collect();
    for (i, (fa, pa, ka)) in given.iter().enumerate() {
        if let Some((fb, _, _)) = given[i + 1..].iter().find(|(_, _, kb)| kb == ka) {
            return Err(kronograph::graph::io::IoError::Output {
                path: pa.to_path_buf(),
                problem: format!("is given to both {fa} and {fb}; one would overwrite the other: give two paths"),
            }
            .into());
        }
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

/// Memory of the process before any data: code, thread stacks, allocator
/// arenas and the result's copies in flight (measured: see [`check_gram_memory`]).
pub const FIXED_OVERHEAD: u64 = 48 << 20;

/// The estimated memory of loaded `graphs` (the readers' per-node and
/// per-entry figures, [`limits::graph_bytes`]).
pub fn data_bytes<N: Label, E: Label>(graphs: &[Graph<N, E>]) -> u64 {
    graphs.iter().fold(0u64, |s, g| s.saturating_add(limits::graph_bytes(g.num_nodes(), g.num_entries())))
}

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

/// The largest `k <= most` with `fits(k)`, for a `fits` true up to some
/// point and false beyond (an estimate that grows with `k`); 0 when none.
fn largest_fitting(most: usize, fits: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, most);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Refuses, before computing, a Gram matrix over `graphs` whose estimated
/// memory exceeds the memory available ([`limits::memory_budget`]), saying
/// how many graphs `--first` could take. The estimate of `k` graphs: the
/// fixed overhead ([`FIXED_OVERHEAD`]), the data set as loaded
/// (`loaded`, all of its graphs: `--first` keeps the first ones of a data
/// set read whole) and the computation ([`gram_bytes`]).
///
/// # Errors
/// [`kronograph::Error::InsufficientMemory`].
pub fn check_gram_memory<N: Label, E: Label>(
    what: &str,
    graphs: &[Graph<N, E>],
    loaded: u64,
    per_pair: u64,
) -> kronograph::Result<()> {
    let Some(budget) = limits::memory_budget() else { return Ok(()) };
    let sizes: Vec<usize> = graphs.iter().map(Graph::num_nodes).collect();
    let base = FIXED_OVERHEAD.saturating_add(loaded);
    let estimate = |k: usize| base.saturating_add(gram_bytes(&sizes[..k], per_pair));
    let needed = estimate(sizes.len());
    if needed <= budget {
        return Ok(());
    }
    let n = sizes.len();
    // The most leading graphs that fit.
    let lo = largest_fitting(n, |k| estimate(k) <= budget);
    let hint = if lo >= 2 {
        format!(
            "use --first {lo} (or fewer) to take fewer graphs: --first {lo} needs about {}, or compute it out of \
             core with --tiles SIZE --out FILE.npy",
            limits::human_bytes(estimate(lo))
        )
    } else if base > budget {
        format!(
            "the data set as loaded ({}) and the fixed overhead ({}) alone exceed it: raise \
             KRONOGRAPH_MAX_MEMORY or free memory",
            limits::human_bytes(loaded),
            limits::human_bytes(FIXED_OVERHEAD)
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

/// Refuses, before computing, an out-of-core Gram (`gram --tiles SIZE`)
/// whose memory exceeds the memory available: the fixed overhead, the data
/// set as loaded (`loaded`), the `N` diagonal values and their pairs (for
/// `--normalize`, counted always) and one tile of `SIZE × SIZE` pairs of
/// the largest graphs ([`gram_bytes`] of a tile); names the largest tile
/// size that fits.
///
/// # Errors
/// [`kronograph::Error::InsufficientMemory`].
pub fn check_tile_memory<N: Label, E: Label>(
    graphs: &[Graph<N, E>],
    loaded: u64,
    tile: usize,
) -> kronograph::Result<()> {
    let Some(budget) = limits::memory_budget() else { return Ok(()) };
    let n = graphs.len() as u64;
    let mut sizes: Vec<usize> = graphs.iter().map(Graph::num_nodes).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let base = FIXED_OVERHEAD.saturating_add(loaded).saturating_add(n.saturating_mul(8 + MGK_BYTES_PER_PAIR));
    // a tile of t x t pairs of the t largest graphs: its float64 block, t² pairs, the workspaces
    let estimate = |t: usize| {
        let t = t.min(sizes.len());
        let square = (t as u64).saturating_mul(t as u64);
        base.saturating_add(gram_bytes(&sizes[..t], MGK_BYTES_PER_PAIR))
            .saturating_add(square.saturating_mul(MGK_BYTES_PER_PAIR) / 2)
    };
    let needed = estimate(tile);
    if needed <= budget {
        return Ok(());
    }
    let lo = largest_fitting(tile, |t| estimate(t) <= budget);
    let hint = if lo >= 1 {
        format!("use --tiles {lo} (or smaller): it needs about {}", limits::human_bytes(estimate(lo)))
    } else {
        "even tiles of one pair do not fit: the data set itself (or its largest product system) is too big for \
         this machine; take fewer graphs with --first"
            .to_string()
    };
    Err(kronograph::Error::InsufficientMemory {
        what: format!("gram --tiles {tile} over {n} graphs (the data set and one {tile} x {tile} tile)"),
        needed,
        available: budget,
        budget_from: limits::memory_budget_source().to_string(),
        hint,
    })
}
