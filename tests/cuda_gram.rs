//! The GPU marginalized graph kernel against the CPU f64 reference.
//!
//! Skips (passing, with a message) when no CUDA device can be used; fails
//! instead when `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]
use crate::mgk_common;
use mgk_common::gpu_or_skip;

use kronograph::basekernel::BaseKernel;
use kronograph::basekernel::{product, Constant, Field, KroneckerDelta, Product, SquareExponential};
use kronograph::cuda::{device_count, resolve_backend, Backend, CudaError, Precision};
use kronograph::graph::{Direction, FieldKind, Graph, GraphBuilder, Record, Schema, Value};
use kronograph::mgk::reference::mgk_pair;
use kronograph::mgk::{GpuGram, MgkConfig, XmvScheme};
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::sync::Arc;

type G = Graph<Record, Record>;

fn random_graph(n: usize, p: f64, with_start: bool, rng: &mut impl Rng) -> G {
    let vs = Arc::new(Schema::new().with("label", FieldKind::Int));
    let es = Arc::new(Schema::new().with("label", FieldKind::Int).with("attr1", FieldKind::Float));
    let labels = (0..n).map(|_| Record::new(vs.clone(), [Value::Int(rng.random_range(0..3))]).unwrap()).collect();
    let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(labels);
    if with_start {
        b = b.start_probabilities((0..n).map(|_| rng.random_range(0.1..1.0)).collect());
    }
    for i in 0..n {
        for j in i..n {
            if rng.random::<f64>() < p {
                let e =
                    Record::new(es.clone(), [Value::Int(rng.random_range(0..2)), Value::Float(rng.random())]).unwrap();
                b.push_edge(i, j, rng.random_range(0.5..2.0), e);
            }
        }
    }
    b.build().unwrap()
}

/// Ten random graphs seeded by `seed` whose sizes cross the tile
/// boundaries (1, 7, 8, 9, 17, … 40), each with an edge probability drawn
/// from `0.05..p_max`.
fn tile_boundary_graphs(seed: u64, p_max: f64, with_start: bool) -> Vec<G> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    [1usize, 7, 8, 9, 17, 23, 31, 40, 12, 3]
        .iter()
        .map(|&n| random_graph(n, rng.random_range(0.05..p_max), with_start, &mut rng))
        .collect()
}

fn rel_err(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

fn compare<KN: BaseKernel<Record>, KE: BaseKernel<Record>>(
    dev: usize,
    graphs: &[G],
    kn: &KN,
    ke: &KE,
    params: MgkConfig,
    bound: f64,
    what: &str,
) {
    let gpu = GpuGram::new(dev, kn.clone(), ke.clone(), params).unwrap();
    let up = gpu.upload(graphs).unwrap();
    let out = gpu.gram(&up).unwrap();
    let m = graphs.len();
    assert_eq!((out.rows, out.cols), (m, m));
    let ref_params = MgkConfig { precision: Precision::F64, tol: Some(1e-13), ..params };
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in i..m {
            let r = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], kn, ke, &ref_params);
            assert!(r.converged);
            let v = out.values[i * m + j];
            assert!(v.is_finite(), "{what}: K[{i},{j}] = {v} (not written?)");
            // With lmin = 1, K is a difference that can cancel to ~0 (a graph without edges
            // gives exactly 0); its error is measured against the full kernel's magnitude.
            let scale = if params.lmin == 1 {
                let full = MgkConfig { lmin: 0, ..ref_params };
                mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], kn, ke, &full).value.abs()
            } else {
                0.0
            };
            let e = (v - r.value).abs() / r.value.abs().max(scale).max(1e-300);
            worst = worst.max(e);
            assert!(e <= bound, "{what}: K[{i},{j}] = {v}, reference {} (rel err {e:e} > {bound:e})", r.value);
        }
    }
    eprintln!("{what}: {m} graphs, worst rel err {worst:e}, mean iterations {:.1}", out.mean_iterations());
}

