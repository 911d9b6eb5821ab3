//! The graph algorithms on a [`Backend`]: one call per algorithm that
//! runs it where the caller asks.
//!
//! Today every algorithm runs on the CPU: [`Backend::Cpu`] and
//! [`Backend::Auto`] run the CPU algorithms; [`Backend::Cuda`] checks that
//! the device can be used (a typed CUDA error otherwise, e.g. no device)
//! and then returns [`AlgorithmError::Unsupported`].
//!
//! ```
//! use kronograph::algorithms::{bfs_on, BfsOptions};
//! use kronograph::graph::generate::{rmat, RmatParams};
//! use kronograph::matrix::SparseMatrix;
//! use kronograph::Backend;
//! use rand::SeedableRng;
//! let g = rmat(&RmatParams::graph500(8), &mut rand_chacha::ChaCha8Rng::seed_from_u64(1)).unwrap();
//! let a = SparseMatrix::from_graph(&g);
//! let r = bfs_on(&a, 0, &BfsOptions::default(), Backend::Cpu).unwrap();
//! assert!(r.reached >= 1);
//! ```

use super::{
    bfs_matrix, connected_components_matrix, sssp_matrix, triangle_count_matrix, AlgorithmError, BfsOptions, BfsResult,
    Components, SsspOptions, SsspResult,
};
use crate::backend::{resolve_backend, Backend};
use crate::matrix::SparseMatrix;

/// [`bfs_matrix`] on `backend`.
///
/// # Errors
/// Those of [`bfs_matrix`]; for [`Backend::Cuda`], a CUDA error when the
/// device cannot be used, else [`AlgorithmError::Unsupported`].
pub fn bfs_on(a: &SparseMatrix<f64>, source: usize, opts: &BfsOptions, backend: Backend) -> crate::Result<BfsResult> {
    on_cpu("BFS", backend)?;
    Ok(bfs_matrix(a, source, opts)?)
}

/// [`sssp_matrix`] on `backend`.
///
/// # Errors
/// Those of [`sssp_matrix`]; for [`Backend::Cuda`], a CUDA error when the
/// device cannot be used, else [`AlgorithmError::Unsupported`].
pub fn sssp_on(
    a: &SparseMatrix<f64>,
    source: usize,
    opts: &SsspOptions,
    backend: Backend,
) -> crate::Result<SsspResult> {
    on_cpu("SSSP", backend)?;
    Ok(sssp_matrix(a, source, opts)?)
}

/// [`triangle_count_matrix`] on `backend` (`a` symmetric, the adjacency of
/// an undirected graph).
///
/// # Errors
/// Those of [`triangle_count_matrix`]; for [`Backend::Cuda`], a CUDA error
/// when the device cannot be used, else [`AlgorithmError::Unsupported`].
pub fn triangles_on(a: &SparseMatrix<f64>, backend: Backend) -> crate::Result<u64> {
    on_cpu("triangle counting", backend)?;
    Ok(triangle_count_matrix(a)?)
}

/// [`connected_components_matrix`] on `backend` (`a` symmetric).
///
/// # Errors
/// Those of [`connected_components_matrix`]; for [`Backend::Cuda`], a CUDA
/// error when the device cannot be used, else [`AlgorithmError::Unsupported`].
pub fn components_on(a: &SparseMatrix<f64>, backend: Backend) -> crate::Result<Components> {
    on_cpu("connected components", backend)?;
    Ok(connected_components_matrix(a)?)
}

/// `Ok` for the CPU (`Cpu`, `Auto`); for `Cuda(i)` the device check's error
/// or `Unsupported`.
fn on_cpu(what: &'static str, backend: Backend) -> crate::Result<()> {
    match backend {
        Backend::Cpu | Backend::Auto => Ok(()),
        Backend::Cuda(_) => {
            let device = resolve_backend(backend)?;
            let backend = device.map_or_else(|| "the CPU".to_string(), |i| format!("cuda:{i}"));
            Err(AlgorithmError::Unsupported { what, backend }.into())
        }
    }
}
