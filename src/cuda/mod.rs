//! The CUDA backend: the batched marginalized graph kernel on NVIDIA GPUs.
//!
//! # What is here
//! - [`Backend`]: `Auto | Cpu | Cuda(ordinal)`, resolved at run time by
//!   [`resolve_backend`]. With no driver library or no device, `Auto` falls
//!   back to the CPU with one log line on standard error; an explicit
//!   `Cuda(i)` gives a typed [`CudaError`].
//! - [`pack`]: octile packing of graphs (8×8 tiles, non-empty tiles only, a
//!   64-bit nonzero bitmap per tile, nonzeros stored compactly in bitmap
//!   order) into flat structure-of-arrays buffers, pure CPU.
//! - [`codegen`]: the CUDA C++ sources: a generated preface (real type,
//!   label structs, `kappa_node` / `kappa_edge` from the base kernels' CUDA
//!   forms, and for the gradient kernel their log-θ gradients by forward-mode
//!   differentiation of the same expressions) followed by the templates in
//!   `kernels/`. Hyperparameters are read from a `theta` array passed at
//!   launch, never baked into the source, so changing θ never recompiles;
//!   nor does the block size, which is a launch parameter.
//! - [`jit`] (feature `cuda`): NVRTC compilation for the device's architecture,
//!   cached in memory and on disk (see [`jit::cache_dir`]), started in the
//!   background when graphs are uploaded, and tiered: on a cold cache the
//!   first call runs an image compiled with `--Ofast-compile=min` while the
//!   fully optimized one compiles in the background ([`jit::compile_tiered`]).
//! - [`GpuGram`] (feature `cuda`): Gram matrices (`gram`, `gram_xy`, `diag`),
//!   their gradients (`gram_with_gradient`, …) and nodal similarities
//!   (`nodal`, `nodal_all`) of graphs uploaded once as [`GpuGraphs`]
//!   (reordered as [`MgkParams::reorder`] says and packed into octiles at upload). One launch per
//!   call: persistent blocks take pairs from an atomic job counter (largest
//!   pairs first); a block stages both graphs from their octiles in shared
//!   memory (the first by rows, the second as its nonzeros in octile order)
//!   and keeps the search direction and the product in shared memory. The
//!   product (weights w w′ κe computed on the fly) follows the scheme
//!   [`MgkParams::xmv`] names ([`XmvScheme`]): by default a loop over work
//!   items (a row of the first graph × a chunk of the second graph's
//!   nonzeros, one item per warp at a time; sums in registers, one shared
//!   atomic per lane and item), or tile pair by tile pair (a row-structured
//!   or a sparse primitive by nonzero count; `kernels/mgk_pcg.cu`).
//!   The gradient kernel (`kernels/mgk_grad.cu`) solves the adjoint system
//!   too and sums the gradient over product nodes and arc pairs. Pairs too
//!   large for shared memory go, one by one, to the single-large-pair path:
//!   a host PCG loop over device vectors with one on-the-fly XMV launch per
//!   iteration over all tile pairs of the two graphs (`kernels/mgk_large.cu`;
//!   values and nodal output, no gradients).
//! - [`reference`](mod@reference): a CPU implementation of exactly the algorithm the GPU runs
//!   (same start vector, same preconditioner, same stopping rule), in f64 or
//!   f32, used to check the GPU and as an executable specification.
//!
//! # The system solved per pair
//! For graphs G (n nodes) and G′ (n′ nodes), with degrees d_i = Σ_j w_ij (1
//! where that sum is 0), stop probability q and start probabilities p:
//!
//! (D× V×⁻¹ − (W ⊗ W′) ⊙ E×) r = D× 1,  D× = (D ⊗ D′)/(1 − q)²,
//! V× = diag κv(v_i, v′_i′), E×[(i,i′),(j,j′)] = κe(e_ij, e′_i′j′),
//!
//! index (i, i′) ↦ i·n′ + i′, and K(G, G′) = Σ p_i p′_i′ r_ii′; with lmin = 1
//! the length-one term Σ p_i p′_i′ κv(v_i, v′_i′) is subtracted.
//!
//! It is solved by preconditioned conjugate gradients with the Jacobi
//! preconditioner M = D× V×⁻¹ (the diagonal of the operator for graphs
//! without self-loops), started from x₀ = 0, stopped when
//! ‖r_k‖ ≤ tol · ‖D× 1‖.
//!
//! With the `cuda` feature off, [`GpuGram`] and [`GpuGraphs`] do not exist;
//! the backend-neutral API (the `_on` methods of
//! [`MarginalizedGraphKernel`](crate::mgk::MarginalizedGraphKernel),
//! [`resolve_backend`], [`device_count`]) stays, and a CUDA request returns
//! [`Error::CudaNotCompiled`](crate::Error::CudaNotCompiled), so user code of
//! that API needs no `cfg`.