fn labeled_kernels() -> (Field<KroneckerDelta>, Product<Field<KroneckerDelta>, Field<SquareExponential>>) {
    (
        Field::new("label", KroneckerDelta::new(0.5)),
        product(Field::new("label", KroneckerDelta::new(0.5)), Field::new("attr1", SquareExponential::new(0.1))),
    )
}

#[test]
fn no_gpu_is_a_clean_error_or_fallback() {
    // Never a panic: either a device, or typed errors and a CPU fallback.
    match device_count() {
        Ok(n) => {
            assert_eq!(resolve_backend(Backend::Auto).unwrap(), if n > 0 { Some(0) } else { None });
            if n > 0 {
                assert!(matches!(resolve_backend(Backend::Cuda(n + 3)), Err(CudaError::NoDevice { .. })));
            } else {
                // no driver: device_count() is Ok(0), and asking for a device says why there is none
                let err = resolve_backend(Backend::Cuda(0)).unwrap_err();
                assert!(!err.to_string().is_empty());
            }
        }
        Err(e) => {
            eprintln!("no GPU: {e}");
            assert_eq!(resolve_backend(Backend::Auto).unwrap(), None);
            assert!(resolve_backend(Backend::Cuda(0)).is_err());
            let (kn, ke) = labeled_kernels();
            let err = GpuGram::<Record, Record, _, _>::new(0, kn, ke, MgkConfig::default()).unwrap_err();
            assert!(!err.to_string().is_empty());
        }
    }
    assert_eq!(resolve_backend(Backend::Cpu).unwrap(), None);
}

#[test]
fn random_labeled_weighted_graphs_f32_and_f64() {
    let Some(dev) = gpu_or_skip() else { return };
    let (kn, ke) = labeled_kernels();
    for (seed, precision, bound) in [(1u64, Precision::F32, 1e-5), (2, Precision::F64, 1e-10)] {
        let graphs = tile_boundary_graphs(seed, 0.5, seed == 2);
        for lmin in [0, 1] {
            let params = MgkConfig { precision, lmin, ..Default::default() };
            compare(dev, &graphs, &kn, &ke, params, bound, &format!("random {precision:?} lmin={lmin}"));
        }
    }
}

#[test]
fn hyperparameter_change_reuses_the_kernel() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let graphs: Vec<G> = (0..6).map(|k| random_graph(5 + 3 * k, 0.3, false, &mut rng)).collect();
    let (kn, ke) = labeled_kernels();
    let params = MgkConfig { precision: Precision::F64, ..Default::default() };
    let mut gpu = GpuGram::new(dev, kn, ke, params).unwrap();
    let up = gpu.upload(&graphs).unwrap();
    // the full-tier kernel, compiled in the background since the upload
    kronograph::cuda::jit::wait_background();
    let first = gpu.gram(&up).unwrap();
    assert_ne!(first.kernel.1, kronograph::cuda::jit::Origin::FastTier);
    // through the real kernels' θ: label.h of the node kernel; label.h, attr1.scale of the edge kernel
    gpu.kernels_mut().0.set_theta(&[0.25]).unwrap();
    gpu.kernels_mut().1.set_theta(&[0.5, 0.3]).unwrap();
    let second = gpu.gram(&up).unwrap();
    assert_eq!(first.kernel.0, second.kernel.0, "same source, same kernel");
    assert_eq!(second.kernel.1, kronograph::cuda::jit::Origin::Memory);
    let (kn2, ke2) = gpu.kernels_mut();
    let (kn2, ke2) = (kn2.clone(), ke2.clone());
    let ref_params = MgkConfig { tol: Some(1e-13), ..params };
    let m = graphs.len();
    for i in 0..m {
        for j in 0..m {
            let r = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], &kn2, &ke2, &ref_params).value;
            assert!(rel_err(second.values[i * m + j], r) <= 1e-10);
        }
    }
    // diag and gram_xy agree with gram
    let d = gpu.diag(&up).unwrap();
    let half = gpu.upload(&graphs[..3]).unwrap();
    let xy = gpu.gram_xy(&half, &up).unwrap();
    for i in 0..m {
        assert!(rel_err(d.values[i], second.values[i * m + i]) <= 1e-12);
    }
    for i in 0..3 {
        for j in 0..m {
            assert!(rel_err(xy.values[i * m + j], second.values[i * m + j]) <= 1e-12);
        }
    }
}

