//! [`WalkSeriesKernel`] on a backend chosen per call: the CPU computes as
//! the plain methods do; on a CUDA device every pair (plain or node-labeled,
//! directed or not) runs the CPU's power series
//! ([`WalkSeriesKernel::power_series`]: the same terms, truncation rule and
//! errors) on the product graph `W× = W ⊗ W'` in `f64`, batched: one launch
//! computes for every pair of the call the sums `1ᵀ z_k` of the iteration
//! `z_{k+1} = (λ / d_k) L W× L z_k` from `z_0 = 1_L` (`L` the 0/1 mask of the
//! equal-label node pairs, the identity for the plain kernel; `d_k` from
//! [`WalkSeriesKernel::step_divisor`]) with the product of the batched
//! marginalized graph kernel (`kernels/kron_series.cu`, beside the generic
//! pair systems' `kernels/kron_pairs.cu`), as many sums as the series can
//! read ([`WalkSeriesKernel::power_terms`]); the host folds them with the
//! series' coefficients and stopping rule ([`WalkSeriesKernel::fold_sums`]).
//! The graphs are uploaded once per call, with their weights scaled by
//! `2^−e` and λ by `2^(e + e')` as on the CPU. A pair whose sums run out
//! before its series stops (or whose bound needs more than
//! [`MAX_WALK_TERMS`](super::MAX_WALK_TERMS) terms) runs the same series
//! pair by pair on the device Kronecker product
//! ([`DeviceKron`](crate::kron::DeviceKron)), with one read-back per term.
//! [`Backend::Auto`] runs a call on the device only where the device wins
//! ([`WalkSeriesKernel::auto_uses_device`], through the library's one rule
//! [`resolve_devices_for`]): node-labeled calls whose matched node pairs per
//! CPU thread exceed [`AUTO_MATCHED_PER_THREAD`] plus their node pairs over
//! [`AUTO_CPU_GPU_RATIO`]. The CPU's unlabeled kernel sums a moment series
//! (each graph's moments once, then `O(terms)` per pair), which the device's
//! product iteration does not beat; its labeled kernel iterates on every
//! pair's matched product graph (the node pairs with equal labels), the
//! device on the whole product masked to them, so the device wins on large
//! calls whose labels match often (MUTAG: about twice 16 CPU threads on the
//! whole Gram) and loses on label-selective ones (NWS96L: about 11 % of the
//! node pairs match); docs/PERFORMANCE.md, "Random-walk series kinds".

use super::pairs::{fill, pair_list};
use super::prep::GraphList;
use super::WalkSeriesKernel;
use crate::backend::{backend_of, resolve_devices_for, Backend};
use crate::graph::{Graph, Label};
use crate::mgk::Matrix;

/// The device's fixed cost per series call (upload, launch, read-back) in
/// matched node pairs per CPU thread of the CPU's labeled series: about
/// 1 ms on an H200 host, which 16 (or 4) CPU threads spend on about this
/// many matched node pairs each (docs/PERFORMANCE.md, "Random-walk series
/// kinds"). See [`WalkSeriesKernel::auto_uses_device`].
pub const AUTO_MATCHED_PER_THREAD: f64 = 6_000.0;

/// How many node pairs of the whole product the device iterates in the time
/// one CPU thread iterates one matched node pair (measured about 60 on
/// MUTAG and NWS96L, exponential and p-step alike; 50 here, so that near
/// ties stay on the CPU). See [`WalkSeriesKernel::auto_uses_device`].
pub const AUTO_CPU_GPU_RATIO: f64 = 50.0;

