//! The motif sieve's kernels compile with NVRTC, on machines without a GPU too.
//!
//! Skips when libnvrtc is absent, unless `KRONOGRAPH_REQUIRE_NVRTC=1` or
//! `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use crate::nvrtc_common;

use kronograph::cuda::jit::{compile, options};
use kronograph::motif::CUDA_SOURCE;
use nvrtc_common::{check_options, nvrtc_or_skip};

#[test]
fn motif_kernels_compile() {
    if !nvrtc_or_skip() {
        return;
    }
    for arch in [(9, 0), (8, 0)] {
        let image = compile(CUDA_SOURCE, "motif", &check_options(options(arch)))
            .unwrap_or_else(|e| panic!("sm_{}{}: {e}", arch.0, arch.1));
        assert!(image.len() > 1000, "a CUBIN of {} bytes", image.len());
    }
}
