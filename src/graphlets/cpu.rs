//! The CPU backend: the primitives by the library's sparse operations
//! (masked `mxm`, `mxv`, `reduce_rows`, `apply`, `ewise_add`) and, for the
//! 4-cycle and 4-clique orbits, by enumeration ([`super::enumerate`]).

use super::enumerate::{four_cliques, four_cycles};
use super::pattern::Pattern;
use super::transform::{choose2, Primitives};
use crate::matrix::{
    apply, mxm, mxv, reduce_rows, select, DenseVector, Descriptor, MatrixError, MatrixMask, MxmMethod, SparseMatrix,
};
use crate::semirings::{Plus, PlusPair, PlusTimes};
use std::time::{Duration, Instant};

const D: Descriptor = Descriptor::DEFAULT;

/// `A u` over `(+, ×)` in `u64`, absent entries read as 0.
fn spmv(a: &SparseMatrix<u64>, u: &[u64]) -> Result<Vec<u64>, MatrixError> {
    spmv_desc(a, u, &D)
}

/// `A u` (or `Aᵀ u` by the descriptor) over `(+, ×)` in `u64`.
fn spmv_desc(a: &SparseMatrix<u64>, u: &[u64], desc: &Descriptor) -> Result<Vec<u64>, MatrixError> {
    let mut w = DenseVector::new(if desc.transpose_first { a.ncols() } else { a.nrows() });
    mxv(&mut w, None, None, PlusTimes::<u64>::new(), a, &DenseVector::full(u.to_vec()), desc)?;
    Ok(dense(w))
}

/// Row sums `M e` (0 for an empty row).
fn row_sums(m: &SparseMatrix<u64>, desc: &Descriptor) -> Result<Vec<u64>, MatrixError> {
    let mut w = DenseVector::new(m.nrows());
    reduce_rows(&mut w, None, None, Plus, m, desc)?;
    Ok(dense(w))
}

fn dense(w: DenseVector<u64>) -> Vec<u64> {
    let (v, p) = w.into_parts();
    v.into_iter().zip(p).map(|(x, p)| if p { x } else { 0 }).collect()
}

/// `C⟨L⟩ = X ⊕.⊗ Y` by masked dot products (`L` the strictly lower triangle:
/// each dot product walks the column of the lower-degree end).
fn lower_product<S: crate::semirings::Semiring<A = u64, B = u64, C = u64>>(
    s: S,
    l: &SparseMatrix<u64>,
    x: &SparseMatrix<u64>,
    y: &SparseMatrix<u64>,
) -> Result<SparseMatrix<u64>, MatrixError> {
    let n = l.nrows();
    let mut c = SparseMatrix::new(n, n);
    mxm(&mut c, Some(&MatrixMask::structural(l)), None, s, x, y, &D, MxmMethod::Dot)?;
    Ok(c)
}

/// The primitives of `p` on the CPU, with the time of each stage; `stage`
/// is called as each starts.
pub(super) fn primitives(
    p: &Pattern,
    stage: &mut dyn FnMut(&'static str),
    times: &mut Vec<(&'static str, Duration)>,
) -> Result<Primitives, MatrixError> {
    let a = &p.a;
    let n = a.nrows();
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
    let mut l = SparseMatrix::new(n, n);
    select(&mut l, None, None, |i, j, _| j < i, a, &D)?;
    // W = A ∘ (A·A) is symmetric: only its strictly lower half W_L, by masked
    // dot products; sums over W are sums over W_L and W_Lᵀ
    let wl = lower_product(PlusPair::<u64, u64, u64>::new(), &l, a, a)?;
    timed("W = A² ∘ A", t);

    stage("W products");
    let t = Instant::now();
    let both = |x: Vec<u64>, y: Vec<u64>| -> Vec<u64> { x.iter().zip(&y).map(|(p, q)| p + q).collect() };
    let w1 = both(row_sums(&wl, &D)?, row_sums(&wl, &D.transpose_first())?);
    let a_w1 = spmv(a, &w1)?;
    let dm2: Vec<u64> = d.iter().map(|&x| x.saturating_sub(2)).collect();
    let w_dm2 = both(spmv_desc(&wl, &dm2, &D)?, spmv_desc(&wl, &dm2, &D.transpose_first())?);
    // C(W, 2) on W_L and on W_Lᵀ (the latter read through W_L's cached transpose)
    let c2 = |desc: &Descriptor| -> Result<Vec<u64>, MatrixError> {
        let mut wc = SparseMatrix::new(n, n);
        apply(&mut wc, None, None, choose2, &wl, desc)?;
        row_sums(&wc, &D)
    };
    let w_c2 = both(c2(&D)?, c2(&D.transpose_first())?);
    // diag(A B A) with B = W − A on W's pattern (an edge in no triangle never
    // closes one at i) is 2 diag(A B_L A), B_L its lower half:
    // Σ_j A_ij Q_ij with Q = A B_Lᵀ; below the diagonal Q⟨L⟩ = A·B_Lᵀ,
    // above it Q_ij = (B_L·A)_ji
    let mut bl = SparseMatrix::new(n, n);
    apply(&mut bl, None, None, |x: u64| x - 1, &wl, &D)?;
    let mut q_lower = SparseMatrix::new(n, n);
    let mask = MatrixMask::structural(&l);
    let desc = D.transpose_second();
    mxm(&mut q_lower, Some(&mask), None, PlusTimes::<u64>::new(), a, &bl, &desc, MxmMethod::Dot)?;
    let q_upper_t = lower_product(PlusTimes::<u64>::new(), &l, &bl, a)?;
    let aba: Vec<u64> =
        both(row_sums(&q_lower, &D)?, row_sums(&q_upper_t, &D.transpose_first())?).iter().map(|x| 2 * x).collect();
    timed("W products", t);

    stage("4-cycles");
    let t = Instant::now();
    let c4 = four_cycles(a);
    timed("4-cycles", t);

    stage("4-cliques");
    let t = Instant::now();
    let k4 = four_cliques(a);
    timed("4-cliques", t);

    Ok(Primitives { d, ad, aad, a_c2, w1, a_w1, w_dm2, w_c2, aba, c4, k4 })
}
