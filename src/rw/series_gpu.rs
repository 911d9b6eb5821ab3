//! [`WalkSeriesKernel`] on a backend chosen per call: the CPU computes as
//! the plain methods do; on a CUDA device every pair (plain or node-labeled,
//! directed or not) runs the CPU's power series
//! ([`WalkSeriesKernel::power_series`]: the same terms, truncation rule and
//! errors) with the product applied by the device Kronecker product
//! ([`DeviceKron`](crate::kron::DeviceKron), the marginalized graph
//! kernel's generated `_xmv` over octiles, κe ≡ 1) on device vectors in
//! `f64`; the labeled kernel multiplies each product by the 0/1 mask of the
//! equal-label node pairs (`L W× L`, as the CPU's compact
//! [`MatchedKron`](crate::kron::MatchedKron)). The graphs are uploaded once
//! per call, with their weights scaled by `2^−e` and λ by `2^(e + e')` as on
//! the CPU; the pairs run one after another (one sum per term read back for
//! the stopping rule), not batched. Being per pair, it is far slower than
//! the CPU on small graphs (docs/PYTHON.md), so [`Backend::Auto`] runs these
//! kinds on the CPU; a device is used only when named (`cuda:N`).

use super::pairs::{fill, pair_list};
use super::prep::node_classes;
use super::WalkSeriesKernel;
use crate::backend::{backend_of, resolve_devices, Backend};
use crate::graph::{Graph, Label};
use crate::mgk::Matrix;

