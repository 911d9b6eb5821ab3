//! Random graph generators, seeded and reproducible.
//!
//! Every generator takes the random source as `&mut R` with `R: Rng`. For
//! reproducible graphs use a portable, seedable generator such as
//! [`rand_chacha::ChaCha8Rng`]:
//!
//! ```
//! use kronograph::graph::generate;
//! use rand::SeedableRng;
//! use rand_chacha::ChaCha8Rng;
//! let g = generate::barabasi_albert(96, 6, &mut ChaCha8Rng::seed_from_u64(7)).unwrap();
//! let h = generate::barabasi_albert(96, 6, &mut ChaCha8Rng::seed_from_u64(7)).unwrap();
//! assert_eq!(g.num_edges(), 6 * (96 - 6));
//! assert_eq!(g.indices(), h.indices());
//! ```
//!
//! All generators return simple undirected graphs ([`Graph<(), ()>`], no
//! labels, unit weights): no self-loops, no duplicate edges. Bad parameters
//! give [`GraphError::InvalidParameters`] naming the parameter and the valid
//! range; no generator panics on any input.
//!
//! | generator | model | edges |
//! | --- | --- | --- |
//! | [`newman_watts_strogatz`] | ring lattice + random shortcuts | `n⌊k/2⌋` + about `p n⌊k/2⌋` |
//! | [`barabasi_albert`] | preferential attachment | exactly `m (n − m)` |
//! | [`erdos_renyi_gnp`] | each pair independently with probability `p` | `Binomial(n(n−1)/2, p)` |
//! | [`erdos_renyi_gnm`] | uniform among graphs with `m` edges | exactly `m` |
//! | [`random_regular`] | uniform-ish `d`-regular (Steger–Wormald) | exactly `n d / 2` |
//! | [`rmat`] | R-MAT / Graph500 Kronecker (parallel) | at most `edge_factor · 2^scale`, or exactly [`RmatParams::distinct_edges`] |
//!
//! The first two follow the definitions of networkx (`newman_watts_strogatz_graph`,
//! `barabasi_albert_graph`), which made the bundled `data/synthetic` sets.

mod rmat;

pub use rmat::{rmat, RmatParams, RMAT_MAX_SCALE};

use super::core::{Direction, Graph};
use super::GraphError;
use rand::seq::SliceRandom;
use rand::Rng;
use rayon::prelude::*;
use sprs::CsMat;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// How many times [`random_regular`] restarts before giving up.
const REGULAR_MAX_TRIES: usize = 1000;

fn invalid(msg: impl Into<String>) -> GraphError {
    GraphError::InvalidParameters(msg.into())
}

fn check_probability(name: &str, p: f64) -> Result<(), GraphError> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(invalid(format!("{name} = {p} must be a probability in [0, 1]")))
    }
}

/// Newman–Watts–Strogatz small-world graph.
///
/// Starts from a ring lattice in which each node is joined to its `⌊k/2⌋`
/// nearest neighbours on each side (`n⌊k/2⌋` edges), then for each lattice
/// edge `(u, v)`, with probability `p`, adds a shortcut `(u, w)` to a node
/// `w` drawn uniformly among those not yet adjacent to `u` (redrawn on a
/// self-loop or an existing edge; skipped when `u` is adjacent to every
/// node). Lattice edges are never removed (unlike Watts–Strogatz). This is
/// networkx's `newman_watts_strogatz_graph(n, k, p)`; with `k = 3` the
/// lattice is the plain cycle, as in the bundled NWS96 set.
///
/// Cost: `O(n k)` expected time and memory.
///
/// # Errors
/// [`GraphError::InvalidParameters`] if `k >= n` (for `n >= 1`) or `p` is not in `[0, 1]`.
pub fn newman_watts_strogatz<R: Rng + ?Sized>(n: usize, k: usize, p: f64, rng: &mut R) -> Result<Graph, GraphError> {
    check_probability("p", p)?;
    if n > 0 && k >= n {
        return Err(invalid(format!("k = {k} neighbours must be below n = {n}")));
    }
    let half = k / 2;
    let mut adj: Vec<HashSet<usize>> = vec![HashSet::new(); n];
    let mut lattice = Vec::with_capacity(n * half);
    for u in 0..n {
        for j in 1..=half {
            let v = (u + j) % n;
            lattice.push((u, v));
            adj[u].insert(v);
            adj[v].insert(u);
        }
    }
    for &(u, _) in &lattice {
        if rng.random::<f64>() < p {
            if adj[u].len() + 1 >= n {
                continue;
            }
            loop {
                let w = rng.random_range(0..n);
                if w != u && !adj[u].contains(&w) {
                    adj[u].insert(w);
                    adj[w].insert(u);
                    break;
                }
            }
        }
    }
    Ok(from_adjacency_sets(adj))
}

