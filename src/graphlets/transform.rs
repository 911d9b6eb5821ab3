//! From per-vertex primitives to the 16 raw frequencies, and the exact
//! raw → net transform `f = T d̂` (and its inverse `d̂ = U f`).
//!
//! Both backends compute the same [`Primitives`] (sparse-matrix products and
//! enumerations); this module is the one place that turns them into orbit
//! counts, so the CPU and the GPU cannot disagree on a formula.
//!
//! All arithmetic is in `u64` with wrapping operations: every formula's true
//! value is a non-negative count, so the wrapped result is exact whenever
//! the count fits in 64 bits.

use super::types::{Frequencies, ORBITS};
use rayon::prelude::*;

/// Per-vertex quantities from which every raw frequency follows
/// elementwise (`A` the 0/1 adjacency, `d = A e`, `W = A² ∘ A`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Primitives {
    /// Degrees `d = A e`.
    pub d: Vec<u64>,
    /// `A d`.
    pub ad: Vec<u64>,
    /// `A (A d)`.
    pub aad: Vec<u64>,
    /// `A [C(d − 1, 2)]`: raw orbit 7.
    pub a_c2: Vec<u64>,
    /// `W e = 2 × triangles at each vertex`.
    pub w1: Vec<u64>,
    /// `A (W e)`.
    pub a_w1: Vec<u64>,
    /// `W (d − 2)`: raw orbit 10.
    pub w_dm2: Vec<u64>,
    /// `Σ_j C(W_ij, 2)`: raw orbit 14.
    pub w_c2: Vec<u64>,
    /// `diag(A (W − A) A)` = twice raw orbit 13.
    pub aba: Vec<u64>,
    /// 4-cycles through each vertex: raw orbit 12.
    pub c4: Vec<u64>,
    /// 4-cliques through each vertex: raw orbit 15.
    pub k4: Vec<u64>,
}

impl Primitives {
    /// Vertices.
    pub fn len(&self) -> usize {
        self.d.len()
    }

    /// Whether there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.d.is_empty()
    }
}

/// `C(x, 2)` (0 below 2).
#[inline]
pub(crate) fn choose2(x: u64) -> u64 {
    if x < 2 {
        0
    } else {
        x * (x - 1) / 2
    }
}

/// `C(x, 3)` (0 below 3).
#[inline]
pub(crate) fn choose3(x: u64) -> u64 {
    if x < 3 {
        0
    } else {
        // x(x−1) is even; divide before the third factor to stay in range longer
        (x * (x - 1) / 2) * (x - 2) / 3
    }
}

/// The 16 raw frequencies of one vertex from its primitives (index `i`).
#[inline]
fn raw_row(p: &Primitives, i: usize) -> [u64; ORBITS] {
    let d = p.d[i];
    let d4 = p.w1[i] / 2;
    let d2 = p.ad[i].wrapping_sub(d);
    let a_d2 = p.aad[i].wrapping_sub(p.ad[i]);
    let dd1 = d.wrapping_mul(d.wrapping_sub(1));
    [
        1,
        d,
        d2,
        choose2(d),
        d4,
        a_d2.wrapping_sub(dd1).wrapping_sub(2 * d4),
        d2.wrapping_mul(d.saturating_sub(1)).wrapping_sub(2 * d4),
        p.a_c2[i],
        choose3(d),
        (p.a_w1[i] / 2).wrapping_sub(2 * d4),
        p.w_dm2[i],
        d.saturating_sub(2) * d4,
        p.c4[i],
        p.aba[i] / 2,
        p.w_c2[i],
        p.k4[i],
    ]
}

