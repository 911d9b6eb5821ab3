//! [`RandomWalkKernel`] on a backend chosen per call: the CPU, or a CUDA
//! device (the moment series of `gpu/series/`, the batched PCG of the
//! marginalized graph kernel's engine, and for directed graphs the
//! fixed-point iteration of `gpu/fixed.rs`; labeled and directed pairs in
//! `gpu_pairs.rs`).

use super::{series_terms, RandomWalkKernel, RwScale, MAX_TERMS, SERIES_TAIL};
use crate::backend::{backend_of, resolve_devices, Backend};
use crate::basekernel::Constant;
use crate::cuda::GpuLabel;
use crate::graph::{Graph, Label};
use crate::mgk::system::{scale_pow2, unit_weights};
use crate::mgk::{KronSystem, MarginalizedGraphKernel, Matrix, MgkError};
use rayon::prelude::*;

/// The kernel on a backend chosen per call ([`Backend`]): the CPU computes
/// as the plain methods do. On a CUDA device, with [`RwMethod::Auto`](crate::rw::RwMethod::Auto) or
/// [`RwMethod::Series`](crate::rw::RwMethod::Series), the moment series runs on the GPU (the
/// spectral-radius bounds and the moments `m_k / ρ̂^k` of each graph, one block
/// per graph, then `Σ_k r^k m_k m'_k` per pair with the CPU's truncation rule;
/// `kernels/rw_series.cu`) in this kernel's precision; pairs it does not
/// cover (more than 400 terms) and [`RwMethod::Solver`](crate::rw::RwMethod::Solver) solve the system
/// `(I − λ W ⊗ W') x = 1` as an instance of the Kronecker systems of
/// [`MarginalizedGraphKernel`]
/// ([`KronSystem::random_walk`]: κv = κe = 1, unit degrees, scale `1/λ`,
/// `p = 1`) by the batched PCG of the GPU, to this kernel's tolerance. Sets
/// with directed graphs and the node-labeled kernel run as
/// `rw/gpu_pairs.rs` says (the fixed-point iteration on the device for
/// directed pairs, the labeled system by the same batched PCG for the
/// others). The series checks λ as the CPU does (the
/// pair with the largest lower bounds), the PCG needs `λ ρ̂(W) ρ̂(W') < 1` for
/// every pair it solves (the bounds of
/// [`spectral_radius_bound`](Self::spectral_radius_bound), so that the
/// system is positive definite).
///
/// # Errors (every `_on` method)
/// [`MgkError::LambdaTooLarge`] naming the pair with the largest bound;
/// [`crate::Error::Cuda`] (or [`crate::Error::CudaNotCompiled`]) from the
/// GPU; the CPU methods' errors.
impl RandomWalkKernel {
    /// [`gram`](Self::gram) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_on<N: GpuLabel, E: GpuLabel>(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<Matrix> {
        match resolve_devices(backend)? {
            None => Ok(self.gram(x)?),
            Some(d) if x.iter().any(Graph::is_directed) => self.plain_pairs_gpu(d[0], x, None),
            Some(d) if self.use_series() => self.series_gpu(&d, x, None),
            Some(d) => {
                self.check_gpu_lambda(x, x)?;
                self.as_system()?.gram_on(backend_of(Some(&d)), x)
            }
        }
    }

    /// [`gram_xy`](Self::gram_xy) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_xy_on<N: GpuLabel, E: GpuLabel>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
    ) -> crate::Result<Matrix> {
        match resolve_devices(backend)? {
            None => Ok(self.gram_xy(x, y)?),
            Some(d) if x.iter().chain(y).any(Graph::is_directed) => self.plain_pairs_gpu(d[0], x, Some(y)),
            Some(d) if self.use_series() => self.series_gpu(&d, x, Some(y)),
            Some(d) => {
                self.check_gpu_lambda(x, y)?;
                self.as_system()?.gram_xy_on(backend_of(Some(&d)), x, y)
            }
        }
    }

    /// [`gram_labeled`](Self::gram_labeled) on `backend` (on a GPU: the
    /// labeled system by the batched PCG, directed graphs by the fixed-point
    /// iteration; `gpu_pairs.rs`).
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_labeled_on<N: Label + PartialEq, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
    ) -> crate::Result<Matrix> {
        match resolve_devices(backend)? {
            None => Ok(self.gram_labeled(x)?),
            Some(d) => self.labeled_pairs_gpu(d[0], x, None),
        }
    }

    /// [`gram_xy_labeled`](Self::gram_xy_labeled) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_xy_labeled_on<N: Label + PartialEq, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
    ) -> crate::Result<Matrix> {
        match resolve_devices(backend)? {
            None => Ok(self.gram_xy_labeled(x, y)?),
            Some(d) => self.labeled_pairs_gpu(d[0], x, Some(y)),
        }
    }

    /// The moment series on device `device` (see [`RwMethod::Series`](crate::rw::RwMethod::Series)):
    /// bounds and moments per graph and the sum per pair on the GPU, in
    /// this kernel's precision; pairs the series does not cover (more than
    /// `MAX_TERMS` terms) are solved by the GPU's batched PCG. `y = None`:
    /// the symmetric Gram of `x` (pairs `a ≤ b`, mirrored, as on the CPU).
    fn series_gpu<N: GpuLabel, E: GpuLabel>(
        &self,
        device: &[usize],
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
    ) -> crate::Result<Matrix> {
        use super::gpu::series::{series_gram, SeriesGraph, SeriesPairs, SeriesRule};
        let (nx, ny) = (x.len(), y.map_or(x.len(), <[_]>::len));
        if nx == 0 || ny == 0 {
            return Ok(Matrix::zeros(nx, ny));
        }
        let t0 = std::time::Instant::now();
        // the graphs as they are: the packer scales the weights as `unit_weights` does
        let list: Vec<SeriesGraph<'_>> = x.iter().chain(y.unwrap_or(&[])).map(SeriesGraph::of).collect();
        let t1 = std::time::Instant::now();
        // room for the moments of the pair with the largest upper bounds
        // (each graph holds what its own pairs need)
        fn stride(lambda: f64, top: f64) -> usize {
            series_terms(lambda * top * top * (1.0 + 1e-12)).map_or(MAX_TERMS + 1, |t| (t + 2).min(MAX_TERMS + 1))
        }
        let rule = SeriesRule { lambda: self.lambda, tail: SERIES_TAIL, max_terms: MAX_TERMS, stride };
        let pairs = SeriesPairs { nx, y0: if y.is_some() { nx } else { 0 }, ny };
        let out = series_gram(device[0], &list, pairs, rule, self.precision)
            .map_err(|e| series_error(e, |i| x.iter().chain(y.unwrap_or(&[])).nth(i)))?;
        let scales = series_scales(&out.exp, &out.bounds)?;
        let (sx, sy) = match y {
            Some(_) => (&scales[..nx], &scales[nx..]),
            None => (&scales[..], &scales[..]),
        };
        // the pair with the largest lower bounds decides λ's validity
        let worst = |s: &[RwScale]| {
            let lo = |s: &RwScale| scale_pow2(s.lo, s.exp);
            (0..s.len()).max_by(|&i, &j| lo(&s[i]).total_cmp(&lo(&s[j]))).unwrap_or(0)
        };
        let (a, b) = (worst(sx), worst(sy));
        self.pair_lambda(&sx[a], &sy[b]).map_err(|e| self.map_error(a, b, e))?;
        let v = out.values;
        let sym = y.is_none();
        // the usual case: every pair by the series, finite and non-negative (the symmetric
        // Gram's values come back symmetric): the matrix is the values
        if all_finite_non_negative(&v) {
            if let Some(p) = &self.progress {
                let done = if sym { nx * (nx + 1) / 2 } else { nx * ny };
                p(done, done);
            }
            trace_rest(t0, t1);
            return Ok(Matrix::from_row_major(nx, ny, v));
        }
        let mut k = Matrix::zeros(nx, ny);
        let mut left = Vec::new();
        for a in 0..nx {
            for b in 0..ny {
                // the symmetric Gram takes the upper triangle, as the CPU
                let (i, j) = if sym && b < a { (b, a) } else { (a, b) };
                let value = v[i * ny + j];
                if value == -1.0 {
                    if !sym || a <= b {
                        left.push((a, b));
                    }
                    continue;
                }
                k.set(a, b, Self::checked(value).map_err(|e| self.map_error(i, j, e))?);
            }
        }
        if !left.is_empty() {
            self.solve_left(device, (x, sx), (y.unwrap_or(x), sy), &left, &mut k, sym)?;
        }
        if let Some(p) = &self.progress {
            p(if sym { nx * (nx + 1) / 2 } else { nx * ny }, if sym { nx * (nx + 1) / 2 } else { nx * ny });
        }
        trace_rest(t0, t1);
        Ok(k)
    }

    /// The pairs `left` the series does not cover, by the GPU's batched PCG
    /// on the graphs they involve, scaled as the CPU scales them (weights by
    /// `2^−e`, λ by `2^(e + e')`: one solve per distinct `e + e'`).
    fn solve_left<N: GpuLabel, E: GpuLabel>(
        &self,
        device: &[usize],
        (x, sx): (&[Graph<N, E>], &[RwScale]),
        (y, sy): (&[Graph<N, E>], &[RwScale]),
        left: &[(usize, usize)],
        k: &mut Matrix,
        sym: bool,
    ) -> crate::Result<()> {
        let mut groups: std::collections::BTreeMap<i32, Vec<(usize, usize)>> = Default::default();
        for &(a, b) in left {
            groups.entry(sx[a].exp + sy[b].exp).or_default().push((a, b));
        }
        let scaled = |g: &Graph<N, E>, i: usize| -> Result<Graph<N, E>, MgkError> {
            unit_weights(g).map(|(s, _)| s.into_owned()).map_err(|source| MgkError::WeightRange { graph: i, source })
        };
        for (exp, pairs) in groups {
            let mut ia: Vec<usize> = pairs.iter().map(|p| p.0).collect();
            let mut ib: Vec<usize> = pairs.iter().map(|p| p.1).collect();
            ia.sort_unstable();
            ia.dedup();
            ib.sort_unstable();
            ib.dedup();
            let gx = ia.iter().map(|&i| scaled(&x[i], i)).collect::<Result<Vec<_>, _>>()?;
            let gy = ib.iter().map(|&i| scaled(&y[i], i)).collect::<Result<Vec<_>, _>>()?;
            let lam = scale_pow2(self.lambda, exp);
            let kernel = RandomWalkKernel::new(lam)?.with_precision(self.precision).with_max_iters(self.max_iters);
            let kernel = RandomWalkKernel { tol: self.tol, ..kernel };
            let remap = |e: crate::Error| match e {
                crate::Error::Mgk(MgkError::LambdaTooLarge { detail, pair: (i, j), .. }) => {
                    MgkError::LambdaTooLarge { lambda: self.lambda, pair: (ia[i], ib[j]), detail }.into()
                }
                e => e,
            };
            kernel.check_gpu_lambda(&gx, &gy).map_err(|e| remap(e.into()))?;
            let solved = kernel.as_system()?.gram_xy_on(backend_of(Some(device)), &gx, &gy).map_err(remap)?;
            for &(a, b) in &pairs {
                let (i, j) = (ia.binary_search(&a).unwrap_or(0), ib.binary_search(&b).unwrap_or(0));
                let value = Self::checked(solved.get(i, j)).map_err(|e| self.map_error(a, b, e))?;
                k.set(a, b, value);
                if sym {
                    k.set(b, a, value);
                }
            }
        }
        Ok(())
    }

    /// The spectral-radius bounds of `x` as the GPU's series kernels compute
    /// them on device `device`, scaled back as
    /// [`spectral_radius_bounds`](Self::spectral_radius_bounds) returns them
    /// (for the tests: the two must be equal to the bit).
    ///
    /// # Errors
    /// As [`gram_on`](Self::gram_on) on a CUDA device.
    #[cfg(any(test, feature = "testing"))]
    pub fn gpu_spectral_radius_bounds<N: Label, E: Label>(
        device: usize,
        x: &[Graph<N, E>],
    ) -> crate::Result<Vec<(f64, f64)>> {
        use super::gpu::series::{series_gram, SeriesGraph, SeriesPairs, SeriesRule};
        let list: Vec<SeriesGraph<'_>> = x.iter().map(SeriesGraph::of).collect();
        let rule = SeriesRule { lambda: 0.0, tail: SERIES_TAIL, max_terms: MAX_TERMS, stride: |_, _| 3 };
        let out = series_gram(device, &list, SeriesPairs { nx: 0, y0: 0, ny: 0 }, rule, crate::backend::Precision::F64)
            .map_err(|e| series_error(e, |i| x.get(i)))?;
        Ok(out.exp.iter().zip(&out.bounds).map(|(&e, &(lo, hi))| (scale_pow2(lo, e), scale_pow2(hi, e))).collect())
    }

    /// Writes the upload of a GPU series call for `x` (the host's per-call
    /// work before the copy: the unit-weight check, the weight scaling and
    /// the 32-bit CSR, `rw/gpu/series/layout.rs`'s `pack`) into `buf`, grown as
    /// needed, and returns the bytes a call would upload; for the benchmark
    /// of that work (`benches/rw_pack.rs`), which needs no GPU.
    ///
    /// # Errors
    /// [`MgkError::WeightRange`] as a series call.
    #[cfg(any(test, feature = "testing"))]
    pub fn gpu_series_pack<N: Label, E: Label>(x: &[Graph<N, E>], buf: &mut Vec<u64>) -> crate::Result<usize> {
        use super::gpu::series::{pack, SeriesError, SeriesGraph, SeriesLayout};
        let list: Vec<SeriesGraph<'_>> = x.iter().map(SeriesGraph::of).collect();
        let layout = SeriesLayout::new(&list);
        if buf.len() < layout.words() {
            buf.resize(layout.words(), 0);
        }
        pack(&list, &layout, buf).map(|p| p.up).map_err(|i| series_error(SeriesError::WeightRange(i), |i| x.get(i)))
    }

    /// The kernel as a Kronecker system of the marginalized graph kernel.
    fn as_system<N: Label, E: Label>(&self) -> Result<MarginalizedGraphKernel<N, E, Constant, Constant>, MgkError> {
        // q is not used by a custom system; any valid value
        MarginalizedGraphKernel::new(Constant::new(1.0), Constant::new(1.0), 0.5)?
            .with_system(Some(KronSystem::random_walk(self.lambda)))?
            .with_precision(self.precision)
            .with_tolerance(self.tol)
            .map(|k| k.with_max_iters(self.max_iters))
    }

    /// Where [`gram_on`](Self::gram_on) runs `x` on `backend`: `Backend::Cpu`,
    /// `Backend::Cuda(d)` or a device set `Backend::Devices(..)` (the PCG
    /// spreads over it; the moment series, directed and labeled pairs run on
    /// its first device: the series of a whole NCI1 Gram takes 0.1 s on one
    /// GPU and was slower split by rows, docs/PERFORMANCE.md).
    ///
    /// # Errors
    /// As [`gram_on`](Self::gram_on)'s choice of device.
    pub fn resolved_backend<N: Label, E: Label>(&self, backend: Backend, _x: &[Graph<N, E>]) -> crate::Result<Backend> {
        Ok(backend_of(resolve_devices(backend)?.as_deref()))
    }

    /// Rejects a λ for which some pair's system may not be positive definite
    /// (the GPU's PCG has no curvature check).
    fn check_gpu_lambda<N: Label, E: Label>(&self, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> Result<(), MgkError> {
        let best = |v: &[Graph<N, E>]| {
            v.par_iter()
                .map(Self::spectral_radius_bound)
                .enumerate()
                .reduce(|| (0, 0.0), |a, b| if b.1 > a.1 { b } else { a })
        };
        let ((a, ra), (b, rb)) = (best(x), best(y));
        if self.lambda * ra * rb >= 1.0 {
            return Err(MgkError::LambdaTooLarge {
                lambda: self.lambda,
                pair: (a, b),
                detail: format!(
                    "λ ρ̂ ρ̂' = {:.3} ≥ 1 (the GPU needs it below 1): use λ < {:.6e} (--lambda)",
                    self.lambda * ra * rb,
                    1.0 / (ra * rb)
                ),
            });
        }
        Ok(())
    }
}

