//! The fast graphlet transform (FGLT): for every vertex, the raw
//! (non-induced) and net (induced) frequencies of the 16 orbits of the
//! graphlets with up to 4 vertices (Floros, Pitsianis & Sun, "Fast Graphlet
//! Transform of Sparse Graphs", IEEE HPEC 2020).
//!
//! # The transform
//! With `A` the 0/1 adjacency (self-loops dropped, weights not read),
//! `d = A e`, `W = A² ∘ A` (common neighbours on each edge), `C(x, k)`
//! binomials and products of vectors elementwise, the raw frequencies are
//!
//! | k | orbit | raw `d̂_k` |
//! |---|---|---|
//! | 0 | vertex | `e` |
//! | 1 | edge | `d` |
//! | 2 | 2-path, end | `A d − d` |
//! | 3 | 2-path, middle | `C(d, 2)` |
//! | 4 | triangle | `½ W e` |
//! | 5 | 3-path, end | `A d̂2 − d (d − 1) − 2 d̂4` |
//! | 6 | 3-path, interior | `d̂2 (d − 1) − 2 d̂4` |
//! | 7 | claw, leaf | `A C(d − 1, 2)` |
//! | 8 | claw, centre | `C(d, 3)` |
//! | 9 | paw, pendant | `A d̂4 − 2 d̂4` |
//! | 10 | paw, base | `W (d − 2)` |
//! | 11 | paw, centre | `(d − 2) d̂4` |
//! | 12 | 4-cycle | `Σ_{j≠i} C((A²)_ij, 2)` (enumerated) |
//! | 13 | diamond, off-cord | `½ diag(A (W − A) A)` |
//! | 14 | diamond, on-cord | `Σ_j C(W_ij, 2)` |
//! | 15 | 4-clique | 4-cliques at `i` (enumerated) |
//!
//! and the net frequencies are `f = T d̂` with the unit upper triangular `T`
//! of [`transform::net_row`] (its inverse in [`transform::raw_from_net_row`]).
//! Column names follow FGLT's CSV header ([`ORBIT_NAMES`]).
//!
//! # How it is computed
//! The vertices are first relabelled by increasing degree ([`pattern`]).
//! On the CPU `d`, `A·x` and `A·(W e)` are the library's own sparse
//! operations (`reduce_rows`, `mxv`); `W` on the strictly lower triangle,
//! stored alongside `A`'s entries, then `W e`, `W (d − 2)`,
//! `Σ_j C(W_ij, 2)`, `diag(A (W − A) A)` and the 4-cycles in one fused
//! pass per vertex, and the 4-cliques, are enumerations over neighbourhoods
//! (the `enumerate` module, whose docs say why the `W` products are not library
//! operations: as masked `mxm`/`apply`/`reduce_rows` they took eight passes
//! over `W` in random order), and [`transform::assemble`] turns them into
//! the raw and net counts. On a CUDA device the whole transform runs on the
//! device ([`gpu`]: relabelling, the same primitives, and the raw → net
//! conversion with `transform`'s net table), the host only uploading the
//! graph and downloading the two tables; the backends agree exactly
//! (integers, no rounding).
//!
//! Cost: `O(n + m + Σ_{ij ∈ E} min(d_i, d_j) + m √m)` time (the last two
//! terms bound the masked products and the enumerations in degree order),
//! `O(n + m)` memory plus `O(n)` per worker. Counts are exact while they fit
//! in 64 bits.
//!
//! # Examples
//! ```
//! use kronograph::graph::{Direction, GraphBuilder};
//! use kronograph::graphlets::{fglt, ORBIT_NAMES};
//! use kronograph::cuda::Backend;
//! // a triangle 0–1–2 with a pendant vertex 3 on 2 (a paw)
//! let g = GraphBuilder::<(), ()>::new(4, Direction::Undirected)
//!     .default_node_labels()
//!     .edge(0, 1, 1.0, ()).edge(1, 2, 1.0, ()).edge(0, 2, 1.0, ()).edge(2, 3, 1.0, ())
//!     .build().unwrap();
//! let t = fglt(&g, Backend::Cpu).unwrap();
//! assert_eq!(ORBIT_NAMES[11], "[11] paw, center");
//! assert_eq!(t.net.row(2)[11], 1); // vertex 2 is the paw's centre
//! assert_eq!(t.net.row(3)[9], 1); // vertex 3 its pendant
//! assert_eq!(t.raw.row(0)[4], 1); // one triangle at vertex 0
//! ```

