//! `C⟨M⟩ = accum(C, A ⊕.⊗ B)`: Gustavson and dot-product kernels.

use super::{build_rows_with, check_dim, check_mask, in_sorted, oriented, write_matrix};
use crate::matrix::mask::{Accum, Descriptor, MatrixMask};
use crate::matrix::vec_kernels::Rows;
use crate::matrix::{Element, MatrixError, SparseMatrix};
use crate::semirings::{Monoid, Position, Semiring};
use rayon::prelude::*;

/// Which mxm kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MxmMethod {
    /// Dot-product for a non-complemented mask, Gustavson otherwise.
    #[default]
    Auto,
    /// Row-wise saxpy with a sparse accumulator: `O(flops)` per row (plus
    /// the mask row); only mask-allowed columns are accumulated.
    Gustavson,
    /// `C(i, j) = A(i, :) · B(:, j)` only at the mask's positions: `A(i, :)`
    /// is scattered once into a marker, then each `B(:, j)` is walked in
    /// increasing `k` probing it; `O(|A(i,:)| + Σ_j |B(:, j)|)` per row (for a
    /// complemented mask or none: every other position, `O(m·n)`
    /// candidates — meant for masks).
    Dot,
}

/// `C⟨M⟩ = accum(C, A ⊕.⊗ B)`: `T(i, j) = ⊕_k A(i, k) ⊗ B(k, j)` (with
/// `Aᵀ`/`Bᵀ` by the descriptor), computed only where the mask allows.
///
/// Gustavson: `O(flops + Σ mask row)`; dot-product: `O(nnz(A) + Σ_{(i,j) ∈ M}
/// |B(:,j)|)`. Both fold terms in increasing `k` and give
/// identical results (see [`MxmMethod`]).
///
/// The method form is [`SparseMatrix::mxm`].
///
/// # Examples
/// Two-hop reachability, `C = A ⊕.⊗ A` over (∨, ∧):
/// ```
/// use kronograph::matrix::{mxm, Descriptor, MxmMethod, SparseMatrix};
/// use kronograph::semirings::LorLand;
/// let a = SparseMatrix::try_from_triplets(3, 3, &[0, 1], &[1, 2], &[true, true]).unwrap();
/// let mut c = SparseMatrix::new(3, 3);
/// mxm(&mut c, None, None, LorLand::new(), &a, &a, &Descriptor::DEFAULT, MxmMethod::Auto).unwrap();
/// assert_eq!((c.nnz(), c.get(0, 2)), (1, Some(true)));
/// ```
///
/// # Errors
/// [`MatrixError::DimensionMismatch`] if the shapes do not fit.
#[allow(clippy::too_many_arguments)]
pub fn mxm<S: Semiring>(
    c: &mut SparseMatrix<S::C>,
    mask: Option<&MatrixMask<'_>>,
    accum: Accum<'_, S::C>,
    s: S,
    a: &SparseMatrix<S::A>,
    b: &SparseMatrix<S::B>,
    desc: &Descriptor,
    method: MxmMethod,
) -> Result<(), MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let t = mxm_t((c.nrows(), c.ncols()), mask, s, a, b, desc, method)?;
    write_matrix(c, mask, accum, desc.replace, t);
    Ok(())
}