/// Barabási–Albert preferential-attachment graph.
///
/// Starts from a star on nodes `0..=m` (node 0 the centre, `m` edges); each
/// further node `t = m+1, …, n−1` is joined to `m` distinct earlier nodes,
/// drawn with probability proportional to their degree (by sampling a list
/// in which each node appears once per incident edge end). The result has
/// exactly `m + m (n − m − 1) = m (n − m)` edges; every node added after
/// the star has degree `>= m` (the leaves of the star may keep degree 1).
/// This is networkx's `barabasi_albert_graph(n, m)` (networkx ≥ 2.x).
///
/// Cost: `O(n m)` expected time and memory.
///
/// # Errors
/// [`GraphError::InvalidParameters`] unless `1 <= m < n`.
pub fn barabasi_albert<R: Rng + ?Sized>(n: usize, m: usize, rng: &mut R) -> Result<Graph, GraphError> {
    if m < 1 || m >= n {
        return Err(invalid(format!("Barabási–Albert needs 1 <= m < n, got m = {m}, n = {n}")));
    }
    let mut edges = Vec::with_capacity(m * (n - m));
    let mut repeated = Vec::with_capacity(2 * m * (n - m));
    for v in 1..=m {
        edges.push((0, v));
        repeated.extend([0, v]);
    }
    let mut targets: Vec<usize> = Vec::with_capacity(m);
    for t in (m + 1)..n {
        targets.clear();
        while targets.len() < m {
            let x = repeated[rng.random_range(0..repeated.len())];
            if !targets.contains(&x) {
                targets.push(x);
            }
        }
        for &x in &targets {
            edges.push((x, t));
            repeated.extend([x, t]);
        }
    }
    Ok(from_edges(n, edges))
}

/// Erdős–Rényi `G(n, p)`: each of the `n(n−1)/2` node pairs is an edge
/// independently with probability `p`.
///
/// Uses geometric skipping (Batagelj & Brandes 2005), so the cost is
/// `O(n + m)` for `m` edges, not `O(n²)`.
///
/// # Errors
/// [`GraphError::InvalidParameters`] if `p` is not in `[0, 1]`.
pub fn erdos_renyi_gnp<R: Rng + ?Sized>(n: usize, p: f64, rng: &mut R) -> Result<Graph, GraphError> {
    check_probability("p", p)?;
    let mut edges = Vec::new();
    if p == 1.0 {
        for v in 0..n {
            edges.extend((0..v).map(|w| (w, v)));
        }
        return Ok(from_edges(n, edges));
    }
    if p == 0.0 || n < 2 {
        return Ok(from_edges(n, edges));
    }
    let lp = (1.0 - p).ln();
    // Pairs (v, w) with w < v, in row-major order; w runs ahead by geometric skips.
    let (mut v, mut w) = (1usize, -1i64);
    while v < n {
        let r: f64 = rng.random();
        let skip = ((1.0 - r).ln() / lp).floor();
        // A skip beyond all remaining pairs ends the graph.
        if skip >= (n as f64) * (n as f64) {
            break;
        }
        w += 1 + skip as i64;
        while v < n && w >= v as i64 {
            w -= v as i64;
            v += 1;
        }
        if v < n {
            edges.push((w as usize, v));
        }
    }
    Ok(from_edges(n, edges))
}

