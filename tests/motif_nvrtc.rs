//! The motif sieve's kernels compile with NVRTC, on machines without a GPU too.
//!
//! Skips when libnvrtc is absent, unless `KRONOGRAPH_REQUIRE_NVRTC=1` or
//! `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use kronograph::cuda::jit::{compile, nvrtc_available, options};
use kronograph::motif::CUDA_SOURCE;

fn required() -> bool {
    ["KRONOGRAPH_REQUIRE_NVRTC", "KRONOGRAPH_REQUIRE_GPU"].iter().any(|v| std::env::var(v).is_ok_and(|s| s == "1"))
}

#[test]
fn motif_kernels_compile() {
    if !nvrtc_available() {
        assert!(!required(), "libnvrtc is required (KRONOGRAPH_REQUIRE_NVRTC/GPU=1) but could not be loaded");
        eprintln!("skipping: libnvrtc not found (put nvidia/cu13/lib of nvidia-cuda-nvrtc on LD_LIBRARY_PATH)");
        return;
    }
    for arch in [(9, 0), (8, 0)] {
        let image =
            compile(CUDA_SOURCE, "motif", &options(arch)).unwrap_or_else(|e| panic!("sm_{}{}: {e}", arch.0, arch.1));
        assert!(image.len() > 1000, "a CUBIN of {} bytes", image.len());
    }
}
