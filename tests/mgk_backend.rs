//! The marginalized graph kernel with the backend chosen per call
//! (`gram_on`, `gram_xy_on`, `diag_on` and the `_with_gradient_on` forms). The CPU parts run everywhere; the
//! GPU part skips without a GPU and fails instead when
//! `KRONOGRAPH_REQUIRE_GPU=1`.

use crate::mgk_common;
use mgk_common::{gpu_or_skip, max_rel};

use kronograph::basekernel::spec::SpecKernel;
use kronograph::cuda::Backend;
use kronograph::graph::io;
use kronograph::mgk::{MarginalizedGraphKernel, Precision, StartProbability};
use std::sync::Arc;

type Mgk = MarginalizedGraphKernel<kronograph::graph::Record, kronograph::graph::Record, SpecKernel, SpecKernel>;

fn mutag(first: usize) -> (Vec<kronograph::graph::Graph<kronograph::graph::Record, kronograph::graph::Record>>, Mgk) {
    let mut ds = io::load(format!("{}/data/MUTAG", env!("CARGO_MANIFEST_DIR"))).unwrap();
    ds.graphs.truncate(first);
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema).unwrap();
    // a start probability that depends on the label, so that the GPU path
    // must carry it over
    let start = StartProbability::PerNode(Arc::new(|l: &kronograph::graph::Record| {
        0.5 + 0.1 * l.at(0).as_f64().unwrap_or(0.0)
    }));
    let mgk = MarginalizedGraphKernel::new(kv, ke, 0.05).unwrap().with_lmin(1).unwrap().with_start(start).unwrap();
    (ds.graphs, mgk)
}

#[test]
fn cpu_backend_is_the_cpu_solver() {
    let (x, mgk) = mutag(6);
    let k = mgk.gram(&x).unwrap();
    assert_eq!(mgk.gram_on(Backend::Cpu, &x).unwrap(), k);
    assert_eq!(mgk.gram_xy_on(Backend::Cpu, &x[..2], &x[2..]).unwrap(), mgk.gram_xy(&x[..2], &x[2..]).unwrap());
    assert_eq!(mgk.diag_on(Backend::Cpu, &x).unwrap(), mgk.diag(&x).unwrap());
    if gpu_or_skip().is_none() {
        // no GPU: Auto falls back to the CPU, an explicit CUDA device is an error
        assert_eq!(mgk.gram_on(Backend::Auto, &x).unwrap(), k);
        let err = mgk.gram_on(Backend::Cuda(0), &x).unwrap_err();
        assert!(matches!(err, kronograph::Error::Cuda(_) | kronograph::Error::CudaNotCompiled), "{err}");
    }
}

/// Built without the `cuda` feature (`cargo test --no-default-features`, run
/// by scripts/test.sh): an explicit CUDA request is the typed
/// `CudaNotCompiled` error on every entry point, and `Auto` is the CPU's answer.
#[cfg(not(feature = "cuda"))]
#[test]
fn without_the_cuda_feature_cuda_requests_are_typed_errors() {
    let (x, mgk) = mutag(6);
    let not_compiled = |r: Result<_, kronograph::Error>| matches!(r, Err(kronograph::Error::CudaNotCompiled));
    assert!(not_compiled(mgk.gram_on(Backend::Cuda(0), &x).map(|_| ())));
    assert!(not_compiled(mgk.gram_xy_on(Backend::Cuda(0), &x[..2], &x[2..]).map(|_| ())));
    assert!(not_compiled(mgk.diag_on(Backend::Cuda(0), &x).map(|_| ())));
    assert!(matches!(kronograph::cuda::device_count(), Err(kronograph::cuda::CudaError::NotCompiled)));
    assert_eq!(mgk.gram_on(Backend::Auto, &x).unwrap(), mgk.gram(&x).unwrap());
}

#[test]
fn gpu_backend_agrees_with_the_cpu() {
    let Some(device) = gpu_or_skip() else { return };
    let (x, mgk) = mutag(24);
    // f32 solves to a relative residual of 1e-6 (the CPU's f32 default is
    // 1e-5) so that the values land within 1e-5 of the f64 reference
    for (precision, solve_tol, tol) in [(Precision::F64, 1e-12, 1e-10), (Precision::F32, 1e-6, 1e-5)] {
        let mgk = mgk.clone().with_precision(precision).with_tolerance(solve_tol).unwrap();
        let cpu = mgk.clone().with_precision(Precision::F64).gram(&x).unwrap();
        let gpu = mgk.gram_on(Backend::Cuda(device), &x).unwrap();
        let err = max_rel(cpu.as_slice(), gpu.as_slice());
        assert!(err <= tol, "{precision:?}: gram relative error {err:e}");
        let xy = mgk.gram_xy_on(Backend::Cuda(device), &x[..5], &x[5..]).unwrap();
        let cpu_xy = mgk.clone().with_precision(Precision::F64).gram_xy(&x[..5], &x[5..]).unwrap();
        let err = max_rel(cpu_xy.as_slice(), xy.as_slice());
        assert!(err <= tol, "{precision:?}: gram_xy relative error {err:e}");
        let d = mgk.diag_on(Backend::Cuda(device), &x).unwrap();
        let cpu_d = mgk.clone().with_precision(Precision::F64).diag(&x).unwrap();
        let err = max_rel(&cpu_d, &d);
        assert!(err <= tol, "{precision:?}: diag relative error {err:e}");
    }
}

