//! The generic Kronecker layer on the device (issue 33): device vectors under
//! the generic solvers, the device `KronProduct` against the CPU one, a
//! user's own Chebyshev iteration over it, and a user's own pair system
//! through `solve_pairs` on the device (one batched launch) equal to the CPU
//! f64 result (values, nodal outputs and gradients to 1e-12; directed
//! graphs; f32 to 1e-4), the MGK and the random walk through that path. The GPU tests skip without a GPU and fail
//! instead when `KRONOGRAPH_REQUIRE_GPU=1`; the CPU tests run everywhere.

use crate::device_common::gpu_or_skip;
use kronograph::basekernel::{Field, KroneckerDelta};
use kronograph::cuda::Backend;
use kronograph::graph::{Direction, FieldKind, Graph, GraphBuilder, Record, Schema, Value};
use kronograph::kron::{solve_pairs, solve_pairs_cpu, PairSolution, PairSolve, PairSystemError};
use kronograph::mgk::Precision;
use kronograph::rand::{Rng, SeedableRng};
use std::sync::Arc;

type G = Graph<u8, Record>;

/// A random undirected graph with integer edge labels, weights in [0.5, 2)
/// and (with `loops`) some self-loops.
fn random_graph(n: usize, seed: u64, loops: bool) -> G {
    let s = Arc::new(Schema::new().with("label", FieldKind::Int));
    let mut rng = kronograph::rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let labels = (0..n).map(|_| rng.random_range(0..3u8)).collect();
    let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(labels);
    for i in 0..n {
        for j in i..n {
            if (i != j || loops) && rng.random_bool(if i == j { 0.3 } else { 0.4 }) {
                let l = Record::new(s.clone(), [Value::Int(rng.random_range(0..2))]).unwrap();
                b.push_edge(i, j, rng.random_range(0.5..2.0), l);
            }
        }
    }
    b.build().unwrap()
}

fn kernel() -> Field<KroneckerDelta> {
    Field::new("label", KroneckerDelta::new(0.3))
}

// (D ⊗ D′ + 1 − c (W ⊗ W′) ⊙ κe) x = b, b_(i,i′) = 1 + β [v_i = v′_i′],
// value Σ x (1 + i′), θ = (c, β): the system of the CPU unit test (one copy, feature `testing`).
use kronograph::kron::testing::OwnSystem as Own;

fn graphs() -> Vec<G> {
    (0..6).map(|k| random_graph(3 + 4 * k, 40 + k as u64, k % 2 == 0)).collect()
}

fn all_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|a| (a..n).map(move |b| (a, b))).collect()
}

fn assert_same(gpu: &[PairSolution], cpu: &[PairSolution], tol: f64) {
    for (g, c) in gpu.iter().zip(cpu) {
        assert!((g.value - c.value).abs() <= tol * c.value.abs(), "value {} vs {}", g.value, c.value);
        assert_eq!(g.grad.len(), c.grad.len());
        for (a, b) in g.grad.iter().zip(&c.grad) {
            assert!((a - b).abs() <= tol * b.abs().max(1.0), "gradient {a} vs {b}");
        }
        let (gn, cn) = (g.nodal.as_ref().unwrap(), c.nodal.as_ref().unwrap());
        for (a, b) in gn.iter().zip(cn) {
            assert!((a - b).abs() <= tol * c.value.abs(), "nodal {a} vs {b}");
        }
    }
}

/// The one entry point: on the CPU backend `solve_pairs` is `solve_pairs_cpu`;
/// the CPU solver refuses a CUDA backend, and without a device a CUDA
/// backend is a typed error, never a silent CPU run.
#[test]
fn pair_system_one_entry_point() {
    let gs = graphs();
    let s = Own { kernel: kernel(), c: 0.2, beta: 0.7 };
    let opts = PairSolve { backend: Backend::Cpu, gradient: true, nodal: true, ..Default::default() };
    let pairs = all_pairs(gs.len());
    let cpu = solve_pairs_cpu(&s, &gs, None, &pairs, &opts).unwrap();
    assert_eq!(solve_pairs(&s, &gs, None, &pairs, &opts).unwrap(), cpu);
    let cuda = PairSolve { backend: Backend::Cuda(0), ..opts.clone() };
    assert!(matches!(solve_pairs_cpu(&s, &gs, None, &pairs, &cuda), Err(PairSystemError::GpuNotSupported)));
    if gpu_or_skip().is_none() {
        let e = solve_pairs(&s, &gs, None, &pairs, &cuda).unwrap_err();
        assert!(matches!(e, PairSystemError::Cuda(_)), "{e}");
    }
}

