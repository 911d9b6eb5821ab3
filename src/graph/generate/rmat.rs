//! The R-MAT / Graph500 Kronecker generator, parallel and deterministic.
//!
//! Edge `i` is a pure function of the seed and `i`: its random bits are
//! the words `i · w .. (i + 1) · w` (`w = ⌈scale/4⌉` 64-bit words, 16 bits
//! per level) of one SplitMix64 stream (Steele, Lea & Flood 2014), whose
//! word `k` is a mix of `seed + k · γ`, so every thread seeks to its edges
//! at no cost. Threads draw fixed chunks of edges, so a seed gives the same
//! graph on any number of threads.

use super::{invalid, unit_graph};
use crate::graph::{Graph, GraphError};
use rand::Rng;
use rayon::prelude::*;
use std::collections::HashSet;
use std::ops::Range;

/// Largest `scale` accepted by [`rmat`]: node ids are packed in 32 bits
/// (`2^32` nodes and `2^36` edges are far beyond memory anyway).
pub const RMAT_MAX_SCALE: u32 = 32;

/// Edges drawn by one task (a fixed size: the graph does not depend on the
/// thread count).
const CHUNK: usize = 1 << 14;

/// Random bits per level: probabilities are rounded to multiples of
/// `2^-16` (Graph500 uses multiples of `10^-4`).
const LEVEL_BITS: u32 = 16;

/// A self-loop's key (sorted last, then dropped).
const LOOP: u64 = u64::MAX;

/// Parameters of the R-MAT / Kronecker generator ([`rmat`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmatParams {
    /// `log2` of the number of nodes.
    pub scale: u32,
    /// Edges drawn per node: `edge_factor · 2^scale` edges are drawn
    /// (ignored when [`distinct_edges`](Self::distinct_edges) is set).
    pub edge_factor: usize,
    /// Probability of the top-left quadrant.
    pub a: f64,
    /// Probability of the top-right quadrant.
    pub b: f64,
    /// Probability of the bottom-left quadrant (the bottom-right one has `1 − a − b − c`).
    pub c: f64,
    /// Relabel the nodes by a seeded pseudo-random bijection of the ids, as
    /// the Graph500 reference does (otherwise node 0 is the hub and degrees
    /// fall with the id's bit count).
    pub permute: bool,
    /// Level noise `N` of the Graph500 reference generator
    /// (`SPK_NOISE_LEVEL / 10^4`; after Seshadhri, Pinar & Kolda): at level
    /// `ℓ` of `L`, `μ = N (2ℓ/L − 1)`, `b' = b + μ`, `c' = c + μ`, and `a`,
    /// `d` scaled by `(1 − b' − c') / (1 − b − c)`. It smooths the
    /// oscillating degree distribution of pure R-MAT. `0` (the reference's
    /// default) draws plain R-MAT; the reference's alternative is `0.1`.
    pub noise: f64,
    /// Draw until the graph has exactly this many distinct edges (self-loops
    /// and repeated edges are replaced by further draws; the first
    /// `distinct_edges` distinct edges in draw order are kept), instead of
    /// `edge_factor · 2^scale` draws.
    pub distinct_edges: Option<usize>,
}

impl RmatParams {
    /// The Graph500 parameters at the given scale: edge factor 16,
    /// `a = 0.57, b = c = 0.19` (so `d = 0.05`), no noise, permuted node ids.
    pub fn graph500(scale: u32) -> Self {
        RmatParams {
            scale,
            edge_factor: 16,
            a: 0.57,
            b: 0.19,
            c: 0.19,
            permute: true,
            noise: 0.0,
            distinct_edges: None,
        }
    }
}

impl Default for RmatParams {
    /// [`RmatParams::graph500`] at scale 10.
    fn default() -> Self {
        Self::graph500(10)
    }
}

