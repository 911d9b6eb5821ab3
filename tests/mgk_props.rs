//! Marginalized graph kernel: agreement with a dense direct solve and the
//! kernel's algebraic properties.
#![allow(clippy::needless_range_loop)]

use crate::mgk_common;

use kronograph::graph::{Direction, Graph};
use kronograph::mgk::{MarginalizedGraphKernel, MgkError, Precision, StartProbability};
use mgk_common::*;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

type Mgk = MarginalizedGraphKernel<u8, f64, Delta, SqExp>;

fn kernel(h: f64, l: f64, q: f64) -> Mgk {
    MarginalizedGraphKernel::new(Delta(h), SqExp(l), q).unwrap()
}

fn graphs(count: usize, seed: u64) -> Vec<Graph<u8, f64>> {
    (0..count).map(|k| random_path_graph(3 + (k * 5 + seed as usize) % 9, 0.3, seed * 100 + k as u64)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn matches_dense_direct_solve(
        n in 1usize..9, m in 1usize..9, p in 0.1f64..0.8, seed in any::<u64>(),
        h in 0.1f64..1.0, l in 0.1f64..2.0, q in 0.02f64..0.9, lmin in 0u32..2,
    ) {
        let g = random_graph(n, p, seed, Direction::Undirected);
        let hh = random_graph(m, p, seed ^ 0x55, Direction::Undirected);
        let pg: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64 * 0.25).collect();
        let ph: Vec<f64> = (0..m).map(|i| 1.0 + (i % 2) as f64 * 0.5).collect();
        let gs = g.clone().with_start_probabilities(pg.clone()).unwrap();
        let hs = hh.clone().with_start_probabilities(ph.clone()).unwrap();
        let k = kernel(h, l, q).with_lmin(lmin).unwrap().with_start(StartProbability::FromGraph).unwrap();
        let (want, want_nodal) = dense_mgk(&g, &hh, &Delta(h), &SqExp(l), q, &pg, &ph, lmin);
        let got = k.pair(&gs, &hs).unwrap();
        // lmin = 1 subtracts a term of the same size: compare on the scale of K(lmin = 0)
        let (scale, _) = dense_mgk(&g, &hh, &Delta(h), &SqExp(l), q, &pg, &ph, 0);
        prop_assert!((got - want).abs() <= 1e-10 * scale, "{got} vs {want}");
        // the same without the per-pair edge-value cache (κe on the fly)
        let lazy = k.clone().with_edge_cache_limit(0).pair(&gs, &hs).unwrap();
        prop_assert!((lazy - want).abs() <= 1e-10 * scale, "{lazy} vs {want}");
        let nodal = k.nodal(&gs, &hs).unwrap();
        prop_assert_eq!((nodal.rows(), nodal.cols()), (n, m));
        for (a, b) in nodal.as_slice().iter().zip(&want_nodal) {
            prop_assert!((a - b).abs() <= 1e-10 * scale);
        }
        // f32 agrees to single precision
        let k32 = k.clone().with_precision(Precision::F32);
        let got32 = k32.pair(&gs, &hs).unwrap();
        prop_assert!((got32 - want).abs() <= 1e-4 * scale, "{got32} vs {want}");
    }

    #[test]
    fn directed_graphs_match_dense_solve(n in 1usize..7, m in 1usize..7, seed in any::<u64>()) {
        let g = random_graph(n, 0.4, seed, Direction::Directed);
        let hh = random_graph(m, 0.4, seed ^ 9, Direction::Directed);
        let (want, _) = dense_mgk(&g, &hh, &Delta(0.5), &SqExp(0.7), 0.1, &vec![1.0; n], &vec![1.0; m], 0);
        let got = kernel(0.5, 0.7, 0.1).pair(&g, &hh).unwrap();
        prop_assert!(close(got, want, 1e-10), "{got} vs {want}");
    }

    #[test]
    fn invariant_under_node_permutation(n in 1usize..10, seed in any::<u64>()) {
        let g = random_graph(n, 0.4, seed, Direction::Undirected);
        let h = random_graph(6, 0.5, seed ^ 3, Direction::Undirected);
        let mut perm: Vec<usize> = (0..n).collect();
        perm.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        let gp = g.permute(&perm).unwrap();
        let k = kernel(0.3, 0.5, 0.05);
        let (a, b) = (k.pair(&g, &h).unwrap(), k.pair(&gp, &h).unwrap());
        prop_assert!(close(a, b, 1e-10), "{a} vs {b}");
    }
}