/// With `KRONOGRAPH_RW_TRACE` set, prints the host's weight scaling (`t0` to
/// `t1`) and the rest of a series call.
fn trace_rest(t0: std::time::Instant, t1: std::time::Instant) {
    if std::env::var_os("KRONOGRAPH_RW_TRACE").is_some() {
        let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        eprintln!("rw series_gpu: scaling {:.3} ms, rest {:.3} ms", ms(t0, t1), ms(t1, std::time::Instant::now()));
    }
}

/// The graphs in CSR form for the GPU series, weights scaled by
/// [`unit_weights`] (the exponents kept).
pub(super) fn series_csr<N: Label, E: Label>(x: &[&Graph<N, E>]) -> Result<super::gpu::series::SeriesCsr, MgkError> {
    let mut c = super::gpu::series::SeriesCsr::default();
    let nodes: usize = x.iter().map(|g| g.num_nodes()).sum();
    let nnz: usize = x.iter().map(|g| g.indices().len()).sum();
    c.node_off.reserve(x.len() + 1);
    c.ptr.reserve(nodes + 1);
    c.idx.reserve(nnz);
    c.w.reserve(nnz);
    c.node_off.push(0);
    c.ptr.push(0);
    for (i, g) in x.iter().enumerate() {
        let (g, e) = unit_weights(g).map_err(|source| MgkError::WeightRange { graph: i, source })?;
        let base = c.idx.len() as i64;
        c.ptr.extend(g.indptr()[1..].iter().map(|&p| base + p as i64));
        c.idx.extend(g.indices().iter().map(|&j| j as i32));
        c.w.extend_from_slice(g.weights());
        c.exp.push(e);
        c.node_off.push(c.ptr.len() as i64 - 1);
    }
    Ok(c)
}

