//! The random-walk kernel's device code (the host side, which pairs go
//! where, is in `rw/backend.rs` and `rw/gpu_pairs.rs`): the moment series of
//! undirected graphs ([`series`], `kernels/rw_series.cu`) and the
//! fixed-point iteration of directed ones ([`fixed`], `kernels/rw_fixed.cu`).
//! The remaining pairs run on the marginalized graph kernel's GPU engine.

pub(crate) mod fixed;
pub(crate) mod series;
