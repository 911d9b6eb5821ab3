//! Lazy Kronecker products of graphs.
//!
//! For graphs `G` (`n` nodes, weights `W`, edge labels `E`) and `G'` (`n'`
//! nodes), the product graph has the `n·n'` node pairs `(i, i')`, indexed
//! `i·n' + i'`, and the weighted adjacency
//!
//! ```text
//! A×[(i,i'),(j,j')] = W_ij W'_i'j' κe(e_ij, e'_i'j')
//! ```
//!
//! [`KronProduct`] applies `y ← y + α A× x` over plus-times without ever
//! storing `A×` (`nnz·nnz'` entries): both graphs are packed once into
//! [`Octiles`] (8×8 tiles, empty tiles skipped, nonzeros in tile order) and
//! every pair of non-empty tiles contributes its 64×64 block of `A×` on the
//! fly, so the reads of `x` and writes of `y` for one tile pair stay within
//! one 64-entry block each. The edge kernel is a type parameter: the inner
//! loop is monomorphized (no dynamic dispatch per element). With the
//! [`Unlabeled`] kernel (κe ≡ 1) this is the plain `W ⊗ W'` of random-walk
//! kernels.
//!
//! [`MatchedKron`] is the product restricted to node pairs of equal node
//! class (the node-labeled random-walk kernel), in a compact index space.
//!
//! [`ShiftedKron`] is the system operator `diag(d) − s·A×` of the graph
//! kernels, a [`LinOp`] with a known diagonal.

mod edgepair;
mod lowrank;
mod matched;
mod octile;
mod pair_factored;
#[cfg(feature = "cuda")]
mod pair_gpu;
mod pair_solve;
mod pair_system;
mod product;
mod sell;
/// Pair systems shared by the tests (feature `testing`).
#[cfg(any(test, feature = "testing"))]
#[path = "pair_testing.rs"]
pub mod testing;

pub use self::edgepair::EdgePairKron;
pub use self::lowrank::LowRankKron;
pub use self::matched::{ClassPacking, MatchedKron};
pub use self::octile::{OctileLayout, Octiles, Tile, TileEntry, TILE};
pub use self::pair_factored::{Factor, Factored, LabelKernel, LabelPower, Part};
pub use self::pair_solve::{solve_pairs, solve_pairs_cpu};
pub use self::pair_system::{PairSolution, PairSolve, PairSystem, PairSystemError};
#[cfg(feature = "cuda")]
pub(crate) use self::product::bind_kernel;
pub use self::product::{CachedKron, KronProduct, KronScalar, Unlabeled};
pub use self::sell::{SellKron, SellPattern};
/// The device twins of [`KronProduct`] and [`ShiftedKron`] (feature `cuda`):
/// [`LinOp`]s over [`DeviceVec`](crate::cuda::DeviceVec), their product
/// generated per edge-kernel expression by the MGK's code generation.
#[cfg(feature = "cuda")]
pub use crate::mgk::gpu::kron_device::{DeviceKron, DeviceKronSet, DeviceShiftedKron};

use crate::solver::{LinOp, Real, SolverError};

/// A lazy Kronecker-type operator `A×` of size `dim × dim` that adds
/// `α A× x` into `y`.
pub trait KronApply<T: Real>: Sync {
    /// The dimension (number of product nodes).
    fn dim(&self) -> usize;

    /// `y ← y + α A× x` (`x`, `y` of length [`dim`](Self::dim)).
    ///
    /// # Panics
    /// If `x` or `y` is not [`dim`](Self::dim) long.
    fn apply_add(&self, alpha: T, x: &[T], y: &mut [T]);

    /// `d ← d + α diag(A×)`.
    fn diagonal_add(&self, alpha: T, d: &mut [T]);
}

/// `x ← z + β x` (when `z` is given as `(z, β)`; β rounded to `T` first, as
/// [`Vector::xpay`](crate::solver::Vector::xpay) rounds it: the same bits)
/// and `y ← d ⊙ x`, in one pass (the CPU's widest vectors).
fn xpay_diag<T: Real>(z: Option<(&[T], f64)>, d: Diag<'_, T>, x: &mut [T], y: &mut [T]) {
    let Some((z, beta)) = z else {
        return diag_mul(d, x, y);
    };
    let b = T::of_f64(beta);
    crate::simd::on_widest_isa(|| match d {
        Diag::Const(c) => y.iter_mut().zip(x.iter_mut().zip(z)).for_each(|(y, (x, &z))| {
            *x = z + b * *x;
            *y = c * *x;
        }),
        Diag::Vec(d) => y.iter_mut().zip(x.iter_mut().zip(z)).zip(d).for_each(|((y, (x, &z)), &d)| {
            *x = z + b * *x;
            *y = d * *x;
        }),
    });
}

