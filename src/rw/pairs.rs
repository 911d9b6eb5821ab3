//! How [`RandomWalkKernel`] computes its pairs on the CPU: the λ check, the
//! moment series or a solve per pair (CG, or BiCGSTAB for directed graphs),
//! errors mapped to [`MgkError`], and the pair lists of the Gram matrices.

use super::prep::{labeled_packs, node_classes, rw_scale, scaled_moments, series_terms, RwGraph, RwScale};
use super::{RandomWalkKernel, RwMethod};
use crate::graph::{Graph, Label};
use crate::kron::{ClassPacking, Diag, KronApply, KronProduct, MatchedKron, Octiles, ShiftedKron, Unlabeled};
use crate::mgk::system::scale_pow2;
use crate::mgk::{Matrix, MgkError, Progress};
use crate::solver::{
    bicgstab_or_fixed_point, cg, BicgstabParams, CgParams, IterParams, LinOp, Monitor, Precond, SolverError, Workspace,
};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Why a pair failed.
pub(super) enum RwFail {
    Solver(SolverError),
    Lambda(String),
    Value(f64),
}

impl From<SolverError> for RwFail {
    fn from(e: SolverError) -> Self {
        RwFail::Solver(e)
    }
}

impl RandomWalkKernel {
    pub(super) fn use_series(&self) -> bool {
        self.method != RwMethod::Solver
    }

    pub(super) fn prepare<N: Label, E: Label>(&self, x: &[Graph<N, E>]) -> Result<Vec<RwGraph<E>>, MgkError> {
        x.par_iter()
            .enumerate()
            .map(|(i, g)| {
                let (g, scale) = rw_scale(g, i)?;
                let series = self.use_series()
                    && !scale.directed
                    && scale_pow2(self.lambda, 2 * scale.exp) * scale.hi * scale.hi < 1.0;
                let moments = if series { scaled_moments(&g, scale.hi) } else { Vec::new() };
                let oct = Octiles::new(&g);
                Ok(RwGraph { n: g.num_nodes(), scale, moments, oct })
            })
            .collect::<Vec<Result<_, MgkError>>>()
            .into_iter()
            .collect()
    }

    /// λ for the pair's scaled weights, `λ 2^(e + e')`, after checking
    /// `λ ρ ρ' < 1` (see the type's documentation).
    pub(super) fn pair_lambda(&self, a: &RwScale, b: &RwScale) -> Result<f64, RwFail> {
        let lam = scale_pow2(self.lambda, a.exp + b.exp);
        let limit = scale_pow2(1.0 / (a.hi * b.hi), -(a.exp + b.exp));
        let advice = if limit > 0.0 && limit.is_finite() {
            format!("use λ < {limit:.6e} (--lambda) for this pair")
        } else {
            "no λ representable in double precision works: scale the weights towards 1".to_string()
        };
        if !lam.is_finite() || lam * a.lo * b.lo >= 1.0 {
            return Err(RwFail::Lambda(format!(
                "λ ρ(W) ρ(W') ≥ {:.6} (ρ between Collatz–Wielandt bounds), so the series diverges; {advice}",
                lam * a.lo * b.lo
            )));
        }
        if (a.directed || b.directed) && lam * a.hi * b.hi >= 1.0 {
            return Err(RwFail::Lambda(format!(
                "λ ρ(W) ρ(W') < 1 cannot be certified for these directed graphs (upper bound {:.6}); {advice}",
                lam * a.hi * b.hi
            )));
        }
        Ok(lam)
    }

    /// The solver's monitor for pair `(a, b)`, if a callback is set.
    pub(super) fn monitor(&self, pair: (usize, usize)) -> Option<Monitor> {
        self.solver_progress.clone().map(|f| Monitor::new(move |it, res| f(pair, it, res)))
    }

    pub(super) fn run_pairs<F>(&self, pairs: &[(usize, usize)], f: F) -> Result<Vec<(f64, f64)>, MgkError>
    where
        F: Fn(&mut Workspace<Vec<f64>>, usize, usize) -> Result<(f64, f64), (usize, usize, RwFail)> + Sync,
    {
        par_pairs(pairs, self.progress.as_ref(), Workspace::new, |ws, a, b| {
            f(ws, a, b).map_err(|(a, b, e)| self.map_error(a, b, e))
        })
    }

    pub(super) fn map_error(&self, a: usize, b: usize, e: RwFail) -> MgkError {
        match e {
            RwFail::Lambda(detail) => MgkError::LambdaTooLarge { lambda: self.lambda, pair: (a, b), detail },
            RwFail::Value(value) => MgkError::InvalidValue {
                pair: (a, b),
                value,
                detail: "not finite or negative: λ ρ(W) ρ(W') is too close to 1 for the solve; lower λ (--lambda)"
                    .into(),
            },
            RwFail::Solver(source) => {
                let advice = match &source {
                    SolverError::NoConvergence { iterations, .. } => format!(
                        "no convergence within {iterations} iterations: λ ρ(W) ρ(W') is close to 1; lower λ \
                         (--lambda) or raise the tolerance"
                    ),
                    SolverError::Breakdown { .. } => "a value overflowed or became NaN: lower λ (--lambda) or \
                         check the weights"
                        .to_string(),
                    _ => "internal error".to_string(),
                };
                MgkError::Solver { pair: (a, b), source, advice }
            }
        }
    }

