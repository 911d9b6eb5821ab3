//! The exponential and p-step random-walk kernels against dense references:
//! the product graph built explicitly, `exp` by scaling and squaring of a
//! dense Taylor polynomial (matrix products, not the library's series).
#![allow(clippy::needless_range_loop)]

use crate::mgk_common::*;
use crate::rw::dense_product;
use kronograph::graph::{Direction, Graph};
use kronograph::mgk::MgkError;
use kronograph::rw::{RandomWalkKernel, WalkSeriesKernel, WalkWeights};
use proptest::prelude::*;

fn matmul(d: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; d * d];
    for i in 0..d {
        for k in 0..d {
            let x = a[i * d + k];
            if x != 0.0 {
                for j in 0..d {
                    c[i * d + j] += x * b[k * d + j];
                }
            }
        }
    }
    c
}

/// `exp(A)` (dense, `d × d`): Taylor of degree 30 on `A / 2^s` with
/// `‖A / 2^s‖_∞ ≤ 1/2`, squared `s` times.
fn dense_expm(d: usize, a: &[f64]) -> Vec<f64> {
    let norm = (0..d).map(|i| (0..d).map(|j| a[i * d + j].abs()).sum::<f64>()).fold(0.0, f64::max);
    let mut s = 0;
    while norm / 2f64.powi(s) > 0.5 {
        s += 1;
    }
    let scaled: Vec<f64> = a.iter().map(|x| x / 2f64.powi(s)).collect();
    let eye: Vec<f64> = (0..d * d).map(|k| if k % (d + 1) == 0 { 1.0 } else { 0.0 }).collect();
    let (mut sum, mut term) = (eye.clone(), eye);
    for k in 1..=30 {
        term = matmul(d, &term, &scaled).iter().map(|x| x / k as f64).collect();
        sum.iter_mut().zip(&term).for_each(|(s, t)| *s += t);
    }
    for _ in 0..s {
        sum = matmul(d, &sum, &sum);
    }
    sum
}

/// `(1ᵀ exp(λ M) 1, λ 1ᵀ M exp(λ M) 1)` for the product `M` of
/// [`dense_product`].
fn dense_exp(g: &Graph<u8, f64>, h: &Graph<u8, f64>, lambda: f64, labeled: bool) -> (f64, f64) {
    let (d, w) = dense_product(g, h, labeled);
    if d == 0 {
        return (0.0, 0.0);
    }
    let a: Vec<f64> = w.iter().map(|x| lambda * x).collect();
    let e = dense_expm(d, &a);
    let e1: Vec<f64> = (0..d).map(|i| (0..d).map(|j| e[i * d + j]).sum()).collect();
    let v = e1.iter().sum();
    let grad = (0..d).map(|i| (0..d).map(|j| a[i * d + j] * e1[j]).sum::<f64>()).sum();
    (v, grad)
}

/// `(Σ c_k λ^k 1ᵀ M^k 1, Σ k c_k λ^k 1ᵀ M^k 1)` with dense products.
fn dense_steps(g: &Graph<u8, f64>, h: &Graph<u8, f64>, lambda: f64, c: &[f64], labeled: bool) -> (f64, f64) {
    let (d, w) = dense_product(g, h, labeled);
    let mut p: Vec<f64> = (0..d * d).map(|k| if k % (d + 1) == 0 { 1.0 } else { 0.0 }).collect();
    let (mut v, mut gr) = (0.0, 0.0);
    for (k, &ck) in c.iter().enumerate() {
        if k > 0 {
            p = matmul(d, &p, &w);
        }
        let t = ck * lambda.powi(k as i32) * p.iter().sum::<f64>();
        v += t;
        gr += k as f64 * t;
    }
    (v, gr)
}