/// A random graph with integer edge labels and weights in [0.5, 2): edge
/// probability `p`, directed or not, a few self-loops.
fn random_graph_p(n: usize, seed: u64, p: f64, directed: bool) -> G {
    let s = Arc::new(Schema::new().with("label", FieldKind::Int));
    let mut rng = kronograph::rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let labels = (0..n).map(|_| rng.random_range(0..3u8)).collect();
    let dir = if directed { Direction::Directed } else { Direction::Undirected };
    let mut b = GraphBuilder::new(n, dir).node_labels(labels);
    for i in 0..n {
        for j in (if directed { 0 } else { i })..n {
            if rng.random_bool(if i == j { 0.1 } else { p }) {
                let l = Record::new(s.clone(), [Value::Int(rng.random_range(0..2))]).unwrap();
                b.push_edge(i, j, rng.random_range(0.5..2.0), l);
            }
        }
    }
    b.build().unwrap()
}

/// A user's pair system on the GPU, every pair in one batched launch, equals
/// the CPU f64 solve: values, nodal outputs and gradients (by adjoint
/// solves) to 1e-12 relative, over pairs whose vectors sit in shared
/// memory, in global memory (N > 2048), and whose graphs are staged in
/// global memory (over 200 KiB); misspelt fields, bad pairs and gradients
/// of directed pairs are typed errors.
#[test]
fn pair_system_gpu_matches_cpu() {
    let Some(ordinal) = gpu_or_skip() else { return };
    let mut gs = graphs();
    gs.push(random_graph_p(60, 7, 0.1, false)); // 3600 product nodes with itself: global vectors
    gs.push(random_graph_p(130, 8, 0.45, false)); // ~7600 entries: graphs staged in global memory
    let ys: Vec<G> = (0..3).map(|k| random_graph(5 + 3 * k, 90 + k as u64, true)).collect();
    let s = Own { kernel: kernel(), c: 0.2, beta: 0.7 };
    let cpu_opts = PairSolve { backend: Backend::Cpu, tol: 1e-14, gradient: true, nodal: true, ..Default::default() };
    let gpu_opts = PairSolve { backend: Backend::Cuda(ordinal), ..cpu_opts.clone() };
    let pairs = all_pairs(gs.len());
    let cpu = solve_pairs(&s, &gs, None, &pairs, &cpu_opts).unwrap();
    let gpu = solve_pairs(&s, &gs, None, &pairs, &gpu_opts).unwrap();
    assert_same(&gpu, &cpu, 1e-12);
    let xy: Vec<(usize, usize)> = (0..gs.len()).flat_map(|a| (0..ys.len()).map(move |b| (a, b))).collect();
    let cpu = solve_pairs(&s, &gs, Some(&ys), &xy, &cpu_opts).unwrap();
    let gpu = solve_pairs(&s, &gs, Some(&ys), &xy, &gpu_opts).unwrap();
    assert_same(&gpu, &cpu, 1e-12);
    // values only: no solution read back, the kernel's own oᵀx
    let values = PairSolve { gradient: false, nodal: false, ..gpu_opts.clone() };
    for (g, c) in solve_pairs(&s, &gs, None, &pairs, &values)
        .unwrap()
        .iter()
        .zip(&solve_pairs_cpu(&s, &gs, None, &pairs, &PairSolve { backend: Backend::Cpu, ..values.clone() }).unwrap())
    {
        assert!((g.value - c.value).abs() <= 1e-12 * c.value.abs(), "{} vs {}", g.value, c.value);
        assert!(g.nodal.is_none() && g.grad.is_empty());
    }
    println!("pair system GPU vs CPU: {} + {} pairs within 1e-12", pairs.len(), xy.len());
    // typed errors
    let bad = Own { kernel: Field::new("lable", KroneckerDelta::new(0.3)), c: 0.2, beta: 0.7 };
    let e = solve_pairs(&bad, &gs, None, &pairs, &gpu_opts).unwrap_err();
    assert!(e.to_string().contains("lable"), "{e}");
    let e = solve_pairs(&s, &gs, None, &[(0, 99)], &gpu_opts).unwrap_err();
    assert!(matches!(e, PairSystemError::PairIndex { index: 99, .. }), "{e}");
    let dg = vec![random_graph_p(4, 3, 0.5, true)];
    let e = solve_pairs(&s, &dg, None, &[(0, 0)], &gpu_opts).unwrap_err();
    assert!(matches!(e, PairSystemError::DirectedGradient { pair: (0, 0) }), "{e}");
    // too few iterations: a typed solver error naming the pair
    let few = PairSolve { max_iters: 1, ..gpu_opts.clone() };
    let e = solve_pairs(&s, &gs, None, &[(3, 3)], &few).unwrap_err();
    assert!(matches!(e, PairSystemError::Solver { pair: (3, 3), .. }), "{e}");
}

