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
//! ranges the base kernels must keep, the pairs each call solves, the
//! normalization and the checks of the values.
//!
//! # Weight scaling
//!
//! The kernel does not change when all weights of one graph are multiplied
//! by the same `c > 0`: `D` and `W` scale together, the system of the pair
//! is multiplied by `c c'` on both sides, and `r` stays the same (isolated
//! nodes keep degree 1 and `r_ii' = κv` whatever `c`). Extreme weights
//! (`1e300`, `1e-300`, or `1e19` packed in `f32`) would overflow or
//! underflow in the products `d d'` and `w w'`, so every backend first
//! passes each graph through [`unit_weights`] (for systems with weighted
//! degrees, [`KronSystem::scaled_weights`]), which multiplies its weights
//! by an exact power of two (no rounding) whenever the largest weight lies
//! outside `[2⁻²⁰, 2²⁰]`. The random-walk kernel, which is not scale
//! invariant, uses the same function and folds the power of two into λ.

use super::MgkError;
use crate::basekernel::BaseKernel;
use crate::graph::{Graph, Label};
use crate::solver::Real;
use std::borrow::Cow;

/// Largest weights inside `[2^-WEIGHT_BAND, 2^WEIGHT_BAND]` are left as they are.
const WEIGHT_BAND: i32 = 20;

/// The weights of a graph span more than `f64` can hold after scaling.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "its weights span too many orders of magnitude (largest {largest:e}, smallest non-zero {smallest:e}): \
     scaled so that the largest is about 1, the smallest is 0 in double precision; drop or raise the tiny weights"
)]
pub struct WeightRange {
    /// Largest weight.
    pub largest: f64,
    /// Smallest non-zero weight.
    pub smallest: f64,
}

/// The smallest node-kernel value the linear system uses in double
/// precision, `2⁻⁵¹¹ = √(smallest normal f64)` (see [`floor_node_kernel`]).
pub const NODE_KERNEL_FLOOR_F64: f64 = 1.4916681462400413e-154;
/// The same in single precision, `2⁻⁶³ = √(smallest normal f32)` (about).
pub const NODE_KERNEL_FLOOR_F32: f64 = 1.0842021724855044e-19;

/// The node-kernel floor of the precision `T` is computed in.
pub fn node_kernel_floor<T: Real>() -> f64 {
    if T::NAME == "f64" {
        NODE_KERNEL_FLOOR_F64
    } else {
        NODE_KERNEL_FLOOR_F32
    }
}

/// `κv` as the linear system uses it: a value in `[0, floor)` is raised to
/// `floor` (negative, NaN and infinite values are left for the checks).
///
/// An exp-type node kernel (sqexp, rq, a Laplacian expression) whose length
/// scale is small for the label distances underflows: `κv = 0` would put an
/// infinite `d/κv` on the diagonal. The pair `(i, i')` contributes `O(κv)`
/// to `K` (its unknown is `r_ii' ≈ κv · (…)/d`), and its gradient term
/// `y r d κv'/κv²` is `O(κv')` whatever `κv`: raising `κv` to `floor`
/// changes `K` by `O(floor)` relative to its other terms (`1.5e-154` in
/// double precision, `1.1e-19` in single, far below each precision's
/// rounding) and keeps `d/κv`, `r²` and `κv²` finite and normal. So the
/// kernel is continuous where a hyperparameter makes `κv` underflow (its
/// limit, the pair removed, to within rounding), and an optimizer that
/// reaches such a length scale gets a finite value and gradient instead of
/// an error. A node kernel that is exactly 0 on some pairs (a `delta` with
/// `h = 0`) gets the same limit. Every backend calls this (the GPU's
/// generated `kappa_node`, the GPU code generation's, emits the same
/// test with the same constant).
#[inline]
pub fn floor_node_kernel(kv: f64, floor: f64) -> f64 {
    if (0.0..floor).contains(&kv) {
        floor
    } else {
        kv
    }
}

/// `x · 2^k`, exact unless the result overflows or is subnormal.
pub fn scale_pow2(x: f64, k: i32) -> f64 {
    // 2^k for |k| > 1022 is not a normal f64: multiply in steps
    let mut x = x;
    let mut k = k;
    while k != 0 {
        let step = k.clamp(-1000, 1000);
        x *= f64::from_bits(((1023 + step) as u64) << 52);
        k -= step;
    }
    x
}

