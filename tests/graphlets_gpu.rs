//! The FGLT kernels: they compile with NVRTC (machines without a GPU too),
//! and on a GPU they give exactly the CPU's counts.
//!
//! NVRTC tests skip without libnvrtc unless `KRONOGRAPH_REQUIRE_NVRTC=1` or
//! `KRONOGRAPH_REQUIRE_GPU=1`; GPU tests skip without a GPU unless
//! `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use crate::nvrtc_common::{check_options, nvrtc_or_skip};
use kronograph::cuda::jit::{compile, options};
use kronograph::cuda::Backend;
use kronograph::graph::generate::{erdos_renyi_gnm, rmat, RmatParams};
use kronograph::graph::io::mtx;
use kronograph::graph::{Direction, Graph, GraphBuilder};
use kronograph::graphlets::{fglt, gpu};
use rand::SeedableRng;

use crate::device_common::gpu_or_skip;

#[test]
fn fglt_kernels_compile() {
    if !nvrtc_or_skip() {
        return;
    }
    for arch in [(9, 0), (8, 0)] {
        let image = compile(gpu::source(), gpu::MODULE, &check_options(options(arch)))
            .unwrap_or_else(|e| panic!("kernels/fglt.cu for sm_{}{}: {e}", arch.0, arch.1));
        assert!(image.len() > 1000);
        for k in gpu::KERNELS {
            assert!(image.windows(k.len()).any(|w| w == k.as_bytes()), "kernel {k} missing from the image");
        }
    }
}

fn same_on_gpu(name: &str, g: &Graph) {
    let cpu = fglt(g, Backend::Cpu).unwrap();
    let gpu = fglt(g, Backend::Cuda(0)).unwrap();
    assert_eq!(gpu.device, Some(0));
    assert_eq!(cpu.raw, gpu.raw, "raw counts of {name}");
    assert_eq!(cpu.net, gpu.net, "net counts of {name}");
}

#[test]
fn gpu_equals_cpu_exactly() {
    if gpu_or_skip().is_none() {
        return;
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/snap");
    for name in ["facebook_combined", "oregon1_010331"] {
        same_on_gpu(name, &mtx::read(format!("{dir}/{name}.mtx")).unwrap());
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    same_on_gpu("rmat14", &rmat(&RmatParams::graph500(14), &mut rng).unwrap());
    same_on_gpu("gnm", &erdos_renyi_gnm(5000, 60_000, &mut rng).unwrap());
    for seed in 0..20 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        same_on_gpu("small gnm", &erdos_renyi_gnm(12, 10 + seed as usize * 2, &mut rng).unwrap());
    }
}

#[test]
fn gpu_handles_empty_and_isolated() {
    if gpu_or_skip().is_none() {
        return;
    }
    for n in [0, 1, 5] {
        let g = GraphBuilder::<(), ()>::new(n, Direction::Undirected).default_node_labels().build().unwrap();
        same_on_gpu("edgeless", &g);
    }
}

fn edge_graph(n: usize, edges: &[(usize, usize)]) -> Graph {
    let mut b = GraphBuilder::<(), ()>::new(n, Direction::Undirected)
        .default_node_labels()
        .duplicates(kronograph::graph::Duplicates::KeepFirst);
    for &(u, v) in edges {
        b.push_edge(u, v, 1.0, ());
    }
    b.build().unwrap()
}

/// Rows of every sorting tier of the device's relabelling (≤ 32 entries,
/// 33–4096, past 4096), self-loops, isolated vertices and ties in degree.
#[test]
fn gpu_relabels_rows_of_every_length() {
    if gpu_or_skip().is_none() {
        return;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    use rand::Rng;
    let n = 12_000;
    let mut edges = Vec::new();
    for leaf in 1..6000 {
        edges.push((0, leaf)); // a hub of 5999 (bitmap sort)
    }
    for u in 6000..6100 {
        for v in (u + 1)..6100 {
            edges.push((u, v)); // a 100-clique (rows of 99 + : block sort)
        }
        edges.push((u, u)); // self-loops
    }
    for _ in 0..40_000 {
        edges.push((rng.random_range(0..11_000), rng.random_range(0..11_000)));
    }
    let g = edge_graph(n, &edges);
    same_on_gpu("tiers", &g);
    let gpu = fglt(&g, Backend::Cuda(0)).unwrap();
    assert_eq!(gpu.ignored.self_loops, g.self_loops());
}

/// Past the degree whose cube fits in 64 bits the device hands the
/// primitives to the host's checked assembly: equal counts while they fit,
/// and the claw centre's C(k, 3) past 2^64 an error naming the hub.
#[test]
fn gpu_large_degrees_take_the_checked_assembly() {
    if gpu_or_skip().is_none() {
        return;
    }
    let k = gpu::EXACT_DEGREE as usize + 10;
    let star = |k: usize, hub: usize| {
        let mut e: Vec<(usize, usize)> = (0..=k).filter(|&v| v != hub).map(|v| (hub, v)).collect();
        e.push((1, 2)); // one triangle with the hub
        edge_graph(k + 1, &e)
    };
    same_on_gpu("star past the exact degree", &star(k, 3));
    let e = fglt(&star(5_000_000, 7), Backend::Cuda(0)).unwrap_err().to_string();
    assert!(e.contains("vertex 7") && e.contains("[8]"), "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Random small graphs (self-loops and repeated edges in the input):
    /// the device's counts equal the CPU's (which equal brute force,
    /// tests/graphlets_fglt.rs).
    #[test]
    fn gpu_equals_cpu_on_random_graphs(
        n in 1usize..40,
        edges in proptest::collection::vec((0usize..40, 0usize..40), 0..300),
    ) {
        if gpu_or_skip().is_some() {
            let edges: Vec<(usize, usize)> = edges.into_iter().map(|(u, v)| (u % n, v % n)).collect();
            same_on_gpu("random", &edge_graph(n, &edges));
        }
    }
}
