//! Octile packing: graphs as 8×8 tiles of their adjacency matrix, in flat
//! structure-of-arrays buffers ready to upload.
//!
//! The adjacency of a graph of n nodes is cut into ⌈n/8⌉² tiles of 8×8;
//! only tiles holding a nonzero are kept, as a list of tile coordinates
//! `(I, J)` sorted row-major. Each tile has a 64-bit bitmap whose bit
//! `8a + b` is set when entry `(8I + a, 8J + b)` is stored, and its nonzeros
//! (weight, edge label, position byte `8a + b`) lie contiguously in the order
//! of the bitmap's bits. Per node: the degree (1 where the weighted degree is
//! 0), the label and the start probability, each an array of its own.
//!
//! A batch of graphs is packed into one set of arrays with offsets
//! (`node_offsets`, `tile_offsets`), so the GPU kernel reaches graph g's data
//! from two integers. Packing is O(nnz + n) per graph (plus a sort of the
//! tiles).

use crate::cuda::label::{GpuLabel, LabelLayout};
use crate::cuda::{CudaError, Precision};
use crate::graph::Graph;
use crate::kron::{OctileLayout, TILE};
use crate::mgk::system::KronSystem;

/// A batch of graphs in octile form, in flat arrays (host side).
///
/// Labels are already laid out as the device structs for [`precision`](Self::precision).
#[derive(Clone, Debug)]
pub struct PackedBatch {
    /// Precision the label bytes were written for.
    pub precision: Precision,
    /// Layout of node labels.
    pub node_layout: LabelLayout,
    /// Layout of edge labels.
    pub edge_layout: LabelLayout,
    /// Graph g's nodes are `node_offsets[g]..node_offsets[g+1]`.
    pub node_offsets: Vec<i32>,
    /// Graph g's tiles are `tile_offsets[g]..tile_offsets[g+1]`.
    pub tile_offsets: Vec<i32>,
    /// Graph g's nonzeros are `nz_offsets[g]..nz_offsets[g+1]`.
    pub nz_offsets: Vec<i32>,
    /// Per tile: `(I << 16) | J`.
    pub tile_ij: Vec<u32>,
    /// Per tile: the nonzero bitmap.
    pub tile_bitmap: Vec<u64>,
    /// Per tile: index of its first nonzero (global).
    pub tile_start: Vec<i32>,
    /// Per nonzero: `8a + b`, its place in the tile.
    pub nz_pos: Vec<u8>,
    /// Per nonzero: the weight.
    pub nz_weight: Vec<f64>,
    /// Per nonzero: the edge label bytes (`edge_layout`).
    pub nz_label: Vec<u8>,
    /// Per node: degree d_i = Σ_j w_ij, 1 where that is 0.
    pub degree: Vec<f64>,
    /// Per node: the node label bytes (`node_layout`).
    pub node_label: Vec<u8>,
    /// Per node: start probability (1 when the graph sets none).
    pub start: Vec<f64>,
    /// Per graph: number of stored entries.
    pub nnz: Vec<usize>,
}

impl PackedBatch {
    /// Number of graphs.
    pub fn len(&self) -> usize {
        self.node_offsets.len() - 1
    }

    /// Whether the batch holds no graph.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of nodes of graph g.
    pub fn num_nodes(&self, g: usize) -> usize {
        (self.node_offsets[g + 1] - self.node_offsets[g]) as usize
    }

    /// Number of non-empty tiles of graph g.
    pub fn num_tiles(&self, g: usize) -> usize {
        (self.tile_offsets[g + 1] - self.tile_offsets[g]) as usize
    }

    /// The largest number of nodes of any graph.
    pub fn max_nodes(&self) -> usize {
        (0..self.len()).map(|g| self.num_nodes(g)).max().unwrap_or(0)
    }

    /// The dense adjacency of graph g rebuilt from its tiles (row-major
    /// n×n), for tests and debugging.
    pub fn dense_adjacency(&self, g: usize) -> Vec<f64> {
        let n = self.num_nodes(g);
        let mut a = vec![0.0; n * n];
        for t in self.tile_offsets[g] as usize..self.tile_offsets[g + 1] as usize {
            let (ti, tj) = ((self.tile_ij[t] >> 16) as usize, (self.tile_ij[t] & 0xffff) as usize);
            let mut k = self.tile_start[t] as usize;
            for bit in 0..64 {
                if self.tile_bitmap[t] >> bit & 1 == 1 {
                    assert_eq!(self.nz_pos[k] as usize, bit);
                    a[(ti * TILE + bit / TILE) * n + tj * TILE + bit % TILE] = self.nz_weight[k];
                    k += 1;
                }
            }
        }
        a
    }
}

/// Largest node count a packed graph may have (tile coordinates are 16-bit).
pub const MAX_NODES: usize = TILE * 65536;