/// R-MAT (recursive matrix) / Graph500 Kronecker graph, generated in
/// parallel (rayon).
///
/// `n = 2^scale` nodes. Each of `edge_factor · n` edges picks, for each of
/// the `scale` bits of its end points, one quadrant of the adjacency matrix
/// with probabilities `a, b, c, d = 1 − a − b − c` (Chakrabarti, Zhan &
/// Faloutsos 2004; the Graph500 generator, with its level noise when
/// [`RmatParams::noise`] is set). Ids are then relabelled by a seeded
/// bijection (a hash of the id's bits) when `permute` is set.
///
/// The graph is returned simple and undirected: each drawn edge is read
/// as undirected, **self-loops are dropped and duplicate edges merged**, so
/// the edge count is below `edge_factor · n`: with the Graph500
/// parameters about 53%, 65%, 74%, 81% and 87% of the draws survive at
/// scales 8, 10, 12, 14 and 16 (hubs draw the same pairs often, more so in
/// small graphs). With [`RmatParams::distinct_edges`] it has exactly that
/// many edges.
///
/// One 64-bit seed is taken from `rng`; the graph is then the same for the
/// same `rng` state whatever the number of threads.
///
/// Cost: `O(m · scale)` work for `m` draws, then a parallel sort of the `2m`
/// arcs; `O(m)` memory (about 32 bytes per draw at the peak).
///
/// # Errors
/// [`GraphError::InvalidParameters`] if `scale > 32`, `edge_factor · 2^scale`
/// overflows, `a, b, c` are not non-negative with `a + b + c <= 1`, the noise
/// is not in `[0, min(b, c, (1 − b − c)/2)]`, `distinct_edges` exceeds the
/// `n(n − 1)/2` node pairs, or its distinct edges are not reached within
/// `64 ·` that many draws.
pub fn rmat<R: Rng + ?Sized>(params: &RmatParams, rng: &mut R) -> Result<Graph, GraphError> {
    let draw = Draw::new(params, rng.random())?;
    let n = 1usize << params.scale;
    let drawn = match params.distinct_edges {
        Some(m) => {
            let pairs = (n as u128) * (n as u128 - 1) / 2;
            if m as u128 > pairs {
                return Err(invalid(format!(
                    "R-MAT at scale {} has only {pairs} node pairs, fewer than distinct_edges = {m}",
                    params.scale
                )));
            }
            m
        }
        None => params.edge_factor.checked_mul(n).ok_or_else(|| {
            invalid(format!("R-MAT edge_factor · 2^scale = {} · 2^{} overflows", params.edge_factor, params.scale))
        })?,
    };
    let mut keys = draw.edges(0..drawn as u64);
    sort_distinct(&mut keys);
    if let Some(m) = params.distinct_edges {
        top_up(&draw, &mut keys, drawn as u64, m)?;
    }
    Ok(from_sorted_keys(n, &keys))
}

/// What every edge draw needs: the seed, the per-level thresholds and the
/// node relabelling.
struct Draw {
    seed: u64,
    /// Per level, the 16-bit thresholds of the quadrants `a`, `a + b`, `a + b + c`.
    thresholds: Vec<[u32; 3]>,
    /// 64-bit words of the stream per edge.
    words: u64,
    /// The keys of the node relabelling ([`scramble`]), when permuting.
    relabel: Option<[u64; 6]>,
}

impl Draw {
    fn new(params: &RmatParams, seed: u64) -> Result<Self, GraphError> {
        let RmatParams { scale, a, b, c, permute, noise, .. } = *params;
        if scale > RMAT_MAX_SCALE {
            return Err(invalid(format!("R-MAT scale = {scale} exceeds the maximum {RMAT_MAX_SCALE}")));
        }
        for (name, x) in [("a", a), ("b", b), ("c", c), ("noise", noise)] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(invalid(format!("R-MAT {name} = {x} must be finite and >= 0")));
            }
        }
        if a + b + c > 1.0 + 1e-12 {
            return Err(invalid(format!("R-MAT needs a + b + c <= 1, got {}", a + b + c)));
        }
        let rest = (1.0 - b - c).max(0.0);
        let max_noise = b.min(c).min(rest / 2.0);
        if noise > max_noise + 1e-12 {
            return Err(invalid(format!(
                "R-MAT noise = {noise} must be at most min(b, c, (1 - b - c)/2) = {max_noise} to keep the quadrant probabilities in [0, 1]"
            )));
        }
        let unit = f64::from(1u32 << LEVEL_BITS);
        let thresholds = (0..scale)
            .map(|level| {
                let mu = noise * (2.0 * f64::from(level) / f64::from(scale) - 1.0);
                let (bl, cl) = (b + mu, c + mu);
                let s = if rest > 0.0 { (1.0 - bl - cl).max(0.0) / rest } else { 0.0 };
                let al = a * s;
                let t = |p: f64| (p * unit).round().clamp(0.0, unit) as u32;
                [t(al), t(al + bl), t(al + bl + cl)]
            })
            .collect();
        let relabel = permute.then(|| std::array::from_fn(|i| splitmix64(seed ^ (0x5eed + i as u64))));
        Ok(Draw { seed, thresholds, words: u64::from(scale.div_ceil(64 / LEVEL_BITS)), relabel })
    }

    /// The edges of draw indices `range`, as keys `min << 32 | max` of the
    /// relabelled ends ([`LOOP`] for a self-loop), in draw order.
    fn edges(&self, range: Range<u64>) -> Vec<u64> {
        let mut out = vec![0u64; (range.end - range.start) as usize];
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(k, chunk)| {
            let first = range.start + (k * CHUNK) as u64;
            let mut word = first.wrapping_mul(self.words);
            for key in chunk {
                *key = self.one_edge(&mut word);
            }
        });
        out
    }

    /// The edge whose random words start at stream position `*word` (advanced past them).
    fn one_edge(&self, word: &mut u64) -> u64 {
        let (mut u, mut v, mut bits) = (0u64, 0u64, 0u64);
        for (level, t) in self.thresholds.iter().enumerate() {
            if level % (64 / LEVEL_BITS) as usize == 0 {
                *word = word.wrapping_add(1);
                bits = splitmix64(self.seed.wrapping_add(word.wrapping_mul(GOLDEN_GAMMA)));
            }
            let r = (bits & ((1 << LEVEL_BITS) - 1)) as u32;
            bits >>= LEVEL_BITS;
            // quadrants a = (0, 0), b = (0, 1), c = (1, 0), d = (1, 1)
            let (ge0, ge1, ge2) = (u64::from(r >= t[0]), u64::from(r >= t[1]), u64::from(r >= t[2]));
            let (bu, bv) = (ge1, (ge0 ^ ge1) | ge2);
            u = 2 * u + bu;
            v = 2 * v + bv;
        }
        if let Some(keys) = &self.relabel {
            let bits = self.thresholds.len() as u32;
            (u, v) = (scramble(u, bits, keys), scramble(v, bits, keys));
        }
        if u == v {
            LOOP
        } else {
            (u.min(v) << 32) | u.max(v)
        }
    }
}

