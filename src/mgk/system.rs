//! The per-pair linear system of the marginalized graph kernel.
//!
//! These functions set up, for graphs `G` and `G'`, the pieces of
//!
//! ```text
//! (D× V×⁻¹ − (W ⊗ W') ⊙ E×) r = D× 1,   K = p×ᵀ r − lmin · Σ p p' κv
//! ```
//!
//! (product node `(i, i')` at `i·n' + i'`), so that every backend (the CPU,
//! the GPU, and the tests' references) builds the same system; with the
//! ranges the base kernels must keep, the pairs each call solves, and the
//! normalization.

use super::MgkError;
use crate::basekernel::BaseKernel;
use crate::graph::{Graph, Label};
use crate::solver::Real;

/// How a [`KronSystem`] weighs the nodes in its diagonal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DegreeRule {
    /// `d_i = Σ_j w_ij`, 1 where that sum is 0 ([`degrees`]): the
    /// marginalized graph kernel's.
    #[default]
    Weighted,
    /// `d_i = 1`: the random-walk kernel's.
    Ones,
}

/// A Kronecker system over a pair of graphs, the family every backend
/// solves (the marginalized graph kernel is one instance, the geometric
/// random-walk kernel another):
///
/// ```text
/// (s (D ⊗ D') V×⁻¹ − (W ⊗ W') ⊙ E×) r = s (D ⊗ D') 1,
/// K = (p ⊗ p')ᵀ r − lmin Σ p p' κv
/// ```
///
/// with the scale `s`, the degrees `D` by [`DegreeRule`], the node and edge
/// base kernels κv (`V×`) and κe (`E×`) and the start probabilities `p` of a
/// [`MarginalizedGraphKernel`](super::MarginalizedGraphKernel). Set one with
/// [`MgkConfig::system`](super::MgkConfig::system) to solve your own system
/// through the same API on every backend (`examples/kron_system.rs`).
/// It is symmetric positive definite (solved by CG) when `0 < κv ≤ 1`,
/// `0 ≤ κe ≤ 1` and `s d_i d'_i' > Σ_{j,j'} w_ij w'_i'j'` on every row, which
/// [`KronSystem::marginalized`] guarantees and
/// [`KronSystem::random_walk`] does for `λ ρ(W) ρ(W') < 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KronSystem {
    /// The scale `s > 0` of the diagonal and right-hand side.
    pub scale: f64,
    /// The degrees `D`.
    pub degrees: DegreeRule,
}

impl KronSystem {
    /// The marginalized graph kernel's system: `s = 1/(1 − q)²`
    /// ([`dx_scale`]), weighted degrees.
    pub fn marginalized(q: f64) -> Self {
        KronSystem { scale: dx_scale(q), degrees: DegreeRule::Weighted }
    }

    /// The geometric random-walk kernel's system `(I/λ − W ⊗ W') r = 1/λ`,
    /// i.e. `r = (I − λ W ⊗ W')⁻¹ 1`, with κv = κe = 1 and `p = 1`:
    /// `s = 1/λ`, unit degrees.
    pub fn random_walk(lambda: f64) -> Self {
        KronSystem { scale: 1.0 / lambda, degrees: DegreeRule::Ones }
    }

    /// The degrees of `g` under this system's rule.
    pub fn node_degrees<N: Label, E: Label>(&self, g: &Graph<N, E>) -> Vec<f64> {
        match self.degrees {
            DegreeRule::Weighted => degrees(g),
            DegreeRule::Ones => vec![1.0; g.num_nodes()],
        }
    }
}

/// The marginalized-kernel degrees of `g`: `d_i = Σ_j w_ij`, replaced by 1
/// where the sum is 0 (isolated nodes), as GraphDot does. `O(n + nnz)`.
pub fn degrees<N: Label, E: Label>(g: &Graph<N, E>) -> Vec<f64> {
    g.degrees().iter().map(|&d| if d == 0.0 { 1.0 } else { d }).collect()
}

/// The scale `1 / (1 − q)²` of `D× = (D ⊗ D') / (1 − q)²`.
#[inline]
pub fn dx_scale(q: f64) -> f64 {
    1.0 / ((1.0 - q) * (1.0 - q))
}