/// `PairSolve::tuning` reaches the device kernel: other knobs (one nonzero
/// per lane, the row-structured primitive for every tile pair, the
/// row-major XMV) give the CPU's values to 1e-12; a knob out of range is a
/// typed error naming it, before any device work.
#[test]
fn pair_system_tuning_changes_no_value() {
    use kronograph::mgk::Tuning;
    let Some(ordinal) = gpu_or_skip() else { return };
    let gs = graphs();
    let s = Own { kernel: kernel(), c: 0.2, beta: 0.7 };
    let pairs = all_pairs(gs.len());
    let cpu_opts = PairSolve { backend: Backend::Cpu, tol: 1e-14, gradient: true, nodal: true, ..Default::default() };
    let cpu = solve_pairs(&s, &gs, None, &pairs, &cpu_opts).unwrap();
    for tuning in [
        Tuning::default().with_lane_nz(Some(1)),
        Tuning::default().with_dense_min(0).with_xmv_csr(true),
        Tuning::default().with_lane_nz(Some(4)).with_dense_min(u32::MAX),
    ] {
        let gpu_opts = PairSolve { backend: Backend::Cuda(ordinal), tuning, ..cpu_opts.clone() };
        assert_same(&solve_pairs(&s, &gs, None, &pairs, &gpu_opts).unwrap(), &cpu, 1e-12);
    }
    let bad =
        PairSolve { backend: Backend::Cuda(ordinal), tuning: Tuning::default().with_block(Some(100)), ..cpu_opts };
    let e = solve_pairs(&s, &gs, None, &pairs, &bad).unwrap_err();
    assert!(matches!(e, PairSystemError::Tuning(_)), "{e}");
    assert!(e.to_string().contains("block"), "{e}");
}

