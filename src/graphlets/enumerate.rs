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
/// Each clique `u < v < w < x` is found once: for each edge `u–v` with
/// `v > u`, the common higher neighbours `S = N⁺(u) ∩ N⁺(v)` are marked,
/// and each `w ∈ S` closes a clique with every `x ∈ N⁺(w) ∩ S`.
/// Cost `O(Σ_{u<v, uv ∈ E} (|N⁺(u)| + |N⁺(v)| + Σ_{w ∈ S} |N⁺(w)|))`, small
/// in degree order (`|N⁺(u)| ≤ √(2m)`).
pub(super) fn four_cliques(a: &SparseMatrix<u64>) -> Vec<u64> {
    let n = a.nrows();
    let upper = |u: usize| {
        let r = a.row(u).0;
        &r[r.partition_point(|&v| v <= u)..]
    };
    strided_sum(
        n,
        || (vec![0u32; n], Vec::<usize>::new(), Vec::<u64>::new()),
        |u, (mark, s, xc), out| {
            let nu = upper(u);
            let mut own = 0u64;
            for &v in nu {
                // S = N⁺(u) ∩ N⁺(v), both sorted
                let nv = upper(v);
                let (mut p, mut q) = (0, 0);
                s.clear();
                while p < nu.len() && q < nv.len() {
                    match nu[p].cmp(&nv[q]) {
                        std::cmp::Ordering::Less => p += 1,
                        std::cmp::Ordering::Greater => q += 1,
                        std::cmp::Ordering::Equal => {
                            s.push(nu[p]);
                            p += 1;
                            q += 1;
                        }
                    }
                }
                if s.len() < 2 {
                    continue;
                }
                for (k, &w) in s.iter().enumerate() {
                    mark[w] = k as u32 + 1;
                }
                xc.clear();
                xc.resize(s.len(), 0);
                let mut uv = 0u64;
                for (k, &w) in s.iter().enumerate() {
                    let mut kw = 0u64;
                    for &x in upper(w) {
                        let m = mark[x];
                        if m != 0 {
                            kw += 1;
                            xc[m as usize - 1] += 1;
                        }
                    }
                    xc[k] += kw;
                    uv += kw;
                }
                for (k, &w) in s.iter().enumerate() {
                    out[w] += xc[k];
                    mark[w] = 0;
                }
                own += uv;
                out[v] += uv;
            }
            out[u] += own;
        },
    )
}
