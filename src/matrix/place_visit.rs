//! The level step of breadth-first search as one operation on every place:
//! [`vxm_visit`].
//!
//! LAGraph's BFS runs three GraphBLAS calls per level: `q⟨¬s(π), replace⟩
//! = qᵀ A` over `(any, secondi)` (the next frontier, each new node with a
//! frontier parent), `π⟨s(q)⟩ = q` and `v⟨s(q)⟩ = level`. [`vxm_visit`] is
//! that level fused into one operation, on a visit state ([`VisitOp::Visited`]:
//! levels, parents and the frontier, allocated once per matrix and reused
//! across searches) that lives where the matrix does. The implementation
//! decides how:
//!
//! - on the host ([`HostVisited`], `visit_host.rs`): push expands the
//!   frontier's rows and keeps the smallest parent by `fetch_min` (the
//!   scatter merge; the sorting strategies of [`SpmspvOptions::strategy`]
//!   run the step as one [`vxm_sparse`](super::vxm_sparse) with the
//!   complemented structural mask of the parents); pull lets every
//!   unvisited node scan its in-arcs (the cached transpose) and stop at its
//!   first node in the frontier's bitmap (the ANY monoid's terminal), small
//!   ranges of the visited bitmap as tasks that rayon's threads steal, each
//!   writing its own words of the next frontier's bitmap, so that
//!   consecutive pull levels never turn the frontier into a list and back;
//! - on a device ([`DeviceVisited`](super::gpu::DeviceVisited)): the fused
//!   level kernels of `kernels/graphblas_frontier.cu`, claiming new nodes
//!   by `atomicCAS` on the level array (which is the mask), a warp per
//!   frontier node plus a block per chunk of 1024 arcs of the nodes of
//!   out-degree ≥ 1024 (push), or one thread per unvisited node against
//!   the frontier's bitmap (pull); the counts kept in a step log on the
//!   device, read once per step or batch of steps.
//!
//! [`visit_levels`] runs level steps with the direction chosen by
//! [`BfsDirection`] (Beamer's switch) between them: one per call on the
//! host, a batch on a device, whose launches read the frontier's size and
//! decide the direction on the device (one read of the step log per batch).
//!
//! Push or pull is [`SpmspvOptions::direction`]; the levels are the same
//! either way, a parent is a frontier node (the smallest on the host and
//! by pull; by push on a device, any).

use super::place::Located;
use super::{MergeStrategy, PushPull, SpmspvOptions};

/// The nodes a BFS level step reached and their stored out-arcs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reached {
    /// Nodes newly reached (the new frontier's size).
    pub nodes: usize,
    /// Their stored out-arcs (`Σ out-degree`).
    pub arcs: usize,
}

/// Push, pull, or Beamer's direction-optimizing switch: the direction rule
/// of the BFS level steps ([`visit_levels`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BfsDirection {
    /// Always push (SpMSpV over the frontier's rows).
    Push,
    /// Always pull (every unvisited node looks for a parent in the frontier).
    Pull,
    /// Switch to pull when the frontier's out-edges exceed `1/alpha` of the
    /// unexplored edges, back to push when the frontier falls below
    /// `n / beta` nodes (Beamer, Asanović & Patterson 2012).
    Auto {
        /// Push → pull threshold (14 in the paper).
        alpha: f64,
        /// Pull → push threshold (24 in the paper).
        beta: f64,
    },
}

impl BfsDirection {
    /// Whether the next level pulls: `pulling` says how the last one ran,
    /// `frontier` and `frontier_arcs` are the frontier's nodes and out-arcs,
    /// `unexplored` the arcs not yet expanded, `n` the node count. The one
    /// rule of every BFS here (a device evaluates the same expressions in
    /// `kgb_step`, in the same double arithmetic, so the directions are the
    /// same everywhere).
    pub fn pulls(self, pulling: bool, frontier: usize, frontier_arcs: usize, unexplored: usize, n: usize) -> bool {
        match self {
            BfsDirection::Push => false,
            BfsDirection::Pull => true,
            BfsDirection::Auto { alpha, beta } => {
                if !pulling {
                    frontier_arcs as f64 > unexplored as f64 / alpha
                } else {
                    frontier as f64 >= n as f64 / beta
                }
            }
        }
    }
}

/// The search between level steps, as the direction rule reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelState {
    /// The frontier's level.
    pub level: usize,
    /// Whether the step that made the frontier pulled (`false` at the source).
    pub pulling: bool,
    /// The frontier's nodes and their out-arcs.
    pub frontier: Reached,
    /// Stored arcs not yet expanded: all but the out-arcs of the levels
    /// up to the frontier's, the frontier's included.
    pub unexplored: usize,
}

/// One level step of [`visit_levels`]: its direction and what it reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelStep {
    /// Whether it pulled.
    pub pulled: bool,
    /// The new frontier.
    pub reached: Reached,
}