fn dataset(name: &str, weights: bool) -> Vec<G> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(name);
    let ds = kronograph::graph::io::load(&dir).unwrap();
    if weights {
        ds.with_weights_from("attr0").unwrap().graphs
    } else {
        ds.graphs
    }
}

#[test]
fn mutag_matches_the_reference() {
    let Some(dev) = gpu_or_skip() else { return };
    let graphs = dataset("MUTAG", false);
    let graphs = &graphs[..60];
    let kn = Field::new("label", KroneckerDelta::new(0.5));
    let ke = Field::new("label", KroneckerDelta::new(0.5));
    compare(dev, graphs, &kn, &ke, MgkConfig::default(), 1e-5, "MUTAG f32");
    compare(dev, graphs, &kn, &ke, MgkConfig { precision: Precision::F64, ..Default::default() }, 1e-10, "MUTAG f64");
}

#[test]
fn library_spec_kernels_on_labeled_synthetic_data() {
    let Some(dev) = gpu_or_skip() else { return };
    use kronograph::basekernel::spec::SpecKernel;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/synthetic/NWS96L");
    let ds = kronograph::graph::io::load(&dir).unwrap().with_weights_from("attr0").unwrap();
    let kn = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke = SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr1, 0.1)", &ds.edge_schema).unwrap();
    let graphs = &ds.graphs[..8];
    for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
        let params = MgkConfig { precision, ..Default::default() };
        compare(dev, graphs, &kn, &ke, params, bound, &format!("NWS96L SpecKernel {precision:?}"));
    }
}

#[test]
fn synthetic_sets_match_the_reference() {
    let Some(dev) = gpu_or_skip() else { return };
    for (name, labeled) in
        [("synthetic/NWS96", false), ("synthetic/BA96", false), ("synthetic/NWS96L", true), ("synthetic/BA96L", true)]
    {
        let graphs = dataset(name, labeled);
        let graphs = &graphs[..6];
        for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
            let params = MgkConfig { precision, ..Default::default() };
            let what = format!("{name} {precision:?}");
            if labeled {
                let (kn, ke) = labeled_kernels();
                compare(dev, graphs, &kn, &ke, params, bound, &what);
            } else {
                compare(dev, graphs, &Constant::new(1.0), &Constant::new(1.0), params, bound, &what);
            }
        }
    }
}

/// The single-large-pair path (forced) against the CPU f64 reference.
fn compare_large<KN: BaseKernel<Record>, KE: BaseKernel<Record>>(
    dev: usize,
    graphs: &[G],
    kn: &KN,
    ke: &KE,
    params: MgkConfig,
    bound: f64,
    what: &str,
) {
    let mut gpu = GpuGram::new(dev, kn.clone(), ke.clone(), params).unwrap();
    gpu.gram_params_mut().large_pair_path = true;
    let up = gpu.upload(graphs).unwrap();
    let out = gpu.gram(&up).unwrap();
    let m = graphs.len();
    let ref_params = MgkConfig { precision: Precision::F64, tol: Some(1e-13), ..params };
    let full = MgkConfig { lmin: 0, ..ref_params };
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in i..m {
            let r = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], kn, ke, &ref_params);
            let scale = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], kn, ke, &full).value.abs();
            let v = out.values[i * m + j];
            assert!(v.is_finite(), "{what}: K[{i},{j}] = {v}");
            assert!(out.iterations[i * m + j] > 0 || graphs[i].num_nodes() * graphs[j].num_nodes() == 0);
            worst = worst.max((v - r.value).abs() / scale.max(1e-300));
        }
    }
    eprintln!("{what}: worst relative error {worst:.2e} over {} pairs", m * (m + 1) / 2);
    assert!(worst <= bound, "{what}: worst relative error {worst:.2e} > {bound:.0e}");
}

