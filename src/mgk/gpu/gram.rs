//! [`GpuGram`]: Gram matrices of the marginalized graph kernel on a GPU
//! (construction, the public calls, nodal similarities).

use super::output::{GramOutput, NodalOutput};
use super::upload::GpuGraphs;
use crate::basekernel::BaseKernel;
use crate::cuda::device::{device, Device};
use crate::cuda::label::{GpuLabel, LabelLayout};
use crate::cuda::{CudaError, DeviceInfo};
use crate::graph::Graph;
use crate::mgk::system::{cross_pairs, diagonal_pairs, upper_pairs};
use crate::mgk::{GpuGramParams, MgkConfig};
use cudarc::driver::CudaSlice;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// The marginalized graph kernel on a CUDA device: node kernel `KN` on node
/// labels `N`, edge kernel `KE` on edge labels `E`.
///
/// The kernels' CUDA forms are compiled once per distinct source (cached in
/// memory and on disk); their hyperparameters go to the device with each
/// call, so [`kernels_mut`](Self::kernels_mut) followed by another call does
/// not recompile.
pub struct GpuGram<N, E, KN, KE> {
    pub(super) dev: Arc<Device>,
    pub(super) node_kernel: KN,
    pub(super) edge_kernel: KE,
    pub(super) params: MgkConfig,
    pub(super) scratch: Mutex<Option<CudaSlice<u8>>>,
    /// The caller checked every node-kernel value its pairs use
    /// ([`check_node_kernel_values`](crate::mgk::node_values::check_node_kernel_values)):
    /// a node kernel declared within `[−1, 1]` is then accepted, as on the CPU.
    pub(super) values_checked: bool,
    _labels: PhantomData<fn(&N, &E)>,
}

/// Waits for the background compiles ([`jit::wait_background`](crate::cuda::jit::wait_background)):
/// at most about one full compile (0.5 s on a cold cache), so that no NVRTC
/// thread outlives the kernel at process exit and the full image reaches the
/// disk cache for the next process. A program that ends with
/// `std::process::exit` while a `GpuGram` is alive must call
/// `jit::wait_background()` first.
impl<N, E, KN, KE> Drop for GpuGram<N, E, KN, KE> {
    fn drop(&mut self) {
        crate::cuda::jit::wait_background();
    }
}

impl<N, E, KN, KE> std::fmt::Debug for GpuGram<N, E, KN, KE> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuGram").field("device", &self.dev.info).field("params", &self.params).finish()
    }
}

