//! The enumerated primitives, on the degree-ordered pattern
//! ([`super::pattern`]): `W = A² ∘ A` on the lower triangle, one fused pass
//! per vertex for the `W` sums, `diag(A (W − A) A)` and the 4-cycles, and
//! the 4-cliques.
//!
//! Why enumeration rather than the library's sparse operations for the `W`
//! products: as masked `mxm`/`mxv`/`apply`/`reduce_rows` they took eight
//! passes over `W_L` (two of them masked products as costly as `W` itself,
//! and the reads of `W_Lᵀ` a transpose), each a pass over `O(m)` entries in
//! random order. Here `W_L` is one array aligned with `A`'s entries and one
//! pass per vertex `u` reads its lower row once: the `W` sums by scattering
//! each lower entry to both ends, `diag(A (W − A) A)` from the triangles met
//! among the wedges that the 4-cycle count walks anyway (FGLT's own
//! one-pass-per-row scheme). `A·x` products stay library `mxv`s
//! ([`super::cpu`]).
//!
//! Work is cut into chunks of vertices taken with a stride (so the hubs, the
//! last vertices in degree order, fall into different chunks); each chunk
//! counts into its own array, summed at the end (no atomics).

use super::transform::choose2;
use crate::matrix::SparseMatrix;
use rayon::prelude::*;

/// Runs `body(u, scratch, out)` for every vertex `u`, in parallel chunks with
/// per-chunk scratch from `init` and a per-chunk output array of `width`
/// counts per vertex (vertex-major); returns the sum of the outputs.
fn strided_sum<W>(
    n: usize,
    width: usize,
    init: impl Fn() -> W + Sync,
    body: impl Fn(usize, &mut W, &mut [u64]) + Sync,
) -> Vec<u64> {
    if n == 0 {
        return Vec::new();
    }
    let threads = rayon::current_num_threads();
    // a few chunks per thread for balance (fewer for wide outputs, whose
    // zeroing and summing cost more), bounded so that the per-chunk arrays
    // stay within ~1 GiB
    let by_memory = ((1usize << 30) / (n * width * 8)).max(1);
    let per_thread = if width > 1 { 2 } else { 4 };
    let chunks = (threads * per_thread).min(by_memory).min(n).max(1);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut out = vec![0u64; n * width];
            let mut ws = init();
            let mut u = c;
            while u < n {
                body(u, &mut ws, &mut out);
                u += chunks;
            }
            out
        })
        .reduce_with(|mut x, y| {
            x.iter_mut().zip(&y).for_each(|(a, b)| *a += b);
            x
        })
        .unwrap_or_else(|| vec![0; n * width])
}

/// `A`'s pattern with `u32` column indices: half the memory traffic of
/// `usize` indices in the enumerations' row reads, which come in random
/// order. Vertex ids are assumed below `2³²` (as the `u32` wedge and
/// common-neighbour counts already assume).
pub(super) struct Adj {
    ptr: Vec<usize>,
    idx: Vec<u32>,
}

impl Adj {
    /// The pattern of `a` (`n < 2³²` rows).
    pub(super) fn of(a: &SparseMatrix<u64>) -> Self {
        debug_assert!(u32::try_from(a.nrows()).is_ok(), "vertex ids must fit in u32");
        let p0 = a.indptr()[0];
        let ptr: Vec<usize> = a.indptr().iter().map(|&p| p - p0).collect();
        let idx = a.indices()[p0..p0 + a.nnz()].par_iter().map(|&x| x as u32).collect();
        Adj { ptr, idx }
    }

    fn n(&self) -> usize {
        self.ptr.len() - 1
    }

    /// Offset of row `u` in the index array.
    fn start(&self, u: usize) -> usize {
        self.ptr[u]
    }

    fn row(&self, u: usize) -> &[u32] {
        &self.idx[self.ptr[u]..self.ptr[u + 1]]
    }
}

/// `W_L`: for each entry `(u, v)` of `A` with `v < u`, the common neighbours
/// `W_uv = |N(u) ∩ N(v)|`, at that entry's position in `A`'s index array
/// (0 at the other positions). Counts fit in `u32` (`W_uv < n`, and the
/// enumerations index vertices in `u32` too).
///
/// Rows in parallel in contiguous blocks; row `u` marks `N(u)` and scans
/// each lower neighbour's row, the shorter one in degree order: cost
/// `O(Σ_{ij ∈ E} min(d_i, d_j))`.
pub(super) fn lower_common_neighbours(a: &Adj) -> Vec<u32> {
    let n = a.n();
    let nnz = a.idx.len();
    let mut w = vec![0u32; nnz];
    let blocks = (rayon::current_num_threads() * 32).min(n).max(1);
    // cut rows into blocks of about equal entries; split `w` to match
    let mut parts: Vec<(usize, usize, &mut [u32])> = Vec::with_capacity(blocks);
    let mut rest: &mut [u32] = &mut w;
    let mut start = 0;
    for b in 1..=blocks {
        let target = nnz * b / blocks;
        let mut end = start;
        while end < n && (a.start(end + 1) <= target || b == blocks) {
            end += 1;
        }
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(a.start(end) - a.start(start));
        parts.push((start, end, head));
        rest = tail;
        start = end;
    }
    parts.into_par_iter().for_each_init(
        || vec![false; n],
        |mark, (start, end, out)| {
            let base = a.start(start);
            for u in start..end {
                let nu = a.row(u);
                let o = a.start(u) - base;
                for &x in nu {
                    mark[x as usize] = true;
                }
                for (t, &v) in nu.iter().take_while(|&&v| (v as usize) < u).enumerate() {
                    out[o + t] = a.row(v as usize).iter().filter(|&&x| mark[x as usize]).count() as u32;
                }
                for &x in nu {
                    mark[x as usize] = false;
                }
            }
        },
    );
    w
}

