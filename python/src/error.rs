//! The Python exception hierarchy and the conversion of the library's
//! errors into it: every exception carries the library's message.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;

create_exception!(
    kronograph,
    KronographError,
    PyException,
    "Base class of every error raised by kronograph's native code."
);
create_exception!(kronograph, GraphError, KronographError, "A graph or its labels are invalid.");
create_exception!(kronograph, FileError, KronographError, "A file could not be read or written.");
create_exception!(kronograph, KernelError, KronographError, "A kernel or one of its parameters is invalid.");
create_exception!(kronograph, SolverError, KronographError, "An iterative solver failed on a pair of graphs.");
create_exception!(kronograph, CudaError, KronographError, "The CUDA backend failed or is not available.");

/// Converts any library error into the matching Python exception.
pub fn to_py(e: impl Into<kronograph::Error>) -> PyErr {
    use kronograph::mgk::MgkError;
    use kronograph::Error as E;
    let e = e.into();
    let msg = e.to_string();
    match e {
        E::Graph(_) | E::Label(_) | E::Matrix(_) | E::Algorithm(_) | E::Motif(_) => GraphError::new_err(msg),
        E::Io(_) => FileError::new_err(msg),
        E::Kernel(_) => KernelError::new_err(msg),
        E::Mgk(MgkError::Solver { .. }) | E::Solver(_) => SolverError::new_err(msg),
        E::Mgk(_) => KernelError::new_err(msg),
        E::Cuda(_) | E::CudaNotCompiled => CudaError::new_err(msg),
        _ => KronographError::new_err(msg),
    }
}

/// A [`KernelError`] for a parameter rejected by the bindings themselves.
pub fn parameter(msg: impl Into<String>) -> PyErr {
    KernelError::new_err(msg.into())
}
