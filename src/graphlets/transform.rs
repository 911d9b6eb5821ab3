//! From per-vertex primitives to the 16 raw frequencies, and the exact
//! raw → net transform `f = T d̂` (and its inverse `d̂ = U f`).
//!
//! Both backends compute the same [`Primitives`] (sparse-matrix products and
//! enumerations); this module is the one place that turns them into orbit
//! counts, so the CPU and the GPU cannot disagree on a formula.
//!
//! The primitives are sums in `u64` with wrapping operations (on both
//! backends): every one is a non-negative count, so the wrapped result is
//! exact whenever the count fits in 64 bits. [`assemble`] first proves that
//! it does ([`check_primitives`]: a bound on each primitive, in `u128`,
//! from the degrees and the primitives already proven), then computes every
//! raw and net frequency in `i128` and converts it to `u64` only when it
//! fits: a count beyond 64 bits is an [`Overflow`], never a wrapped value.

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

/// A count that does not fit in 64 bits: at `position` (a row of the
/// primitives, i.e. of the degree-ordered pattern), orbit `orbit`; `exact`
/// when the count itself is known to exceed `2^64 − 1`, else a primitive it
/// is built from is bounded only above that ([`check_primitives`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The row of the primitives.
    pub position: usize,
    /// The orbit whose count does not fit.
    pub orbit: usize,
    /// Whether the exact count is known to exceed `2^64 − 1`.
    pub exact: bool,
}

/// `2^64`: a count fits in `u64` when it is below.
const LIMIT: u128 = 1 << 64;

/// Proves that every primitive's exact value fits in 64 bits, so that the
/// wrapping sums of either backend are exact: each is bounded in `u128`
/// from the degrees and the primitives proven before it (`A x` by
/// `min(d_i max x, Σ x)`; `W e` by `d_i²`; the sums over `W` by
/// `(W e)_i d_max`; `diag(A (W − A) A)` by `A W e` and the 4-cycles by
/// `A A d`, both proven). `O(n)`, parallel.
///
/// # Errors
/// The first row whose bound reaches `2^64`, with the orbit that primitive
/// is (or feeds).
pub fn check_primitives(p: &Primitives) -> Result<(), Overflow> {
    let n = p.len();
    let wide = |v: &[u64], i: usize| u128::from(v[i]);
    let max = |v: &[u64]| v.par_iter().copied().max().map_or(0, u128::from);
    let sum = |v: &[u64]| v.par_iter().map(|&x| u128::from(x)).reduce(|| 0, u128::saturating_add);
    let dmax = max(&p.d);
    let check = |orbit: usize, bound: &(dyn Fn(usize) -> u128 + Sync)| -> Result<(), Overflow> {
        match (0..n).into_par_iter().find_first(|&i| bound(i) >= LIMIT) {
            Some(position) => Err(Overflow { position, orbit, exact: false }),
            None => Ok(()),
        }
    };
    // y = A x: y_i <= min(d_i max x, sum x)
    let spmv = |x_max: u128, x_sum: u128| move |i: usize| wide(&p.d, i).saturating_mul(x_max).min(x_sum);
    check(2, &spmv(dmax, sum(&p.d)))?;
    check(5, &spmv(max(&p.ad), sum(&p.ad)))?;
    let c2m1 = |d: u128| if d < 3 { 0 } else { (d - 1) * (d - 2) / 2 };
    let c2_sum = p.d.par_iter().map(|&d| c2m1(u128::from(d))).reduce(|| 0, u128::saturating_add);
    check(7, &spmv(c2m1(dmax), c2_sum))?;
    check(4, &|i| wide(&p.d, i).saturating_mul(wide(&p.d, i)))?;
    check(9, &spmv(max(&p.w1), sum(&p.w1)))?;
    let by_w = |i: usize| wide(&p.w1, i).saturating_mul(dmax);
    check(10, &by_w)?;
    check(14, &by_w)?;
    check(15, &by_w)?;
    // proven above: aba_i <= (A W e)_i, c4_i <= (A A d)_i
    check(13, &|i| wide(&p.a_w1, i))?;
    check(12, &|i| wide(&p.aad, i))
}

/// The 16 raw frequencies of one vertex from its (proven, see
/// [`check_primitives`]) primitives (index `i`), exact in `i128`.
#[inline]
fn raw_row(p: &Primitives, i: usize) -> [i128; ORBITS] {
    let v = |x: &[u64]| i128::from(x[i]);
    let d = v(&p.d);
    let d4 = v(&p.w1) / 2;
    let d2 = v(&p.ad) - d;
    let a_d2 = v(&p.aad) - v(&p.ad);
    [
        1,
        d,
        d2,
        d * (d - 1) / 2,
        d4,
        a_d2 - d * (d - 1) - 2 * d4,
        d2 * (d - 1).max(0) - 2 * d4,
        v(&p.a_c2),
        if d < 3 { 0 } else { d * (d - 1) * (d - 2) / 6 },
        v(&p.a_w1) / 2 - 2 * d4,
        v(&p.w_dm2),
        (d - 2).max(0) * d4,
        v(&p.c4),
        v(&p.aba) / 2,
        v(&p.w_c2),
        v(&p.k4),
    ]
}

