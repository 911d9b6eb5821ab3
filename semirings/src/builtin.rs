//! The built-in semirings.

use crate::cuda::CudaSemiring;
use crate::gf::{gf256_mul, gf2p64_mul, Gf256, Gf2p64};
use crate::monoid::{Any, Lor, Max, Min, Plus, Xor};
use crate::number::Number;
use crate::{Position, Semiring};
use std::fmt::Debug;
use std::marker::PhantomData;

macro_rules! phantom_semiring {
    ($(#[$m:meta])* $name:ident < $($p:ident),+ >) => {
        $(#[$m])*
        pub struct $name<$($p),+>(PhantomData<fn() -> ($($p,)+)>);
        impl<$($p),+> $name<$($p),+> {
            /// The semiring (a zero-sized value).
            pub const fn new() -> Self {
                $name(PhantomData)
            }
        }
        impl<$($p),+> Clone for $name<$($p),+> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($p),+> Copy for $name<$($p),+> {}
        impl<$($p),+> Default for $name<$($p),+> {
            fn default() -> Self {
                Self::new()
            }
        }
        impl<$($p),+> Debug for $name<$($p),+> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
}

phantom_semiring!(
    /// `(T, +, 0, ·)`: the arithmetic semiring (integer arithmetic wraps).
    PlusTimes<T>
);
phantom_semiring!(
    /// `(T, min, +∞, +)`: shortest paths. Integer `+` saturates and treats
    /// `T::MAX` as `+∞` (so `∞ ⊗ x = ∞`).
    MinPlus<T>
);
phantom_semiring!(
    /// `(T, max, −∞, +)`: longest / critical paths. `T::MIN_VALUE` is `−∞`
    /// (for unsigned integers that is 0).
    MaxPlus<T>
);
phantom_semiring!(
    /// `(T, max, −∞, min)`: bottleneck (widest) paths.
    MaxMin<T>
);
phantom_semiring!(
    /// `(bool, any, ·, pair)`: `a ⊗ b = true` for any stored operands. The
    /// reachability semiring of BFS levels; operands of any types `A`, `B`.
    AnyPair<A, B>
);
phantom_semiring!(
    /// `(u64, any, ·, secondi)`: `A(i, k) ⊗ B(k, j) = k`, the index shared by the
    /// operands. In `qᵀ A` (vxm) an output `j` gets some `k` with `q(k)` and
    /// `A(k, j)` stored: a BFS parent of `j`. Operands are not read.
    AnySecondi<A, B>
);
phantom_semiring!(
    /// `(C, +, 0, pair)`: `a ⊗ b = 1`, so `⊕` counts the terms — common
    /// neighbours, triangles. Operands are not read.
    PlusPair<A, B, C>
);

/// `(bool, ∨, false, ∧)`: boolean reachability.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LorLand;

impl LorLand {
    /// The semiring (as every semiring of this crate is built).
    pub const fn new() -> Self {
        LorLand
    }
}

// ---------------------------------------------------------------- CUDA pieces

fn cuda_plus_add() -> &'static str {
    "return x + y;"
}

fn cuda_min_add() -> &'static str {
    "return y < x ? y : x;"
}

fn cuda_max_add() -> &'static str {
    "return y > x ? y : x;"
}

/// `a + b` with `∓∞` operands and integer saturation, matching [`Number::add_inf`].
fn cuda_add_inf<T: Number>() -> String {
    let (max, min) = (T::CUDA_MAX, T::CUDA_MIN);
    if T::IS_FLOAT {
        format!("if (a == {max} || b == {max}) return {max};\n    return a + b;")
    } else if T::IS_SIGNED {
        format!(
            "if (a == {max} || b == {max}) return {max};\n    if (a == {min} || b == {min}) return {min};\n    \
             if (b > 0 && a > {max} - b) return {max};\n    if (b < 0 && a < {min} - b) return {min};\n    return a + b;"
        )
    } else {
        format!("if (a == {max} || b == {max}) return {max};\n    kg_c_t r = a + b;\n    return r < a ? {max} : r;")
    }
}

