//! The CPU backend: the `A·x` primitives by the library's sparse operations
//! (`mxv`, `reduce_rows`); `W = A² ∘ A`, its products, the 4-cycles and the
//! 4-cliques by enumeration ([`super::enumerate`], which says why).

use super::enumerate::{four_cliques, lower_common_neighbours, wedge_sums, Adj, WedgeSums};
use super::pattern::Pattern;
use super::transform::{choose2, Primitives};
use crate::matrix::{mxv, reduce_rows, DenseVector, Descriptor, SparseMatrix};
use crate::semirings::PlusTimes;
use std::time::{Duration, Instant};

const D: Descriptor = Descriptor::DEFAULT;

/// `A u` over `(+, ×)` in `u64`, absent entries read as 0.
fn spmv(a: &SparseMatrix<u64>, u: &[u64]) -> crate::Result<Vec<u64>> {
    spmv_desc(a, u, &D)
}

/// `A u` (or `Aᵀ u` by the descriptor) over `(+, ×)` in `u64`.
fn spmv_desc(a: &SparseMatrix<u64>, u: &[u64], desc: &Descriptor) -> crate::Result<Vec<u64>> {
    let mut w = DenseVector::new(if desc.transpose_first { a.ncols() } else { a.nrows() });
    mxv(&mut w, None, None, PlusTimes::<u64>::new(), a, &DenseVector::full(u.to_vec()), desc)?;
    Ok(dense(w))
}

/// Row sums `M e` (0 for an empty row).
fn row_sums(m: &SparseMatrix<u64>, desc: &Descriptor) -> crate::Result<Vec<u64>> {
    let mut w = DenseVector::new(m.nrows());
    reduce_rows(&mut w, None, None, PlusTimes::<u64>::new(), m, desc)?;
    Ok(dense(w))
}

fn dense(w: DenseVector<u64>) -> Vec<u64> {
    let (v, p) = w.into_parts();
    v.into_iter().zip(p).map(|(x, p)| if p { x } else { 0 }).collect()
}

/// The primitives of `p` on the CPU, with the time of each stage; `stage`
/// is called as each starts.
pub(super) fn primitives(
    p: &Pattern,
    stage: &mut dyn FnMut(&'static str),
    times: &mut Vec<(&'static str, Duration)>,
) -> crate::Result<Primitives> {
    let a = &p.a;
    let mut timed = |name: &'static str, t: Instant| times.push((name, t.elapsed()));

    stage("degrees and A·d");
    let t = Instant::now();
    let d = row_sums(a, &D)?;
    let ad = spmv(a, &d)?;
    let aad = spmv(a, &ad)?;
    let c2m1: Vec<u64> = d.iter().map(|&x| choose2(x.saturating_sub(1))).collect();
    let a_c2 = spmv(a, &c2m1)?;
    timed("degrees and A·d", t);

    stage("W = A² ∘ A");
    let t = Instant::now();
    let adj = Adj::of(a);
    let wl = lower_common_neighbours(&adj);
    timed("W = A² ∘ A", t);

    stage("W products and 4-cycles");
    let t = Instant::now();
    let WedgeSums { w1, w_dm2, w_c2, aba, c4 } = wedge_sums(&adj, &wl, &d);
    let a_w1 = spmv(a, &w1)?;
    timed("W products and 4-cycles", t);

    stage("4-cliques");
    let t = Instant::now();
    let k4 = four_cliques(a);
    timed("4-cliques", t);

    Ok(Primitives { d, ad, aad, a_c2, w1, a_w1, w_dm2, w_c2, aba, c4, k4 })
}
