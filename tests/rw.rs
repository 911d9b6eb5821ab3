//! Geometric random-walk kernels against dense inverses.
#![allow(clippy::needless_range_loop)]

use crate::mgk_common;
#[cfg(feature = "cuda")]
use crate::nvrtc_common;

use kronograph::graph::{Direction, Graph};
use kronograph::mgk::MgkError;
use kronograph::rw::{RandomWalkKernel, RwMethod};
use kronograph::solver::dense_solve;
use mgk_common::*;
use proptest::prelude::*;

/// The dense product `M = W ⊗ W'` restricted to the node pairs the kernel
/// keeps (all, or equal labels): `(dimension, M row-major)`.
pub(crate) fn dense_product(g: &Graph<u8, f64>, h: &Graph<u8, f64>, labeled: bool) -> (usize, Vec<f64>) {
    let (n, m) = (g.num_nodes(), h.num_nodes());
    let (wg, wh) = (g.to_dense(), h.to_dense());
    let nodes: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (0..m).map(move |ip| (i, ip)))
        .filter(|&(i, ip)| !labeled || g.node_labels()[i] == h.node_labels()[ip])
        .collect();
    let d = nodes.len();
    let mut w = vec![0.0; d * d];
    for (r, &(i, ip)) in nodes.iter().enumerate() {
        for (c, &(j, jp)) in nodes.iter().enumerate() {
            w[r * d + c] = wg[i * n + j] * wh[ip * m + jp];
        }
    }
    (d, w)
}

/// `I − λ M`.
fn shifted(d: usize, w: &[f64], lambda: f64) -> Vec<f64> {
    (0..d * d).map(|k| if k % (d + 1) == 0 { 1.0 } else { 0.0 } - lambda * w[k]).collect()
}

/// 1ᵀ (I − λ M)⁻¹ 1 for the dense product M restricted as in [`dense_product`].
fn dense_rw(g: &Graph<u8, f64>, h: &Graph<u8, f64>, lambda: f64, labeled: bool) -> f64 {
    let (d, w) = dense_product(g, h, labeled);
    if d == 0 {
        return 0.0;
    }
    dense_solve(d, &shifted(d, &w, lambda), &vec![1.0; d]).unwrap().iter().sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn unlabeled_matches_dense_inverse(n in 1usize..10, m in 1usize..10, seed in any::<u64>(), frac in 0.05f64..0.9) {
        let g = random_graph(n, 0.5, seed, Direction::Undirected);
        let h = random_graph(m, 0.5, seed ^ 1, Direction::Undirected);
        let lambda = frac * RandomWalkKernel::lambda_limit(&g, &h).min(1e3);
        let want = dense_rw(&g, &h, lambda, false);
        for method in [RwMethod::Auto, RwMethod::Series, RwMethod::Solver] {
            let k = RandomWalkKernel::new(lambda).unwrap().with_method(method);
            let got = k.pair(&g, &h).unwrap();
            prop_assert!(close(got, want, 1e-10), "{method:?}: {got} vs {want}");
        }
    }

    #[test]
    fn labeled_matches_dense_inverse(n in 1usize..10, m in 1usize..10, seed in any::<u64>(), frac in 0.05f64..0.9) {
        let g = random_graph(n, 0.5, seed, Direction::Undirected);
        let h = random_graph(m, 0.5, seed ^ 2, Direction::Undirected);
        let lambda = frac * RandomWalkKernel::lambda_limit(&g, &h).min(1e3);
        let want = dense_rw(&g, &h, lambda, true);
        let k = RandomWalkKernel::new(lambda).unwrap();
        let got = k.gram_xy_labeled(std::slice::from_ref(&g), std::slice::from_ref(&h)).unwrap().get(0, 0);
        prop_assert!(close(got, want, 1e-10), "{got} vs {want}");
    }

    #[test]
    fn directed_unlabeled_matches_dense_inverse(n in 1usize..8, m in 1usize..8, seed in any::<u64>()) {
        let g = random_graph(n, 0.4, seed, Direction::Directed);
        let h = random_graph(m, 0.4, seed ^ 3, Direction::Directed);
        let lambda = 0.02;
        let want = dense_rw(&g, &h, lambda, false);
        let got = RandomWalkKernel::new(lambda).unwrap().pair(&g, &h).unwrap();
        prop_assert!(close(got, want, 1e-10), "{got} vs {want}");
        let want = dense_rw(&g, &h, lambda, true);
        let k = RandomWalkKernel::new(lambda).unwrap();
        let got = k.gram_xy_labeled(std::slice::from_ref(&g), std::slice::from_ref(&h)).unwrap().get(0, 0);
        prop_assert!(close(got, want, 1e-10), "labeled: {got} vs {want}");
    }
}

