//! # kronograph
//!
//! GraphBLAS-style algebra over graphs and their tensor (Kronecker)
//! products, on CPU (rayon) and CUDA GPUs (cudarc + NVRTC).
//!
//! Data flows one way: files ([`graph::io`]) → [`graph::Graph`] → operators →
//! solvers → results. Every snippet below runs as it stands from your own
//! crate (the data set is bundled: [`datasets::mutag`]).
//!
//! ## 1. Graphs
//! ```
//! let ds = kronograph::datasets::mutag()?; // 188 molecules, atom and bond types as record labels
//! assert_eq!(ds.graphs.len(), 188);
//! assert_eq!(ds.edge_schema.describe(), "label: int");
//! # Ok::<(), kronograph::Error>(())
//! ```
//!
//! ## 2. A graph kernel
//! The normalized marginalized graph kernel with kernels on the `label`
//! fields ([`basekernel::spec`]); `gram_normalized_on(Backend::Auto, …)`
//! runs the same computation on a GPU when there is one.
//! ```
//! use kronograph::basekernel::spec::SpecKernel;
//! use kronograph::mgk::MarginalizedGraphKernel;
//! let ds = kronograph::datasets::mutag()?;
//! let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema)?;
//! let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema)?;
//! let k = MarginalizedGraphKernel::new(kv, ke, 0.05)?.gram_normalized(&ds.graphs[..6])?;
//! assert!((k.get(2, 2) - 1.0).abs() < 1e-12 && k.get(0, 1) < 1.0);
//! # Ok::<(), kronograph::Error>(())
//! ```
//!
//! ## 3. The Kronecker product as an operator, and a solver
//! [`kron::KronProduct`] is the lazy `(W ⊗ W') ⊙ κe` of two graphs (a field
//! the labels do not have is an error here, not a silent default);
//! [`kron::ShiftedKron`] makes `diag(d) − c A×` of it, a
//! [`solver::LinOp`] for [`solver::cg`] or a solver of your own
//! ([`solver::Preconditioner`], [`solver::IterParams`],
//! [`solver::krylov_start`]).
//! ```
//! use kronograph::basekernel::spec::SpecKernel;
//! use kronograph::kron::{Diag, KronProduct, Octiles, ShiftedKron};
//! use kronograph::solver::{cg, CgParams, Precond, Workspace};
//! let ds = kronograph::datasets::mutag()?;
//! let (g, h) = (&ds.graphs[0], &ds.graphs[1]);
//! let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema)?;
//! let (pg, ph) = (Octiles::<f64, _>::new(g), Octiles::<f64, _>::new(h));
//! let kron = KronProduct::new(&pg, &ph, &ke)?;
//! // D ⊗ D' − 0.9 A×: diagonally dominant, so CG applies
//! let d: Vec<f64> = g.degrees().iter().flat_map(|&a| h.degrees().iter().map(move |&b| a * b)).collect();
//! let op = ShiftedKron::new(Diag::Vec(&d), 0.9, &kron)?;
//! let mut x = vec![0.0; d.len()];
//! let info = cg(&op, &vec![1.0; d.len()], &mut x, &CgParams::new(1e-12, Precond::Jacobi), &mut Workspace::new())?;
//! assert!(info.rel_residual <= 1e-12);
//! # Ok::<(), kronograph::Error>(())
//! ```
//!
//! ## 4. Your own pair system over many pairs
//! A [`kron::PairSystem`] states the diagonal, right-hand side and output
//! of `(diag(d) − c (W ⊗ W') ⊙ κe) x = b`; [`kron::solve_pairs`] solves a
//! list of pairs in parallel, with nodal outputs and gradients by adjoint
//! solves, on the CPU or on a CUDA device ([`kron::PairSolve::backend`]:
//! every pair in one batched launch, f64 or f32, directed graphs too),
//! equal to the CPU to 1e-12 in f64.
//! `examples/own_system.rs` is the whole walk-through (dense and
//! finite-difference checks, the GPU, and an own Chebyshev iteration written
//! once over the [`solver::Vector`] trait and run over the CPU product and
//! over the device product, `kron::DeviceKron` with [`cuda::DeviceVec`]).
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
//! 8. **`own_system`** — your own pair system with its own right-hand side
//!    and output ([`kron::PairSystem`], [`kron::solve_pairs`],
//!    on either backend) with gradients on the CPU and the GPU, and
//!    your own Chebyshev solver over the operator on either.
//!
//! Errors are one type, [`Error`]; `fn main() -> kronograph::Result<()>`
//! prints its message (what went wrong and what to change). Graphs without
//! labels use `()` labels and the [`Unlabeled`] kernel.

#![warn(missing_docs)]
// The documentation describes the full library; without the `cuda` feature the
// GPU items it links to are compiled out, so those links cannot resolve there.
#![cfg_attr(not(feature = "cuda"), allow(rustdoc::broken_intra_doc_links))]

/// `pub_for_testing! { /// docs
/// pub ITEM }`: one item (a `use`, `const` or `fn`) that is public with
/// the `testing` feature (the tests and benchmark binaries use it) and
/// crate-private without, so that internals stay out of the public API.
macro_rules! pub_for_testing {
    ($(#[$m:meta])* pub $($item:tt)*) => {
        #[cfg(feature = "testing")]
        $(#[$m])* pub $($item)*
        #[cfg(not(feature = "testing"))]
        #[allow(dead_code, unused_imports)]
        $(#[$m])* pub(crate) $($item)*
    };
}

pub mod algorithms;
pub mod backend;
pub mod basekernel;
pub mod cuda;
pub mod datasets;
pub mod error;
pub mod graph;
pub mod graphlets;
pub mod kron;
mod label_struct;
pub mod matrix;
pub mod mgk;
pub mod motif;
mod precision;
pub mod rw;
pub(crate) mod simd;
pub mod solver;
pub mod spread;

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
