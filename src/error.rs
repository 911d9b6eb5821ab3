//! The crate-level [`Error`].
//!
//! Each module has an error type of its own, carrying what a user needs to
//! act (the file and line of bad input, the parameter and its valid range,
//! …); [`Error`] gathers them so that applications can use one `?`.

use crate::cuda::CudaError;
use crate::graph::io::IoError;
use crate::graph::{GraphError, LabelError};

/// Any error of the library.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Building or transforming a graph.
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// Reading or writing a file.
    #[error(transparent)]
    Io(#[from] IoError),
    /// Labels that do not fit.
    #[error(transparent)]
    Label(#[from] LabelError),
    /// Matrix and vector operations.
    #[error(transparent)]
    Matrix(#[from] crate::matrix::MatrixError),
    /// Graph algorithms (BFS, SSSP, triangles, components).
    #[error(transparent)]
    Algorithm(#[from] crate::algorithms::AlgorithmError),
    /// A graph kernel failed (its GPU errors convert to [`Error::Cuda`]).
    #[error(transparent)]
    Mgk(crate::mgk::MgkError),
    /// An iterative solver failed.
    #[error(transparent)]
    Solver(#[from] crate::solver::SolverError),
    /// Building, binding or parsing a base kernel.
    #[error(transparent)]
    Kernel(#[from] crate::basekernel::KernelError),
    /// The CUDA backend (see [`CudaError`]; [`CudaError::NotCompiled`]
    /// converts to [`Error::CudaNotCompiled`]).
    #[error(transparent)]
    Cuda(CudaError),
    /// A computation refused up front because it would need more memory than
    /// is available (see [`graph::io::limits`](crate::graph::io::limits)).
    #[error(
        "{what} would need about {} of memory, but {} is available ({budget_from}); {hint}",
        crate::graph::io::limits::human_bytes(*needed),
        crate::graph::io::limits::human_bytes(*available)
    )]
    InsufficientMemory {
        /// What would be computed.
        what: String,
        /// The estimated memory, in bytes.
        needed: u64,
        /// The memory available, in bytes.
        available: u64,
        /// Where the available figure comes from.
        budget_from: String,
        /// What to change.
        hint: String,
    },
    /// Motif search (bad query).
    #[error(transparent)]
    Motif(#[from] crate::motif::MotifError),
    /// A GPU computation was asked of a library built without the `cuda` feature.
    #[error("kronograph was built without CUDA support (enable the `cuda` feature)")]
    CudaNotCompiled,
}

impl From<CudaError> for Error {
    fn from(e: CudaError) -> Self {
        match e {
            CudaError::NotCompiled => Error::CudaNotCompiled,
            e => Error::Cuda(e),
        }
    }
}

impl From<crate::mgk::MgkError> for Error {
    fn from(e: crate::mgk::MgkError) -> Self {
        match e {
            crate::mgk::MgkError::Cuda(e) => Error::from(*e),
            e => Error::Mgk(e),
        }
    }
}

/// `Result` with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
