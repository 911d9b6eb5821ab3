//! The native half of the `kronograph` Python package (`kronograph._native`):
//! graphs ([`graph`]), the marginalized graph kernel ([`mgk`]), algorithms
//! and the random-walk kernel ([`algorithms`]), the CUDA status ([`cuda`]), and the exception hierarchy
//! ([`error`]). The Python half (`python/kronograph/`) builds on these.

pub mod algorithms;
pub mod cuda;
pub mod error;
pub mod graph;
pub mod mgk;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<mgk::PyMgk>()?;
    m.add_function(wrap_pyfunction!(graph::read_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::cuda_status, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::bfs, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::sssp, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::triangle_count, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::triangles_per_vertex, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::random_walk_gram, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::random_walk_lambda_limit, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::graphlets, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::graphlet_orbit_names, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::motif_search, m)?)?;
    m.add("KronographError", py.get_type::<error::KronographError>())?;
    m.add("GraphError", py.get_type::<error::GraphError>())?;
    m.add("FileError", py.get_type::<error::FileError>())?;
    m.add("KernelError", py.get_type::<error::KernelError>())?;
    m.add("SolverError", py.get_type::<error::SolverError>())?;
    m.add("CudaError", py.get_type::<error::CudaError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