/// The graph `g` with weights `w · 2^−e`, and `e`: `e = 0` (and `g` itself,
/// borrowed) when the largest weight lies in `[2⁻²⁰, 2²⁰]` or there is none;
/// else `e` is the binary exponent of the largest weight, which becomes
/// `[1, 2)`. Every backend of the marginalized graph kernel calls this
/// before computing degrees or packing weights (see the
/// [module documentation](self)); the random-walk kernel multiplies `λ` by
/// `2^(e + e')` instead. `O(nnz)`.
///
/// # Errors
/// [`WeightRange`] when a non-zero weight would become 0.
pub fn unit_weights<N: Label, E: Label>(g: &Graph<N, E>) -> Result<(Cow<'_, Graph<N, E>>, i32), WeightRange> {
    let (largest, _) = weight_summary(g.weights());
    let e = weight_exponent(largest);
    if e == 0 {
        return Ok((Cow::Borrowed(g), 0));
    }
    let scaled = g.with_weights(|w, _| scale_pow2(w, -e)).map_err(|_| range(g, largest))?;
    if scaled.weights().iter().zip(g.weights()).any(|(&s, &w)| s == 0.0 && w != 0.0) {
        return Err(range(g, largest));
    }
    Ok((Cow::Owned(scaled), e))
}

/// The exponent `e` of [`unit_weights`] for a graph whose largest weight is
/// `largest`: 0 when it is 0 or lies in `[2⁻²⁰, 2²⁰]`, else its binary
/// exponent.
pub(crate) fn weight_exponent(largest: f64) -> i32 {
    if largest == 0.0 || (-WEIGHT_BAND..=WEIGHT_BAND).contains(&exponent(largest)) {
        0
    } else {
        exponent(largest)
    }
}

/// The largest of the weights `w` (0 when there are none) and whether every
/// weight is 1, in one pass. Weights are finite and `≥ 0`, so the eight
/// independent lanes give `w.iter().fold(0.0, f64::max)` and the loop
/// vectorizes (a single running maximum is a chain of dependent compares).
pub(crate) fn weight_summary(w: &[f64]) -> (f64, bool) {
    let (mut top, mut ones) = ([0.0f64; 8], [true; 8]);
    let chunks = w.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            top[k] = if c[k] > top[k] { c[k] } else { top[k] };
            ones[k] &= c[k] == 1.0;
        }
    }
    for (k, &x) in rest.iter().enumerate() {
        top[k] = if x > top[k] { x } else { top[k] };
        ones[k] &= x == 1.0;
    }
    (top.iter().copied().fold(0.0, f64::max), ones.iter().all(|&o| o))
}

/// The binary exponent `e` of a positive finite `x`: `2^e ≤ x < 2^(e+1)`.
fn exponent(x: f64) -> i32 {
    let bits = ((x.to_bits() >> 52) & 0x7ff) as i32;
    if bits == 0 {
        // subnormal
        -1074 + (63 - x.to_bits().leading_zeros() as i32)
    } else {
        bits - 1023
    }
}

