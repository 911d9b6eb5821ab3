//! Single-source shortest paths: delta-stepping (the default, parallel) and
//! Bellman–Ford over the (min, +) semiring.

use super::delta_stepping::delta_rule;
use super::AlgorithmError;
use crate::graph::{Graph, Label};
use crate::matrix::{
    assign_min, relax_rounds, split_far, vxm_sparse, AssignMinOp, Descriptor, Located, Queues, RelaxOp, SparseMatrix,
    SpmspvOptions, VxmSparseOp,
};
use crate::semirings::MinPlus;
use rayon::prelude::*;

/// How [`sssp_matrix`] computes the distances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SsspMethod {
    /// Delta-stepping (Meyer & Sanders 2003) in its near-far form (Davidson
    /// et al. 2014): thresholds `Δ` apart, a near and a far queue,
    /// relaxations in parallel.
    #[default]
    DeltaStepping,
    /// Bellman–Ford in semiring form: rounds of `t = fᵀ A` over `(min, +)`
    /// on the frontier of changed distances.
    BellmanFord,
}

impl std::str::FromStr for SsspMethod {
    type Err = String;

    /// Parses `delta` / `delta-stepping` or `bellman-ford` / `bf`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "delta" | "delta-stepping" => Ok(SsspMethod::DeltaStepping),
            "bellman-ford" | "bf" => Ok(SsspMethod::BellmanFord),
            _ => Err(format!("unknown SSSP method {s:?}: expected delta-stepping or bellman-ford")),
        }
    }
}

impl std::fmt::Display for SsspMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SsspMethod::DeltaStepping => "delta-stepping",
            SsspMethod::BellmanFord => "bellman-ford",
        })
    }
}

/// Options of [`sssp_matrix`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SsspOptions {
    /// The method (delta-stepping by default).
    pub method: SsspMethod,
    /// The bucket width `Δ` of delta-stepping (finite, `> 0`); `None`
    /// chooses it by [`auto_delta`](super::auto_delta)'s rule. Ignored by Bellman–Ford.
    pub delta: Option<f64>,
}

/// The result of [`sssp`] / [`sssp_matrix`].
#[derive(Clone, Debug, PartialEq)]
pub struct SsspResult {
    /// Distance from the source (`+∞` if unreachable).
    pub distances: Vec<f64>,
    /// Relaxation rounds performed: min-plus products for Bellman–Ford,
    /// near-queue relaxation rounds for delta-stepping.
    pub rounds: usize,
    /// The bucket width used (`None` for Bellman–Ford).
    pub delta: Option<f64>,
}

impl SsspResult {
    /// Number of nodes reached (finite distance), the source included.
    pub fn reached(&self) -> usize {
        self.distances.iter().filter(|d| d.is_finite()).count()
    }
}

/// Shortest-path distances from `source` along arcs `u → v` of weight `w_uv`
/// (the graph's weights), by delta-stepping with the automatic `Δ`:
/// [`sssp_matrix`] with [`SsspOptions::default`].
///
/// # Errors
/// Those of [`sssp_matrix`].
pub fn sssp<N: Label, E: Label>(g: &Graph<N, E>, source: usize) -> Result<SsspResult, AlgorithmError> {
    sssp_matrix(&SparseMatrix::from_graph(g), source, &SsspOptions::default())
}

/// Shortest-path distances from `source` along arcs `i → j` of weight
/// `A(i, j)` (finite and `>= 0`; zero weights are allowed).
///
/// - Delta-stepping, near-far form ([`DeltaStepping`], the same source on
///   every place): the near queue (distances below the threshold `t`) is
///   relaxed in rounds, in parallel (atomic minimum on the distance),
///   until empty; lowered nodes at or past `t` wait in the far queue; then
///   `t += Δ` and the far queue is split at it. Work `O(n + m)` times the
///   re-relaxations below a threshold; rounds about `(max distance / Δ) ×`
///   the path length inside a step of `Δ`.
/// - Bellman–Ford: `d` starts at `0` for the source and `∞` elsewhere; each
///   round computes `t = fᵀ A` over `(min, +)` for the frontier `f` of
///   distances that changed in the previous round (SpMSpV, push or pull by
///   density) and lowers `d(v)` to `t(v)` where smaller; at most `n − 1`
///   rounds, each `O(flops + n)`.
///
/// Distances are sums along one shortest path, added in path order, so the
/// two methods (and Dijkstra) may differ in the last bits: compare with a
/// relative tolerance.
///
/// # Errors
/// [`AlgorithmError::NotSquare`], [`AlgorithmError::SourceOutOfRange`],
/// [`AlgorithmError::InvalidWeight`] (a negative, infinite or NaN weight),
/// [`AlgorithmError::InvalidDelta`] (a given `Δ` not finite and `> 0`),
/// [`AlgorithmError::DistanceOverflow`] (a path sum beyond the largest
/// `f64`, [`check_overflow`]).
pub fn sssp_matrix(a: &SparseMatrix<f64>, source: usize, opts: &SsspOptions) -> Result<SsspResult, AlgorithmError> {
    let n = a.nrows();
    if a.ncols() != n {
        return Err(AlgorithmError::NotSquare { what: "SSSP", rows: n, cols: a.ncols() });
    }
    if source >= n {
        return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n });
    }
    match opts.method {
        SsspMethod::BellmanFord => {
            check_weights(a)?;
            bellman_ford(a, source)
        }
        SsspMethod::DeltaStepping => {
            let r = DeltaStepping::new(a, opts.delta).and_then(|mut d| d.run(a, source)).map_err(super::host_error)?;
            check_overflow(a, &r.distances)?;
            Ok(r)
        }
    }
}

