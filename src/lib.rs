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
//!
//! # A tour of the examples
//!
//! Each example in `examples/` is the shortest complete program for one
//! task; CI runs them all (`cargo run --release --example NAME`). Read them
//! in this order:
//!
//! 1. **`graphs`** — graphs from code: a [`GraphBuilder`](graph::GraphBuilder)
//!    with struct node labels, a seeded generator ([`graph::generate`]), and
//!    any [`petgraph`] graph through
//!    [`Graph::from_petgraph`](graph::Graph::from_petgraph) (parallel edges:
//!    [`GraphBuilder::from_petgraph`](graph::GraphBuilder::from_petgraph) with
//!    [`Duplicates`](graph::Duplicates)). Files load with [`graph::io::load`]
//!    (TU data sets, Matrix Market, edge lists).
//! 2. **`semirings`** — the [`matrix`] operations over [`semirings`]:
//!    shortest paths over (min, +) with an in-place product, triangles by a
//!    masked (plus, pair) `mxm`, and `mxv` over the field GF(2^8). Products
//!    have a method form (`a.mxv(&x, MinPlus::new()).mask(&m).accum(&f64::min).into(&mut y)`)
//!    beside the GraphBLAS-shaped functions ([`matrix::mxv`], …).
//! 3. **`mutag_gram`** — the marginalized graph kernel
//!    ([`mgk::MarginalizedGraphKernel`]): MUTAG's normalized Gram matrix
//!    from kernel SPECs ([`basekernel::spec`]). `gram_normalized_on` runs
//!    the same computation on a CUDA GPU ([`Backend`]).
//! 4. **`custom_kernel`** and **`custom_laplacian`** — your own base kernel
//!    ([`basekernel::BaseKernel`]) on your own label type, combined with the
//!    built-in ones, with its gradient and CUDA form.
//! 5. **`fit_hyperparameters`** — gradients of the Gram matrix with respect
//!    to log θ, and gradient ascent on the kernel's hyperparameters.
//! 6. **`kron_solver`** — the lazy Kronecker product
//!    ([`kron::KronProduct`], [`kron::ShiftedKron`]) as an operator for the
//!    iterative solvers ([`solver::cg`]): an own tensor-product system,
//!    checked against a dense solve.
//! 7. **`kron_system`** — an own tensor-product system over every pair of
//!    a data set through the graph-kernel API ([`mgk::KronSystem`]), on the
//!    CPU or a GPU.
//!
//! Errors are one type, [`Error`]; `fn main() -> kronograph::Result<()>`
//! prints its message (what went wrong and what to change). Graphs without
//! labels use `()` labels and the [`Unlabeled`] kernel.

#![warn(missing_docs)]

pub mod algorithms;
pub mod backend;
pub mod basekernel;
pub mod cuda;
pub mod datasets;
pub mod error;
pub mod graph;
pub mod graphlets;
pub mod kron;
pub mod matrix;
pub mod mgk;
pub mod motif;
pub(crate) mod simd;
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
/// The [`rand`](https://docs.rs/rand) the random graph generators
/// ([`graph::generate`]) take their `Rng` from: `kronograph::rand::SeedableRng`
/// without adding the crate yourself.
pub use rand;
/// The seedable generator the examples and tests use
/// (`kronograph::rand_chacha::ChaCha8Rng`).
pub use rand_chacha;

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