fn range<N: Label, E: Label>(g: &Graph<N, E>, largest: f64) -> WeightRange {
    let smallest = g.weights().iter().copied().filter(|&w| w > 0.0).fold(f64::INFINITY, f64::min);
    WeightRange { largest, smallest }
}

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

    /// `g` as this system is solved on it, on every backend: with weighted
    /// degrees the system (hence `K`) is invariant under scaling one graph's
    /// weights, so they pass through [`unit_weights`] (an exact power of two
    /// when the largest weight is extreme); with unit degrees (the random
    /// walk) they are not, and `g` is returned as it is.
    ///
    /// # Errors
    /// [`WeightRange`] as [`unit_weights`].
    pub fn scaled_weights<'g, N: Label, E: Label>(
        &self,
        g: &'g Graph<N, E>,
    ) -> Result<Cow<'g, Graph<N, E>>, WeightRange> {
        match self.degrees {
            DegreeRule::Weighted => unit_weights(g).map(|(g, _)| g),
            DegreeRule::Ones => Ok(Cow::Borrowed(g)),
        }
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
/// kernel evaluations, as one [`BaseKernel::table`].
///
/// # Errors
/// The first `(i, i', κv)` where κv is negative, NaN or infinite, or the
/// diagonal entry is not finite in `T` (κv in `[0, floor)`, an underflow, is
/// raised to the floor first: [`floor_node_kernel`]).
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
) -> Result<(), (usize, usize, f64)> {
    let (n, m) = (da.len(), db.len());
    dx.clear();
    diag.clear();
    dx.reserve(n * m);
    diag.reserve(n * m);
    let s = scale;
    // κv as one table (BaseKernel::table: vectorized where the kernel can)
    let ra: Vec<&N> = la.iter().collect();
    let rb: Vec<&N> = lb.iter().collect();
    let mut kv_table = Vec::new();
    node_kernel.table(&ra, &rb, &mut kv_table);
    let floor = node_kernel_floor::<T>();
    kv_table.iter_mut().for_each(|kv| *kv = floor_node_kernel(*kv, floor));
    // the values first (vectorized, the CPU's widest vectors), then the check
    crate::simd::on_widest_isa(|| {
        for (&a, kr) in da.iter().zip(kv_table.chunks_exact(m.max(1))) {
            let di = a * s;
            dx.extend(db.iter().map(|&b| T::of_f64(di * b)));
            diag.extend(db.iter().zip(kr).map(|(&b, &kv)| T::of_f64(di * b / kv)));
        }
    });
    let bad = |kv: f64, e: T| !(kv > 0.0 && kv.is_finite() && e.as_f64().is_finite());
    // one branch-free pass (vectorized) over all values; the position only on failure
    let any_bad =
        crate::simd::on_widest_isa(|| kv_table.iter().zip(diag.iter()).fold(false, |b, (&kv, &e)| b | bad(kv, e)));
    match any_bad.then(|| kv_table.iter().zip(diag.iter()).position(|(&kv, &e)| bad(kv, e))).flatten() {
        Some(at) => Err((at / m, at % m, kv_table[at])),
        None => Ok(()),
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
/// `0 ≤ κv ≤ 1` (the values themselves must be positive: exp-type kernels
/// such as `sqexp` or a Laplacian, whose infimum 0 is never reached, are
/// accepted; a value that underflows to 0 is raised to a tiny floor,
/// [`floor_node_kernel`], and a NaN is caught on the pair where it happens,
/// [`MgkError::KernelValue`]) and `0 ≤ κe ≤ 1`.
///
/// A node kernel whose declared range lies in `[−1, 1]` but reaches below 0
/// (a normalized kernel of unbounded sign, such as GraphDot's normalized
/// `DotProduct`, the cosine) is accepted here: the CPU checks every value
/// it uses on the data (a negative one is
/// [`MgkError::NodeKernelNegative`], naming the nodes), which is what the
/// system needs (on non-negative features the cosine is in `[0, 1]`). Every
/// backend of the kernel's methods gets that check from one function
/// (`mgk/node_values.rs`) before it solves; a
/// [`GpuGram`](crate::mgk::GpuGram) used directly (whose uploaded graphs
/// are not checked) needs the declared range in `[0, 1]`
/// ([`check_ranges_static`]).
///
/// # Errors
/// [`MgkError::NodeKernelRange`] or [`MgkError::EdgeKernelRange`].
pub fn check_ranges<N, E, KV: BaseKernel<N>, KE: BaseKernel<E>>(kv: &KV, ke: &KE) -> Result<(), MgkError> {
    let (lo, hi) = kv.range();
    if !(lo >= -1.0 && hi <= 1.0 && hi > 0.0) {
        return Err(MgkError::NodeKernelRange { min: lo, max: hi });
    }
    check_edge_range(ke)
}

/// As [`check_ranges`] with the node kernel's declared range inside
/// `[0, 1]` (what the GPU needs: it does not check each value).
///
/// # Errors
/// [`MgkError::NodeKernelRange`] or [`MgkError::EdgeKernelRange`].
pub fn check_ranges_static<N, E, KV: BaseKernel<N>, KE: BaseKernel<E>>(kv: &KV, ke: &KE) -> Result<(), MgkError> {
    let (lo, hi) = kv.range();
    if !(lo >= 0.0 && hi <= 1.0 && hi > 0.0) {
        return Err(MgkError::NodeKernelRange { min: lo, max: hi });
    }
    check_edge_range(ke)
}

/// `0 ≤ κe ≤ 1` by the declared range.
fn check_edge_range<E, KE: BaseKernel<E>>(ke: &KE) -> Result<(), MgkError> {
    let (lo, hi) = ke.range();
    if !(lo >= 0.0 && hi <= 1.0) {
        return Err(MgkError::EdgeKernelRange { min: lo, max: hi });
    }
    Ok(())
}

/// The pairs of a symmetric Gram matrix of `n` graphs: `(a, b)` with
/// `a ≤ b < n`, row by row (each pair solved once).
pub(crate) fn upper_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (a..n).map(move |b| (a, b))).collect()
}