/// `λ ∂k/∂λ` by the dense formula `λ 1ᵀ A⁻¹ M A⁻¹ 1` (`A = I − λ M`, `M`
/// the product restricted as in [`dense_rw`]), with a central difference of
/// [`dense_rw`] as a second check.
fn dense_rw_log_derivative(g: &Graph<u8, f64>, h: &Graph<u8, f64>, lambda: f64, labeled: bool) -> f64 {
    let (d, w) = dense_product(g, h, labeled);
    if d == 0 {
        return 0.0;
    }
    let a = shifted(d, &w, lambda);
    let x = dense_solve(d, &a, &vec![1.0; d]).unwrap();
    let wx: Vec<f64> = (0..d).map(|r| (0..d).map(|c| w[r * d + c] * x[c]).sum()).collect();
    let z = dense_solve(d, &a, &wx).unwrap();
    let exact = lambda * z.iter().sum::<f64>();
    let e = 1e-5 * lambda;
    let fd = lambda * (dense_rw(g, h, lambda + e, labeled) - dense_rw(g, h, lambda - e, labeled)) / (2.0 * e);
    assert!(close(exact, fd, 1e-5), "dense derivative {exact} vs central difference {fd}");
    exact
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn log_lambda_gradient_matches_dense(
        n in 1usize..9, m in 1usize..9, seed in any::<u64>(), frac in 0.05f64..0.9, directed in any::<bool>()
    ) {
        let dir = if directed { Direction::Directed } else { Direction::Undirected };
        let xs = vec![random_graph(n, 0.5, seed, dir), random_graph(m, 0.5, seed ^ 5, dir)];
        let ys = vec![random_graph(m, 0.4, seed ^ 7, dir)];
        let limit = xs.iter().chain(&ys).flat_map(|g| xs.iter().chain(&ys).map(move |h| RandomWalkKernel::lambda_limit(g, h)))
            .fold(f64::INFINITY, f64::min);
        // directed pairs are refused above the upper bounds' limit: stay well below it
        let lambda = if directed { 0.5 * frac } else { frac } * limit.min(1e3);
        for labeled in [false, true] {
            for method in [RwMethod::Auto, RwMethod::Solver] {
                let k = RandomWalkKernel::new(lambda).unwrap().with_method(method);
                let (v, d) = k.gram_with_gradient(&xs, None, labeled).unwrap();
                let (vxy, dxy) = k.gram_with_gradient(&xs, Some(&ys), labeled).unwrap();
                let plain = if labeled { k.gram_labeled(&xs).unwrap() } else { k.gram(&xs).unwrap() };
                for i in 0..2 {
                    for j in 0..2 {
                        prop_assert_eq!(v.get(i, j), plain.get(i, j));
                        let want = dense_rw_log_derivative(&xs[i], &xs[j], lambda, labeled);
                        prop_assert!(close(d.get(i, j), want, 1e-8), "{method:?} labeled {labeled}: {} vs {want}", d.get(i, j));
                        prop_assert!(d.get(i, j) >= 0.0);
                    }
                    let want = dense_rw_log_derivative(&xs[i], &ys[0], lambda, labeled);
                    prop_assert!(close(dxy.get(i, 0), want, 1e-8), "xy {method:?} labeled {labeled}: {} vs {want}", dxy.get(i, 0));
                    prop_assert!(close(vxy.get(i, 0), dense_rw(&xs[i], &ys[0], lambda, labeled), 1e-10));
                }
            }
        }
    }
}