#[test]
fn large_pair_path_forced_matches_the_reference() {
    let Some(dev) = gpu_or_skip() else { return };
    let graphs = dataset("MUTAG", false);
    let kn = Field::new("label", KroneckerDelta::new(0.5));
    for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
        let params = MgkConfig { precision, ..Default::default() };
        compare_large(dev, &graphs[..8], &kn, &kn, params, bound, &format!("large path MUTAG {precision:?}"));
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let graphs: Vec<G> = (0..5).map(|k| random_graph(3 + 9 * k, 0.3, k % 2 == 0, &mut rng)).collect();
    let (kn, ke) = labeled_kernels();
    for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
        for lmin in [0, 1] {
            let params = MgkConfig { precision, lmin, ..Default::default() };
            compare_large(
                dev,
                &graphs,
                &kn,
                &ke,
                params,
                bound,
                &format!("large path random {precision:?} lmin {lmin}"),
            );
        }
    }
}

#[test]
fn generated_pair_of_thousands_of_nodes() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    // sparse random graphs (mean degree ~3) of 2000 and 1500 nodes
    let graphs = [random_graph(2000, 1.5 / 2000.0, true, &mut rng), random_graph(1500, 1.5 / 1500.0, false, &mut rng)];
    let (kn, ke) = labeled_kernels();
    for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
        let params = MgkConfig { precision, ..Default::default() };
        let gpu = GpuGram::new(dev, kn.clone(), ke.clone(), params).unwrap();
        let x = gpu.upload(&graphs[..1]).unwrap();
        let y = gpu.upload(&graphs[1..]).unwrap();
        // routed automatically: this pair does not fit in shared memory
        let out = gpu.gram_xy(&x, &y).unwrap();
        let ref_params = MgkConfig { precision: Precision::F64, tol: Some(1e-13), ..params };
        let r = mgk_pair::<f64, _, _, _, _>(&graphs[0], &graphs[1], &kn, &ke, &ref_params);
        let err = rel_err(out.values[0], r.value);
        eprintln!(
            "2000 x 1500 {precision:?}: K = {} ref {} rel err {err:.2e}, {} iterations",
            out.values[0], r.value, out.iterations[0]
        );
        assert!(err <= bound, "{precision:?}: relative error {err:.2e}");
    }
}

#[test]
fn proteins_with_its_largest_graphs() {
    let Some(dev) = gpu_or_skip() else { return };
    let all = dataset("PROTEINS", false);
    let mut by_size: Vec<usize> = (0..all.len()).collect();
    by_size.sort_by_key(|&i| std::cmp::Reverse(all[i].num_nodes()));
    // the two largest graphs and four small ones: a mix of both paths in one call
    let pick: Vec<usize> = by_size[..2].iter().chain(&by_size[by_size.len() - 4..]).copied().collect();
    let graphs: Vec<G> = pick.iter().map(|&i| all[i].clone()).collect();
    assert!(graphs[0].num_nodes() >= 600, "largest PROTEINS graph has {} nodes", graphs[0].num_nodes());
    let kn = Field::new("label", KroneckerDelta::new(0.5));
    let ke = Constant::new(1.0);
    for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
        let params = MgkConfig { precision, ..Default::default() };
        let gpu = GpuGram::new(dev, kn.clone(), ke, params).unwrap();
        let up = gpu.upload(&graphs).unwrap();
        let gram = gpu.gram(&up).unwrap();
        let diag = gpu.diag(&up).unwrap();
        let ref_params = MgkConfig { precision: Precision::F64, tol: Some(1e-13), ..params };
        let m = graphs.len();
        let mut worst = 0.0f64;
        for i in 0..m {
            for j in i..m {
                let r = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], &kn, &ke, &ref_params).value;
                worst = worst.max(rel_err(gram.values[i * m + j], r));
                if i == j {
                    worst = worst.max(rel_err(diag.values[i], r));
                }
            }
        }
        eprintln!("PROTEINS largest {precision:?}: worst relative error {worst:.2e}");
        assert!(worst <= bound, "{precision:?}: worst relative error {worst:.2e}");
    }
}