/// `(Σ_c count_c count'_c, Σ n·n')` over the pairs of the list's call (every
/// pair of `x` with `y`, or the pairs `a ≤ b` of `x`): its matched node pairs
/// (equal classes) and all its node pairs.
fn pair_work<N: Label, E: Label>(gl: &GraphList<'_, N, E>) -> (f64, f64) {
    let counts = gl.class_counts();
    let ncls = counts.first().map_or(0, Vec::len);
    let (xs, ys) = counts.split_at(if gl.cross { gl.nx } else { counts.len() });
    let total = |v: &[Vec<u64>], c: usize| v.iter().map(|h| h[c] as f64).sum::<f64>();
    let sizes = |v: &[Vec<u64>]| v.iter().map(|h| h.iter().sum::<u64>() as f64).collect::<Vec<f64>>();
    let (nx, ny) = (sizes(xs), sizes(ys));
    if gl.cross {
        let matched = (0..ncls).map(|c| total(xs, c) * total(ys, c)).sum();
        (matched, nx.iter().sum::<f64>() * ny.iter().sum::<f64>())
    } else {
        let sym = |sum: f64, squares: f64| (sum * sum + squares) / 2.0;
        let matched = (0..ncls).map(|c| sym(total(xs, c), xs.iter().map(|h| (h[c] as f64).powi(2)).sum())).sum();
        (matched, sym(nx.iter().sum(), nx.iter().map(|n| n * n).sum()))
    }
}

/// The `_on` methods: [`Backend::Cpu`] computes as the plain methods,
/// `cuda:N` (or a device set's first device) as the module documentation
/// says, [`Backend::Auto`] on the device where
/// [`auto_uses_device`](WalkSeriesKernel::auto_uses_device) says it wins,
/// else on the CPU. The results equal the
/// CPU's to rounding (relative `1e-12` in the tests: the sums are the same
/// terms in another order, and the unlabeled CPU kernel sums the moment
/// series `Σ_k c_k λ^k m_k m'_k` of the same terms).
///
/// # Errors (every `_on` method)
/// The CPU methods' errors; [`crate::Error::Cuda`] (or
/// [`crate::Error::CudaNotCompiled`]) from the GPU, such as a graph of more
/// nodes than the device product takes.
impl WalkSeriesKernel {
    /// [`gram`](Self::gram) on `backend`.
    ///
    /// # Errors
    /// See above.
    pub fn gram_on<N: Label, E: Label>(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<Matrix> {
        Ok(self.unlabeled_on(backend, x, None, false)?.0)
    }

    /// [`gram_xy`](Self::gram_xy) on `backend`.
    ///
    /// # Errors
    /// See above.
    pub fn gram_xy_on<N: Label, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
    ) -> crate::Result<Matrix> {
        Ok(self.unlabeled_on(backend, x, Some(y), false)?.0)
    }