/// `T = ⟨mask⟩ A ⊕.⊗ B` for an output of shape `out`, before it is written
/// (so that the output may be one of the inputs: the in-place method form).
pub(crate) fn mxm_t<S: Semiring>(
    out: (usize, usize),
    mask: Option<&MatrixMask<'_>>,
    s: S,
    a: &SparseMatrix<S::A>,
    b: &SparseMatrix<S::B>,
    desc: &Descriptor,
    method: MxmMethod,
) -> Result<SparseMatrix<S::C>, MatrixError>
where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let (ar, (m, p)) = oriented(a, desc.transpose_first);
    let (br, (p2, n)) = oriented(b, desc.transpose_second);
    check_dim("mxm", "inner dimension", p, p2)?;
    check_dim("mxm", "output rows", m, out.0)?;
    check_dim("mxm", "output columns", n, out.1)?;
    check_mask("mxm", mask, (m, n))?;
    let monoid = s.add_monoid();
    let dot = match method {
        MxmMethod::Dot => true,
        MxmMethod::Gustavson => false,
        MxmMethod::Auto => mask.is_some_and(|mk| !mk.is_complemented()),
    };
    let t = if dot {
        // Columns of B' are the rows of B'ᵀ.
        let bt = if desc.transpose_second { Rows::of(b.as_sprs()) } else { Rows::of(b.transposed_csr()) };
        // A'(i, :) is scattered into a marker (position + 1 of each k), so each
        // dot product walks B'(:, j) alone, in increasing k, probing the marker.
        build_rows_with(
            m,
            n,
            || vec![0u32; p],
            |i, mark: &mut Vec<u32>, oi, ov| {
                let (ai, av) = ar.row(i);
                for (x, &k) in ai.iter().enumerate() {
                    mark[k] = x as u32 + 1;
                }
                let dot_at = |j: usize| -> Option<S::C> {
                    let (bi, bv) = bt.row(j);
                    let mut acc: Option<S::C> = None;
                    for (&k, &y) in bi.iter().zip(bv) {
                        let x = mark[k];
                        if x != 0 {
                            let term = s.multiply(av[x as usize - 1], y, Position::new(i, k, j));
                            let v = acc.map_or(term, |a| monoid.combine(a, term));
                            acc = Some(v);
                            if monoid.is_terminal(&v) {
                                break;
                            }
                        }
                    }
                    acc
                };
                let mut emit = |j: usize| {
                    if let Some(v) = dot_at(j) {
                        oi.push(j);
                        ov.push(v);
                    }
                };
                match mask {
                    Some(mk) if !mk.is_complemented() => mk.row_pattern(i).iter().for_each(|&j| emit(j)),
                    Some(mk) => {
                        let pat = mk.row_pattern(i);
                        let mut cur = 0;
                        for j in 0..n {
                            if !in_sorted(pat, &mut cur, j) {
                                emit(j);
                            }
                        }
                    }
                    None => (0..n).for_each(emit),
                }
                for &k in ai {
                    mark[k] = 0;
                }
            },
        )
    } else {
        let rows: Vec<(Vec<usize>, Vec<S::C>)> = (0..m)
            .into_par_iter()
            .with_min_len(64)
            .map_init(
                || (vec![0usize; n], vec![usize::MAX; n]),
                |(slot, mark), i| {
                    // mark[j] == i: j is in the mask row.
                    let pat = mask.map(|mk| mk.row_pattern(i)).unwrap_or(&[]);
                    for &j in pat {
                        mark[j] = i;
                    }
                    let complemented = mask.is_some_and(|mk| mk.is_complemented());
                    let allowed = |j: usize| match mask {
                        None => true,
                        Some(_) => (mark[j] == i) != complemented,
                    };
                    let mut acc: Vec<(usize, S::C)> = Vec::new();
                    let (ai, av) = ar.row(i);
                    for (&k, &x) in ai.iter().zip(av) {
                        let (bi, bv) = br.row(k);
                        for (&j, &y) in bi.iter().zip(bv) {
                            if !allowed(j) {
                                continue;
                            }
                            let sl = slot[j];
                            if sl == 0 {
                                acc.push((j, s.multiply(x, y, Position::new(i, k, j))));
                                slot[j] = acc.len();
                            } else {
                                let e = &mut acc[sl - 1].1;
                                if !monoid.is_terminal(e) {
                                    *e = monoid.combine(*e, s.multiply(x, y, Position::new(i, k, j)));
                                }
                            }
                        }
                    }
                    let out: (Vec<usize>, Vec<S::C>) = if mask.is_some() && !complemented {
                        pat.iter().filter(|&&j| slot[j] != 0).map(|&j| (j, acc[slot[j] - 1].1)).unzip()
                    } else {
                        let mut sorted = acc.clone();
                        sorted.sort_unstable_by_key(|e| e.0);
                        sorted.into_iter().unzip()
                    };
                    for &(j, _) in &acc {
                        slot[j] = 0;
                    }
                    out
                },
            )
            .collect();
        let mut indptr = vec![0];
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for (i, v) in rows {
            idx.extend(i);
            val.extend(v);
            indptr.push(idx.len());
        }
        SparseMatrix::from_csr_parts(m, n, indptr, idx, val)
    };
    Ok(t)
}
