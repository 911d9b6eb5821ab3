//! The 4-cycle and 4-clique orbits by enumeration over neighbourhoods, on
//! the degree-ordered pattern ([`super::pattern`]).
//!
//! Work is cut into chunks of vertices taken with a stride (so the hubs, the
//! last vertices in degree order, fall into different chunks); each chunk
//! counts into its own array, summed at the end (no atomics).

use crate::matrix::SparseMatrix;
use rayon::prelude::*;

/// Runs `body(u, scratch, out)` for every vertex `u`, in parallel chunks with
/// per-chunk scratch from `init` and a per-chunk output array; returns the
/// sum of the outputs.
fn strided_sum<W>(n: usize, init: impl Fn() -> W + Sync, body: impl Fn(usize, &mut W, &mut [u64]) + Sync) -> Vec<u64> {
    if n == 0 {
        return Vec::new();
    }
    let threads = rayon::current_num_threads();
    // a few chunks per thread for balance, bounded so that the per-chunk
    // arrays stay within ~1 GiB
    let by_memory = ((1usize << 30) / (n * 16)).max(1);
    let chunks = (threads * 4).min(by_memory).min(n).max(1);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut out = vec![0u64; n];
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
        .unwrap_or_else(|| vec![0; n])
}

/// 4-cycles through each vertex (raw orbit 12): `Σ_{j≠i} C(c_ij, 2)`.
///
/// Each cycle `u–v–w–x` is found once, from its highest-numbered vertex `u`,
/// through the wedges `u–v–w` with `v, w < u` (a prefix of each sorted
/// row): with `a_w` such wedges ending at `w`, `u` and `w` are in
/// `C(a_w, 2)` cycles and each middle `v` in `a_w − 1` of them.
/// Cost `O(Σ_u Σ_{v ∈ N(u), v < u} |{w ∈ N(v) : w < u}|)`, which the degree
/// order keeps at `O(m √m)`.
pub(super) fn four_cycles(a: &SparseMatrix<u64>) -> Vec<u64> {
    let n = a.nrows();
    strided_sum(
        n,
        || (vec![0u32; n], Vec::<usize>::new()),
        |u, (acc, touched), out| {
            let nu = a.row(u).0;
            let lower = &nu[..nu.partition_point(|&v| v < u)];
            for &v in lower {
                for &w in a.row(v).0 {
                    if w >= u {
                        break;
                    }
                    if acc[w] == 0 {
                        touched.push(w);
                    }
                    acc[w] += 1;
                }
            }
            let mut own = 0;
            for &w in touched.iter() {
                let c = acc[w] as u64;
                let p = c * (c - 1) / 2;
                own += p;
                out[w] += p;
            }
            out[u] += own;
            for &v in lower {
                let mut s = 0u64;
                for &w in a.row(v).0 {
                    if w >= u {
                        break;
                    }
                    s += acc[w] as u64 - 1;
                }
                out[v] += s;
            }
            for &w in touched.iter() {
                acc[w] = 0;
            }
            touched.clear();
        },
    )
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
