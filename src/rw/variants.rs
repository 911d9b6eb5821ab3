//! The exponential and p-step random-walk kernels (GraKeL's
//! `kernel_type="exponential"` and `p=…`), on the CPU: the moment series
//! for unlabeled graphs, the Kronecker power series for the node-labeled
//! kernel, with a rigorous truncation bound for the infinite series. The
//! power series also runs on a GPU (`series_gpu.rs`).

use super::pairs::{fill, pair_list, par_pairs};
use super::prep::{labeled_packs, node_classes, rw_scale, scaled_moments_upto};
use crate::graph::{Graph, Label};
use crate::kron::{ClassPacking, KronApply, MatchedKron};
use crate::mgk::system::scale_pow2;
use crate::mgk::{Matrix, MgkError, Progress};
use rayon::prelude::*;

/// The most terms an infinite series may take before the pair is refused.
pub const MAX_WALK_TERMS: usize = 20_000;

/// The most steps of a p-step kernel.
pub const MAX_STEPS: usize = 10_000;

/// The weights `c_k` of the walk series of [`WalkSeriesKernel`].
#[derive(Clone, Debug, PartialEq)]
pub enum WalkWeights {
    /// `c_k = 1/k!`, all `k ≥ 0`: the exponential random-walk kernel
    /// `1ᵀ exp(λ W×) 1` (Gärtner et al. 2003; GraKeL's
    /// `kernel_type="exponential"`).
    Exponential,
    /// `c_0, …, c_p` (non-negative): the p-step kernel
    /// `Σ_{k=0}^{p} c_k λ^k 1ᵀ W×^k 1`. All ones is GraKeL's
    /// `RandomWalk(lamda=λ, p=p)`; `c_k = 1/k!` its
    /// `kernel_type="exponential", p=p`.
    Steps(Vec<f64>),
}

/// The random-walk kernels with other weights than the geometric
/// [`RandomWalkKernel`](super::RandomWalkKernel)'s: with `W× = W ⊗ W'` (the
/// direct product graph's weighted adjacency),
///
/// ```text
/// k(G, G') = Σ_{k≥0} c_k λ^k 1ᵀ W×^k 1
/// ```
///
/// for the weights `c_k` of [`WalkWeights`]: the exponential kernel
/// `1ᵀ exp(λ W×) 1` (`c_k = 1/k!`, defined for every `λ > 0`) and the
/// p-step kernel (finitely many `c_k ≥ 0`). Every term is a kernel
/// (`1ᵀ W×^k 1 = m_k m'_k`), so non-negative weights give a positive
/// semi-definite kernel. The node-labeled variant
/// ([`gram_labeled`](Self::gram_labeled)) restricts `W×` to node pairs with
/// equal labels as the geometric kernel does: `1_Lᵀ (L W× L)^k 1_L`.
///
/// # How it is computed (CPU)
///
/// - **Unlabeled** (directed or not): the moment series
///   `Σ_k c_k λ^k m_k m'_k`, `m_k = 1ᵀ W^k 1` computed once per graph (`K`
///   sparse products) and scaled by `s^k`, where `s ≥ ρ(W)` is the
///   Collatz–Wielandt bound for undirected graphs and the largest row or
///   column sum for directed ones, so that `m_k / s^k ≤ n`.
/// - **Node-labeled**: `z_{k+1} = λ (L W× L) z_k / (k+1)` on the compact
///   matched product ([`MatchedKron`]) from `z_0 = 1_L`, summing `1ᵀ z_k`.
///
/// The exponential series stops after term `K` once a bound on the
/// remaining tail is below the tolerance (default `1e-15`) times the partial
/// sum (a lower bound on the kernel: all terms are non-negative): with
/// `r = λ s s'`, the tail of the moment series is below
/// `n n' r^{K+1}/(K+1)! / (1 − r/(K+2))`; with `σ = λ ‖L W× L‖₁` (bounded
/// by the products of the graphs' largest row or column sums), that of the
/// power series is below `1ᵀz_K (σ/(K+1)) / (1 − σ/(K+1))`. The gradient
/// `λ ∂k/∂λ = Σ_k k c_k λ^k 1ᵀW×^k1` stops by the analogous bounds (relative
/// to the larger of the value and the gradient). The weights are scaled by
/// powers of two as in the geometric kernel (exactly: the kernel depends on
/// `λ W×` only).
///
/// # Errors (every Gram method)
/// [`MgkError::InvalidValue`] when a value or a term overflows `f64` or
/// the series needs more than [`MAX_WALK_TERMS`] terms (lower λ);
/// [`MgkError::WeightRange`] for weights that cannot be scaled into range.
#[derive(Clone)]
pub struct WalkSeriesKernel {
    lambda: f64,
    weights: WalkWeights,
    tol: f64,
    pub(super) progress: Option<Progress>,
    /// The device kernels' knobs ([`with_gpu_tuning`](Self::with_gpu_tuning)).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(super) tuning: crate::mgk::Tuning,
}