/// A compare-and-swap loop performing `*p = kg_add(*p, v)` atomically.
fn cuda_cas_atomic<T: Number>() -> String {
    let (bits, to, from) = match (T::CUDA_TYPE, std::mem::size_of::<T>()) {
        ("float", _) => ("unsigned int", "__float_as_uint", "__uint_as_float"),
        ("double", _) => ("unsigned long long", "(unsigned long long)__double_as_longlong", "__longlong_as_double"),
        (_, 4) => ("unsigned int", "(unsigned int)", "(kg_c_t)"),
        _ => ("unsigned long long", "(unsigned long long)", "(kg_c_t)"),
    };
    let from_arg = if T::CUDA_TYPE == "double" { "(long long)assumed" } else { "assumed" };
    format!(
        "{bits} *bp = ({bits} *)p;\n    {bits} old = *bp, assumed;\n    do {{\n        assumed = old;\n        \
         {bits} next = {to}(kg_add({from}({from_arg}), v));\n        if (next == assumed) return;\n        \
         old = atomicCAS(bp, assumed, next);\n    }} while (assumed != old);"
    )
}

fn cuda_atomic_plus<T: Number>() -> String {
    match T::CUDA_TYPE {
        "long long" => "atomicAdd((unsigned long long *)p, (unsigned long long)v);".into(),
        _ => "atomicAdd(p, v);".into(),
    }
}

fn cuda_atomic_minmax<T: Number>(op: &str) -> String {
    if T::IS_FLOAT {
        cuda_cas_atomic::<T>()
    } else {
        format!("{op}(p, v);")
    }
}

fn number_cuda<T: Number>(
    name: String,
    identity: &str,
    terminal: Option<&str>,
    add: &str,
    multiply: String,
    atomic: String,
) -> CudaSemiring {
    CudaSemiring {
        name,
        a_type: T::CUDA_TYPE.into(),
        b_type: T::CUDA_TYPE.into(),
        c_type: T::CUDA_TYPE.into(),
        identity: identity.into(),
        terminal: terminal.map(str::to_string),
        any_terminal: false,
        helpers: String::new(),
        add: add.into(),
        multiply,
        atomic_update: atomic,
    }
}

// ---------------------------------------------------------------- arithmetic

/// `impl Semiring` for a semiring over one [`Number`] type (`A = B = C = T`):
/// its add monoid (a unit struct), the prefix of its name (`<prefix>_<T>`),
/// `multiply`, and the arguments of [`number_cuda`] after the name.
macro_rules! number_semiring {
    ($s:ident: add $add:ident, name $name:literal, multiply |$a:ident, $b:ident| $mul:block, cuda $($cuda:expr),+ $(,)?) => {
        impl<T: Number> Semiring for $s<T> {
            type A = T;
            type B = T;
            type C = T;
            type Add = $add;
            #[inline]
            fn add_monoid(&self) -> $add {
                $add
            }
            #[inline]
            fn multiply(&self, $a: T, $b: T, _: Position) -> T $mul
            fn name(&self) -> String {
                format!(concat!($name, "_{}"), T::NAME)
            }
            fn cuda(&self) -> CudaSemiring {
                number_cuda::<T>(self.name(), $($cuda),+)
            }
        }
    };
}

number_semiring!(PlusTimes: add Plus, name "plus_times", multiply |a, b| { a.mul(b) }, cuda
    &format!("({})({})", T::CUDA_TYPE, if T::IS_FLOAT { "0.0" } else { "0" }),
    None,
    cuda_plus_add(),
    "return a * b;".into(),
    cuda_atomic_plus::<T>(),
);

number_semiring!(MinPlus: add Min, name "min_plus", multiply |a, b| { a.add_inf(b) }, cuda
    T::CUDA_MAX,
    Some(T::CUDA_MIN),
    cuda_min_add(),
    cuda_add_inf::<T>(),
    cuda_atomic_minmax::<T>("atomicMin"),
);

// −∞ annihilates: an operand equal to MIN_VALUE gives MIN_VALUE.
number_semiring!(MaxPlus: add Max, name "max_plus", multiply |a, b| {
    if a == T::MIN_VALUE || b == T::MIN_VALUE {
        T::MIN_VALUE
    } else {
        a.add_inf(b)
    }
}, cuda
    T::CUDA_MIN,
    Some(T::CUDA_MAX),
    cuda_max_add(),
    format!("if (a == {min} || b == {min}) return {min};\n    {}", cuda_add_inf::<T>(), min = T::CUDA_MIN),
    cuda_atomic_minmax::<T>("atomicMax"),
);

