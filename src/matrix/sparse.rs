//! [`SparseMatrix`]: CSR storage over `sprs`, with a cached transpose.

use super::{Element, MatrixError};
use rayon::prelude::*;
use sprs::{CsMat, CsMatView};
use std::sync::OnceLock;

/// An `nrows × ncols` sparse matrix in CSR form (a `sprs::CsMat`), column
/// indices sorted in each row, no duplicates.
///
/// The CSR form of the transpose — equivalently the CSC form of the matrix —
/// is computed on first use (`O(nnz + n)`) and cached; a matrix never changes
/// after construction (operations return or overwrite whole matrices), so the
/// cache stays valid.
///
/// # Examples
/// ```
/// use kronograph::matrix::SparseMatrix;
/// // rows, columns, values (any order; duplicates are an error)
/// let a = SparseMatrix::try_from_triplets(2, 3, &[1, 0, 0], &[0, 2, 1], &[3.0, 2.0, 1.0]).unwrap();
/// assert_eq!((a.nrows(), a.ncols(), a.nnz()), (2, 3, 3));
/// assert_eq!(a.row(0), (&[1, 2][..], &[1.0, 2.0][..]));
/// assert_eq!(a.get(1, 0), Some(3.0));
/// assert_eq!(a.get(1, 1), None); // absent, not 0
/// assert_eq!(a.transpose().get(0, 1), Some(3.0));
/// ```
#[derive(Debug)]
pub struct SparseMatrix<T> {
    csr: CsMat<T>,
    transposed: OnceLock<CsMat<T>>,
}

impl<T: Clone> Clone for SparseMatrix<T> {
    fn clone(&self) -> Self {
        SparseMatrix { csr: self.csr.clone(), transposed: self.transposed.clone() }
    }
}

impl<T: Element> SparseMatrix<T> {
    /// Wraps a `sprs` matrix (CSC input is converted to CSR).
    pub fn from_sprs(m: CsMat<T>) -> Self {
        let csr = if m.is_csr() { m } else { m.to_csr() };
        SparseMatrix { csr, transposed: OnceLock::new() }
    }

    /// The `nrows × ncols` matrix with no entries.
    pub fn new(nrows: usize, ncols: usize) -> Self {
        Self::from_csr_parts(nrows, ncols, vec![0; nrows + 1], Vec::new(), Vec::new())
    }

    /// Trusted constructor from CSR arrays (sorted, no duplicates; checked by `sprs`).
    pub(crate) fn from_csr_parts(
        nrows: usize,
        ncols: usize,
        indptr: Vec<usize>,
        indices: Vec<usize>,
        values: Vec<T>,
    ) -> Self {
        SparseMatrix { csr: CsMat::new((nrows, ncols), indptr, indices, values), transposed: OnceLock::new() }
    }

    /// A matrix from coordinate triplets `(rows[t], cols[t], values[t])` in any order.
    ///
    /// # Errors
    /// [`MatrixError::LengthMismatch`], [`MatrixError::IndexOutOfBounds`],
    /// or [`MatrixError::DuplicateIndex`] (the flat index `i·ncols + j`).
    pub fn try_from_triplets(
        nrows: usize,
        ncols: usize,
        rows: &[usize],
        cols: &[usize],
        values: &[T],
    ) -> Result<Self, MatrixError> {
        if rows.len() != cols.len() || rows.len() != values.len() {
            return Err(MatrixError::LengthMismatch {
                what: "triplets",
                a: rows.len(),
                b: cols.len().min(values.len()),
            });
        }
        let mut order: Vec<usize> = (0..rows.len()).collect();
        for t in 0..rows.len() {
            if rows[t] >= nrows {
                return Err(MatrixError::IndexOutOfBounds { what: "row", index: rows[t], size: nrows });
            }
            if cols[t] >= ncols {
                return Err(MatrixError::IndexOutOfBounds { what: "column", index: cols[t], size: ncols });
            }
        }
        order.sort_by_key(|&t| (rows[t], cols[t]));
        let mut indptr = vec![0usize; nrows + 1];
        let mut indices = Vec::with_capacity(rows.len());
        let mut vals = Vec::with_capacity(rows.len());
        for (p, &t) in order.iter().enumerate() {
            if p > 0 {
                let q = order[p - 1];
                if rows[q] == rows[t] && cols[q] == cols[t] {
                    return Err(MatrixError::DuplicateIndex { what: "triplets", index: rows[t] * ncols + cols[t] });
                }
            }
            indptr[rows[t] + 1] += 1;
            indices.push(cols[t]);
            vals.push(values[t]);
        }
        for i in 0..nrows {
            indptr[i + 1] += indptr[i];
        }
        Ok(Self::from_csr_parts(nrows, ncols, indptr, indices, vals))
    }