mod cpu;
mod enumerate;
pub mod gpu;
pub mod pattern;
pub mod transform;
mod types;

pub use pattern::Pattern;
pub use transform::Primitives;
pub use types::{Fglt, Frequencies, Ignored, StageProgress, ORBITS, ORBIT_NAMES};

use crate::cuda::{resolve_backend, Backend};
use crate::graph::{Graph, GraphError, Label};
use std::time::Instant;

/// Options of [`fglt_with`].
#[derive(Clone, Default)]
pub struct FgltOptions {
    /// Where to run ([`Backend::Auto`]: the first CUDA device if one can be
    /// used, else the CPU).
    pub backend: Backend,
    /// Called as each stage starts (progress display for large graphs).
    pub progress: Option<StageProgress>,
}

impl std::fmt::Debug for FgltOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FgltOptions").field("backend", &self.backend).finish_non_exhaustive()
    }
}

/// Number of stages reported to [`FgltOptions::progress`], at most (the
/// CPU reports 6, a CUDA device 8).
pub const STAGES: usize = 8;

/// The raw and net frequencies of the 16 orbits at every vertex of an
/// undirected graph (see the [module](self) for the formulas).
///
/// Self-loops and weights are ignored (the counts are those of the simple
/// graph underneath; [`Fglt::ignored`] says what was dropped).
///
/// # Errors
/// [`GraphError::DirectedNotSupported`] for a directed graph (symmetrize
/// it, e.g. read it as undirected, first); the backend's errors for
/// [`Backend::Cuda`] (no device, or a build without the `cuda` feature:
/// [`Error::CudaNotCompiled`](crate::Error::CudaNotCompiled)).
pub fn fglt<N: Label, E: Label>(g: &Graph<N, E>, backend: Backend) -> crate::Result<Fglt> {
    fglt_with(g, &FgltOptions { backend, ..Default::default() })
}

/// [`fglt`] with options (progress callback).
///
/// # Errors
/// As [`fglt`].
pub fn fglt_with<N: Label, E: Label>(g: &Graph<N, E>, opts: &FgltOptions) -> crate::Result<Fglt> {
    if g.is_directed() {
        return Err(GraphError::DirectedNotSupported {
            what: "the graphlet transform (FGLT counts graphlets of simple undirected graphs; \
                   load the graph as undirected or add the reverse arcs)"
                .into(),
        }
        .into());
    }
    let device = resolve_backend(opts.backend)?;
    let mut index = 0;
    let mut stage = |name: &'static str| {
        if let Some(p) = &opts.progress {
            p(name, index, STAGES);
        }
        index += 1;
    };
    let mut stages = Vec::new();
    let overflow = |order: &[usize], o: transform::Overflow| GraphError::CountOverflow {
        vertex: order[o.position],
        orbit: o.orbit,
        name: ORBIT_NAMES[o.orbit],
        what: if o.exact { "exceeds" } else { "may exceed" },
    };
    let Some(ordinal) = device else {
        stage("relabel by degree");
        let t = Instant::now();
        let pattern = Pattern::of_graph(g);
        stages.push(("relabel by degree", t.elapsed()));
        let prims = cpu::primitives(&pattern, &mut stage, &mut stages)?;
        stage("raw and net");
        let t = Instant::now();
        let (raw, net) = transform::assemble(&prims, &pattern.order).map_err(|o| overflow(&pattern.order, o))?;
        stages.push(("raw and net", t.elapsed()));
        return Ok(Fglt { raw, net, ignored: pattern.ignored, stages, device });
    };
    let run = gpu::transform(g, ordinal, &mut stage, &mut stages)?;
    let ignored = Ignored { self_loops: run.self_loops, weighted: run.weighted };
    let (raw, net) = match run.result {
        gpu::DeviceResult::Frequencies { raw, net } => (raw, net),
        gpu::DeviceResult::Primitives { prims, order } => {
            stage("raw and net");
            let t = Instant::now();
            let r = transform::assemble(&prims, &order).map_err(|o| overflow(&order, o))?;
            stages.push(("raw and net", t.elapsed()));
            r
        }
    };
    Ok(Fglt { raw, net, ignored, stages, device })
}