/// The error of a series call: the driver's, or for a graph (`graph(i)`)
/// whose scaled weights underflow, the CPU's [`MgkError::WeightRange`].
fn series_error<'g, N: Label + 'g, E: Label + 'g>(
    e: super::gpu::series::SeriesError,
    graph: impl Fn(usize) -> Option<&'g Graph<N, E>>,
) -> crate::Error {
    use super::gpu::series::SeriesError;
    match e {
        SeriesError::Cuda(e) => e.into(),
        SeriesError::WeightRange(i) => match graph(i).map(unit_weights) {
            Some(Err(source)) => MgkError::WeightRange { graph: i, source }.into(),
            _ => MgkError::Cuda(Box::new(crate::cuda::CudaError::InvalidParameter(format!(
                "graph {i}: the GPU packer found weights out of range where the CPU did not"
            ))))
            .into(),
        },
    }
}

/// Whether every value is finite and `≥ 0`: one branch-free pass (no early
/// exit, so that it vectorizes; NaN fails both comparisons).
fn all_finite_non_negative(v: &[f64]) -> bool {
    crate::simd::on_widest_isa(|| v.iter().fold(true, |ok, x| ok & (0.0..f64::INFINITY).contains(x)))
}

/// The scales of undirected graphs with exponents `exp` and bounds from the GPU.
fn series_scales(exp: &[i32], bounds: &[(f64, f64)]) -> Result<Vec<RwScale>, MgkError> {
    if bounds.iter().any(|(lo, hi)| lo.is_nan() || hi.is_nan()) {
        return Err(MgkError::Cuda(Box::new(crate::cuda::CudaError::InvalidParameter(
            "the GPU left a spectral-radius bound unset (NaN): a kernel did not run for every graph".into(),
        ))));
    }
    Ok(exp.iter().zip(bounds).map(|(&exp, &(lo, hi))| RwScale { exp, lo, hi, directed: false }).collect())
}