/// `y ← d ⊙ x` (one pass, the CPU's widest vectors).
fn diag_mul<T: Real>(d: Diag<'_, T>, x: &[T], y: &mut [T]) {
    crate::simd::on_widest_isa(|| match d {
        Diag::Const(c) => y.iter_mut().zip(x).for_each(|(y, &x)| *y = c * x),
        Diag::Vec(d) => y.iter_mut().zip(x).zip(d).for_each(|((y, &x), &d)| *y = d * x),
    });
}

/// The diagonal part of a [`ShiftedKron`].
#[derive(Clone, Copy, Debug)]
pub enum Diag<'a, T> {
    /// Every entry equals the value.
    Const(T),
    /// One entry per product node.
    Vec(&'a [T]),
}

/// The operator `diag(d) − s·A×`: the system matrix of the marginalized graph
/// kernel (`d = D× V×⁻¹`, `s = 1`) and of the random-walk kernel (`d = 1`,
/// `s = λ`).
///
/// Applying it costs one application of `A×` plus `O(dim)`. Its diagonal is
/// `d − s·diag(A×)` (non-zero only where both graphs have self-loops).
pub struct ShiftedKron<'a, T, K> {
    diag: Diag<'a, T>,
    scale: T,
    kron: &'a K,
}

impl<'a, T: Real, K: KronApply<T>> ShiftedKron<'a, T, K> {
    /// `diag − scale·kron`.
    ///
    /// # Errors
    /// [`SolverError::DimensionMismatch`] if a [`Diag::Vec`] does not have
    /// `kron.dim()` entries (one per product node).
    pub fn new(diag: Diag<'a, T>, scale: T, kron: &'a K) -> Result<Self, SolverError> {
        if let Diag::Vec(d) = diag {
            if d.len() != kron.dim() {
                return Err(SolverError::DimensionMismatch {
                    what: "ShiftedKron diagonal",
                    expected: kron.dim(),
                    found: d.len(),
                });
            }
        }
        Ok(ShiftedKron { diag, scale, kron })
    }

    /// [`new`](Self::new) where the length is right by construction.
    pub(crate) fn of(diag: Diag<'a, T>, scale: T, kron: &'a K) -> Self {
        debug_assert!(matches!(diag, Diag::Const(_)) || matches!(diag, Diag::Vec(d) if d.len() == kron.dim()));
        ShiftedKron { diag, scale, kron }
    }
}

impl<T: Real, K: KronApply<T>> LinOp<Vec<T>> for ShiftedKron<'_, T, K> {
    fn nrows(&self) -> usize {
        self.kron.dim()
    }
    fn ncols(&self) -> usize {
        self.kron.dim()
    }
    fn apply(&self, x: &Vec<T>, y: &mut Vec<T>) -> Result<(), SolverError> {
        let n = self.kron.dim();
        if x.len() != n || y.len() != n {
            return Err(SolverError::DimensionMismatch {
                what: "Kronecker operator vector",
                expected: n,
                found: x.len(),
            });
        }
        diag_mul(self.diag, x, y);
        self.kron.apply_add(-self.scale, x, y);
        Ok(())
    }
    /// `p ← z + β p` fused into the diagonal pass of `q ← A p`.
    fn xpay_apply_dot(&self, z: Option<(&Vec<T>, f64)>, p: &mut Vec<T>, q: &mut Vec<T>) -> Result<f64, SolverError> {
        let n = self.kron.dim();
        if let Some(bad) = [p.len(), q.len(), z.map_or(n, |(z, _)| z.len())].into_iter().find(|&l| l != n) {
            return Err(SolverError::DimensionMismatch { what: "Kronecker operator vector", expected: n, found: bad });
        }
        xpay_diag(z.map(|(z, b)| (z.as_slice(), b)), self.diag, p, q);
        self.kron.apply_add(-self.scale, p, q);
        Ok(crate::solver::Vector::dot(p, q))
    }
    fn diagonal(&self, d: &mut Vec<T>) -> Result<bool, SolverError> {
        let n = self.kron.dim();
        d.resize(n, T::zero());
        match self.diag {
            Diag::Const(c) => d.fill(c),
            Diag::Vec(v) => d.copy_from_slice(v),
        }
        self.kron.diagonal_add(-self.scale, d);
        Ok(true)
    }
}

#[cfg(test)]
fn product_par_dim() -> usize {
    product::PAR_DIM
}

#[cfg(test)]
mod tests;
