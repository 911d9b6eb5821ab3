//! [`solve_pairs_gpu`](super::solve_pairs_gpu) on a CUDA device: a user's
//! [`PairSystem`] through the device Kronecker product ([`DeviceKronSet`])
//! and the generic solvers over [`DeviceVec`].

use super::pair_system::{cg_params, check_pairs, finish, inputs, wants_gradient};
use super::{DeviceKronSet, DeviceShiftedKron, PairSolution, PairSolve, PairSystem, PairSystemError};
use crate::cuda::{DeviceVec, GpuDevice, GpuLabel};
use crate::graph::Graph;
use crate::solver::{cg, SolverError, Workspace};

/// Solves every pair on device `ordinal`, one after the other, with one
/// upload of the graphs, one product kernel and one workspace.
pub(super) fn solve_pairs_device<N: GpuLabel, E: GpuLabel, S: PairSystem<N, E>>(
    system: &S,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
    pairs: &[(usize, usize)],
    opts: &PairSolve,
    ordinal: usize,
) -> Result<Vec<PairSolution>, PairSystemError> {
    let yy = y.unwrap_or(x);
    check_pairs(pairs, x.len(), yy.len())?;
    let dev = GpuDevice::open(ordinal)?;
    let set = DeviceKronSet::<f64, E, S::EdgeKernel>::upload(&dev, x, y, system.edge_kernel())?;
    let mut made = (0..8).map(|_| DeviceVec::zeros(&dev, 0)).collect::<Result<Vec<_>, _>>()?.into_iter();
    let mut ws = Workspace::with_vectors(|| made.next().expect("eight vectors were made"));
    let zeros = |n: usize| DeviceVec::<f64>::zeros(&dev, n);
    let mut out = Vec::with_capacity(pairs.len());
    for &pair in pairs {
        let (g, h) = (&x[pair.0], &yy[pair.1]);
        let want_grad = wants_gradient(system, false, pair, opts)?;
        let (d, rhs, o) = inputs(system, g, h, pair)?;
        let dim = d.len();
        let kron = set.pair(pair.0, pair.1)?;
        let d_dev = DeviceVec::from_host(&dev, &d)?;
        let op = DeviceShiftedKron::new(&d_dev, system.coupling(), &kron)
            .map_err(|source| PairSystemError::Solver { pair, source })?;
        let solve = |b: &[f64], ws: &mut Workspace<DeviceVec<f64>>| -> Result<_, PairSystemError> {
            let b = DeviceVec::from_host(&dev, b)?;
            let mut x = zeros(dim)?;
            let info = cg(&op, &b, &mut x, &cg_params(opts), ws).map_err(|source| solver_error(pair, &x, source))?;
            Ok((x, info))
        };
        let (x_dev, info) = solve(&rhs, &mut ws)?;
        let xs = x_dev.to_host()?;
        let adjoint = if want_grad {
            // Aᵀ y = o (A is symmetric: the device path takes undirected graphs only)
            let ys = solve(&o, &mut ws)?.0.to_host()?;
            let mut kx = zeros(dim)?;
            kron.apply_add(1.0, &x_dev, &mut kx)?;
            Some((ys, kx.to_host()?))
        } else {
            None
        };
        let adjoint = adjoint.as_ref().map(|(ys, kx)| (ys.as_slice(), kx.as_slice()));
        out.push(finish(system, (g, h), pair, &o, &xs, adjoint, info.iterations, opts)?);
    }
    Ok(out)
}

/// A failed solve: a kept CUDA error of the vector operations if there is
/// one (the real cause of a breakdown), else the solver's report.
fn solver_error(pair: (usize, usize), v: &DeviceVec<f64>, source: SolverError) -> PairSystemError {
    match v.check() {
        Err(e) => e.into(),
        Ok(()) => PairSystemError::Solver { pair, source },
    }
}