/// Largest |a − b| per gradient slot over the largest |b| of that slot.
fn grad_err(gpu: &kronograph::mgk::Gradient, cpu: &kronograph::mgk::Gradient) -> f64 {
    assert_eq!(gpu.names(), cpu.names());
    assert_eq!((gpu.rows(), gpu.cols()), (cpu.rows(), cpu.cols()));
    let nt = cpu.names().len();
    let mut worst = 0.0f64;
    for t in 0..nt {
        let mut scale = 0.0f64;
        let mut diff = 0.0f64;
        for i in 0..cpu.rows() {
            for j in 0..cpu.cols() {
                let (a, b) = (gpu.get(i, j, t), cpu.get(i, j, t));
                assert!(a.is_finite(), "{}: non-finite GPU gradient at ({i}, {j})", cpu.names()[t]);
                scale = scale.max(b.abs());
                diff = diff.max((a - b).abs());
            }
        }
        worst = worst.max(diff / scale.max(f64::MIN_POSITIVE));
    }
    worst
}

#[test]
fn gpu_gradients_agree_with_the_cpu() {
    // labeled weighted synthetic graphs (the reference set-up's kernels), q trained, a fixed
    // hyperparameter (its slot must be left out), lmin 1 and label-dependent start probabilities
    let mut ds = io::load(format!("{}/data/synthetic/NWS96L", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
        .with_weights_from("attr0")
        .unwrap();
    ds.graphs.truncate(5);
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.7, fixed) * sqexp(attr1, 0.3)", &ds.edge_schema).unwrap();
    let start = StartProbability::PerNode(Arc::new(|l: &kronograph::graph::Record| {
        0.5 + 0.1 * l.at(0).as_f64().unwrap_or(0.0)
    }));
    let base = MarginalizedGraphKernel::new(kv, ke, 0.1)
        .unwrap()
        .with_q_bounds(kronograph::basekernel::Bounds::Range(1e-3, 0.5))
        .unwrap()
        .with_start(start)
        .unwrap();
    let x = &ds.graphs;
    // the CPU backend is the CPU gradient
    let (k, g) = base.gram_with_gradient(&x[..2], true).unwrap();
    assert_eq!(base.gram_with_gradient_on(Backend::Cpu, &x[..2], true).unwrap(), (k, g));
    let Some(device) = gpu_or_skip() else { return };
    for lmin in [0, 1] {
        let mgk = base.clone().with_lmin(lmin).unwrap();
        let reference = mgk.clone().with_precision(Precision::F64).with_tolerance(1e-13).unwrap();
        // f64 to 1e-12: gradients within 1e-9 of the slot's largest entry; f32 to 1e-6: 1e-4
        for (precision, solve_tol, tol) in [(Precision::F64, 1e-12, 1e-9), (Precision::F32, 1e-6, 1e-4)] {
            let mgk = mgk.clone().with_precision(precision).with_tolerance(solve_tol).unwrap();
            for normalized in [false, true] {
                let (kc, gc) = reference.gram_with_gradient(x, normalized).unwrap();
                let (kg, gg) = mgk.gram_with_gradient_on(Backend::Cuda(device), x, normalized).unwrap();
                assert_eq!(gg.names(), &["node.label.h", "edge.attr1.scale", "q"][..]);
                let ek = max_rel(kc.as_slice(), kg.as_slice());
                let eg = grad_err(&gg, &gc);
                eprintln!("lmin {lmin} {precision:?} normalized {normalized}: K {ek:.1e}, gradient {eg:.1e}");
                assert!(ek <= tol && eg <= tol, "lmin {lmin} {precision:?} normalized {normalized}: {ek:e} {eg:e}");
                let (kc, gc) = reference.gram_xy_with_gradient(&x[..2], &x[2..], normalized).unwrap();
                let (kg, gg) =
                    mgk.gram_xy_with_gradient_on(Backend::Cuda(device), &x[..2], &x[2..], normalized).unwrap();
                let (ek, eg) = (max_rel(kc.as_slice(), kg.as_slice()), grad_err(&gg, &gc));
                assert!(ek <= tol && eg <= tol, "xy lmin {lmin} {precision:?} normalized {normalized}: {ek:e} {eg:e}");
            }
            let (dc, gc) = reference.diag_with_gradient(x).unwrap();
            let (dg, gg) = mgk.diag_with_gradient_on(Backend::Cuda(device), x).unwrap();
            let scale = gc.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let eg = gc.iter().zip(&gg).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())) / scale;
            assert!(max_rel(&dc, &dg) <= tol && eg <= tol, "diag lmin {lmin} {precision:?}: {eg:e}");
        }
    }
}