    /// [`gram_labeled`](Self::gram_labeled) on `backend`.
    ///
    /// # Errors
    /// See above.
    pub fn gram_labeled_on<N: Label + PartialEq, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
    ) -> crate::Result<Matrix> {
        Ok(self.gram_with_gradient_on(backend, x, None, true)?.0)
    }

    /// [`gram_xy_labeled`](Self::gram_xy_labeled) on `backend`.
    ///
    /// # Errors
    /// See above.
    pub fn gram_xy_labeled_on<N: Label + PartialEq, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
    ) -> crate::Result<Matrix> {
        Ok(self.gram_with_gradient_on(backend, x, Some(y), true)?.0)
    }

    /// [`gram_with_gradient`](Self::gram_with_gradient) on `backend`: the
    /// Gram matrix and its derivative in `log λ`.
    ///
    /// # Errors
    /// See above.
    pub fn gram_with_gradient_on<N: Label + PartialEq, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        labeled: bool,
    ) -> crate::Result<(Matrix, Matrix)> {
        if !labeled {
            return self.unlabeled_on(backend, x, y, true);
        }
        let (devices, gl) = labeled_devices(backend, x, y)?;
        match devices {
            None => Ok(self.gram_with_gradient(x, y, true)?),
            Some(d) => self.device_grams(d[0], &gl.unwrap_or_else(|| GraphList::labeled(x, y))),
        }
    }

    /// Where the `_on` methods run `x` (against `y` when given; `labeled` as
    /// [`gram_with_gradient_on`](Self::gram_with_gradient_on)) on `backend`:
    /// [`Backend::Cpu`] or the device `Backend::Cuda(d)` (a device set's
    /// first device).
    ///
    /// # Errors
    /// As the `_on` methods' choice of device.
    pub fn resolved_backend<N: Label + PartialEq, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        labeled: bool,
    ) -> crate::Result<Backend> {
        let devices = if labeled { labeled_devices(backend, x, y)?.0 } else { resolve_devices_for(backend, false)? };
        Ok(backend_of(devices.as_deref().map(|d| d.get(..1).unwrap_or(d))))
    }

    /// Whether [`Backend::Auto`] runs a call on a device (when one can be
    /// used): node-labeled calls (`labeled`) where the CPU's estimated time
    /// exceeds the device's, `matched / threads ≥`
    /// [`AUTO_MATCHED_PER_THREAD`]` + node_pairs / `[`AUTO_CPU_GPU_RATIO`],
    /// with `matched = Σ_c count_c count'_c` and `node_pairs = Σ n·n'` over
    /// the call's pairs and `threads` rayon's pool of the call (the CPU
    /// iterates the matched product, the device the whole product). Unlabeled
    /// calls stay on the CPU, whose moment series needs no product graph.
    pub fn auto_uses_device(labeled: bool, matched: f64, node_pairs: f64, threads: usize) -> bool {
        labeled && matched / threads.max(1) as f64 >= AUTO_MATCHED_PER_THREAD + node_pairs / AUTO_CPU_GPU_RATIO
    }

    fn unlabeled_on<N: Label, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        grad: bool,
    ) -> crate::Result<(Matrix, Matrix)> {
        match resolve_devices_for(backend, false)? {
            None => Ok(self.unlabeled_grams(x, y, grad)?),
            Some(d) => self.device_grams(d[0], &GraphList::plain(x, y)),
        }
    }

    /// The pairs of the list (`x` its first `nx` graphs; the rest `y` when
    /// `cross`, else pairs within `x`) on device `device`, node pairs
    /// matching where their classes are equal.
    fn device_grams<N: Label, E: Label>(
        &self,
        device: usize,
        gl: &GraphList<'_, N, E>,
    ) -> crate::Result<(Matrix, Matrix)> {
        let nx = gl.nx;
        let ny = if gl.cross { gl.list.len() - nx } else { nx };
        let (pairs, sym) = pair_list(nx, gl.cross.then_some(ny));
        if pairs.is_empty() {
            return Ok((Matrix::zeros(nx, ny), Matrix::zeros(nx, ny)));
        }
        let v = self.device_pairs(device, gl, if gl.cross { nx } else { 0 }, &pairs)?;
        Ok(fill(nx, ny, &pairs, &v, sym))
    }

    #[cfg(not(feature = "cuda"))]
    fn device_pairs<N: Label, E: Label>(
        &self,
        _device: usize,
        _gl: &GraphList<'_, N, E>,
        _y0: usize,
        _pairs: &[(usize, usize)],
    ) -> crate::Result<Vec<(f64, f64)>> {
        Err(crate::Error::CudaNotCompiled)
    }
}

/// The devices of a node-labeled series call on `backend` (see
/// [`WalkSeriesKernel::auto_uses_device`]), and under [`Backend::Auto`] the
/// call's graph list that the decision built (for the device path to reuse).
#[allow(clippy::type_complexity)]
fn labeled_devices<'g, N: Label + PartialEq, E: Label>(
    backend: Backend,
    x: &'g [Graph<N, E>],
    y: Option<&'g [Graph<N, E>]>,
) -> crate::Result<(Option<Vec<usize>>, Option<GraphList<'g, N, E>>)> {
    if backend != Backend::Auto {
        return Ok((resolve_devices_for(backend, true)?, None));
    }
    let gl = GraphList::labeled(x, y);
    let (matched, node_pairs) = pair_work(&gl);
    let wins = WalkSeriesKernel::auto_uses_device(true, matched, node_pairs, rayon::current_num_threads());
    Ok((resolve_devices_for(backend, wins)?, Some(gl)))
}