/// The net frequencies of one vertex from its raw ones: `f = T d̂`.
#[inline]
pub fn net_row(r: &[u64; ORBITS]) -> [u64; ORBITS] {
    // every combination below is a count of induced copies: non-negative, so
    // the wrapping sums are exact
    let lin = |terms: &[(i64, usize)]| -> u64 {
        terms.iter().fold(0u64, |acc, &(c, k)| acc.wrapping_add((c as u64).wrapping_mul(r[k])))
    };
    [
        r[0],
        r[1],
        lin(&[(1, 2), (-2, 4)]),
        lin(&[(1, 3), (-1, 4)]),
        r[4],
        lin(&[(1, 5), (-2, 9), (-1, 10), (-2, 12), (4, 13), (2, 14), (-6, 15)]),
        lin(&[(1, 6), (-1, 10), (-2, 11), (-2, 12), (2, 13), (4, 14), (-6, 15)]),
        lin(&[(1, 7), (-1, 9), (-1, 10), (2, 13), (1, 14), (-3, 15)]),
        lin(&[(1, 8), (-1, 11), (1, 14), (-1, 15)]),
        lin(&[(1, 9), (-2, 13), (3, 15)]),
        lin(&[(1, 10), (-2, 13), (-2, 14), (6, 15)]),
        lin(&[(1, 11), (-2, 14), (3, 15)]),
        lin(&[(1, 12), (-1, 13), (-1, 14), (3, 15)]),
        lin(&[(1, 13), (-3, 15)]),
        lin(&[(1, 14), (-3, 15)]),
        r[15],
    ]
}

/// The raw frequencies of one vertex from its net ones: `d̂ = U f`, `U = T⁻¹`
/// (non-negative integer entries: non-induced copies of orbit `r` inside
/// one induced copy of orbit `c`).
pub fn raw_from_net_row(f: &[u64; ORBITS]) -> [u64; ORBITS] {
    let lin = |terms: &[(u64, usize)]| -> u64 { terms.iter().map(|&(c, k)| c * f[k]).sum() };
    [
        f[0],
        f[1],
        lin(&[(1, 2), (2, 4)]),
        lin(&[(1, 3), (1, 4)]),
        f[4],
        lin(&[(1, 5), (2, 9), (1, 10), (2, 12), (4, 13), (2, 14), (6, 15)]),
        lin(&[(1, 6), (1, 10), (2, 11), (2, 12), (2, 13), (4, 14), (6, 15)]),
        lin(&[(1, 7), (1, 9), (1, 10), (2, 13), (1, 14), (3, 15)]),
        lin(&[(1, 8), (1, 11), (1, 14), (1, 15)]),
        lin(&[(1, 9), (2, 13), (3, 15)]),
        lin(&[(1, 10), (2, 13), (2, 14), (6, 15)]),
        lin(&[(1, 11), (2, 14), (3, 15)]),
        lin(&[(1, 12), (1, 13), (1, 14), (3, 15)]),
        lin(&[(1, 13), (3, 15)]),
        lin(&[(1, 14), (3, 15)]),
        f[15],
    ]
}

/// Raw and net frequencies from the primitives, rows reordered: row
/// `order[r]` of the output is row `r` of the primitives (`order` is the
/// vertex of each position, a permutation of `0..n`).
///
/// Cost `O(n)`, parallel over vertices.
pub fn assemble(p: &Primitives, order: &[usize]) -> (Frequencies, Frequencies) {
    let n = p.len();
    debug_assert_eq!(order.len(), n);
    let mut raw = Frequencies::zeros(n);
    let mut net = Frequencies::zeros(n);
    // scatter through the inverse permutation: position of each vertex
    let mut pos = vec![0usize; n];
    for (r, &v) in order.iter().enumerate() {
        pos[v] = r;
    }
    raw.data.par_chunks_mut(ORBITS).zip(net.data.par_chunks_mut(ORBITS)).enumerate().with_min_len(1024).for_each(
        |(v, (rr, nr))| {
            let row = raw_row(p, pos[v]);
            rr.copy_from_slice(&row);
            nr.copy_from_slice(&net_row(&row));
        },
    );
    (raw, net)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_and_raw_transforms_are_inverse() {
        let f: [u64; ORBITS] = std::array::from_fn(|k| (k as u64 * 7 + 3) % 11);
        assert_eq!(net_row(&raw_from_net_row(&f)), f);
    }

    #[test]
    fn binomials() {
        assert_eq!((0..6).map(choose2).collect::<Vec<_>>(), [0, 0, 1, 3, 6, 10]);
        assert_eq!((0..6).map(choose3).collect::<Vec<_>>(), [0, 0, 0, 1, 4, 10]);
    }
}