#[test]
fn gram_is_symmetric_and_matches_pairs() {
    let xs: Vec<_> = (0..6).map(|k| random_graph(4 + k, 0.5, k as u64, Direction::Undirected)).collect();
    let k = RandomWalkKernel::new(0.01).unwrap();
    for labeled in [false, true] {
        let g = if labeled { k.gram_labeled(&xs).unwrap() } else { k.gram(&xs).unwrap() };
        for a in 0..xs.len() {
            for b in 0..xs.len() {
                assert_eq!(g.get(a, b), g.get(b, a));
                assert!(close(g.get(a, b), dense_rw(&xs[a], &xs[b], 0.01, labeled), 1e-10));
            }
        }
    }
}

#[test]
fn lambda_too_large_is_a_clear_error() {
    // complete graph K4: ρ = 3 (unit weights); λ ρ² = 4.5 > 1
    let mut b = kronograph::graph::GraphBuilder::<u8, f64>::new(4, Direction::Undirected).node_labels(vec![0; 4]);
    for i in 0..4 {
        for j in i + 1..4 {
            b.push_edge(i, j, 1.0, 0.0);
        }
    }
    let g = b.build().unwrap();
    assert!((RandomWalkKernel::spectral_radius_bound(&g) - 3.0).abs() < 1e-9);
    for method in [RwMethod::Auto, RwMethod::Solver] {
        let e = RandomWalkKernel::new(0.5).unwrap().with_method(method).gram(&[g.clone(), g.clone()]).unwrap_err();
        assert!(matches!(e, MgkError::LambdaTooLarge { .. }), "{e}");
        assert!(e.to_string().contains("λ < 1 / (ρ(W) ρ(W'))"), "{e}");
    }
    let e = RandomWalkKernel::new(0.5).unwrap().gram_labeled(std::slice::from_ref(&g)).unwrap_err();
    assert!(matches!(e, MgkError::LambdaTooLarge { .. }), "{e}");
    assert!(RandomWalkKernel::new(-1.0).is_err());
    assert!(RandomWalkKernel::new(f64::NAN).is_err());
}