fn one(k: &WalkSeriesKernel, g: &Graph<u8, f64>, h: &Graph<u8, f64>, labeled: bool) -> (f64, f64) {
    let (v, d) = k.gram_with_gradient(std::slice::from_ref(g), Some(std::slice::from_ref(h)), labeled).unwrap();
    (v.get(0, 0), d.get(0, 0))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn exponential_matches_dense_expm(
        n in 1usize..8, m in 1usize..8, seed in any::<u64>(), lambda in 0.01f64..1.5, directed in any::<bool>(), labeled in any::<bool>()
    ) {
        let dir = if directed { Direction::Directed } else { Direction::Undirected };
        let g = random_graph(n, 0.5, seed, dir);
        let h = random_graph(m, 0.5, seed ^ 9, dir);
        let k = WalkSeriesKernel::exponential(lambda).unwrap();
        let (want, dwant) = dense_exp(&g, &h, lambda, labeled);
        let (got, dgot) = one(&k, &g, &h, labeled);
        prop_assert!(close(got, want, 1e-12), "{got} vs {want}");
        prop_assert!(close(dgot, dwant, 1e-11) || (dgot - dwant).abs() <= 1e-13 * want, "gradient {dgot} vs {dwant}");
        // a looser tolerance stops earlier, within its bound
        let loose = WalkSeriesKernel::exponential(lambda).unwrap().with_tolerance(1e-6).unwrap();
        let (got, _) = one(&loose, &g, &h, labeled);
        prop_assert!(got <= want * (1.0 + 1e-12) && got >= want * (1.0 - 1e-6 - 1e-12), "tol 1e-6: {got} vs {want}");
    }

    #[test]
    fn p_step_matches_dense_powers(
        n in 1usize..8, m in 1usize..8, seed in any::<u64>(), lambda in 0.01f64..2.0, c in prop::collection::vec(0.0f64..2.0, 1..7),
        directed in any::<bool>(), labeled in any::<bool>()
    ) {
        let dir = if directed { Direction::Directed } else { Direction::Undirected };
        let g = random_graph(n, 0.5, seed, dir);
        let h = random_graph(m, 0.5, seed ^ 11, dir);
        let k = WalkSeriesKernel::p_step(lambda, c.clone()).unwrap();
        let (want, dwant) = dense_steps(&g, &h, lambda, &c, labeled);
        let (got, dgot) = one(&k, &g, &h, labeled);
        prop_assert!(close(got, want, 1e-12), "{got} vs {want}");
        prop_assert!(close(dgot, dwant, 1e-12), "gradient {dgot} vs {dwant}");
    }

    /// Gram matrices are the pairs', symmetric, and positive semi-definite
    /// on the diagonal's scale (Cauchy–Schwarz).
    #[test]
    fn grams_are_the_pairs(seed in any::<u64>(), labeled in any::<bool>(), exponential in any::<bool>()) {
        let xs: Vec<_> = (0..4).map(|i| random_graph(3 + i, 0.5, seed ^ i as u64, Direction::Undirected)).collect();
        let k = if exponential { WalkSeriesKernel::exponential(0.3) } else { WalkSeriesKernel::p_step(0.3, vec![1.0, 0.5, 0.25, 2.0]) }.unwrap();
        let gram = if labeled { k.gram_labeled(&xs) } else { k.gram(&xs) }.unwrap();
        let xy = if labeled { k.gram_xy_labeled(&xs, &xs[1..]) } else { k.gram_xy(&xs, &xs[1..]) }.unwrap();
        for i in 0..4 {
            for j in 0..4 {
                prop_assert_eq!(gram.get(i, j), gram.get(j, i));
                prop_assert!(close(gram.get(i, j), one(&k, &xs[i], &xs[j], labeled).0, 1e-13));
                prop_assert!(gram.get(i, j).powi(2) <= gram.get(i, i) * gram.get(j, j) * (1.0 + 1e-12));
                if j > 0 {
                    prop_assert!(close(xy.get(i, j - 1), gram.get(i, j), 1e-13));
                }
            }
        }
    }
}