/// Erdős–Rényi `G(n, m)`: a graph drawn uniformly among the simple graphs
/// on `n` nodes with exactly `m` edges.
///
/// Draws `m` distinct pair indices in `0..n(n−1)/2` by Floyd's algorithm
/// (no rejection), so the cost is `O(n + m)` expected.
///
/// # Errors
/// [`GraphError::InvalidParameters`] if `m > n(n−1)/2`.
pub fn erdos_renyi_gnm<R: Rng + ?Sized>(n: usize, m: usize, rng: &mut R) -> Result<Graph, GraphError> {
    let pairs = (n as u128) * (n.saturating_sub(1) as u128) / 2;
    if m as u128 > pairs {
        return Err(invalid(format!("G(n, m) with n = {n} has only {pairs} node pairs, but m = {m}")));
    }
    let pairs = pairs as u64; // m <= pairs and m fits in memory, and so does n
    let mut chosen: HashSet<u64> = HashSet::with_capacity(m);
    for j in (pairs - m as u64)..pairs {
        let t = rng.random_range(0..=j);
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    let mut idx: Vec<u64> = chosen.into_iter().collect();
    idx.sort_unstable();
    // Decode row by row: row u holds pairs (u, u+1..n), n−1−u of them.
    let mut edges = Vec::with_capacity(m);
    let (mut u, mut row_start) = (0usize, 0u64);
    for k in idx {
        while k >= row_start + (n - 1 - u) as u64 {
            row_start += (n - 1 - u) as u64;
            u += 1;
        }
        edges.push((u, u + 1 + (k - row_start) as usize));
    }
    Ok(from_edges(n, edges))
}

/// A random `d`-regular graph on `n` nodes.
///
/// Uses the algorithm of Steger & Wormald (1999) as networkx does: the `n d`
/// edge ends are shuffled and paired; pairs that would make a self-loop or a
/// duplicate are set aside and re-paired, and the attempt restarts when no
/// suitable pair is left. For `d > (n−1)/2` it builds the complement of a
/// random `(n−1−d)`-regular graph, which keeps the restarts rare. The
/// distribution is asymptotically uniform for `d = o(n^{1/28})` and close to
/// it in practice.
///
/// Cost: `O(n d)` expected per attempt (plus `O(n²)` for the complement case).
///
/// # Errors
/// [`GraphError::InvalidParameters`] if `n d` is odd or `d >= n` (for
/// `n >= 1`), or, in the unlikely case that `1000` attempts all fail,
/// saying so (another random state will do).
pub fn random_regular<R: Rng + ?Sized>(n: usize, d: usize, rng: &mut R) -> Result<Graph, GraphError> {
    if n > 0 && d >= n {
        return Err(invalid(format!("a d-regular graph needs d < n, got d = {d}, n = {n}")));
    }
    if (n * d) % 2 == 1 {
        return Err(invalid(format!("a d-regular graph needs n·d even, got n = {n}, d = {d}")));
    }
    if n == 0 || d == 0 {
        return Ok(from_edges(n, Vec::new()));
    }
    let complement = 2 * d > n - 1;
    let dd = if complement { n - 1 - d } else { d };
    let edges =
        if dd == 0 { Some(HashSet::new()) } else { (0..REGULAR_MAX_TRIES).find_map(|_| try_regular(n, dd, rng)) };
    let Some(edges) = edges else {
        return Err(invalid(format!(
            "no {dd}-regular graph on {n} nodes found after {REGULAR_MAX_TRIES} attempts; try another random state"
        )));
    };
    let edges: Vec<(usize, usize)> = if complement {
        let mut out = Vec::with_capacity(n * d / 2);
        for u in 0..n {
            out.extend((u + 1..n).filter(|&v| !edges.contains(&(u, v))).map(|v| (u, v)));
        }
        out
    } else {
        edges.into_iter().collect()
    };
    Ok(from_edges(n, edges))
}

/// One attempt of the pairing algorithm; `None` when stuck.
fn try_regular<R: Rng + ?Sized>(n: usize, d: usize, rng: &mut R) -> Option<HashSet<(usize, usize)>> {
    let mut edges: HashSet<(usize, usize)> = HashSet::with_capacity(n * d / 2);
    let mut stubs: Vec<usize> = (0..n).flat_map(|v| std::iter::repeat_n(v, d)).collect();
    while !stubs.is_empty() {
        let mut left: HashMap<usize, usize> = HashMap::new();
        stubs.shuffle(rng);
        for pair in stubs.chunks_exact(2) {
            let (a, b) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
            if a != b && edges.insert((a, b)) {
                continue;
            }
            *left.entry(a).or_default() += 1;
            *left.entry(b).or_default() += 1;
        }
        if left.is_empty() {
            break;
        }
        let mut nodes: Vec<usize> = left.keys().copied().collect();
        nodes.sort_unstable(); // HashMap order is not reproducible
        let suitable = nodes.iter().enumerate().any(|(i, &a)| nodes[i + 1..].iter().any(|&b| !edges.contains(&(a, b))));
        if !suitable {
            return None;
        }
        stubs = nodes.iter().flat_map(|v| std::iter::repeat_n(*v, left[v])).collect();
    }
    Some(edges)
}

fn from_adjacency_sets(adj: Vec<HashSet<usize>>) -> Graph {
    let n = adj.len();
    let mut edges = Vec::new();
    for (u, s) in adj.iter().enumerate() {
        edges.extend(s.iter().filter(|&&v| u < v).map(|&v| (u, v)));
    }
    from_edges(n, edges)
}

/// The undirected unit-weight graph of the given edges, which must be
/// distinct, without self-loops, with ends `< n` (the generators guarantee
/// it). Builds the CSR directly, without the builder's `O(m)` arc list of
/// labels and its checks.
fn from_edges(n: usize, edges: Vec<(usize, usize)>) -> Graph {
    let mut indptr = vec![0usize; n + 1];
    for &(u, v) in &edges {
        debug_assert!(u != v && u < n && v < n);
        indptr[u + 1] += 1;
        indptr[v + 1] += 1;
    }
    for i in 0..n {
        indptr[i + 1] += indptr[i];
    }
    let nnz = indptr[n];
    let mut next = indptr.clone();
    let mut indices = vec![0usize; nnz];
    for (u, v) in edges {
        indices[next[u]] = v;
        next[u] += 1;
        indices[next[v]] = u;
        next[v] += 1;
    }
    for i in 0..n {
        indices[indptr[i]..indptr[i + 1]].sort_unstable();
    }
    unit_graph(indptr, indices)
}

/// The undirected unit-weight graph of a symmetric CSR pattern (rows sorted,
/// no duplicates, no self-loops; `n = indptr.len() − 1`).
fn unit_graph(indptr: Vec<usize>, indices: Vec<usize>) -> Graph {
    let (n, nnz) = (indptr.len() - 1, indices.len());
    Graph {
        adjacency: CsMat::new((n, n), indptr, indices, (0..nnz).into_par_iter().map(|_| 1.0).collect()),
        node_labels: vec![(); n],
        edge_labels: vec![(); nnz],
        start: None,
        direction: Direction::Undirected,
        degrees: OnceLock::new(),
        transpose: OnceLock::new(),
    }
}

/// A coloured graph with a planted match, as in the motif-search
/// experiments of Kaski, Lauri and Thejaswi (SEA 2018): see
/// [`plant_motif`], [`regular_motif`] and [`power_law_motif`].
#[derive(Clone, Debug)]
pub struct MotifInstance {
    /// The host graph.
    pub graph: Graph,
    /// One colour per vertex.
    pub colors: Vec<u32>,
    /// The motif: `k` times the planted colour.
    pub motif: Vec<u32>,
    /// The planted match (sorted vertex ids): exactly the vertices in a match.
    pub planted: Vec<usize>,
}

/// Colours `graph` uniformly over `colors` colours (`0 .. colors`) and
/// plants a match: a depth-first search from a random vertex takes the
/// first `k` vertices it visits (starting again elsewhere when the
/// component is too small) and colours them with colour `colors`, which no
/// other vertex has; the motif is `k` times that colour. The planted
/// vertices are then exactly the vertices that lie in a match.
///
/// # Errors
/// [`GraphError::InvalidParameters`] when `k = 0`, `colors = 0`, or no
/// component has `k` vertices.
pub fn plant_motif<R: Rng + ?Sized>(
    graph: Graph,
    colors: u32,
    k: usize,
    rng: &mut R,
) -> Result<MotifInstance, GraphError> {
    let n = graph.num_nodes();
    if k == 0 || colors == 0 || colors == u32::MAX {
        return Err(invalid(format!(
            "a planted motif needs k >= 1 and 1 <= colors < 2^32 - 1, got k = {k}, colors = {colors}"
        )));
    }
    if k > n {
        return Err(invalid(format!("cannot plant k = {k} vertices in a graph of {n}")));
    }
    let mut cols: Vec<u32> = (0..n).map(|_| rng.random_range(0..colors)).collect();
    let mut starts: Vec<usize> = (0..n).collect();
    starts.shuffle(rng);
    for &s in &starts {
        let mut seen = HashSet::from([s]);
        let mut order = Vec::with_capacity(k);
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            order.push(v);
            if order.len() == k {
                break;
            }
            for &u in graph.neighbors(v).iter().rev() {
                if seen.insert(u) {
                    stack.push(u);
                }
            }
        }
        if order.len() == k {
            for &v in &order {
                cols[v] = colors;
            }
            order.sort_unstable();
            return Ok(MotifInstance { graph, colors: cols, motif: vec![colors; k], planted: order });
        }
    }
    Err(invalid(format!("no connected component has k = {k} vertices to plant a match in")))
}

/// [`plant_motif`] on a [`random_regular`] graph of `n` vertices and degree `d`.
///
/// # Errors
/// Those of [`random_regular`] and [`plant_motif`].
pub fn regular_motif<R: Rng + ?Sized>(
    n: usize,
    d: usize,
    colors: u32,
    k: usize,
    rng: &mut R,
) -> Result<MotifInstance, GraphError> {
    let g = random_regular(n, d, rng)?;
    plant_motif(g, colors, k, rng)
}

/// [`plant_motif`] on a power-law graph: [`barabasi_albert`] with
/// `max(1, d / 2)` edges per new vertex (mean degree about `d`, degree
/// tail `P(deg) ~ deg^-3`).
///
/// # Errors
/// Those of [`barabasi_albert`] and [`plant_motif`].
pub fn power_law_motif<R: Rng + ?Sized>(
    n: usize,
    d: usize,
    colors: u32,
    k: usize,
    rng: &mut R,
) -> Result<MotifInstance, GraphError> {
    let g = barabasi_albert(n, (d / 2).max(1), rng)?;
    plant_motif(g, colors, k, rng)
}
