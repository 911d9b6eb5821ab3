use super::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random SPD matrix `B Bᵀ + n I · shift`, row-major.
fn random_spd(n: usize, seed: u64, shift: f64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let b: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum::<f64>();
        }
        a[i * n + i] += shift;
    }
    a
}

fn random_vec(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(-1.0..1.0)).collect()
}

fn residual(a: &DenseOp<f64>, x: &Vec<f64>, b: &Vec<f64>) -> f64 {
    let mut ax = vec![0.0; b.len()];
    a.apply(x, &mut ax).unwrap();
    let r: f64 = ax.iter().zip(b).map(|(p, q)| (p - q) * (p - q)).sum::<f64>().sqrt();
    r / b.norm()
}

fn rel_err(x: &[f64], y: &[f64]) -> f64 {
    let d: f64 = x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
    d / y.iter().map(|v| v * v).sum::<f64>().sqrt()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn cg_matches_dense_solve(n in 1usize..24, seed in any::<u64>(), jacobi in any::<bool>()) {
        let a = random_spd(n, seed, 0.5);
        let b = random_vec(n, seed ^ 1);
        let op = DenseOp::new(n, a.clone());
        let mut x = vec![0.0; n];
        let mut ws = Workspace::new();
        let precond = if jacobi { Precond::Jacobi } else { Precond::Identity };
        let params = CgParams { iter: IterParams { record_history: true, ..Default::default() }, precond, ..Default::default() };
        let info = cg(&op, &b, &mut x, &params, &mut ws).unwrap();
        prop_assert!(info.rel_residual <= 1e-12);
        prop_assert_eq!(info.history.len(), info.iterations);
        prop_assert!(residual(&op, &x, &b) <= 1e-10);
        let xd = dense_solve(n, &a, &b).unwrap();
        prop_assert!(rel_err(&x, &xd) <= 1e-8, "{}", rel_err(&x, &xd));
    }

    #[test]
    fn bicgstab_matches_dense_solve_nonsymmetric(n in 1usize..24, seed in any::<u64>(), jacobi in any::<bool>()) {
        // diagonally dominant non-symmetric matrix
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut a: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
        for i in 0..n {
            a[i * n + i] = n as f64 + 1.0 + rng.random_range(0.0..2.0);
        }
        let b = random_vec(n, seed ^ 2);
        let op = DenseOp::new(n, a.clone());
        let mut x = vec![0.0; n];
        let mut ws = Workspace::new();
        let precond = if jacobi { Precond::Jacobi } else { Precond::Identity };
        let info = bicgstab(&op, &b, &mut x, &BicgstabParams { precond, ..Default::default() }, &mut ws).unwrap();
        prop_assert!(info.rel_residual <= 1e-12);
        prop_assert!(residual(&op, &x, &b) <= 1e-10);
        let xd = dense_solve(n, &a, &b).unwrap();
        prop_assert!(rel_err(&x, &xd) <= 1e-9);
    }

    #[test]
    fn fixed_point_matches_dense_solve(n in 1usize..16, seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut a: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
        for i in 0..n {
            a[i * n + i] = 2.0 * n as f64;
        }
        let b = random_vec(n, seed ^ 3);
        let op = DenseOp::new(n, a.clone());
        let mut x = vec![0.0; n];
        let mut ws = Workspace::new();
        let info = fixed_point(&op, &b, &mut x, &FixedPointParams::default(), &mut ws).unwrap();
        prop_assert!(info.rel_residual <= 1e-12);
        let xd = dense_solve(n, &a, &b).unwrap();
        prop_assert!(rel_err(&x, &xd) <= 1e-10);
    }
}

#[test]
fn cg_f32_reaches_f32_tolerance() {
    let n = 20;
    let a = random_spd(n, 7, 1.0);
    let b: Vec<f32> = random_vec(n, 8).iter().map(|&v| v as f32).collect();
    let op = DenseOp::new(n, a.iter().map(|&v| v as f32).collect());
    let mut x = vec![0f32; n];
    let mut ws = Workspace::new();
    let params = CgParams::new(1e-5, Precond::Jacobi);
    let info = cg(&op, &b, &mut x, &params, &mut ws).unwrap();
    assert!(info.rel_residual <= 1e-5);
    let xd = dense_solve(n, &a, &b.iter().map(|&v| v as f64).collect::<Vec<_>>()).unwrap();
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    assert!(rel_err(&x64, &xd) < 1e-3);
}