/// GraKeL's p-step weights: all ones is the geometric series cut at `p`
/// (so it tends to the geometric kernel), `1/k!` the exponential one.
#[test]
fn grakel_steps_tend_to_the_full_kernels() {
    let g = random_graph(7, 0.5, 1, Direction::Undirected);
    let h = random_graph(6, 0.5, 2, Direction::Undirected);
    let lambda = 0.3 * RandomWalkKernel::lambda_limit(&g, &h);
    let geo = RandomWalkKernel::new(lambda).unwrap().pair(&g, &h).unwrap();
    let cut = WalkSeriesKernel::p_step(lambda, WalkSeriesKernel::grakel_steps(80, false)).unwrap();
    assert!(close(one(&cut, &g, &h, false).0, geo, 1e-13));
    assert_eq!(WalkSeriesKernel::grakel_steps(3, true), vec![1.0, 1.0, 0.5, 1.0 / 6.0]);
    let exp = WalkSeriesKernel::exponential(0.7).unwrap();
    let cut = WalkSeriesKernel::p_step(0.7, WalkSeriesKernel::grakel_steps(120, true)).unwrap();
    for labeled in [false, true] {
        assert!(close(one(&exp, &g, &h, labeled).0, one(&cut, &g, &h, labeled).0, 1e-13));
    }
    // the p-step sum with one weight is n n'; its gradient 0
    let k0 = WalkSeriesKernel::p_step(5.0, vec![1.0]).unwrap();
    assert_eq!(one(&k0, &g, &h, false), (42.0, 0.0));
    assert_eq!(k0.weights(), &WalkWeights::Steps(vec![1.0]));
}

/// Extreme weights are scaled exactly; a value beyond `f64` is a typed
/// error; graphs without edges give `n n'`; bad parameters are refused.
#[test]
fn edges_and_errors() {
    let g = random_graph(6, 0.6, 5, Direction::Undirected);
    let h = random_graph(5, 0.6, 6, Direction::Undirected);
    let scaled = |g: &Graph<u8, f64>, s: f64| {
        let mut b = kronograph::graph::GraphBuilder::new(g.num_nodes(), Direction::Undirected)
            .node_labels(g.node_labels().to_vec());
        for i in 0..g.num_nodes() {
            for k in g.row_range(i) {
                let j = g.indices()[k];
                if j >= i {
                    b.push_edge(i, j, g.weights()[k] * s, 0.0);
                }
            }
        }
        b.build().unwrap()
    };
    let (gs, hs) = (scaled(&g, 2f64.powi(300)), scaled(&h, 2f64.powi(-280)));
    for labeled in [false, true] {
        let want = one(&WalkSeriesKernel::exponential(0.4).unwrap(), &g, &h, labeled);
        let got = one(&WalkSeriesKernel::exponential(0.4 * 2f64.powi(-20)).unwrap(), &gs, &hs, labeled);
        assert!(close(got.0, want.0, 1e-13) && close(got.1, want.1, 1e-12), "{got:?} vs {want:?}");
    }
    let empty = random_graph(4, 0.0, 1, Direction::Undirected);
    assert_eq!(one(&WalkSeriesKernel::exponential(3.0).unwrap(), &empty, &h, false).0, 20.0);
    // exp(λ ρ ρ') beyond f64
    let err = WalkSeriesKernel::exponential(1e5).unwrap().gram(&[g.clone(), h.clone()]).unwrap_err();
    assert!(matches!(err, MgkError::InvalidValue { .. }), "{err}");
    assert!(err.to_string().contains("lower λ"), "{err}");
    let err = WalkSeriesKernel::exponential(1e5).unwrap().gram_labeled(&[g.clone(), h.clone()]).unwrap_err();
    assert!(matches!(err, MgkError::InvalidValue { .. }), "{err}");
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(WalkSeriesKernel::exponential(bad).is_err());
    }
    assert!(WalkSeriesKernel::p_step(0.1, vec![]).is_err());
    let err = WalkSeriesKernel::p_step(0.1, vec![1.0, -0.5]).unwrap_err();
    assert!(err.to_string().contains("c_1 = -0.5"), "{err}");
    assert!(WalkSeriesKernel::exponential(0.1).unwrap().with_tolerance(0.0).is_err());
}

/// `(max relative difference, where)` of two matrices of the same shape,
/// relative to the larger entry (`floor` the smallest scale counted: a
/// gradient of 0 against rounding).
fn worst(a: &kronograph::mgk::Matrix, b: &kronograph::mgk::Matrix, floor: f64) -> f64 {
    assert_eq!((a.rows(), a.cols()), (b.rows(), b.cols()));
    a.as_slice()
        .iter()
        .zip(b.as_slice())
        .map(|(x, y)| (x - y).abs() / x.abs().max(y.abs()).max(floor))
        .fold(0.0, f64::max)
}

