//! [`solve_pairs`](super::solve_pairs) on a CUDA device: a user's
//! [`PairSystem`] for every pair of a call in one batched launch (see
//! `crate::mgk::gpu::kron_pairs`). A factored system's diagonals,
//! right-hand sides and outputs are generated on the device from its
//! per-node vectors; a dense system's are evaluated on the host (in
//! parallel) and uploaded; derivatives are evaluated on the host.

use super::pair_factored::bind_factored;
use super::pair_system::{check_pairs, fill_inputs, finish, node_vector, wants_gradient};
use super::{Factored, PairSolution, PairSolve, PairSystem, PairSystemError, Part};
use crate::cuda::{GpuDevice, GpuLabel};
use crate::graph::{Graph, Label};
use crate::mgk::gpu::kron_pairs::{BatchSolver, HostFactors, PairBatch, Settings};
use crate::solver::SolverError;
use rayon::prelude::*;

/// Solves every pair on device `ordinal` in one launch.
pub(super) fn solve_pairs_device<N: GpuLabel, E: GpuLabel, S: PairSystem<N, E>>(
    system: &S,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
    pairs: &[(usize, usize)],
    opts: &PairSolve,
    ordinal: usize,
) -> Result<Vec<PairSolution>, PairSystemError> {
    let yy = y.unwrap_or(x);
    opts.tuning.validate().map_err(PairSystemError::Tuning)?;
    check_pairs(pairs, x.len(), yy.len())?;
    let directed: Vec<bool> = pairs.iter().map(|&(a, b)| x[a].is_directed() || yy[b].is_directed()).collect();
    let mut want_grad = false;
    for (&pair, &dir) in pairs.iter().zip(&directed) {
        want_grad |= wants_gradient(system, dir, pair, opts)?;
    }
    let dev = GpuDevice::open(ordinal)?;
    let any_directed = directed.iter().any(|&d| d);
    let form = system.factored().map(|f| bind_factored(f, x, y)).transpose()?;
    let factors = form.as_ref().map(|f| host_factors(system, f, (x, y), pairs)).transpose()?;
    let solver = BatchSolver::new(
        &dev,
        (x, y),
        system.edge_kernel(),
        factors.as_ref(),
        (opts.precision, &opts.tuning),
        any_directed,
    )?;
    let settings = Settings {
        coupling: system.coupling(),
        tol: opts.tol,
        max_iter: opts.max_iters,
        want_x: opts.nodal,
        adjoint: want_grad,
    };
    let sizes: Vec<usize> = pairs.iter().map(|&(a, b)| x[a].num_nodes() * yy[b].num_nodes()).collect();
    let mut out = Vec::with_capacity(pairs.len());
    // launches of at most CHUNK product nodes (with at least one pair each), so that the
    // host and device vectors stay bounded however many pairs a call has
    let mut start = 0;
    while start < pairs.len() {
        let mut end = start + 1;
        let mut total = sizes[start];
        while end < pairs.len() && total + sizes[end] <= CHUNK {
            total += sizes[end];
            end += 1;
        }
        let chunk = Chunk { pairs: &pairs[start..end], sizes: &sizes[start..end], directed: &directed[start..end] };
        out.extend(solve_chunk(system, form.as_ref(), (x, yy), &solver, &chunk, &settings, opts)?);
        start = end;
    }
    Ok(out)
}

/// Product nodes per launch (three host vectors of f64 each: 1.5 GiB).
const CHUNK: usize = 1 << 26;

/// Consecutive pairs of a call solved in one launch.
struct Chunk<'a> {
    pairs: &'a [(usize, usize)],
    sizes: &'a [usize],
    directed: &'a [bool],
}