#[test]
fn cg_reports_indefinite() {
    // diag(1, -1)
    let op = DenseOp::new(2, vec![1.0, 0.0, 0.0, -1.0]);
    let b = vec![1.0, 1.0];
    let mut x = vec![0.0; 2];
    let err = cg(&op, &b, &mut x, &CgParams::default(), &mut Workspace::new()).unwrap_err();
    assert!(matches!(err, SolverError::NonPositiveDefinite { curvature, .. } if curvature <= 0.0), "{err}");
}

#[test]
fn cg_reports_no_convergence_with_residuals() {
    let n = 30;
    let a = random_spd(n, 3, 1e-3);
    let b = random_vec(n, 4);
    let op = DenseOp::new(n, a);
    let mut x = vec![0.0; n];
    let params = CgParams { iter: IterParams::new(1e-12, 2), ..Default::default() };
    match cg(&op, &b, &mut x, &params, &mut Workspace::new()).unwrap_err() {
        SolverError::NoConvergence { iterations, abs_residual, rel_residual, tol } => {
            assert_eq!(iterations, 2);
            assert!(rel_residual > tol && abs_residual > 0.0);
            assert!((abs_residual / b.norm() - rel_residual).abs() < 1e-12);
        }
        e => panic!("unexpected {e}"),
    }
}

#[test]
fn dimension_and_preconditioner_errors() {
    let op = DenseOp::new(2, vec![1.0, 0.0, 0.0, 1.0]);
    let mut x = vec![0.0; 3];
    let e = cg(&op, &vec![1.0, 1.0], &mut x, &CgParams::default(), &mut Workspace::new()).unwrap_err();
    assert!(matches!(e, SolverError::DimensionMismatch { what: "solution x", expected: 2, found: 3 }));
    // zero on the diagonal: Jacobi unavailable
    let op = DenseOp::new(2, vec![0.0, 1.0, 1.0, 0.0]);
    let mut x = vec![0.0; 2];
    let p = BicgstabParams { precond: Precond::Jacobi, ..Default::default() };
    let e = bicgstab(&op, &vec![1.0, 1.0], &mut x, &p, &mut Workspace::new()).unwrap_err();
    assert!(matches!(e, SolverError::Preconditioner(_)), "{e}");
}

#[test]
fn fixed_point_diverges_with_breakdown_or_no_convergence() {
    // Jacobi on a matrix that is not diagonally dominant diverges.
    let op = DenseOp::new(2, vec![1.0, 3.0, 3.0, 1.0]);
    let mut x = vec![0.0; 2];
    let p = FixedPointParams { iter: IterParams::new(1e-12, 5000), ..Default::default() };
    let e = fixed_point(&op, &vec![1.0, 0.5], &mut x, &p, &mut Workspace::new()).unwrap_err();
    assert!(matches!(e, SolverError::Breakdown { .. } | SolverError::NoConvergence { .. }), "{e}");
}

#[test]
fn bicgstab_breakdown_is_reported() {
    // A = [[0, 1], [-1, 0]] (skew), b = e1: r̂ᵀ A r = 0 at once.
    let op = DenseOp::new(2, vec![0.0, 1.0, -1.0, 0.0]);
    let mut x = vec![0.0; 2];
    let e = bicgstab(&op, &vec![1.0, 0.0], &mut x, &BicgstabParams::default(), &mut Workspace::new()).unwrap_err();
    assert!(matches!(e, SolverError::Breakdown { .. }), "{e}");
}

#[test]
fn zero_rhs_gives_zero() {
    let op = DenseOp::new(2, vec![2.0, 0.0, 0.0, 2.0]);
    let mut x = vec![5.0; 2];
    let info = cg(&op, &vec![0.0, 0.0], &mut x, &CgParams::default(), &mut Workspace::new()).unwrap();
    assert_eq!(info.iterations, 0);
    assert_eq!(x, vec![0.0, 0.0]);
}

#[test]
fn zero_rhs_gives_zero_for_every_solver() {
    let op = DenseOp::new(2, vec![2.0, 0.0, 0.0, 2.0]);
    let b = vec![0.0, 0.0];
    let mut x = vec![5.0; 2];
    let info = bicgstab(&op, &b, &mut x, &BicgstabParams::default(), &mut Workspace::new()).unwrap();
    assert_eq!((info.iterations, &x), (0, &vec![0.0, 0.0]));
    let mut x = vec![5.0; 2];
    let info = fixed_point(&op, &b, &mut x, &FixedPointParams::default(), &mut Workspace::new()).unwrap();
    assert_eq!((info.iterations, &x), (0, &vec![0.0, 0.0]));
}