/// Level steps from the frontier of `v` described by `at` (`at.frontier`
/// not empty), each [`vxm_visit`] in the direction that `rule` gives
/// ([`BfsDirection::pulls`] on the state before it), merge `strategy`;
/// returns them in order, at least one: as many as the place runs between
/// two reads of its counters (the host: one; a device: a batch of launches
/// that decide the direction and the frontier on the device, read once).
/// The steps stop after one that reached nothing and before one whose
/// frontier has no out-arc.
///
/// # Errors
/// As [`vxm_visit`].
pub fn visit_levels<M: VisitOp>(
    v: &mut M::Visited,
    a: &M,
    at: &LevelState,
    rule: BfsDirection,
    strategy: MergeStrategy,
) -> crate::Result<Vec<LevelStep>> {
    a.visit_levels_op(v, at, rule, strategy)
}

/// A square matrix whose place runs the BFS level step [`vxm_visit`];
/// implemented by [`SparseMatrix`](super::SparseMatrix) and [`DeviceMatrix`](super::gpu::DeviceMatrix).
pub trait VisitOp: Located {
    /// The visit state on this place: levels, parents, the frontier.
    type Visited;

    /// Stored entries (arcs).
    fn stored(&self) -> usize;

    /// A visit state for searches on this matrix (allocated once, reused by
    /// every [`VisitOp::visit_source`]).
    ///
    /// # Errors
    /// [`MatrixError::DimensionMismatch`](super::MatrixError) for a
    /// non-square matrix; CUDA errors on a device.
    fn visited(&self) -> crate::Result<Self::Visited>;

    /// Resets `v` to a search from `source` (`source < n`, checked by the
    /// caller): level 0, its own parent, the only frontier node; nothing
    /// else visited. Returns the source and its out-arcs.
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn visit_source(&self, v: &mut Self::Visited, source: usize) -> crate::Result<Reached>;

    /// See [`vxm_visit`].
    ///
    /// # Errors
    /// As [`vxm_visit`].
    fn vxm_visit_op(&self, v: &mut Self::Visited, level: usize, opts: &SpmspvOptions) -> crate::Result<Reached>;

    /// See [`visit_levels`]; by default one step, its direction by `rule` on
    /// the host.
    ///
    /// # Errors
    /// As [`visit_levels`].
    fn visit_levels_op(
        &self,
        v: &mut Self::Visited,
        at: &LevelState,
        rule: BfsDirection,
        strategy: MergeStrategy,
    ) -> crate::Result<Vec<LevelStep>> {
        let (f, n) = (at.frontier, self.nrows());
        let pulled = rule.pulls(at.pulling, f.nodes, f.arcs, at.unexplored, n);
        let direction = if pulled { PushPull::Pull } else { PushPull::Push };
        let reached = self.vxm_visit_op(v, at.level + 1, &SpmspvOptions { strategy, direction })?;
        Ok(vec![LevelStep { pulled, reached }])
    }

    /// The levels (`-1` unreached) and parents (`-1` unreached; the source
    /// its own) of `v`, on the host.
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn visited_to_host(v: &Self::Visited) -> crate::Result<(Vec<i64>, Vec<i64>)>;

    /// [`VisitOp::visited_to_host`] consuming `v` (on the host without a copy).
    ///
    /// # Errors
    /// CUDA errors on a device.
    fn visited_into_host(v: Self::Visited) -> crate::Result<(Vec<i64>, Vec<i64>)> {
        Self::visited_to_host(&v)
    }
}

/// One BFS level on the place of `a`: `q'⟨¬s(π), replace⟩ = qᵀ A` over
/// `(any, secondi)` for the frontier `q` of `v`, then `π⟨s(q')⟩ = q'`,
/// `levels⟨s(q')⟩ = level` and `q = q'`; returns the new frontier's nodes
/// and out-arcs. Push (`O(Σ_{u ∈ q} deg u)`) or pull (`O(n/64 + arcs
/// scanned)` on the host) by `opts.direction` (`Auto`: pull when
/// `|q| > pull_density · n`); the merge of the push by `opts.strategy` on
/// the host (the host runs the sorting strategies through [`vxm_sparse`](super::vxm_sparse)).
///
/// # Errors
/// [`MatrixError::DimensionMismatch`](super::MatrixError) if `v` was made
/// for another size; CUDA errors on a device.
pub fn vxm_visit<M: VisitOp>(v: &mut M::Visited, a: &M, level: usize, opts: &SpmspvOptions) -> crate::Result<Reached> {
    a.vxm_visit_op(v, level, opts)
}

/// Whether a step with `frontier` nodes out of `n` pulls.
pub(crate) fn pulls(direction: PushPull, frontier: usize, n: usize) -> bool {
    match direction {
        PushPull::Push => false,
        PushPull::Pull => true,
        PushPull::Auto { pull_density } => frontier as f64 > pull_density * n as f64,
    }
}
