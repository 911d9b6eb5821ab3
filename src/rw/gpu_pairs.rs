//! The random-walk kernel's pairs on the GPU that the moment series does not
//! compute: the node-labeled kernel and directed graphs.
//!
//! - Undirected node-labeled pairs are one more instance of the Kronecker
//!   systems of [`MarginalizedGraphKernel`] and its batched device PCG
//!   ([`KronSystem::random_walk`], unit degrees, `p = 1`), with the node
//!   kernel κv = [`KroneckerDelta`] on the nodes' label classes: 1 for equal
//!   labels, `ε` (2⁻²⁰⁰ in f64, 2⁻¹⁰⁰ in f32) otherwise. Since the system's
//!   solution is `r = V (I − λ A V)⁻¹ 1` (`V = diag κv`, `A = W ⊗ W'`), a
//!   vanishing κv removes the unmatched node pairs exactly as the CPU's
//!   restriction `1ᵀ (I − λ P A P)⁻¹ 1` does; with `ε` they add at most
//!   `ε N` relative to `k` (below the precision's rounding), and the Jacobi
//!   preconditioner makes those rows trivial for CG. Pairs with no matched
//!   node pair are 0 (as on the CPU), and the tolerance is tightened by
//!   `√(matched / N)` so that CG's residual (over all `N` node pairs) meets
//!   the CPU's (over the matched ones).
//! - Directed pairs (plain or labeled), whose systems are not symmetric, and
//!   labeled pairs whose λ cannot be certified for CG, run the CPU's
//!   fixed-point iteration on the device (`gpu/fixed.rs`).
//!
//! λ is checked per pair exactly as the CPU checks it (bounds computed on
//! the host), and weights are scaled as on the CPU (`2^−e` per graph, λ by
//! `2^(e + e')`).

use super::gpu::fixed::{fixed_point_pairs, FixedRule};
use super::prep::GraphList;
use super::{RandomWalkKernel, RwFail, RwScale};
use crate::backend::{Backend, Precision};
use crate::basekernel::{Constant, KroneckerDelta};
use crate::graph::{Graph, Label};
use crate::mgk::system::{scale_pow2, unit_weights};
use crate::mgk::{min_tolerance, KronSystem, MarginalizedGraphKernel, Matrix, MgkError};
use crate::solver::SolverError;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// κv for unequal labels in the labeled kernel's system (see the module
/// documentation): 2⁻²⁰⁰ in f64, 2⁻¹⁰⁰ in f32 (normal in both, and the
/// diagonal `1 / (λ ε)` stays finite for every λ the GPU accepts).
fn unmatched_kappa(p: Precision) -> f64 {
    match p {
        Precision::F64 => scale_pow2(1.0, -200),
        Precision::F32 => scale_pow2(1.0, -100),
    }
}

/// One pair to solve on the GPU: list indices, the place in the output.
#[derive(Clone, Copy, Debug)]
struct Job {
    ia: usize,
    ib: usize,
    a: usize,
    b: usize,
    lam: f64,
    /// Matched node pairs / all node pairs.
    frac: f64,
}

impl RandomWalkKernel {
    /// The node-labeled Gram matrix of `x` (`y = None`, symmetric) or
    /// `x × y` on device `device`, by the labeled PCG and the fixed-point
    /// iteration (see the module documentation).
    pub(super) fn labeled_pairs_gpu<N: Label + PartialEq, E: Label>(
        &self,
        device: usize,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
    ) -> crate::Result<Matrix> {
        self.solve_pairs_gpu(device, &GraphList::labeled(x, y))
    }

    /// The plain kernel's pairs of a set with directed graphs (every node
    /// pair matches), as [`labeled_pairs_gpu`](Self::labeled_pairs_gpu).
    pub(super) fn plain_pairs_gpu<N: Label, E: Label>(
        &self,
        device: usize,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
    ) -> crate::Result<Matrix> {
        self.solve_pairs_gpu(device, &GraphList::plain(x, y))
    }