/// Packs `graphs` into octile form for `precision`, for the marginalized
/// graph kernel's system (weighted degrees): [`pack_graphs_for`] with
/// [`DegreeRule::Weighted`](crate::mgk::system::DegreeRule::Weighted).
///
/// # Errors
/// As [`pack_graphs_for`].
#[cfg(any(test, feature = "testing"))]
pub fn pack_graphs<N: GpuLabel, E: GpuLabel>(
    graphs: &[Graph<N, E>],
    precision: Precision,
) -> Result<PackedBatch, CudaError> {
    let system = KronSystem { scale: 1.0, degrees: crate::mgk::system::DegreeRule::Weighted };
    pack_graphs_for(graphs, precision, &system)
}

/// Packs `graphs` into octile form for `precision` and the Kronecker system
/// `system`: each graph's weights first pass through
/// [`KronSystem::scaled_weights`] (an exact power-of-two scaling when the
/// largest weight is extreme and the system is scale invariant, as on the
/// CPU), and the degrees are the system's ([`KronSystem::node_degrees`]).
///
/// # Errors
/// [`CudaError::UnsupportedGraph`] for a directed graph, one of more than
/// [`MAX_NODES`] nodes, or one whose weights cannot be scaled into range;
/// [`CudaError::Label`] for labels the GPU cannot hold.
pub fn pack_graphs_for<N: GpuLabel, E: GpuLabel>(
    graphs: &[Graph<N, E>],
    precision: Precision,
    system: &KronSystem,
) -> Result<PackedBatch, CudaError> {
    pack_graphs_directed(graphs, precision, system, false)
}