/// On the CPU backend the `_on` methods are the plain ones, to the bit.
#[test]
fn series_on_cpu_backend_is_the_plain_methods() {
    use kronograph::backend::Backend;
    let xs: Vec<_> = (0..4).map(|i| random_graph(3 + i, 0.5, 40 + i as u64, Direction::Undirected)).collect();
    let k = WalkSeriesKernel::exponential(0.4).unwrap();
    assert_eq!(k.gram_on(Backend::Cpu, &xs).unwrap(), k.gram(&xs).unwrap());
    assert_eq!(k.gram_xy_labeled_on(Backend::Cpu, &xs, &xs[1..]).unwrap(), k.gram_xy_labeled(&xs, &xs[1..]).unwrap());
    let (a, da) = k.gram_with_gradient_on(Backend::Cpu, &xs, None, true).unwrap();
    let (b, db) = k.gram_with_gradient(&xs, None, true).unwrap();
    assert_eq!((a, da), (b, db));
    assert_eq!(k.resolved_backend(Backend::Cpu, &xs, None, true).unwrap(), Backend::Cpu);
}

/// The exponential and p-step kernels on the GPU (the power series, batched:
/// every pair of a call in one launch) equal the CPU's f64 values and gradients to
/// 1e-12 relative: plain and labeled, directed and undirected, symmetric
/// and cross Grams, extreme weights scaled as on the CPU, graphs without
/// edges or nodes; `auto` picks the CPU for unlabeled and small labeled
/// calls and the device for MUTAG's labeled Gram; an overflow is the CPU's typed
/// error. Skips without a GPU; fails then with `KRONOGRAPH_REQUIRE_GPU=1`.
#[test]
fn series_on_gpu_equals_cpu() {
    use kronograph::backend::Backend;
    let Some(device) = gpu_or_skip() else { return };
    let gpu = Backend::Cuda(device);
    let kernels = [
        WalkSeriesKernel::exponential(0.35).unwrap(),
        WalkSeriesKernel::exponential(1.3).unwrap(),
        WalkSeriesKernel::p_step(0.5, vec![1.0, 0.0, 0.5, 2.0, 0.25]).unwrap(),
        WalkSeriesKernel::p_step(0.8, WalkSeriesKernel::grakel_steps(12, false)).unwrap(),
    ];
    for (seed, dir) in [(1u64, Direction::Undirected), (2, Direction::Directed), (3, Direction::Undirected)] {
        let mut xs: Vec<_> = (0..5).map(|i| random_graph(2 + 3 * i, 0.45, seed * 100 + i as u64, dir)).collect();
        xs.push(random_graph(4, 0.0, seed, dir)); // no edges
        let ys: Vec<_> = (0..3).map(|i| random_graph(5 + i, 0.5, seed * 7 + i as u64, dir)).collect();
        for k in &kernels {
            for labeled in [false, true] {
                let (c, dc) = k.gram_with_gradient(&xs, None, labeled).unwrap();
                let (g, dg) = k.gram_with_gradient_on(gpu, &xs, None, labeled).unwrap();
                assert!(worst(&c, &g, 1e-300) <= 1e-12, "{k:?} labeled {labeled} {dir:?}: {c:?} vs {g:?}");
                assert!(worst(&dc, &dg, 1e-12 * c.as_slice().iter().fold(0.0, |a: f64, &b| a.max(b))) <= 1e-12);
                let (c, dc) = k.gram_with_gradient(&xs, Some(&ys), labeled).unwrap();
                let (g, dg) = k.gram_with_gradient_on(gpu, &xs, Some(&ys), labeled).unwrap();
                assert!(worst(&c, &g, 1e-300) <= 1e-12 && worst(&dc, &dg, 1e-300) <= 1e-12, "{k:?} cross {labeled}");
                let plain = if labeled { k.gram_labeled_on(gpu, &xs) } else { k.gram_on(gpu, &xs) }.unwrap();
                assert!(worst(&plain, &k.gram_with_gradient(&xs, None, labeled).unwrap().0, 1e-300) <= 1e-12);
            }
        }
    }
    // weights of 2^±300 are scaled exactly, as on the CPU
    let scaled = |g: &Graph<u8, f64>, s: f64| g.with_weights(|w, _| w * s).unwrap();
    let (g, h) = (random_graph(6, 0.6, 5, Direction::Undirected), random_graph(5, 0.6, 6, Direction::Undirected));
    // (a cross Gram: the one pair's product weights are 2^20, while each
    // graph with itself would reach 2^600 and overflow any series)
    let (xs, ys) = ([scaled(&g, 2f64.powi(300))], [scaled(&h, 2f64.powi(-280))]);
    let k = WalkSeriesKernel::exponential(0.4 * 2f64.powi(-20)).unwrap();
    for labeled in [false, true] {
        let (c, dc) = k.gram_with_gradient(&xs, Some(&ys), labeled).unwrap();
        let (g, dg) = k.gram_with_gradient_on(gpu, &xs, Some(&ys), labeled).unwrap();
        assert!(worst(&c, &g, 1e-300) <= 1e-12 && worst(&dc, &dg, 1e-300) <= 1e-12, "scaled, labeled {labeled}");
    }
    // a graph without nodes
    let none = random_graph(0, 0.5, 1, Direction::Undirected);
    let with_empty = [g.clone(), none];
    assert!(worst(&k.gram_on(gpu, &with_empty).unwrap(), &k.gram(&with_empty).unwrap(), 1e-300) <= 1e-12);
    // auto runs unlabeled and small labeled calls on the CPU, large labeled
    // ones on the device (docs/PERFORMANCE.md, "Random-walk series kinds"),
    // with the device's values; a value beyond f64 is the CPU's error
    for labeled in [false, true] {
        assert_eq!(k.resolved_backend(Backend::Auto, &with_empty, None, labeled).unwrap(), Backend::Cpu);
    }
    let mutag = kronograph::graph::io::load(format!("{}/data/MUTAG", env!("CARGO_MANIFEST_DIR"))).unwrap().graphs;
    assert_eq!(k.resolved_backend(Backend::Auto, &mutag, None, false).unwrap(), Backend::Cpu);
    // (the rule counts CPU threads: 16, as on the measured host)
    let pool = rayon::ThreadPoolBuilder::new().num_threads(16).build().unwrap();
    assert_eq!(pool.install(|| k.resolved_backend(Backend::Auto, &mutag, None, true)).unwrap(), gpu);
    let lab = WalkSeriesKernel::exponential(0.25).unwrap();
    let auto = lab.gram_labeled_on(Backend::Auto, &mutag).unwrap();
    assert!(worst(&auto, &lab.gram_labeled(&mutag).unwrap(), 1e-300) <= 1e-12, "auto, MUTAG labeled");
    let big = WalkSeriesKernel::exponential(1e5).unwrap();
    let err = big.gram_labeled_on(gpu, &[g.clone(), h.clone()]).unwrap_err();
    assert!(matches!(err, kronograph::Error::Mgk(MgkError::InvalidValue { .. })), "{err}");
    assert!(err.to_string().contains("lower λ"), "{err}");
}

