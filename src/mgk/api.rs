//! The marginalized graph kernel's computations, written once over the
//! backend boundary ([`PairEngine`]): each method enumerates its pairs,
//! asks an engine to solve them, and assembles (and normalizes) the result.
//!
//! Two faces: the plain methods (`gram`, `diag`, …) run on the CPU for any
//! label type; the `_on` forms take a [`Backend`] and need labels the GPU can
//! hold ([`GpuLabel`]).

use super::cpu::Cpu;
use super::engine::{PairEngine, PairOut, Want};
use super::gpu::Gpu;
use super::system::{
    check_value, cross_pairs, diagonal_pairs, largest_finite, length_one_term, normalize, normalize_with_gradient,
    upper_pairs,
};
use super::{Gradient, MarginalizedGraphKernel, Matrix, MgkError};
use crate::backend::{resolve_devices_for, Backend};
use crate::basekernel::{BaseKernel, Hyperparameter};
use crate::cuda::GpuLabel;
use crate::graph::{Graph, Label};
use rayon::prelude::*;

type Engine<'a, N, E, KV, KE> = &'a dyn PairEngine<N, E, KV, KE>;

/// The relative accuracy a value computed as `total − length-one term` must
/// keep (estimated as `max(tol, ε) · total / value`), else it is refused.
const LMIN1_ACCURACY: f64 = 1e-2;

/// The computations over any engine.
impl<N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>> MarginalizedGraphKernel<N, E, KV, KE> {
    fn values(
        &self,
        eng: Engine<'_, N, E, KV, KE>,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        pairs: &[(usize, usize)],
        want: Want,
    ) -> Result<Vec<PairOut>, MgkError> {
        if want.gradient && x.iter().chain(y.unwrap_or(&[])).any(|g| g.is_directed()) {
            return Err(MgkError::Unsupported("gradients for directed graphs"));
        }
        if want.gradient && self.config().system.is_some() {
            return Err(MgkError::Unsupported("gradients of a Kronecker system other than the kernel's own"));
        }
        // the configuration again (the precision may have changed after the tolerance was set)
        self.config().validate()?;
        // field kernels meet the data here: bound to the labels' schema (an error names a missing field)
        let bound = self.bound_to(x, y)?;
        let kernel = bound.as_ref().unwrap_or(self);
        // a node kernel that may be negative meets the data here, for every backend
        super::node_values::check_node_kernel_values(kernel.node_kernel(), x, y, pairs)?;
        let t = std::time::Instant::now();
        let mut out = eng.solve_pairs(kernel, x, y, pairs, want)?;
        let solved = t.elapsed().as_secs_f64();
        if self.lmin() == 1 {
            kernel.check_length_one(x, y, pairs, &mut out)?;
        }
        // every backend's values pass the same check: finite, and negative only by rounding
        // (in parallel: millions of pairs; the error is the first failing pair's, as in order)
        let largest = out.par_iter().map(|o| largest_finite(std::iter::once(o.value))).reduce(|| 0.0, f64::max);
        let tol = self.tolerance();
        let bad = out.par_iter_mut().zip(pairs).position_first(|(o, &pair)| {
            match check_value(o.value, o.magnitude.unwrap_or(largest), tol, pair) {
                Ok(v) => {
                    o.value = v;
                    false
                }
                Err(_) => true,
            }
        });
        if let Some(i) = bad {
            check_value(out[i].value, out[i].magnitude.unwrap_or(largest), tol, pairs[i])?;
        }
        if crate::spread::tracing() {
            eprintln!(
                "mgk values: {} pairs, engine {solved:.3} s, checks {:.3} s",
                pairs.len(),
                t.elapsed().as_secs_f64() - solved
            );
        }
        Ok(out)
    }

