//! `kronograph._native.Mgk`: the marginalized graph kernel over kernel
//! SPECs (the Python base-kernel objects print themselves as SPECs; the
//! SPEC is parsed here and bound to the graphs' fields at each call).
//!
//! Everything numeric is the library's ([`MarginalizedGraphKernel`] and its
//! `*_on(Backend, …)` forms); this file only converts arguments and results.

use crate::error::{parameter, to_py};
use crate::graph::{f64_bytes, gather, PyGraph};
use kronograph::basekernel::spec::SpecKernel;
use kronograph::basekernel::{BaseKernel, Bounds};
use kronograph::cuda::Backend;
use kronograph::graph::{Record, Schema};
use kronograph::mgk::{MarginalizedGraphKernel, Precision, Progress, StartProbability};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

type Kernel = MarginalizedGraphKernel<Record, Record, SpecKernel, SpecKernel>;

/// A hyperparameter as Python sees it: name, value, bounds (`None` when fixed).
type Hyper = (String, f64, Option<(f64, f64)>);

/// A Gram matrix (or diagonal) and its gradient as they cross to Python:
/// values (`float64` bytes, row-major), rows, cols, gradient (`float64`
/// bytes, `rows × cols × k`) when asked for, and the `k` gradient names.
type GramOut<'py> = (Bound<'py, PyBytes>, usize, usize, Option<Bound<'py, PyBytes>>, Vec<String>);

/// The marginalized graph kernel's configuration; graphs come with each call.
#[pyclass(name = "Mgk", module = "kronograph._native", frozen)]
pub struct PyMgk {
    node_spec: String,
    edge_spec: String,
    q: f64,
    q_bounds: Bounds,
    lmin: u32,
    precision: Precision,
    tol: Option<f64>,
    backend: Backend,
    n_jobs: Option<usize>,
}