impl std::fmt::Debug for WalkSeriesKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalkSeriesKernel")
            .field("lambda", &self.lambda)
            .field("weights", &self.weights)
            .field("tol", &self.tol)
            .finish()
    }
}

/// Per-graph data of the unlabeled series.
struct Moments {
    n: f64,
    exp: i32,
    /// `s` (scaled weights) with `m_k / s^k ≤ n`.
    s: f64,
    /// `m_k / s^k`, `k = 0..` as many as the graph's pairs may need.
    m: Vec<f64>,
}

/// The largest row or column sum of `g`'s weights (a bound on `‖W‖₁` and
/// `‖W‖_∞`).
pub(super) fn sum_bound<N: Label, E: Label>(g: &Graph<N, E>) -> f64 {
    let n = g.num_nodes();
    let mut col = vec![0.0f64; n];
    let mut best = 0.0f64;
    for i in 0..n {
        let r = g.row_range(i);
        let mut row = 0.0;
        for (&j, &w) in g.indices()[r.clone()].iter().zip(&g.weights()[r]) {
            row += w.abs();
            col[j] += w.abs();
        }
        best = best.max(row);
    }
    col.into_iter().fold(best, f64::max)
}

/// `ln(r^j / j!)` for `j = k + 1` from that of `k`.
fn next_log_term(lt: f64, lnr: f64, k: usize) -> f64 {
    lt + lnr - ((k + 1) as f64).ln()
}

/// The number of terms after which the exponential moment series' tail
/// bounds (value and gradient, relative to `n n'`) are below `tol` for
/// `ln r = lnr`; `None` beyond [`MAX_WALK_TERMS`].
fn exp_terms(lnr: f64, tol: f64) -> Option<usize> {
    if lnr == f64::NEG_INFINITY {
        return Some(0);
    }
    let r = lnr.exp();
    let mut lt = 0.0; // ln(r^0 / 0!)
    for k in 0..=MAX_WALK_TERMS {
        let kf = k as f64;
        if kf + 1.0 > r {
            let lt1 = next_log_term(lt, lnr, k);
            let value = lt1 - (1.0 - r / (kf + 2.0)).ln();
            let grad = lnr + lt - (1.0 - r / (kf + 1.0)).ln();
            if value.max(grad) <= tol.ln() {
                return Some(k);
            }
        }
        lt = next_log_term(lt, lnr, k);
    }
    None
}

