//! The one GPU-skip rule of the integration tests, and [`test_device!`], which
//! runs a test on the CPU and on every CUDA device present (candle's
//! `test_device!`).
//!
//! GPU tests skip without a usable CUDA device (or without the `cuda`
//! feature) and fail instead when `KRONOGRAPH_REQUIRE_GPU=1`.
#![allow(dead_code, unused_macros, unused_imports)]

use kronograph::cuda::Backend;

/// Whether a GPU must be there (`KRONOGRAPH_REQUIRE_GPU=1`).
pub fn gpu_required() -> bool {
    std::env::var("KRONOGRAPH_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// The ordinals of the usable CUDA devices; none (with a note on stderr) when
/// there is no device, which fails the test when [`gpu_required`].
pub fn gpu_ordinals() -> Vec<usize> {
    match kronograph::cuda::device_count() {
        Ok(n) if n > 0 => (0..n).collect(),
        other => {
            assert!(!gpu_required(), "KRONOGRAPH_REQUIRE_GPU=1 but no usable CUDA device: {other:?}");
            eprintln!("skipping: no usable CUDA device ({other:?})");
            Vec::new()
        }
    }
}

/// The first CUDA device's ordinal, or `None` (the test skips; it fails
/// instead when [`gpu_required`]).
pub fn gpu_or_skip() -> Option<usize> {
    gpu_ordinals().first().copied()
}

/// [`Backend::Cuda`] of every usable device (empty: the test skips).
pub fn gpu_backends() -> Vec<Backend> {
    gpu_ordinals().into_iter().map(Backend::Cuda).collect()
}

/// `test_device!(body, cpu_test, gpu_test)` defines two tests from
/// `fn body(backend: Backend)`: `cpu_test` runs it on [`Backend::Cpu`],
/// `gpu_test` on every CUDA device present (it skips without one, and fails
/// then when `KRONOGRAPH_REQUIRE_GPU=1`).
macro_rules! test_device {
    ($body:ident, $cpu:ident, $gpu:ident) => {
        #[test]
        fn $cpu() {
            $body(kronograph::cuda::Backend::Cpu)
        }

        #[test]
        fn $gpu() {
            for backend in $crate::device_common::gpu_backends() {
                $body(backend)
            }
        }
    };
}
pub(crate) use test_device;