#[test]
fn nodal_matches_the_cpu_kernel() {
    let Some(dev) = gpu_or_skip() else { return };
    use kronograph::mgk::{MarginalizedGraphKernel, StartProbability};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    // graphs with structure, so the PBR reordering is not the identity
    let graphs: Vec<G> = (0..3).map(|k| random_graph(20 + 7 * k, 0.15, k != 1, &mut rng)).collect();
    let (kn, ke) = labeled_kernels();
    let cpu_kernel = |lmin: u32| {
        MarginalizedGraphKernel::new(kn.clone(), ke.clone(), 0.05)
            .unwrap()
            .with_lmin(lmin)
            .unwrap()
            .with_start(StartProbability::FromGraph)
            .unwrap()
            .with_tolerance(1e-13)
            .unwrap()
    };
    // errors are measured against the full kernel's largest |K_ii'| (with lmin = 1 the
    // entries are differences that can cancel)
    let full = cpu_kernel(0);
    let scale_of = |g: &G, h: &G| full.nodal(g, h).unwrap().as_slice().iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for lmin in [0u32, 1] {
        let cpu = cpu_kernel(lmin);
        for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
            let params =
                MgkConfig { precision, lmin, reorder: kronograph::graph::reorder::Method::Pbr, ..Default::default() };
            let gpu = GpuGram::new(dev, kn.clone(), ke.clone(), params).unwrap();
            let all = gpu.nodal_all(&graphs).unwrap();
            let mut k = 0;
            for i in 0..graphs.len() {
                for j in i..graphs.len() {
                    let c = cpu.nodal(&graphs[i], &graphs[j]).unwrap();
                    let g = &all[k];
                    k += 1;
                    assert_eq!((g.rows, g.cols), (graphs[i].num_nodes(), graphs[j].num_nodes()));
                    let scale = scale_of(&graphs[i], &graphs[j]);
                    let worst = g.values.iter().zip(c.as_slice()).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
                    assert!(
                        worst <= bound * scale,
                        "nodal ({i},{j}) {precision:?} lmin {lmin}: max abs diff {worst:.2e}, max |K_ii'| {scale:.2e}"
                    );
                }
            }
            let one = gpu.nodal(&graphs[0], &graphs[2]).unwrap();
            let c = cpu.nodal(&graphs[0], &graphs[2]).unwrap();
            let scale = scale_of(&graphs[0], &graphs[2]);
            for (a, b) in one.values.iter().zip(c.as_slice()) {
                assert!((a - b).abs() <= bound * scale, "nodal pair {precision:?}: {a} vs {b}");
            }
        }
    }
}

/// The tile-pair XMV and the row scheme agree: every value of the Gram
/// matrix of `graphs` within `bound` (relative; lmin = 0, so K > 0), and
/// the two schemes are distinct kernels.
fn compare_schemes<KN: BaseKernel<Record>, KE: BaseKernel<Record>>(
    dev: usize,
    graphs: &[G],
    kn: &KN,
    ke: &KE,
    params: MgkConfig,
    bound: f64,
    what: &str,
) {
    let run = |xmv| {
        let gpu = GpuGram::new(dev, kn.clone(), ke.clone(), MgkConfig { xmv, ..params }).unwrap();
        let up = gpu.upload(graphs).unwrap();
        gpu.gram(&up).unwrap()
    };
    let rows = run(XmvScheme::Rows);
    let tiles = run(XmvScheme::TilePairs);
    assert_ne!(rows.kernel.0, tiles.kernel.0, "{what}: the schemes compile to different kernels");
    let mut worst = 0.0f64;
    for (k, (&t, &r)) in tiles.values.iter().zip(&rows.values).enumerate() {
        assert!(t.is_finite() && r.is_finite(), "{what}: entry {k}: tiles {t}, rows {r}");
        worst = worst.max(rel_err(t, r));
    }
    eprintln!("{what}: tiles vs rows worst rel diff {worst:.2e}");
    assert!(worst <= bound, "{what}: tiles vs rows worst rel diff {worst:.2e} > {bound:.0e}");
}