impl<N, E, KN, KE> GpuGram<N, E, KN, KE>
where
    N: GpuLabel,
    E: GpuLabel,
    KN: BaseKernel<N>,
    KE: BaseKernel<E>,
{
    /// The kernel on device `ordinal`.
    ///
    /// # Errors
    /// [`CudaError::InvalidParameter`] for bad `params`;
    /// [`CudaError::KernelRange`] when κv is not within (0, 1] or κe not
    /// within [0, 1] (the system would not be positive definite);
    /// device errors from opening the device.
    pub fn new(ordinal: usize, node_kernel: KN, edge_kernel: KE, params: MgkConfig) -> Result<Self, CudaError> {
        Self::with_check(ordinal, node_kernel, edge_kernel, params, false)
    }

    /// [`new`](Self::new) for pairs whose node-kernel values the caller
    /// checked on the data (`values_checked`:
    /// [`check_node_kernel_values`](crate::mgk::node_values::check_node_kernel_values),
    /// as `MarginalizedGraphKernel`'s methods do for every backend): a node
    /// kernel declared within `[−1, 1]` is then accepted, as on the CPU.
    pub(crate) fn with_check(
        ordinal: usize,
        node_kernel: KN,
        edge_kernel: KE,
        params: MgkConfig,
        values_checked: bool,
    ) -> Result<Self, CudaError> {
        params.validate().map_err(|e| CudaError::InvalidParameter(e.to_string()))?;
        check_ranges(&node_kernel, &edge_kernel, values_checked)?;
        // NVRTC's start-up overlaps opening the device; without a device no
        // GpuGram will wait for it at drop, so wait here (a thread still in
        // NVRTC at process exit crashes the process)
        crate::cuda::jit::warm_up();
        let dev = device(ordinal).inspect_err(|_| crate::cuda::jit::wait_background())?;
        Ok(GpuGram {
            dev,
            node_kernel,
            edge_kernel,
            params,
            scratch: Mutex::new(None),
            values_checked,
            _labels: PhantomData,
        })
    }

    /// The device.
    pub fn device(&self) -> &DeviceInfo {
        self.dev.info()
    }

    /// The parameters.
    pub fn params(&self) -> &MgkConfig {
        &self.params
    }

    /// Which path each pair takes and the kernels' tuning
    /// ([`MgkConfig::gpu`], set by [`new`](Self::new)'s `params`).
    pub fn gram_params(&self) -> &GpuGramParams {
        &self.params.gpu
    }

    /// Changes which path each pair takes, e.g.
    /// `gpu.gram_params_mut().large_pair_path = true` (the values do not
    /// depend on it); the field [`MgkConfig::gpu`] of this `GpuGram`'s
    /// parameters. A changed [`Tuning`](crate::mgk::Tuning) compiles its own
    /// kernels (their sources differ).
    pub fn gram_params_mut(&mut self) -> &mut GpuGramParams {
        &mut self.params.gpu
    }

    /// The nodal similarity of one pair on the GPU: the `n × n′` row-major
    /// matrix `K_ii′ = p_i p′_i′ r_ii′ − lmin p_i p′_i′ κv(v_i, v′_i′)` in the
    /// graphs' own node order (the reordering applied at upload is undone),
    /// as `MarginalizedGraphKernel::nodal` on the CPU. Solved by the batched
    /// kernel (or the single-large-pair path when the pair does not fit in
    /// shared memory). Cost: one PCG solve, O(n n′) read back.
    ///
    /// # Errors
    /// As [`upload`](Self::upload) and [`gram_xy`](Self::gram_xy).
    pub fn nodal(&self, g: &Graph<N, E>, h: &Graph<N, E>) -> Result<NodalOutput, CudaError> {
        let graphs = [g.clone(), h.clone()];
        self.nodal_pairs(&graphs, &[(0, 1)]).map(|mut v| v.remove(0))
    }

    /// The nodal similarity of every pair `i ≤ j` of a (small) set, in the
    /// order (0,0), (0,1), …, (0,m−1), (1,1), …; see [`nodal`](Self::nodal).
    /// Cost: m(m+1)/2 solves in one batched launch; Σ n n′ values read back.
    ///
    /// # Errors
    /// As [`nodal`](Self::nodal).
    pub fn nodal_all(&self, graphs: &[Graph<N, E>]) -> Result<Vec<NodalOutput>, CudaError> {
        self.nodal_pairs(graphs, &upper_pairs(graphs.len()))
    }

    pub(crate) fn nodal_pairs(
        &self,
        graphs: &[Graph<N, E>],
        pairs: &[(usize, usize)],
    ) -> Result<Vec<NodalOutput>, CudaError> {
        use crate::graph::reorder::reorder;
        check_ranges(&self.node_kernel, &self.edge_kernel, self.values_checked)?;
        let (reordered, perms): (Vec<_>, Vec<_>) = graphs.iter().map(|g| reorder(g, self.params.reorder)).unzip();
        let up = self.upload_packed(&self.pack(&reordered)?)?;
        let mut r = self.run(&up, &up, pairs, true)?;
        let nodal = r.nodal.take().expect("nodal output requested");
        let mut out = Vec::with_capacity(pairs.len());
        for (k, (&(i, j), y)) in pairs.iter().zip(nodal).enumerate() {
            let values = perms[i]
                .apply_inverse_pairs(&perms[j], &y)
                .map_err(|e| CudaError::InvalidParameter(format!("nodal output of pair ({i}, {j}): {e}")))?;
            out.push(NodalOutput {
                rows: graphs[i].num_nodes(),
                cols: graphs[j].num_nodes(),
                values,
                value: r.values[k],
                iterations: r.iterations[k],
            });
        }
        Ok(out)
    }

    /// The node and edge kernels, to change hyperparameters between calls.
    pub fn kernels_mut(&mut self) -> (&mut KN, &mut KE) {
        (&mut self.node_kernel, &mut self.edge_kernel)
    }

    /// The Gram matrix K(G_i, G_j) of one batch (symmetric, `len × len`).
    ///
    /// # Errors
    /// See [`gram_xy`](Self::gram_xy).
    pub fn gram(&self, g: &GpuGraphs) -> Result<GramOutput, CudaError> {
        let m = g.len();
        let jobs = upper_pairs(m);
        let r = self.run(g, g, &jobs, false)?;
        let mut values = vec![f64::NAN; m * m];
        let mut iterations = vec![0; m * m];
        for (k, &(i, j)) in jobs.iter().enumerate() {
            values[i * m + j] = r.values[k];
            values[j * m + i] = r.values[k];
            iterations[i * m + j] = r.iterations[k];
            iterations[j * m + i] = r.iterations[k];
        }
        Ok(GramOutput { values, rows: m, cols: m, iterations, xmv_products: r.work, kernel: r.kernel })
    }

    /// The cross Gram matrix K(X_i, Y_j) (`x.len() × y.len()`).
    ///
    /// # Errors
    /// [`CudaError::Mismatch`] when the batches were uploaded for another
    /// precision, label layout or device; [`CudaError::PairTooLarge`] when
    /// a pair has more than 2³¹ − 1 product nodes (pairs that do not fit in
    /// shared memory go to the single-large-pair path); [`CudaError::Compile`] /
    /// [`CudaError::Driver`] from compiling and running.
    pub fn gram_xy(&self, x: &GpuGraphs, y: &GpuGraphs) -> Result<GramOutput, CudaError> {
        let (m, n) = (x.len(), y.len());
        let jobs = cross_pairs(m, n);
        let r = self.run(x, y, &jobs, false)?;
        Ok(GramOutput {
            values: r.values,
            rows: m,
            cols: n,
            iterations: r.iterations,
            xmv_products: r.work,
            kernel: r.kernel,
        })
    }

    /// The diagonal K(G_i, G_i) (`1 × len`).
    ///
    /// # Errors
    /// See [`gram_xy`](Self::gram_xy).
    pub fn diag(&self, g: &GpuGraphs) -> Result<GramOutput, CudaError> {
        let r = self.run(g, g, &diagonal_pairs(g.len()), false)?;
        Ok(GramOutput {
            values: r.values,
            rows: 1,
            cols: g.len(),
            iterations: r.iterations,
            xmv_products: r.work,
            kernel: r.kernel,
        })
    }

    pub(super) fn check_batch(&self, g: &GpuGraphs, layouts: (&LabelLayout, &LabelLayout)) -> Result<(), CudaError> {
        let expected = format!("{:?} on device {}", self.params.precision, self.dev.info.ordinal);
        if g.precision != self.params.precision || !Arc::ptr_eq(&g.dev, &self.dev) {
            return Err(CudaError::Mismatch {
                uploaded: format!("{:?} on device {}", g.precision, g.dev.info.ordinal),
                expected,
            });
        }
        if (&g.node_layout, &g.edge_layout) != layouts {
            return Err(CudaError::Mismatch {
                uploaded: format!("labels {:?} / {:?}", g.node_layout, g.edge_layout),
                expected: format!("labels {:?} / {:?}", layouts.0, layouts.1),
            });
        }
        Ok(())
    }
}