    /// With `lmin = 1`, for the values an engine returns as `total − Σ p p′ κv`
    /// (those without a [`magnitude`](PairOut::magnitude): the GPU's; the CPU
    /// solves for the difference itself): the length-one term on the host,
    /// the magnitude for [`check_value`], and a refusal when the subtraction
    /// leaves less than [`LMIN1_ACCURACY`] of relative accuracy (`q` close to
    /// 1 in the engine's precision), naming the largest `q` that keeps it for
    /// every pair. `O(n n′)` per such pair.
    fn check_length_one(
        &self,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        pairs: &[(usize, usize)],
        out: &mut [PairOut],
    ) -> Result<(), MgkError> {
        let eps = match self.precision() {
            crate::backend::Precision::F32 => f64::from(f32::EPSILON),
            _ => f64::EPSILON,
        };
        let unit = self.tolerance().max(eps);
        let mut worst: Option<((usize, usize), f64, f64)> = None;
        for (o, &(a, b)) in out.iter_mut().zip(pairs) {
            if o.magnitude.is_some() {
                continue;
            }
            let (ga, gb) = (&x[a], &y.unwrap_or(x)[b]);
            let (pa, pb) = (self.start_probabilities(ga, a)?, self.start_probabilities(gb, b)?);
            let l1 = length_one_term(&pa, &pb, ga.node_labels(), gb.node_labels(), self.node_kernel());
            o.magnitude = Some(o.value.abs().max(l1));
            // the total's rounding, relative to what is left after subtracting l1
            let ratio = (o.value.abs() + l1) / o.value.abs().max(f64::MIN_POSITIVE);
            if unit * ratio > LMIN1_ACCURACY && worst.is_none_or(|w| ratio > w.2) {
                worst = Some(((a, b), o.value, ratio));
            }
        }
        let Some((pair, value, ratio)) = worst else { return Ok(()) };
        // K / total shrinks about as (1 − q)²: the largest q with unit · ratio <= LMIN1_ACCURACY
        let q = self.config().q;
        let q_ok = 1.0 - (1.0 - q) * (unit * ratio / LMIN1_ACCURACY).sqrt();
        Err(MgkError::InvalidValue {
            pair,
            value,
            detail: format!(
                "with lmin = 1 and q = {q} the length-one term is {ratio:.1e} times this value, so the subtraction \
                 in {:?} keeps less than {:.0} % accuracy; use q <= {q_ok:.6} (for every pair of this set), double \
                 precision, or the CPU, which solves for the length-one remainder directly",
                self.precision(),
                LMIN1_ACCURACY * 100.0
            ),
        })
    }

    fn gram_by(&self, eng: Engine<'_, N, E, KV, KE>, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let n = x.len();
        let pairs = upper_pairs(n);
        let out = self.values(eng, x, None, &pairs, Want::default())?;
        let t = std::time::Instant::now();
        // row r: pair (r, c) for c >= r, (c, r) below; upper_pairs is row-major, so (a, b) is at
        // a n - a (a - 1) / 2 + b - a; rows in parallel
        let at = |a: usize, b: usize| a * n - a * a.saturating_sub(1) / 2 + b - a;
        debug_assert!(pairs.iter().enumerate().all(|(k, &(a, b))| at(a, b) == k));
        let mut m = Matrix::zeros(n, n);
        m.data.par_chunks_mut(n.max(1)).enumerate().for_each(|(r, row)| {
            for (c, v) in row.iter_mut().enumerate() {
                *v = if r <= c { out[at(r, c)].value } else { out[at(c, r)].value };
            }
        });
        if crate::spread::tracing() {
            eprintln!("mgk gram: {n} graphs, assembly {:.3} s", t.elapsed().as_secs_f64());
        }
        Ok(m)
    }

    fn gram_xy_by(
        &self,
        eng: Engine<'_, N, E, KV, KE>,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
    ) -> Result<Matrix, MgkError> {
        let pairs = cross_pairs(x.len(), y.len());
        let out = self.values(eng, x, Some(y), &pairs, Want::default())?;
        Ok(Matrix { rows: x.len(), cols: y.len(), data: out.into_iter().map(|o| o.value).collect() })
    }

    fn diag_by(&self, eng: Engine<'_, N, E, KV, KE>, x: &[Graph<N, E>]) -> Result<Vec<f64>, MgkError> {
        let out = self.values(eng, x, None, &diagonal_pairs(x.len()), Want::default())?;
        Ok(out.into_iter().map(|o| o.value).collect())
    }

    fn nodal_by(&self, eng: Engine<'_, N, E, KV, KE>, g: &Graph<N, E>, h: &Graph<N, E>) -> Result<Matrix, MgkError> {
        let want = Want { nodal: true, ..Want::default() };
        let out = self.values(eng, std::slice::from_ref(g), Some(std::slice::from_ref(h)), &[(0, 0)], want)?;
        let data = out.into_iter().next().and_then(|o| o.nodal).expect("nodal requested");
        Ok(Matrix { rows: g.num_nodes(), cols: h.num_nodes(), data })
    }

    fn gram_normalized_by(&self, eng: Engine<'_, N, E, KV, KE>, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        let mut k = self.gram_by(eng, x)?;
        let d: Vec<f64> = (0..x.len()).map(|a| k.get(a, a)).collect();
        normalize(&mut k.data, &d, &d)?;
        Ok(k)
    }

