//! [`Mask`], [`MatrixMask`], [`Descriptor`] and accumulators.

use super::{DenseVector, Element, SparseMatrix, SparseVector};
use std::borrow::Cow;

/// An optional accumulator `accum(c, t)`: how an output's old entry `c` and
/// a new entry `t` combine where both are present. `None` replaces.
pub type Accum<'a, T> = Option<&'a (dyn Fn(T, T) -> T + Sync)>;

/// A value usable in a valued mask: is it "true"?
pub trait Truthy {
    /// Whether the value counts as true (non-zero).
    fn truthy(&self) -> bool;
}

macro_rules! truthy_num {
    ($($t:ty),*) => {$(
        impl Truthy for $t {
            #[inline]
            fn truthy(&self) -> bool {
                *self != (0 as $t)
            }
        }
    )*};
}
truthy_num!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);

impl Truthy for bool {
    #[inline]
    fn truthy(&self) -> bool {
        *self
    }
}

/// A vector mask: which output positions an operation may write.
///
/// Structural masks allow the positions where the mask vector has an entry;
/// valued masks those whose entry is [`Truthy`]. A complemented mask allows
/// the others. Internally a bitmap: borrowed (no copy) for a structural
/// mask of a [`DenseVector`], built in `O(n)` otherwise.
///
/// # Examples
/// ```
/// use kronograph::matrix::{DenseVector, Mask};
/// let visited = DenseVector::from_options(&[Some(0u32), None, Some(0)]);
/// let m = Mask::structural(&visited); // where visited has an entry, even 0
/// assert!(m.allows(0) && !m.allows(1));
/// let unvisited = Mask::structural(&visited).complement();
/// assert!(unvisited.allows(1) && !unvisited.allows(2));
/// assert!(!Mask::valued(&visited).allows(0)); // valued: 0 is false
/// ```
#[derive(Clone, Debug)]
pub struct Mask<'a> {
    bits: Cow<'a, [bool]>,
    complement: bool,
}

impl<'a> Mask<'a> {
    /// Structural mask of a dense (bitmap) vector: no copy.
    pub fn structural<T: Element>(v: &'a DenseVector<T>) -> Self {
        Mask { bits: Cow::Borrowed(v.present()), complement: false }
    }

    /// Valued mask of a dense vector.
    pub fn valued<T: Element + Truthy>(v: &DenseVector<T>) -> Mask<'static> {
        let bits = v.present().iter().zip(v.values()).map(|(&p, x)| p && x.truthy()).collect();
        Mask { bits: Cow::Owned(bits), complement: false }
    }

    /// Structural mask of a sparse vector (`O(n)`).
    pub fn structural_sparse<T: Element>(v: &SparseVector<T>) -> Mask<'static> {
        let mut bits = vec![false; v.len()];
        for &i in v.indices() {
            bits[i] = true;
        }
        Mask { bits: Cow::Owned(bits), complement: false }
    }

    /// Valued mask of a sparse vector (`O(n)`).
    pub fn valued_sparse<T: Element + Truthy>(v: &SparseVector<T>) -> Mask<'static> {
        let mut bits = vec![false; v.len()];
        for (i, x) in v.iter() {
            bits[i] = x.truthy();
        }
        Mask { bits: Cow::Owned(bits), complement: false }
    }

    /// A mask from a bitmap.
    pub fn from_bits(bits: Vec<bool>) -> Mask<'static> {
        Mask { bits: Cow::Owned(bits), complement: false }
    }

    /// The complemented mask.
    pub fn complement(mut self) -> Self {
        self.complement = !self.complement;
        self
    }

    /// Whether the mask is complemented.
    pub fn is_complemented(&self) -> bool {
        self.complement
    }

    /// Size.
    #[inline]
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    /// Whether the size is 0.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Whether position `i` may be written.
    #[inline]
    pub fn allows(&self, i: usize) -> bool {
        self.bits[i] != self.complement
    }
}

/// Whether position `i` may be written under an optional mask.
#[inline]
pub(crate) fn allows(mask: Option<&Mask<'_>>, i: usize) -> bool {
    mask.is_none_or(|m| m.allows(i))
}

/// A matrix mask: the pattern of allowed positions, row by row (structural:
/// every stored entry; valued: the [`Truthy`] ones), optionally complemented.
///
/// # Examples
/// ```
/// use kronograph::matrix::{MatrixMask, SparseMatrix};
/// let l = SparseMatrix::try_from_triplets(2, 2, &[1], &[0], &[1u8]).unwrap();
/// let m = MatrixMask::structural(&l);
/// assert!(m.allows(1, 0) && !m.allows(0, 1));
/// assert!(m.clone().complement().allows(0, 1));
/// ```
#[derive(Clone, Debug)]
pub struct MatrixMask<'a> {
    nrows: usize,
    ncols: usize,
    indptr: Cow<'a, [usize]>,
    indices: Cow<'a, [usize]>,
    complement: bool,
}