#[pymethods]
impl PyMgk {
    /// Checks and keeps the configuration. `q_bounds=None` keeps `q` fixed.
    #[new]
    #[pyo3(signature = (node_spec, edge_spec, q=0.05, q_bounds=None, lmin=0, precision="f64", tol=None, backend="auto", n_jobs=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        node_spec: String,
        edge_spec: String,
        q: f64,
        q_bounds: Option<(f64, f64)>,
        lmin: u32,
        precision: &str,
        tol: Option<f64>,
        backend: &str,
        n_jobs: Option<usize>,
    ) -> PyResult<Self> {
        let precision = match precision {
            "f64" | "double" | "float64" => Precision::F64,
            "f32" | "single" | "float32" => Precision::F32,
            _ => return Err(parameter(format!("precision {precision:?}: expected \"f64\" or \"f32\""))),
        };
        let backend: Backend = backend.parse().map_err(parameter)?;
        if n_jobs == Some(0) {
            return Err(parameter("n_jobs = 0: give a number of threads >= 1, or None for all cores"));
        }
        let q_bounds = match q_bounds {
            None => Bounds::Fixed,
            Some((lo, hi)) if 0.0 < lo && lo <= hi && hi < 1.0 => Bounds::Range(lo, hi),
            Some((lo, hi)) => {
                return Err(parameter(format!("q_bounds = ({lo}, {hi}): expected 0 < low <= high < 1, or \"fixed\"")))
            }
        };
        let me = PyMgk { node_spec, edge_spec, q, q_bounds, lmin, precision, tol, backend, n_jobs };
        me.kernel(None)?;
        Ok(me)
    }

    /// Every hyperparameter (fixed ones too): `node.…`, `edge.…`, then `q`,
    /// as `(name, value, (low, high) or None when fixed)`.
    fn hyperparameters(&self) -> PyResult<Vec<Hyper>> {
        Ok(self
            .kernel(None)?
            .hyperparameters()
            .into_iter()
            .map(|h| {
                let b = match h.bounds {
                    Bounds::Fixed => None,
                    Bounds::Range(lo, hi) => Some((lo, hi)),
                };
                (h.name, h.value, b)
            })
            .collect())
    }

    /// Sets every hyperparameter value (the order of `hyperparameters()`)
    /// and returns the new `(node SPEC, edge SPEC, q)`.
    fn with_theta(&self, values: Vec<f64>) -> PyResult<(String, String, f64)> {
        let mut k = self.kernel(None)?;
        k.set_theta(&values).map_err(to_py)?;
        Ok((k.node_kernel().to_string(), k.edge_kernel().to_string(), k.q()))
    }

    /// The Gram matrix of `x` (or `x` against `y`), normalized or not, with
    /// its gradient in log θ when `gradient` is true.
    #[pyo3(signature = (x, y=None, normalize=false, gradient=false, progress=None))]
    fn gram<'py>(
        &self,
        py: Python<'py>,
        x: Vec<PyRef<'py, PyGraph>>,
        y: Option<Vec<PyRef<'py, PyGraph>>>,
        normalize: bool,
        gradient: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<GramOut<'py>> {
        let (gx, ns, es) = gather(&x, "X")?;
        let gy = match &y {
            Some(y) => {
                let (gy, ns2, es2) = gather(y, "Y")?;
                if !x.is_empty() && !y.is_empty() && (ns != ns2 || es != es2) {
                    return Err(parameter(format!(
                        "X and Y have different fields: X has node fields ({}), edge fields ({}); Y has ({}), ({})",
                        ns.describe(),
                        es.describe(),
                        ns2.describe(),
                        es2.describe()
                    )));
                }
                Some(gy)
            }
            None => None,
        };
        let mut k = self.kernel(Some((&ns, &es)))?;
        if let Some(cb) = progress {
            k = k.with_progress(python_progress(cb));
        }
        let backend = self.backend;
        let out = self.detached(py, move || -> kronograph::Result<_> {
            let sq = |k: &Kernel, gy: &Option<Vec<_>>| -> kronograph::Result<_> {
                Ok(match (gy, gradient) {
                    (None, false) => (k.gram_on(backend, &gx)?, None),
                    (Some(gy), false) => (k.gram_xy_on(backend, &gx, gy)?, None),
                    (None, true) => {
                        let (m, g) = k.gram_with_gradient_on(backend, &gx, normalize)?;
                        (m, Some(g))
                    }
                    (Some(gy), true) => {
                        let (m, g) = k.gram_xy_with_gradient_on(backend, &gx, gy, normalize)?;
                        (m, Some(g))
                    }
                })
            };
            let (m, g) = sq(&k, &gy)?;
            let (rows, cols) = (m.rows(), m.cols());
            let mut values = m.into_vec();
            if normalize && !gradient {
                let dx: Vec<f64> = match &gy {
                    None => (0..rows).map(|i| values[i * cols + i]).collect(),
                    Some(_) => k.diag_on(backend, &gx)?,
                };
                let dy = match &gy {
                    None => dx.clone(),
                    Some(gy) => k.diag_on(backend, gy)?,
                };
                normalize_values(&mut values, cols, &dx, &dy);
            }
            Ok((values, rows, cols, g))
        })?;
        let (values, rows, cols, g) = out;
        let names = g.as_ref().map(|g| g.names().to_vec()).unwrap_or_default();
        let grad = g.map(|g| PyBytes::new(py, &f64_bytes(g.as_slice())));
        Ok((PyBytes::new(py, &f64_bytes(&values)), rows, cols, grad, names))
    }

    /// The diagonal `K(x_i, x_i)` (unnormalized), with its gradient when asked.
    #[pyo3(signature = (x, gradient=false))]
    fn diag<'py>(&self, py: Python<'py>, x: Vec<PyRef<'py, PyGraph>>, gradient: bool) -> PyResult<GramOut<'py>> {
        let (gx, ns, es) = gather(&x, "X")?;
        let k = self.kernel(Some((&ns, &es)))?;
        let backend = self.backend;
        let names: Vec<String> = k.hyperparameters().into_iter().filter(|h| h.is_active()).map(|h| h.name).collect();
        let (d, g) = self.detached(py, move || -> kronograph::Result<_> {
            if gradient {
                let (d, g) = k.diag_with_gradient_on(backend, &gx)?;
                Ok((d, Some(g)))
            } else {
                Ok((k.diag_on(backend, &gx)?, None))
            }
        })?;
        let n = d.len();
        let grad = g.map(|g| PyBytes::new(py, &f64_bytes(&g)));
        Ok((PyBytes::new(py, &f64_bytes(&d)), n, 1, grad, if gradient { names } else { Vec::new() }))
    }

    /// The nodal similarity of one pair: `(values, n, n')`.
    fn nodal<'py>(
        &self,
        py: Python<'py>,
        g: PyRef<'py, PyGraph>,
        h: PyRef<'py, PyGraph>,
    ) -> PyResult<(Bound<'py, PyBytes>, usize, usize)> {
        let (pair, ns, es) = gather(&[g, h], "graph")?;
        let k = self.kernel(Some((&ns, &es)))?;
        let m = self.detached(py, move || Ok(k.nodal(&pair[0], &pair[1])?))?;
        Ok((PyBytes::new(py, &f64_bytes(m.as_slice())), m.rows(), m.cols()))
    }
}