    fn solve_pairs_gpu<N: Label, E: Label>(&self, device: usize, gl: &GraphList<'_, N, E>) -> crate::Result<Matrix> {
        let GraphList { list, nx, cross, classes } = gl;
        let (list, nx, cross, classes) = (&list[..], *nx, *cross, &classes[..]);
        let ny = if cross { list.len() - nx } else { nx };
        let mut k = Matrix::zeros(nx, ny);
        if nx == 0 || ny == 0 {
            return Ok(k);
        }
        let scales: Vec<RwScale> = list
            .par_iter()
            .enumerate()
            .map(|(i, g)| super::rw_scale(g, i).map(|(_, s)| s))
            .collect::<Vec<_>>()
            .into_iter()
            .collect::<Result<_, _>>()?;
        let counts = gl.class_counts();
        let y0 = if cross { nx } else { 0 };
        let pairs: Vec<(usize, usize)> = if cross {
            (0..nx).flat_map(|a| (0..ny).map(move |b| (a, b))).collect()
        } else {
            (0..nx).flat_map(|a| (a..nx).map(move |b| (a, b))).collect()
        };
        let (mut fixed, mut pcg) = (Vec::new(), Vec::new());
        for &(a, b) in &pairs {
            let (ia, ib) = (a, y0 + b);
            let matched: u64 = counts[ia].iter().zip(&counts[ib]).map(|(p, q)| p * q).sum();
            if matched == 0 {
                continue; // 0, as on the CPU
            }
            let (sa, sb) = (&scales[ia], &scales[ib]);
            let lam = self.pair_lambda(sa, sb).map_err(|e| self.map_error(a, b, e))?;
            let all = (list[ia].num_nodes() * list[ib].num_nodes()) as f64;
            let job = Job { ia, ib, a, b, lam, frac: matched as f64 / all };
            // CG needs a positive definite system: certified by the upper bounds
            let spd = !(sa.directed || sb.directed) && lam * sa.hi * sb.hi < 1.0;
            if spd && 1.0 / (lam * unmatched_kappa(self.precision)) < f32_or_f64_max(self.precision) {
                pcg.push(job);
            } else {
                fixed.push(job);
            }
        }
        let mut set = |job: &Job, v: f64| -> Result<(), MgkError> {
            let v = Self::checked(v).map_err(|e| self.map_error(job.a, job.b, e))?;
            k.set(job.a, job.b, v);
            if !cross {
                k.set(job.b, job.a, v);
            }
            Ok(())
        };
        if !fixed.is_empty() {
            let csr = super::backend::series_csr(list)?;
            let flat: Vec<i32> = classes.iter().flatten().map(|&c| c as i32).collect();
            let jobs: Vec<(usize, usize)> = fixed.iter().map(|j| (j.ia, j.ib)).collect();
            let lambdas: Vec<f64> = fixed.iter().map(|j| j.lam).collect();
            let rule =
                FixedRule { tol: self.tol, max_iters: self.max_iters.saturating_mul(2), precision: self.precision };
            let out = fixed_point_pairs(device, &csr, &flat, &jobs, &lambdas, rule)?;
            for (job, o) in fixed.iter().zip(out) {
                let fail = match o.status {
                    0 => None,
                    1 => Some(SolverError::NoConvergence {
                        iterations: o.iterations,
                        // ‖b‖ = √(matched pairs)
                        abs_residual: o.value
                            * (job.frac * (list[job.ia].num_nodes() * list[job.ib].num_nodes()) as f64).sqrt(),
                        rel_residual: o.value,
                        tol: self.tol,
                    }),
                    2 => Some(SolverError::Breakdown {
                        iteration: o.iterations,
                        what: "non-finite residual (the iteration diverges)",
                    }),
                    _ => {
                        return Err(MgkError::Cuda(Box::new(crate::cuda::CudaError::InvalidParameter(format!(
                            "the GPU left pair ({}, {}) unset: a kernel did not run for every pair",
                            job.a, job.b
                        ))))
                        .into())
                    }
                };
                if let Some(e) = fail {
                    return Err(self.map_error(job.a, job.b, RwFail::Solver(e)).into());
                }
                set(job, o.value)?;
            }
        }
        if !pcg.is_empty() {
            self.labeled_pcg(device, list, &scales, classes, &pcg, &mut set)?;
        }
        if let Some(p) = &self.progress {
            p(pairs.len(), pairs.len());
        }
        Ok(k)
    }

    /// The undirected labeled pairs `jobs` by the MGK's batched PCG, one
    /// call per distinct `e + e'` of the weight scaling.
    fn labeled_pcg<N: Label, E: Label>(
        &self,
        device: usize,
        list: &[&Graph<N, E>],
        scales: &[RwScale],
        classes: &[Vec<u32>],
        jobs: &[Job],
        set: &mut impl FnMut(&Job, f64) -> Result<(), MgkError>,
    ) -> crate::Result<()> {
        let mut groups: BTreeMap<i32, Vec<Job>> = BTreeMap::new();
        for j in jobs {
            groups.entry(scales[j.ia].exp + scales[j.ib].exp).or_default().push(*j);
        }
        // the graphs as the system sees them: scaled weights, label classes, no edge labels
        let prepared = |i: usize| -> Result<Graph<u32, ()>, MgkError> {
            let (g, _) = unit_weights(list[i]).map_err(|source| MgkError::WeightRange { graph: i, source })?;
            let mut c = classes[i].iter();
            Ok(g.map_node_labels(|_| c.next().copied().unwrap_or(u32::MAX)).map_edge_labels(|_| ()))
        };
        for (exp, group) in groups {
            let mut ia: Vec<usize> = group.iter().map(|j| j.ia).collect();
            let mut ib: Vec<usize> = group.iter().map(|j| j.ib).collect();
            ia.sort_unstable();
            ia.dedup();
            ib.sort_unstable();
            ib.dedup();
            let gx = ia.iter().map(|&i| prepared(i)).collect::<Result<Vec<_>, _>>()?;
            let lam = scale_pow2(self.lambda, exp);
            let frac = group.iter().map(|j| j.frac).fold(1.0, f64::min);
            let tol = (self.tol * frac.sqrt()).max(min_tolerance(self.precision));
            let mgk = MarginalizedGraphKernel::<u32, (), _, _>::new(
                KroneckerDelta::try_new(unmatched_kappa(self.precision))
                    .map_err(|e| MgkError::InvalidParameter(e.to_string()))?,
                Constant::new(1.0),
                0.5,
            )?
            .with_system(Some(KronSystem::random_walk(lam)))?
            .with_precision(self.precision)
            .with_tolerance(tol)?
            .with_max_iters(self.max_iters);
            let solved = if ia == ib {
                mgk.gram_on(Backend::Cuda(device), &gx)?
            } else {
                let gy = ib.iter().map(|&i| prepared(i)).collect::<Result<Vec<_>, _>>()?;
                mgk.gram_xy_on(Backend::Cuda(device), &gx, &gy)?
            };
            for j in &group {
                let (r, c) = (ia.binary_search(&j.ia).unwrap_or(0), ib.binary_search(&j.ib).unwrap_or(0));
                set(j, solved.get(r, c))?;
            }
        }
        Ok(())
    }
}

/// The largest finite value of the precision's reals.
fn f32_or_f64_max(p: Precision) -> f64 {
    match p {
        Precision::F64 => f64::MAX,
        Precision::F32 => f32::MAX as f64,
    }
}
