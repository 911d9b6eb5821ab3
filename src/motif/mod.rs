//! Vertex-localized motif search by constrained multilinear sieving over
//! GF(2^b) (Kaski, Lauri, Thejaswi, SEA 2018).
//!
//! Given an undirected graph H with vertex colours `c(i)` and a motif M (a
//! multiset of k colours), a *match* is a connected set of k vertices whose
//! colours form M. [`localized`] reports, for every vertex, whether it lies
//! in at least one match; [`exists`] answers whether there is any match;
//! [`matches()`] lists the matches when the hit vertices induce isolated ones.
//!
//! # The sieve
//! One run draws random μ_{i,d}, ν_{d,ℓ} (d a *shade*: colour q has M(q)
//! shades) and α_{s,(i,j)} in GF(2^b), forms the labels
//! ζ_{i,ℓ} = Σ_{d ∈ S_{c(i)}} μ_{i,d} ν_{d,ℓ}, and for each of the 2^k
//! subsets L ⊆ {1, …, k} the label sums ζ_i^L = Σ_{ℓ∈L} ζ_{i,ℓ}; then
//! P_{i,1} = ζ_i^L and, for s = 2..k,
//! P_{i,s} = Σ_{j∈Γ(i)} α_{s,(i,j)} Σ_{s1+s2=s} P_{i,s1} P_{j,s2};
//! finally Q_i = Σ_L P_{i,k}(ζ^L). If i lies in no match, Q_i = 0 always;
//! if it lies in one, Q_i = 0 with probability at most k/2^(b−1). Reported
//! vertices are therefore always in a match (one-sided error), and runs
//! are repeated until the per-vertex false-negative bound (k/2^(b−1))^runs
//! is at most [`MotifOptions::delta`]. Cost per run: O(2^k k² m) field
//! multiplications; memory O(k · n · line width) on the CPU, O(k² · n · line
//! width) on the GPU (whose passes keep neighbour sums for later levels).
//!
//! The random values come from a counter-based hash of (seed, run, index)
//! ([`random`](self) in the source), so the CPU and the GPU compute the same Q_i
//! for the same seed. GF(2^8) runs bit-sliced (64 points per word; see
//! [`kronograph_semirings::bitsliced`]); GF(2^64) uses the carry-less
//! multiply and needs one run for any practical δ, but is slower per run
//! and CPU-only.
//!
//! Vertices whose colour is not in the motif cannot be in a match; with
//! [`MotifOptions::prune`] (default) the sieve runs on the subgraph of the
//! others only (the same polynomial: their labels are 0).
//!
//! ```
//! use kronograph::cuda::Backend;
//! use kronograph::graph::{Direction, GraphBuilder};
//! use kronograph::motif::{localized, MotifOptions};
//! // a path 0-1-2-3 coloured 5, 5, 7, 5
//! let mut b = GraphBuilder::<(), ()>::new(4, Direction::Undirected).default_node_labels();
//! for (u, v) in [(0, 1), (1, 2), (2, 3)] {
//!     b.push_edge(u, v, 1.0, ());
//! }
//! let g = b.build().unwrap();
//! let opts = MotifOptions { backend: Backend::Cpu, ..Default::default() };
//! let hits = localized(&g, &[5, 5, 7, 5], &[5, 7], &opts).unwrap();
//! assert_eq!(hits.hits, [false, true, true, true]);
//! assert!(hits.false_negative_bound <= 1e-6);
//! ```

mod cpu;
mod gpu;
mod instance;
mod lines;
mod random;
pub mod reference;
mod tuning;

pub use gpu::SOURCE as CUDA_SOURCE;
pub use instance::MAX_MOTIF_SIZE;
pub use tuning::{CpuPlan, MotifTuning};

use crate::backend::{resolve_devices_for, Backend};
use crate::graph::{Graph, Label};
use instance::Instance;

/// The field the sieve runs over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Field {
    /// GF(2^8) (modulus 0x11D), bit-sliced: per-run false-negative bound
    /// k/2^7, so several runs reach a small δ. CPU and GPU.
    #[default]
    Gf256,
    /// GF(2^64): per-run bound k/2^63 (one run). CPU only: with
    /// [`Backend::Auto`] it runs on the CPU, with [`Backend::Cuda`] it is
    /// [`MotifError::GpuField`].
    Gf2p64,
}

