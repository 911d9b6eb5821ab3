//! The marginalized graph kernel on a backend chosen per call: the CPU
//! solver of this module or the batched CUDA kernel of [`crate::cuda`].

use super::kernel::{check_values, normalize_square_with_gradient, normalize_with_gradient};
use super::{Gradient, MarginalizedGraphKernel, Matrix, Precision};
use crate::basekernel::BaseKernel;
use crate::cuda::{self, Backend, GpuGram, GpuLabel, GramGradient, MgkParams};
use crate::graph::reorder::Method;
use crate::graph::Graph;

impl<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>> MarginalizedGraphKernel<N, E, KV, KE> {
    /// [`gram`](Self::gram) on `backend`: `Backend::Cpu` solves here,
    /// `Backend::Cuda(d)` on CUDA device `d` (an error when there is none),
    /// `Backend::Auto` on device 0 when one can be used, else here (with one
    /// log line saying why).
    ///
    /// On the GPU the graphs are reordered by this kernel's
    /// [`reorder`](Self::reorder) method (none when none is set); start
    /// probabilities, `q`, `lmin`, the precision, the tolerance and the
    /// iteration limit are this kernel's. The values agree with the CPU's to
    /// the solver tolerance (about 1e-5 relative in `f32`, 1e-10 in `f64`).
    ///
    /// # Errors
    /// [`crate::Error::Mgk`] from the CPU solver; [`crate::Error::Cuda`]
    /// (or [`crate::Error::CudaNotCompiled`]) from the GPU.
    pub fn gram_on(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<Matrix> {
        match cuda::resolve_backend(backend)? {
            None => Ok(self.gram(x)?),
            Some(device) => {
                let gpu = self.gpu(device)?;
                let out = gpu.gram(&gpu.upload(&self.with_starts(x)?)?)?;
                self.checked(Matrix { rows: out.rows, cols: out.cols, data: out.values })
            }
        }
    }

    /// [`gram_xy`](Self::gram_xy) on `backend` (see [`gram_on`](Self::gram_on)).
    ///
    /// # Errors
    /// As [`gram_on`](Self::gram_on).
    pub fn gram_xy_on(&self, backend: Backend, x: &[Graph<N, E>], y: &[Graph<N, E>]) -> crate::Result<Matrix> {
        match cuda::resolve_backend(backend)? {
            None => Ok(self.gram_xy(x, y)?),
            Some(device) => {
                let gpu = self.gpu(device)?;
                let (gx, gy) = (gpu.upload(&self.with_starts(x)?)?, gpu.upload(&self.with_starts(y)?)?);
                let out = gpu.gram_xy(&gx, &gy)?;
                self.checked(Matrix { rows: out.rows, cols: out.cols, data: out.values })
            }
        }
    }

    /// [`diag`](Self::diag) on `backend` (see [`gram_on`](Self::gram_on)).
    ///
    /// # Errors
    /// As [`gram_on`](Self::gram_on).
    pub fn diag_on(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<Vec<f64>> {
        match cuda::resolve_backend(backend)? {
            None => Ok(self.diag(x)?),
            Some(device) => {
                let gpu = self.gpu(device)?;
                let out = gpu.diag(&gpu.upload(&self.with_starts(x)?)?)?;
                let n = out.values.len();
                Ok(self.checked(Matrix { rows: 1, cols: n, data: out.values })?.data)
            }
        }
    }

    /// [`gram_with_gradient`](Self::gram_with_gradient) on `backend` (see
    /// [`gram_on`](Self::gram_on)). On the GPU: one batched launch, two
    /// solves per pair, the base kernels' gradients by forward-mode
    /// differentiation of their CUDA forms; every pair must fit the batched
    /// kernel's shared memory.
    ///
    /// # Errors
    /// As [`gram_on`](Self::gram_on); [`cuda::CudaError::PairTooLarge`] for a
    /// pair too large for the batched kernel.
    pub fn gram_with_gradient_on(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        normalized: bool,
    ) -> crate::Result<(Matrix, Gradient)> {
        match cuda::resolve_backend(backend)? {
            None => Ok(self.gram_with_gradient(x, normalized)?),
            Some(device) => {
                let gpu = self.gpu(device)?;
                let (mut k, mut g) = self.active_gradient(gpu.gram_with_gradient(&gpu.upload(&self.with_starts(x)?)?)?);
                if normalized {
                    normalize_square_with_gradient(&mut k, &mut g)?;
                }
                Ok((k, g))
            }
        }
    }

    /// [`gram_xy_with_gradient`](Self::gram_xy_with_gradient) on `backend`
    /// (see [`gram_with_gradient_on`](Self::gram_with_gradient_on)).
    ///
    /// # Errors
    /// As [`gram_with_gradient_on`](Self::gram_with_gradient_on).
    pub fn gram_xy_with_gradient_on(
        &self,
        backend: Backend,
        x: &[Graph<N, E>],
        y: &[Graph<N, E>],
        normalized: bool,
    ) -> crate::Result<(Matrix, Gradient)> {
        match cuda::resolve_backend(backend)? {
            None => Ok(self.gram_xy_with_gradient(x, y, normalized)?),
            Some(device) => {
                let gpu = self.gpu(device)?;
                let (gx, gy) = (gpu.upload(&self.with_starts(x)?)?, gpu.upload(&self.with_starts(y)?)?);
                let (mut k, mut g) = self.active_gradient(gpu.gram_xy_with_gradient(&gx, &gy)?);
                if normalized {
                    let (dx, gdx) = self.active_gradient(gpu.diag_with_gradient(&gx)?);
                    let (dy, gdy) = self.active_gradient(gpu.diag_with_gradient(&gy)?);
                    normalize_with_gradient(&mut k, &mut g, (&dx.data, &gdx.data), (&dy.data, &gdy.data))?;
                }
                Ok((k, g))
            }
        }
    }

    /// [`diag_with_gradient`](Self::diag_with_gradient) on `backend` (see
    /// [`gram_with_gradient_on`](Self::gram_with_gradient_on)).
    ///
    /// # Errors
    /// As [`gram_with_gradient_on`](Self::gram_with_gradient_on).
    pub fn diag_with_gradient_on(&self, backend: Backend, x: &[Graph<N, E>]) -> crate::Result<(Vec<f64>, Vec<f64>)> {
        match cuda::resolve_backend(backend)? {
            None => Ok(self.diag_with_gradient(x)?),
            Some(device) => {
                let gpu = self.gpu(device)?;
                let (d, g) = self.active_gradient(gpu.diag_with_gradient(&gpu.upload(&self.with_starts(x)?)?)?);
                Ok((d.data, g.data))
            }
        }
    }

    /// The GPU's values and gradient (every slot) as this kernel's: the
    /// active hyperparameters only, named as
    /// [`hyperparameters`](Self::hyperparameters) names them.
    fn active_gradient(&self, out: GramGradient) -> (Matrix, Gradient) {
        let hs = self.hyperparameters();
        let active: Vec<usize> = (0..hs.len()).filter(|&t| hs[t].is_active()).collect();
        let k = out.names.len();
        let data = out.gradient.chunks(k.max(1)).flat_map(|cell| active.iter().map(move |&t| cell[t])).collect();
        let names = active.iter().map(|&t| hs[t].name.clone()).collect();
        let (rows, cols) = (out.gram.rows, out.gram.cols);
        (Matrix { rows, cols, data: out.gram.values }, Gradient { rows, cols, names, data })
    }

    /// Kernel values computed on the GPU, checked by [`check_values`]
    /// (a `1 × n` matrix holds a diagonal).
    fn checked(&self, mut k: Matrix) -> crate::Result<Matrix> {
        let diagonal = k.rows == 1;
        check_values(&mut k.data, if diagonal { None } else { Some(k.cols) }, self.tolerance())?;
        Ok(k)
    }

    /// The GPU form of this kernel on device `device`.
    fn gpu(&self, device: usize) -> crate::Result<GpuGram<N, E, KV, KE>> {
        self.check_tolerance()?;
        let params = MgkParams {
            q: self.q(),
            lmin: self.lmin(),
            tol: Some(self.tolerance()),
            max_iter: u32::try_from(self.max_iters()).unwrap_or(u32::MAX),
            precision: match self.precision() {
                Precision::F32 => cuda::Precision::F32,
                Precision::F64 => cuda::Precision::F64,
            },
            reorder: self.reorder().unwrap_or(Method::Natural),
            xmv: cuda::XmvScheme::Rows,
        };
        Ok(GpuGram::new(device, self.node_kernel().clone(), self.edge_kernel().clone(), params)?)
    }

    /// The graphs with this kernel's start probabilities attached (the GPU
    /// reads them from the graphs).
    fn with_starts(&self, x: &[Graph<N, E>]) -> crate::Result<Vec<Graph<N, E>>> {
        x.iter()
            .enumerate()
            .map(|(i, g)| Ok(g.clone().with_start_probabilities(self.start_probabilities(g, i)?)?))
            .collect()
    }
}