/// The per-vertex sums of the fused pass.
pub(super) struct WedgeSums {
    /// `W e`.
    pub w1: Vec<u64>,
    /// `W (d − 2)`.
    pub w_dm2: Vec<u64>,
    /// `Σ_j C(W_ij, 2)`.
    pub w_c2: Vec<u64>,
    /// `diag(A (W − A) A)`.
    pub aba: Vec<u64>,
    /// 4-cycles through each vertex (raw orbit 12).
    pub c4: Vec<u64>,
}

/// The `W` sums, `diag(A (W − A) A)` and the 4-cycles in one pass per
/// vertex, from `W_L` ([`lower_common_neighbours`]) and the degrees `d`.
///
/// - Each lower entry `W_uv` (`v < u`) adds to the sums of both `u` and `v`
///   (`W` is symmetric): `W e`, `W (d − 2)`, `Σ_j C(W_ij, 2)`.
/// - 4-cycles: each cycle `u–v–w–x` is found once, from its highest-numbered
///   vertex `u`, through the wedges `u–v–w` with `v, w < u` (a prefix of each
///   sorted row): with `a_w` such wedges ending at `w`, `u` and `w` are in
///   `C(a_w, 2)` cycles and each middle `v` in `a_w − 1` of them.
/// - `diag(A (W − A) A)_i = Σ_{j,k ∈ N(i)} (W − A)_jk` counts each triangle
///   `{i, j, k}` twice, with `W_jk − 1` (an edge `jk` closing a triangle has
///   `W_jk ≥ 1`; a non-edge adds 0). Each triangle `w < v < u` is met once,
///   as a wedge `u–v–w` whose end `w` is a lower neighbour of `u`, and adds
///   `2 (W_vw − 1)` at `u`, `2 (W_uw − 1)` at `v`, `2 (W_uv − 1)` at `w`.
///
/// Cost `O(Σ_u Σ_{v ∈ N(u), v < u} |{w ∈ N(v) : w < u}|)`, which the degree
/// order keeps at `O(m √m)`.
pub(super) fn wedge_sums(a: &Adj, wl: &[u32], d: &[u64]) -> WedgeSums {
    // output layout: the 4-cycle counts (`n`, dense, the most scattered),
    // then the other four sums interleaved per vertex
    const K: usize = 4;
    let n = a.n();
    struct Scratch {
        /// per vertex: the wedges ending there, and its position + 1 in
        /// `u`'s lower row if a lower neighbour of `u` (else 0); side by side
        /// so that a wedge end costs one cache line
        acc: Vec<[u32; 2]>,
        touched: Vec<usize>,
        /// the wedge ends `w`, row after row of the lower neighbours
        ends: Vec<u32>,
        /// end of each lower neighbour's segment of `ends`
        seg: Vec<usize>,
    }
    let out = strided_sum(
        n,
        K + 1,
        || Scratch { acc: vec![[0; 2]; n], touched: Vec::new(), ends: Vec::new(), seg: Vec::new() },
        |u, s, out| {
            let nu = a.row(u);
            let lower = &nu[..nu.partition_point(|&v| (v as usize) < u)];
            let bu = a.start(u);
            let wu = &wl[bu..bu + lower.len()];
            let (c4, out) = out.split_at_mut(n);
            let (du2, mut own, mut own_c4) = (d[u].saturating_sub(2), [0u64; K], 0u64);
            for (t, (&v, &x)) in lower.iter().zip(wu).enumerate() {
                let (v, x) = (v as usize, x as u64);
                let c2 = choose2(x);
                own[0] += x;
                own[1] += x * d[v].saturating_sub(2);
                own[2] += c2;
                let o = &mut out[v * K..v * K + K];
                o[0] += x;
                o[1] += x * du2;
                o[2] += c2;
                s.acc[v][1] = t as u32 + 1;
            }
            s.ends.clear();
            s.seg.clear();
            for (t, &v) in lower.iter().enumerate() {
                let v = v as usize;
                let bv = a.start(v);
                for (j, &w) in a.row(v).iter().enumerate() {
                    let w = w as usize;
                    if w >= u {
                        break;
                    }
                    s.ends.push(w as u32);
                    let [c, p] = &mut s.acc[w];
                    if *c == 0 {
                        s.touched.push(w);
                    }
                    *c += 1;
                    let p = *p as usize;
                    if w < v && p != 0 {
                        // the triangle w < v < u; (v, w) is a lower entry of row v
                        own[3] += 2 * (wl[bv + j] as u64 - 1);
                        out[v * K + 3] += 2 * (wu[p - 1] as u64 - 1);
                        out[w * K + 3] += 2 * (wu[t] as u64 - 1);
                    }
                }
                s.seg.push(s.ends.len());
            }
            for &w in s.touched.iter() {
                let c = s.acc[w][0] as u64;
                let p = c * (c - 1) / 2;
                own_c4 += p;
                c4[w] += p;
            }
            let mut from = 0;
            for (&v, &to) in lower.iter().zip(&s.seg) {
                let v = v as usize;
                let c: u64 = s.ends[from..to].iter().map(|&w| s.acc[w as usize][0] as u64 - 1).sum();
                c4[v] += c;
                from = to;
            }
            for (o, x) in out[u * K..u * K + K].iter_mut().zip(own) {
                *o += x;
            }
            c4[u] += own_c4;
            for &v in lower {
                s.acc[v as usize][1] = 0;
            }
            for &w in s.touched.iter() {
                s.acc[w][0] = 0;
            }
            s.touched.clear();
        },
    );
    let (c4, sums) = out.split_at(n);
    let col = |k: usize| -> Vec<u64> { sums.iter().skip(k).step_by(K).copied().collect() };
    WedgeSums { w1: col(0), w_dm2: col(1), w_c2: col(2), aba: col(3), c4: c4.to_vec() }
}