impl<'a> MatrixMask<'a> {
    /// Structural mask: the stored pattern of `m` (no copy).
    pub fn structural<T: Element>(m: &'a SparseMatrix<T>) -> Self {
        MatrixMask {
            nrows: m.nrows(),
            ncols: m.ncols(),
            indptr: Cow::Borrowed(m.indptr()),
            indices: Cow::Borrowed(m.indices()),
            complement: false,
        }
    }

    /// Valued mask: the stored entries of `m` that are [`Truthy`] (`O(nnz)`).
    pub fn valued<T: Element + Truthy>(m: &SparseMatrix<T>) -> MatrixMask<'static> {
        let mut indptr = vec![0];
        let mut indices = Vec::new();
        for i in 0..m.nrows() {
            let (idx, val) = m.row(i);
            indices.extend(idx.iter().zip(val).filter(|(_, v)| v.truthy()).map(|(&j, _)| j));
            indptr.push(indices.len());
        }
        MatrixMask {
            nrows: m.nrows(),
            ncols: m.ncols(),
            indptr: Cow::Owned(indptr),
            indices: Cow::Owned(indices),
            complement: false,
        }
    }

    /// The complemented mask.
    pub fn complement(mut self) -> Self {
        self.complement = !self.complement;
        self
    }

    /// Whether the mask is complemented.
    pub fn is_complemented(&self) -> bool {
        self.complement
    }

    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.nrows, self.ncols)
    }

    /// The (uncomplemented) pattern of row `i`, sorted.
    #[inline]
    pub fn row_pattern(&self, i: usize) -> &[usize] {
        &self.indices[self.indptr[i]..self.indptr[i + 1]]
    }

    /// Whether `(i, j)` may be written (`O(log row length)`).
    pub fn allows(&self, i: usize, j: usize) -> bool {
        self.row_pattern(i).binary_search(&j).is_ok() != self.complement
    }
}

/// Operation modifiers, as GraphBLAS' descriptor.
///
/// # Examples
/// ```
/// use kronograph::matrix::Descriptor;
/// // clear what the mask forbids, and use Aᵀ for the first input
/// let d = Descriptor::DEFAULT.replace().transpose_first();
/// assert!(d.replace && d.transpose_first && !d.transpose_second);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Descriptor {
    /// Clear output entries that the mask does not allow (GrB_REPLACE).
    pub replace: bool,
    /// Use the transpose of the first matrix input.
    pub transpose_first: bool,
    /// Use the transpose of the second matrix input.
    pub transpose_second: bool,
}

impl Descriptor {
    /// No modifiers.
    pub const DEFAULT: Descriptor = Descriptor { replace: false, transpose_first: false, transpose_second: false };

    /// With `replace` set.
    pub const fn replace(mut self) -> Self {
        self.replace = true;
        self
    }

    /// With `transpose_first` set.
    pub const fn transpose_first(mut self) -> Self {
        self.transpose_first = true;
        self
    }

    /// With `transpose_second` set.
    pub const fn transpose_second(mut self) -> Self {
        self.transpose_second = true;
        self
    }
}

/// The GraphBLAS write rule at one position of `C⟨M, replace⟩ = accum(C, T)`:
/// the output's entry from its old one and the result's (`None`: no entry).
/// Where the mask allows: `accum(old, new)` when both exist, else `old`
/// with an accumulator where `T` has none, else `new` (without an
/// accumulator `T` replaces `C`); where it forbids: `old`, or nothing with
/// `replace`.
#[inline(always)]
pub(crate) fn write_rule<T>(
    allowed: bool,
    replace: bool,
    accum: Accum<'_, T>,
    old: Option<T>,
    new: Option<T>,
) -> Option<T> {
    if allowed {
        match (accum, old, new) {
            (Some(f), Some(a), Some(b)) => Some(f(a, b)),
            (Some(_), a, None) => a,
            (_, _, b) => b,
        }
    } else if replace {
        None
    } else {
        old
    }
}

#[cfg(test)]
mod write_rule_tests {
    use super::write_rule;

    #[test]
    fn write_rule_follows_mask_accum_and_replace() {
        let plus: &(dyn Fn(i32, i32) -> i32 + Sync) = &|a, b| a + b;
        // allowed, with an accumulator: merge both, else keep what exists
        assert_eq!(write_rule(true, false, Some(plus), Some(1), Some(2)), Some(3));
        assert_eq!(write_rule(true, false, Some(plus), Some(1), None), Some(1));
        assert_eq!(write_rule(true, false, Some(plus), None, Some(2)), Some(2));
        assert_eq!(write_rule(true, false, Some(plus), None, None), None);
        // allowed, no accumulator: T replaces C (an absent T deletes)
        assert_eq!(write_rule(true, false, None, Some(1), Some(2)), Some(2));
        assert_eq!(write_rule(true, true, None, Some(1), None), None);
        // forbidden: C kept, or cleared with replace
        assert_eq!(write_rule(false, false, Some(plus), Some(1), Some(2)), Some(1));
        assert_eq!(write_rule(false, true, None, Some(1), Some(2)), None);
        assert_eq!(write_rule::<i32>(false, false, None, None, Some(2)), None);
    }
}