impl PyMgk {
    /// The library's kernel, its base kernels bound to `schemas` when given.
    fn kernel(&self, schemas: Option<(&Schema, &Schema)>) -> PyResult<Kernel> {
        let parse = |spec: &str, schema: Option<&Schema>, what: &str| -> PyResult<SpecKernel> {
            let mut k = SpecKernel::parse(spec).map_err(|e| parameter(format!("{what} kernel: {e}")))?;
            if let Some(s) = schema {
                k.bind(s).map_err(|e| parameter(format!("{what} kernel {spec:?}: {e}")))?;
            }
            Ok(k)
        };
        let kv = parse(&self.node_spec, schemas.map(|s| s.0), "node")?;
        let ke = parse(&self.edge_spec, schemas.map(|s| s.1), "edge")?;
        // each graph's own start probabilities (from_networkx/from_scipy's `start=`), 1 where it has none
        let mut k: Kernel = MarginalizedGraphKernel::new(kv, ke, self.q)
            .and_then(|k| k.with_start(StartProbability::FromGraph))
            .and_then(|k| k.with_lmin(self.lmin))
            .and_then(|k| k.with_q_bounds(self.q_bounds))
            .map_err(to_py)?
            .with_precision(self.precision);
        if let Some(t) = self.tol {
            k = k.with_tolerance(t).map_err(to_py)?;
        }
        Ok(k)
    }

    /// Runs `f` with the GIL released, on `n_jobs` threads when set.
    fn detached<T: Send>(&self, py: Python<'_>, f: impl FnOnce() -> kronograph::Result<T> + Send) -> PyResult<T> {
        run_detached(py, self.n_jobs, f)
    }
}

/// Runs `f` with the GIL released, on a pool of `n_jobs` threads when set
/// (else rayon's global pool: every core).
pub fn run_detached<T: Send>(
    py: Python<'_>,
    n_jobs: Option<usize>,
    f: impl FnOnce() -> kronograph::Result<T> + Send,
) -> PyResult<T> {
    py.allow_threads(|| match n_jobs {
        None => f(),
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(f),
            Err(e) => Err(kronograph::mgk::MgkError::InvalidParameter(format!("n_jobs = {n}: {e}")).into()),
        },
    })
    .map_err(to_py)
}

/// `K_ij / √(dx_i dy_j)`, in place (row-major, `cols` columns).
fn normalize_values(k: &mut [f64], cols: usize, dx: &[f64], dy: &[f64]) {
    for (i, row) in k.chunks_mut(cols.max(1)).enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v /= (dx[i] * dy[j]).sqrt();
        }
    }
}

/// A progress callback that calls the Python callable `cb(done, total)`
/// about a hundred times over a run (taking the GIL for each call).
pub fn python_progress(cb: Py<PyAny>) -> Progress {
    let next = AtomicUsize::new(0);
    Arc::new(move |done: usize, total: usize| {
        let step = (total / 100).max(1);
        let due = next.load(Ordering::Relaxed);
        if done >= due || done == total {
            next.store(done + step, Ordering::Relaxed);
            Python::with_gil(|py| {
                if let Err(e) = cb.call1(py, (done, total)) {
                    e.print(py);
                }
            });
        }
    })
}