/// The `_on` methods: [`Backend::Cpu`] and [`Backend::Auto`] compute as the
/// plain methods; `cuda:N` (or a device set's first device) as the module
/// documentation says. The results equal the
/// CPU's to rounding (relative `1e-12` in the tests: the sums are the same
/// terms in another order, and the unlabeled CPU kernel sums the moment
/// series `Σ_k c_k λ^k m_k m'_k` of the same terms).
///
/// # Errors (every `_on` method)
/// The CPU methods' errors; [`crate::Error::Cuda`] (or
/// [`crate::Error::CudaNotCompiled`]) from the GPU, such as a graph of more
/// nodes than the device product takes.
/// The devices the series kinds use on `backend`: none for [`Backend::Auto`]
/// (the per-pair device path is slower than the CPU), else the backend rule's.
fn series_devices(backend: Backend) -> crate::Result<Option<Vec<usize>>> {
    match backend {
        Backend::Auto => Ok(None),
        b => Ok(resolve_devices(b)?),
    }
}

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
        match series_devices(backend)? {
            None => Ok(self.gram_with_gradient(x, y, true)?),
            Some(d) => {
                let list: Vec<&Graph<N, E>> = x.iter().chain(y.unwrap_or_default()).collect();
                let classes = node_classes(list.iter().copied());
                self.device_grams(d[0], &list, x.len(), y.is_some(), &classes)
            }
        }
    }

    /// Where the `_on` methods run on `backend`: [`Backend::Cpu`] or the
    /// device `Backend::Cuda(d)` (a device set's first device).
    ///
    /// # Errors
    /// As the `_on` methods' choice of device.
    pub fn resolved_backend(&self, backend: Backend) -> crate::Result<Backend> {
        Ok(backend_of(series_devices(backend)?.as_deref().map(|d| d.get(..1).unwrap_or(d))))
    }

    fn unlabeled_on<N: Label, E: Label>(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        grad: bool,
    ) -> crate::Result<(Matrix, Matrix)> {
        match series_devices(backend)? {
            None => Ok(self.unlabeled_grams(x, y, grad)?),
            Some(d) => {
                let list: Vec<&Graph<N, E>> = x.iter().chain(y.unwrap_or_default()).collect();
                let classes: Vec<Vec<u32>> = list.iter().map(|g| vec![0; g.num_nodes()]).collect();
                self.device_grams(d[0], &list, x.len(), y.is_some(), &classes)
            }
        }
    }

    /// The pairs of the list `list` (`x` its first `nx` graphs; the rest
    /// `y` when `cross`, else pairs within `x`) on device `device`, node
    /// pairs matching where their `classes` are equal.
    fn device_grams<N: Label, E: Label>(
        &self,
        device: usize,
        list: &[&Graph<N, E>],
        nx: usize,
        cross: bool,
        classes: &[Vec<u32>],
    ) -> crate::Result<(Matrix, Matrix)> {
        let ny = if cross { list.len() - nx } else { nx };
        let (pairs, sym) = pair_list(nx, cross.then_some(ny));
        if pairs.is_empty() {
            return Ok((Matrix::zeros(nx, ny), Matrix::zeros(nx, ny)));
        }
        let v = self.device_pairs(device, list, if cross { nx } else { 0 }, classes, &pairs)?;
        Ok(fill(nx, ny, &pairs, &v, sym))
    }

    #[cfg(not(feature = "cuda"))]
    fn device_pairs<N: Label, E: Label>(
        &self,
        _device: usize,
        _list: &[&Graph<N, E>],
        _y0: usize,
        _classes: &[Vec<u32>],
        _pairs: &[(usize, usize)],
    ) -> crate::Result<Vec<(f64, f64)>> {
        Err(crate::Error::CudaNotCompiled)
    }

    /// `(k, λ ∂k/∂λ)` of the pairs `(a, y0 + b)` of `list` on the device.
    #[cfg(feature = "cuda")]
    fn device_pairs<N: Label, E: Label>(
        &self,
        device: usize,
        list: &[&Graph<N, E>],
        y0: usize,
        classes: &[Vec<u32>],
        pairs: &[(usize, usize)],
    ) -> crate::Result<Vec<(f64, f64)>> {
        use super::prep::rw_scale;
        use super::variants::{sum_bound, PowerFail};
        use crate::cuda::{CudaError, DeviceVec, GpuDevice};
        use crate::kron::{DeviceKronSet, Unlabeled};
        use crate::mgk::system::scale_pow2;
        use crate::mgk::MgkError;
        use crate::solver::Vector;
        use rayon::prelude::*;
        // the scaled graphs with their classes as node labels (the device product needs no
        // labels: κe ≡ 1), the exponents and the bounds on ‖W‖₁ of the tail rule
        let prepared: Vec<(Graph<(), ()>, (i32, f64))> = list
            .par_iter()
            .enumerate()
            .map(|(i, g)| {
                let (s, scale) = rw_scale(g, i)?;
                Ok((s.map_node_labels(|_| ()).map_edge_labels(|_| ()), (scale.exp, sum_bound(&s))))
            })
            .collect::<Vec<Result<_, MgkError>>>()
            .into_iter()
            .collect::<Result<_, _>>()?;
        let (graphs, scales): (Vec<_>, Vec<_>) = prepared.into_iter().unzip();
        let dev = GpuDevice::open(device)?;
        // directed graphs too: the product's octiles hold the arcs as the CPU's
        let set = DeviceKronSet::<f64, (), Unlabeled>::upload_any(&dev, &graphs, None, &Unlabeled, true)?;
        let labeled = classes.iter().flatten().any(|&c| c != 0);
        let total = pairs.len();
        let mut out = Vec::with_capacity(total);
        for (done, &(a, b)) in pairs.iter().enumerate() {
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
                let mask = DeviceVec::from_host(&dev, &mask)?;
                let ones = DeviceVec::from_host(&dev, &vec![1.0f64; d])?;
                let (mut z, mut next, mut tmp) =
                    (DeviceVec::zeros(&dev, d)?, DeviceVec::zeros(&dev, d)?, DeviceVec::zeros(&dev, d)?);
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
            if let Some(p) = &self.progress {
                p(done + 1, total);
            }
        }
        Ok(out)
    }
}