impl Field {
    /// Bits b of the field.
    pub fn bits(self) -> u32 {
        match self {
            Field::Gf256 => 8,
            Field::Gf2p64 => 64,
        }
    }

    /// The per-run, per-vertex false-negative bound k/2^(b−1) (capped at 1).
    pub fn run_bound(self, k: usize) -> f64 {
        (k as f64 / 2f64.powi(self.bits() as i32 - 1)).min(1.0)
    }
}

impl std::str::FromStr for Field {
    type Err = String;

    /// Parses `gf256` / `gf8` or `gf64`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "gf256" | "gf8" | "gf2^8" => Ok(Field::Gf256),
            "gf64" | "gf2^64" => Ok(Field::Gf2p64),
            _ => Err(format!("unknown field {s:?}: expected gf256 or gf64")),
        }
    }
}

/// Options of [`localized`] and [`exists`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotifOptions {
    /// The field (default bit-sliced GF(2^8)).
    pub field: Field,
    /// Target per-vertex false-negative probability δ ∈ (0, 1): runs are
    /// repeated until (k/2^(b−1))^runs ≤ δ. Default 1e-6.
    pub delta: f64,
    /// Seed of the random values (same seed, same answer on CPU and GPU).
    pub seed: u64,
    /// Where the sieve runs (default: the GPU when one can be used).
    pub backend: Backend,
    /// Run on the vertices whose colour is in the motif only (default
    /// `true`; the answer is the same, the work usually much smaller).
    pub prune: bool,
    /// Stop before the runs δ asks for once every vertex whose colour is in
    /// the motif is hit (default `true`: the answer is then certain).
    pub early_stop: bool,
    /// The sieve's speed knobs (default: the library's choices); results
    /// do not depend on them.
    pub tuning: MotifTuning,
}

impl Default for MotifOptions {
    fn default() -> Self {
        MotifOptions {
            field: Field::Gf256,
            delta: 1e-6,
            seed: 0,
            backend: Backend::Auto,
            prune: true,
            early_stop: true,
            tuning: MotifTuning::default(),
        }
    }
}

impl MotifOptions {
    /// Checks δ and the [`tuning`](Self::tuning) knobs (every search does
    /// so first).
    ///
    /// # Errors
    /// [`MotifError::Delta`] for δ ∉ (0, 1); [`MotifTuning::validate`]'s errors.
    pub fn validate(&self) -> Result<(), MotifError> {
        check_delta(self.delta)?;
        self.tuning.validate()
    }
}

/// The answer of [`localized`].
#[derive(Clone, Debug, PartialEq)]
pub struct MotifHits {
    /// For each vertex: whether it lies in a match (a `true` is certain; a
    /// `false` is wrong with probability at most
    /// [`false_negative_bound`](Self::false_negative_bound)).
    pub hits: Vec<bool>,
    /// Sieve runs made (0 when the answer needed none).
    pub runs: u32,
    /// The per-vertex false-negative bound reached, (k/2^(b−1))^runs
    /// (0 when the answer is certain, e.g. a motif colour is absent).
    pub false_negative_bound: f64,
    /// The device the sieve ran on (`None`: the CPU; with a device set, its
    /// first device).
    pub device: Option<usize>,
    /// Every device the sieve ran on (empty on the CPU).
    pub devices: Vec<usize>,
    /// Device time of the runs' kernels in seconds, measured with CUDA
    /// events around each run's launches (`None` on the CPU). It excludes
    /// the upload, the compile and the host's instance checks.
    pub kernel_seconds: Option<f64>,
}

/// The answer of [`exists`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotifDecision {
    /// Whether some match exists (`true` is certain).
    pub found: bool,
    /// Sieve runs made.
    pub runs: u32,
    /// Bound on the probability that `found == false` is wrong.
    pub false_negative_bound: f64,
}

