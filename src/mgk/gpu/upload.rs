//! [`GpuGraphs`]: graphs reordered, packed into octiles and uploaded to one
//! device; and the byte layouts the kernels read.

use super::pack::PackedBatch;
use crate::cuda::device::{check, Device};
use crate::cuda::label::LabelLayout;
use crate::cuda::{CudaError, Precision};
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

/// Uploads a packed batch to `dev` (the graphs of
/// [`GpuGram::upload`](super::GpuGram::upload), and of
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
