//! Exact low-rank forms of base kernels over two label lists
//! ([`BaseKernel::low_rank`](super::BaseKernel::low_rank)).
//!
//! A kernel whose table over `a × b` is `κ(a_i, b_j) = Σ_r u_r[i]·v_r[j]`
//! with few terms lets the marginalized graph kernel apply its Kronecker
//! product as `Σ_r (W ⊙ U_r) X (W' ⊙ V_r)ᵀ` instead of walking every pair
//! of edges. Constants have rank 1, the Kronecker delta `h + (1 − h)[x = y]`
//! rank 1 + (number of label classes present in both lists); sums
//! concatenate their parts' terms, products multiply them pairwise, scalings
//! scale them.

/// One term `u ⊗ v` of a [`LowRank`]: `u` over the first label list, `v`
/// over the second.
#[derive(Clone, Debug, PartialEq)]
pub struct RankOne {
    /// Values over the first list (`|a|` entries).
    pub u: Vec<f64>,
    /// Values over the second list (`|b|` entries).
    pub v: Vec<f64>,
}

/// The exact decomposition `κ(a_i, b_j) = Σ_r u_r[i]·v_r[j]` of a kernel's
/// table over two label lists `a` and `b` (equal to the table up to
/// rounding). Terms whose `u` or `v` is zero everywhere are left out.
///
/// # Examples
/// ```
/// use kronograph::basekernel::{BaseKernel, KroneckerDelta};
/// let k = KroneckerDelta::new(0.5);
/// let (a, b) = ([1u8, 2, 1], [2u8, 3]);
/// let ra: Vec<&u8> = a.iter().collect();
/// let rb: Vec<&u8> = b.iter().collect();
/// let lr = k.low_rank(&ra, &rb).unwrap();
/// assert_eq!(lr.rank(), 2); // the constant 0.5, and class 2 (in both lists)
/// assert_eq!(lr.value(1, 0), 1.0);
/// assert_eq!(lr.value(0, 1), 0.5);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LowRank {
    na: usize,
    nb: usize,
    terms: Vec<RankOne>,
}

/// The most terms [`LowRank::product`] builds (beyond it, the product of
/// two decompositions is reported as having no useful low rank).
pub const MAX_RANK: usize = 4096;

impl LowRank {
    /// The zero kernel over lists of `na` and `nb` labels (no term).
    pub fn zero(na: usize, nb: usize) -> Self {
        LowRank { na, nb, terms: Vec::new() }
    }

    /// The constant `c` (one term, none for `c = 0`).
    pub fn constant(c: f64, na: usize, nb: usize) -> Self {
        let mut r = Self::zero(na, nb);
        r.push(RankOne { u: vec![c; na], v: vec![1.0; nb] });
        r
    }

    /// `c·[a_i = b_j]` for labels compared with `==`: one term per class
    /// present in both lists (indicator vectors). `O((|a| + |b|)·classes)`.
    pub fn equality<T: PartialEq + ?Sized>(c: f64, a: &[&T], b: &[&T]) -> Self {
        let (class_a, class_b) = super::rows::classes(a, b, usize::MAX).expect("no class limit");
        let classes = class_a.iter().map(|&k| k as usize + 1).max().unwrap_or(0);
        let mut r = Self::zero(a.len(), b.len());
        if c == 0.0 {
            return r;
        }
        for k in 0..classes as u32 {
            let v: Vec<f64> = class_b.iter().map(|&cb| if cb == k { 1.0 } else { 0.0 }).collect();
            let u: Vec<f64> = class_a.iter().map(|&ca| if ca == k { c } else { 0.0 }).collect();
            r.push(RankOne { u, v });
        }
        r
    }

    /// Adds a term, unless it is zero.
    pub fn push(&mut self, t: RankOne) {
        assert!(t.u.len() == self.na && t.v.len() == self.nb, "LowRank: term lengths");
        if t.u.iter().any(|&x| x != 0.0) && t.v.iter().any(|&x| x != 0.0) {
            self.terms.push(t);
        }
    }