/// Fills, for the pair `(G, G')` with degrees `da`, `db` and node labels
/// `la`, `lb`, and the system's scale `scale` (`1/(1 − q)²` for the
/// marginalized graph kernel, [`KronSystem::scale`]):
/// - `dx[i·n' + i'] = scale · d_i d'_i'` (the diagonal of `D×`, which is also
///   the right-hand side `D× 1`),
/// - `diag[i·n' + i'] = dx / κv(v_i, v'_i')` (the diagonal of `D× V×⁻¹`).
///
/// Vectors are resized to `n·n'`; their capacity is reused. `O(n·n')` node
/// kernel evaluations. κv must be positive (the kernel's range is checked when
/// the graph kernel is built).
#[allow(clippy::too_many_arguments)]
pub fn pair_diagonal<T: Real, N, KV: BaseKernel<N>>(
    da: &[f64],
    db: &[f64],
    la: &[N],
    lb: &[N],
    node_kernel: &KV,
    scale: f64,
    dx: &mut Vec<T>,
    diag: &mut Vec<T>,
) {
    let (n, m) = (da.len(), db.len());
    dx.clear();
    diag.clear();
    dx.reserve(n * m);
    diag.reserve(n * m);
    let s = scale;
    for i in 0..n {
        let di = da[i] * s;
        for ip in 0..m {
            let d = di * db[ip];
            let kv = node_kernel.value(&la[i], &lb[ip]);
            dx.push(T::of_f64(d));
            diag.push(T::of_f64(d / kv));
        }
    }
}

/// The start vector `p×[i·n' + i'] = p_i p'_i'`, resized to `n·n'`.
pub fn start_product<T: Real>(pa: &[f64], pb: &[f64], out: &mut Vec<T>) {
    out.clear();
    out.reserve(pa.len() * pb.len());
    for &a in pa {
        out.extend(pb.iter().map(|&b| T::of_f64(a * b)));
    }
}

/// The length-one term `Σ_{i,i'} p_i p'_i' κv(v_i, v'_i')` that `lmin = 1`
/// subtracts. `O(n·n')`.
pub fn length_one_term<N, KV: BaseKernel<N>>(pa: &[f64], pb: &[f64], la: &[N], lb: &[N], node_kernel: &KV) -> f64 {
    let mut s = 0.0;
    for (a, va) in pa.iter().zip(la) {
        for (b, vb) in pb.iter().zip(lb) {
            s += a * b * node_kernel.value(va, vb);
        }
    }
    s
}

/// Checks the base kernels' ranges the system needs to be positive definite:
/// `0 < κv ≤ 1` and `0 ≤ κe ≤ 1`.
///
/// # Errors
/// [`MgkError::NodeKernelRange`] or [`MgkError::EdgeKernelRange`].
pub fn check_ranges<N, E, KV: BaseKernel<N>, KE: BaseKernel<E>>(kv: &KV, ke: &KE) -> Result<(), MgkError> {
    let (lo, hi) = kv.range();
    if !(lo > 0.0 && hi <= 1.0) {
        return Err(MgkError::NodeKernelRange { min: lo, max: hi });
    }
    let (lo, hi) = ke.range();
    if !(lo >= 0.0 && hi <= 1.0) {
        return Err(MgkError::EdgeKernelRange { min: lo, max: hi });
    }
    Ok(())
}

/// The pairs of a symmetric Gram matrix of `n` graphs: `(a, b)` with
/// `a ≤ b < n`, row by row (each pair solved once).
pub fn upper_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (a..n).map(move |b| (a, b))).collect()
}

/// The pairs of an `n × m` cross Gram matrix, row-major.
pub fn cross_pairs(n: usize, m: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (0..m).map(move |b| (a, b))).collect()
}

/// The pairs `(a, a)` of a diagonal.
pub fn diagonal_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n).map(|a| (a, a)).collect()
}

/// The normalized kernel `K_ab / √(dx_a dy_b)` of the row-major
/// `dx.len() × dy.len()` matrix `k`, in place.
pub fn normalize(k: &mut [f64], dx: &[f64], dy: &[f64]) {
    for (row, &da) in k.chunks_mut(dy.len().max(1)).zip(dx) {
        for (v, &db) in row.iter_mut().zip(dy) {
            *v /= (da * db).sqrt();
        }
    }
}

/// The normalized kernel and its gradient, in place: `k` is `n × m`
/// row-major, `g` its gradient (`n × m × t`, entry `(a, b, s)` at
/// `(a·m + b)·t + s`), `dx`, `dy` the diagonals with their gradients
/// (`n × t`, `m × t` row-major):
/// `∂K̃_ab = ∂K_ab / √(dx_a dy_b) − ½ K̃_ab (∂dx_a / dx_a + ∂dy_b / dy_b)`.
pub fn normalize_with_gradient(k: &mut [f64], g: &mut [f64], t: usize, dx: (&[f64], &[f64]), dy: (&[f64], &[f64])) {
    let ((dx, gx), (dy, gy)) = (dx, dy);
    let m = dy.len();
    for a in 0..dx.len() {
        for b in 0..m {
            let s = (dx[a] * dy[b]).sqrt();
            let kn = k[a * m + b] / s;
            let cell = &mut g[(a * m + b) * t..(a * m + b + 1) * t];
            for ((v, ga), gb) in cell.iter_mut().zip(&gx[a * t..(a + 1) * t]).zip(&gy[b * t..(b + 1) * t]) {
                *v = *v / s - 0.5 * kn * (ga / dx[a] + gb / dy[b]);
            }
        }
    }
    normalize(k, dx, dy);
}