#[test]
fn warm_start_is_used_and_checked() {
    let n = 12;
    let a = random_spd(n, 21, 1.0);
    let b = random_vec(n, 22);
    let op = DenseOp::new(n, a.clone());
    let exact = dense_solve(n, &a, &b).unwrap();
    // the exact answer as initial guess: no iteration at all
    let mut x = exact.clone();
    let cg_params =
        CgParams { iter: IterParams { zero_initial_guess: false, ..Default::default() }, ..Default::default() };
    let info = cg(&op, &b, &mut x, &cg_params, &mut Workspace::new()).unwrap();
    assert_eq!(info.iterations, 0);
    assert!(info.rel_residual <= 1e-12);
    let mut x = exact.clone();
    let bi_params =
        BicgstabParams { iter: IterParams { zero_initial_guess: false, ..Default::default() }, ..Default::default() };
    let info = bicgstab(&op, &b, &mut x, &bi_params, &mut Workspace::new()).unwrap();
    assert_eq!(info.iterations, 0);
    // a perturbed guess: the solvers start from it and still reach the answer
    let guess: Vec<f64> = exact.iter().map(|v| v + 0.1).collect();
    let mut x = guess.clone();
    cg(&op, &b, &mut x, &cg_params, &mut Workspace::new()).unwrap();
    assert!(rel_err(&x, &exact) < 1e-9);
    let mut x = guess;
    bicgstab(&op, &b, &mut x, &bi_params, &mut Workspace::new()).unwrap();
    assert!(rel_err(&x, &exact) < 1e-9);
}

#[test]
fn workspace_is_reused_without_growth() {
    let n = 10;
    let op = DenseOp::new(n, random_spd(n, 11, 1.0));
    let mut ws = Workspace::<Vec<f64>>::with_len(n);
    let ptr = ws.vecs[0].as_ptr();
    for s in 0..3 {
        let b = random_vec(n, s);
        let mut x = vec![0.0; n];
        cg(&op, &b, &mut x, &CgParams::default(), &mut ws).unwrap();
    }
    assert_eq!(ptr, ws.vecs[0].as_ptr());
}