#[allow(clippy::type_complexity)] // the two graph sets of the call, as `solve_pairs` takes them
fn solve_chunk<N: GpuLabel, E: GpuLabel, S: PairSystem<N, E>>(
    system: &S,
    form: Option<&Factored<N>>,
    (x, yy): (&[Graph<N, E>], &[Graph<N, E>]),
    solver: &BatchSolver,
    chunk: &Chunk<'_>,
    settings: &Settings,
    opts: &PairSolve,
) -> Result<Vec<PairSolution>, PairSystemError> {
    let Chunk { pairs, sizes, directed } = *chunk;
    let offsets: Vec<usize> = sizes.iter().scan(0, |s, &n| Some(std::mem::replace(s, *s + n))).collect();
    let total: usize = sizes.iter().sum();
    let (mut d, mut b, mut o) = (Vec::new(), Vec::new(), Vec::new());
    match form {
        // generated on the device; the host needs o only where it reads x back
        Some(form) if settings.want_x || settings.adjoint => {
            o = vec![0.0; total];
            split(&mut o, sizes).into_par_iter().zip(pairs.par_iter()).try_for_each(|(o, &pair)| {
                let (g, h) = (&x[pair.0], &yy[pair.1]);
                let (fg, fh) = (node_vector(system, g, Part::Output), node_vector(system, h, Part::Output));
                form.fill(Part::Output, (g, h), &fg, &fh, o);
                match o.iter().position(|v| !v.is_finite()) {
                    Some(at) => Err(PairSystemError::NotFinite { pair, what: "output functional", at }),
                    None => Ok(()),
                }
            })?;
        }
        Some(_) => {}
        None => {
            (d, b, o) = (vec![0.0; total], vec![0.0; total], vec![0.0; total]);
            split(&mut d, sizes)
                .into_par_iter()
                .zip(split(&mut b, sizes))
                .zip(split(&mut o, sizes))
                .zip(pairs.par_iter())
                .try_for_each(|(((d, b), o), &pair)| {
                    fill_inputs(system, None, (&x[pair.0], &yy[pair.1]), pair, (d, b, o))
                })?;
        }
    }
    let batch = PairBatch { jobs: pairs, directed, offsets: &offsets, d: &d, b: &b, o: &o, total };
    let out = solver.solve(&batch, settings)?;
    (0..pairs.len())
        .into_par_iter()
        .map(|k| {
            let pair = pairs[k];
            let iterations = out.iterations[k] as usize;
            if out.status[k] != 0 {
                let what = if out.status[k] & 1 != 0 {
                    "the device's forward solve did not reach the tolerance within max_iters (or broke down: \
                     a non-positive curvature or a vanishing BiCGSTAB scalar)"
                } else {
                    "the device's adjoint solve did not reach the tolerance within max_iters (or met a \
                     non-positive curvature)"
                };
                let source = SolverError::Breakdown { iteration: iterations, what };
                return Err(PairSystemError::Solver { pair, source });
            }
            let r = offsets[k]..offsets[k] + sizes[k];
            match &out.x {
                Some(xs) => {
                    let adjoint = out.adjoint.as_ref().map(|(ys, kx)| (&ys[r.clone()], &kx[r.clone()]));
                    finish(system, (&x[pair.0], &yy[pair.1]), pair, &o[r.clone()], &xs[r], adjoint, iterations, opts)
                }
                None => {
                    let value = out.values[k];
                    if !value.is_finite() {
                        return Err(PairSystemError::NotFinite { pair, what: "value", at: 0 });
                    }
                    Ok(PairSolution { value, grad: Vec::new(), nodal: None, iterations })
                }
            }
        })
        .collect()
}

/// `v` cut into consecutive slices of `sizes`.
fn split<'a>(mut v: &'a mut [f64], sizes: &[usize]) -> Vec<&'a mut [f64]> {
    let mut out = Vec::with_capacity(sizes.len());
    for &n in sizes {
        let (head, tail) = std::mem::take(&mut v).split_at_mut(n);
        out.push(head);
        v = tail;
    }
    out
}

/// The per-node vectors of a factored system for the device (three per
/// node, in the order of the lists), each checked to be finite (an entry
/// that is not is reported for the first pair of `pairs` using its graph).
#[allow(clippy::type_complexity)] // the two graph sets of the call, as `solve_pairs` takes them
fn host_factors<N: Label, E: Label, S: PairSystem<N, E>>(
    system: &S,
    form: &Factored<N>,
    (x, y): (&[Graph<N, E>], Option<&[Graph<N, E>]>),
    pairs: &[(usize, usize)],
) -> Result<HostFactors<N>, PairSystemError> {
    let list = |gs: &[Graph<N, E>], second: bool| -> Result<Vec<f64>, PairSystemError> {
        let per: Vec<Vec<[f64; 3]>> = gs
            .par_iter()
            .map(|g| {
                let [d, b, o] = Part::ALL.map(|p| node_vector(system, g, p));
                (0..g.num_nodes()).map(|v| [d[v], b[v], o[v]]).collect()
            })
            .collect();
        for (k, f) in per.iter().enumerate() {
            if let Some(at) = f.iter().position(|v| !v.iter().all(|e| e.is_finite())) {
                let uses = |&&(a, b): &&(usize, usize)| if second || y.is_none() { b == k } else { false } || (!second && a == k);
                let pair = pairs.iter().find(uses).copied().unwrap_or((k, k));
                return Err(PairSystemError::NotFinite { pair, what: "node factor", at });
            }
        }
        Ok(per.into_iter().flatten().flatten().collect())
    };
    let power = [form.diagonal, form.rhs, form.output].map(|f| f.label.exponent());
    Ok(HostFactors {
        x: list(x, false)?,
        y: y.map(|y| list(y, true)).transpose()?,
        scale: [form.diagonal.scale, form.rhs.scale, form.output.scale],
        power,
        label: form.uses_labels().then(|| form.label_kernel.clone()).flatten(),
    })
}
