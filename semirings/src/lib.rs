//! Monoids and semirings for kronograph, each with its CUDA C++ form.
//!
//! A [`Monoid<T>`] is a value (not a property of the scalar type `T`): an
//! associative `combine` with an `identity`, optionally a `terminal` value
//! (an annihilator of `combine`, which lets reductions stop early), and a flag
//! saying whether it is idempotent (`x ⊕ x = x`). A [`Semiring`] is an
//! additive monoid on its output type `C` plus a multiply `A × B → C`. Because
//! both are values, `(min, +)` over `f64` is simply [`MinPlus<f64>`]: no
//! newtype around the scalar is needed (the shape of SuiteSparse:GraphBLAS,
//! not of `sprs`' `MulAcc`).
//!
//! The arithmetic semirings are generic over [`Number`] (`f32`, `f64`,
//! `i32`, `i64`, `u32`, `u64`), a small trait of this crate rather than
//! `num-traits`' because it also carries each type's infinities, wrapping
//! and saturating arithmetic, and CUDA spelling; the crate has no
//! dependencies.
//!
//! The multiply receives the [`Position`] `(i, k, j)` of its operands
//! `a = A(i, k)`, `b = B(k, j)`, so that positional semirings such as
//! [`AnySecondi`] (BFS parents) are ordinary semirings.
//!
//! Every semiring and monoid is built the same way, with `::new()` (a `const
//! fn`; [`Default`] gives the same value): `MinPlus::<f64>::new()`,
//! `Gf256::new()`, `LorLand::new()`, `Min::new()`. The element type of a
//! generic one is usually inferred from the operands (`a.mxv(&x,
//! MinPlus::new())` in kronograph's `matrix` module). They are zero-sized.
//!
//! Every built-in semiring also carries its CUDA C++ form ([`CudaSemiring`]):
//! the operand and output types, `kg_add`, `kg_mul`, `KG_IDENTITY`,
//! `KG_TERMINAL` and `kg_atomic_add`, as source text for kernel generation.
//!
//! ```
//! use kronograph_semirings::{MinPlus, PlusTimes, Semiring, Monoid, Position};
//! let p = Position::default();
//! let mp = MinPlus::<f64>::new();
//! assert_eq!(mp.add(mp.multiply(1.0, 2.0, p), mp.multiply(0.5, 4.0, p)), 3.0);
//! assert_eq!(mp.zero(), f64::INFINITY);
//! let pt = PlusTimes::<i32>::new();
//! assert_eq!(pt.add(pt.multiply(2, 3, p), 4), 10);
//! ```

#![warn(missing_docs)]

pub mod bitsliced;
mod builtin;
mod cuda;
mod gf;
mod monoid;
mod number;

pub use builtin::{AnyPair, AnySecondi, LorLand, MaxMin, MaxPlus, MinPlus, PlusPair, PlusTimes};
pub use cuda::{check_cuda_snippet, CudaSemiring, CudaSnippetError};
pub use gf::{
    gf256_mul, gf2p64_has_clmul, gf2p64_mul, gf2p64_mul_portable, Gf256, Gf2p64, GF256_MODULUS, GF2P64_MODULUS_LOW,
};
pub use monoid::{Any, Land, Lor, Max, Min, Monoid, Plus, Times, Xor};
pub use number::Number;

use std::fmt::Debug;

/// The positions of the two operands of one multiply: `a = A(i, k)` and
/// `b = B(k, j)`, `k` being the shared (inner) index.
///
/// For `w = A x` (mxv) the vector is the `n × 1` matrix `B`, so `j = 0`; for
/// `wᵀ = uᵀ A` (vxm) the vector is the `1 × n` matrix `A`, so `i = 0`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Position {
    /// Row of the first operand.
    pub i: usize,
    /// Column of the first operand = row of the second.
    pub k: usize,
    /// Column of the second operand.
    pub j: usize,
}

impl Position {
    /// The position `(i, k, j)`.
    #[inline]
    pub fn new(i: usize, k: usize, j: usize) -> Self {
        Position { i, k, j }
    }
}

/// A semiring `(C, ⊕, 0, ⊗)` with `⊗ : A × B → C`: an additive
/// [`Monoid`] on the output type and a multiply.
///
/// Laws (checked by property tests for each built-in, exactly for integer
/// and finite-field semirings, on exactly representable values for floats):
/// `⊕` is associative and commutative with identity `0`; `⊗` is associative
/// (when `A = B = C`) and distributes over `⊕`; `0` annihilates `⊗`.
/// Positional multiplies ([`AnySecondi`]) only satisfy the monoid laws.
pub trait Semiring: Copy + Send + Sync + Debug + 'static {
    /// Type of the first operand (entries of the left matrix or vector).
    type A: Copy + Send + Sync + Debug + 'static;
    /// Type of the second operand.
    type B: Copy + Send + Sync + Debug + 'static;
    /// Output type.
    type C: Copy + Send + Sync + Debug + PartialEq + 'static;
    /// The additive monoid.
    type Add: Monoid<Self::C>;

    /// The additive monoid `(C, ⊕, 0)`.
    fn add_monoid(&self) -> Self::Add;

    /// The product `a ⊗ b` of `a = A(i, k)` and `b = B(k, j)`, `pos = (i, k, j)`.
    fn multiply(&self, a: Self::A, b: Self::B, pos: Position) -> Self::C;

    /// `x ⊕ y`.
    #[inline]
    fn add(&self, x: Self::C, y: Self::C) -> Self::C {
        self.add_monoid().combine(x, y)
    }

    /// `0`, the additive identity.
    #[inline]
    fn zero(&self) -> Self::C {
        self.add_monoid().identity()
    }

    /// A short name such as `"min_plus_f64"` (used to name generated kernels).
    fn name(&self) -> String;

    /// The CUDA C++ form of this semiring.
    ///
    /// The default is [`CudaSemiring::unavailable`]: a semiring used on the
    /// CPU only needs no CUDA form, and running it on the GPU fails to
    /// compile with a message naming the semiring and this method.
    fn cuda(&self) -> CudaSemiring {
        CudaSemiring::unavailable(&self.name())
    }
}