    fn gram_xy_normalized_by(
        &self,
        eng: Engine<'_, N, E, KV, KE>,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
    ) -> Result<Matrix, MgkError> {
        let mut k = self.gram_xy_by(eng, x, y)?;
        let (dx, dy) = (self.diag_by(eng, x)?, self.diag_by(eng, y)?);
        normalize(&mut k.data, &dx, &dy)?;
        Ok(k)
    }

    fn active_names(&self) -> Vec<String> {
        self.hyperparameters().into_iter().filter(Hyperparameter::is_active).map(|h| h.name).collect()
    }

    fn gram_with_gradient_by(
        &self,
        eng: Engine<'_, N, E, KV, KE>,
        x: &[Graph<N, E>],
        normalized: bool,
    ) -> Result<(Matrix, Gradient), MgkError> {
        let names = self.active_names();
        let (n, nt) = (x.len(), names.len());
        let pairs = upper_pairs(n);
        let out = self.values(eng, x, None, &pairs, Want { gradient: true, ..Want::default() })?;
        let mut k = Matrix::zeros(n, n);
        let mut g = Gradient { rows: n, cols: n, names, data: vec![0.0; n * n * nt] };
        for (&(a, b), o) in pairs.iter().zip(&out) {
            k.set(a, b, o.value);
            k.set(b, a, o.value);
            for t in 0..nt {
                g.data[(a * n + b) * nt + t] = o.grad[t];
                g.data[(b * n + a) * nt + t] = o.grad[t];
            }
        }
        if normalized {
            let d: Vec<f64> = (0..n).map(|a| k.get(a, a)).collect();
            let dg: Vec<f64> = (0..n).flat_map(|a| (0..nt).map(move |t| (a, t))).map(|(a, t)| g.get(a, a, t)).collect();
            normalize_with_gradient(&mut k.data, &mut g.data, nt, (&d, &dg), (&d, &dg))?;
        }
        Ok((k, g))
    }

    fn gram_xy_with_gradient_by(
        &self,
        eng: Engine<'_, N, E, KV, KE>,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
        normalized: bool,
    ) -> Result<(Matrix, Gradient), MgkError> {
        let names = self.active_names();
        let (n, m, nt) = (x.len(), y.len(), names.len());
        let pairs = cross_pairs(n, m);
        let out = self.values(eng, x, Some(y), &pairs, Want { gradient: true, ..Want::default() })?;
        let mut k = Matrix::zeros(n, m);
        let mut g = Gradient { rows: n, cols: m, names, data: vec![0.0; n * m * nt] };
        for (&(a, b), o) in pairs.iter().zip(&out) {
            k.set(a, b, o.value);
            g.data[(a * m + b) * nt..(a * m + b + 1) * nt].copy_from_slice(&o.grad);
        }
        if normalized {
            let (dx, gx) = self.diag_with_gradient_by(eng, x)?;
            let (dy, gy) = self.diag_with_gradient_by(eng, y)?;
            normalize_with_gradient(&mut k.data, &mut g.data, nt, (&dx, &gx), (&dy, &gy))?;
        }
        Ok((k, g))
    }

    fn diag_with_gradient_by(
        &self,
        eng: Engine<'_, N, E, KV, KE>,
        x: &[Graph<N, E>],
    ) -> Result<(Vec<f64>, Vec<f64>), MgkError> {
        let out = self.values(eng, x, None, &diagonal_pairs(x.len()), Want { gradient: true, ..Want::default() })?;
        let d = out.iter().map(|o| o.value).collect();
        let g = out.into_iter().flat_map(|o| o.grad).collect();
        Ok((d, g))
    }

    // ------------------------------------------------------------- CPU API

    /// `K(G, G')` for one pair.
    ///
    /// # Errors
    /// [`MgkError::Solver`] when a solve fails; [`MgkError::InvalidStart`].
    pub fn pair(&self, g: &Graph<N, E>, h: &Graph<N, E>) -> Result<f64, MgkError> {
        let k = self.gram_xy(std::slice::from_ref(g), std::slice::from_ref(h))?;
        Ok(k.get(0, 0))
    }

    /// The nodal similarity of one pair: the `n × n'` matrix
    /// `K_ii' = p_i p'_i' r_ii' − lmin p_i p'_i' κv(v_i, v'_i')`, whose sum is `K(G, G')`.
    ///
    /// # Errors
    /// As [`pair`](Self::pair).
    pub fn nodal(&self, g: &Graph<N, E>, h: &Graph<N, E>) -> Result<Matrix, MgkError> {
        self.nodal_by(&Cpu, g, h)
    }

