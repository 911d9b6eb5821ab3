//! Graph algorithms and the random-walk kernel: thin wrappers over
//! `kronograph::algorithms` and `kronograph::rw::RandomWalkKernel`, numbers
//! out as little-endian bytes (the Python side wraps them in numpy arrays).
//!
//! The graphlet transform ([`graphlets`]) and vertex-localized motif search
//! ([`motif`]) take a backend name like the kernels do.

use crate::error::{parameter, to_py};
use crate::graph::{f64_bytes, gather, i64_bytes, PyGraph};
use crate::mgk::{python_progress, run_detached};
use kronograph::algorithms::{self, BfsOptions};
use kronograph::cuda::Backend;
use kronograph::graphlets::fglt;
use kronograph::motif::{self, Field, MotifOptions};
use kronograph::rw::{RandomWalkKernel, WalkSeriesKernel};
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

/// The random-walk kernel's Gram matrix: `(values, rows, cols, gradient)`,
/// the gradient `λ ∂K/∂λ` (same shape) when `gradient` is true. `labeled`
/// restricts walks to equal node labels. The geometric kernel, or with
/// `exponential` the exponential one, or with `steps = [c_0, …, c_p]` the
/// p-step one (`WalkSeriesKernel`), on `backend` (a backend name as the
/// kernels take it, resolved by the Python side; the geometric kernel's
/// gradient is computed on the CPU).
#[pyfunction]
#[pyo3(signature = (x, y, lam, labeled=false, tol=None, n_jobs=None, progress=None, gradient=false, steps=None, exponential=false, backend="cpu"))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn random_walk_gram<'py>(
    py: Python<'py>,
    x: Vec<PyRef<'py, PyGraph>>,
    y: Option<Vec<PyRef<'py, PyGraph>>>,
    lam: f64,
    labeled: bool,
    tol: Option<f64>,
    n_jobs: Option<usize>,
    progress: Option<Py<PyAny>>,
    gradient: bool,
    steps: Option<Vec<f64>>,
    exponential: bool,
    backend: &str,
) -> PyResult<(Bound<'py, PyBytes>, usize, usize, Option<Bound<'py, PyBytes>>)> {
    let backend: Backend = backend.parse().map_err(parameter)?;
    let (gx, _, _) = gather(&x, "X")?;
    let gy = match &y {
        Some(y) => Some(gather(y, "Y")?.0),
        None => None,
    };
    let progress = progress.map(python_progress);
    let (m, g) = if exponential || steps.is_some() {
        let mut k = match steps {
            Some(c) => WalkSeriesKernel::p_step(lam, c),
            None => WalkSeriesKernel::exponential(lam),
        }
        .map_err(to_py)?;
        if let Some(t) = tol {
            k = k.with_tolerance(t).map_err(to_py)?;
        }
        if let Some(cb) = progress {
            k = k.with_progress(cb);
        }
        let (m, g) = run_detached(py, n_jobs, move || k.gram_with_gradient_on(backend, &gx, gy.as_deref(), labeled))?;
        (m, gradient.then_some(g))
    } else {
        let mut k = RandomWalkKernel::new(lam).map_err(to_py)?;
        if let Some(t) = tol {
            k = k.with_tolerance(t).map_err(to_py)?;
        }
        if let Some(cb) = progress {
            k = k.with_progress(cb);
        }
        run_detached(py, n_jobs, move || {
            Ok(match (&gy, labeled, gradient) {
                (_, _, true) => {
                    let (m, g) = k.gram_with_gradient(&gx, gy.as_deref(), labeled)?;
                    (m, Some(g))
                }
                (None, false, false) => (k.gram_on(backend, &gx)?, None),
                (None, true, false) => (k.gram_labeled_on(backend, &gx)?, None),
                (Some(gy), false, false) => (k.gram_xy_on(backend, &gx, gy)?, None),
                (Some(gy), true, false) => (k.gram_xy_labeled_on(backend, &gx, gy)?, None),
            })
        })?
    };
    let grad = g.map(|g| PyBytes::new(py, &f64_bytes(g.as_slice())));
    Ok((PyBytes::new(py, &f64_bytes(m.as_slice())), m.rows(), m.cols(), grad))
}

/// The largest λ the random-walk kernel accepts for every pair of `x`:
/// `1 / ρ̂²` with `ρ̂` the largest Collatz–Wielandt upper bound on the
/// graphs' spectral radii (infinite when no graph has an edge).
#[pyfunction]
pub fn random_walk_lambda_limit(py: Python<'_>, x: Vec<PyRef<'_, PyGraph>>) -> PyResult<f64> {
    let (gx, _, _) = gather(&x, "X")?;
    run_detached(py, None, move || {
        let rho = gx.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
        Ok(1.0 / (rho * rho))
    })
}

/// `u64` values as little-endian bytes.
fn u64_bytes(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The names of the graphlet transform's 16 orbits, in column order.
#[pyfunction]
pub fn graphlet_orbit_names() -> Vec<&'static str> {
    kronograph::graphlets::ORBIT_NAMES.to_vec()
}

/// The fast graphlet transform: `(raw, net, n, device)`, the raw and net
/// frequencies of the 16 orbits as `uint64` bytes of `n × 16` (row-major),
/// and the CUDA device it ran on (`None`: the CPU).
#[pyfunction]
#[pyo3(signature = (g, backend="auto"))]
#[allow(clippy::type_complexity)]
pub fn graphlets<'py>(
    py: Python<'py>,
    g: PyRef<'py, PyGraph>,
    backend: &str,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, usize, Option<usize>)> {
    let backend: Backend = backend.parse().map_err(parameter)?;
    let graph = g.graph.clone();
    let f = run_detached(py, None, move || fglt(&graph, backend))?;
    Ok((PyBytes::new(py, &u64_bytes(&f.raw.data)), PyBytes::new(py, &u64_bytes(&f.net.data)), f.raw.n, f.device))
}

/// Vertex-localized motif search: `(hits, runs, false_negative_bound,
/// device, matches)`: `hits` one byte (0/1) per vertex; `matches` the
/// isolated matches (sorted vertex lists) when asked for and the hits
/// induce them, else `None`.
#[pyfunction]
#[pyo3(signature = (g, colors, motif_colors, delta=1e-6, seed=0, field="gf256", backend="auto", prune=true, with_matches=false))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn motif_search<'py>(
    py: Python<'py>,
    g: PyRef<'py, PyGraph>,
    colors: Vec<u32>,
    motif_colors: Vec<u32>,
    delta: f64,
    seed: u64,
    field: &str,
    backend: &str,
    prune: bool,
    with_matches: bool,
) -> PyResult<(Bound<'py, PyBytes>, u32, f64, Option<usize>, Option<Vec<Vec<usize>>>)> {
    let field: Field = field.parse().map_err(parameter)?;
    let backend: Backend = backend.parse().map_err(parameter)?;
    let opts = MotifOptions { field, delta, seed, backend, prune, ..MotifOptions::default() };
    let graph = g.graph.clone();
    let (hits, found) = run_detached(py, None, move || {
        let hits = motif::localized(&graph, &colors, &motif_colors, &opts)?;
        let found = if with_matches { motif::matches(&graph, &colors, &motif_colors, &hits.hits) } else { None };
        Ok((hits, found))
    })?;
    let bytes: Vec<u8> = hits.hits.iter().map(|&h| u8::from(h)).collect();
    Ok((PyBytes::new(py, &bytes), hits.runs, hits.false_negative_bound, hits.device, found))
}
