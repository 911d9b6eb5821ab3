//! The CUDA layer every GPU algorithm uses: devices, buffers, NVRTC JIT and
//! label layouts. The bottom layer: it imports nothing from `mgk`, `matrix`
//! or `algorithms` (scripts/check_architecture.py checks it).
//!
//! # What is here
//! - [`Backend`]: `Auto | Cpu | Cuda(ordinal)`, resolved at run time by
//!   [`resolve_backend`]. With no driver library or no device, `Auto` falls
//!   back to the CPU with one log line on standard error; an explicit
//!   `Cuda(i)` gives a typed [`CudaError`].
//! - [`label`]: how node and edge labels are laid out on the device.
//! - [`jit`] (feature `cuda`): NVRTC compilation for the device's architecture,
//!   cached in memory and on disk (see [`jit::cache_dir`]), started in the
//!   background when graphs are uploaded, and tiered: on a cold cache the
//!   first call runs an image compiled with `--Ofast-compile=min` while the
//!   fully optimized one compiles in the background ([`jit::compile_tiered`]).
//! - devices, streams and checked driver calls (`device`, crate-private).
//! - [`DeviceVec`]: a vector in device memory implementing the solvers'
//!   [`Vector`](crate::solver::Vector) trait, so that the generic solvers run
//!   on the device (without the `cuda` feature its constructors return
//!   [`CudaError::NotCompiled`]).
//!
//! The marginalized graph kernel's GPU code (code generation, the octile
//! batch packer, the batched and large-pair launches, gradients, the CPU
//! reference of the GPU algorithm) lives with the MGK in `src/mgk/gpu/`; its
//! public items are in [`crate::mgk`] (`GpuGram`, `GpuGraphs`, the output
//! types, and with the `testing` feature `codegen`, `pack` and `reference`).
//!
//! With the `cuda` feature off, `GpuGram` and `GpuGraphs` do not exist;
//! the backend-neutral API (the `_on` methods of
//! [`MarginalizedGraphKernel`](crate::mgk::MarginalizedGraphKernel),
//! [`resolve_backend`], [`device_count`]) stays, and a CUDA request returns
//! [`Error::CudaNotCompiled`](crate::Error::CudaNotCompiled), so user code of
//! that API needs no `cfg`.

#[cfg(feature = "cuda")]
pub(crate) mod blob;
mod handle;
pub mod label;

#[cfg(feature = "cuda")]
pub(crate) mod device;
#[cfg(feature = "cuda")]
pub mod jit;
pub_for_testing! {
    #[cfg(feature = "cuda")]
    pub mod baked;
}

#[cfg(feature = "cuda")]
mod vector;
#[cfg(not(feature = "cuda"))]
#[path = "vector_stub.rs"]
mod vector;
pub use self::vector::{DeviceScalar, DeviceVec};

#[cfg(feature = "cuda")]
pub use self::device::device_count;
#[cfg(feature = "cuda")]
pub(crate) use self::device::probe_device;

/// The message of a caught panic (the loaders of libcuda and libnvrtc panic
/// when a library is missing).
#[cfg(feature = "cuda")]
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// Number of CUDA devices.
///
/// # Errors
/// Without the `cuda` feature, always [`CudaError::NotCompiled`].
#[cfg(not(feature = "cuda"))]
pub fn device_count() -> Result<usize, CudaError> {
    Err(CudaError::NotCompiled)
}

/// Without the `cuda` feature, no device opens.
#[cfg(not(feature = "cuda"))]
pub(crate) fn probe_device(_ordinal: usize) -> Result<(), CudaError> {
    Err(CudaError::NotCompiled)
}

/// What the driver reports about a device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name (e.g. `NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// Compute capability (major, minor); (9, 0) on H100/H200.
    pub compute_capability: (i32, i32),
    /// Number of streaming multiprocessors.
    pub multiprocessors: usize,
    /// Most shared memory one block may use (after opting in), bytes.
    pub max_shared_per_block: usize,
    /// Global memory, bytes.
    pub total_memory: usize,
}

pub use self::handle::GpuDevice;
pub use self::label::GpuLabel;

/// A line that, anywhere in a kernel's source, compiles it with NVRTC's
/// `--use_fast_math` (approximate single-precision division, square root
/// and `exp`/`log`/trigonometric functions, single-precision denormals
/// flushed to zero; double precision is unchanged). A generator adds it to
/// the sources whose stated tolerance allows it (the marginalized graph
/// kernel's `f32` value kernels: `src/mgk/gpu/codegen.rs`); the compile
/// options, and so the cache keys, follow the source.
pub const FAST_MATH_MARKER: &str = "#define KRONOGRAPH_NVRTC_FAST_MATH 1\n";

