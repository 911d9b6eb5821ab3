//! [`GpuGram`]'s upload methods: graphs reordered, packed and copied to
//! the kernel's device as [`GpuGraphs`], with the batched kernel's compile
//! started in the background.

use super::codegen::mgk_source_placed;
use super::gram::GpuGram;
use super::pack::{pack_graphs_for, PackedBatch};
use super::upload::{upload_batch, GpuGraphs};
use crate::basekernel::BaseKernel;
use crate::cuda::device::FunctionKey;
use crate::cuda::label::GpuLabel;
use crate::cuda::CudaError;
use crate::graph::Graph;

impl<N, E, KN, KE> GpuGram<N, E, KN, KE>
where
    N: GpuLabel,
    E: GpuLabel,
    KN: BaseKernel<N>,
    KE: BaseKernel<E>,
{
    /// Reorders each graph (by [`MgkConfig::reorder`](crate::mgk::MgkConfig::reorder), in parallel), packs
    /// the graphs into octiles and uploads them for this kernel's precision.
    /// Starts compiling the batched kernel for these labels in the
    /// background (the JIT's prefetch), so that the
    /// first `gram` finds it ready or nearly so.
    ///
    /// # Errors
    /// [`CudaError::UnsupportedGraph`] / [`CudaError::Label`] from packing;
    /// [`CudaError::Driver`] from the copies.
    pub fn upload(&self, graphs: &[Graph<N, E>]) -> Result<GpuGraphs, CudaError> {
        self.upload_packed(&self.reorder_and_pack(graphs)?)
    }

    /// What [`upload`](Self::upload) copies to the device: `graphs`
    /// reordered and packed (the same bytes for every device of a set, so a
    /// set packs once); starts the background compile as `upload` does.
    ///
    /// # Errors
    /// As [`upload`](Self::upload)'s packing.
    pub(super) fn reorder_and_pack(&self, graphs: &[Graph<N, E>]) -> Result<PackedBatch, CudaError> {
        use crate::graph::reorder::{reorder, Method};
        use rayon::prelude::*;
        self.prefetch(graphs);
        match self.params.reorder {
            Method::Natural => self.pack(graphs),
            m => {
                let reordered: Vec<Graph<N, E>> = graphs.par_iter().map(|g| reorder(g, m).0).collect();
                self.pack(&reordered)
            }
        }
    }

    /// Starts compiling the batched kernel for the labels of `graphs` (with
    /// [`MgkConfig::xmv`]'s scheme, as the calls will, and the vector
    /// placements their Gram matrix likely needs) in the background,
    /// unless it is loaded already. Label layouts come from the
    /// first graph with nodes (edges), as in packing.
    fn prefetch(&self, graphs: &[Graph<N, E>]) {
        let p = self.params.precision;
        let first_nodes = graphs.iter().find(|g| g.num_nodes() > 0).map(|g| g.node_labels()).unwrap_or(&[]);
        let first_edges = graphs.iter().find(|g| g.num_entries() > 0).map(|g| g.edge_labels()).unwrap_or(&[]);
        let (Ok(nl), Ok(el)) = (N::layout(first_nodes, p), E::layout(first_edges, p)) else { return };
        let sizes: Vec<(usize, usize)> = graphs.iter().map(|g| (g.num_nodes(), g.num_entries())).collect();
        let placement = self.placement_hint(&sizes, el.size_align(p).0);
        if let Ok(src) = mgk_source_placed(
            &self.node_kernel,
            &self.edge_kernel,
            &nl,
            &el,
            p,
            self.params.xmv,
            placement,
            &self.params.gpu.tuning,
        ) {
            if !self.dev.functions.read().unwrap_or_else(|e| e.into_inner()).contains_key(&FunctionKey::full(&src.name))
            {
                crate::cuda::jit::prefetch(src.source, src.name, self.dev.info.compute_capability);
            }
        }
    }

    /// Packs `graphs` for this kernel's precision, with the degrees of its
    /// system ([`MgkConfig::system`]).
    pub(super) fn pack(&self, graphs: &[Graph<N, E>]) -> Result<PackedBatch, CudaError> {
        pack_graphs_for(graphs, self.params.precision, &self.params.system())
    }

    /// Uploads an already packed batch.
    ///
    /// # Errors
    /// [`CudaError::Driver`] from the copies.
    pub fn upload_packed(&self, b: &PackedBatch) -> Result<GpuGraphs, CudaError> {
        upload_batch(&self.dev, b)
    }
}