number_semiring!(MaxMin: add Max, name "max_min", multiply |a, b| { a.min2(b) }, cuda
    T::CUDA_MIN,
    Some(T::CUDA_MAX),
    cuda_max_add(),
    "return b < a ? b : a;".into(),
    cuda_atomic_minmax::<T>("atomicMax"),
);

// ---------------------------------------------------------------- boolean and structural

impl Semiring for LorLand {
    type A = bool;
    type B = bool;
    type C = bool;
    type Add = Lor;
    #[inline]
    fn add_monoid(&self) -> Lor {
        Lor
    }
    #[inline]
    fn multiply(&self, a: bool, b: bool, _: Position) -> bool {
        a && b
    }
    fn name(&self) -> String {
        "lor_land_bool".into()
    }
    fn cuda(&self) -> CudaSemiring {
        CudaSemiring {
            name: self.name(),
            a_type: "bool".into(),
            b_type: "bool".into(),
            c_type: "bool".into(),
            identity: "false".into(),
            terminal: Some("true".into()),
            any_terminal: false,
            helpers: String::new(),
            add: "return x || y;".into(),
            multiply: "return a && b;".into(),
            // OR is idempotent and its only change is false -> true: a plain
            // store of `true` is a correct atomic update.
            atomic_update: "if (v) *(volatile bool *)p = true;".into(),
        }
    }
}

/// Operands of the structural semirings are not read on the GPU; kernels
/// pass a placeholder byte.
const CUDA_UNREAD: &str = "unsigned char";

impl<A, B> Semiring for AnyPair<A, B>
where
    A: Copy + Send + Sync + Debug + 'static,
    B: Copy + Send + Sync + Debug + 'static,
{
    type A = A;
    type B = B;
    type C = bool;
    type Add = Any;
    #[inline]
    fn add_monoid(&self) -> Any {
        Any
    }
    #[inline]
    fn multiply(&self, _: A, _: B, _: Position) -> bool {
        true
    }
    fn name(&self) -> String {
        "any_pair_bool".into()
    }
    fn cuda(&self) -> CudaSemiring {
        CudaSemiring {
            name: self.name(),
            a_type: CUDA_UNREAD.into(),
            b_type: CUDA_UNREAD.into(),
            c_type: "bool".into(),
            identity: "false".into(),
            terminal: None,
            any_terminal: true,
            helpers: String::new(),
            add: "return x;".into(),
            multiply: "return true;".into(),
            atomic_update: "*(volatile bool *)p = v;".into(),
        }
    }
}

impl<A, B> Semiring for AnySecondi<A, B>
where
    A: Copy + Send + Sync + Debug + 'static,
    B: Copy + Send + Sync + Debug + 'static,
{
    type A = A;
    type B = B;
    type C = u64;
    type Add = Any;
    #[inline]
    fn add_monoid(&self) -> Any {
        Any
    }
    #[inline]
    fn multiply(&self, _: A, _: B, pos: Position) -> u64 {
        pos.k as u64
    }
    fn name(&self) -> String {
        "any_secondi_u64".into()
    }
    fn cuda(&self) -> CudaSemiring {
        CudaSemiring {
            name: self.name(),
            a_type: CUDA_UNREAD.into(),
            b_type: CUDA_UNREAD.into(),
            c_type: "unsigned long long".into(),
            identity: "0ULL".into(),
            terminal: None,
            any_terminal: true,
            helpers: String::new(),
            add: "return x;".into(),
            multiply: "return (kg_c_t)k;".into(),
            // ANY: whichever aligned 64-bit store lands last is a valid result.
            atomic_update: "*(volatile kg_c_t *)p = v;".into(),
        }
    }
}

impl<A, B, C> Semiring for PlusPair<A, B, C>
where
    A: Copy + Send + Sync + Debug + 'static,
    B: Copy + Send + Sync + Debug + 'static,
    C: Number,
{
    type A = A;
    type B = B;
    type C = C;
    type Add = Plus;
    #[inline]
    fn add_monoid(&self) -> Plus {
        Plus
    }
    #[inline]
    fn multiply(&self, _: A, _: B, _: Position) -> C {
        C::ONE
    }
    fn name(&self) -> String {
        format!("plus_pair_{}", C::NAME)
    }
    fn cuda(&self) -> CudaSemiring {
        let one = if C::IS_FLOAT { "1.0" } else { "1" };
        let zero = if C::IS_FLOAT { "0.0" } else { "0" };
        CudaSemiring {
            name: self.name(),
            a_type: CUDA_UNREAD.into(),
            b_type: CUDA_UNREAD.into(),
            c_type: C::CUDA_TYPE.into(),
            identity: format!("({})({zero})", C::CUDA_TYPE),
            terminal: None,
            any_terminal: false,
            helpers: String::new(),
            add: "return x + y;".into(),
            multiply: format!("return (kg_c_t)({one});"),
            atomic_update: cuda_atomic_plus::<C>(),
        }
    }
}