    /// The value of a pair, checked: finite and non-negative.
    pub(super) fn checked(v: f64) -> Result<f64, RwFail> {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(RwFail::Value(v))
        }
    }

    /// CG's loss of positive definiteness means `λ ρ ρ' ≥ 1` (undirected).
    pub(super) fn not_pd(&self, e: SolverError, a: &RwScale, b: &RwScale) -> RwFail {
        match e {
            SolverError::NonPositiveDefinite { curvature, iteration } => {
                let limit = scale_pow2(1.0 / (a.hi * b.hi), -(a.exp + b.exp));
                RwFail::Lambda(format!(
                    "I − λ W⊗W' is not positive definite (pᵀAp = {curvature:e} at CG iteration {iteration}); \
                     λ < {limit:.6e} (--lambda) works for this pair"
                ))
            }
            e => RwFail::Solver(e),
        }
    }

    /// `(k, λ dk/dλ)` of an unlabeled pair (the derivative only when
    /// `grad`; else 0). Series: `Σ λ^k m_k m'_k` and `Σ k λ^k m_k m'_k`.
    pub(super) fn unlabeled_pair<E: Label>(
        &self,
        a: &RwGraph<E>,
        b: &RwGraph<E>,
        pair: (usize, usize),
        ws: &mut Workspace<Vec<f64>>,
        grad: bool,
    ) -> Result<(f64, f64), RwFail> {
        let lam = self.pair_lambda(&a.scale, &b.scale)?;
        let r = lam * a.scale.hi * b.scale.hi;
        if self.use_series() && !a.moments.is_empty() && !b.moments.is_empty() {
            if let Some(terms) = series_terms(r) {
                let (mut s, mut ds) = (0.0, 0.0);
                let mut rk = 1.0;
                for k in 0..=terms {
                    let t = rk * a.moments[k] * b.moments[k];
                    s += t;
                    ds += k as f64 * t;
                    rk *= r;
                }
                return Ok((Self::checked(s)?, if grad { Self::checked(ds)? } else { 0.0 }));
            }
        }
        let kron = KronProduct::prebound(&a.oct, &b.oct, &Unlabeled);
        debug_assert_eq!(kron.dim(), a.n * b.n);
        let directed = a.scale.directed || b.scale.directed;
        let (v, dv) =
            self.solve_ones(&kron, lam, ws, directed, pair, grad).map_err(|e| self.not_pd(e, &a.scale, &b.scale))?;
        Ok((Self::checked(v)?, Self::checked(dv)?))
    }

    /// `(k, λ dk/dλ)` of a labeled pair, as [`unlabeled_pair`](Self::unlabeled_pair).
    pub(super) fn labeled_pair(
        &self,
        a: &(ClassPacking<f64>, RwScale),
        b: &(ClassPacking<f64>, RwScale),
        pair: (usize, usize),
        ws: &mut Workspace<Vec<f64>>,
        grad: bool,
    ) -> Result<(f64, f64), RwFail> {
        let ((a, sa), (b, sb)) = (a, b);
        let kron = MatchedKron::new(a, b);
        if kron.dim() == 0 {
            return Ok((0.0, 0.0));
        }
        let lam = self.pair_lambda(sa, sb)?;
        let directed = sa.directed || sb.directed;
        let (v, dv) = self.solve_ones(&kron, lam, ws, directed, pair, grad).map_err(|e| self.not_pd(e, sa, sb))?;
        Ok((Self::checked(v)?, Self::checked(dv)?))
    }

    /// Solves `A x = 1` for `A = I − λ W×` and returns `(1ᵀ x, λ dk/dλ)`,
    /// the derivative (only when `grad`, else 0) being
    /// `λ 1ᵀ A⁻¹ W× A⁻¹ 1`: `λ xᵀ W× x` when `A` is symmetric (one product,
    /// no solve), else `λ 1ᵀ z` with `A z = W× x` (one more solve, with the
    /// same operator).
    pub(super) fn solve_ones<K: KronApply<f64>>(
        &self,
        kron: &K,
        lam: f64,
        ws: &mut Workspace<Vec<f64>>,
        directed: bool,
        pair: (usize, usize),
        grad: bool,
    ) -> Result<(f64, f64), SolverError> {
        let op = ShiftedKron::of(Diag::Const(1.0), lam, kron);
        let n = op.nrows();
        let b = vec![1.0; n];
        let mut x = vec![0.0; n];
        self.solve(&op, &b, &mut x, ws, directed, pair)?;
        let k = x.iter().sum();
        if !grad {
            return Ok((k, 0.0));
        }
        let mut wx = vec![0.0; n];
        kron.apply_add(1.0, &x, &mut wx);
        let d = if directed {
            let mut z = vec![0.0; n];
            self.solve(&op, &wx, &mut z, ws, true, pair)?;
            lam * z.iter().sum::<f64>()
        } else {
            lam * x.iter().zip(&wx).map(|(a, b)| a * b).sum::<f64>()
        };
        Ok((k, d))
    }

    /// `op x = b` by CG (symmetric) or BiCGSTAB (directed).
    fn solve<K: KronApply<f64>>(
        &self,
        op: &ShiftedKron<'_, f64, K>,
        b: &Vec<f64>,
        x: &mut Vec<f64>,
        ws: &mut Workspace<Vec<f64>>,
        directed: bool,
        pair: (usize, usize),
    ) -> Result<(), SolverError> {
        let monitor = self.monitor(pair);
        let iter = IterParams { monitor, ..IterParams::new(self.tol, self.max_iters) };
        if directed {
            let p = BicgstabParams { iter, precond: Precond::Identity };
            bicgstab_or_fixed_point(op, b, x, &p, ws)?;
        } else {
            // symmetric by construction: no probe
            let p = CgParams { iter, precond: Precond::Identity, check_symmetry: false };
            cg(op, b, x, &p, ws)?;
        }
        Ok(())
    }

    /// The Gram matrix of `x` (or `x` against `y`) and its derivative in
    /// `log λ` (zeros unless `grad`): the unlabeled kernel.
    pub(super) fn unlabeled_grams<N: Label, E: Label>(
        &self,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        grad: bool,
    ) -> Result<(Matrix, Matrix), MgkError> {
        let px = self.prepare(x)?;
        let py = y.map(|y| self.prepare(y)).transpose()?;
        let pb = py.as_deref().unwrap_or(&px);
        let (pairs, sym) = pair_list(x.len(), y.map(<[_]>::len));
        let v = self.run_pairs(&pairs, |ws, a, b| {
            self.unlabeled_pair(&px[a], &pb[b], (a, b), ws, grad).map_err(|e| (a, b, e))
        })?;
        Ok(fill(x.len(), pb.len(), &pairs, &v, sym))
    }

    /// As [`unlabeled_grams`](Self::unlabeled_grams), the labeled kernel.
    pub(super) fn labeled_grams<N: Label + PartialEq, E: Label>(
        &self,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        grad: bool,
    ) -> Result<(Matrix, Matrix), MgkError> {
        let graphs: Vec<&Graph<N, E>> = x.iter().chain(y.unwrap_or_default()).collect();
        let classes = node_classes(graphs.iter().copied());
        let packs = labeled_packs(graphs, &classes)?;
        let (px, py) = packs.split_at(x.len());
        let pb = if y.is_some() { py } else { px };
        let (pairs, sym) = pair_list(x.len(), y.map(<[_]>::len));
        let v = self
            .run_pairs(&pairs, |ws, a, b| self.labeled_pair(&px[a], &pb[b], (a, b), ws, grad).map_err(|e| (a, b, e)))?;
        Ok(fill(x.len(), pb.len(), &pairs, &v, sym))
    }
}