#[test]
fn tile_pair_xmv_matches_the_reference_and_the_row_scheme() {
    let Some(dev) = gpu_or_skip() else { return };
    let tiles = |precision, lmin| MgkConfig { precision, lmin, xmv: XmvScheme::TilePairs, ..Default::default() };
    // random labeled weighted graphs: sizes across tile boundaries, sparse to dense (both primitives)
    let (kn, ke) = labeled_kernels();
    for (seed, precision, bound) in [(31u64, Precision::F32, 1e-5), (32, Precision::F64, 1e-10)] {
        let graphs = tile_boundary_graphs(seed, 0.6, seed == 32);
        for lmin in [0, 1] {
            let what = format!("tiles random {precision:?} lmin={lmin}");
            compare(dev, &graphs, &kn, &ke, tiles(precision, lmin), bound, &what);
        }
        let what = format!("tiles vs rows random {precision:?}");
        compare_schemes(dev, &graphs, &kn, &ke, tiles(precision, 0), 2.0 * bound, &what);
    }
    // MUTAG (labeled nodes and edges) and an unlabeled and a labeled synthetic set
    let mutag = dataset("MUTAG", false);
    let mutag = &mutag[..40];
    let delta = Field::new("label", KroneckerDelta::new(0.5));
    let nws = dataset("synthetic/NWS96", false);
    let ba = dataset("synthetic/BA96L", true);
    for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
        let p = tiles(precision, 0);
        compare(dev, mutag, &delta, &delta, p, bound, &format!("tiles MUTAG {precision:?}"));
        compare_schemes(dev, mutag, &delta, &delta, p, 2.0 * bound, &format!("tiles vs rows MUTAG {precision:?}"));
        let one = Constant::new(1.0);
        compare(dev, &nws[..6], &one, &one, p, bound, &format!("tiles NWS96 {precision:?}"));
        compare_schemes(dev, &nws[..6], &one, &one, p, 2.0 * bound, &format!("tiles vs rows NWS96 {precision:?}"));
        compare(dev, &ba[..6], &kn, &ke, p, bound, &format!("tiles BA96L {precision:?}"));
        compare_schemes(dev, &ba[..6], &kn, &ke, p, 2.0 * bound, &format!("tiles vs rows BA96L {precision:?}"));
    }
}

#[test]
fn tile_pair_xmv_nodal_matches_the_row_scheme() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(41);
    let graphs: Vec<G> = (0..3).map(|k| random_graph(15 + 8 * k, 0.2, k != 1, &mut rng)).collect();
    let (kn, ke) = labeled_kernels();
    for (precision, bound) in [(Precision::F32, 2e-5), (Precision::F64, 2e-10)] {
        let nodal = |xmv| {
            let params = MgkConfig { precision, xmv, ..Default::default() };
            GpuGram::new(dev, kn.clone(), ke.clone(), params).unwrap().nodal_all(&graphs).unwrap()
        };
        let (rows, tiles) = (nodal(XmvScheme::Rows), nodal(XmvScheme::TilePairs));
        assert_eq!(rows.len(), tiles.len());
        for (r, t) in rows.iter().zip(&tiles) {
            assert_eq!((r.rows, r.cols), (t.rows, t.cols));
            let scale = r.values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let worst = r.values.iter().zip(&t.values).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            assert!(worst <= bound * scale, "nodal {precision:?}: max abs diff {worst:.2e}, max |K_ii'| {scale:.2e}");
            assert!(rel_err(t.value, r.value) <= bound, "nodal {precision:?}: K {} vs {}", t.value, r.value);
        }
    }
}