#[test]
fn gram_is_symmetric_psd_and_consistent() {
    let xs = graphs(9, 1);
    let k = kernel(0.4, 0.6, 0.1);
    let g = k.gram(&xs).unwrap();
    let n = xs.len();
    for a in 0..n {
        for b in 0..n {
            assert_eq!(g.get(a, b), g.get(b, a));
        }
    }
    // PSD: Cholesky of K + 1e-10·max(diag)·I succeeds
    let jitter = 1e-10 * (0..n).map(|a| g.get(a, a)).fold(0.0, f64::max);
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = g.get(i, j) + if i == j { jitter } else { 0.0 };
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                assert!(s > 0.0, "Gram matrix not PSD at {i}: {s}");
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    // gram_xy and diag agree with gram
    let xy = k.gram_xy(&xs[..4], &xs[2..]).unwrap();
    for a in 0..4 {
        for b in 0..n - 2 {
            assert!(close(xy.get(a, b), g.get(a, b + 2), 1e-12));
        }
    }
    let d = k.diag(&xs).unwrap();
    for a in 0..n {
        assert!(close(d[a], g.get(a, a), 1e-12));
    }
}

#[test]
fn normalized_diagonal_is_one() {
    let xs = graphs(6, 2);
    let k = kernel(0.5, 1.0, 0.2);
    let g = k.gram_normalized(&xs).unwrap();
    for a in 0..xs.len() {
        assert!((g.get(a, a) - 1.0).abs() < 1e-12);
        for b in 0..xs.len() {
            assert!(g.get(a, b) <= 1.0 + 1e-12 && g.get(a, b) > 0.0);
        }
    }
    let xy = k.gram_xy_normalized(&xs[..3], &xs).unwrap();
    for a in 0..3 {
        for b in 0..xs.len() {
            assert!(close(xy.get(a, b), g.get(a, b), 1e-12));
        }
    }
}

#[test]
fn lmin_identity_and_scaling_with_p() {
    let xs = graphs(5, 3);
    let f: Arc<dyn Fn(&u8) -> f64 + Send + Sync> = Arc::new(|l: &u8| 1.0 + *l as f64 / 10.0);
    let k0 = kernel(0.3, 0.8, 0.1).with_start(StartProbability::PerNode(f.clone())).unwrap();
    let k1 = k0.clone().with_lmin(1).unwrap();
    let (g0, g1) = (k0.gram(&xs).unwrap(), k1.gram(&xs).unwrap());
    for a in 0..xs.len() {
        for b in 0..xs.len() {
            let mut s = 0.0;
            for va in xs[a].node_labels() {
                for vb in xs[b].node_labels() {
                    s += f(va) * f(vb) * if va == vb { 1.0 } else { 0.3 };
                }
            }
            assert!(close(g0.get(a, b) - g1.get(a, b), s, 1e-10), "{a} {b}");
        }
    }
    // K scales with c² for a uniform start probability c
    for lmin in [0, 1] {
        let base = kernel(0.3, 0.8, 0.1).with_lmin(lmin).unwrap();
        let scaled = base.clone().with_start(StartProbability::Uniform(2.5)).unwrap();
        let (a, b) = (base.gram(&xs).unwrap(), scaled.gram(&xs).unwrap());
        for (x, y) in a.as_slice().iter().zip(b.as_slice()) {
            assert!(close(*y, 6.25 * x, 1e-10));
        }
    }
}

