//! The marginalized graph kernel on a backend chosen per call: the CPU
//! solver of this module or the batched CUDA kernel of [`crate::cuda`].

use super::{MarginalizedGraphKernel, Matrix, Precision};
use crate::basekernel::BaseKernel;
use crate::cuda::{self, Backend, GpuGram, GpuLabel, MgkParams};
use crate::graph::reorder::Method;
use crate::graph::Graph;

impl<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>> MarginalizedGraphKernel<N, E, KV, KE> {
    /// [`gram`](Self::gram) on `backend`: `Backend::Cpu` solves here,
    /// `Backend::Cuda(d)` on CUDA device `d` (an error when there is none),
    /// `Backend::Auto` on device 0 when one can be used, else here (with one
    /// log line saying why).
    ///
    /// On the GPU the graphs are reordered by this kernel's
    /// [`reorder`](Self::reorder) method, PBR when none is set; start
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
                Ok(Matrix { rows: out.rows, cols: out.cols, data: out.values })
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
                Ok(Matrix { rows: out.rows, cols: out.cols, data: out.values })
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
                Ok(gpu.diag(&gpu.upload(&self.with_starts(x)?)?)?.values)
            }
        }
    }

    /// The GPU form of this kernel on device `device`.
    fn gpu(&self, device: usize) -> crate::Result<GpuGram<N, E, KV, KE>> {
        let params = MgkParams {
            q: self.q(),
            lmin: self.lmin(),
            tol: Some(self.tolerance()),
            max_iter: u32::try_from(self.max_iters()).unwrap_or(u32::MAX),
            precision: match self.precision() {
                Precision::F32 => cuda::Precision::F32,
                Precision::F64 => cuda::Precision::F64,
            },
            reorder: self.reorder().unwrap_or(Method::Pbr),
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
