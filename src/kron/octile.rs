//! Octile packing of one graph: 8×8 tiles, only non-empty ones.

use crate::graph::{Graph, Label};
use crate::solver::Real;

/// The side of an octile (8): the one tile size of the library, shared by
/// the reordering's tile statistics, this packer and the GPU's
/// (`mgk::gpu::pack`).
pub use crate::graph::reorder::TILE;

// a tile's occupancy is one 64-bit bitmap
const _: () = assert!(TILE * TILE == 64);

/// One non-empty 8×8 tile of an adjacency matrix: the one tile struct of the
/// library, used by [`Octiles`] and by the GPU's batch layout
/// (`mgk::gpu::pack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    /// Row block: the tile covers rows `8·bi .. 8·bi + 8`.
    pub bi: u32,
    /// Column block: the tile covers columns `8·bj .. 8·bj + 8`.
    pub bj: u32,
    /// Bit `8·r + c` is set when the tile has an entry at local `(r, c)`.
    pub bitmap: u64,
    /// First entry of the tile in entry (tile) order.
    pub start: u32,
    /// Number of entries (the population count of `bitmap`).
    pub len: u32,
}

/// The octile packing of one graph's stored entries, the one packing both
/// [`Octiles`] and the GPU batches (`mgk::gpu::pack`) are built from:
/// the non-empty tiles sorted row-major over tiles, and the entries in tile
/// order (inside a tile, in the order of the bitmap's bits, i.e. row-major).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OctileLayout {
    /// The non-empty tiles; tile `t` holds entries `t.start .. t.start + t.len`.
    pub tiles: Vec<Tile>,
    /// Per entry (tile order): its position `8·r + c` inside its tile.
    pub positions: Vec<u8>,
    /// Per entry (tile order): its index in the graph's CSR arrays
    /// (`weights()`, `edge_labels()`, `indices()`).
    pub csr: Vec<usize>,
}

impl OctileLayout {
    /// Packs the stored entries of `g`. `O(nnz log nnz)`.
    pub fn new<N: Label, E: Label>(g: &Graph<N, E>) -> Self {
        let mut keyed = Vec::with_capacity(g.num_entries());
        for i in 0..g.num_nodes() {
            for k in g.row_range(i) {
                let j = g.indices()[k];
                keyed.push(((i / TILE) as u32, (j / TILE) as u32, ((i % TILE) * TILE + j % TILE) as u8, k));
            }
        }
        keyed.sort_unstable();
        let mut tiles: Vec<Tile> = Vec::new();
        let mut positions = Vec::with_capacity(keyed.len());
        let mut csr = Vec::with_capacity(keyed.len());
        for (idx, &(bi, bj, pos, k)) in keyed.iter().enumerate() {
            match tiles.last_mut() {
                Some(t) if t.bi == bi && t.bj == bj => t.len += 1,
                _ => tiles.push(Tile { bi, bj, bitmap: 0, start: idx as u32, len: 1 }),
            }
            tiles.last_mut().expect("just pushed").bitmap |= 1u64 << pos;
            positions.push(pos);
            csr.push(k);
        }
        OctileLayout { tiles, positions, csr }
    }

    /// Global `(row, column)` of entry `idx` (tile order), which lies in tile `t`.
    #[inline]
    pub fn coordinates(&self, t: &Tile, idx: usize) -> (u32, u32) {
        let pos = self.positions[idx] as u32;
        (t.bi * TILE as u32 + pos / TILE as u32, t.bj * TILE as u32 + pos % TILE as u32)
    }
}

/// One stored entry of a packed graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileEntry<T> {
    /// Global row `i`.
    pub row: u32,
    /// Global column `j`.
    pub col: u32,
    /// The weight `W_ij`.
    pub weight: T,
}

/// A graph packed into octiles: the non-empty 8×8 tiles of its adjacency
/// (sorted by row block, then column block), the entries in tile order
/// (row-major inside a tile) with their weights in precision `T`, and the
/// edge labels in the same order.
///
/// Packing costs `O(nnz log nnz)` and is done once per graph, then shared by
/// every pair the graph takes part in. Memory: `O(nnz + tiles)` plus a clone
/// of the edge labels.
#[derive(Clone, Debug)]
pub struct Octiles<T, E> {
    n: usize,
    tiles: Vec<Tile>,
    entries: Vec<TileEntry<T>>,
    labels: Vec<E>,
    self_loops: Vec<u32>,
    /// CSR row pointers (row order copy of the weights, for the factorized
    /// product with constant edge kernels).
    row_ptr: Vec<u32>,
    /// `(column, weight)` of the entries, row-major.
    row_entries: Vec<(u32, T)>,
    /// Per entry (tile order): its position `8·r + c` inside its tile.
    local: Vec<u8>,
    /// Per entry (tile order): the id of its edge. Both arcs of an undirected
    /// edge share one id (they carry the same label); arcs of a directed
    /// graph each have their own.
    edge_ids: Vec<u32>,
    /// Per edge id: an entry (tile order) that carries its label.
    edge_rep: Vec<u32>,
    /// Per entry in row (CSR) order: the id of its edge.
    row_ids: Vec<u32>,
    /// Per entry in row (CSR) order: `[row, column, edge id]`.
    arcs: Vec<[u32; 3]>,
    /// Whether the graph is undirected (both arcs of an edge share an id).
    undirected: bool,
}