#[test]
fn gradient_matches_central_differences() {
    let xs = graphs(4, 4);
    for normalized in [false, true] {
        for lmin in [0, 1] {
            let k = kernel(0.4, 0.7, 0.1)
                .with_lmin(lmin)
                .unwrap()
                .with_q_bounds(kronograph::basekernel::Bounds::Range(0.01, 0.5))
                .unwrap();
            let (g, grad) = k.gram_with_gradient(&xs, normalized).unwrap();
            assert_eq!(grad.names(), &["node.h", "edge.scale", "q"]);
            let plain = if normalized { k.gram_normalized(&xs).unwrap() } else { k.gram(&xs).unwrap() };
            for (u, v) in g.as_slice().iter().zip(plain.as_slice()) {
                assert!(close(*u, *v, 1e-12), "{u} vs {v} normalized={normalized} lmin={lmin}");
            }
            // the cross version agrees with the symmetric one
            let (kxy, gxy) = k.gram_xy_with_gradient(&xs[..2], &xs, normalized).unwrap();
            for a in 0..2 {
                for b in 0..xs.len() {
                    assert!(close(kxy.get(a, b), g.get(a, b), 1e-12));
                    for t in 0..3 {
                        assert!((gxy.get(a, b, t) - grad.get(a, b, t)).abs() <= 1e-10 * g.get(a, b).abs().max(1e-3));
                    }
                }
            }
            let theta = k.theta();
            let eps = 1e-5;
            for t in 0..3 {
                let eval = |s: f64| {
                    let mut kk = k.clone();
                    let mut th = theta.clone();
                    th[t] *= s.exp();
                    kk.set_theta(&th).unwrap();
                    if normalized {
                        kk.gram_normalized(&xs).unwrap()
                    } else {
                        kk.gram(&xs).unwrap()
                    }
                };
                let (kp, km) = (eval(eps), eval(-eps));
                for a in 0..xs.len() {
                    for b in 0..xs.len() {
                        let fd = (kp.get(a, b) - km.get(a, b)) / (2.0 * eps);
                        let an = grad.get(a, b, t);
                        let scale = g.get(a, b).abs().max(1e-3);
                        assert!(
                            (fd - an).abs() <= 1e-6 * scale,
                            "θ{t} ({}) pair ({a},{b}) normalized={normalized} lmin={lmin}: fd {fd} analytic {an}",
                            grad.names()[t]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn range_and_parameter_errors() {
    let e = MarginalizedGraphKernel::<u8, f64, _, _>::new(Const(1.5), SqExp(1.0), 0.1).unwrap_err();
    assert!(matches!(e, MgkError::NodeKernelRange { max, .. } if max == 1.5), "{e}");
    let e = MarginalizedGraphKernel::<u8, f64, _, _>::new(Const(0.0), SqExp(1.0), 0.1).unwrap_err();
    assert!(matches!(e, MgkError::NodeKernelRange { .. }), "{e}");
    let e = MarginalizedGraphKernel::<u8, f64, _, _>::new(Delta(0.5), Const(2.0), 0.1).unwrap_err();
    assert!(matches!(e, MgkError::EdgeKernelRange { .. }), "{e}");
    assert!(e.to_string().contains("0 ≤ κe ≤ 1"));
    for q in [0.0, 1.0, -0.1, f64::NAN] {
        let e = MarginalizedGraphKernel::<u8, f64, _, _>::new(Delta(0.5), SqExp(1.0), q).unwrap_err();
        assert!(matches!(e, MgkError::InvalidQ(_)), "{e}");
    }
    let k = kernel(0.5, 1.0, 0.1);
    assert!(matches!(k.clone().with_lmin(2).unwrap_err(), MgkError::InvalidLmin(2)));
    assert!(k.clone().with_start(StartProbability::Uniform(-1.0)).is_err());
    // a per-node start probability that is negative is reported with graph and node
    let bad = k.with_start(StartProbability::PerNode(Arc::new(|_: &u8| -1.0))).unwrap();
    let e = bad.gram(&graphs(2, 5)).unwrap_err();
    assert!(matches!(e, MgkError::InvalidStart { graph: 0, node: 0, .. }), "{e}");
    // set_theta re-checks the node kernel range and leaves the kernel unchanged on error
    let mut k = kernel(0.5, 1.0, 0.1);
    assert!(k.set_theta(&[0.5, 1.0]).is_err());
    assert_eq!(k.theta(), vec![0.5, 1.0, 0.1]);
    // a solver that is not given enough iterations names the pair
    let k = kernel(0.5, 1.0, 0.01).with_max_iters(1);
    let e = k.gram(&graphs(3, 6)).unwrap_err();
    assert!(matches!(e, MgkError::Solver { .. }), "{e}");
}

#[test]
fn progress_is_reported_for_every_pair() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    let k = kernel(0.5, 1.0, 0.1).with_progress(Arc::new(move |done, total| {
        assert!(done <= total && total == 15);
        c.fetch_add(1, Ordering::Relaxed);
    }));
    k.gram(&graphs(5, 7)).unwrap();
    assert_eq!(count.load(Ordering::Relaxed), 15);
}

#[test]
fn empty_and_edgeless_graphs() {
    let e = random_graph(0, 0.5, 1, Direction::Undirected);
    let iso = random_graph(4, 0.0, 2, Direction::Undirected);
    let k = kernel(0.5, 1.0, 0.1);
    assert_eq!(k.pair(&e, &iso).unwrap(), 0.0);
    // isolated nodes: d = 1, r = κv; K = Σ κv (p = 1)
    let kk = k.pair(&iso, &iso).unwrap();
    let want: f64 = iso
        .node_labels()
        .iter()
        .flat_map(|a| iso.node_labels().iter().map(move |b| if a == b { 1.0 } else { 0.5 }))
        .sum();
    assert!(close(kk, want, 1e-12));
}

/// A node kernel declared in `[−1, 1]` (the cosine, GraphDot's normalized
/// `DotProduct`) is accepted on the CPU and checked on the data: where it
/// is positive it is used as is; a negative value is a typed error naming
/// the nodes. The static check (a `GpuGram` used directly, whose uploaded
/// graphs are not checked) still refuses it.
#[test]
fn signed_node_kernel_is_checked_on_the_data() {
    use kronograph::basekernel::{normalize, Constant, Polynomial};
    use kronograph::graph::GraphBuilder;
    let graph = |labels: Vec<f64>| -> Graph<f64, f64> {
        let n = labels.len();
        let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(labels);
        for i in 1..n {
            b.push_edge(i - 1, i, 1.0 + i as f64, 0.0);
        }
        b.build().unwrap()
    };
    let cos = normalize(Polynomial::new(0.0, 1));
    let k = MarginalizedGraphKernel::new(cos.clone(), Constant::new(1.0), 0.1).unwrap();
    // positive scalars: the cosine is 1 everywhere, the kernel that of κv = 1
    let pos = [graph(vec![0.5, 2.0, 1.0]), graph(vec![3.0, 0.25])];
    let ones = MarginalizedGraphKernel::new(Constant::new(1.0), Constant::new(1.0), 0.1).unwrap();
    let (a, b) = (k.gram(&pos).unwrap(), ones.gram(&pos).unwrap());
    assert!(max_rel(a.as_slice(), b.as_slice()) <= 1e-12);
    let neg = [graph(vec![0.5, -2.0]), graph(vec![1.0])];
    let e = k.gram_xy(&neg[..1], &neg[1..]).unwrap_err();
    assert!(matches!(e, MgkError::NodeKernelNegative { pair: (0, 0), at: (1, 0), value } if value == -1.0), "{e}");
    assert!(e.to_string().contains("non-negative features"), "{e}");
    let e = kronograph::mgk::system::check_ranges_static::<f64, f64, _, _>(&cos, &Constant::new(1.0)).unwrap_err();
    assert!(matches!(e, MgkError::NodeKernelRange { min, max } if min == -1.0 && max == 1.0), "{e}");
    // a kernel beyond [−1, 1] is still refused at once
    let e =
        MarginalizedGraphKernel::<f64, f64, _, _>::new(Polynomial::new(0.0, 1), Constant::new(1.0), 0.1).unwrap_err();
    assert!(matches!(e, MgkError::NodeKernelRange { .. }), "{e}");
}

/// The same on a GPU: the values are checked on the data by the one check
/// every backend gets (`system::check_node_kernel_values`), so the cosine
/// runs there (`cuda:N` and `auto`) and equals the CPU; a negative value is
/// the same typed error. Skips without a GPU; fails then with
/// `KRONOGRAPH_REQUIRE_GPU=1`.
#[test]
fn signed_node_kernel_is_checked_on_the_data_on_gpu() {
    use kronograph::basekernel::{normalize, Constant, Polynomial};
    use kronograph::cuda::Backend;
    use kronograph::graph::GraphBuilder;
    let Some(device) = gpu_or_skip() else { return };
    let graph = |labels: Vec<f64>| -> Graph<f64, f64> {
        let n = labels.len();
        let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(labels);
        for i in 1..n {
            b.push_edge(i - 1, i, 1.0 + i as f64, 0.0);
        }
        b.build().unwrap()
    };
    let k = MarginalizedGraphKernel::new(normalize(Polynomial::new(0.0, 1)), Constant::new(1.0), 0.1).unwrap();
    let pos = [graph(vec![0.5, 2.0, 1.0]), graph(vec![3.0, 0.25]), graph(vec![1.0, 1.5, 0.5, 2.0])];
    let cpu = k.gram(&pos).unwrap();
    for backend in [Backend::Cuda(device), Backend::Auto] {
        let gpu = k.gram_on(backend, &pos).unwrap();
        assert!(max_rel(cpu.as_slice(), gpu.as_slice()) <= 1e-9, "{backend}: {cpu:?} vs {gpu:?}");
        let d = k.diag_on(backend, &pos).unwrap();
        assert!(max_rel(&d, &k.diag(&pos).unwrap()) <= 1e-9);
    }
    let neg = [graph(vec![0.5, -2.0]), graph(vec![1.0])];
    let e = k.gram_xy_on(Backend::Cuda(device), &neg[..1], &neg[1..]).unwrap_err();
    assert!(
        matches!(e, kronograph::Error::Mgk(MgkError::NodeKernelNegative { pair: (0, 0), at: (1, 0), value }) if value == -1.0),
        "{e}"
    );
    assert!(e.to_string().contains("non-negative features"), "{e}");
}