#[test]
fn bicgstab_falls_back_to_the_fixed_point_iteration_on_breakdown() {
    // A = I − N with N = [[0, 2], [0, 0]] nilpotent (ρ(I − A) = 0 < 1), b = (1, 1):
    // r̂ᵀ A r̂ = 2 − 2 = 0, so BiCGSTAB breaks down at once ("r̂ᵀv vanished")
    let op = DenseOp::new(2, vec![1.0, -2.0, 0.0, 1.0]);
    let b = vec![1.0, 1.0];
    let mut x = vec![0.0f64; 2];
    let e = bicgstab(&op, &b, &mut x, &BicgstabParams::default(), &mut Workspace::new()).unwrap_err();
    assert!(matches!(e, SolverError::Breakdown { what: "r̂ᵀv vanished", .. }), "{e}");
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let s = seen.clone();
    let monitor = Some(Monitor::new(move |_, _| {
        s.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }));
    let p = BicgstabParams { iter: IterParams { monitor, ..Default::default() }, ..Default::default() };
    let info = bicgstab_or_fixed_point(&op, &b, &mut x, &p, &mut Workspace::new()).unwrap();
    assert!(info.rel_residual <= 1e-12);
    assert_eq!(x, vec![3.0, 1.0]);
    assert!(seen.load(std::sync::atomic::Ordering::Relaxed) >= info.iterations);
    // a convergent BiCGSTAB is not replaced
    let op = DenseOp::new(2, vec![4.0, 1.0, 2.0, 3.0]);
    let mut y = vec![0.0f64; 2];
    let a = bicgstab_or_fixed_point(&op, &vec![1.0, 2.0], &mut y, &BicgstabParams::default(), &mut Workspace::new())
        .unwrap();
    assert!(a.iterations <= 3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// The reductions (16 partial sums, explicit instruction-set builds)
    /// against plain sums, in f64 and f32; the builds against the portable
    /// body (same bits); the fused Jacobi CG pass against its five
    /// operations.
    #[test]
    fn reductions_match_plain_sums(n in 0usize..80, seed in any::<u64>(), a in -2.0f64..2.0) {
        let (x, y) = (random_vec(n, seed), random_vec(n, seed ^ 0x9e37));
        let (exact, size) = x.iter().zip(&y).fold((0.0, 0.0), |(s, t), (a, b)| (s + a * b, t + (a * b).abs()));
        let d = x.dot(&y);
        prop_assert!((d - exact).abs() <= 1e-14 * size + 1e-300);
        prop_assert_eq!(d.to_bits(), super::vector::dot_slices(&x, &y).to_bits());
        let (xf, yf): (Vec<f32>, Vec<f32>) = (x.iter().map(|&v| v as f32).collect(), y.iter().map(|&v| v as f32).collect());
        let exact32: f64 = xf.iter().zip(&yf).map(|(a, b)| *a as f64 * *b as f64).sum();
        prop_assert!((xf.dot(&yf) - exact32).abs() <= 1e-14 * size.max(1e-300) + 1e-12);
        // cg_update with Jacobi against the single operations
        let (p, q) = (random_vec(n, seed ^ 1), random_vec(n, seed ^ 2));
        let m: Vec<f64> = random_vec(n, seed ^ 3).iter().map(|v| 1.5 + v).collect();
        let (mut x1, mut r1, mut z1) = (x.clone(), y.clone(), vec![0.0; n]);
        let (rr, rz) = Vector::cg_update(&mut x1, &mut r1, &mut z1, &p, &q, Some(&m), a);
        let (mut x2, mut r2) = (x.clone(), y.clone());
        x2.axpy(a, &p);
        r2.axpy(-a, &q);
        let z2: Vec<f64> = r2.iter().zip(&m).map(|(r, m)| r * m).collect();
        prop_assert_eq!((&x1, &r1, &z1), (&x2, &r2, &z2));
        let rr2: f64 = r2.iter().map(|v| v * v).sum();
        let rz2: f64 = r2.iter().zip(&z2).map(|(a, b)| a * b).sum();
        let rzs: f64 = r2.iter().zip(&z2).map(|(a, b)| (a * b).abs()).sum();
        prop_assert!((rr - rr2).abs() <= 1e-14 * rr2 + 1e-300 && (rz - rz2).abs() <= 1e-14 * rzs + 1e-300);
        // invert_elems: 1/v where all are finite, false with a zero
        let mut inv = m.clone();
        prop_assert!(inv.invert_elems());
        prop_assert!(inv.iter().zip(&m).all(|(i, m)| *i == 1.0 / m));
        if n > 0 {
            let mut with_zero = m.clone();
            with_zero[seed as usize % n] = 0.0;
            prop_assert!(!with_zero.invert_elems());
        }
    }
}

/// A user's own preconditioner: the inverse of the exact diagonal given as
/// data, through the general path (not the fused Jacobi update).
struct OwnDiag(Vec<f64>, std::cell::Cell<usize>);

impl Preconditioner<Vec<f64>> for OwnDiag {
    fn apply(&self, r: &Vec<f64>, z: &mut Vec<f64>) -> Result<(), SolverError> {
        self.1.set(self.1.get() + 1);
        for ((z, r), d) in z.iter_mut().zip(r).zip(&self.0) {
            *z = r / d;
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// A user's preconditioner through `cg_with`/`bicgstab_with`/
    /// `fixed_point_with` gives the dense solution (relative error 1e-8)
    /// and the same iterations as the built-in Jacobi (which is the same
    /// M, fused into the update).
    #[test]
    fn own_preconditioner_matches_jacobi_and_dense(n in 1usize..20, seed in any::<u64>()) {
        let a = random_spd(n, seed, 0.5);
        let b = random_vec(n, seed ^ 7);
        let op = DenseOp::new(n, a.clone());
        let d: Vec<f64> = (0..n).map(|i| a[i * n + i]).collect();
        let xd = dense_solve(n, &a, &b).unwrap();
        let mut ws = Workspace::new();
        let mut own = OwnDiag(d.clone(), std::cell::Cell::new(0));
        let mut x = vec![0.0; n];
        let info = cg_with(&op, &b, &mut x, &mut own, &CgParams::default(), &mut ws).unwrap();
        prop_assert!(rel_err(&x, &xd) <= 1e-8, "{}", rel_err(&x, &xd));
        prop_assert!(own.1.get() > info.iterations);
        let mut y = vec![0.0; n];
        let jac = cg(&op, &b, &mut y, &CgParams::new(1e-12, Precond::Jacobi), &mut ws).unwrap();
        prop_assert!((info.iterations as i64 - jac.iterations as i64).abs() <= 1);
        let mut z = vec![0.0; n];
        bicgstab_with(&op, &b, &mut z, &mut own, &BicgstabParams::default(), &mut ws).unwrap();
        prop_assert!(rel_err(&z, &xd) <= 1e-8);
        let mut j = Jacobi::new();
        let mut w = vec![0.0; n];
        let fp = FixedPointParams { precond: Precond::Identity, ..Default::default() };
        // Jacobi converges on these only when diagonally dominant: compare on
        // a strictly dominant shift of A
        let mut dom = a.clone();
        for i in 0..n {
            let off: f64 = (0..n).filter(|&k| k != i).map(|k| a[i * n + k].abs()).sum();
            dom[i * n + i] = off + 1.0;
        }
        let dop = DenseOp::new(n, dom.clone());
        fixed_point_with(&dop, &b, &mut w, &mut j, &fp, &mut ws).unwrap();
        let wd = dense_solve(n, &dom, &b).unwrap();
        prop_assert!(rel_err(&w, &wd) <= 1e-8);
    }

    /// CG refuses a non-symmetric operator (an SPD matrix plus a skew part of
    /// relative size ≥ 1e-3) with `NotSymmetric`, and accepts every
    /// symmetric one (no false alarm from rounding).
    #[test]
    fn cg_refuses_non_symmetric(n in 2usize..20, seed in any::<u64>(), skew in 1e-3f64..1.0) {
        let mut a = random_spd(n, seed, 1.0);
        let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let op = DenseOp::new(n, a.clone());
        let b = random_vec(n, seed ^ 3);
        let mut x = vec![0.0; n];
        prop_assert!(cg(&op, &b, &mut x, &CgParams::default(), &mut Workspace::new()).is_ok());
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 5);
        for i in 0..n {
            for j in i + 1..n {
                let s = skew * scale * rng.random_range(0.5..1.0);
                a[i * n + j] += s;
                a[j * n + i] -= s;
            }
        }
        let op = DenseOp::new(n, a);
        let e = cg(&op, &b, &mut x, &CgParams::default(), &mut Workspace::new()).unwrap_err();
        prop_assert!(matches!(e, SolverError::NotSymmetric { defect } if defect > 1e-8), "{}", e);
        prop_assert!(e.to_string().contains("bicgstab"));
    }
}

/// Without the up-front probe, a non-symmetric operator on which CG fails is
/// still reported as not symmetric (not "raise max_iters").
#[test]
fn failing_cg_probes_symmetry() {
    // a rotation-like, non-symmetric matrix with positive symmetric part
    let op = DenseOp::new(3, vec![1.0, 5.0, 0.0, -5.0, 1.0, 2.0, 0.0, -2.0, 1.0]);
    let b = vec![1.0, 0.0, 0.0];
    let mut x = vec![0.0; 3];
    let p = CgParams { iter: IterParams::new(1e-12, 3), check_symmetry: false, ..Default::default() };
    let e = cg(&op, &b, &mut x, &p, &mut Workspace::new()).unwrap_err();
    assert!(matches!(e, SolverError::NotSymmetric { .. }), "{e}");
}

/// The public Krylov helpers: start, step bookkeeping, no-convergence.
#[test]
fn krylov_helpers() {
    let op = DenseOp::new(2, vec![2.0, 0.0, 0.0, 2.0]);
    let (mut x, mut r, mut s) = (vec![0.5, 0.5], vec![0.0; 2], vec![0.0; 2]);
    let b = vec![1.0, 1.0];
    assert!(matches!(krylov_start(&op, &b, &mut x, &mut r, &mut s, false, 1e-12).unwrap(), Start::Solved(_)));
    let st = krylov_start(&op, &b, &mut x, &mut r, &mut s, true, 1e-12).unwrap();
    assert_eq!(st, Start::Residual { bnorm: 2f64.sqrt(), rnorm: 2f64.sqrt() });
    let it = IterParams { record_history: true, ..IterParams::new(0.1, 5) };
    let mut h = Vec::new();
    assert!(it.step(1, 1.0, 2.0, &mut h).unwrap().is_none());
    let info = it.step(2, 0.1, 2.0, &mut h).unwrap().unwrap();
    assert_eq!((info.iterations, info.history), (2, vec![0.5, 0.05]));
    assert!(matches!(it.step(3, f64::NAN, 2.0, &mut h), Err(SolverError::Breakdown { .. })));
    assert!(matches!(it.no_convergence(1.0, 2.0), SolverError::NoConvergence { iterations: 5, .. }));
    assert!(matches!(
        check_dims(&op, &vec![1.0], &x),
        Err(SolverError::DimensionMismatch { what: "right-hand side b", .. })
    ));
    let (mut au, mut aw) = (vec![0.0; 2], vec![0.0; 2]);
    assert_eq!(symmetry_defect(&op, &b, &vec![1.0, -1.0], &mut au, &mut aw).unwrap(), 0.0);
}