/// Checks that no distance overflowed, on any backend's result: a node at
/// `+∞` with an arc from a node at a finite distance is reachable, and
/// its distance is infinite only because the path sum exceeded the
/// largest `f64` (a correct finite sum would have been at most
/// `d(u) + w`). `O(n + m)`, in parallel.
///
/// # Errors
/// [`AlgorithmError::DistanceOverflow`] naming the first such node (by its
/// reached predecessor's id).
pub fn check_overflow(a: &SparseMatrix<f64>, distances: &[f64]) -> Result<(), AlgorithmError> {
    let bad = (0..a.nrows().min(distances.len())).into_par_iter().find_map_first(|u| {
        let du = distances[u];
        if !du.is_finite() {
            return None;
        }
        let (cols, vals) = a.row(u);
        cols.iter()
            .zip(vals)
            .find(|&(&v, _)| distances.get(v).is_some_and(|d| d.is_infinite()))
            .map(|(&v, &w)| AlgorithmError::DistanceOverflow { node: v, from: u, distance: du, weight: w })
    });
    bad.map_or(Ok(()), Err)
}

/// Every weight finite and `>= 0`, else the first bad arc.
pub(crate) fn check_weights(a: &SparseMatrix<f64>) -> Result<(), AlgorithmError> {
    let bad = a.values().par_iter().position_first(|w| !(w.is_finite() && *w >= 0.0));
    match bad {
        None => Ok(()),
        Some(k) => {
            let from = a.indptr().partition_point(|&p| p <= k) - 1;
            Err(AlgorithmError::InvalidWeight { from, to: a.indices()[k], weight: a.values()[k] })
        }
    }
}

fn bellman_ford(a: &SparseMatrix<f64>, source: usize) -> Result<SsspResult, AlgorithmError> {
    let r = bellman_ford_in(a, source, &SpmspvOptions::default()).map_err(super::host_error)?;
    check_overflow(a, &r.distances)?;
    Ok(r)
}

/// Bellman–Ford in semiring form on the weights `a` (finite, `>= 0`, not
/// checked here), wherever they live: the host ([`SparseMatrix`]) or a
/// device ([`DeviceMatrix`](crate::matrix::gpu::DeviceMatrix)). One source
/// for every place, over [`vxm_sparse`] (min, +; merged by `opts`) and
/// [`assign_min`]: `d` starts at `0` for the source and `∞` elsewhere,
/// each round `t = fᵀ A` for the frontier `f` of lowered distances and
/// `d = min(d, t)`, at most `n` rounds. The overflow check
/// ([`check_overflow`]) reads the host matrix and is the caller's.
///
/// # Errors
/// [`AlgorithmError::NotSquare`], [`AlgorithmError::SourceOutOfRange`];
/// CUDA errors on a device.
pub fn bellman_ford_in<M>(a: &M, source: usize, opts: &SpmspvOptions) -> crate::Result<SsspResult>
where
    M: Located,
    M::Sparse<f64>: VxmSparseOp<MinPlus<f64>, M::Sparse<f64>, M>,
    M::Dense<f64>: AssignMinOp<M::Sparse<f64>>,
{
    let n = super::components::square("SSSP", a.nrows(), a.ncols())?;
    if source >= n {
        return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n }.into());
    }
    let mut init = vec![f64::INFINITY; n];
    init[source] = 0.0;
    let mut d = a.dense(init)?;
    let mut frontier = a.sparse(n, vec![source], vec![0.0])?;
    let mut t = a.sparse(n, Vec::new(), Vec::new())?;
    let mut rounds = 0;
    while M::sparse_nnz(&frontier) > 0 && rounds < n {
        vxm_sparse(&mut t, None, None, MinPlus::<f64>::new(), &frontier, a, &Descriptor::DEFAULT, opts)?;
        rounds += 1;
        assign_min(&mut d, &t, &mut frontier)?;
    }
    Ok(SsspResult { distances: M::dense_to_host(&d)?, rounds, delta: None })
}

