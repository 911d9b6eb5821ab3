//! The GPU backend: the whole transform on a CUDA device, from the graph's
//! CSR to the raw and net frequencies, by the kernels of `kernels/fglt.cu`,
//! `kernels/fglt_prep.cu` and `kernels/fglt_net.cu` (one NVRTC module,
//! through [`jit::compile_cached`](crate::cuda::jit::compile_cached)), exact
//! in 64-bit integers, equal to the CPU's.
//!
//! The host uploads the graph's row pointers and column indices, narrowed to
//! 32 bits as it stages them, and downloads the two `n × 16` tables, both
//! through page-locked buffers that its threads fill and empty in parallel
//! while the link moves the other one (`gpu_transfer.rs`); it queues every
//! launch without waiting for the device (sizes that depend on the device's
//! results take upper bounds from the input), and checks the weights while
//! the device computes. On the device, in order:
//! - **relabel**: degrees without self-loops and their histogram, a scan,
//!   each vertex placed by degree (ties in any order: no count depends on
//!   them), the renumbered rows written and sorted (rows of ≤ 32 entries one
//!   warp each, ≤ 4096 a block's bitonic sort in shared memory, longer ones a
//!   block each through a bitmap of `n` bits);
//! - **primitives**: degrees; `A d`, `A (A d)`, `A C(d − 1, 2)` (one warp
//!   per row); `W` on every stored entry (one thread per entry, the shorter
//!   row walked, the longer binary-searched, a warp together past 32
//!   entries; each edge once, from a compact list of the lower entries, its
//!   count written to both slots); the row sums of `W`; `A (W e)`;
//!   `diag(A (W − A) A)` (as `W`, both slots of an edge from one
//!   intersection); 4-cycles (a block per vertex counting
//!   its wedges by their end, in a hash table in shared memory when they
//!   fit half of it, else in the block's own counter array of `n`, as many
//!   blocks as an eighth of the device's memory holds); 4-cliques as the
//!   triangles of the graphs induced on each `N⁺(u)` (one block per `u`, one
//!   bitset intersection per edge of that graph, bitset rows in shared
//!   memory while `|N⁺(u)| ≤ 512`, else in global scratch of `√nnz` rows,
//!   which bounds `|N⁺(u)|` in degree order);
//! - **raw and net**: [`transform`](super::transform)'s formulas and its net
//!   table, written straight into the graph's vertex order.
//!
//! Overflow: with maximum degree `D`, every primitive, raw and net count is
//! at most `D³` (each is a sum over at most `D` neighbours of sums over at
//! most `D` of at most `D`); when `D³ < 2^64` (`D ≤ 2,642,245`) the device's
//! wrapping 64-bit arithmetic is therefore exact. (The host decides by the
//! longest input row, a self-loop included: an upper bound of `D` known
//! before the device runs.) Beyond, the device stops
//! after the primitives and the host assembles them with its checks
//! ([`transform::assemble`](super::transform::assemble)), which report a
//! count past `2^64 − 1` as an error, never a wrapped value.
//!
//! Indices on the device are 32-bit: graphs with 2³¹ or more stored entries
//! or vertices are refused ([`CudaError::UnsupportedGraph`]).
//!
//! With the `cuda` feature off, [`transform`] returns
//! [`CudaError::NotCompiled`].

use super::transform::{Primitives, NET_TERMS};
use super::types::{Frequencies, ORBITS};
use crate::cuda::CudaError;
use crate::graph::{Graph, Label};
use std::sync::OnceLock;
use std::time::Duration;

/// The hand-written kernel files, in the order they are joined.
const FILES: [&str; 3] = [
    include_str!("../../kernels/fglt.cu"),
    include_str!("../../kernels/fglt_prep.cu"),
    include_str!("../../kernels/fglt_net.cu"),
];

