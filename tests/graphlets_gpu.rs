//! The FGLT kernels: they compile with NVRTC (machines without a GPU too),
//! and on a GPU they give exactly the CPU's counts.
//!
//! NVRTC tests skip without libnvrtc unless `KRONOGRAPH_REQUIRE_NVRTC=1` or
//! `KRONOGRAPH_REQUIRE_GPU=1`; GPU tests skip without a GPU unless
//! `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use crate::nvrtc_common::nvrtc_or_skip;
use kronograph::cuda::jit::{compile, options};
use kronograph::cuda::Backend;
use kronograph::graph::generate::{erdos_renyi_gnm, rmat, RmatParams};
use kronograph::graph::io::mtx;
use kronograph::graph::{Direction, Graph, GraphBuilder};
use kronograph::graphlets::{fglt, gpu};
use rand::SeedableRng;

fn gpu_or_skip() -> bool {
    crate::device_common::gpu_or_skip().is_some()
}

#[test]
fn fglt_kernels_compile() {
    if !nvrtc_or_skip() {
        return;
    }
    for arch in [(9, 0), (8, 0)] {
        let image = compile(gpu::SOURCE, gpu::MODULE, &options(arch))
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
    if !gpu_or_skip() {
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
    if !gpu_or_skip() {
        return;
    }
    for n in [0, 1, 5] {
        let g = GraphBuilder::<(), ()>::new(n, Direction::Undirected).default_node_labels().build().unwrap();
        same_on_gpu("edgeless", &g);
    }
}