/// Errors of motif search.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum MotifError {
    /// The colour list does not have one entry per vertex.
    #[error("{colors} colours were given for a graph of {nodes} vertices: give exactly one colour per vertex")]
    ColorCount {
        /// Colours given.
        colors: usize,
        /// Vertices of the graph.
        nodes: usize,
    },
    /// A motif with no colour.
    #[error("the motif is empty: give at least one colour (k >= 1)")]
    EmptyMotif,
    /// More motif colours than vertices.
    #[error(
        "the motif has k = {k} colours but the graph only {nodes} vertices: no match can exist; give k <= {nodes}"
    )]
    MotifTooLarge {
        /// Motif size.
        k: usize,
        /// Vertices.
        nodes: usize,
    },
    /// A motif beyond what the sieve can evaluate (2^k points per run).
    #[error("the motif has k = {k} colours; at most {max} are supported (the sieve evaluates 2^k points per run)")]
    MotifTooLong {
        /// Motif size.
        k: usize,
        /// The limit.
        max: usize,
    },
    /// δ outside (0, 1).
    #[error("delta = {delta} must lie in (0, 1) (the target per-vertex false-negative probability)")]
    Delta {
        /// The value given.
        delta: f64,
    },
    /// GF(2^64) asked of the GPU.
    #[error("the GPU sieve runs over GF(2^8) only: choose field gf256 or the CPU backend for gf64")]
    GpuField,
    /// [`MotifTuning::group_size`] outside 1..=8.
    #[error("tuning.group_size = {group_size}: give 1 to 8 levels per pass (or None for the default, 8)")]
    GroupSize {
        /// The value given.
        group_size: usize,
    },
    /// [`MotifTuning::line_words`] other than 1, 2, 4 or 8.
    #[error("tuning.line_words = {line_words}: give 1, 2, 4 or 8 words per bit plane (or None to choose by size)")]
    LineWords {
        /// The value given.
        line_words: usize,
    },
}

/// Runs needed for the per-vertex false-negative bound (k/2^(b−1))^runs
/// to reach δ (at least 1). [`localized`] makes at most this many, fewer
/// when every vertex whose colour is in the motif is hit earlier.
pub fn runs_needed(field: Field, k: usize, delta: f64) -> u32 {
    let p = field.run_bound(k);
    if p <= delta {
        return 1;
    }
    ((delta.ln() / p.ln()).ceil() as u32).max(1)
}

fn check_delta(delta: f64) -> Result<(), MotifError> {
    if delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(MotifError::Delta { delta })
    }
}

/// For every vertex, whether it lies in a match of `motif` (a multiset of
/// k colours) in the undirected graph `g` coloured by `colors` (one per
/// vertex), with per-vertex false-negative probability at most
/// `opts.delta` and no false positives.
///
/// A motif colour that no vertex has gives the answer (no vertex) at once,
/// with no run. Time per run O(2^k k² m) field operations.
///
/// # Errors
/// [`MotifError`] for bad input (colour count ≠ n, k = 0, k > n,
/// k > [`MAX_MOTIF_SIZE`], δ ∉ (0, 1), GF(2^64) on the GPU, a knob of
/// [`MotifOptions::tuning`] out of range); a graph error
/// for a directed graph; CUDA errors for an unusable explicit device.
pub fn localized<N: Label, E: Label>(
    g: &Graph<N, E>,
    colors: &[u32],
    motif: &[u32],
    opts: &MotifOptions,
) -> crate::Result<MotifHits> {
    opts.validate()?;
    let inst = Instance::new(g, colors, motif, opts.prune)?;
    let mut hits = vec![false; inst.n_input];
    if !inst.feasible {
        let none = Vec::new();
        return Ok(MotifHits {
            hits,
            runs: 0,
            false_negative_bound: 0.0,
            device: None,
            devices: none,
            kernel_seconds: None,
        });
    }
    let devices = device_for(opts)?;
    let engine = Engine::new(&inst, opts, devices.as_deref())?;
    let need = runs_needed(opts.field, inst.k, opts.delta);
    let mut local = vec![false; inst.n()];
    let mut runs = 0;
    let mut kernel_seconds = None;
    'runs: while runs < need {
        // the runs of a batch go to the devices together; they count (and
        // stop early) in order, as one after the other on one device
        let first = runs;
        for (q, secs) in engine.runs(&inst, opts.seed, first..first + engine.batch(first, need, opts.early_stop))? {
            kernel_seconds = secs.map(|s| s + kernel_seconds.unwrap_or(0.0));
            runs += 1;
            local.iter_mut().zip(&q).for_each(|(h, &v)| *h |= v != 0);
            if opts.early_stop && local.iter().zip(&inst.shade_count).all(|(&h, &c)| h || c == 0) {
                break 'runs; // every vertex that could be in a match is: certain
            }
        }
    }
    let bound = if local.iter().zip(&inst.shade_count).all(|(&h, &c)| h || c == 0) {
        0.0
    } else {
        opts.field.run_bound(inst.k).powi(runs as i32)
    };
    for (&v, &h) in inst.vertices.iter().zip(&local) {
        hits[v as usize] = h;
    }
    let devices = devices.unwrap_or_default();
    Ok(MotifHits { hits, runs, false_negative_bound: bound, device: devices.first().copied(), devices, kernel_seconds })
}

