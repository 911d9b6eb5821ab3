//! # kronograph
//!
//! GraphBLAS-style algebra over graphs and their tensor (Kronecker)
//! products, on CPU (rayon) and CUDA GPUs (cudarc + NVRTC).
//!
//! Data flows one way: files ([`graph::io`]) → [`graph::Graph`] → operators →
//! solvers → results.
//!
//! ```
//! use kronograph::graph::io::tu;
//! let ds = tu::read_dataset(concat!(env!("CARGO_MANIFEST_DIR"), "/data/MUTAG")).unwrap();
//! assert_eq!(ds.graphs.len(), 188);
//! ```

#![warn(missing_docs)]

pub mod algorithms;
pub mod backend;
pub mod basekernel;
pub mod cuda;
pub mod error;
pub mod graph;
pub mod graphlets;
pub mod kron;
pub mod matrix;
pub mod mgk;
pub mod motif;
pub mod solver;

pub use backend::{Backend, Precision};
pub use error::{Error, Result};
/// The base kernel that ignores labels (κ ≡ 1), for unlabeled nodes or edges.
pub use kron::Unlabeled;
pub use kronograph_semirings as semirings;
/// The [`petgraph`](https://docs.rs/petgraph) this crate converts from
/// ([`graph::Graph::from_petgraph`]): use it to build graphs, so that the
/// versions always match.
pub use petgraph;

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
