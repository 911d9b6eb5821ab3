//! Node reordering for denser 8×8 tiles.
//!
//! The GPU backend packs each adjacency matrix into 8×8 tiles ("octiles")
//! and stores only the non-empty ones; every stored tile costs a load and a
//! small dense or sparse product. Renaming the nodes so that nonzeros gather
//! into fewer, fuller tiles is among the largest speed-ups of the packing.
//! This module gives
//!
//! - [`Permutation`]: a renaming with its inverse, applied to graphs
//!   (labels, weights and start probabilities follow their nodes) and, in
//!   reverse, to per-node and pair-indexed outputs;
//! - [`rcm`]: reverse Cuthill–McKee (small bandwidth);
//! - [`pbr`]: partition-based reordering — a balanced partition into parts
//!   of exactly 8 nodes that minimizes the number of non-empty tiles,
//!   by recursive bisection with Fiduccia–Mattheyses refinement and a final
//!   k-way refinement on the tile count itself;
//! - [`tile_stats`]: the number of non-empty tiles and their mean fill;
//! - [`permutation`] (one graph, by [`Method`]) and [`stats`] (a data set,
//!   several methods, with timings), which the CLI's `reorder-stats` and the
//!   kernels' packing call.
//!
//! All orderings work on the symmetrized pattern `A + Aᵀ` (without
//! self-loops), so directed graphs are accepted too; weights are ignored.
//! All are deterministic: the same graph gives the same permutation.
//!
//! # Examples
//! ```
//! use kronograph::graph::generate;
//! use kronograph::graph::reorder::{self, Method};
//! use rand::SeedableRng;
//! let g = generate::newman_watts_strogatz(96, 3, 0.1, &mut rand_chacha::ChaCha8Rng::seed_from_u64(1)).unwrap();
//! let p = reorder::permutation(&g, Method::Pbr);
//! let natural = reorder::tile_stats_natural(&g);
//! let pbr = reorder::tile_stats(&g, &p).unwrap();
//! assert!(pbr.tiles <= natural.tiles);
//! let h = p.apply(&g).unwrap(); // the reordered graph
//! assert_eq!(reorder::tile_stats_natural(&h), pbr);
//! ```

mod pbr;
mod permutation;
mod rcm;
mod tiles;

pub use self::pbr::{pbr, pbr_partition, PbrParams};
pub use self::permutation::Permutation;
pub use self::rcm::rcm;
pub use self::tiles::{bandwidth, tile_stats, tile_stats_natural, TileStats, TILE};

use crate::graph::label::Label;
use crate::graph::Graph;
use std::fmt;
use std::str::FromStr;
use std::time::Instant;

/// A reordering method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// The order the graph comes in (the identity).
    Natural,
    /// Reverse Cuthill–McKee ([`rcm`]).
    Rcm,
    /// Partition-based reordering with default parameters ([`pbr`]).
    Pbr,
}

impl Method {
    /// All methods, in the order natural, RCM, PBR.
    pub const ALL: [Method; 3] = [Method::Natural, Method::Rcm, Method::Pbr];

    /// The lower-case name: `natural`, `rcm`, `pbr`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Natural => "natural",
            Method::Rcm => "rcm",
            Method::Pbr => "pbr",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = String;
    /// Parses `natural`, `rcm` or `pbr` (any case).
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "natural" | "none" | "identity" => Ok(Method::Natural),
            "rcm" => Ok(Method::Rcm),
            "pbr" => Ok(Method::Pbr),
            _ => Err(format!("unknown reordering method {s:?}; expected natural, rcm or pbr")),
        }
    }
}

