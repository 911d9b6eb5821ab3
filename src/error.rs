//! The crate-level [`Error`].
//!
//! Each module has an error type of its own, carrying what a user needs to
//! act (the file and line of bad input, the parameter and its valid range,
//! …); [`Error`] gathers them so that applications can use one `?`.

use crate::cuda::CudaError;
use crate::graph::io::IoError;
use crate::graph::{GraphError, LabelError};

/// Any error of the library.
///
/// Its [`Debug`](std::fmt::Debug) form is its message (followed by the
/// errors that caused it, if they add anything), so that
/// `fn main() -> kronograph::Result<()>` prints what went wrong and what to
/// change, not a tree of variant names:
///
/// ```
/// use kronograph::graph::{Direction, GraphBuilder};
/// let e = kronograph::Error::from(GraphBuilder::<(), ()>::new(2, Direction::Undirected).build().unwrap_err());
/// assert_eq!(format!("{e:?}"), format!("{e}"));
/// assert!(format!("{e:?}").starts_with("no node labels given"));
/// ```
///
/// Match on the variants (and the module errors inside them) to handle a
/// case in code.
#[derive(thiserror::Error)]
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
    /// A user's pair system ([`kron::solve_pairs`](crate::kron::solve_pairs)) failed.
    #[error(transparent)]
    PairSystem(#[from] crate::kron::PairSystemError),
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

impl std::fmt::Debug for Error {
    /// The message, then each cause whose message it does not already hold.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let message = self.to_string();
        f.write_str(&message)?;
        let mut source = std::error::Error::source(self);
        while let Some(s) = source {
            let cause = s.to_string();
            if !message.contains(&cause) {
                write!(f, "\n  caused by: {cause}")?;
            }
            source = s.source();
        }
        Ok(())
    }
}

/// `Result` with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