impl WalkSeriesKernel {
    fn with(lambda: f64, weights: WalkWeights) -> Result<Self, MgkError> {
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(MgkError::InvalidParameter(format!("random-walk λ = {lambda} must be finite and > 0")));
        }
        Ok(WalkSeriesKernel { lambda, weights, tol: 1e-15, progress: None, tuning: crate::mgk::Tuning::default() })
    }

    /// The exponential random-walk kernel `1ᵀ exp(λ W×) 1`.
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] unless `λ` is finite and positive.
    pub fn exponential(lambda: f64) -> Result<Self, MgkError> {
        Self::with(lambda, WalkWeights::Exponential)
    }

    /// The p-step kernel `Σ_{k=0}^{p} c_k λ^k 1ᵀ W×^k 1` with
    /// `weights = [c_0, …, c_p]`.
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] unless `λ` is finite and positive and
    /// the weights are 1 to [`MAX_STEPS`]` + 1` finite, non-negative numbers
    /// (a negative weight can make the kernel indefinite).
    pub fn p_step(lambda: f64, weights: Vec<f64>) -> Result<Self, MgkError> {
        if weights.is_empty() || weights.len() > MAX_STEPS + 1 {
            return Err(MgkError::InvalidParameter(format!(
                "a p-step random-walk kernel takes 1 to {} weights c_0..c_p; {} given",
                MAX_STEPS + 1,
                weights.len()
            )));
        }
        if let Some((k, c)) = weights.iter().enumerate().find(|(_, c)| !(c.is_finite() && **c >= 0.0)) {
            return Err(MgkError::InvalidParameter(format!(
                "p-step weight c_{k} = {c} must be finite and ≥ 0 (a negative weight can make the kernel \
                 indefinite)"
            )));
        }
        Self::with(lambda, WalkWeights::Steps(weights))
    }

    /// GraKeL's weights for `p` steps: `c_k = 1` (its geometric
    /// `RandomWalk(lamda, p=p)`) or, with `exponential`, `c_k = 1/k!`.
    pub fn grakel_steps(p: usize, exponential: bool) -> Vec<f64> {
        let mut c = 1.0;
        (0..=p)
            .map(|k| {
                if exponential && k > 0 {
                    c /= k as f64;
                }
                c
            })
            .collect()
    }

    /// Sets the relative truncation tolerance of the exponential series
    /// (default `1e-15`; the p-step sums are exact).
    ///
    /// # Errors
    /// [`MgkError::InvalidParameter`] unless `0 < tol < 1`.
    pub fn with_tolerance(mut self, tol: f64) -> Result<Self, MgkError> {
        if !(tol > 0.0 && tol < 1.0) {
            return Err(MgkError::InvalidParameter(format!("tolerance {tol} must lie in (0, 1)")));
        }
        self.tol = tol;
        Ok(self)
    }

    /// Sets a progress callback, called with `(pairs done, total)`.
    pub fn with_progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Sets the device kernels' code-generation and launch knobs (default
    /// [`Tuning::default()`](crate::mgk::Tuning), as the marginalized graph
    /// kernel's); they change speed, never values beyond rounding. The CPU
    /// ignores them.
    ///
    /// # Errors
    /// [`Tuning::validate`](crate::mgk::Tuning::validate)'s.
    pub fn with_gpu_tuning(mut self, tuning: crate::mgk::Tuning) -> Result<Self, MgkError> {
        tuning.validate()?;
        self.tuning = tuning;
        Ok(self)
    }

    /// λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The weights.
    pub fn weights(&self) -> &WalkWeights {
        &self.weights
    }

    walk_gram_methods!("See the type's documentation.", "`λ ∂k/∂λ = Σ_k k c_k λ^k 1ᵀ W×^k 1` (non-negative).");

    pub(super) fn unlabeled_grams<N: Label, E: Label>(
        &self,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        _grad: bool,
    ) -> Result<(Matrix, Matrix), MgkError> {
        let (pairs, sym) = pair_list(x.len(), y.map(<[_]>::len));
        let v = self.moment_pairs(x, y, &pairs)?;
        Ok(fill(x.len(), y.map_or(x.len(), <[_]>::len), &pairs, &v, sym))
    }

    pub(super) fn labeled_grams<N: Label + PartialEq, E: Label>(
        &self,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        _grad: bool,
    ) -> Result<(Matrix, Matrix), MgkError> {
        let (pairs, sym) = pair_list(x.len(), y.map(<[_]>::len));
        let v = self.labeled_pairs(x, y, &pairs)?;
        Ok(fill(x.len(), y.map_or(x.len(), <[_]>::len), &pairs, &v, sym))
    }

    fn run_pairs<F>(&self, pairs: &[(usize, usize)], f: F) -> Result<Vec<(f64, f64)>, MgkError>
    where
        F: Fn(usize, usize) -> Result<(f64, f64), Fail> + Sync,
    {
        par_pairs(
            pairs,
            self.progress.as_ref(),
            || (),
            |_, a, b| f(a, b).map_err(|(value, detail)| MgkError::InvalidValue { pair: (a, b), value, detail }),
        )
    }

    /// The number of moments graph `g` (scale `2^e`, bound `s`) needs
    /// against partners whose largest `ln(s 2^e)` is `top`.
    fn moments_needed(&self, e: i32, s: f64, top: f64) -> usize {
        match &self.weights {
            WalkWeights::Steps(c) => c.len(),
            WalkWeights::Exponential => {
                let lnr = self.lambda.ln() + s.ln() + e as f64 * std::f64::consts::LN_2 + top;
                // two more than the rule's: the pairs stop by the same bounds in floating point
                exp_terms(lnr, self.tol).unwrap_or(MAX_WALK_TERMS) + 3
            }
        }
    }

    fn moment_pairs<N: Label, E: Label>(
        &self,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        pairs: &[(usize, usize)],
    ) -> Result<Vec<(f64, f64)>, MgkError> {
        let scales = |list: &[Graph<N, E>]| -> Result<Vec<(i32, f64)>, MgkError> {
            list.par_iter()
                .enumerate()
                .map(|(i, g)| {
                    let (s, sc) = rw_scale(g, i)?;
                    Ok((sc.exp, if sc.directed { sum_bound(&s) } else { sc.hi }))
                })
                .collect()
        };
        let sx = scales(x)?;
        let sy = y.map(scales).transpose()?;
        let top = |v: &[(i32, f64)]| {
            v.iter().map(|&(e, s)| s.ln() + e as f64 * std::f64::consts::LN_2).fold(f64::NEG_INFINITY, f64::max)
        };
        let (tx, ty) = (top(&sx), top(sy.as_deref().unwrap_or(&sx)));
        let moments = |list: &[Graph<N, E>], sc: &[(i32, f64)], partner_top: f64| -> Result<Vec<Moments>, MgkError> {
            list.par_iter()
                .zip(sc)
                .enumerate()
                .map(|(i, (g, &(exp, s)))| {
                    let (scaled, _) = rw_scale(g, i)?;
                    let count = self.moments_needed(exp, s, partner_top);
                    Ok(Moments { n: g.num_nodes() as f64, exp, s, m: scaled_moments_upto(&scaled, s, count) })
                })
                .collect()
        };
        let mx = moments(x, &sx, ty)?;
        let my = match y {
            Some(y) => Some(moments(y, sy.as_deref().unwrap_or_default(), tx)?),
            None => None,
        };
        let mb = my.as_deref().unwrap_or(&mx);
        self.run_pairs(pairs, |a, b| self.moment_pair(&mx[a], &mb[b]))
    }

    /// `(k, λ ∂k/∂λ)` of an unlabeled pair by the moment series.
    fn moment_pair(&self, a: &Moments, b: &Moments) -> Result<(f64, f64), Fail> {
        let r = scale_pow2(self.lambda, a.exp + b.exp) * a.s * b.s;
        let (mut v, mut g) = (0.0f64, 0.0f64);
        match &self.weights {
            WalkWeights::Steps(c) => {
                let mut rk = 1.0f64;
                for (k, &ck) in c.iter().enumerate() {
                    if ck > 0.0 && a.m[k] != 0.0 && b.m[k] != 0.0 {
                        let t = ck * rk * a.m[k] * b.m[k];
                        v += t;
                        g += k as f64 * t;
                    }
                    rk *= r;
                }
            }
            WalkWeights::Exponential => {
                let nn = a.n * b.n;
                let mut w = 1.0f64; // r^k / k!
                let mut k = 0usize;
                loop {
                    if k >= a.m.len() || k >= b.m.len() {
                        return Err((
                            v,
                            format!(
                                "the exponential series needs more than {} terms (λ s s' = {r:.6e}, s bounds on the \
                             spectral radii); lower λ",
                                a.m.len().min(b.m.len())
                            ),
                        ));
                    }
                    // a graph whose walks end (a nilpotent W) has only zero moments from here on
                    if a.m[k] == 0.0 || b.m[k] == 0.0 {
                        break;
                    }
                    let t = w * a.m[k] * b.m[k];
                    v += t;
                    g += k as f64 * t;
                    if !(v.is_finite() && g.is_finite()) {
                        break;
                    }
                    let kf = k as f64;
                    if kf + 1.0 > r {
                        let tail = nn * w * r / (kf + 1.0) / (1.0 - r / (kf + 2.0));
                        let tail_g = nn * r * w / (1.0 - r / (kf + 1.0));
                        if tail <= self.tol * v && tail_g <= self.tol * v.max(g) {
                            break;
                        }
                    }
                    w *= r / (kf + 1.0);
                    k += 1;
                }
            }
        }
        checked(v, g, r)
    }

    fn labeled_pairs<N: Label + PartialEq, E: Label>(
        &self,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        pairs: &[(usize, usize)],
    ) -> Result<Vec<(f64, f64)>, MgkError> {
        let graphs: Vec<&Graph<N, E>> = x.iter().chain(y.unwrap_or_default()).collect();
        let sums: Vec<f64> = graphs
            .par_iter()
            .enumerate()
            .map(|(i, g)| rw_scale(g, i).map(|(s, _)| sum_bound(&s)))
            .collect::<Result<_, _>>()?;
        let classes = node_classes(graphs.iter().copied());
        let packs = labeled_packs(graphs, &classes)?;
        let off = if y.is_some() { x.len() } else { 0 };
        self.run_pairs(pairs, |a, b| {
            let (pa, sa) = &packs[a];
            let (pb, sb) = &packs[off + b];
            let lam = scale_pow2(self.lambda, sa.exp + sb.exp);
            self.power_pair(pa, pb, lam, lam * sums[a] * sums[off + b])
        })
    }

    /// `(k, λ ∂k/∂λ)` of a labeled pair by the power series on the matched
    /// product (`lam` for the scaled weights, `sigma ≥ lam ‖L W× L‖₁`).
    fn power_pair(
        &self,
        a: &ClassPacking<f64>,
        b: &ClassPacking<f64>,
        lam: f64,
        sigma: f64,
    ) -> Result<(f64, f64), Fail> {
        let kron = MatchedKron::new(a, b);
        let d = kron.dim();
        if d == 0 {
            return Ok((0.0, 0.0));
        }
        let (mut z, mut next) = (vec![1.0; d], vec![0.0; d]);
        let sum = |z: &Vec<f64>| Ok::<f64, std::convert::Infallible>(z.iter().sum());
        let step = |factor: f64, z: &Vec<f64>, next: &mut Vec<f64>| {
            next.iter_mut().for_each(|x| *x = 0.0);
            kron.apply_add(factor, z, next);
            Ok(())
        };
        self.power_series(lam, sigma, (&mut z, &mut next), sum, step).map_err(|e| match e {
            PowerFail::Series(f) => f,
            PowerFail::Op(never) => match never {},
        })
    }

    /// The divisor of step `k` of the power series: `z_{k+1} = (lam / d_k) M z_k`
    /// with `d_k = k + 1` (exponential) or `1` (p-step). The one definition
    /// of the steps, for [`power_series`](Self::power_series) and the GPU's
    /// batched sums (`series_gpu.rs`, which pass it to the device).
    pub(super) fn step_divisor(&self, k: usize) -> f64 {
        match &self.weights {
            WalkWeights::Steps(_) => 1.0,
            WalkWeights::Exponential => k as f64 + 1.0,
        }
    }

    /// How many sums `1ᵀ z_k` (`k = 0..`) the power series of a pair with
    /// `sigma ≥ lam ‖M‖₁` reads at most before it stops: the p-step kernel's
    /// `p + 1`; for the exponential series, the terms after which the tail
    /// bound of the type's documentation holds for any start (`1ᵀ z_k ≤
    /// σ^k/k! · 1ᵀ z_0` and the sum `≥ 1ᵀ z_0`: the bound of [`exp_terms`] on
    /// `ln σ`, with a margin), evaluated at `ln σ` rounded up to a multiple
    /// of 1/64 (memoized in `memo`: the count only grows with σ). `None`
    /// beyond [`MAX_WALK_TERMS`].
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))] // the GPU path
    pub(super) fn power_terms(
        &self,
        sigma: f64,
        memo: &mut std::collections::HashMap<i64, Option<usize>>,
    ) -> Option<usize> {
        match &self.weights {
            WalkWeights::Steps(c) => Some(c.len()),
            WalkWeights::Exponential => {
                if sigma.is_nan() {
                    return None;
                }
                if sigma <= 0.0 {
                    return Some(2);
                }
                let key = (sigma.ln() * 64.0).ceil();
                if !key.is_finite() {
                    return None;
                }
                *memo
                    .entry(key as i64)
                    .or_insert_with(|| exp_terms(key / 64.0, self.tol).map(|k| (k + 4).min(MAX_WALK_TERMS + 1)))
            }
        }
    }

    /// `(k, λ ∂k/∂λ)` of a pair from the sums `t_k = 1ᵀ z_k` of its power
    /// iteration (computed elsewhere: the GPU's batched sums), folded by
    /// [`power_series`](Self::power_series) itself; `Ok(None)` when the sums
    /// run out before the series stops.
    ///
    /// # Errors
    /// The series' own (an overflow, too many terms), as on the CPU.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))] // the GPU path
    pub(super) fn fold_sums(&self, t: &[f64], lam: f64, sigma: f64) -> Result<Option<(f64, f64)>, Fail> {
        let (mut z, mut next) = (0usize, 0usize);
        let sum = |k: &usize| t.get(*k).copied().ok_or(());
        let step = |_: f64, z: &usize, next: &mut usize| {
            *next = *z + 1;
            Ok(())
        };
        match self.power_series(lam, sigma, (&mut z, &mut next), sum, step) {
            Ok(v) => Ok(Some(v)),
            Err(PowerFail::Series(f)) => Err(f),
            Err(PowerFail::Op(())) => Ok(None),
        }
    }

    /// `(Σ_k c_k 1ᵀ z_k, Σ_k k c_k 1ᵀ z_k)` for the power iteration
    /// `z_{k+1} = f_k M z_k` from `z_0` (the first vector of `z`: the ones
    /// of the product's node pairs), `f_k = lam` (p-step) or `lam / (k + 1)`
    /// (exponential), with `M` the (matched) product graph's adjacency for
    /// the scaled weights: `step(f, z, next)` sets `next ← f M z`, `sum(z)`
    /// is `1ᵀ z`. The exponential series stops by the tail bound of the
    /// type's documentation (`sigma ≥ lam ‖M‖₁`). The one series of both
    /// backends: the CPU's [`MatchedKron`] on `Vec<f64>`, the GPU's device
    /// Kronecker product on device vectors (`rw/series_gpu.rs`).
    pub(super) fn power_series<V, E>(
        &self,
        lam: f64,
        sigma: f64,
        (z, next): (&mut V, &mut V),
        sum: impl Fn(&V) -> Result<f64, E>,
        mut step: impl FnMut(f64, &V, &mut V) -> Result<(), E>,
    ) -> Result<(f64, f64), PowerFail<E>> {
        let (mut v, mut g) = (0.0f64, 0.0f64);
        let steps = match &self.weights {
            WalkWeights::Steps(c) => c.len(),
            WalkWeights::Exponential => MAX_WALK_TERMS + 1,
        };
        for k in 0..steps {
            let t1 = sum(z).map_err(PowerFail::Op)?;
            let kf = k as f64;
            let c = match &self.weights {
                WalkWeights::Steps(c) => c[k],
                WalkWeights::Exponential => 1.0,
            };
            let factor = lam / self.step_divisor(k);
            v += c * t1;
            g += kf * c * t1;
            if !(v.is_finite() && g.is_finite()) {
                return checked(v, g, sigma).map_err(PowerFail::Series);
            }
            if self.weights == WalkWeights::Exponential && kf + 1.0 > sigma {
                let q = sigma / (kf + 1.0);
                let (tail, tail_g) = (t1 * q / (1.0 - q), t1 * sigma / (1.0 - q));
                if tail <= self.tol * v && tail_g <= self.tol * v.max(g) {
                    return checked(v, g, sigma).map_err(PowerFail::Series);
                }
            }
            if k + 1 == steps {
                break;
            }
            step(factor, z, next).map_err(PowerFail::Op)?;
            std::mem::swap(z, next);
        }
        if self.weights == WalkWeights::Exponential {
            return Err(PowerFail::Series((
                v,
                format!(
                    "the exponential series needs more than {MAX_WALK_TERMS} terms (λ ‖W×‖₁ ≤ {sigma:.6e}); lower λ"
                ),
            )));
        }
        checked(v, g, sigma).map_err(PowerFail::Series)
    }
}

/// Why [`WalkSeriesKernel::power_series`] stopped: the series (the value
/// reached and what to change) or the product's backend.
pub(super) enum PowerFail<E> {
    Series(Fail),
    Op(E),
}

/// The pair's values if finite (they are non-negative by construction).
fn checked(v: f64, g: f64, r: f64) -> Result<(f64, f64), Fail> {
    if v.is_finite() && g.is_finite() {
        Ok((v, g))
    } else {
        Err((v, format!("it exceeds the range of double precision (λ ρ ρ' up to {r:.6e}); lower λ")))
    }
}

/// Why a pair failed: the value reached and what to change.
pub(super) type Fail = (f64, String);
