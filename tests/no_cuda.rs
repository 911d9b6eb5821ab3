//! The integration tests that the `cuda` feature changes, for the build
//! without it: `cargo test --release --no-default-features --test no_cuda`
//! (run by scripts/test.sh; `test = false` in Cargo.toml, so a plain
//! `cargo test` does not build it). An explicit CUDA request is the typed
//! `CudaNotCompiled` error and `Auto` is the CPU's answer: the graph
//! kernel's backend choice (`mgk_backend`), the random walk's (`rw`) and
//! the CLI's `--backend cuda` (`cli_algorithms`). The modules are those of
//! the main suite (tests/main.rs).
#![cfg(not(feature = "cuda"))]

mod cli_algorithms;
mod device_common;
mod mgk_backend;
mod mgk_common;
mod rw;
