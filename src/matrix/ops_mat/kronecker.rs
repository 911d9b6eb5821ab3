//! The explicit Kronecker product of two matrices.

use super::build_rows;
use crate::matrix::{Element, SparseMatrix};

/// The Kronecker product `(A ⊗ B)((i·p + k), (j·q + l)) = op(A(i, j), B(k, l))`
/// for `B` of shape `p × q`; formed explicitly (for tests and small inputs),
/// `O(nnz(A)·nnz(B))`.
pub fn kronecker<A: Element, B: Element, C: Element>(
    op: impl Fn(A, B) -> C + Sync,
    a: &SparseMatrix<A>,
    b: &SparseMatrix<B>,
) -> SparseMatrix<C> {
    let (p, q) = (b.nrows(), b.ncols());
    build_rows(a.nrows() * p, a.ncols() * q, |r| {
        let (i, k) = (r / p.max(1), r % p.max(1));
        let (ai, av) = a.row(i);
        let (bi, bv) = b.row(k);
        let mut oi = Vec::with_capacity(ai.len() * bi.len());
        let mut ov = Vec::with_capacity(ai.len() * bi.len());
        for (&j, &x) in ai.iter().zip(av) {
            for (&l, &y) in bi.iter().zip(bv) {
                oi.push(j * q + l);
                ov.push(op(x, y));
            }
        }
        (oi, ov)
    })
}