/// Delta-stepping single-source shortest paths prepared on the weights
/// `a` wherever they live: the host ([`SparseMatrix<f64>`]) or a device
/// ([`DeviceMatrix<f64>`](crate::matrix::gpu::DeviceMatrix)), its state
/// ([`RelaxOp::Relaxed`]) allocated once and reused by every
/// [`DeltaStepping::run`]. One source for every place: the near-far form
/// of delta-stepping (Davidson, Baxter, Garland & Owens 2014) over the
/// operations [`relax_rounds`] (rounds of [`relax_near`](crate::matrix::relax_near)) and [`split_far`]. Near-far is delta-stepping
/// with two buckets instead of `max d / Δ`: the near queue holds the nodes
/// below the threshold `t`, the far queue every other lowered node. Rounds
/// relax all arcs of the near queue (no light/heavy split: a heavy arc
/// lands in the far queue, as a heavy-phase relaxation lands in a later
/// bucket) until it is empty; then `t += Δ` and the far queue is split at
/// the new `t`; when nothing falls below it, `t` jumps to the far queue's
/// smallest distance plus `Δ`.
pub struct DeltaStepping<M: RelaxOp> {
    state: M::Relaxed,
    delta: f64,
}

impl<M: RelaxOp> DeltaStepping<M> {
    /// The state for shortest paths along arcs `u → v` of weight `A(u, v)`
    /// of the square `a`, with bucket width `delta` (`None`:
    /// [`auto_delta`](super::auto_delta)'s rule, from the weights' extremes found on the
    /// place, times the place's [`RelaxOp::delta_scale`]). Checks the
    /// weights (on a device there).
    ///
    /// # Errors
    /// [`AlgorithmError::NotSquare`], [`AlgorithmError::InvalidWeight`] (a
    /// negative, infinite or NaN weight: the first such arc),
    /// [`AlgorithmError::InvalidDelta`]; CUDA errors on a device.
    pub fn new(a: &M, delta: Option<f64>) -> crate::Result<Self> {
        let n = super::components::square("SSSP", a.nrows(), a.ncols())?;
        let w = a.weights()?;
        if let Some((from, to, weight)) = w.invalid {
            return Err(AlgorithmError::InvalidWeight { from, to, weight }.into());
        }
        if let Some(d) = delta.filter(|d| !(d.is_finite() && *d > 0.0)) {
            return Err(AlgorithmError::InvalidDelta { delta: d }.into());
        }
        let delta = delta.unwrap_or_else(|| delta_rule(w.max, w.min_pos, w.arcs, n) * a.delta_scale());
        Ok(DeltaStepping { state: a.relaxed()?, delta })
    }

    /// The bucket width in use.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// The relaxation loop from `source` on `a` (the matrix this state was
    /// made for): returns the relaxation rounds, the distances left in the
    /// state ([`DeltaStepping::distances`]). On a device each step reads
    /// the queue sizes (the device is synchronized when it returns).
    ///
    /// # Errors
    /// [`AlgorithmError::SourceOutOfRange`]; CUDA errors on a device.
    pub fn relax_from(&mut self, a: &M, source: usize) -> crate::Result<usize> {
        let n = a.nrows();
        if source >= n {
            return Err(AlgorithmError::SourceOutOfRange { source_node: source, num_nodes: n }.into());
        }
        let r = &mut self.state;
        a.relax_source(r, source)?;
        let (mut q, mut rounds) = (Queues { near: 1, far: 0, far_min: f64::INFINITY }, 0usize);
        let (mut lo, mut thr) = (0.0f64, self.delta);
        loop {
            if q.near > 0 {
                let (after, k) = relax_rounds(r, a, thr)?;
                (q, rounds) = (after, rounds + k);
            }
            if q.far == 0 {
                break;
            }
            lo = lo.max(thr);
            thr += self.delta;
            loop {
                q = split_far(r, a, lo, thr)?;
                if q.near > 0 || q.far == 0 {
                    break;
                }
                // nothing below thr: jump to the far queue's smallest distance
                thr = (q.far_min + self.delta).max(f64::from_bits(q.far_min.to_bits() + 1));
            }
            if q.near == 0 {
                break;
            }
        }
        Ok(rounds)
    }

    /// The distances of the last [`DeltaStepping::relax_from`] (`+∞` where
    /// unreachable), on the host.
    ///
    /// # Errors
    /// CUDA errors on a device.
    pub fn distances(&self) -> crate::Result<Vec<f64>> {
        M::distances_to_host(&self.state)
    }

    /// Distances from `source` (equal to Dijkstra's up to the order of the
    /// additions along equal-length paths) and the relaxation rounds.
    ///
    /// # Errors
    /// As [`DeltaStepping::relax_from`].
    pub fn run(&mut self, a: &M, source: usize) -> crate::Result<SsspResult> {
        let rounds = self.relax_from(a, source)?;
        Ok(SsspResult { distances: self.distances()?, rounds, delta: Some(self.delta) })
    }
}
