//! A dense operator and a dense direct solver, as references for tests and
//! for tiny systems.

use super::{LinOp, Real, SolverError, Vector};

/// A dense row-major `n × n` matrix as a [`LinOp`].
///
/// `apply` costs `O(n²)`. Meant for tests and small systems.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseOp<T> {
    n: usize,
    a: Vec<T>,
}

impl<T: Real> DenseOp<T> {
    /// The operator of the row-major matrix `a` (`n × n`).
    ///
    /// # Panics
    /// If `a.len() != n * n` (a programming error).
    pub fn new(n: usize, a: Vec<T>) -> Self {
        assert_eq!(a.len(), n * n, "DenseOp::new: a has {} entries, expected {n}²", a.len());
        DenseOp { n, a }
    }

    /// The entries, row-major.
    pub fn as_slice(&self) -> &[T] {
        &self.a
    }
}

impl<T: Real> LinOp<Vec<T>> for DenseOp<T> {
    fn nrows(&self) -> usize {
        self.n
    }
    fn ncols(&self) -> usize {
        self.n
    }
    fn apply(&self, x: &Vec<T>, y: &mut Vec<T>) -> Result<(), SolverError> {
        if x.len() != self.n || y.len() != self.n {
            return Err(SolverError::DimensionMismatch { what: "DenseOp vector", expected: self.n, found: x.len() });
        }
        for (i, yi) in y.iter_mut().enumerate() {
            let row = &self.a[i * self.n..(i + 1) * self.n];
            *yi = T::of_f64(super::vector::dot_slices(row, x));
        }
        Ok(())
    }
    fn diagonal(&self, d: &mut Vec<T>) -> Result<bool, SolverError> {
        Vector::resize(d, self.n);
        for (i, di) in d.iter_mut().enumerate() {
            *di = self.a[i * self.n + i];
        }
        Ok(true)
    }
}

/// Solves the dense system `A x = b` (`A` row-major `n × n`) by Gaussian
/// elimination with partial pivoting, in `f64`. `O(n³)`.
///
/// Returns `None` when `A` is singular to working precision.
pub fn dense_solve(n: usize, a: &[f64], b: &[f64]) -> Option<Vec<f64>> {
    assert_eq!(a.len(), n * n);
    assert_eq!(b.len(), n);
    let mut m = a.to_vec();
    let mut x = b.to_vec();
    let scale = a.iter().fold(0f64, |s, v| s.max(v.abs()));
    for k in 0..n {
        let piv = (k..n).max_by(|&i, &j| m[i * n + k].abs().total_cmp(&m[j * n + k].abs()))?;
        if m[piv * n + k].abs() <= scale * 1e-14 * n as f64 {
            return None;
        }
        if piv != k {
            for j in 0..n {
                m.swap(k * n + j, piv * n + j);
            }
            x.swap(k, piv);
        }
        let d = m[k * n + k];
        for i in k + 1..n {
            let f = m[i * n + k] / d;
            if f != 0.0 {
                for j in k..n {
                    m[i * n + j] -= f * m[k * n + j];
                }
                x[i] -= f * x[k];
            }
        }
    }
    for k in (0..n).rev() {
        let mut s = x[k];
        for j in k + 1..n {
            s -= m[k * n + j] * x[j];
        }
        x[k] = s / m[k * n + k];
    }
    Some(x)
}