    /// A matrix whose row `i` is `row(i) = (column indices, values)`, rows
    /// computed in parallel.
    ///
    /// # Panics
    /// If a row's indices are not strictly increasing and below `ncols`, or
    /// its two arrays differ in length (checked by `sprs`).
    pub fn from_rows(nrows: usize, ncols: usize, row: impl Fn(usize) -> (Vec<usize>, Vec<T>) + Sync + Send) -> Self {
        build_rows(nrows, ncols, row)
    }

    /// A matrix whose row `i` is appended by `row(i, indices, values)` (rows
    /// computed in parallel in contiguous chunks, no allocation per row).
    ///
    /// # Panics
    /// If a row's indices are not strictly increasing and below `ncols`, or
    /// the two arrays differ in length (checked by `sprs`).
    pub fn from_rows_into(
        nrows: usize,
        ncols: usize,
        row: impl Fn(usize, &mut Vec<usize>, &mut Vec<T>) + Sync + Send,
    ) -> Self {
        build_rows_into(nrows, ncols, row)
    }

    /// From a dense row-major array of `Option`s (tests, small matrices).
    pub fn from_dense_options(nrows: usize, ncols: usize, d: &[Option<T>]) -> Self {
        assert_eq!(d.len(), nrows * ncols, "from_dense_options: wrong length");
        let mut indptr = vec![0];
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for i in 0..nrows {
            for j in 0..ncols {
                if let Some(v) = d[i * ncols + j] {
                    idx.push(j);
                    val.push(v);
                }
            }
            indptr.push(idx.len());
        }
        Self::from_csr_parts(nrows, ncols, indptr, idx, val)
    }

    /// Row-major `Option`s (tests, small matrices).
    pub fn to_dense_options(&self) -> Vec<Option<T>> {
        let mut d = vec![None; self.nrows() * self.ncols()];
        for i in 0..self.nrows() {
            let (idx, val) = self.row(i);
            for (&j, &v) in idx.iter().zip(val) {
                d[i * self.ncols() + j] = Some(v);
            }
        }
        d
    }

    /// Number of rows.
    #[inline]
    pub fn nrows(&self) -> usize {
        self.csr.rows()
    }

    /// Number of columns.
    #[inline]
    pub fn ncols(&self) -> usize {
        self.csr.cols()
    }

    /// Number of stored entries.
    #[inline]
    pub fn nnz(&self) -> usize {
        self.csr.nnz()
    }

    /// The CSR form (a `sprs` view).
    pub fn csr(&self) -> CsMatView<'_, T> {
        self.csr.view()
    }

    /// The CSC form (a `sprs` view over the cached transpose's CSR arrays).
    pub fn csc(&self) -> CsMatView<'_, T> {
        self.transposed_csr().transpose_view()
    }

    /// The `sprs` matrix.
    pub fn as_sprs(&self) -> &CsMat<T> {
        &self.csr
    }

    /// Row pointers (`nrows + 1`).
    #[inline]
    pub fn indptr(&self) -> &[usize] {
        self.csr.indptr().into_raw_storage()
    }

    /// Column indices of the stored entries, row by row.
    #[inline]
    pub fn indices(&self) -> &[usize] {
        self.csr.indices()
    }

    /// Values of the stored entries.
    #[inline]
    pub fn values(&self) -> &[T] {
        self.csr.data()
    }

    /// Row `i`: its column indices and values.
    #[inline]
    pub fn row(&self, i: usize) -> (&[usize], &[T]) {
        let p = self.indptr();
        (&self.indices()[p[i]..p[i + 1]], &self.values()[p[i]..p[i + 1]])
    }

    /// Entry `(i, j)` (`O(log row length)`).
    pub fn get(&self, i: usize, j: usize) -> Option<T> {
        let (idx, val) = self.row(i);
        idx.binary_search(&j).ok().map(|k| val[k])
    }

    /// The CSR arrays of `Aᵀ` (cached).
    pub fn transposed_csr(&self) -> &CsMat<T> {
        self.transposed.get_or_init(|| transpose_csr(&self.csr))
    }

    /// `Aᵀ` as a new matrix (its own transpose cache is this matrix).
    pub fn transpose(&self) -> SparseMatrix<T> {
        let t = self.transposed_csr().clone();
        let back = OnceLock::new();
        let _ = back.set(self.csr.clone());
        SparseMatrix { csr: t, transposed: back }
    }

    /// The matrix with its entries mapped by `f`.
    pub fn map<U: Element>(&self, f: impl Fn(T) -> U) -> SparseMatrix<U> {
        SparseMatrix::from_csr_parts(
            self.nrows(),
            self.ncols(),
            self.indptr().to_vec(),
            self.indices().to_vec(),
            self.values().iter().map(|&v| f(v)).collect(),
        )
    }

    /// The matrix, told that it is symmetric: its transpose cache is filled
    /// with a copy of itself (`O(nnz)` copy, no transpose computed). The
    /// caller guarantees `A = Aᵀ`.
    pub(crate) fn assume_symmetric(self) -> Self {
        let _ = self.transposed.set(self.csr.clone());
        self
    }

    /// Rows, columns (as `(nrows, ncols)`), indptr, indices, values, consumed.
    pub fn into_csr_parts(self) -> ((usize, usize), Vec<usize>, Vec<usize>, Vec<T>) {
        let shape = (self.nrows(), self.ncols());
        let (ip, ind, val) = self.csr.into_raw_storage();
        (shape, ip, ind, val)
    }
}