/// The base kernels' declared ranges as a [`CudaError::KernelRange`]:
/// [`check_ranges_static`](crate::mgk::system::check_ranges_static) (the
/// GPU does not check each node-kernel value), or with `values_checked` (the
/// caller checked them on the data,
/// [`check_node_kernel_values`](crate::mgk::node_values::check_node_kernel_values))
/// [`check_ranges`](crate::mgk::system::check_ranges), as the CPU.
pub(super) fn check_ranges<N, E, KN: BaseKernel<N>, KE: BaseKernel<E>>(
    kn: &KN,
    ke: &KE,
    values_checked: bool,
) -> Result<(), CudaError> {
    let checked = if values_checked {
        crate::mgk::system::check_ranges(kn, ke)
    } else {
        crate::mgk::system::check_ranges_static(kn, ke)
    };
    checked.map_err(|e| {
        let (lo, hi) = kn.range();
        let advice = if (-1.0..0.0).contains(&lo) && hi <= 1.0 && hi > 0.0 {
            " (a node kernel with values in [-1, 1], such as a normalized dot product, is accepted where each value \
             is checked on the data: use MarginalizedGraphKernel's methods on any backend, which check them)"
        } else {
            ""
        };
        CudaError::KernelRange(format!("{e}{advice}"))
    })
}