#[test]
fn backends_agree() {
    use kronograph::backend::{Backend, Precision};
    // random weighted undirected graphs and a bundled set; λ at half the bound
    let x: Vec<Graph<u8, f64>> =
        (0..8).map(|s| random_graph(4 + s as usize, 0.4, 70 + s, Direction::Undirected)).collect();
    let rho = x.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
    let k = RandomWalkKernel::new(0.5 / (rho * rho)).unwrap();
    let cpu = k.gram(&x).unwrap();
    assert_eq!(k.gram_on(Backend::Cpu, &x).unwrap(), cpu);
    assert_eq!(k.gram_xy_on(Backend::Cpu, &x[..3], &x[3..]).unwrap(), k.gram_xy(&x[..3], &x[3..]).unwrap());
    assert_eq!(k.gram_labeled_on(Backend::Cpu, &x).unwrap(), k.gram_labeled(&x).unwrap());
    // without a usable GPU, an explicit CUDA request is a typed CUDA error (never Unsupported)
    if kronograph::cuda::device_count().map_or(true, |n| n == 0) {
        for r in [k.gram_labeled_on(Backend::Cuda(0), &x), k.gram_on(Backend::Cuda(0), &x)] {
            assert!(
                matches!(r, Err(kronograph::Error::Cuda(_) | kronograph::Error::CudaNotCompiled)),
                "{:?}",
                r.map(|_| ())
            );
        }
    }
    let Some(device) = gpu_or_skip() else { return };
    let ds = kronograph::graph::io::load(format!("{}/data/synthetic/NWS96L", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let y = &ds.graphs[..16];
    let rho_y = y.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
    let ky = RandomWalkKernel::new(0.5 / (rho_y * rho_y)).unwrap();
    let cpu_y = ky.gram(y).unwrap();
    for (precision, tol) in [(Precision::F64, 1e-10), (Precision::F32, 1e-5)] {
        let gpu = k.clone().with_precision(precision).gram_on(Backend::Cuda(device), &x).unwrap();
        let err = max_rel(cpu.as_slice(), gpu.as_slice());
        assert!(err <= tol, "{precision:?} random graphs: {err:e}");
        let xy = k.clone().with_precision(precision).gram_xy_on(Backend::Cuda(device), &x[..3], &x[3..]).unwrap();
        let err = max_rel(k.gram_xy(&x[..3], &x[3..]).unwrap().as_slice(), xy.as_slice());
        assert!(err <= tol, "{precision:?} random graphs xy: {err:e}");
        let gpu_y = ky.clone().with_precision(precision).gram_on(Backend::Cuda(device), y).unwrap();
        let err = max_rel(cpu_y.as_slice(), gpu_y.as_slice());
        assert!(err <= tol, "{precision:?} NWS96L: {err:e}");
    }
    // a λ beyond the bound is a typed error, not a wrong number
    let too_big = RandomWalkKernel::new(2.0 / (rho * rho)).unwrap();
    let err = too_big.gram_on(Backend::Cuda(device), &x).unwrap_err();
    assert!(matches!(err, kronograph::Error::Mgk(MgkError::LambdaTooLarge { .. })), "{err}");
}

/// Compiles `src` (file `{name}.cu`) with the library's NVRTC options for
/// sm_90 and sm_80 and checks that each CUBIN is non-trivial; skips without
/// libnvrtc unless `KRONOGRAPH_REQUIRE_NVRTC=1` or `KRONOGRAPH_REQUIRE_GPU=1`.
#[cfg(feature = "cuda")]
fn compiles_for_sm90_and_sm80(src: &str, name: &str) {
    use kronograph::cuda::jit::{compile, options};
    if !nvrtc_common::nvrtc_or_skip() {
        return;
    }
    for arch in [(9, 0), (8, 0)] {
        let image = compile(src, name, &options(arch)).unwrap_or_else(|e| panic!("sm_{}{}: {e}", arch.0, arch.1));
        assert!(image.len() > 1000, "a CUBIN of {} bytes", image.len());
    }
}

/// The moment series' kernels compile with NVRTC, on machines without a GPU
/// too (skips without libnvrtc unless `KRONOGRAPH_REQUIRE_NVRTC=1` or
/// `KRONOGRAPH_REQUIRE_GPU=1`).
#[cfg(feature = "cuda")]
#[test]
fn series_kernels_compile() {
    compiles_for_sm90_and_sm80(kronograph::rw::SERIES_CUDA_SOURCE, "rw_series");
}

/// The GPU's moment series (the default method) and its solver agree with
/// the CPU on random graphs of several sizes, with extreme weights, a graph
/// without edges, cross Grams and the bundled sets; pairs the series does
/// not cover (λ near the bound) are solved on the GPU and agree too.
#[test]
fn gpu_series_matches_cpu() {
    use kronograph::backend::{Backend, Precision};
    let Some(device) = gpu_or_skip() else { return };
    let mut x: Vec<Graph<u8, f64>> =
        (0..12).map(|s| random_graph(2 + 3 * s as usize, 0.3, 200 + s, Direction::Undirected)).collect();
    x.push(random_graph(3, 0.0, 1, Direction::Undirected));
    // weights of 1e150 (scaled by a power of two, λ scaled back)
    x.push(random_graph(7, 0.5, 300, Direction::Undirected).with_weights(|w, _| w * 1e150).unwrap());
    let rho = x.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
    let sets = ["NWS96L", "BA96L"].map(|s| {
        let ds = kronograph::graph::io::load(format!("{}/data/synthetic/{s}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        ds.graphs[..20].to_vec()
    });
    // at 0.95 the largest pairs need more than 400 terms and go to the PCG
    // (f32 tolerance 1e-6, condition number about 20: 1e-4 there)
    for frac in [0.5, 0.95] {
        let k = RandomWalkKernel::new(frac / (rho * rho)).unwrap();
        let cpu = k.gram(&x).unwrap();
        let cpu_xy = k.gram_xy(&x[..5], &x[5..]).unwrap();
        let f32_tol = if frac > 0.9 { 1e-4 } else { 1e-5 };
        for (precision, tol) in [(Precision::F64, 1e-10), (Precision::F32, f32_tol)] {
            let kp = k.clone().with_precision(precision);
            let gpu = kp.gram_on(Backend::Cuda(device), &x).unwrap();
            let err = max_rel(cpu.as_slice(), gpu.as_slice());
            assert!(err <= tol, "{precision:?} λ = {frac}/ρ̂²: {err:e}");
            let xy = kp.gram_xy_on(Backend::Cuda(device), &x[..5], &x[5..]).unwrap();
            let err = max_rel(cpu_xy.as_slice(), xy.as_slice());
            assert!(err <= tol, "{precision:?} λ = {frac}/ρ̂² xy: {err:e}");
        }
    }
    for y in &sets {
        let rho_y = y.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
        let k = RandomWalkKernel::new(0.5 / (rho_y * rho_y)).unwrap();
        let cpu = k.gram(y).unwrap();
        for (precision, tol) in [(Precision::F64, 1e-10), (Precision::F32, 1e-5)] {
            let gpu = k.clone().with_precision(precision).gram_on(Backend::Cuda(device), y).unwrap();
            let err = max_rel(cpu.as_slice(), gpu.as_slice());
            assert!(err <= tol, "{precision:?} bundled set: {err:e}");
        }
    }
    // a λ beyond the lower bounds is the CPU's typed error
    let too_big = RandomWalkKernel::new(4.0 / (rho * rho)).unwrap();
    let err = too_big.gram_on(Backend::Cuda(device), &x).unwrap_err();
    assert!(matches!(err, kronograph::Error::Mgk(MgkError::LambdaTooLarge { .. })), "{err}");
}

/// The GPU's series on graphs larger than one block's threads (several rows
/// per thread) and larger than its shared memory (power vectors in global
/// scratch) agrees with the CPU, and the symmetric Gram comes back
/// symmetric to the bit.
#[test]
fn gpu_series_large_graphs_match_cpu() {
    use kronograph::backend::{Backend, Precision};
    let Some(device) = gpu_or_skip() else { return };
    let x: Vec<Graph<u8, f64>> = [(5, 0.5), (700, 0.01), (3500, 0.002), (40, 0.2)]
        .iter()
        .enumerate()
        .map(|(s, &(n, p))| random_graph(n, p, 500 + s as u64, Direction::Undirected))
        .collect();
    let rho = x.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
    let k = RandomWalkKernel::new(0.5 / (rho * rho)).unwrap();
    let cpu = k.gram(&x).unwrap();
    for (precision, tol) in [(Precision::F64, 1e-10), (Precision::F32, 1e-5)] {
        let gpu = k.clone().with_precision(precision).gram_on(Backend::Cuda(device), &x).unwrap();
        let err = max_rel(cpu.as_slice(), gpu.as_slice());
        assert!(err <= tol, "{precision:?} large graphs: {err:e}");
        for i in 0..x.len() {
            for j in 0..x.len() {
                assert_eq!(gpu.get(i, j).to_bits(), gpu.get(j, i).to_bits(), "{precision:?} ({i}, {j})");
            }
        }
    }
}

/// The GPU's spectral-radius bounds are the CPU's to the bit: short rows
/// (neighbors normalized as they are read), rows longer than 16 (normalized
/// in place), graphs with more rows than a block has threads, power vectors
/// in shared memory and in global scratch, weights of 1e150 and 0.3, and the
/// bundled sets.
#[test]
fn gpu_bounds_equal_cpu_bounds() {
    let Some(device) = gpu_or_skip() else { return };
    let small: Vec<Graph<u8, f64>> = [(1, 0.0), (2, 1.0), (5, 0.5), (40, 0.8), (96, 0.05), (300, 0.02), (64, 0.6)]
        .iter()
        .enumerate()
        .map(|(s, &(n, p))| random_graph(n, p, 900 + s as u64, Direction::Undirected))
        .chain([
            random_graph(7, 0.5, 950, Direction::Undirected).with_weights(|w, _| w * 1e150).unwrap(),
            random_graph(30, 0.3, 951, Direction::Undirected).with_weights(|w, _| w * 0.3).unwrap(),
        ])
        .collect();
    let large: Vec<Graph<u8, f64>> =
        [(3500, 0.002), (12, 0.4)].iter().map(|&(n, p)| random_graph(n, p, 960, Direction::Undirected)).collect();
    let sets = ["NWS96L", "BA96L"].map(|s| {
        let ds = kronograph::graph::io::load(format!("{}/data/synthetic/{s}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        ds.graphs[..24].to_vec()
    });
    let check = |x: &[Graph<u8, f64>], what: &str| {
        let gpu = RandomWalkKernel::gpu_spectral_radius_bounds(device, x).unwrap();
        for (i, (g, &(lo, hi))) in x.iter().zip(&gpu).enumerate() {
            let (clo, chi) = RandomWalkKernel::spectral_radius_bounds(g);
            assert_eq!(
                (lo.to_bits(), hi.to_bits()),
                (clo.to_bits(), chi.to_bits()),
                "{what} graph {i}: {lo} {hi} vs {clo} {chi}"
            );
        }
    };
    check(&small, "small");
    check(&large, "large");
    for (name, y) in ["NWS96L", "BA96L"].iter().zip(&sets) {
        let y: Vec<Graph<u8, f64>> = y.iter().map(|g| g.map_node_labels(|_| 0u8).map_edge_labels(|_| 1.0)).collect();
        check(&y, name);
    }
}

/// The GPU's fixed-point kernel (directed graphs) compiles with NVRTC, on
/// machines without a GPU too (as `series_kernels_compile`).
#[cfg(feature = "cuda")]
#[test]
fn fixed_point_kernels_compile() {
    compiles_for_sm90_and_sm80(kronograph::rw::FIXED_CUDA_SOURCE, "rw_fixed");
}

/// The labeled kernel (undirected: the MGK's batched PCG with the labeled
/// system; directed: the fixed-point kernel) and the plain kernel on
/// directed graphs agree with the CPU on random graphs (symmetric and cross
/// Grams, a pair without matched labels, weights of 1e150, mixed directed and
/// undirected sets) and on bundled sets, in f64 (1e-10) and f32 (1e-5).
#[test]
fn gpu_labeled_and_directed_match_cpu() {
    use kronograph::backend::{Backend, Precision};
    let Some(device) = gpu_or_skip() else { return };
    let mut und: Vec<Graph<u8, f64>> =
        (0..10).map(|s| random_graph(2 + 3 * s as usize, 0.35, 400 + s, Direction::Undirected)).collect();
    // a graph whose labels match nobody else's
    und.push(random_graph(4, 0.6, 7, Direction::Undirected).map_node_labels(|_| 9u8));
    und.push(random_graph(6, 0.5, 301, Direction::Undirected).with_weights(|w, _| w * 1e150).unwrap());
    let dir: Vec<Graph<u8, f64>> =
        (0..8).map(|s| random_graph(2 + 2 * s as usize, 0.3, 500 + s, Direction::Directed)).collect();
    let mixed: Vec<Graph<u8, f64>> = und[..4].iter().chain(&dir[..4]).cloned().collect();
    let lam = |v: &[Graph<u8, f64>], f: f64| {
        let rho = v.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
        f / (rho * rho)
    };
    for (name, set) in [("undirected", &und), ("directed", &dir), ("mixed", &mixed)] {
        let k = RandomWalkKernel::new(lam(set, 0.5)).unwrap();
        let cpu_l = k.gram_labeled(set).unwrap();
        let cpu_xy = k.gram_xy_labeled(&set[..3], &set[3..]).unwrap();
        let cpu_p = k.gram(set).unwrap();
        for (precision, tol) in [(Precision::F64, 1e-10), (Precision::F32, 1e-5)] {
            let kp = k.clone().with_precision(precision);
            let gpu = kp.gram_labeled_on(Backend::Cuda(device), set).unwrap();
            let err = max_rel(cpu_l.as_slice(), gpu.as_slice());
            assert!(err <= tol, "{name} labeled {precision:?}: {err:e}");
            let xy = kp.gram_xy_labeled_on(Backend::Cuda(device), &set[..3], &set[3..]).unwrap();
            let err = max_rel(cpu_xy.as_slice(), xy.as_slice());
            assert!(err <= tol, "{name} labeled xy {precision:?}: {err:e}");
            let gpu = kp.gram_on(Backend::Cuda(device), set).unwrap();
            let err = max_rel(cpu_p.as_slice(), gpu.as_slice());
            assert!(err <= tol, "{name} plain {precision:?}: {err:e}");
        }
    }
    let k = RandomWalkKernel::new(lam(&und, 0.5)).unwrap();
    assert_eq!(k.gram_labeled_on(Backend::Cuda(device), &und).unwrap().get(10, 0), 0.0);
    for set in ["NWS96L", "BA96L"] {
        let ds = kronograph::graph::io::load(format!("{}/data/synthetic/{set}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let y = &ds.graphs[..16];
        let rho = y.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
        let k = RandomWalkKernel::new(0.5 / (rho * rho)).unwrap();
        let cpu = k.gram_labeled(y).unwrap();
        for (precision, tol) in [(Precision::F64, 1e-10), (Precision::F32, 1e-5)] {
            let gpu = k.clone().with_precision(precision).gram_labeled_on(Backend::Cuda(device), y).unwrap();
            let err = max_rel(cpu.as_slice(), gpu.as_slice());
            assert!(err <= tol, "{set} labeled {precision:?}: {err:e}");
        }
    }
    // λ beyond the bound: the CPU's typed error, for directed and labeled sets
    let too_big = RandomWalkKernel::new(lam(&dir, 4.0)).unwrap();
    let err = too_big.gram_on(Backend::Cuda(device), &dir).unwrap_err();
    assert!(matches!(err, kronograph::Error::Mgk(MgkError::LambdaTooLarge { .. })), "{err}");
    let err = too_big.gram_labeled_on(Backend::Cuda(device), &dir).unwrap_err();
    assert!(matches!(err, kronograph::Error::Mgk(MgkError::LambdaTooLarge { .. })), "{err}");
}

/// The random-walk Gram on a device set (of 1, 2 and 4 devices where they
/// exist) agrees with one device: the series (on the set's first device:
/// the same computation) and the PCG (pairs shared out as the marginalized
/// graph kernel's: to the solver's rounding), symmetric and cross.
#[test]
fn device_sets_agree_with_one_device() {
    use kronograph::backend::{Backend, Precision};
    let Some(device) = gpu_or_skip() else { return };
    let ds = kronograph::graph::io::load(format!("{}/data/synthetic/NWS96L", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let x = ds.graphs;
    let rho = x.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
    let k = RandomWalkKernel::new(0.5 / (rho * rho)).unwrap().with_precision(Precision::F64);
    for (method, tol) in [(RwMethod::Series, 1e-12), (RwMethod::Solver, 1e-9)] {
        let k = k.clone().with_method(method);
        let one = k.gram_on(Backend::Cuda(device), &x).unwrap();
        let one_xy = k.gram_xy_on(Backend::Cuda(device), &x[..90], &x[90..]).unwrap();
        for set in device_sets() {
            let many = k.gram_on(set, &x).unwrap();
            let err = max_rel(one.as_slice(), many.as_slice());
            let same = one.as_slice().iter().zip(many.as_slice()).filter(|(a, b)| a.to_bits() == b.to_bits()).count();
            eprintln!("{method:?} on {set}: max rel {err:e}, {same} of {} values the same bits", many.as_slice().len());
            assert!(err <= tol, "{method:?} on {set}: {err:e}");
            let xy = k.gram_xy_on(set, &x[..90], &x[90..]).unwrap();
            let err = max_rel(one_xy.as_slice(), xy.as_slice());
            assert!(err <= tol, "{method:?} xy on {set}: {err:e}");
        }
    }
}