#[cfg(test)]
mod tests {
    use crate::graph::{Direction, Graph, GraphBuilder};

    /// A graph whose scaled weights underflow fails the packing with the
    /// CPU's error, naming its index.
    #[test]
    fn packing_weights_out_of_range_is_the_cpu_error() {
        let graph = |w: &[f64]| -> Graph<(), ()> {
            let mut b = GraphBuilder::<(), ()>::new(w.len() + 1, Direction::Undirected).default_node_labels();
            for (k, &x) in w.iter().enumerate() {
                b.push_edge(k, k + 1, x, ());
            }
            b.build().unwrap()
        };
        let x = [graph(&[1.0, 2.0]), graph(&[1e300, 1e-300, 1.0])];
        let mut buf = Vec::new();
        let err = super::RandomWalkKernel::gpu_series_pack(&x, &mut buf).unwrap_err();
        assert!(matches!(err, crate::Error::Mgk(super::MgkError::WeightRange { graph: 1, .. })), "{err}");
        assert!(super::RandomWalkKernel::gpu_series_pack(&x[..1], &mut buf).is_ok());
    }

    #[test]
    fn all_finite_non_negative_is_the_plain_check() {
        let base: Vec<f64> = (0..29).map(|k| k as f64 * 0.5).collect();
        assert!(super::all_finite_non_negative(&base));
        assert!(super::all_finite_non_negative(&[]));
        for bad in [f64::NAN, f64::INFINITY, -1.0, -0.5, f64::NEG_INFINITY] {
            for at in [0, 7, 8, 23, 28] {
                let mut v = base.clone();
                v[at] = bad;
                assert!(!super::all_finite_non_negative(&v), "{bad} at {at}");
            }
        }
    }
}