/// Whether `g` has any match of `motif` (false-negative probability at
/// most `opts.delta`); stops at the first run that finds one.
///
/// # Errors
/// As [`localized`].
pub fn exists<N: Label, E: Label>(
    g: &Graph<N, E>,
    colors: &[u32],
    motif: &[u32],
    opts: &MotifOptions,
) -> crate::Result<MotifDecision> {
    opts.validate()?;
    let inst = Instance::new(g, colors, motif, opts.prune)?;
    if !inst.feasible {
        return Ok(MotifDecision { found: false, runs: 0, false_negative_bound: 0.0 });
    }
    let engine = Engine::new(&inst, opts, device_for(opts)?.as_deref())?;
    let need = runs_needed(opts.field, inst.k, opts.delta);
    let mut run = 0;
    while run < need {
        let first = run;
        for (q, _) in engine.runs(&inst, opts.seed, first..first + engine.batch(first, need, true))? {
            run += 1;
            if q.iter().any(|&v| v != 0) {
                return Ok(MotifDecision { found: true, runs: run, false_negative_bound: 0.0 });
            }
        }
    }
    Ok(MotifDecision { found: false, runs: need, false_negative_bound: opts.field.run_bound(inst.k).powi(need as i32) })
}

/// The matches, when the hit vertices induce isolated matches: the
/// connected components of the subgraph induced by `hits`, each a set of
/// k vertices coloured as `motif` (sorted vertex ids, components ordered
/// by their smallest vertex). `None` when some component is not a match
/// (then matches overlap or touch, and the components do not tell them).
pub fn matches<N: Label, E: Label>(
    g: &Graph<N, E>,
    colors: &[u32],
    motif: &[u32],
    hits: &[bool],
) -> Option<Vec<Vec<usize>>> {
    let n = g.num_nodes();
    if hits.len() != n || colors.len() != n {
        return None;
    }
    let mut want = motif.to_vec();
    want.sort_unstable();
    let mut seen = vec![false; n];
    let mut out = Vec::new();
    for s in 0..n {
        if !hits[s] || seen[s] {
            continue;
        }
        seen[s] = true;
        let mut comp = vec![s];
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for &u in g.neighbors(v) {
                if hits[u] && !seen[u] {
                    seen[u] = true;
                    comp.push(u);
                    stack.push(u);
                }
            }
        }
        comp.sort_unstable();
        let mut got: Vec<u32> = comp.iter().map(|&v| colors[v]).collect();
        got.sort_unstable();
        if got != want {
            return None;
        }
        out.push(comp);
    }
    Some(out)
}

/// The per-vertex values Q_i of one sieve run (kept-vertex order is
/// internal; this returns them for the input's vertices, 0 for vertices
/// the run did not evaluate), for comparing backends and fields.
///
/// # Errors
/// As [`localized`].
pub fn sieve_run<N: Label, E: Label>(
    g: &Graph<N, E>,
    colors: &[u32],
    motif: &[u32],
    opts: &MotifOptions,
    run: u32,
) -> crate::Result<Vec<u64>> {
    opts.tuning.validate()?;
    let inst = Instance::new(g, colors, motif, opts.prune)?;
    let mut out = vec![0u64; inst.n_input];
    if !inst.feasible {
        return Ok(out);
    }
    let engine = Engine::new(&inst, opts, device_for(opts)?.as_deref())?;
    let (q, _) = engine.runs(&inst, opts.seed, run..run + 1)?.remove(0);
    for (&v, &x) in inst.vertices.iter().zip(&q) {
        out[v as usize] = x;
    }
    Ok(out)
}

fn device_for(opts: &MotifOptions) -> crate::Result<Option<Vec<usize>>> {
    // the device has no GF(2^64) arithmetic: Auto keeps that field on the CPU
    let devices = resolve_devices_for(opts.backend, opts.field != Field::Gf2p64)?;
    if devices.is_some() && opts.field == Field::Gf2p64 {
        return Err(MotifError::GpuField.into());
    }
    Ok(devices)
}