    /// The Gram matrix `K(X_a, X_b)` of one list: symmetric; each pair
    /// `a ≤ b` is solved once. Pairs run in parallel (rayon).
    ///
    /// Cost: `N(N+1)/2` solves of `O(iterations · nnz·nnz')` each.
    ///
    /// # Errors
    /// [`MgkError::Solver`] naming the first failing pair; [`MgkError::InvalidStart`].
    pub fn gram(&self, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        self.gram_by(&Cpu, x)
    }

    /// The cross Gram matrix `K(X_a, Y_b)`, `|X| × |Y|`.
    ///
    /// # Errors
    /// As [`gram`](Self::gram).
    pub fn gram_xy(&self, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        self.gram_xy_by(&Cpu, x, y)
    }

    /// The diagonal `K(X_a, X_a)`.
    ///
    /// # Errors
    /// As [`gram`](Self::gram).
    pub fn diag(&self, x: &[Graph<N, E>]) -> Result<Vec<f64>, MgkError> {
        self.diag_by(&Cpu, x)
    }

    /// The normalized Gram matrix `K(a, b) / √(K(a, a) K(b, b))` (unit
    /// diagonal).
    ///
    /// # Errors
    /// As [`gram`](Self::gram).
    pub fn gram_normalized(&self, x: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        self.gram_normalized_by(&Cpu, x)
    }

    /// The normalized cross Gram matrix (solves the diagonals of both lists
    /// too).
    ///
    /// # Errors
    /// As [`gram`](Self::gram).
    pub fn gram_xy_normalized(&self, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> Result<Matrix, MgkError> {
        self.gram_xy_normalized_by(&Cpu, x, y)
    }

    /// The Gram matrix and its gradient with respect to the log of every
    /// active hyperparameter (see the module documentation). One extra
    /// (adjoint) solve per pair. With `normalized`, both are those of the
    /// normalized kernel.
    ///
    /// # Errors
    /// As [`gram`](Self::gram); [`MgkError::Unsupported`] for directed graphs.
    pub fn gram_with_gradient(&self, x: &[Graph<N, E>], normalized: bool) -> Result<(Matrix, Gradient), MgkError> {
        self.gram_with_gradient_by(&Cpu, x, normalized)
    }

    /// The cross Gram matrix `K(X_a, Y_b)` and its gradient with respect to
    /// the log of every active hyperparameter (one extra solve per pair).
    /// With `normalized`, both are those of the normalized kernel (which
    /// solves the diagonals of both lists too).
    ///
    /// # Errors
    /// As [`gram`](Self::gram); [`MgkError::Unsupported`] for directed graphs.
    pub fn gram_xy_with_gradient(
        &self,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
        normalized: bool,
    ) -> Result<(Matrix, Gradient), MgkError> {
        self.gram_xy_with_gradient_by(&Cpu, x, y, normalized)
    }

    /// The diagonal `K(X_a, X_a)` and its gradient (`|X| × k` row-major, the
    /// active hyperparameters in the order of [`Gradient::names`]).
    ///
    /// # Errors
    /// As [`gram_with_gradient`](Self::gram_with_gradient).
    pub fn diag_with_gradient(&self, x: &[Graph<N, E>]) -> Result<(Vec<f64>, Vec<f64>), MgkError> {
        self.diag_with_gradient_by(&Cpu, x)
    }
}

/// The same computations on a backend chosen per call.
///
/// `Backend::Cpu` solves on the CPU, `Backend::Cuda(d)` on CUDA device `d`
/// (an error when there is none), `Backend::Devices(set)` on every device of
/// the set (the graphs uploaded to each once, the pairs taken in chunks from
/// one queue by two host threads per device; values equal to one device's
/// to the solver's rounding),
/// `Backend::Auto` on device 0 (or the set `KRONOGRAPH_DEVICES` names) when
/// one can be used, else on the CPU with one log line saying why
/// ([`resolve_devices`](crate::backend::resolve_devices)); a kernel without
/// a CUDA form (a CPU-only base kernel) runs on the CPU under `Auto`
/// ([`resolve_devices_for`](crate::backend::resolve_devices_for)). Every backend uses this kernel's base kernels, start
/// probabilities and [`MgkConfig`](super::MgkConfig) (q, lmin, precision,
/// tolerance, iteration cap, reordering, XMV scheme); the values agree to the
/// solver tolerance (about `1e-5` relative in `f32`, `1e-10` in `f64`). On
/// the GPU, gradients need every pair to fit the batched kernel's shared
/// memory. On one device a call of under a million pairs runs in a single
/// launch (about 20 with a progress callback, called after each); larger
/// calls and device sets run in chunks, the callback called after each.
///
/// # Errors (every `_on` method)
/// [`crate::Error::Mgk`] from the solves; [`crate::Error::Cuda`] (or
/// [`crate::Error::CudaNotCompiled`]) from the GPU.
impl<N: Label, E: Label, KV: BaseKernel<N>, KE: BaseKernel<E>> MarginalizedGraphKernel<N, E, KV, KE> {
    /// Runs `f` on the engine of `backend`.
    fn on<T>(
        &self,
        backend: Backend,
        f: impl FnOnce(Engine<'_, N, E, KV, KE>) -> Result<T, MgkError>,
    ) -> crate::Result<T>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        // under Auto, a kernel without a CUDA form (a CPU-only user kernel) computes on the CPU
        let device_wins = backend != Backend::Auto || self.has_cuda_form();
        Ok(match resolve_devices_for(backend, device_wins)? {
            None => f(&Cpu)?,
            Some(devices) => f(&Gpu::on_devices(&devices)?)?,
        })
    }