/// The pairs of an `n × m` cross Gram matrix, row-major.
pub(crate) fn cross_pairs(n: usize, m: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (0..m).map(move |b| (a, b))).collect()
}

/// The pairs `(a, a)` of a diagonal.
pub(crate) fn diagonal_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n).map(|a| (a, a)).collect()
}

/// A diagonal usable for normalization: finite and positive.
fn check_norms(d: &[f64], list: &'static str) -> Result<(), MgkError> {
    match d.iter().position(|&v| !(v.is_finite() && v > 0.0)) {
        Some(graph) => Err(MgkError::ZeroNorm { graph, list, value: d[graph] }),
        None => Ok(()),
    }
}

/// `√(da db)`, as `√da √db` where the product over- or underflows.
fn norm(da: f64, db: f64) -> f64 {
    let p = da * db;
    if p.is_finite() && p > 0.0 {
        p.sqrt()
    } else {
        da.sqrt() * db.sqrt()
    }
}

/// The normalized kernel `K_ab / √(dx_a dy_b)` of the row-major
/// `dx.len() × dy.len()` matrix `k`, in place (as `K_ab / √dx_a / √dy_b`
/// where the product over- or underflows).
///
/// # Errors
/// [`MgkError::ZeroNorm`] for a diagonal value that is not finite and
/// positive (the normalized kernel is undefined there: never NaN);
/// [`MgkError::InvalidValue`] for a result that is not finite.
pub fn normalize(k: &mut [f64], dx: &[f64], dy: &[f64]) -> Result<(), MgkError> {
    check_norms(dx, "")?;
    check_norms(dy, " of the second list")?;
    for (a, (row, &da)) in k.chunks_mut(dy.len().max(1)).zip(dx).enumerate() {
        for (b, (v, &db)) in row.iter_mut().zip(dy).enumerate() {
            let p = da * db;
            let x = if p.is_finite() && p > 0.0 { *v / p.sqrt() } else { *v / da.sqrt() / db.sqrt() };
            if !x.is_finite() {
                return Err(MgkError::InvalidValue {
                    pair: (a, b),
                    value: *v,
                    detail: "not finite; the normalized kernel is undefined".into(),
                });
            }
            *v = x;
        }
    }
    Ok(())
}

/// The normalized kernel and its gradient, in place: `k` is `n × m`
/// row-major, `g` its gradient (`n × m × t`, entry `(a, b, s)` at
/// `(a·m + b)·t + s`), `dx`, `dy` the diagonals with their gradients
/// (`n × t`, `m × t` row-major):
/// `∂K̃_ab = ∂K_ab / √(dx_a dy_b) − ½ K̃_ab (∂dx_a / dx_a + ∂dy_b / dy_b)`.
///
/// # Errors
/// As [`normalize`].
pub fn normalize_with_gradient(
    k: &mut [f64],
    g: &mut [f64],
    t: usize,
    dx: (&[f64], &[f64]),
    dy: (&[f64], &[f64]),
) -> Result<(), MgkError> {
    let ((dx, gx), (dy, gy)) = (dx, dy);
    check_norms(dx, "")?;
    check_norms(dy, " of the second list")?;
    let m = dy.len();
    for a in 0..dx.len() {
        for b in 0..m {
            let s = norm(dx[a], dy[b]);
            let kn = k[a * m + b] / s;
            let cell = &mut g[(a * m + b) * t..(a * m + b + 1) * t];
            for ((v, ga), gb) in cell.iter_mut().zip(&gx[a * t..(a + 1) * t]).zip(&gy[b * t..(b + 1) * t]) {
                *v = *v / s - 0.5 * kn * (ga / dx[a] + gb / dy[b]);
            }
        }
    }
    normalize(k, dx, dy)
}