/// The batched device sums (every pair of a call in one launch) equal the
/// CPU's f64 values and gradients on MUTAG (the first 40 graphs, as read and
/// with per-graph weights), plain and labeled, exponential and p-step,
/// symmetric and cross Grams. Skips without a GPU; fails then with
/// `KRONOGRAPH_REQUIRE_GPU=1`.
#[test]
fn series_batched_on_gpu_mutag_equals_cpu() {
    use kronograph::backend::Backend;
    let Some(device) = gpu_or_skip() else { return };
    let gpu = Backend::Cuda(device);
    let mut ds = kronograph::graph::io::load(format!("{}/data/MUTAG", env!("CARGO_MANIFEST_DIR"))).unwrap();
    ds.graphs.truncate(40);
    let weighted: Vec<_> = ds
        .graphs
        .iter()
        .enumerate()
        .map(|(i, g)| g.with_weights(|w, _| w * (0.5 + 0.25 * (i % 5) as f64)).unwrap())
        .collect();
    let kernels = [
        WalkSeriesKernel::exponential(0.2).unwrap(),
        WalkSeriesKernel::exponential(1.7).unwrap(),
        WalkSeriesKernel::p_step(0.3, WalkSeriesKernel::grakel_steps(6, true)).unwrap(),
        WalkSeriesKernel::p_step(0.25, vec![1.0, 0.5, 0.0, 2.0, 1.0, 0.125, 3.0]).unwrap(),
    ];
    for xs in [&ds.graphs, &weighted] {
        for k in &kernels {
            for labeled in [false, true] {
                let (c, dc) = k.gram_with_gradient(xs, None, labeled).unwrap();
                let (g, dg) = k.gram_with_gradient_on(gpu, xs, None, labeled).unwrap();
                assert!(worst(&c, &g, 1e-300) <= 1e-12, "{k:?} labeled {labeled}");
                assert!(worst(&dc, &dg, 1e-300) <= 1e-12, "{k:?} labeled {labeled}: gradient");
                let (c, dc) = k.gram_with_gradient(&xs[..7], Some(&xs[7..]), labeled).unwrap();
                let (g, dg) = k.gram_with_gradient_on(gpu, &xs[..7], Some(&xs[7..]), labeled).unwrap();
                assert!(worst(&c, &g, 1e-300) <= 1e-12 && worst(&dc, &dg, 1e-300) <= 1e-12, "{k:?} cross {labeled}");
            }
        }
    }
    // a value beyond f64 in the batched sums is the CPU's typed error
    let big = WalkSeriesKernel::p_step(1e120, vec![1.0, 1.0, 1.0, 1.0]).unwrap();
    for labeled in [false, true] {
        let cpu = big.gram_with_gradient(&ds.graphs[..3], None, labeled).unwrap_err();
        let err = big.gram_with_gradient_on(gpu, &ds.graphs[..3], None, labeled).unwrap_err();
        assert!(matches!(cpu, MgkError::InvalidValue { .. }), "{cpu}");
        assert!(matches!(err, kronograph::Error::Mgk(MgkError::InvalidValue { .. })), "{err}");
        assert!(err.to_string().contains("lower λ"), "{err}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// The batched device sums on random graphs (random weights in
    /// [0.5, 2), node labels from three values, self-loops, directed or not,
    /// sizes 0 to 9) equal the CPU's to 1e-12 relative, value and gradient.
    #[test]
    fn series_batched_on_gpu_random_graphs_equal_cpu(
        seed in any::<u64>(), directed in any::<bool>(), labeled in any::<bool>(), exponential in any::<bool>(),
        lambda in 0.02f64..1.5, steps in prop::collection::vec(0.0f64..2.0, 1..9)
    ) {
        use kronograph::backend::Backend;
        let Some(device) = gpu_or_skip() else { return Ok(()) };
        let dir = if directed { Direction::Directed } else { Direction::Undirected };
        let xs: Vec<_> = (0..7).map(|i| random_graph((seed as usize >> (3 * i)) % 10, 0.5, seed ^ (i as u64 + 1), dir)).collect();
        let k = if exponential { WalkSeriesKernel::exponential(lambda) } else { WalkSeriesKernel::p_step(lambda, steps) }.unwrap();
        let (c, dc) = k.gram_with_gradient(&xs, None, labeled).unwrap();
        let (g, dg) = k.gram_with_gradient_on(Backend::Cuda(device), &xs, None, labeled).unwrap();
        prop_assert!(worst(&c, &g, 1e-300) <= 1e-12, "{:?} vs {:?}", c, g);
        let scale = c.as_slice().iter().fold(0.0, |a: f64, &b| a.max(b));
        prop_assert!(worst(&dc, &dg, 1e-12 * scale) <= 1e-12, "gradient {:?} vs {:?}", dc, dg);
        let (c, _) = k.gram_with_gradient(&xs[..3], Some(&xs[3..]), labeled).unwrap();
        let (g, _) = k.gram_with_gradient_on(Backend::Cuda(device), &xs[..3], Some(&xs[3..]), labeled).unwrap();
        prop_assert!(worst(&c, &g, 1e-300) <= 1e-12, "cross {:?} vs {:?}", c, g);
    }
}