/// Per graph of a device call: the scaled graph (labels dropped: the
/// product needs none), its weights' power-of-two exponent and the bound on
/// `‖W‖₁` of the tail rule.
#[cfg(feature = "cuda")]
type Prepared = (Graph<(), ()>, (i32, f64));

/// Sums a launch may hold (8 bytes each): the jobs of a call run in launches
/// of at most this many.
#[cfg(feature = "cuda")]
const LAUNCH_TERMS: usize = 1 << 24;

#[cfg(feature = "cuda")]
impl WalkSeriesKernel {
    /// `(k, λ ∂k/∂λ)` of the pairs `(a, y0 + b)` of the list on the device:
    /// the batched sums, then pair by pair what they do not cover (see the
    /// module documentation).
    fn device_pairs<N: Label, E: Label>(
        &self,
        device: usize,
        gl: &GraphList<'_, N, E>,
        y0: usize,
        pairs: &[(usize, usize)],
    ) -> crate::Result<Vec<(f64, f64)>> {
        use super::prep::rw_scale;
        use super::variants::sum_bound;
        use crate::cuda::GpuDevice;
        use crate::mgk::gpu::kron_series::{PowerSums, SeriesJobs};
        use crate::mgk::system::scale_pow2;
        use crate::mgk::MgkError;
        use rayon::prelude::*;
        let (list, classes) = (&gl.list, &gl.classes);
        let prepared: Vec<Prepared> = list
            .par_iter()
            .enumerate()
            .map(|(i, g)| {
                let (s, scale) = rw_scale(g, i)?;
                Ok((s.map_node_labels(|_| ()).map_edge_labels(|_| ()), (scale.exp, sum_bound(&s))))
            })
            .collect::<Vec<Result<_, MgkError>>>()
            .into_iter()
            .collect::<Result<_, _>>()?;
        let labeled = classes.iter().flatten().any(|&c| c != 0);
        // matched node pairs per pair: Σ_c count_c count'_c
        let counts = gl.class_counts();
        let dev = GpuDevice::open(device)?;
        let graphs: Vec<Graph<(), ()>> = prepared.iter().map(|p| p.0.clone()).collect();
        let flat: Option<Vec<i32>> = labeled.then(|| classes.iter().flatten().map(|&c| c as i32).collect());
        let engine = PowerSums::new(&dev, &graphs, flat.as_deref(), &self.tuning)?;
        let total = pairs.len();
        let mut out = vec![(0.0, 0.0); total];
        // (place in `pairs`, list indices, λ, σ, sums)
        let mut jobs: Vec<(usize, usize, usize, f64, f64, usize)> = Vec::with_capacity(total);
        let mut left = Vec::new();
        let mut memo = std::collections::HashMap::new();
        for (at, &(a, b)) in pairs.iter().enumerate() {
            let (ia, ib) = (a, y0 + b);
            let matched: u64 = counts[ia].iter().zip(&counts[ib]).map(|(p, q)| p * q).sum();
            if matched == 0 {
                continue; // no matched node pair: 0, as on the CPU
            }
            let (sa, sb) = (prepared[ia].1, prepared[ib].1);
            let lam = scale_pow2(self.lambda(), sa.0 + sb.0);
            let sigma = lam * sa.1 * sb.1;
            match self.power_terms(sigma, &mut memo) {
                Some(k) => jobs.push((at, ia, ib, lam, sigma, k)),
                None => left.push(at),
            }
        }
        let most = jobs.iter().map(|j| j.5).max().unwrap_or(1);
        let div: Vec<f64> = (0..most.saturating_sub(1)).map(|k| self.step_divisor(k)).collect();
        let mut done = 0usize;
        let mut rest = &jobs[..];
        while !rest.is_empty() {
            // a launch: jobs while their sums fit (at least one)
            let mut terms = 0usize;
            let take = rest
                .iter()
                .position(|j| {
                    terms += j.5;
                    terms > LAUNCH_TERMS
                })
                .unwrap_or(rest.len())
                .max(1);
            let (chunk, next) = rest.split_at(take);
            rest = next;
            let ids: Vec<(usize, usize)> = chunk.iter().map(|j| (j.1, j.2)).collect();
            let lams: Vec<f64> = chunk.iter().map(|j| j.3).collect();
            let nterms: Vec<usize> = chunk.iter().map(|j| j.5).collect();
            let sums = engine.sums(&SeriesJobs { jobs: &ids, lam: &lams, nterms: &nterms }, &div)?;
            let mut off = 0usize;
            for &(at, _, _, lam, sigma, k) in chunk {
                let (a, b) = pairs[at];
                match self.fold_sums(&sums[off..off + k], lam, sigma) {
                    Ok(Some(v)) => out[at] = v,
                    Ok(None) => left.push(at),
                    Err((value, detail)) => return Err(MgkError::InvalidValue { pair: (a, b), value, detail }.into()),
                }
                off += k;
            }
            done += chunk.len();
            if let Some(p) = &self.progress {
                p(done.min(total), total);
            }
        }
        if !left.is_empty() {
            left.sort_unstable();
            let rest: Vec<(usize, usize)> = left.iter().map(|&at| pairs[at]).collect();
            let v = self.pairs_one_by_one(&dev, &prepared, classes, y0, &rest)?;
            for (&at, v) in left.iter().zip(v) {
                out[at] = v;
            }
        }
        if let Some(p) = &self.progress {
            p(total, total);
        }
        Ok(out)
    }