/// Where the runs of one query go: the CPU, a device holding the uploaded
/// instance, or several (each holding it).
enum Engine {
    Cpu(Field, MotifTuning),
    Gpu(Box<gpu::Prepared>),
    Gpus(Vec<gpu::Prepared>),
}

impl Engine {
    fn new(inst: &Instance, opts: &MotifOptions, devices: Option<&[usize]>) -> crate::Result<Engine> {
        let tuning = &opts.tuning;
        Ok(match devices {
            None | Some([]) => Engine::Cpu(opts.field, *tuning),
            Some(&[d]) => Engine::Gpu(Box::new(gpu::Prepared::new(inst, d, tuning)?)),
            // uploaded to every device at once, one host thread each
            Some(list) => Engine::Gpus(std::thread::scope(|s| {
                let up: Vec<_> = list.iter().map(|&d| s.spawn(move || gpu::Prepared::new(inst, d, tuning))).collect();
                up.into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect::<crate::Result<Vec<_>>>()
            })?),
        })
    }

    /// How many runs from `first` (of `need`) to make together: on the
    /// CPU one at a time; on devices all that are left (one launch
    /// sequence on one device), or, stopping early, the first run alone
    /// (on several devices split over them), then one run at a time on one
    /// device and as many runs as devices on several.
    fn batch(&self, first: u32, need: u32, early_stop: bool) -> u32 {
        let left = need - first;
        match self {
            Engine::Gpu(_) | Engine::Gpus(_) if !early_stop => left,
            Engine::Gpus(list) if first > 0 => left.min(list.len() as u32),
            _ => left.min(1),
        }
    }

    /// The per-vertex values of runs `runs`, and their kernels' device time
    /// (`None` on the CPU). On several devices the runs' 2^k evaluation
    /// points are cut into aligned ranges of a power-of-two size (at least
    /// as many ranges as devices, none larger than a device's chunk), taken
    /// by the devices from one queue ([`crate::spread`]), and each run's
    /// range sums added (XOR in GF(2^8)): the same values as one device.
    fn runs(
        &self,
        inst: &Instance,
        seed: u64,
        runs: std::ops::Range<u32>,
    ) -> crate::Result<Vec<(Vec<u64>, Option<f64>)>> {
        let key = |run: u32| random::run_key(seed, run);
        let list = match self {
            Engine::Cpu(field, tuning) => {
                return Ok(runs.map(|r| (cpu::sieve(inst, *field, tuning, key(r)), None)).collect())
            }
            Engine::Gpu(g) => {
                let keys: Vec<u64> = runs.map(key).collect();
                return Ok(g.runs(&keys)?.into_iter().map(|(q, s)| (q, Some(s))).collect());
            }
            Engine::Gpus(list) => list,
        };
        let points = 1usize << inst.k;
        let chunk = list.iter().map(gpu::Prepared::points_per_chunk).max().unwrap_or(points);
        let parts = points.div_ceil(chunk).max(list.len()).next_power_of_two().min((points / 32).max(1));
        let len = points / parts;
        let items: Vec<(u32, std::ops::Range<usize>)> =
            runs.clone().flat_map(|r| (0..parts).map(move |p| (r, p * len..(p + 1) * len))).collect();
        let queue = crate::spread::ChunkQueue::new(&vec![1.0; items.len()], list.len(), 1);
        let workers: Vec<usize> = (0..list.len()).collect();
        let parts_out = crate::spread::spread(
            &workers,
            1,
            &queue,
            |&w| Ok(&list[w]),
            |g, chunk| chunk.iter().map(|&i| g.run_points(key(items[i].0), items[i].1.clone())).collect(),
        )?;
        let mut out: Vec<(Vec<u64>, Option<f64>)> = runs.map(|_| (vec![0; inst.n()], Some(0.0))).collect();
        for ((run, _), (q, secs)) in items.iter().zip(parts_out) {
            let (sum, time) = &mut out[(*run - items[0].0) as usize];
            sum.iter_mut().zip(&q).for_each(|(s, &v)| *s ^= v);
            *time = time.map(|t| t + secs);
        }
        Ok(out)
    }
}