// ---------------------------------------------------------------- finite fields

impl Semiring for Gf256 {
    type A = u8;
    type B = u8;
    type C = u8;
    type Add = Xor;
    #[inline]
    fn add_monoid(&self) -> Xor {
        Xor
    }
    #[inline]
    fn multiply(&self, a: u8, b: u8, _: Position) -> u8 {
        gf256_mul(a, b)
    }
    fn name(&self) -> String {
        "gf256_u8".into()
    }
    fn cuda(&self) -> CudaSemiring {
        CudaSemiring {
            name: self.name(),
            a_type: "unsigned char".into(),
            b_type: "unsigned char".into(),
            c_type: "unsigned char".into(),
            identity: "(unsigned char)0".into(),
            terminal: None,
            any_terminal: false,
            helpers: "// GF(2^8) multiply modulo x^8 + x^4 + x^3 + x^2 + 1 (0x11D), shift-and-xor.\n\
                      __device__ __forceinline__ unsigned char kg_gf256_mul(unsigned char a, unsigned char b) {\n    \
                      unsigned int x = a, p = 0;\n    \
                      for (int s = 0; s < 8; ++s) {\n        \
                      if (b & 1) p ^= x;\n        \
                      x <<= 1;\n        \
                      if (x & 0x100) x ^= 0x11D;\n        \
                      b >>= 1;\n    }\n    \
                      return (unsigned char)p;\n}"
                .into(),
            add: "return x ^ y;".into(),
            multiply: "return kg_gf256_mul(a, b);".into(),
            // xor is bytewise: xor the byte into its aligned 32-bit word.
            atomic_update: "size_t addr = (size_t)p;\n    unsigned int *w = (unsigned int *)(addr & ~(size_t)3);\n    \
                            atomicXor(w, ((unsigned int)v) << (8 * (unsigned int)(addr & 3)));"
                .into(),
        }
    }
}

impl Semiring for Gf2p64 {
    type A = u64;
    type B = u64;
    type C = u64;
    type Add = Xor;
    #[inline]
    fn add_monoid(&self) -> Xor {
        Xor
    }
    #[inline]
    fn multiply(&self, a: u64, b: u64, _: Position) -> u64 {
        gf2p64_mul(a, b)
    }
    fn name(&self) -> String {
        "gf2p64_u64".into()
    }
    fn cuda(&self) -> CudaSemiring {
        CudaSemiring {
            name: self.name(),
            a_type: "unsigned long long".into(),
            b_type: "unsigned long long".into(),
            c_type: "unsigned long long".into(),
            identity: "0ULL".into(),
            terminal: None,
            any_terminal: false,
            helpers: "// GF(2^64) multiply modulo x^64 + x^4 + x^3 + x + 1: carry-less product, then fold\n\
                      // the high word twice with x^64 = x^4 + x^3 + x + 1.\n\
                      __device__ __forceinline__ unsigned long long kg_gf2p64_mul(unsigned long long a, unsigned long long b) {\n    \
                      unsigned long long lo = 0, hi = 0;\n    \
                      for (int s = 0; s < 64; ++s) {\n        \
                      if ((b >> s) & 1ULL) {\n            \
                      lo ^= a << s;\n            \
                      if (s) hi ^= a >> (64 - s);\n        }\n    }\n    \
                      unsigned long long t_lo = hi ^ (hi << 1) ^ (hi << 3) ^ (hi << 4);\n    \
                      unsigned long long t_hi = (hi >> 63) ^ (hi >> 61) ^ (hi >> 60);\n    \
                      unsigned long long t2 = t_hi ^ (t_hi << 1) ^ (t_hi << 3) ^ (t_hi << 4);\n    \
                      return lo ^ t_lo ^ t2;\n}"
                .into(),
            add: "return x ^ y;".into(),
            multiply: "return kg_gf2p64_mul(a, b);".into(),
            atomic_update: "atomicXor(p, v);".into(),
        }
    }
}