    /// Whether both base kernels have a CUDA form ([`BaseKernel::cuda`]).
    fn has_cuda_form(&self) -> bool
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        let mut cg = crate::basekernel::CudaGen::new("double", "theta");
        let no_form = |r: Result<String, crate::basekernel::KernelError>| {
            matches!(r, Err(crate::basekernel::KernelError::NoCudaForm(_)))
        };
        !(no_form(self.node_kernel().cuda("a", "b", &mut cg)) || no_form(self.edge_kernel().cuda("a", "b", &mut cg)))
    }

    /// [`gram`](Self::gram) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_on(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<Matrix>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        self.on(backend, |e| self.gram_by(e, x))
    }

    /// [`gram_xy`](Self::gram_xy) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_xy_on(&self, backend: Backend, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> crate::Result<Matrix>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        self.on(backend, |e| self.gram_xy_by(e, x, y))
    }

    /// [`diag`](Self::diag) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn diag_on(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<Vec<f64>>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        self.on(backend, |e| self.diag_by(e, x))
    }

    /// [`nodal`](Self::nodal) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn nodal_on(&self, backend: Backend, g: &Graph<N, E>, h: &Graph<N, E>) -> crate::Result<Matrix>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        self.on(backend, |e| self.nodal_by(e, g, h))
    }

    /// [`gram_normalized`](Self::gram_normalized) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_normalized_on(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<Matrix>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        self.on(backend, |e| self.gram_normalized_by(e, x))
    }

    /// [`gram_xy_normalized`](Self::gram_xy_normalized) on `backend`.
    ///
    /// # Errors
    /// See the `_on` methods above.
    pub fn gram_xy_normalized_on(&self, backend: Backend, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> crate::Result<Matrix>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        self.on(backend, |e| self.gram_xy_normalized_by(e, x, y))
    }

    /// [`gram_with_gradient`](Self::gram_with_gradient) on `backend`. On the
    /// GPU: one batched launch, two solves per pair, the base kernels'
    /// gradients by forward-mode differentiation of their CUDA forms.
    ///
    /// # Errors
    /// See the `_on` methods above; [`crate::cuda::CudaError::PairTooLarge`]
    /// for a pair of more than 2³¹ − 1 product nodes (pairs whose vectors do
    /// not fit in shared memory solve with them in global memory).
    pub fn gram_with_gradient_on(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        normalized: bool,
    ) -> crate::Result<(Matrix, Gradient)>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        self.on(backend, |e| self.gram_with_gradient_by(e, x, normalized))
    }

    /// [`gram_xy_with_gradient`](Self::gram_xy_with_gradient) on `backend`.
    ///
    /// # Errors
    /// As [`gram_with_gradient_on`](Self::gram_with_gradient_on).
    pub fn gram_xy_with_gradient_on(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
        normalized: bool,
    ) -> crate::Result<(Matrix, Gradient)>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        self.on(backend, |e| self.gram_xy_with_gradient_by(e, x, y, normalized))
    }

    /// [`diag_with_gradient`](Self::diag_with_gradient) on `backend`.
    ///
    /// # Errors
    /// As [`gram_with_gradient_on`](Self::gram_with_gradient_on).
    pub fn diag_with_gradient_on(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<(Vec<f64>, Vec<f64>)>
    where
        N: GpuLabel,
        E: GpuLabel,
    {
        self.on(backend, |e| self.diag_with_gradient_by(e, x))
    }
}