/// A 128-bit FNV-1a hash (two 64-bit lanes with different offsets), as 32
/// hex digits: the key of generated sources. Not cryptographic; the disk
/// cache compares full keys.
pub fn hash_hex(parts: &[&[u8]]) -> String {
    let mut h1: u64 = 0xcbf2_9ce4_8422_2325;
    let mut h2: u64 = 0x6c62_272e_07bb_0142;
    for part in parts {
        for &byte in part.iter().chain(&[0xffu8]) {
            h1 = (h1 ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3);
            h2 = (h2 ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(5);
        }
    }
    format!("{h1:016x}{h2:016x}")
}

use crate::basekernel::KernelError;

/// Where a compiled image came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The in-memory cache.
    Memory,
    /// The disk cache.
    Disk,
    /// A fresh NVRTC compilation.
    Compiled,
    /// Compiled (or read from disk) by a background prefetch started when
    /// the graphs were uploaded; the call waited only for what was left.
    /// `jit::production` (feature `testing`) tells how long the compile itself took.
    Prefetched,
    /// The fast-tier image ([`jit::Tier::Fast`]), run while the fully
    /// optimized one compiles in the background; later calls switch to the
    /// full image once it is ready.
    FastTier,
    /// An image compiled ahead of time and shipped in the crate (the
    /// reference kernel shapes on compute capability 9.0; see the module
    /// `cuda::baked`).
    Baked,
}

/// The backend choice at its former path (it lives in [`crate::backend`],
/// above this layer).
pub use crate::backend::{resolve_backend, Backend};
pub use crate::precision::Precision;

/// Errors of the CUDA backend.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CudaError {
    /// A shared library of the CUDA toolkit or driver could not be loaded.
    #[error(
        "the CUDA library {library} could not be loaded ({detail}); install the NVIDIA driver \
         (libcuda) or put the folder holding {library} on LD_LIBRARY_PATH (for NVRTC: pip install \
         nvidia-cuda-nvrtc==13.0.88 and add site-packages/nvidia/cu13/lib)"
    )]
    LibraryNotFound {
        /// `libcuda` or `libnvrtc`.
        library: &'static str,
        /// What the loader said.
        detail: String,
    },
    /// The requested device ordinal does not exist.
    #[error("CUDA device {requested} was requested, but {available} device(s) are visible")]
    NoDevice {
        /// Ordinal asked for.
        requested: usize,
        /// Number of devices the driver reports.
        available: usize,
    },
    /// A CUDA driver call failed.
    #[error("CUDA driver call failed while {context}: {message}")]
    Driver {
        /// What was being done.
        context: String,
        /// The driver's error.
        message: String,
    },
    /// NVRTC rejected a generated kernel.
    #[error("NVRTC could not compile kernel {kernel} (options {options:?}):\n{log}")]
    Compile {
        /// The kernel's name.
        kernel: String,
        /// Compile options.
        options: Vec<String>,
        /// NVRTC's log.
        log: String,
    },
    /// An NVRTC call other than compilation failed.
    #[error("NVRTC call failed while {context}: {message}")]
    Nvrtc {
        /// What was being done.
        context: String,
        /// NVRTC's error.
        message: String,
    },
    /// A base kernel could not give its CUDA form.
    #[error("base kernel for the {which} labels: {source}")]
    Kernel {
        /// `node` or `edge`.
        which: &'static str,
        /// The kernel's error.
        source: KernelError,
    },
    /// A label type or value the GPU cannot hold.
    #[error("label cannot go to the GPU: {0}")]
    Label(String),
    /// A pair of graphs too large for the GPU: more than 2³¹ − 1 product
    /// nodes (the large-pair path; `needed`/`available` count product nodes)
    /// or, should the routing misjudge, for the batched kernel's shared memory
    /// (`needed`/`available` in bytes).
    #[error(
        "graph pair of {n1} × {n2} nodes needs {needed}, more than the {available} the GPU allows \
         (product nodes on the large-pair path, bytes of shared memory in the batched kernel); use \
         the CPU backend for graphs this large"
    )]
    PairTooLarge {
        /// Nodes of the first graph.
        n1: usize,
        /// Nodes of the second graph.
        n2: usize,
        /// Bytes (batched kernel) or product nodes (large-pair path) needed.
        needed: usize,
        /// Bytes per block or product nodes allowed.
        available: usize,
    },
    /// A graph the GPU kernel does not handle (directed, too many nodes, …).
    #[error("graph {index}: {reason}")]
    UnsupportedGraph {
        /// Position of the graph in its batch.
        index: usize,
        /// Why.
        reason: String,
    },
    /// Graphs uploaded for another precision or label layout.
    #[error("graphs were uploaded for {uploaded}, but this kernel runs {expected}")]
    Mismatch {
        /// What the upload was made for.
        uploaded: String,
        /// What the kernel needs.
        expected: String,
    },
    /// A base kernel's values lie outside the range the system needs.
    #[error("{0}")]
    KernelRange(String),
    /// Invalid parameter.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// An object too large for 32-bit device indices where 32 bits were
    /// asked for (a forced [`IndexWidth::U32`](crate::matrix::gpu::IndexWidth),
    /// or an operand of a 32-bit operation).
    #[error(
        "{operation}: {what} is {size}, past the {limit} that 32-bit device indices hold; use \
         IndexWidth::U64 (or let the upload choose the width), or the CPU backend"
    )]
    Needs64BitIndices {
        /// The operation.
        operation: String,
        /// Which size.
        what: String,
        /// The size given.
        size: usize,
        /// The largest size 32-bit indices hold.
        limit: usize,
    },
    /// The library was built without the `cuda` feature.
    #[error("kronograph was built without CUDA support (enable the `cuda` feature)")]
    NotCompiled,
}