/// Normalizes a square Gram matrix of `n × n` values (row-major) by its own
/// diagonal, in place: `K̃_ab = K_ab / √(K_aa K_bb)`, so `K̃_aa = 1`. For
/// results computed elsewhere (the library's own normalized forms use
/// [`normalize`] on every backend).
///
/// The normalized kernel is undefined for a graph with `K(G, G) = 0` (no
/// nodes, or all start probabilities 0): that is an error, not a NaN.
///
/// # Errors
/// [`MgkError::InvalidParameter`] when `values` does not hold `n × n`
/// entries; [`MgkError::ZeroNorm`] for a diagonal entry that is not finite
/// and positive; [`MgkError::InvalidValue`] for an entry that is not finite.
pub fn normalize_gram(values: &mut [f64], n: usize) -> Result<(), MgkError> {
    if n.checked_mul(n) != Some(values.len()) {
        return Err(MgkError::InvalidParameter(format!(
            "normalize_gram: {} values for a {n} × {n} matrix",
            values.len()
        )));
    }
    let d: Vec<f64> = (0..n).map(|a| values[a * n + a]).collect();
    normalize(values, &d, &d)
}

/// Checks kernel values as the library checks its own on every backend: an
/// entry that is not finite is an error; negative entries within `10 · tol`
/// of the largest entry are rounding of 0 and become 0, more negative ones
/// are an error. `cols` is the number of columns of the row-major matrix
/// (for naming the pair), `None` for a diagonal (entry `i` is pair
/// `(i, i)`).
///
/// # Errors
/// [`MgkError::InvalidValue`] naming the first bad pair.
pub fn check_values(values: &mut [f64], cols: Option<usize>, tol: f64) -> Result<(), MgkError> {
    let largest = largest_finite(values.iter().copied());
    for (i, v) in values.iter_mut().enumerate() {
        let pair = match cols {
            Some(c) => (i / c.max(1), i % c.max(1)),
            None => (i, i),
        };
        *v = check_value(*v, largest, tol, pair)?;
    }
    Ok(())
}

/// The largest finite `|v|` (0 when there is none).
pub(crate) fn largest_finite(values: impl Iterator<Item = f64>) -> f64 {
    values.filter(|v| v.is_finite()).fold(0.0, |m: f64, v| m.max(v.abs()))
}

/// One kernel value of `pair`, checked (the one rule of every backend and
/// of [`check_values`]): not finite is an error; a negative value within
/// `10 · tol · magnitude` (`magnitude`: the size of the terms it is the
/// difference of) is rounding of 0 and becomes 0; more negative is an error.
///
/// # Errors
/// [`MgkError::InvalidValue`] naming the pair and what to change.
pub(crate) fn check_value(value: f64, magnitude: f64, tol: f64, pair: (usize, usize)) -> Result<f64, MgkError> {
    if !value.is_finite() {
        return Err(MgkError::InvalidValue {
            pair,
            value,
            detail: "not finite: a weight or a kernel hyperparameter over- or underflows; check the weights and \
                     the node and edge kernels' hyperparameters (or compute on the CPU to see which)"
                .into(),
        });
    }
    if value < 0.0 {
        if -value <= 10.0 * tol.max(f64::EPSILON) * magnitude {
            return Ok(0.0);
        }
        return Err(MgkError::InvalidValue {
            pair,
            value,
            detail: format!(
                "negative, which a kernel value cannot be: the solve stopped short of the solution; lower the \
                 tolerance (now {tol:e}) or use double precision"
            ),
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The one-pass summary is the plain fold and the plain check.
        #[test]
        fn weight_summary_is_the_fold(w in proptest::collection::vec(prop_oneof![Just(1.0), 0.0..1e3f64, Just(0.0)], 0..40)) {
            let (top, ones) = weight_summary(&w);
            prop_assert_eq!(top.to_bits(), w.iter().copied().fold(0.0, f64::max).to_bits());
            prop_assert_eq!(ones, w.iter().all(|&x| x == 1.0));
        }
    }

    #[test]
    fn weight_exponent_band() {
        assert_eq!(weight_exponent(0.0), 0);
        assert_eq!(weight_exponent(1.0), 0);
        assert_eq!(weight_exponent(scale_pow2(1.5, 20)), 0);
        assert_eq!(weight_exponent(scale_pow2(1.5, 21)), 21);
        assert_eq!(weight_exponent(scale_pow2(1.0, -21)), -21);
    }
}
