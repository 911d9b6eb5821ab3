//! The CUDA backend of the marginalized graph kernel, as a [`PairEngine`]:
//! the graphs (with this kernel's start probabilities) are reordered,
//! packed into octiles and uploaded, and the pairs solved by the batched
//! device kernels of [`crate::cuda::GpuGram`].
//!
//! Without the `cuda` feature, [`Gpu`] is an uninhabited type that
//! implements the same trait: the compiler keeps the two builds in step.

use super::engine::{PairEngine, PairOut, Want};
use super::{MarginalizedGraphKernel, MgkError};
use crate::basekernel::BaseKernel;
use crate::cuda::GpuLabel;
use crate::graph::Graph;

#[cfg(feature = "cuda")]
pub(crate) use self::imp::Gpu;

/// Without `cuda`: no value of this type exists.
#[cfg(not(feature = "cuda"))]
#[derive(Clone, Copy, Debug)]
pub(crate) enum Gpu {}

#[cfg(not(feature = "cuda"))]
impl Gpu {
    /// Always [`CudaError::NotCompiled`](crate::cuda::CudaError::NotCompiled).
    pub(crate) fn new(_device: usize) -> Result<Self, MgkError> {
        Err(crate::cuda::CudaError::NotCompiled.into())
    }
}

#[cfg(not(feature = "cuda"))]
impl<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>> PairEngine<N, E, KV, KE> for Gpu {
    fn solve_pairs(
        &self,
        _: &MarginalizedGraphKernel<N, E, KV, KE>,
        _: &[Graph<N, E>],
        _: Option<&[Graph<N, E>]>,
        _: &[(usize, usize)],
        _: Want,
    ) -> Result<Vec<PairOut>, MgkError> {
        match *self {}
    }
}

#[cfg(feature = "cuda")]
mod imp {
    use super::*;
    use crate::cuda::GpuGram;

    /// The engine of CUDA device `device`.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Gpu {
        device: usize,
    }

    impl Gpu {
        /// The engine of device `device` (opened on first use).
        pub(crate) fn new(device: usize) -> Result<Self, MgkError> {
            Ok(Gpu { device })
        }
    }

    /// The graphs with `kernel`'s start probabilities attached (the GPU reads
    /// them from the graphs).
    fn with_starts<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>>(
        kernel: &MarginalizedGraphKernel<N, E, KV, KE>,
        x: &[Graph<N, E>],
    ) -> Result<Vec<Graph<N, E>>, MgkError> {
        x.iter()
            .enumerate()
            .map(|(i, g)| {
                let p = kernel.start_probabilities(g, i)?;
                g.clone().with_start_probabilities(p).map_err(|e| MgkError::InvalidParameter(format!("graph {i}: {e}")))
            })
            .collect()
    }

    impl<N: GpuLabel, E: GpuLabel, KV: BaseKernel<N>, KE: BaseKernel<E>> PairEngine<N, E, KV, KE> for Gpu {
        fn solve_pairs(
            &self,
            k: &MarginalizedGraphKernel<N, E, KV, KE>,
            x: &[Graph<N, E>],
            y: Option<&[Graph<N, E>]>,
            pairs: &[(usize, usize)],
            want: Want,
        ) -> Result<Vec<PairOut>, MgkError> {
            let gpu = GpuGram::new(self.device, k.node_kernel().clone(), k.edge_kernel().clone(), *k.config())?;
            let xs = with_starts(k, x)?;
            let ys = y.map(|y| with_starts(k, y)).transpose()?;
            if want.nodal {
                // one list, pairs across it
                let off = xs.len();
                let jobs: Vec<(usize, usize)> = match ys {
                    Some(_) => pairs.iter().map(|&(a, b)| (a, off + b)).collect(),
                    None => pairs.to_vec(),
                };
                let graphs: Vec<Graph<N, E>> = xs.into_iter().chain(ys.unwrap_or_default()).collect();
                let out = gpu.nodal_pairs(&graphs, &jobs)?;
                return Ok(out
                    .into_iter()
                    .map(|o| PairOut { value: o.value, nodal: Some(o.values), ..PairOut::default() })
                    .collect());
            }
            let ux = gpu.upload(&xs)?;
            let uy = ys.as_deref().map(|ys| gpu.upload(ys)).transpose()?;
            let b = uy.as_ref().unwrap_or(&ux);
            if want.gradient {
                let r = gpu.run_gradient(&ux, b, pairs)?;
                let active: Vec<bool> = k.hyperparameters().iter().map(|h| h.is_active()).collect();
                let slots = r.slots.max(1);
                return Ok(r
                    .values
                    .iter()
                    .zip(r.gradient.chunks(slots))
                    .map(|(&value, cell)| PairOut {
                        value,
                        grad: cell.iter().zip(&active).filter(|(_, &a)| a).map(|(&g, _)| g).collect(),
                        ..PairOut::default()
                    })
                    .collect());
            }
            let r = gpu.run(&ux, b, pairs, false)?;
            Ok(r.values.into_iter().map(|value| PairOut { value, ..PairOut::default() }).collect())
        }
    }
}