pub mod codegen;
mod handle;
pub mod label;
pub mod pack;
pub mod reference;

#[cfg(feature = "cuda")]
pub(crate) mod device;
#[cfg(feature = "cuda")]
mod gram;
#[cfg(feature = "cuda")]
pub mod jit;

#[cfg(feature = "cuda")]
pub use self::device::device_count;
#[cfg(feature = "cuda")]
pub(crate) use self::device::probe_device;
#[cfg(feature = "cuda")]
pub use self::gram::{GpuGram, GpuGraphs};

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
    /// [`jit::production`] tells how long the compile itself took.
    Prefetched,
    /// The fast-tier image ([`jit::Tier::Fast`]), run while the fully
    /// optimized one compiles in the background; later calls switch to the
    /// full image once it is ready.
    FastTier,
}

/// Result of a Gram computation.
#[derive(Clone, Debug, PartialEq)]
pub struct GramOutput {
    /// Row-major `rows × cols` values (for `diag`, `rows = 1`).
    pub values: Vec<f64>,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// PCG iterations of each pair, in the layout of `values`.
    pub iterations: Vec<u32>,
    /// Effective XMV work: Σ over solved pairs of iterations · nnz · nnz′
    /// (nonzeros of the Kronecker operator applied).
    pub xmv_products: f64,
    /// The kernel's name, where its image came from, and the seconds spent
    /// getting it ready in this call (compile and module load; ~0 when it
    /// was already loaded).
    pub kernel: (String, Origin, f64),
}

impl GramOutput {
    /// Mean PCG iterations per solved pair.
    pub fn mean_iterations(&self) -> f64 {
        if self.iterations.is_empty() {
            return 0.0;
        }
        self.iterations.iter().map(|&i| i as f64).sum::<f64>() / self.iterations.len() as f64
    }
}

/// A Gram matrix and its gradient, from [`GpuGram::gram_with_gradient`]
/// (and the `_xy` / `diag` forms).
#[derive(Clone, Debug, PartialEq)]
pub struct GramGradient {
    /// The values. `iterations` counts the PCG iterations of both solves
    /// (the system and its adjoint) of each pair.
    pub gram: GramOutput,
    /// The gradient's slots: `node.<path>` for each of the node kernel's
    /// hyperparameters, `edge.<path>` for the edge kernel's (fixed ones
    /// included, as `BaseKernel::hyperparameters` lists them), then `q`.
    pub names: Vec<String>,
    /// `rows × cols × names.len()`, entry `(i, j, t)` at
    /// `(i·cols + j)·k + t`: ∂K_ij/∂(log θ_t).
    pub gradient: Vec<f64>,
}

/// Nodal similarity of one pair, from [`GpuGram::nodal`].
#[derive(Clone, Debug, PartialEq)]
pub struct NodalOutput {
    /// Nodes of the first graph.
    pub rows: usize,
    /// Nodes of the second graph.
    pub cols: usize,
    /// Row-major `rows × cols` values `K_ii′` in the graphs' own node order.
    pub values: Vec<f64>,
    /// K(G, G′) = Σ K_ii′.
    pub value: f64,
    /// PCG iterations.
    pub iterations: u32,
}

pub use crate::backend::{resolve_backend, Backend, Precision};

pub use crate::mgk::{MgkConfig as MgkParams, XmvScheme};

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
    /// The library was built without the `cuda` feature.
    #[error("kronograph was built without CUDA support (enable the `cuda` feature)")]
    NotCompiled,
}
