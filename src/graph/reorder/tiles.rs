//! Tile statistics: how many 8×8 tiles of the adjacency matrix hold a
//! nonzero under a node order, and how full they are.

use super::Permutation;
use crate::graph::label::Label;
use crate::graph::{Graph, GraphError};
use std::iter::Sum;
use std::ops::{Add, AddAssign};

/// The tile edge: the GPU packs adjacency matrices in 8×8 tiles ("octiles").
pub const TILE: usize = 8;

/// Tile statistics of one graph or, summed with `+`/[`Sum`], of a data set.
///
/// A tile `(I, J)` is the block of rows `8I..8I+8` and columns `8J..8J+8`
/// of the (reordered) adjacency; it is non-empty when one of its 64 entries
/// is stored. Diagonal tiles count like any other; each stored entry
/// (arc, self-loop) counts once, so an undirected edge counts twice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TileStats {
    /// Number of graphs summed.
    pub graphs: usize,
    /// Number of nodes summed.
    pub nodes: usize,
    /// Number of stored entries (nonzeros) summed.
    pub nonzeros: usize,
    /// Number of non-empty 8×8 tiles summed.
    pub tiles: usize,
}

impl TileStats {
    /// Mean nonzeros per non-empty tile, `nonzeros / tiles` (in `[1, 64]`;
    /// 0 when there is no tile). Higher is denser.
    pub fn density(&self) -> f64 {
        if self.tiles == 0 {
            0.0
        } else {
            self.nonzeros as f64 / self.tiles as f64
        }
    }
}

impl Add for TileStats {
    type Output = TileStats;
    fn add(self, o: TileStats) -> TileStats {
        TileStats {
            graphs: self.graphs + o.graphs,
            nodes: self.nodes + o.nodes,
            nonzeros: self.nonzeros + o.nonzeros,
            tiles: self.tiles + o.tiles,
        }
    }
}

impl AddAssign for TileStats {
    fn add_assign(&mut self, o: TileStats) {
        *self = *self + o;
    }
}

impl Sum for TileStats {
    fn sum<I: Iterator<Item = TileStats>>(iter: I) -> TileStats {
        iter.fold(TileStats::default(), Add::add)
    }
}

/// Tile statistics of `g` reordered by `perm` (without forming the
/// reordered graph): counts the distinct `(⌊π(i)/8⌋, ⌊π(j)/8⌋)` over the
/// stored entries `(i, j)`. `O(m log d)` time, `O(d)` extra memory for
/// `m` stored entries and the largest tile-row entry count `d`.
///
/// # Errors
/// [`GraphError::InvalidPermutation`] if the permutation's length is not the number of nodes.
pub fn tile_stats<N: Label, E: Label>(g: &Graph<N, E>, perm: &Permutation) -> Result<TileStats, GraphError> {
    let n = g.num_nodes();
    if perm.len() != n {
        return Err(GraphError::InvalidPermutation {
            reason: format!("length {} for a graph of {n} nodes", perm.len()),
        });
    }
    let (new, order) = (perm.new_of_old(), perm.old_of_new());
    let mut tiles = 0;
    let mut cols: Vec<usize> = Vec::new();
    for block in order.chunks(TILE) {
        cols.clear();
        for &old in block {
            cols.extend(g.neighbors(old).iter().map(|&j| new[j] / TILE));
        }
        cols.sort_unstable();
        cols.dedup();
        tiles += cols.len();
    }
    Ok(TileStats { graphs: 1, nodes: n, nonzeros: g.num_entries(), tiles })
}

/// Tile statistics of `g` in its own (natural) order.
pub fn tile_stats_natural<N: Label, E: Label>(g: &Graph<N, E>) -> TileStats {
    tile_stats(g, &Permutation::identity(g.num_nodes())).expect("the identity fits the graph")
}

/// Bandwidth of `g` under `perm`: `max |π(i) − π(j)|` over the stored
/// entries `(i, j)` (0 for a graph without edges). `O(m)`.
///
/// # Errors
/// [`GraphError::InvalidPermutation`] if the permutation's length is not the number of nodes.
pub fn bandwidth<N: Label, E: Label>(g: &Graph<N, E>, perm: &Permutation) -> Result<usize, GraphError> {
    let n = g.num_nodes();
    if perm.len() != n {
        return Err(GraphError::InvalidPermutation {
            reason: format!("length {} for a graph of {n} nodes", perm.len()),
        });
    }
    let p = perm.new_of_old();
    Ok((0..n).flat_map(|i| g.neighbors(i).iter().map(move |&j| p[i].abs_diff(p[j]))).max().unwrap_or(0))
}