    /// `(k, λ ∂k/∂λ)` of the pairs `(a, y0 + b)` of the prepared list on the
    /// device, pair after pair: the power series with the device Kronecker
    /// product applied once per term (one sum read back per term).
    fn pairs_one_by_one(
        &self,
        dev: &crate::cuda::GpuDevice,
        prepared: &[Prepared],
        classes: &[Vec<u32>],
        y0: usize,
        pairs: &[(usize, usize)],
    ) -> crate::Result<Vec<(f64, f64)>> {
        use super::variants::PowerFail;
        use crate::cuda::{CudaError, DeviceVec};
        use crate::kron::{DeviceKronSet, Unlabeled};
        use crate::mgk::system::scale_pow2;
        use crate::mgk::MgkError;
        use crate::solver::Vector;
        let graphs: Vec<Graph<(), ()>> = prepared.iter().map(|p| p.0.clone()).collect();
        let scales: Vec<(i32, f64)> = prepared.iter().map(|p| p.1).collect();
        // directed graphs too: the product's octiles hold the arcs as the CPU's
        let set =
            DeviceKronSet::<f64, (), Unlabeled>::upload_any(dev, &graphs, None, &Unlabeled, (true, &self.tuning))?;
        let labeled = classes.iter().flatten().any(|&c| c != 0);
        let mut out = Vec::with_capacity(pairs.len());
        for &(a, b) in pairs {
            let (ia, ib) = (a, y0 + b);
            let kron = set.pair(ia, ib)?;
            let d = kron.dim();
            let (ca, cb) = (&classes[ia], &classes[ib]);
            let mask: Vec<f64> =
                ca.iter().flat_map(|&p| cb.iter().map(move |&q| f64::from(u8::from(p == q)))).collect();
            let value = if d == 0 || !mask.contains(&1.0) {
                (0.0, 0.0) // no matched node pair: 0, as on the CPU
            } else {
                let lam = scale_pow2(self.lambda(), scales[ia].0 + scales[ib].0);
                let sigma = lam * scales[ia].1 * scales[ib].1;
                let mask = DeviceVec::from_host(dev, &mask)?;
                let ones = DeviceVec::from_host(dev, &vec![1.0f64; d])?;
                let (mut z, mut next, mut tmp) =
                    (DeviceVec::zeros(dev, d)?, DeviceVec::zeros(dev, d)?, DeviceVec::zeros(dev, d)?);
                z.copy_from(if labeled { &mask } else { &ones });
                let sum = |z: &DeviceVec<f64>| -> Result<f64, CudaError> {
                    let s = z.dot(&ones);
                    z.check().map(|()| s)
                };
                let step = |f: f64, z: &DeviceVec<f64>, next: &mut DeviceVec<f64>| -> Result<(), CudaError> {
                    if labeled {
                        tmp.fill(0.0);
                        kron.apply_add(f, z, &mut tmp)?;
                        next.mul_elems(&tmp, &mask);
                    } else {
                        next.fill(0.0);
                        kron.apply_add(f, z, next)?;
                    }
                    next.check()
                };
                match self.power_series(lam, sigma, (&mut z, &mut next), sum, step) {
                    Ok(v) => v,
                    Err(PowerFail::Series((value, detail))) => {
                        return Err(MgkError::InvalidValue { pair: (a, b), value, detail }.into())
                    }
                    Err(PowerFail::Op(e)) => return Err(e.into()),
                }
            };
            out.push(value);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::{pair_work, WalkSeriesKernel, AUTO_CPU_GPU_RATIO, AUTO_MATCHED_PER_THREAD};
    use crate::backend::{backend_of, resolve_devices, Backend};
    use crate::graph::{Direction, Graph, GraphBuilder};
    use crate::rw::prep::GraphList;

    /// A path of `n` nodes labeled `i % classes`.
    fn path(n: usize, classes: usize) -> Graph<u8, ()> {
        let mut b = GraphBuilder::<u8, ()>::new(n, Direction::Undirected)
            .node_labels((0..n).map(|i| (i % classes) as u8).collect());
        for i in 1..n {
            b.push_edge(i - 1, i, 1.0, ());
        }
        b.build().unwrap()
    }

    /// `pair_work` is `(Σ_c count_c count'_c, Σ n·n')` over the pairs the
    /// call computes (`a ≤ b` for the symmetric Gram), as an explicit
    /// double loop over the pairs and their node pairs counts them.
    #[test]
    fn pair_work_counts_the_call_s_node_pairs() {
        let x: Vec<_> = [(0, 1), (1, 1), (4, 2), (7, 3), (3, 2)].iter().map(|&(n, c)| path(n, c)).collect();
        let y: Vec<_> = [(2, 2), (5, 3)].iter().map(|&(n, c)| path(n, c)).collect();
        let brute = |a: &Graph<u8, ()>, b: &Graph<u8, ()>| {
            let (la, lb) = (a.node_labels(), b.node_labels());
            let m = la.iter().map(|p| lb.iter().filter(|q| *q == p).count()).sum::<usize>();
            (m as f64, (la.len() * lb.len()) as f64)
        };
        let add = |s: (f64, f64), t: (f64, f64)| (s.0 + t.0, s.1 + t.1);
        let mut sym = (0.0, 0.0);
        for a in 0..x.len() {
            for b in a..x.len() {
                sym = add(sym, brute(&x[a], &x[b]));
            }
        }
        let cross =
            x.iter().flat_map(|a| y.iter().map(move |b| (a, b))).fold((0.0, 0.0), |s, (a, b)| add(s, brute(a, b)));
        assert_eq!(pair_work(&GraphList::labeled(&x, None)), sym);
        assert_eq!(pair_work(&GraphList::labeled(&x, Some(&y))), cross);
        assert_eq!(pair_work(&GraphList::<u8, ()>::labeled(&[], None)), (0.0, 0.0));
    }

    /// The `Auto` rule: never for unlabeled calls (the CPU's moment series);
    /// labeled calls when `matched / threads ≥ AUTO_MATCHED_PER_THREAD +
    /// node_pairs / AUTO_CPU_GPU_RATIO`. On the measured calls (16 threads,
    /// docs/PERFORMANCE.md): MUTAG's whole Gram and its first 48 graphs go
    /// to the device, its first 24 do not, NWS96L (11 % of the node pairs
    /// match) stays on the CPU; with 4 threads NWS96L's first 16 graphs go.
    #[test]
    fn auto_uses_the_device_where_it_measured_faster() {
        let (t, r) = (AUTO_MATCHED_PER_THREAD, AUTO_CPU_GPU_RATIO);
        for threads in [1, 2, 16, 128] {
            let n = 1e6;
            let edge = (t + n / r) * threads as f64;
            assert!(WalkSeriesKernel::auto_uses_device(true, edge, n, threads));
            assert!(!WalkSeriesKernel::auto_uses_device(true, edge * (1.0 - 1e-9), n, threads));
            assert!(!WalkSeriesKernel::auto_uses_device(false, edge * 1e6, n, threads));
        }
        // a pool of 0 threads counts as one
        let one = (t + 1.0 / r) * 1.0;
        assert_eq!(
            WalkSeriesKernel::auto_uses_device(true, one, 1.0, 0),
            WalkSeriesKernel::auto_uses_device(true, one, 1.0, 1)
        );
        // (matched, node pairs) of the measured calls, from pair_work on the data sets
        let uses = |m: f64, n: f64, threads| WalkSeriesKernel::auto_uses_device(true, m, n, threads);
        assert!(uses(3_122_301.0, 5_714_011.0, 16)); // MUTAG, 188 graphs
        assert!(uses(215_927.0, 370_943.0, 16)); // MUTAG, 48
        assert!(!uses(55_206.0, 93_436.0, 16)); // MUTAG, 24
        assert!(!uses(842_495.0, 7_557_120.0, 16)); // NWS96L, 40
        assert!(!uses(140_218.0, 1_253_376.0, 16)); // NWS96L, 16
        assert!(uses(140_218.0, 1_253_376.0, 4)); // NWS96L, 16, 4 threads
        assert!(uses(842_495.0, 7_557_120.0, 4)); // NWS96L, 40, 4 threads
        assert!(!uses(37_600.0, 331_776.0, 4)); // NWS96L, 8, 4 threads
    }

    /// `resolved_backend` follows the rule (in a pool of 4 threads): the CPU
    /// for unlabeled and small labeled calls under `Auto` (device or not),
    /// the plain backend rule for a large labeled call and for explicit
    /// backends.
    #[test]
    fn resolved_backend_follows_the_rule() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        pool.install(|| {
            let k = WalkSeriesKernel::exponential(0.2).unwrap();
            let small: Vec<_> = (0..3).map(|i| path(3 + i, 1)).collect();
            // one graph, one label: matched = node pairs = n²
            let big = vec![path(400, 1)];
            let (m, n) = pair_work(&GraphList::labeled(&big, None));
            assert!(WalkSeriesKernel::auto_uses_device(true, m, n, 4));
            for labeled in [false, true] {
                assert_eq!(k.resolved_backend(Backend::Auto, &small, None, labeled).unwrap(), Backend::Cpu);
                assert_eq!(k.resolved_backend(Backend::Cpu, &big, None, labeled).unwrap(), Backend::Cpu);
            }
            assert_eq!(k.resolved_backend(Backend::Auto, &big, None, false).unwrap(), Backend::Cpu);
            let plain = backend_of(resolve_devices(Backend::Auto).unwrap().as_deref().map(|d| &d[..1]));
            assert_eq!(k.resolved_backend(Backend::Auto, &big, None, true).unwrap(), plain);
            assert!(k.resolved_backend(Backend::Cuda(63), &small, None, false).is_err());
        });
    }
}