/// A factored system (d, b and o generated on the device from per-node
/// vectors and the node-label kernel's generated CUDA form) equals the CPU
/// f64 solve to 1e-12 (values, nodal outputs, gradients), and the same
/// system stated densely per pair on the device; f32 to 1e-4; directed
/// pairs (BiCGSTAB) to 1e-12.
#[test]
fn factored_pair_system_gpu_matches_cpu() {
    use kronograph::kron::testing::{DenseOnly, FactoredSystem};
    let Some(ordinal) = gpu_or_skip() else { return };
    let mut gs = graphs();
    gs.push(random_graph_p(60, 7, 0.1, false)); // global vectors
    gs.push(random_graph_p(130, 8, 0.45, false)); // graphs staged in global memory
    let s = FactoredSystem::new(0.4, 0.05, 1.5, 0.8);
    let cpu_opts = PairSolve { backend: Backend::Cpu, tol: 1e-14, gradient: true, nodal: true, ..Default::default() };
    let gpu_opts = PairSolve { backend: Backend::Cuda(ordinal), ..cpu_opts.clone() };
    let pairs = all_pairs(gs.len());
    let cpu = solve_pairs(&s, &gs, None, &pairs, &cpu_opts).unwrap();
    let gpu = solve_pairs(&s, &gs, None, &pairs, &gpu_opts).unwrap();
    assert_same(&gpu, &cpu, 1e-12);
    let dense = solve_pairs(&DenseOnly(s.clone()), &gs, None, &pairs, &gpu_opts).unwrap();
    assert_same(&gpu, &dense, 1e-12);
    let ys: Vec<G> = (0..3).map(|k| random_graph(5 + 3 * k, 90 + k as u64, true)).collect();
    let xy: Vec<(usize, usize)> = (0..gs.len()).flat_map(|a| (0..ys.len()).map(move |b| (a, b))).collect();
    let cpu_xy = solve_pairs(&s, &gs, Some(&ys), &xy, &cpu_opts).unwrap();
    assert_same(&solve_pairs(&s, &gs, Some(&ys), &xy, &gpu_opts).unwrap(), &cpu_xy, 1e-12);
    // values only (no solution stored on the device)
    let values = PairSolve { gradient: false, nodal: false, ..gpu_opts.clone() };
    for (g, c) in solve_pairs(&s, &gs, None, &pairs, &values).unwrap().iter().zip(&cpu) {
        assert!((g.value - c.value).abs() <= 1e-12 * c.value.abs(), "{} vs {}", g.value, c.value);
    }
    let f32_opts =
        PairSolve { precision: Precision::F32, tol: 1e-6, gradient: false, nodal: false, ..gpu_opts.clone() };
    for (g, c) in solve_pairs(&s, &gs, None, &pairs, &f32_opts).unwrap().iter().zip(&cpu) {
        assert!((g.value - c.value).abs() <= 1e-4 * c.value.abs(), "f32 {} vs {}", g.value, c.value);
    }
    let dg: Vec<G> = (0..6).map(|k| random_graph_p(3 + 5 * k, 70 + k as u64, 0.3, k % 3 != 1)).collect();
    let dp: Vec<(usize, usize)> = (0..dg.len()).flat_map(|a| (0..dg.len()).map(move |b| (a, b))).collect();
    let dir_cpu = PairSolve { gradient: false, ..cpu_opts.clone() };
    let dir_gpu = PairSolve { gradient: false, ..gpu_opts.clone() };
    let cpu = solve_pairs(&s, &dg, None, &dp, &dir_cpu).unwrap();
    assert_same(&solve_pairs(&s, &dg, None, &dp, &dir_gpu).unwrap(), &cpu, 1e-12);
    println!("factored pair system GPU vs CPU: {} + {} + {} pairs", pairs.len(), xy.len(), dp.len());
}

/// Directed graphs (BiCGSTAB in the batched kernel) equal the CPU's
/// BiCGSTAB to 1e-12; f32 on the device equals the CPU f64 solve to 1e-4
/// relative (values and nodal outputs; f32 solves to a relative residual
/// of 1e-6) and its gradients to 1e-3.
#[test]
fn pair_system_gpu_directed_and_f32() {
    let Some(ordinal) = gpu_or_skip() else { return };
    let s = Own { kernel: kernel(), c: 0.2, beta: 0.7 };
    let dg: Vec<G> = (0..8).map(|k| random_graph_p(3 + 5 * k, 60 + k as u64, 0.3, k % 3 != 1)).collect();
    let pairs: Vec<(usize, usize)> = (0..dg.len()).flat_map(|a| (0..dg.len()).map(move |b| (a, b))).collect();
    let cpu_opts = PairSolve { backend: Backend::Cpu, tol: 1e-14, nodal: true, ..Default::default() };
    let gpu_opts = PairSolve { backend: Backend::Cuda(ordinal), ..cpu_opts.clone() };
    let cpu = solve_pairs(&s, &dg, None, &pairs, &cpu_opts).unwrap();
    let gpu = solve_pairs(&s, &dg, None, &pairs, &gpu_opts).unwrap();
    assert_same(&gpu, &cpu, 1e-12);
    let gs = graphs();
    let pairs = all_pairs(gs.len());
    let f64_opts = PairSolve { backend: Backend::Cpu, tol: 1e-14, gradient: true, nodal: true, ..Default::default() };
    let f32_opts =
        PairSolve { backend: Backend::Cuda(ordinal), precision: Precision::F32, tol: 1e-6, ..f64_opts.clone() };
    let cpu = solve_pairs(&s, &gs, None, &pairs, &f64_opts).unwrap();
    let gpu = solve_pairs(&s, &gs, None, &pairs, &f32_opts).unwrap();
    for (g, c) in gpu.iter().zip(&cpu) {
        assert!((g.value - c.value).abs() <= 1e-4 * c.value.abs(), "f32 value {} vs {}", g.value, c.value);
        for (a, b) in g.nodal.as_ref().unwrap().iter().zip(c.nodal.as_ref().unwrap()) {
            assert!((a - b).abs() <= 1e-4 * c.value.abs(), "f32 nodal {a} vs {b}");
        }
        for (a, b) in g.grad.iter().zip(&c.grad) {
            assert!((a - b).abs() <= 1e-3 * b.abs().max(1.0), "f32 gradient {a} vs {b}");
        }
    }
    let dirf32 = solve_pairs(&s, &dg, None, &[(2, 5), (5, 2)], &PairSolve { gradient: false, ..f32_opts }).unwrap();
    let dircpu = solve_pairs(&s, &dg, None, &[(2, 5), (5, 2)], &cpu_opts).unwrap();
    for (g, c) in dirf32.iter().zip(&dircpu) {
        assert!((g.value - c.value).abs() <= 1e-4 * c.value.abs(), "f32 directed {} vs {}", g.value, c.value);
    }
}

