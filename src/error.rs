//! The crate-level [`Error`].
//!
//! Each module has an error type of its own, carrying what a user needs to
//! act (the file and line of bad input, the parameter and its valid range,
//! …); [`Error`] gathers them so that applications can use one `?`.

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
}

/// `Result` with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