    /// The terms.
    pub fn terms(&self) -> &[RankOne] {
        &self.terms
    }

    /// The number of terms.
    pub fn rank(&self) -> usize {
        self.terms.len()
    }

    /// `(|a|, |b|)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.na, self.nb)
    }

    /// `Σ_r u_r[i]·v_r[j]`.
    pub fn value(&self, i: usize, j: usize) -> f64 {
        self.terms.iter().map(|t| t.u[i] * t.v[j]).sum()
    }

    /// The sum of two decompositions (terms concatenated).
    ///
    /// # Panics
    /// If the shapes differ.
    pub fn sum(mut self, other: LowRank) -> Self {
        assert_eq!(self.shape(), other.shape(), "LowRank::sum: shapes");
        self.terms.extend(other.terms);
        self
    }

    /// The elementwise product of two decompositions (terms multiplied
    /// pairwise, zero products left out); `None` beyond [`MAX_RANK`] terms.
    ///
    /// # Panics
    /// If the shapes differ.
    pub fn product(&self, other: &LowRank) -> Option<Self> {
        assert_eq!(self.shape(), other.shape(), "LowRank::product: shapes");
        if self.rank().saturating_mul(other.rank()) > MAX_RANK {
            return None;
        }
        let mut r = Self::zero(self.na, self.nb);
        for s in &self.terms {
            for t in &other.terms {
                let u = s.u.iter().zip(&t.u).map(|(x, y)| x * y).collect();
                let v = s.v.iter().zip(&t.v).map(|(x, y)| x * y).collect();
                r.push(RankOne { u, v });
            }
        }
        Some(r)
    }

    /// The decomposition times `c`.
    pub fn scaled(mut self, c: f64) -> Self {
        if c == 0.0 {
            self.terms.clear();
        }
        self.terms.iter_mut().for_each(|t| t.u.iter_mut().for_each(|x| *x *= c));
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::basekernel::{BaseKernel, Constant, KroneckerDelta, SquareExponential};

    fn refs<T>(v: &[T]) -> Vec<&T> {
        v.iter().collect()
    }

    fn check<K: BaseKernel<u8>>(k: &K, a: &[u8], b: &[u8]) -> usize {
        let (ra, rb) = (refs(a), refs(b));
        let lr = k.low_rank(&ra, &rb).expect("a low-rank form");
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                let (want, got) = (k.value(x, y), lr.value(i, j));
                assert!((want - got).abs() <= 1e-15, "{k:?} at ({i}, {j}): {got} vs {want}");
            }
        }
        lr.rank()
    }

    #[test]
    fn leaves_and_combinations_are_exact() {
        let (a, b) = ([0u8, 1, 2, 1, 5, 0], [1u8, 1, 3, 0]);
        assert_eq!(check(&Constant::new(0.7), &a, &b), 1);
        // the constant and the classes 0 and 1 (2, 3, 5 are in one list only)
        assert_eq!(check(&KroneckerDelta::new(0.3), &a, &b), 3);
        assert_eq!(check(&KroneckerDelta::new(0.0), &a, &b), 2);
        check(&(KroneckerDelta::new(0.3) * KroneckerDelta::new(0.6)), &a, &b);
        check(&(KroneckerDelta::new(0.3) + Constant::new(0.2)), &a, &b);
        check(&(0.5 * KroneckerDelta::new(0.3)), &a, &b);
    }

    #[test]
    fn kernels_without_low_rank_say_so() {
        let (a, b) = ([0.0f64, 1.0], [0.5f64]);
        let (ra, rb) = (refs(&a), refs(&b));
        assert!(SquareExponential::new(1.0).low_rank(&ra, &rb).is_none());
        assert!((KroneckerDelta::new(0.5) * SquareExponential::new(1.0)).low_rank(&ra, &rb).is_none());
        assert!((KroneckerDelta::new(0.5) + SquareExponential::new(1.0)).low_rank(&ra, &rb).is_none());
    }
}