/// The permutation of `g` by `method` (old node `i` becomes node
/// `p.new_of_old()[i]`). Apply it with [`Permutation::apply`]; map nodal
/// results back with [`Permutation::apply_inverse`] /
/// [`Permutation::apply_inverse_pairs`].
///
/// Cost: `O(n)` (natural), `O(m log d)` (RCM), about `O(m log n)` plus the
/// k-way passes (PBR; see [`pbr`]).
pub fn permutation<N: Label, E: Label>(g: &Graph<N, E>, method: Method) -> Permutation {
    match method {
        Method::Natural => Permutation::identity(g.num_nodes()),
        Method::Rcm => rcm(g),
        Method::Pbr => pbr(g),
    }
}

/// The reordered graph and the permutation used.
pub fn reorder<N: Label, E: Label>(g: &Graph<N, E>, method: Method) -> (Graph<N, E>, Permutation) {
    let p = permutation(g, method);
    let h = p.apply(g).expect("a permutation computed for the graph fits it");
    (h, p)
}

/// Tile statistics of one method over a data set, and the time it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MethodStats {
    /// The method.
    pub method: Method,
    /// Tiles and nonzeros summed over the graphs.
    pub tiles: TileStats,
    /// Wall-clock seconds spent computing the permutations, summed over
    /// the graphs (not counting the tile counting itself).
    pub seconds: f64,
}

impl MethodStats {
    /// Mean reordering time per graph, in seconds.
    pub fn seconds_per_graph(&self) -> f64 {
        if self.tiles.graphs == 0 {
            0.0
        } else {
            self.seconds / self.tiles.graphs as f64
        }
    }
}

/// For each method, the tile statistics of every graph reordered by it,
/// summed, and the time the reordering took. Graphs are processed one after
/// another on the calling thread, so the times are single-core times.
pub fn stats<N: Label, E: Label>(graphs: &[Graph<N, E>], methods: &[Method]) -> Vec<MethodStats> {
    methods
        .iter()
        .map(|&method| {
            let mut tiles = TileStats::default();
            let mut seconds = 0.0;
            for g in graphs {
                let t = Instant::now();
                let p = permutation(g, method);
                seconds += t.elapsed().as_secs_f64();
                tiles += tile_stats(g, &p).expect("a permutation computed for the graph fits it");
            }
            MethodStats { method, tiles, seconds }
        })
        .collect()
}

/// The symmetrized sparsity pattern `A + Aᵀ` of a graph, without
/// self-loops (which are remembered per node), in CSR with sorted rows.
pub(crate) struct Pattern {
    xadj: Vec<usize>,
    adj: Vec<usize>,
    self_loop: Vec<bool>,
}

impl Pattern {
    pub(crate) fn of<N: Label, E: Label>(g: &Graph<N, E>) -> Self {
        let n = g.num_nodes();
        let self_loop: Vec<bool> = (0..n).map(|i| g.neighbors(i).binary_search(&i).is_ok()).collect();
        if !g.is_directed() {
            let mut xadj = Vec::with_capacity(n + 1);
            let mut adj = Vec::with_capacity(g.num_entries());
            xadj.push(0);
            for i in 0..n {
                adj.extend(g.neighbors(i).iter().copied().filter(|&j| j != i));
                xadj.push(adj.len());
            }
            return Pattern { xadj, adj, self_loop };
        }
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); n];
        for i in 0..n {
            for &j in g.neighbors(i) {
                if i != j {
                    rows[i].push(j);
                    rows[j].push(i);
                }
            }
        }
        let mut xadj = Vec::with_capacity(n + 1);
        let mut adj = Vec::new();
        xadj.push(0);
        for mut r in rows {
            r.sort_unstable();
            r.dedup();
            adj.extend(r);
            xadj.push(adj.len());
        }
        Pattern { xadj, adj, self_loop }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.self_loop.len()
    }

    #[inline]
    pub(crate) fn neighbors(&self, i: usize) -> &[usize] {
        &self.adj[self.xadj[i]..self.xadj[i + 1]]
    }

    #[inline]
    pub(crate) fn degree(&self, i: usize) -> usize {
        self.xadj[i + 1] - self.xadj[i]
    }
}
