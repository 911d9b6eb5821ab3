//! [`SparseVector`] and [`DenseVector`].

use super::{Element, MatrixError};

/// A sparse vector of size `n`: strictly increasing `indices` and one value each.
///
/// # Examples
/// ```
/// use kronograph::matrix::SparseVector;
/// let v = SparseVector::try_new(5, vec![1, 3], vec![2.5, -1.0]).unwrap();
/// assert_eq!((v.len(), v.nnz()), (5, 2));
/// assert_eq!(v.get(3), Some(-1.0));
/// assert_eq!(v.to_dense().to_options(), vec![None, Some(2.5), None, Some(-1.0), None]);
/// assert!(SparseVector::try_new(5, vec![3, 3], vec![0.0, 0.0]).is_err()); // repeated index
/// assert!(SparseVector::try_new(5, vec![7], vec![0.0]).is_err()); // out of range
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SparseVector<T> {
    n: usize,
    indices: Vec<usize>,
    values: Vec<T>,
}

impl<T: Element> SparseVector<T> {
    /// The empty vector of size `n`.
    pub fn new(n: usize) -> Self {
        SparseVector { n, indices: Vec::new(), values: Vec::new() }
    }

    /// A vector from indices and values.
    ///
    /// # Errors
    /// [`MatrixError::LengthMismatch`], [`MatrixError::IndexOutOfBounds`], or
    /// [`MatrixError::DuplicateIndex`]; unsorted indices are sorted (`O(k log k)`).
    pub fn try_new(n: usize, indices: Vec<usize>, values: Vec<T>) -> Result<Self, MatrixError> {
        if indices.len() != values.len() {
            return Err(MatrixError::LengthMismatch {
                what: "sparse vector indices/values",
                a: indices.len(),
                b: values.len(),
            });
        }
        if let Some(&i) = indices.iter().find(|&&i| i >= n) {
            return Err(MatrixError::IndexOutOfBounds { what: "sparse vector", index: i, size: n });
        }
        let (indices, values) = if indices.windows(2).all(|w| w[0] < w[1]) {
            (indices, values)
        } else {
            let mut pairs: Vec<(usize, T)> = indices.into_iter().zip(values).collect();
            pairs.sort_by_key(|p| p.0);
            if let Some(w) = pairs.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(MatrixError::DuplicateIndex { what: "sparse vector", index: w[0].0 });
            }
            pairs.into_iter().unzip()
        };
        Ok(SparseVector { n, indices, values })
    }

    /// Trusted constructor: `indices` strictly increasing and below `n`.
    pub(crate) fn from_sorted(n: usize, indices: Vec<usize>, values: Vec<T>) -> Self {
        debug_assert!(indices.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(indices.last().is_none_or(|&i| i < n));
        SparseVector { n, indices, values }
    }

    /// Size `n`.
    #[inline]
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the size is 0.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Number of stored entries.
    #[inline]
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// The stored indices (strictly increasing).
    #[inline]
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// The stored values.
    #[inline]
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// Entry `i` (`O(log nnz)`).
    pub fn get(&self, i: usize) -> Option<T> {
        self.indices.binary_search(&i).ok().map(|k| self.values[k])
    }

    /// `(index, value)` pairs in index order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, T)> + '_ {
        self.indices.iter().copied().zip(self.values.iter().copied())
    }

    /// As a bitmap [`DenseVector`] (`O(n)`).
    pub fn to_dense(&self) -> DenseVector<T> {
        let mut d = DenseVector::new(self.n);
        for (i, v) in self.iter() {
            d.values[i] = v;
            d.present[i] = true;
        }
        d
    }

    /// As `Option`s (tests, small vectors).
    pub fn to_options(&self) -> Vec<Option<T>> {
        let mut o = vec![None; self.n];
        for (i, v) in self.iter() {
            o[i] = Some(v);
        }
        o
    }

    /// Decomposes into `(n, indices, values)`.
    pub fn into_parts(self) -> (usize, Vec<usize>, Vec<T>) {
        (self.n, self.indices, self.values)
    }
}

/// A vector of size `n` in bitmap form: `values[i]` is meaningful where
/// `present[i]`.
///
/// # Examples
/// ```
/// use kronograph::matrix::DenseVector;
/// let mut d = DenseVector::new(3); // no entries
/// d.set(1, 4u32);
/// assert_eq!(d.to_options(), vec![None, Some(4), None]);
/// assert_eq!(DenseVector::full(vec![1, 2, 3]).nnz(), 3);
/// assert_eq!(d.to_sparse().indices(), &[1]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DenseVector<T> {
    pub(crate) values: Vec<T>,
    pub(crate) present: Vec<bool>,
}

impl<T: Element> DenseVector<T> {
    /// The vector of size `n` with no entries.
    pub fn new(n: usize) -> Self {
        DenseVector { values: vec![T::default(); n], present: vec![false; n] }
    }

    /// The full vector with these values.
    pub fn full(values: Vec<T>) -> Self {
        let n = values.len();
        DenseVector { values, present: vec![true; n] }
    }

    /// The full vector of size `n` with every entry `v`.
    pub fn filled(n: usize, v: T) -> Self {
        Self::full(vec![v; n])
    }

    /// From `Option`s.
    pub fn from_options(o: &[Option<T>]) -> Self {
        DenseVector {
            values: o.iter().map(|v| v.unwrap_or_default()).collect(),
            present: o.iter().map(Option::is_some).collect(),
        }
    }

    /// Size `n`.
    #[inline]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the size is 0.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Number of present entries (`O(n)`).
    pub fn nnz(&self) -> usize {
        self.present.iter().filter(|&&p| p).count()
    }

    /// Entry `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        if self.present[i] {
            Some(self.values[i])
        } else {
            None
        }
    }

    /// Sets entry `i`.
    #[inline]
    pub fn set(&mut self, i: usize, v: T) {
        self.values[i] = v;
        self.present[i] = true;
    }

    /// Removes entry `i`.
    #[inline]
    pub fn remove(&mut self, i: usize) {
        self.present[i] = false;
    }

    /// The value array (meaningful where [`present`](Self::present)).
    #[inline]
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The presence bitmap.
    #[inline]
    pub fn present(&self) -> &[bool] {
        &self.present
    }

    /// As `Option`s.
    pub fn to_options(&self) -> Vec<Option<T>> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// The present entries as a [`SparseVector`] (`O(n)`).
    pub fn to_sparse(&self) -> SparseVector<T> {
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for i in 0..self.len() {
            if self.present[i] {
                idx.push(i);
                val.push(self.values[i]);
            }
        }
        SparseVector::from_sorted(self.len(), idx, val)
    }

    /// Decomposes into `(values, present)`.
    pub fn into_parts(self) -> (Vec<T>, Vec<bool>) {
        (self.values, self.present)
    }
}
