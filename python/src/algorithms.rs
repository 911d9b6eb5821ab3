//! Graph algorithms and the random-walk kernel: thin wrappers over
//! `kronograph::algorithms` and `kronograph::mgk::RandomWalkKernel`, numbers
//! out as little-endian bytes (the Python side wraps them in numpy arrays).
//!
//! The graphlet transform and motif search join here when they land in the
//! library (one function each, the same shape as `triangles_per_vertex`).

use crate::error::to_py;
use crate::graph::{f64_bytes, gather, i64_bytes, PyGraph};
use crate::mgk::{python_progress, run_detached};
use kronograph::algorithms::{self, BfsOptions};
use kronograph::mgk::RandomWalkKernel;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// BFS from `source`: `(levels, parents)` as `int64` bytes (`-1` where unreached).
#[pyfunction]
pub fn bfs<'py>(
    py: Python<'py>,
    g: PyRef<'py, PyGraph>,
    source: usize,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let graph = g.graph.clone();
    let r = run_detached(py, None, move || Ok(algorithms::bfs(&graph, source, &BfsOptions::default())?))?;
    Ok((PyBytes::new(py, &i64_bytes(&r.levels)), PyBytes::new(py, &i64_bytes(&r.parents))))
}

/// Shortest-path distances from `source` (`float64` bytes, `inf` where unreachable).
#[pyfunction]
pub fn sssp<'py>(py: Python<'py>, g: PyRef<'py, PyGraph>, source: usize) -> PyResult<Bound<'py, PyBytes>> {
    let graph = g.graph.clone();
    let r = run_detached(py, None, move || Ok(algorithms::sssp(&graph, source)?))?;
    Ok(PyBytes::new(py, &f64_bytes(&r.distances)))
}

/// The number of triangles of an undirected graph.
#[pyfunction]
pub fn triangle_count(py: Python<'_>, g: PyRef<'_, PyGraph>) -> PyResult<u64> {
    let graph = g.graph.clone();
    run_detached(py, None, move || Ok(algorithms::triangle_count(&graph)?))
}

/// The number of triangles through each node (`int64` bytes).
#[pyfunction]
pub fn triangles_per_vertex<'py>(py: Python<'py>, g: PyRef<'py, PyGraph>) -> PyResult<Bound<'py, PyBytes>> {
    let graph = g.graph.clone();
    let t = run_detached(py, None, move || Ok(algorithms::triangles_per_vertex(&graph)?))?;
    let t: Vec<i64> = t.into_iter().map(|c| i64::try_from(c).unwrap_or(i64::MAX)).collect();
    Ok(PyBytes::new(py, &i64_bytes(&t)))
}

/// The geometric random-walk kernel's Gram matrix: `(values, rows, cols)`.
/// `labeled` restricts walks to equal node labels.
#[pyfunction]
#[pyo3(signature = (x, y, lam, labeled=false, tol=None, n_jobs=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn random_walk_gram<'py>(
    py: Python<'py>,
    x: Vec<PyRef<'py, PyGraph>>,
    y: Option<Vec<PyRef<'py, PyGraph>>>,
    lam: f64,
    labeled: bool,
    tol: Option<f64>,
    n_jobs: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(Bound<'py, PyBytes>, usize, usize)> {
    let mut k = RandomWalkKernel::new(lam).map_err(to_py)?;
    if let Some(t) = tol {
        k = k.with_tolerance(t).map_err(to_py)?;
    }
    if let Some(cb) = progress {
        k = k.with_progress(python_progress(cb));
    }
    let (gx, _, _) = gather(&x, "X")?;
    let gy = match &y {
        Some(y) => Some(gather(y, "Y")?.0),
        None => None,
    };
    let m = run_detached(py, n_jobs, move || {
        Ok(match (&gy, labeled) {
            (None, false) => k.gram(&gx)?,
            (None, true) => k.gram_labeled(&gx)?,
            (Some(gy), false) => k.gram_xy(&gx, gy)?,
            (Some(gy), true) => k.gram_xy_labeled(&gx, gy)?,
        })
    })?;
    Ok((PyBytes::new(py, &f64_bytes(m.as_slice())), m.rows(), m.cols()))
}