/// The marginalized graph kernel expressed as a pair system
/// ([`MgkPairSystem`]) through the generic path equals the kernel's own
/// Gram matrix to 1e-12, on the CPU and (when there is one) on the GPU; so
/// does the random-walk kernel's system (`KronSystem::random_walk`).
#[test]
fn mgk_and_random_walk_through_the_generic_path() {
    use kronograph::kron::Unlabeled;
    use kronograph::mgk::{KronSystem, MarginalizedGraphKernel, MgkPairSystem};
    let gs = graphs();
    let pairs = all_pairs(gs.len());
    let mgk =
        MarginalizedGraphKernel::new(KroneckerDelta::new(0.5), kernel(), 0.05).unwrap().with_tolerance(1e-13).unwrap();
    let rw = MarginalizedGraphKernel::new(Unlabeled, Unlabeled, 0.05)
        .unwrap()
        .with_system(Some(KronSystem::random_walk(1e-4)))
        .unwrap()
        .with_tolerance(1e-13)
        .unwrap();
    let mut backends = vec![Backend::Cpu];
    backends.extend(gpu_or_skip().map(Backend::Cuda));
    for backend in backends {
        let opts = PairSolve { backend, tol: 1e-14, ..Default::default() };
        let want = mgk.gram(&gs).unwrap();
        let got = solve_pairs(&MgkPairSystem::new(&mgk).unwrap(), &gs, None, &pairs, &opts).unwrap();
        for (r, &(a, b)) in got.iter().zip(&pairs) {
            assert!((r.value - want.get(a, b)).abs() <= 1e-12 * want.get(a, b), "MGK {backend:?} ({a}, {b})");
        }
        let want = rw.gram(&gs).unwrap();
        let got = solve_pairs(&MgkPairSystem::new(&rw).unwrap(), &gs, None, &pairs, &opts).unwrap();
        for (r, &(a, b)) in got.iter().zip(&pairs) {
            assert!((r.value - want.get(a, b)).abs() <= 1e-12 * want.get(a, b), "RW {backend:?} ({a}, {b})");
        }
    }
    let l1 = MarginalizedGraphKernel::<u8, Record, _, _>::new(KroneckerDelta::new(0.5), kernel(), 0.05)
        .unwrap()
        .with_lmin(1)
        .unwrap();
    assert!(MgkPairSystem::new(&l1).is_err());
}

#[cfg(feature = "cuda")]
mod device {
    use super::*;
    use kronograph::cuda::{DeviceVec, GpuDevice};
    use kronograph::kron::{DeviceKron, DeviceShiftedKron, KronApply, KronProduct, Octiles};
    use kronograph::solver::{
        bicgstab, cg, dense_solve, fixed_point, BicgstabParams, CgParams, FixedPointParams, IterParams, LinOp, Precond,
        SolveInfo, SolverError, Vector, Workspace,
    };

