//! The integration tests that the `cuda` feature changes, for the build
//! without it: `cargo test --release --no-default-features --test no_cuda`
//! (run by scripts/test.sh; `test = false` in Cargo.toml, so a plain
//! `cargo test` does not build it). The backend choice of the graph kernel:
//! an explicit CUDA request is the typed `CudaNotCompiled` error, `Auto` is
//! the CPU's answer. The modules are those of the main suite (tests/main.rs).
#![cfg(not(feature = "cuda"))]

mod device_common;
mod mgk_backend;
mod mgk_common;