/// SplitMix64's increment (the odd integer closest to `2^64 / φ`).
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output mix of a state.
fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A seeded bijection of `0..2^bits` (the node relabelling), computed, not
/// tabled, as the Graph500 reference's `scramble`: multiplications by odd
/// keys and additions mod `2^bits`, xor-shifts and a bit reversal, each a
/// bijection, mixing every bit of the id into every other.
fn scramble(x: u64, bits: u32, keys: &[u64; 6]) -> u64 {
    if bits == 0 {
        return x;
    }
    let mask = u64::MAX >> (64 - bits);
    let half = bits.div_ceil(2);
    let mut x = (x.wrapping_mul(keys[0] | 1).wrapping_add(keys[1])) & mask;
    x ^= x >> half;
    x = x.wrapping_mul(keys[2] | 1) & mask;
    x = x.reverse_bits() >> (64 - bits);
    x = (x.wrapping_mul(keys[3] | 1).wrapping_add(keys[4])) & mask;
    x ^= x >> half;
    x.wrapping_mul(keys[5] | 1) & mask
}

/// Sorts, merges repeated keys and drops the self-loops.
fn sort_distinct(keys: &mut Vec<u64>) {
    keys.par_sort_unstable();
    keys.dedup();
    if keys.last() == Some(&LOOP) {
        keys.pop();
    }
}

/// Draws further edges (indices from `drawn` on) until `keys` holds `m`
/// distinct edges, keeping new ones in draw order.
fn top_up(draw: &Draw, keys: &mut Vec<u64>, mut drawn: u64, m: usize) -> Result<(), GraphError> {
    let cap = 64 * (m as u64).max(1024);
    while keys.len() < m {
        if drawn >= cap {
            return Err(invalid(format!(
                "R-MAT reached only {} distinct edges of the {m} asked in {drawn} draws (the skewed \
                 distribution repeats edges); ask for fewer distinct edges or a larger scale",
                keys.len()
            )));
        }
        let deficit = (m - keys.len()) as f64;
        let draws_per_edge = drawn as f64 / keys.len().max(1) as f64;
        let batch = ((deficit * draws_per_edge * 1.1) as u64 + 1024).min(cap - drawn);
        let fresh = draw.edges(drawn..drawn + batch);
        drawn += batch;
        let mut seen = HashSet::new();
        let mut added = Vec::new();
        for k in fresh {
            if keys.len() + added.len() == m {
                break;
            }
            if k != LOOP && keys.binary_search(&k).is_err() && seen.insert(k) {
                added.push(k);
            }
        }
        keys.extend(added);
        keys.par_sort_unstable();
    }
    Ok(())
}

/// The graph of sorted distinct keys `u << 32 | v` (`u < v`): both arcs of
/// each edge, sorted in parallel, give the CSR rows in order.
fn from_sorted_keys(n: usize, keys: &[u64]) -> Graph {
    let mut arcs: Vec<u64> = keys.par_iter().flat_map_iter(|&k| [k, k.rotate_left(32)]).collect();
    arcs.par_sort_unstable();
    let mut indptr = vec![0usize; n + 1];
    for &x in &arcs {
        indptr[(x >> 32) as usize + 1] += 1;
    }
    for i in 0..n {
        indptr[i + 1] += indptr[i];
    }
    let indices: Vec<usize> = arcs.par_iter().map(|&x| (x & u64::from(u32::MAX)) as usize).collect();
    unit_graph(indptr, indices)
}
