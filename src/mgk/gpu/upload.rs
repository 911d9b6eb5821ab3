//! [`GpuGraphs`]: graphs reordered, packed into octiles and uploaded to one
//! device; and the byte layouts the kernels read.

use super::codegen::mgk_source_placed;
use super::gram::GpuGram;
use super::pack::{pack_graphs_for, PackedBatch};
use crate::basekernel::BaseKernel;
use crate::cuda::device::{check, Device, FunctionKey};
use crate::cuda::label::{GpuLabel, LabelLayout};
use crate::cuda::{CudaError, Precision};
use crate::graph::Graph;
use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr};
use std::sync::Arc;

/// Graphs packed in octile form and uploaded to one device, for one
/// precision. Upload once, use in many calls.
pub struct GpuGraphs {
    pub(super) dev: Arc<Device>,
    pub(super) precision: Precision,
    pub(super) node_layout: LabelLayout,
    pub(super) edge_layout: LabelLayout,
    pub(super) num_nodes: Vec<usize>,
    pub(super) num_tiles: Vec<usize>,
    pub(super) nnz: Vec<usize>,
    pub(super) set: GraphSet,
    _bufs: Vec<CudaSlice<u8>>,
}

impl std::fmt::Debug for GpuGraphs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuGraphs")
            .field("device", &self.dev.info.ordinal)
            .field("precision", &self.precision)
            .field("graphs", &self.num_nodes.len())
            .finish()
    }
}

impl GpuGraphs {
    /// Number of graphs.
    pub fn len(&self) -> usize {
        self.num_nodes.len()
    }

    /// Whether there are no graphs.
    pub fn is_empty(&self) -> bool {
        self.num_nodes.is_empty()
    }

    /// Number of nodes of each graph.
    pub fn num_nodes(&self) -> &[usize] {
        &self.num_nodes
    }

    /// Number of stored entries (arcs) of each graph.
    pub fn num_entries(&self) -> &[usize] {
        &self.nnz
    }

    /// The precision the graphs were uploaded for.
    pub fn precision(&self) -> Precision {
        self.precision
    }
}

/// Device pointers of one uploaded batch, as the kernel's `GraphSet`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(super) struct GraphSet {
    node_off: u64,
    tile_off: u64,
    nz_off: u64,
    tile_ij: u64,
    tile_bm: u64,
    tile_nz: u64,
    nz_pos: u64,
    nz_w: u64,
    nz_e: u64,
    deg: u64,
    vlab: u64,
    start: u64,
}

// SAFETY: plain old data, laid out as the kernel's `struct GraphSet` (12 pointers).
unsafe impl DeviceRepr for GraphSet {}

pub(super) fn real_bytes(v: &[f64], p: Precision) -> Vec<u8> {
    match p {
        Precision::F32 => v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect(),
        Precision::F64 => v.iter().flat_map(|&x| x.to_le_bytes()).collect(),
    }
}

fn pod_bytes<T: Copy>(v: &[T], f: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

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

/// Uploads a packed batch to `dev` (the graphs of [`GpuGram::upload`], and of
/// the device Kronecker products).
pub(super) fn upload_batch(dev: &Arc<Device>, b: &PackedBatch) -> Result<GpuGraphs, CudaError> {
    let p = b.precision;
    let i32b = |v: &[i32]| pod_bytes(v, |x| x.to_le_bytes().to_vec());
    let host: [Vec<u8>; 12] = [
        i32b(&b.node_offsets),
        i32b(&b.tile_offsets),
        i32b(&b.nz_offsets),
        pod_bytes(&b.tile_ij, |x| x.to_le_bytes().to_vec()),
        pod_bytes(&b.tile_bitmap, |x| x.to_le_bytes().to_vec()),
        i32b(&b.tile_start),
        b.nz_pos.clone(),
        real_bytes(&b.nz_weight, p),
        b.nz_label.clone(),
        real_bytes(&b.degree, p),
        b.node_label.clone(),
        real_bytes(&b.start, p),
    ];
    let stream = &dev.stream;
    let mut bufs = Vec::with_capacity(12);
    let mut ptrs = [0u64; 12];
    for (k, h) in host.iter().enumerate() {
        // never allocate zero bytes
        let data: &[u8] = if h.is_empty() { &[0u8; 8] } else { h };
        let d = check("uploading graphs", || stream.clone_htod(data))?;
        ptrs[k] = d.device_ptr(stream).0;
        bufs.push(d);
    }
    let set = GraphSet {
        node_off: ptrs[0],
        tile_off: ptrs[1],
        nz_off: ptrs[2],
        tile_ij: ptrs[3],
        tile_bm: ptrs[4],
        tile_nz: ptrs[5],
        nz_pos: ptrs[6],
        nz_w: ptrs[7],
        nz_e: ptrs[8],
        deg: ptrs[9],
        vlab: ptrs[10],
        start: ptrs[11],
    };
    Ok(GpuGraphs {
        dev: dev.clone(),
        precision: p,
        node_layout: b.node_layout.clone(),
        edge_layout: b.edge_layout.clone(),
        num_nodes: (0..b.len()).map(|g| b.num_nodes(g)).collect(),
        num_tiles: (0..b.len()).map(|g| b.num_tiles(g)).collect(),
        nnz: b.nnz.clone(),
        set,
        _bufs: bufs,
    })
}