impl<T: Real, E: Label> Octiles<T, E> {
    /// Packs the adjacency and edge labels of `g`.
    pub fn new<N: Label>(g: &Graph<N, E>) -> Self {
        let n = g.num_nodes();
        let layout = OctileLayout::new(g);
        // edge ids: undirected arcs i -> j and j -> i share the id of the i <= j arc
        let undirected = !g.is_directed();
        let mut csr_id = vec![u32::MAX; g.num_entries()];
        let mut num_ids = 0u32;
        for i in 0..n {
            for k in g.row_range(i) {
                let j = g.indices()[k];
                if !undirected || i <= j {
                    csr_id[k] = num_ids;
                    num_ids += 1;
                }
            }
        }
        if undirected {
            for i in 0..n {
                for k in g.row_range(i) {
                    let j = g.indices()[k];
                    if i > j {
                        csr_id[k] = g.find_entry(j, i).map_or(u32::MAX, |r| csr_id[r]);
                    }
                }
            }
        }
        let mut edge_rep = vec![0u32; num_ids as usize];
        let nnz = layout.csr.len();
        let mut edge_ids = Vec::with_capacity(nnz);
        let mut entries = Vec::with_capacity(nnz);
        let mut labels = Vec::with_capacity(nnz);
        let mut self_loops = Vec::new();
        for t in &layout.tiles {
            for idx in t.start as usize..(t.start + t.len) as usize {
                let k = layout.csr[idx];
                let (i, j) = layout.coordinates(t, idx);
                if i == j {
                    self_loops.push(idx as u32);
                }
                let id = csr_id[k];
                debug_assert!(id != u32::MAX, "undirected graphs store both arcs");
                if (i <= j || !undirected) && (id as usize) < edge_rep.len() {
                    edge_rep[id as usize] = idx as u32;
                }
                edge_ids.push(id);
                entries.push(TileEntry { row: i, col: j, weight: T::of_f64(g.weights()[k]) });
                labels.push(g.edge_labels()[k].clone());
            }
        }
        let mut row_ptr = Vec::with_capacity(n + 1);
        let mut row_entries = Vec::with_capacity(g.num_entries());
        row_ptr.push(0);
        for i in 0..n {
            for k in g.row_range(i) {
                row_entries.push((g.indices()[k] as u32, T::of_f64(g.weights()[k])));
            }
            row_ptr.push(row_entries.len() as u32);
        }
        let OctileLayout { tiles, positions: local, csr: _ } = layout;
        Octiles {
            n,
            tiles,
            entries,
            labels,
            self_loops,
            row_ptr,
            row_entries,
            local,
            edge_ids,
            edge_rep,
            arcs: (0..n)
                .flat_map(|i| g.row_range(i).map(move |k| (i, k)))
                .map(|(i, k)| [i as u32, g.indices()[k] as u32, csr_id[k]])
                .collect(),
            row_ids: csr_id,
            undirected,
        }
    }

    /// Number of nodes.
    #[inline]
    pub fn num_nodes(&self) -> usize {
        self.n
    }