/// `f` on every pair in parallel (each thread with its own state from
/// `init`), in the pairs' order, calling `progress` with `(pairs done,
/// total)` after each pair; the first error ends the run.
pub(super) fn par_pairs<S, T: Send, F>(
    pairs: &[(usize, usize)],
    progress: Option<&Progress>,
    init: impl Fn() -> S + Sync + Send,
    f: F,
) -> Result<Vec<T>, MgkError>
where
    F: Fn(&mut S, usize, usize) -> Result<T, MgkError> + Sync + Send,
{
    let done = AtomicUsize::new(0);
    pairs
        .par_iter()
        .map_init(&init, |state, &(a, b)| {
            let v = f(state, a, b)?;
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(p) = progress {
                p(d, pairs.len());
            }
            Ok(v)
        })
        .collect()
}

/// The pairs of a Gram matrix: each pair once for one list (`m` None,
/// symmetric), all pairs against a second list of `m`.
pub(super) fn pair_list(n: usize, m: Option<usize>) -> (Vec<(usize, usize)>, bool) {
    match m {
        None => (upper(n), true),
        Some(m) => (all(n, m), false),
    }
}

pub(super) fn upper(n: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (a..n).map(move |b| (a, b))).collect()
}

pub(super) fn all(n: usize, m: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (0..m).map(move |b| (a, b))).collect()
}

/// The two matrices (values, derivatives) of the pairs' results.
pub(super) fn fill(n: usize, m: usize, pairs: &[(usize, usize)], v: &[(f64, f64)], sym: bool) -> (Matrix, Matrix) {
    let (mut k, mut d) = (Matrix::zeros(n, m), Matrix::zeros(n, m));
    for (&(a, b), &(x, dx)) in pairs.iter().zip(v) {
        k.set(a, b, x);
        d.set(a, b, dx);
        if sym {
            k.set(b, a, x);
            d.set(b, a, dx);
        }
    }
    (k, d)
}