/// The mid-size path (p and y in global memory, the whole PCG on the device,
/// one block per pair) on a mixed-size set: pairs above the shared-vector
/// limit take it, the others keep their vectors in shared memory, all in one
/// launch; with lmin = 1 their graphs are staged in global memory too (the
/// path of pairs whose graphs do not fit in shared memory); values against
/// the CPU f64 reference, nodal output against the shared-memory path.
#[test]
fn mid_size_path_on_a_mixed_set_matches_the_reference() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
    let graphs: Vec<G> = (0..7).map(|k| random_graph(2 + 11 * k, 0.2, k % 2 == 1, &mut rng)).collect();
    let (kn, ke) = labeled_kernels();
    for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
        for lmin in [0, 1] {
            let params = MgkConfig { precision, lmin, ..Default::default() };
            let mut gpu = GpuGram::new(dev, kn.clone(), ke.clone(), params).unwrap();
            gpu.gram_params_mut().shared_vector_limit = Some(usize::MAX);
            let shared = gpu.nodal_all(&graphs).unwrap();
            gpu.gram_params_mut().shared_vector_limit = Some(400);
            gpu.gram_params_mut().global_staging = lmin == 1;
            let up = gpu.upload(&graphs).unwrap();
            let out = gpu.gram(&up).unwrap();
            let global = gpu.nodal_all(&graphs).unwrap();
            let ref_params = MgkConfig { precision: Precision::F64, tol: Some(1e-13), ..params };
            let full = MgkConfig { lmin: 0, ..ref_params };
            let m = graphs.len();
            let (mut worst, mut worst_nodal, mut mid) = (0.0f64, 0.0f64, 0);
            let mut k = 0;
            for i in 0..m {
                for j in i..m {
                    mid += usize::from(graphs[i].num_nodes() * graphs[j].num_nodes() > 400);
                    let r = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], &kn, &ke, &ref_params).value;
                    let scale = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], &kn, &ke, &full).value.abs();
                    let v = out.values[i * m + j];
                    assert!(v.is_finite(), "K[{i},{j}] = {v}");
                    worst = worst.max((v - r).abs() / scale.max(1e-300));
                    let top = shared[k].values.iter().fold(0.0f64, |t, x| t.max(x.abs())).max(1e-300);
                    for (a, b) in global[k].values.iter().zip(&shared[k].values) {
                        worst_nodal = worst_nodal.max((a - b).abs() / top);
                    }
                    k += 1;
                }
            }
            assert!(mid >= 10, "only {mid} pairs above the limit");
            eprintln!(
                "mid-size {precision:?} lmin {lmin}: {mid} pairs on the mid-size path, worst relative error \
                 {worst:.2e}, nodal {worst_nodal:.2e}"
            );
            assert!(worst <= bound, "{precision:?} lmin {lmin}: worst relative error {worst:.2e}");
            assert!(worst_nodal <= bound, "{precision:?} lmin {lmin}: nodal differs by {worst_nodal:.2e}");
        }
    }
}

#[test]
fn mid_size_path_with_hubs_matches_the_reference() {
    // every pair on the mid-size path (vectors in global memory), with hub rows (node 0 joined
    // to every node) next to rows of degree 1-3
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
    let vs = Arc::new(Schema::new().with("label", FieldKind::Int));
    let es = Arc::new(Schema::new().with("label", FieldKind::Int).with("attr1", FieldKind::Float));
    let graphs: Vec<G> = (0..5)
        .map(|k| {
            let n = 30 + 17 * k;
            let labels =
                (0..n).map(|_| Record::new(vs.clone(), [Value::Int(rng.random_range(0..3))]).unwrap()).collect();
            let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(labels);
            for i in 0..n {
                for j in i + 1..n {
                    if i == 0 || rng.random::<f64>() < 0.05 {
                        let e =
                            Record::new(es.clone(), [Value::Int(rng.random_range(0..2)), Value::Float(rng.random())])
                                .unwrap();
                        b.push_edge(i, j, rng.random_range(0.5..2.0), e);
                    }
                }
            }
            b.build().unwrap()
        })
        .collect();
    let (kn, ke) = labeled_kernels();
    for (precision, bound) in [(Precision::F32, 1e-5), (Precision::F64, 1e-10)] {
        let params = MgkConfig { precision, ..Default::default() };
        let mut gpu = GpuGram::new(dev, kn.clone(), ke.clone(), params).unwrap();
        gpu.gram_params_mut().shared_vector_limit = Some(0);
        let up = gpu.upload(&graphs).unwrap();
        let out = gpu.gram(&up).unwrap();
        let ref_params = MgkConfig { precision: Precision::F64, tol: Some(1e-13), ..params };
        let m = graphs.len();
        let mut worst = 0.0f64;
        for i in 0..m {
            for j in i..m {
                let r = mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], &kn, &ke, &ref_params).value;
                worst = worst.max(rel_err(out.values[i * m + j], r));
            }
        }
        eprintln!("hubs {precision:?}: worst relative error {worst:.2e}");
        assert!(worst <= bound, "{precision:?}: worst relative error {worst:.2e}");
    }
}