/// [`pack_graphs_for`], taking directed graphs too when `directed` is set
/// (their octiles hold the arcs `i → j` at row `i`, as the CPU's; the
/// generic pair systems of [`crate::kron`] solve them, the marginalized
/// graph kernel does not).
///
/// # Errors
/// As [`pack_graphs_for`].
pub(crate) fn pack_graphs_directed<N: GpuLabel, E: GpuLabel>(
    graphs: &[Graph<N, E>],
    precision: Precision,
    system: &KronSystem,
    directed: bool,
) -> Result<PackedBatch, CudaError> {
    let first_nodes = graphs.iter().find(|g| g.num_nodes() > 0);
    let first_edges = graphs.iter().find(|g| g.num_entries() > 0);
    let node_layout = N::layout(first_nodes.map(|g| g.node_labels()).unwrap_or(&[]), precision)?;
    let edge_layout = E::layout(first_edges.map(|g| g.edge_labels()).unwrap_or(&[]), precision)?;
    let total_nodes: usize = graphs.iter().map(|g| g.num_nodes()).sum();
    let total_nnz: usize = graphs.iter().map(|g| g.num_entries()).sum();
    if total_nnz > i32::MAX as usize || total_nodes > i32::MAX as usize {
        return Err(CudaError::UnsupportedGraph {
            index: 0,
            reason: "the batch has more than 2^31 nodes or edges; split it".into(),
        });
    }
    let mut b = PackedBatch {
        precision,
        node_layout,
        edge_layout,
        node_offsets: vec![0],
        tile_offsets: vec![0],
        nz_offsets: vec![0],
        tile_ij: Vec::new(),
        tile_bitmap: Vec::new(),
        tile_start: Vec::new(),
        nz_pos: Vec::with_capacity(total_nnz),
        nz_weight: Vec::with_capacity(total_nnz),
        nz_label: Vec::new(),
        degree: Vec::with_capacity(total_nodes),
        node_label: Vec::new(),
        start: Vec::with_capacity(total_nodes),
        nnz: Vec::with_capacity(graphs.len()),
    };
    for (index, g) in graphs.iter().enumerate() {
        // the same exact power-of-two weight scaling as the CPU solver (the kernel is scale invariant)
        let g = system.scaled_weights(g).map_err(|e| CudaError::UnsupportedGraph { index, reason: e.to_string() })?;
        let g = &*g;
        if g.is_directed() && !directed {
            return Err(CudaError::UnsupportedGraph { index, reason: "directed graphs are not supported".into() });
        }
        let n = g.num_nodes();
        if n > MAX_NODES {
            return Err(CudaError::UnsupportedGraph {
                index,
                reason: format!("{n} nodes; the GPU kernel takes at most {MAX_NODES}"),
            });
        }
        // the library's one octile packing; only the batch's SoA layout is added here
        let layout = OctileLayout::new(g);
        let base = b.nz_weight.len() as u32;
        for t in &layout.tiles {
            b.tile_ij.push(t.bi << 16 | t.bj);
            b.tile_bitmap.push(t.bitmap);
            b.tile_start.push((base + t.start) as i32);
        }
        b.nz_pos.extend_from_slice(&layout.positions);
        for &k in &layout.csr {
            b.nz_weight.push(g.weights()[k]);
            g.edge_labels()[k].write(&b.edge_layout, precision, &mut b.nz_label)?;
        }
        b.degree.extend(system.node_degrees(g));
        for l in g.node_labels() {
            l.write(&b.node_layout, precision, &mut b.node_label)?;
        }
        match g.start_probabilities() {
            Some(p) => b.start.extend_from_slice(p),
            None => b.start.extend(std::iter::repeat_n(1.0, n)),
        }
        b.node_offsets.push(b.degree.len() as i32);
        b.tile_offsets.push(b.tile_ij.len() as i32);
        b.nz_offsets.push(b.nz_weight.len() as i32);
        b.nnz.push(g.num_entries());
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Direction, GraphBuilder};
    use proptest::prelude::*;

    fn random_graph(n: usize, edges: &[(usize, usize, f64)]) -> Graph<i64, i64> {
        let mut b = GraphBuilder::new(n, Direction::Undirected)
            .node_labels((0..n as i64).collect())
            .duplicates(crate::graph::Duplicates::KeepFirst);
        for &(u, v, w) in edges {
            b.push_edge(u % n, v % n, w, ((u * 7 + v * 7) % 5) as i64);
        }
        b.build().unwrap()
    }

    fn dense(g: &Graph<i64, i64>) -> Vec<f64> {
        let n = g.num_nodes();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for k in g.row_range(i) {
                a[i * n + g.indices()[k]] = g.weights()[k];
            }
        }
        a
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn packed_tiles_rebuild_the_adjacency(
            sizes in proptest::collection::vec(1usize..40, 1..4),
            edges in proptest::collection::vec((0usize..40, 0usize..40, 0.1f64..4.0), 0..120),
        ) {
            let graphs: Vec<_> = sizes.iter().map(|&n| random_graph(n, &edges)).collect();
            let b = pack_graphs(&graphs, Precision::F64).unwrap();
            prop_assert_eq!(b.len(), graphs.len());
            for (gi, g) in graphs.iter().enumerate() {
                prop_assert_eq!(b.dense_adjacency(gi), dense(g));
                let n0 = b.node_offsets[gi] as usize;
                for i in 0..g.num_nodes() {
                    let d = g.degrees()[i];
                    prop_assert_eq!(b.degree[n0 + i], if d == 0.0 { 1.0 } else { d });
                    prop_assert_eq!(&b.node_label[4 * (n0 + i)..4 * (n0 + i) + 4], &(i as i32).to_le_bytes()[..]);
                }
                // every tile non-empty, sorted row-major, labels follow the nonzeros
                let ts = b.tile_offsets[gi] as usize..b.tile_offsets[gi + 1] as usize;
                for t in ts.clone() {
                    prop_assert!(b.tile_bitmap[t] != 0);
                    if t > ts.start { prop_assert!(b.tile_ij[t - 1] < b.tile_ij[t]); }
                    let mut k = b.tile_start[t] as usize;
                    let (ti, tj) = ((b.tile_ij[t] >> 16) as usize, (b.tile_ij[t] & 0xffff) as usize);
                    for bit in 0..64 {
                        if b.tile_bitmap[t] >> bit & 1 == 1 {
                            let e = g.find_entry(ti * TILE + bit / TILE, tj * TILE + bit % TILE).unwrap();
                            let label = g.edge_labels()[e] as i32;
                            prop_assert_eq!(&b.nz_label[4 * k..4 * k + 4], &label.to_le_bytes()[..]);
                            k += 1;
                        }
                    }
                }
                prop_assert_eq!(b.nnz[gi], g.num_entries());
                prop_assert_eq!((b.nz_offsets[gi + 1] - b.nz_offsets[gi]) as usize, g.num_entries());
            }
            prop_assert_eq!(b.nz_weight.len(), graphs.iter().map(|g| g.num_entries()).sum::<usize>());
        }
    }

    #[test]
    fn only_scale_invariant_systems_get_their_weights_scaled() {
        let g = random_graph(5, &[(0, 1, 1.0), (1, 2, 3.0), (3, 4, 0.5)]);
        let big = g.with_weights(|w, _| w * 2f64.powi(300)).unwrap();
        let small = g.with_weights(|w, _| w * 2f64.powi(-300)).unwrap();
        // the marginalized kernel's system: both scaled by exact powers of two to the same graph
        let (a, b) = (
            pack_graphs(std::slice::from_ref(&big), Precision::F64).unwrap(),
            pack_graphs(std::slice::from_ref(&small), Precision::F64).unwrap(),
        );
        assert_eq!((&a.nz_weight, &a.degree), (&b.nz_weight, &b.degree));
        assert!(a.nz_weight.iter().all(|&w| (0.25..2.0).contains(&w)));
        // the random walk's (unit degrees, not scale invariant): the weights as they are
        let rw = KronSystem::random_walk(0.1);
        let unit = pack_graphs_for(std::slice::from_ref(&g), Precision::F64, &rw).unwrap();
        let c = pack_graphs_for(std::slice::from_ref(&big), Precision::F64, &rw).unwrap();
        assert_eq!(c.nz_weight, unit.nz_weight.iter().map(|w| w * 2f64.powi(300)).collect::<Vec<_>>());
        assert!(c.degree.iter().all(|&d| d == 1.0));
    }

    #[test]
    fn directed_graphs_are_rejected() {
        let g: Graph<i64, i64> =
            GraphBuilder::new(2, Direction::Directed).node_labels(vec![0, 0]).arc(0, 1, 1.0, 0).build().unwrap();
        assert!(matches!(pack_graphs(&[g], Precision::F32), Err(CudaError::UnsupportedGraph { index: 0, .. })));
    }
}