    fn random_vec(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = kronograph::rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n).map(|_| rng.random_range(-1.0..1.0)).collect()
    }

    fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)
    }

    /// Every `Vector` operation of `DeviceVec` equals the `Vec` one (f64:
    /// element-wise exact, reductions to 1e-13; f32 close).
    #[test]
    fn device_vector_matches_vec() {
        let Some(ordinal) = gpu_or_skip() else { return };
        let dev = GpuDevice::open(ordinal).unwrap();
        for n in [1usize, 7, 1000, 300_001] {
            let (x, y, m) = (random_vec(n, 1), random_vec(n, 2), random_vec(n, 3));
            let up = |v: &Vec<f64>| DeviceVec::from_host(&dev, v).unwrap();
            let (dx, dy, dm) = (up(&x), up(&y), up(&m));
            assert!((dx.dot(&dy) - x.dot(&y)).abs() <= 1e-13 * n as f64);
            let (mut a, mut da) = (y.clone(), up(&y));
            a.axpy(0.3, &x);
            da.axpy(0.3, &dx);
            a.xpay(&x, -1.7);
            da.xpay(&dx, -1.7);
            // NVRTC contracts a·x + y into one FMA: within an ulp or two
            assert!(max_abs_diff(&da.to_host().unwrap(), &a) <= 1e-15 * 8.0);
            a.mul_elems(&x, &m);
            da.mul_elems(&dx, &dm);
            assert_eq!(da.to_host().unwrap(), a);
            let (mut inv, mut dinv) = (m.clone(), up(&m));
            assert_eq!(inv.invert_elems(), dinv.invert_elems());
            assert_eq!(dinv.to_host().unwrap(), inv);
            let (mut xs, mut rs, mut zs) = (x.clone(), y.clone(), vec![0.0; n]);
            let (mut dxs, mut drs, mut dzs) = (up(&x), up(&y), up(&zs));
            let host = Vec::cg_update(&mut xs, &mut rs, &mut zs, &m, &y, Some(&x), 0.25);
            let devv = DeviceVec::cg_update(&mut dxs, &mut drs, &mut dzs, &dm, &dy, Some(&dx), 0.25);
            assert!(
                (host.0 - devv.0).abs() <= 1e-12 * host.0.abs()
                    && (host.1 - devv.1).abs() <= 1e-12 * host.1.abs().max(1.0)
            );
            assert!(max_abs_diff(&dxs.to_host().unwrap(), &xs) <= 1e-15 * 4.0);
            assert!(max_abs_diff(&dzs.to_host().unwrap(), &zs) <= 1e-15 * 4.0);
            let mut grown = up(&x);
            grown.resize(n + 5);
            let g = grown.to_host().unwrap();
            assert_eq!(&g[..n], &x[..]);
            assert!(g[n..].iter().all(|&v| v == 0.0));
            let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let dxf = DeviceVec::from_host(&dev, &xf).unwrap();
            assert!((dxf.dot(&dxf) - xf.dot(&xf)).abs() <= 1e-9 * n as f64);
        }
        let mut zero = DeviceVec::from_host(&dev, &[1.0, 0.0]).unwrap();
        assert!(!zero.invert_elems());
        assert!(zero.check().is_ok());
    }

    /// The device `KronProduct` applies the same operator as the CPU one
    /// (f64 to 1e-13, f32 to 1e-5), diagonal included (self-loops).
    #[test]
    fn device_kron_matches_cpu() {
        let Some(ordinal) = gpu_or_skip() else { return };
        let dev = GpuDevice::open(ordinal).unwrap();
        let (gs, kern) = (graphs(), kernel());
        for (a, b) in [(0, 0), (1, 2), (4, 5), (5, 5), (2, 4)] {
            let (g, h) = (&gs[a], &gs[b]);
            let (pg, ph) = (Octiles::<f64, _>::new(g), Octiles::<f64, _>::new(h));
            let cpu = KronProduct::new(&pg, &ph, &kern).unwrap();
            let n = cpu.dim();
            let x = random_vec(n, 7);
            let mut want = random_vec(n, 8);
            let mut dy = DeviceVec::from_host(&dev, &want).unwrap();
            cpu.apply_add(-0.6, &x, &mut want);
            let kron = DeviceKron::<f64>::of_pair(&dev, g, h, &kernel()).unwrap();
            assert_eq!(kron.dim(), n);
            kron.apply_add(-0.6, &DeviceVec::from_host(&dev, &x).unwrap(), &mut dy).unwrap();
            let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            assert!(max_abs_diff(&dy.to_host().unwrap(), &want) <= 1e-13 * scale, "pair ({a}, {b})");
            let (mut d_cpu, mut d_dev) = (vec![0.0; n], DeviceVec::zeros(&dev, n).unwrap());
            LinOp::diagonal(&cpu, &mut d_cpu).unwrap();
            LinOp::diagonal(&kron, &mut d_dev).unwrap();
            assert!(max_abs_diff(&d_dev.to_host().unwrap(), &d_cpu) <= 1e-14);
            let k32 = DeviceKron::<f32>::of_pair(&dev, g, h, &kernel()).unwrap();
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let mut y32 = DeviceVec::<f32>::zeros(&dev, n).unwrap();
            k32.apply_add(1.0, &DeviceVec::from_host(&dev, &x32).unwrap(), &mut y32).unwrap();
            let mut y64 = vec![0.0; n];
            cpu.apply_add(1.0, &x, &mut y64);
            let y32: Vec<f64> = y32.to_host().unwrap().iter().map(|&v| v as f64).collect();
            assert!(max_abs_diff(&y32, &y64) <= 1e-5 * scale.max(1.0));
        }
        let wrong = DeviceVec::zeros(&dev, 3).unwrap();
        let kron = DeviceKron::<f64>::of_pair(&dev, &gs[1], &gs[1], &kernel()).unwrap();
        assert!(kron.apply_add(1.0, &wrong, &mut wrong.zeros_like(3).unwrap()).is_err());
        let bad = Field::new("lable", KroneckerDelta::new(0.3));
        let e = DeviceKron::<f64>::of_pair(&dev, &gs[1], &gs[1], &bad).unwrap_err();
        assert!(e.to_string().contains("lable"), "{e}");
    }

    /// A user's Chebyshev iteration (Saad, Alg. 12.1), written once over the
    /// `Vector` and `LinOp` traits in twenty lines, runs over the device
    /// `KronProduct` and equals a dense solve.
    fn chebyshev<V: Vector>(
        op: &dyn LinOp<V>,
        b: &V,
        x: &mut V,
        [r, d, ad]: [&mut V; 3],
        (lo, hi): (f64, f64),
        it: &IterParams,
    ) -> Result<SolveInfo, SolverError> {
        let (theta, delta) = ((hi + lo) / 2.0, (hi - lo) / 2.0);
        let (sigma, bnorm, mut history) = (theta / delta, b.norm(), Vec::new());
        let mut rho = 1.0 / sigma;
        r.copy_from(b);
        x.fill(Default::default());
        d.fill(Default::default());
        d.axpy(1.0 / theta, r);
        for k in 1..=it.max_iters {
            x.axpy(1.0, d);
            op.apply(d, ad)?;
            r.axpy(-1.0, ad);
            if let Some(info) = it.step(k, r.norm(), bnorm, &mut history)? {
                return Ok(info);
            }
            let next = 1.0 / (2.0 * sigma - rho);
            d.xpay(r, next * rho);
            d.axpy(2.0 * next / delta - 1.0, r);
            rho = next;
        }
        Err(it.no_convergence(r.norm(), bnorm))
    }

    /// Chebyshev, CG, BiCGSTAB and the fixed point over the device operator
    /// `diag(d) − c A×` equal the dense solve.
    #[test]
    fn own_and_generic_solvers_over_device_kron() {
        let Some(ordinal) = gpu_or_skip() else { return };
        let dev = GpuDevice::open(ordinal).unwrap();
        let (gs, kern) = (graphs(), kernel());
        let (g, h) = (&gs[2], &gs[3]);
        let (pg, ph) = (Octiles::<f64, _>::new(g), Octiles::<f64, _>::new(h));
        let cpu = KronProduct::new(&pg, &ph, &kern).unwrap();
        let n = cpu.dim();
        let c = 0.3;
        // d = 1 + c Σ_j |A×_ij| (strictly dominant): Gershgorin bounds [1, 1 + 2 c R]
        let mut radius = vec![0.0; n];
        cpu.apply_add(1.0, &vec![1.0; n], &mut radius);
        let d: Vec<f64> = radius.iter().map(|r| 1.0 + c * r).collect();
        let b = random_vec(n, 11);
        let dense = cpu.to_dense();
        let mut a: Vec<f64> = dense.iter().map(|v| -c * v).collect();
        for i in 0..n {
            a[i * n + i] += d[i];
        }
        let want = dense_solve(n, &a, &b).unwrap();
        let kron = DeviceKron::<f64>::of_pair(&dev, g, h, &kernel()).unwrap();
        let dd = DeviceVec::from_host(&dev, &d).unwrap();
        let op = DeviceShiftedKron::new(&dd, c, &kron).unwrap();
        let db = DeviceVec::from_host(&dev, &b).unwrap();
        let zeros = || DeviceVec::<f64>::zeros(&dev, n).unwrap();
        let (mut x, mut r, mut p, mut q) = (zeros(), zeros(), zeros(), zeros());
        let hi = d.iter().zip(&radius).map(|(d, r)| d + c * r).fold(0.0, f64::max);
        let it = IterParams::new(1e-13, 20_000);
        chebyshev(&op, &db, &mut x, [&mut r, &mut p, &mut q], (1.0, hi), &it).unwrap();
        let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        assert!(max_abs_diff(&x.to_host().unwrap(), &want) <= 1e-11 * scale);
        let mut ws = Workspace::with_vectors(|| DeviceVec::zeros(&dev, 0).unwrap());
        let params = CgParams { iter: it.clone(), precond: Precond::Jacobi, ..Default::default() };
        cg(&op, &db, &mut x, &params, &mut ws).unwrap();
        assert!(max_abs_diff(&x.to_host().unwrap(), &want) <= 1e-11 * scale);
        bicgstab(&op, &db, &mut x, &BicgstabParams { iter: it.clone(), precond: Precond::Jacobi }, &mut ws).unwrap();
        assert!(max_abs_diff(&x.to_host().unwrap(), &want) <= 1e-11 * scale);
        fixed_point(&op, &db, &mut x, &FixedPointParams { iter: it, ..Default::default() }, &mut ws).unwrap();
        assert!(max_abs_diff(&x.to_host().unwrap(), &want) <= 1e-11 * scale);
        let short = zeros().zeros_like(n - 1).unwrap();
        assert!(DeviceShiftedKron::new(&short, c, &kron).is_err());
    }
}