pub_for_testing! {
    /// The CUDA C++ source of the FGLT module: the kernel files joined, the
    /// net transform's table (from the net transform's term table) before the last one
    /// (public with `testing`, for the NVRTC tests).
    pub fn source() -> &'static str {
        static S: OnceLock<String> = OnceLock::new();
        S.get_or_init(|| {
            let nt = NET_TERMS.iter().map(|t| t.len()).max().unwrap_or(1);
            let (mut coef, mut idx) = (Vec::new(), Vec::new());
            for terms in NET_TERMS {
                for t in 0..nt {
                    let (c, j) = terms.get(t).copied().unwrap_or((0, 0));
                    coef.push(c.to_string());
                    idx.push(j.to_string());
                }
            }
            format!(
                "{}\n{}\n#define NET_NT {nt}\n__constant__ int NET_COEF[{}] = {{{}}};\n__constant__ int NET_IDX[{}] = {{{}}};\n{}",
                FILES[0],
                FILES[1],
                coef.len(),
                coef.join(", "),
                idx.len(),
                idx.join(", "),
                FILES[2]
            )
        })
    }
}

pub_for_testing! {
    /// The name the source is compiled (and cached) under.
    pub const MODULE: &str = "fglt";
}

pub_for_testing! {
    /// The kernels of [`source`].
    pub const KERNELS: [&str; 21] = [
        "fglt_fill", "fglt_degrees", "fglt_spmv", "fglt_lower_count", "fglt_lower_list", "fglt_w", "fglt_w_sums", "fglt_aba",
        "fglt_c4", "fglt_k4_local", "fglt_k4_wide",
        "fglt_scan_sums", "fglt_scan_parts", "fglt_scan_apply", "fglt_in_degrees", "fglt_place", "fglt_relabel",
        "fglt_sort_warp", "fglt_sort_block", "fglt_sort_bitmap", "fglt_assemble",
    ];
}

/// The largest maximum degree `D` with `D³ < 2^64`: up to it the device's
/// 64-bit counts are proven exact (see the [module](self) docs).
pub const EXACT_DEGREE: u64 = 2_642_245;

/// What a device run hands back.
#[derive(Debug)]
pub enum DeviceResult {
    /// Raw and net frequencies, in the graph's vertex order.
    Frequencies {
        /// Raw frequencies.
        raw: Frequencies,
        /// Net frequencies.
        net: Frequencies,
    },
    /// The maximum degree is above [`EXACT_DEGREE`]: the primitives in the
    /// device's degree order, and that order (`order[r]` the vertex at
    /// position `r`), for the host's checked assembly.
    Primitives {
        /// The primitives, by position.
        prims: Box<Primitives>,
        /// The vertex at each position.
        order: Vec<usize>,
    },
}

/// One device run of the transform.
#[derive(Debug)]
pub struct DeviceRun {
    /// The counts.
    pub result: DeviceResult,
    /// Self-loops dropped.
    pub self_loops: usize,
    /// Whether some edge weight differs from 1 (weights are not read;
    /// checked by the host while the device computes).
    pub weighted: bool,
    /// Time of the kernels by CUDA events, from the first launch to the last
    /// (upload and download excluded), in seconds.
    pub kernel_seconds: f64,
}

/// The transform of the undirected graph `g` on CUDA device `ordinal`, with
/// the time of each stage (host stages by wall time, device stages by CUDA
/// events); `stage` is called as each stage is queued.
///
/// # Errors
/// [`CudaError::NotCompiled`] without the `cuda` feature; driver, NVRTC or
/// size errors ([`CudaError::UnsupportedGraph`] past 2³¹ − 1 entries).
#[cfg(not(feature = "cuda"))]
pub fn transform<N: Label, E: Label>(
    _g: &Graph<N, E>,
    _ordinal: usize,
    _stage: &mut dyn FnMut(&'static str),
    _times: &mut Vec<(&'static str, Duration)>,
) -> Result<DeviceRun, CudaError> {
    Err(CudaError::NotCompiled)
}

#[cfg(feature = "cuda")]
pub use self::imp::transform;

#[cfg(feature = "cuda")]
#[path = "gpu_launch.rs"]
mod imp;

#[cfg(feature = "cuda")]
#[path = "gpu_transfer.rs"]
mod transfer;

/// Unused without the `cuda` feature; keeps the row width in one place.
const _: () = assert!(ORBITS == 16, "kernels/fglt_net.cu writes 16 orbits a row");