/// The raw → net transform `f = T d̂`, row by row: net orbit `k` is
/// `Σ c · raw[j]` over `NET_TERMS[k]` (every such combination counts induced
/// copies: non-negative).
pub(crate) const NET_TERMS: [&[(i64, usize)]; ORBITS] = [
    &[(1, 0)],
    &[(1, 1)],
    &[(1, 2), (-2, 4)],
    &[(1, 3), (-1, 4)],
    &[(1, 4)],
    &[(1, 5), (-2, 9), (-1, 10), (-2, 12), (4, 13), (2, 14), (-6, 15)],
    &[(1, 6), (-1, 10), (-2, 11), (-2, 12), (2, 13), (4, 14), (-6, 15)],
    &[(1, 7), (-1, 9), (-1, 10), (2, 13), (1, 14), (-3, 15)],
    &[(1, 8), (-1, 11), (1, 14), (-1, 15)],
    &[(1, 9), (-2, 13), (3, 15)],
    &[(1, 10), (-2, 13), (-2, 14), (6, 15)],
    &[(1, 11), (-2, 14), (3, 15)],
    &[(1, 12), (-1, 13), (-1, 14), (3, 15)],
    &[(1, 13), (-3, 15)],
    &[(1, 14), (-3, 15)],
    &[(1, 15)],
];

/// The net frequencies of one vertex from its raw ones: `f = T d̂`, in
/// wrapping `u64` arithmetic (exact when every net count fits in 64 bits,
/// which holds when the raw ones do: an induced copy is also a copy).
#[inline]
pub fn net_row(r: &[u64; ORBITS]) -> [u64; ORBITS] {
    std::array::from_fn(|k| {
        NET_TERMS[k].iter().fold(0u64, |acc, &(c, j)| acc.wrapping_add((c as u64).wrapping_mul(r[j])))
    })
}

/// [`net_row`] in `i128` (exact for raw counts below `2^64`).
#[inline]
fn net_row_wide(r: &[i128; ORBITS]) -> [i128; ORBITS] {
    std::array::from_fn(|k| NET_TERMS[k].iter().map(|&(c, j)| i128::from(c) * r[j]).sum())
}

/// `row` as `u64`s, or the first orbit that does not fit.
#[inline]
fn narrow(row: &[i128; ORBITS]) -> Result<[u64; ORBITS], usize> {
    match row.iter().position(|&x| u64::try_from(x).is_err()) {
        Some(k) => Err(k),
        None => Ok(std::array::from_fn(|k| row[k] as u64)),
    }
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
///
/// # Errors
/// [`Overflow`] (its `position` a row of the primitives) when a count does
/// not fit in 64 bits: the first primitive [`check_primitives`] cannot
/// prove, else the first raw or net count beyond `2^64 − 1`.
pub fn assemble(p: &Primitives, order: &[usize]) -> Result<(Frequencies, Frequencies), Overflow> {
    check_primitives(p)?;
    let n = p.len();
    debug_assert_eq!(order.len(), n);
    let mut raw = Frequencies::zeros(n);
    let mut net = Frequencies::zeros(n);
    // scatter through the inverse permutation: position of each vertex
    let mut pos = vec![0usize; n];
    for (r, &v) in order.iter().enumerate() {
        pos[v] = r;
    }
    raw.data.par_chunks_mut(ORBITS).zip(net.data.par_chunks_mut(ORBITS)).enumerate().with_min_len(1024).try_for_each(
        |(v, (rr, nr))| {
            let position = pos[v];
            let overflow = |orbit| Overflow { position, orbit, exact: true };
            let wide = raw_row(p, position);
            rr.copy_from_slice(&narrow(&wide).map_err(overflow)?);
            nr.copy_from_slice(&narrow(&net_row_wide(&wide)).map_err(overflow)?);
            Ok(())
        },
    )?;
    Ok((raw, net))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_and_raw_transforms_are_inverse() {
        let f: [u64; ORBITS] = std::array::from_fn(|k| (k as u64 * 7 + 3) % 11);
        assert_eq!(net_row(&raw_from_net_row(&f)), f);
    }

    /// The checked path agrees with the wrapping one where everything fits.
    #[test]
    fn wide_net_matches_wrapping_net() {
        let f: [u64; ORBITS] = std::array::from_fn(|k| (k as u64 * 13 + 5) % 17);
        let r = raw_from_net_row(&f);
        let wide: [i128; ORBITS] = std::array::from_fn(|k| i128::from(r[k]));
        assert_eq!(narrow(&net_row_wide(&wide)).unwrap(), net_row(&r));
        assert_eq!(narrow(&net_row_wide(&wide)).unwrap(), f);
    }

    #[test]
    fn binomials() {
        assert_eq!((0..6).map(choose2).collect::<Vec<_>>(), [0, 0, 1, 3, 6, 10]);
    }
}
