//! Reading and writing graphs: the TU Dortmund format, Matrix Market,
//! SNAP-style edge lists, and .npy output.

use std::path::PathBuf;

/// Errors reading or writing files. Each names the file and, for bad
/// content, the line and what was expected.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IoError {
    /// The operating system refused (missing file, no permission, …).
    #[error("{}: {source}", path.display())]
    Os {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}