#[test]
fn every_output_agrees_across_backends() {
    // the normalized forms and the nodal similarity, written once over the backend boundary:
    // the CPU backend is the CPU method, and the GPU agrees with it (f64 ≤ 1e-10, f32 ≤ 1e-5
    // relative) with the real base kernels, label-dependent start probabilities, lmin 1 and a
    // reordering (nodal outputs come back in the graphs' own node order)
    let (x, mgk) = mutag(10);
    let mgk = mgk.with_reorder(Some(kronograph::graph::reorder::Method::Rcm));
    let cpu_n = mgk.gram_normalized(&x).unwrap();
    assert_eq!(mgk.gram_normalized_on(Backend::Cpu, &x).unwrap(), cpu_n);
    assert!((0..x.len()).all(|a| (cpu_n.get(a, a) - 1.0).abs() < 1e-12));
    let cpu_xy = mgk.gram_xy_normalized(&x[..3], &x[3..]).unwrap();
    assert_eq!(mgk.gram_xy_normalized_on(Backend::Cpu, &x[..3], &x[3..]).unwrap(), cpu_xy);
    let cpu_nodal = mgk.nodal(&x[0], &x[1]).unwrap();
    assert_eq!(mgk.nodal_on(Backend::Cpu, &x[0], &x[1]).unwrap(), cpu_nodal);
    let Some(device) = gpu_or_skip() else { return };
    let gpu = Backend::Cuda(device);
    for (precision, tol) in [(Precision::F64, 1e-10), (Precision::F32, 1e-5)] {
        // the precision's default tolerance (1e-6 in f32) on both backends
        let m = mgk.clone().with_precision(precision);
        let n = m.gram_normalized_on(gpu, &x).unwrap();
        assert!(max_rel(cpu_n.as_slice(), n.as_slice()) <= tol, "{precision:?} gram_normalized");
        let xy = m.gram_xy_normalized_on(gpu, &x[..3], &x[3..]).unwrap();
        assert!(max_rel(cpu_xy.as_slice(), xy.as_slice()) <= tol, "{precision:?} gram_xy_normalized");
        let nodal = m.nodal_on(gpu, &x[0], &x[1]).unwrap();
        assert_eq!((nodal.rows(), nodal.cols()), (cpu_nodal.rows(), cpu_nodal.cols()));
        let scale = cpu_nodal.as_slice().iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let err = cpu_nodal.as_slice().iter().zip(nodal.as_slice()).fold(0.0f64, |a, (p, q)| a.max((p - q).abs()));
        assert!(err <= tol * scale, "{precision:?} nodal: {err:e} of {scale:e}");
        let cpu_f = m.gram(&x).unwrap();
        let gpu_f = m.gram_on(gpu, &x).unwrap();
        assert!(
            max_rel(cpu_f.as_slice(), gpu_f.as_slice()) <= 2.0 * tol,
            "{precision:?} gram at the default tolerance"
        );
    }
}

#[test]
fn gpu_reports_progress_per_launch() {
    let Some(device) = gpu_or_skip() else { return };
    let (x, mgk) = mutag(188);
    let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = calls.clone();
    let with = mgk.clone().with_progress(Arc::new(move |done, total| seen.lock().unwrap().push((done, total))));
    let k = with.gram_on(Backend::Cuda(device), &x).unwrap();
    let calls = calls.lock().unwrap().clone();
    let total = 188 * 189 / 2;
    assert!(calls.len() >= 2, "one call per launch, several launches: {calls:?}");
    assert!(calls.windows(2).all(|w| w[0].0 < w[1].0), "done grows: {calls:?}");
    assert!(calls.iter().all(|&(_, t)| t == total));
    assert_eq!(calls.last(), Some(&(total, total)));
    // the launches in parts give the Gram of one launch
    let one = mgk.gram_on(Backend::Cuda(device), &x).unwrap();
    let err = max_rel(one.as_slice(), k.as_slice());
    assert!(err <= 1e-12, "gram with progress differs by {err:e}");
}