#[test]
fn gradients_of_pairs_with_vectors_in_global_memory_match_the_cpu() {
    // four small graphs and one of 130 nodes: in f64 its pair with itself (16,900 product nodes,
    // 270 KB of vectors) does not fit in shared memory, so its gradient takes the global-vector
    // path on its own; the caps send more pairs there, with the graphs staged in shared or in
    // global memory
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(41);
    let mut graphs: Vec<G> = [9usize, 17, 30, 45].iter().map(|&n| random_graph(n, 0.15, false, &mut rng)).collect();
    graphs.push(random_graph(130, 0.03, false, &mut rng));
    let (kn, ke) = labeled_kernels();
    let m = graphs.len();
    for lmin in [0u32, 1] {
        let cpu = kronograph::mgk::MarginalizedGraphKernel::new(kn.clone(), ke.clone(), 0.05)
            .unwrap()
            .with_lmin(lmin)
            .unwrap()
            .with_precision(Precision::F64)
            .with_tolerance(1e-13)
            .unwrap();
        let (kc, gc) = cpu.gram_with_gradient(&graphs, false).unwrap();
        for (precision, tol, bound_k, bound_g) in
            [(Precision::F64, 1e-12, 1e-10, 1e-10), (Precision::F32, 1e-6, 1e-5, 1e-4)]
        {
            for (cap, global_stage) in [(None, false), (Some(200), false), (Some(0), true)] {
                let params = MgkConfig { precision, lmin, tol: Some(tol), ..Default::default() };
                let mut gpu = GpuGram::new(dev, kn.clone(), ke.clone(), params).unwrap();
                gpu.gram_params_mut().shared_vector_limit = cap;
                gpu.gram_params_mut().global_staging = global_stage;
                let up = gpu.upload(&graphs).unwrap();
                let out = gpu.gram_with_gradient(&up).unwrap();
                let what = format!("lmin {lmin} {precision:?} cap {cap:?} global staging {global_stage}");
                let scale_k = kc.as_slice().iter().fold(0.0f64, |s, v| s.max(v.abs()));
                let mut ek = 0.0f64;
                for i in 0..m {
                    for j in 0..m {
                        ek = ek.max((out.gram.values[i * m + j] - kc.get(i, j)).abs() / scale_k);
                    }
                }
                let k = out.names.len();
                let mut eg = 0.0f64;
                for (t, name) in gc.names().iter().enumerate() {
                    let s =
                        out.names.iter().position(|n| n == name).unwrap_or_else(|| panic!("{what}: no slot {name}"));
                    let (mut scale, mut diff) = (0.0f64, 0.0f64);
                    for i in 0..m {
                        for j in 0..m {
                            let (a, b) = (out.gradient[(i * m + j) * k + s], gc.get(i, j, t));
                            assert!(a.is_finite(), "{what}: {name} at ({i}, {j}) is {a}");
                            scale = scale.max(b.abs());
                            diff = diff.max((a - b).abs());
                        }
                    }
                    eg = eg.max(diff / scale.max(f64::MIN_POSITIVE));
                }
                eprintln!("gradient, {what}: K {ek:.1e}, gradient {eg:.1e}");
                assert!(ek <= bound_k && eg <= bound_g, "{what}: K {ek:e}, gradient {eg:e}");
            }
        }
    }
}