impl SparseMatrix<f64> {
    /// The weighted adjacency of a graph, `A(i, j) = w_ij` (`O(nnz)` copy).
    /// The transpose cache is filled at once: with the adjacency itself for
    /// an undirected (symmetric) graph, with the graph's cached transpose
    /// for a directed one.
    pub fn from_graph<N: crate::graph::Label, E: crate::graph::Label>(g: &crate::graph::Graph<N, E>) -> Self {
        let csr = g.adjacency().clone();
        let t = if g.is_directed() { g.transpose().0.clone() } else { csr.clone() };
        let transposed = OnceLock::new();
        let _ = transposed.set(t);
        SparseMatrix { csr, transposed }
    }
}

/// Counting-sort transpose of a CSR matrix: `O(nnz + n)`, rows of the result sorted.
pub(crate) fn transpose_csr<T: Element>(m: &CsMat<T>) -> CsMat<T> {
    let (nr, nc) = (m.rows(), m.cols());
    let ip = m.indptr();
    let ip = ip.raw_storage();
    let (ind, val) = (m.indices(), m.data());
    let mut counts = vec![0usize; nc + 1];
    for &j in ind {
        counts[j + 1] += 1;
    }
    for j in 0..nc {
        counts[j + 1] += counts[j];
    }
    let indptr = counts.clone();
    let mut next = counts;
    let mut tind = vec![0usize; ind.len()];
    let mut tval = vec![T::default(); ind.len()];
    for i in 0..nr {
        for k in ip[i]..ip[i + 1] {
            let j = ind[k];
            tind[next[j]] = i;
            tval[next[j]] = val[k];
            next[j] += 1;
        }
    }
    CsMat::new((nc, nr), indptr, tind, tval)
}

/// Builds a matrix from rows computed in parallel.
pub(crate) fn build_rows<T: Element>(
    nrows: usize,
    ncols: usize,
    f: impl Fn(usize) -> (Vec<usize>, Vec<T>) + Sync + Send,
) -> SparseMatrix<T> {
    let rows: Vec<(Vec<usize>, Vec<T>)> = (0..nrows).into_par_iter().with_min_len(64).map(f).collect();
    let nnz = rows.iter().map(|r| r.0.len()).sum();
    let mut indptr = Vec::with_capacity(nrows + 1);
    indptr.push(0);
    let (mut idx, mut val) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
    for (i, v) in rows {
        idx.extend(i);
        val.extend(v);
        indptr.push(idx.len());
    }
    SparseMatrix::from_csr_parts(nrows, ncols, indptr, idx, val)
}

/// Builds a matrix whose row `i` is appended by `f(i, indices, values)`;
/// rows are computed in parallel in contiguous chunks (no allocation per row).
pub(crate) fn build_rows_into<T: Element>(
    nrows: usize,
    ncols: usize,
    f: impl Fn(usize, &mut Vec<usize>, &mut Vec<T>) + Sync + Send,
) -> SparseMatrix<T> {
    build_rows_with(nrows, ncols, || (), |i, _: &mut (), idx, val| f(i, idx, val))
}

/// [`build_rows_into`] with a workspace made by `init` once per chunk.
pub(crate) fn build_rows_with<T: Element, W>(
    nrows: usize,
    ncols: usize,
    init: impl Fn() -> W + Sync + Send,
    f: impl Fn(usize, &mut W, &mut Vec<usize>, &mut Vec<T>) + Sync + Send,
) -> SparseMatrix<T> {
    let chunks = (rayon::current_num_threads() * 16).min(nrows.div_ceil(64)).max(1);
    let parts: Vec<(Vec<usize>, Vec<usize>, Vec<T>)> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let (lo, hi) = (c * nrows / chunks, (c + 1) * nrows / chunks);
            let (mut ends, mut idx, mut val) = (Vec::with_capacity(hi - lo), Vec::new(), Vec::new());
            let mut ws = init();
            for i in lo..hi {
                f(i, &mut ws, &mut idx, &mut val);
                ends.push(idx.len());
            }
            (ends, idx, val)
        })
        .collect();
    let nnz = parts.iter().map(|p| p.1.len()).sum();
    let mut indptr = Vec::with_capacity(nrows + 1);
    indptr.push(0);
    let (mut idx, mut val) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
    for (ends, i, v) in parts {
        let base = idx.len();
        indptr.extend(ends.iter().map(|e| base + e));
        idx.extend(i);
        val.extend(v);
    }
    SparseMatrix::from_csr_parts(nrows, ncols, indptr, idx, val)
}