/// Every output on a device set (of 1, 2 and 4 devices where they exist)
/// agrees with one device: the pairs are shared out in chunks (more pairs
/// than one chunk holds, so that several devices take part), each solved by
/// the same kernel; only the order of the XMV's floating-point atomic
/// additions and the shared/global placement, which depends on the launch,
/// differ (as between two one-device calls), so the values agree to the
/// solver's rounding: 1e-10 relative in f64 (tolerance 1e-12), 1e-5 in f32.
#[test]
fn device_sets_agree_with_one_device() {
    let Some(device) = gpu_or_skip() else { return };
    let (x, mgk) = mutag(188); // 17,766 pairs: several chunks
    for (precision, solve_tol, tol) in [(Precision::F64, 1e-12, 1e-10), (Precision::F32, 1e-6, 1e-5)] {
        let mgk = mgk.clone().with_precision(precision).with_tolerance(solve_tol).unwrap();
        let one = Backend::Cuda(device);
        let k1 = mgk.gram_on(one, &x).unwrap();
        let xy1 = mgk.gram_xy_on(one, &x[..60], &x[60..]).unwrap();
        let d1 = mgk.diag_on(one, &x).unwrap();
        let n1 = mgk.gram_normalized_on(one, &x[..80]).unwrap();
        let nodal1 = mgk.nodal_on(one, &x[3], &x[7]).unwrap();
        let (g1, gg1) = mgk.gram_with_gradient_on(one, &x[..72], false).unwrap();
        for set in mgk_common::device_sets() {
            let what = |w: &str| format!("{precision:?} on {set}: {w}");
            let k = mgk.gram_on(set, &x).unwrap();
            assert!(k.as_slice().iter().all(|v| v.is_finite()), "{}", what("gram finite"));
            let err = max_rel(k1.as_slice(), k.as_slice());
            assert!(err <= tol, "{} {err:e}", what("gram"));
            let err = max_rel(xy1.as_slice(), mgk.gram_xy_on(set, &x[..60], &x[60..]).unwrap().as_slice());
            assert!(err <= tol, "{} {err:e}", what("gram_xy"));
            let err = max_rel(&d1, &mgk.diag_on(set, &x).unwrap());
            assert!(err <= tol, "{} {err:e}", what("diag"));
            let err = max_rel(n1.as_slice(), mgk.gram_normalized_on(set, &x[..80]).unwrap().as_slice());
            assert!(err <= tol, "{} {err:e}", what("normalized"));
            // nodal entries (lmin = 1: differences of two terms) scaled by the largest
            let nodal = mgk.nodal_on(set, &x[3], &x[7]).unwrap();
            let scale = nodal1.as_slice().iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let diff = nodal1.as_slice().iter().zip(nodal.as_slice()).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            assert!(diff <= tol * scale, "{} {diff:e} of {scale:e}", what("nodal"));
            let (g, gg) = mgk.gram_with_gradient_on(set, &x[..72], false).unwrap();
            let err = max_rel(g1.as_slice(), g.as_slice());
            assert!(err <= tol, "{} {err:e}", what("gram with gradient"));
            let err = grad_err(&gg, &gg1);
            assert!(err <= 10.0 * tol, "{} {err:e}", what("gradient"));
        }
    }
}

/// A device set beyond the visible devices is the typed `NoDevice` error
/// naming the missing ordinal; so is `cuda:all` on a machine without GPU
/// (or `CudaNotCompiled` without the feature).
#[test]
fn device_sets_beyond_the_machine_are_typed_errors() {
    use kronograph::backend::{Backend, DeviceSet};
    use kronograph::cuda::CudaError;
    let (x, mgk) = mutag(4);
    let set = Backend::Devices(DeviceSet::of(&[0, 63]).unwrap());
    match mgk.gram_on(set, &x).unwrap_err() {
        kronograph::Error::Cuda(CudaError::NoDevice { requested: 63, .. }) => {}
        kronograph::Error::Cuda(CudaError::NoDevice { requested: 0, available: 0 }) => {}
        // no usable driver or no `cuda` feature: the machine has no GPU
        kronograph::Error::Cuda(_) | kronograph::Error::CudaNotCompiled => assert!(gpu_or_skip().is_none()),
        e => panic!("unexpected error {e}"),
    }
    if gpu_or_skip().is_none() {
        let err = mgk.gram_on(Backend::Devices(DeviceSet::All), &x).unwrap_err();
        assert!(matches!(err, kronograph::Error::Cuda(_) | kronograph::Error::CudaNotCompiled), "{err}");
    }
}