    /// The non-empty tiles.
    #[inline]
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles
    }

    /// The entries in tile order.
    #[inline]
    pub fn entries(&self) -> &[TileEntry<T>] {
        &self.entries
    }

    /// The edge labels, in the order of [`entries`](Self::entries).
    #[inline]
    pub fn labels(&self) -> &[E] {
        &self.labels
    }

    /// Indices (into [`entries`](Self::entries)) of the self-loops.
    #[inline]
    pub fn self_loops(&self) -> &[u32] {
        &self.self_loops
    }

    /// The `(column, weight)` entries of row `i`, sorted by column.
    #[inline]
    pub fn row(&self, i: usize) -> &[(u32, T)] {
        &self.row_entries[self.row_ptr[i] as usize..self.row_ptr[i + 1] as usize]
    }

    /// Per entry (tile order), its position `8·r + c` inside its tile (local
    /// row `r`, local column `c`).
    #[inline]
    pub fn local_positions(&self) -> &[u8] {
        &self.local
    }

    /// Per entry (tile order), the id of its edge: both arcs of an undirected
    /// edge share one id (and one label).
    #[inline]
    pub fn edge_ids(&self) -> &[u32] {
        &self.edge_ids
    }

    /// Number of distinct edges (undirected edges, or arcs of a directed
    /// graph).
    #[inline]
    pub fn num_edge_ids(&self) -> usize {
        self.edge_rep.len()
    }

    /// The label of edge `id`.
    #[inline]
    pub fn edge_label(&self, id: u32) -> &E {
        &self.labels[self.edge_rep[id as usize] as usize]
    }

    /// The edge ids of the entries of row `i`, in the order of
    /// [`row`](Self::row).
    #[inline]
    pub fn row_edge_ids(&self, i: usize) -> &[u32] {
        &self.row_ids[self.row_ptr[i] as usize..self.row_ptr[i + 1] as usize]
    }

    /// The CSR row pointers: the entries of row `i` are
    /// `row_ptr()[i]..row_ptr()[i + 1]` of [`arcs`](Self::arcs).
    #[inline]
    pub fn row_ptr(&self) -> &[u32] {
        &self.row_ptr
    }

    /// The stored entries in row (CSR) order as `[i, j, edge id]`.
    #[inline]
    pub fn arcs(&self) -> &[[u32; 3]] {
        &self.arcs
    }

    /// Edge `id` as `(i, j, w_ij)`: its arc `i → j`, with `i ≤ j` in an
    /// undirected graph, where the reverse arc `j → i` (same weight and
    /// label) belongs to the edge too unless `i = j`.
    #[inline]
    pub fn edge_arc(&self, id: u32) -> (usize, usize, T) {
        let e = self.entries[self.edge_rep[id as usize] as usize];
        (e.row as usize, e.col as usize, e.weight)
    }

    /// Whether the graph is undirected: the arcs `i → j` and `j → i` of an
    /// edge share one id, label and weight.
    #[inline]
    pub fn is_undirected(&self) -> bool {
        self.undirected
    }

    /// The entries of tile `t`.
    #[inline]
    pub fn tile_range(&self, t: &Tile) -> std::ops::Range<usize> {
        t.start as usize..(t.start + t.len) as usize
    }

    /// Average number of entries per non-empty tile (1 to 64): how dense the
    /// packing is.
    pub fn fill(&self) -> f64 {
        if self.tiles.is_empty() {
            0.0
        } else {
            self.entries.len() as f64 / self.tiles.len() as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Direction, Duplicates, GraphBuilder};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Every stored entry appears once, at its coordinates; tiles are
        /// sorted row-major and non-empty; inside a tile the entries follow
        /// the bitmap's bits (the order the GPU kernels read them in).
        #[test]
        fn layout_holds_every_entry_once_in_tile_then_bit_order(
            n in 1usize..40,
            edges in proptest::collection::vec((0usize..40, 0usize..40), 0..150),
            directed in any::<bool>(),
        ) {
            let dir = if directed { Direction::Directed } else { Direction::Undirected };
            let mut b = GraphBuilder::new(n, dir).node_labels(vec![(); n]).duplicates(Duplicates::KeepFirst);
            for &(u, v) in &edges {
                b.push_edge(u % n, v % n, 1.0, ());
            }
            let g: Graph<(), ()> = b.build().unwrap();
            let l = OctileLayout::new(&g);
            prop_assert_eq!(l.csr.len(), g.num_entries());
            let mut seen = vec![false; g.num_entries()];
            for (ti, t) in l.tiles.iter().enumerate() {
                prop_assert!(t.len >= 1 && t.bitmap.count_ones() == t.len);
                if ti > 0 {
                    let p = l.tiles[ti - 1];
                    prop_assert!((p.bi, p.bj) < (t.bi, t.bj) && p.start + p.len == t.start);
                }
                let mut bits = t.bitmap;
                for idx in t.start as usize..(t.start + t.len) as usize {
                    prop_assert_eq!(l.positions[idx] as u32, bits.trailing_zeros());
                    bits &= bits - 1;
                    let (i, j) = l.coordinates(t, idx);
                    let k = l.csr[idx];
                    prop_assert!(!seen[k]);
                    seen[k] = true;
                    prop_assert!(g.row_range(i as usize).contains(&k) && g.indices()[k] == j as usize);
                }
            }
        }
    }
}