/// 4-cliques through each vertex (raw orbit 15).
///
/// Each clique `u < v < w < x` is found once, from its lowest vertex `u`,
/// as a triangle of the graph `H_u` induced on `N⁺(u)` (the higher-numbered
/// neighbours). `H_u` is built as one bitset row per vertex (`k = |N⁺(u)|`
/// bits); each edge `{s, t}` of `H_u` lies in `popcount(row s & row t)`
/// triangles, so a vertex of `H_u` is in half the sum over its edges, and
/// `u` in a third of the sum over all edges, without listing the cliques.
/// Cost `O(Σ_u (Σ_{v ∈ N⁺(u)} |N⁺(v)| + |E(H_u)| ⌈k/64⌉ + k²/64))`, small
/// in degree order (`|N⁺(u)| ≤ √(2m)`).
pub(super) fn four_cliques(a: &SparseMatrix<u64>) -> Vec<u64> {
    let n = a.nrows();
    let upper = |u: usize| {
        let r = a.row(u).0;
        &r[r.partition_point(|&v| v <= u)..]
    };
    struct Scratch {
        /// local id + 1 of each vertex of N⁺(u), 0 elsewhere
        mark: Vec<u32>,
        /// edges (s, t), s < t, of H_u in local ids
        edges: Vec<(u32, u32)>,
        bits: Vec<u64>,
        count: Vec<u64>,
    }
    strided_sum(
        n,
        1,
        || Scratch { mark: vec![0; n], edges: Vec::new(), bits: Vec::new(), count: Vec::new() },
        |u, s, out| {
            let nu = upper(u);
            let k = nu.len();
            if k < 3 {
                return;
            }
            for (t, &v) in nu.iter().enumerate() {
                s.mark[v] = t as u32 + 1;
            }
            s.edges.clear();
            for (t, &v) in nu.iter().enumerate() {
                s.edges.extend(upper(v).iter().filter_map(|&x| s.mark[x].checked_sub(1)).map(|x| (t as u32, x)));
            }
            for &v in nu {
                s.mark[v] = 0;
            }
            if s.edges.len() < 3 {
                return;
            }
            let words = k.div_ceil(64);
            s.bits.clear();
            s.bits.resize(k * words, 0);
            for &(x, y) in &s.edges {
                let (x, y) = (x as usize, y as usize);
                s.bits[x * words + y / 64] |= 1 << (y % 64);
                s.bits[y * words + x / 64] |= 1 << (x % 64);
            }
            s.count.clear();
            s.count.resize(k, 0);
            let mut total = 0u64;
            for &(x, y) in &s.edges {
                let (x, y) = (x as usize, y as usize);
                let (rx, ry) = (&s.bits[x * words..(x + 1) * words], &s.bits[y * words..(y + 1) * words]);
                let c: u64 = rx.iter().zip(ry).map(|(p, q)| (p & q).count_ones() as u64).sum();
                s.count[x] += c;
                s.count[y] += c;
                total += c;
            }
            for (t, &v) in nu.iter().enumerate() {
                out[v] += s.count[t] / 2;
            }
            out[u] += total / 3;
        },
    )
}