/// The batched pair-system kernel and the random-walk series kernel of the
/// same source (`<name>_series`, `kernels/kron_series.cu`) compile with NVRTC
/// (no GPU needed) for unlabeled and record edge labels, in f32 and f64,
/// for sm_90 and sm_80.
#[cfg(feature = "cuda")]
#[test]
fn kron_pairs_kernel_compiles() {
    use kronograph::cuda::jit::{compile, options};
    use kronograph::cuda::label::{CType, LabelLayout};
    use kronograph::kron::Unlabeled;
    use kronograph::mgk::codegen::kron_pairs_source;
    use kronograph::mgk::Tuning;
    let t = Tuning::default();
    if !crate::nvrtc_common::nvrtc_or_skip() {
        return;
    }
    for p in [Precision::F32, Precision::F64] {
        let el = LabelLayout::record(&[("label".into(), CType::Int32)], p);
        let sources = [
            kron_pairs_source::<(), (), _, _>(&Unlabeled, &Unlabeled, &LabelLayout::Empty, &LabelLayout::Empty, p, &t)
                .unwrap(),
            kron_pairs_source::<Record, Record, _, _>(&Unlabeled, &kernel(), &LabelLayout::Empty, &el, p, &t).unwrap(),
            // a factored system's node-label kernel
            kron_pairs_source::<u8, Record, _, _>(
                &KroneckerDelta::new(0.5),
                &kernel(),
                &LabelLayout::Scalar(CType::Int32),
                &el,
                p,
                &t,
            )
            .unwrap(),
        ];
        for src in sources {
            for arch in [(9, 0), (8, 0)] {
                let image = compile(&src.source, &src.name, &crate::nvrtc_common::check_options(options(arch)))
                    .unwrap_or_else(|e| panic!("{} {p:?}: {e}\n--- source ---\n{}", src.name, src.source));
                assert!(image.len() > 1000);
                let series = format!("{}_series", src.name);
                assert!(image.windows(series.len()).any(|w| w == series.as_bytes()), "{series} not in the image");
            }
        }
    }
}
