//! The per-pair linear system of the marginalized graph kernel.
//!
//! These functions set up, for graphs `G` and `G'`, the pieces of
//!
//! ```text
//! (D× V×⁻¹ − (W ⊗ W') ⊙ E×) r = D× 1,   K = p×ᵀ r − lmin · Σ p p' κv
//! ```
//!
//! (product node `(i, i')` at `i·n' + i'`), so that every backend (CPU here,
//! CUDA later) builds the same system.
//!
//! # Weight scaling
//!
//! The kernel does not change when all weights of one graph are multiplied
//! by the same `c > 0`: `D` and `W` scale together, the system of the pair
//! is multiplied by `c c'` on both sides, and `r` stays the same (isolated
//! nodes keep degree 1 and `r_ii' = κv` whatever `c`). Extreme weights
//! (`1e300`, `1e-300`, or `1e19` packed in `f32`) would overflow or
//! underflow in the products `d d'` and `w w'`, so every backend first
//! passes each graph through [`unit_weights`], which multiplies its weights
//! by an exact power of two (no rounding) whenever the largest weight lies
//! outside `[2⁻²⁰, 2²⁰]`. The random-walk kernel, which is not scale
//! invariant, uses the same function and folds the power of two into λ.

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
    let largest = g.weights().iter().copied().fold(0.0, f64::max);
    if largest == 0.0 || (-WEIGHT_BAND..=WEIGHT_BAND).contains(&exponent(largest)) {
        return Ok((Cow::Borrowed(g), 0));
    }
    let e = exponent(largest);
    let scaled = g.with_weights(|w, _| scale_pow2(w, -e)).map_err(|_| range(g, largest))?;
    if scaled.weights().iter().zip(g.weights()).any(|(&s, &w)| s == 0.0 && w != 0.0) {
        return Err(range(g, largest));
    }
    Ok((Cow::Owned(scaled), e))
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
/// `la`, `lb`:
/// - `dx[i·n' + i'] = d_i d'_i' / (1 − q)²` (the diagonal of `D×`, which is also
///   the right-hand side `D× 1`),
/// - `diag[i·n' + i'] = dx / κv(v_i, v'_i')` (the diagonal of `D× V×⁻¹`).
///
/// Vectors are resized to `n·n'`; their capacity is reused. `O(n·n')` node
/// kernel evaluations.
///
/// # Errors
/// The first `(i, i', κv)` where κv is not positive and finite or the diagonal entry
/// is not finite in `T` (a hyperparameter that underflows, such as a tiny
/// length scale, makes κv 0 or NaN although its declared range is fine).
#[allow(clippy::too_many_arguments)]
pub fn pair_diagonal<T: Real, N, KV: BaseKernel<N>>(
    da: &[f64],
    db: &[f64],
    la: &[N],
    lb: &[N],
    node_kernel: &KV,
    q: f64,
    dx: &mut Vec<T>,
    diag: &mut Vec<T>,
) -> Result<(), (usize, usize, f64)> {
    let (n, m) = (da.len(), db.len());
    dx.clear();
    diag.clear();
    dx.reserve(n * m);
    diag.reserve(n * m);
    let s = dx_scale(q);
    for i in 0..n {
        let di = da[i] * s;
        for ip in 0..m {
            let d = di * db[ip];
            let kv = node_kernel.value(&la[i], &lb[ip]);
            let e = T::of_f64(d / kv);
            if !(kv > 0.0 && kv.is_finite() && e.as_f64().is_finite()) {
                return Err((i, ip, kv));
            }
            dx.push(T::of_f64(d));
            diag.push(e);
        }
    }
    Ok(())
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
