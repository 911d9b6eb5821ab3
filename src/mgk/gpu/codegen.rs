//! CUDA C++ source generation for the batched marginalized-graph-kernel PCG.
//!
//! The source of a kernel is a generated *preface* followed by the template
//! `kernels/mgk_xmv.cu` + `kernels/mgk_pcg.cu` (included at build time). The preface defines
//! - `real` (`float` or `double`),
//! - `node_label` and `edge_label` (see [`LabelLayout`]),
//! - `kappa_node(a, b, theta)` and `kappa_edge(a, b, theta)`, `__device__`
//!   functions built from the base kernels' CUDA forms, which read every
//!   hyperparameter from `theta` (node kernel's slots first, then the edge
//!   kernel's), so θ is launch-time data and never part of the source,
//! - in the gradient family ([`mgk_grad_source_placed`]) also
//!   `kappa_node_grad(a, b, theta, g)` and `kappa_edge_grad(a, b, theta, g)`
//!   (`static __device__ __forceinline__ real f(const node_label& a, const
//!   node_label& b, const real* __restrict__ theta, real* __restrict__ g)`,
//!   `edge_label` for the edge one): κ(a, b) as `kappa_node`/`kappa_edge`
//!   return it, and `g[k]` = ∂κ/∂(log θ_k) for the kernel's own slots only
//!   (node: k = 0 … n_node − 1; edge: k = n_node … n_node + n_edge − 1,
//!   indexed like `theta`; 0 for fixed hyperparameters), by forward-mode
//!   automatic differentiation of the same expressions
//!   ([`cuda_gradient_body`]); `MGK_NODE_THETA` and `MGK_EDGE_THETA` are
//!   n_node and n_edge,
//! - `MGK_LANE_NZ` ([`Tuning::lane_nz`]) and `MGK_KERNEL_NAME` (or
//!   `MGK_GRAD_NAME`)
//!   (`mgk_pcg_<hash>`, the family name and a hash of the rest of the source),
//! - for the tile-pair XMV ([`XmvScheme::TilePairs`], value kernel only,
//!   [`mgk_source_placed`]) `MGK_XMV_TILES 1` and `MGK_DENSE_MIN` (see
//!   [`Tuning::dense_min`]);
//! - the other source-changing fields of [`Tuning`] (`MGK_XMV_CSR`,
//!   `MGK_GLOBAL_COPIES`, fast math): every one is in the source, so in the
//!   kernel's name and its cache keys (in memory and on disk).

use crate::basekernel::{cuda_gradient_body, cuda_preamble, BaseKernel, CudaGen};
pub use crate::cuda::hash_hex;
use crate::cuda::label::LabelLayout;
use crate::cuda::{CudaError, Precision};
use crate::mgk::{Tuning, XmvScheme};

/// Device code shared by both kernel families: the packed graph set and
/// block reductions.
pub const MGK_COMMON_TEMPLATE: &str = include_str!("../../../kernels/mgk_common.cu");

/// The kernel template: batched PCG over graph pairs (appended after
/// [`MGK_COMMON_TEMPLATE`]): `kernels/mgk_xmv.cu` (the staging of a pair and
/// its product in each scheme) then `kernels/mgk_pcg.cu` (the PCG and the
/// value kernel).
pub const MGK_PCG_TEMPLATE: &str =
    concat!(include_str!("../../../kernels/mgk_xmv.cu"), include_str!("../../../kernels/mgk_pcg.cu"));

/// The kernels of the single-large-pair path (appended after
/// [`MGK_COMMON_TEMPLATE`]): PCG set-up, the on-the-fly XMV over all tile
/// pairs, fused vector updates and reductions.
pub const MGK_LARGE_TEMPLATE: &str = include_str!("../../../kernels/mgk_large.cu");

/// The batched kernel with hyperparameter gradients (appended after
/// [`MGK_PCG_TEMPLATE`], whose device functions it reuses).
pub const MGK_GRAD_TEMPLATE: &str = include_str!("../../../kernels/mgk_grad.cu");

/// A generated kernel: its name, full source and the hyperparameter values to
/// pass at launch.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSource {
    /// The `extern "C"` name of the kernel (`mgk_pcg_<hash>`).
    pub name: String,
    /// The full CUDA C++ source.
    pub source: String,
    /// θ: node kernel's hyperparameters, then the edge kernel's.
    pub theta: Vec<f64>,
}

/// The source of the batched PCG kernel for these base kernels, label
/// layouts and precision. The source does not depend on the block size
/// (any multiple of 32 up to 1024 threads runs it), so one compile serves
/// every call with these kernels and labels.
///
/// # Errors
/// [`CudaError::Kernel`] when a base kernel has no CUDA form.
#[cfg(any(test, feature = "testing"))]
pub fn mgk_source<N: ?Sized, E: ?Sized, KN: BaseKernel<N>, KE: BaseKernel<E>>(
    node_kernel: &KN,
    edge_kernel: &KE,
    node_layout: &LabelLayout,
    edge_layout: &LabelLayout,
    precision: Precision,
) -> Result<KernelSource, CudaError> {
    mgk_source_with(node_kernel, edge_kernel, node_layout, edge_layout, precision, XmvScheme::Rows)
}

/// The source of the batched PCG kernel with the XMV scheme `xmv`:
/// [`mgk_source`] for [`XmvScheme::Rows`]; for [`XmvScheme::TilePairs`]
/// the preface adds `#define MGK_XMV_TILES 1` and `#define MGK_DENSE_MIN n`
/// (n: [`Tuning::dense_min`] of the default tuning), so the kernel has another name. Same launch
/// arguments either way.
///
/// # Errors
/// [`CudaError::Kernel`] when a base kernel has no CUDA form.
#[cfg(any(test, feature = "testing"))]
pub fn mgk_source_with<N: ?Sized, E: ?Sized, KN: BaseKernel<N>, KE: BaseKernel<E>>(
    node_kernel: &KN,
    edge_kernel: &KE,
    node_layout: &LabelLayout,
    edge_layout: &LabelLayout,
    precision: Precision,
    xmv: XmvScheme,
) -> Result<KernelSource, CudaError> {
    let tuning = Tuning::default();
    mgk_source_placed(node_kernel, edge_kernel, node_layout, edge_layout, precision, xmv, VectorPlacement::Any, &tuning)
}

/// Which placements of a pair's PCG vectors a batched value kernel holds:
/// each is an inlined copy of the PCG (so that the compiler sees what is in
/// shared memory), and NVRTC's time grows with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VectorPlacement {
    /// Only vectors in shared memory (`#define MGK_GLOBAL_VECTORS 0`): for
    /// launches whose every pair keeps p and y in shared memory; about a
    /// third of the code of [`Any`](Self::Any), and of its compile time.
    Shared,
    /// Vectors in shared memory, or in global memory with the graphs staged
    /// in shared or in global memory (the template's default): for launches
    /// with a pair whose vectors go to global memory.
    Any,
    /// Only vectors in global memory (`#define MGK_SHARED_VECTORS 0`, value
    /// kernel): for launches whose every pair keeps p and y in global
    /// memory (large graphs); the gradient family treats it as
    /// [`Any`](Self::Any).
    Global,
}

/// The source of the batched PCG kernel with the XMV scheme `xmv` and the
/// vector placements `placement`: `mgk_source_with` (tests only) for
/// [`VectorPlacement::Any`]; [`VectorPlacement::Shared`] adds
/// `#define MGK_GLOBAL_VECTORS 0` to the preface (so the kernel has another
/// name, and its own JIT cache entries). Same launch arguments either way.
///
/// # Errors
/// [`CudaError::Kernel`] when a base kernel has no CUDA form.
#[allow(clippy::too_many_arguments)]
pub fn mgk_source_placed<N: ?Sized, E: ?Sized, KN: BaseKernel<N>, KE: BaseKernel<E>>(
    node_kernel: &KN,
    edge_kernel: &KE,
    node_layout: &LabelLayout,
    edge_layout: &LabelLayout,
    precision: Precision,
    xmv: XmvScheme,
    placement: VectorPlacement,
    tuning: &Tuning,
) -> Result<KernelSource, CudaError> {
    generate(node_kernel, edge_kernel, node_layout, edge_layout, precision, Family::Batched(xmv, placement), tuning)
}

/// The source of the single-large-pair kernels (one module): the shared
/// device code of `kernels/mgk_common.cu` plus `kernels/mgk_large.cu`. The module's
/// kernels are named `<name>_init`, `_ap`, `_xmv`, `_dot`, `_update`,
/// `_dir` and `_final` (see [`LARGE_KERNELS`]); `name` is `mgk_large_<hash>`.
///
/// # Errors
/// [`CudaError::Kernel`] when a base kernel has no CUDA form.
pub fn mgk_large_source<N: ?Sized, E: ?Sized, KN: BaseKernel<N>, KE: BaseKernel<E>>(
    node_kernel: &KN,
    edge_kernel: &KE,
    node_layout: &LabelLayout,
    edge_layout: &LabelLayout,
    precision: Precision,
    tuning: &Tuning,
) -> Result<KernelSource, CudaError> {
    generate(node_kernel, edge_kernel, node_layout, edge_layout, precision, Family::Large, tuning)
}

/// Suffixes of the kernels in a [`mgk_large_source`] module.
pub const LARGE_KERNELS: [&str; 7] = ["_init", "_ap", "_xmv", "_dot", "_update", "_dir", "_final"];

/// The source of the batched kernel with hyperparameter gradients
/// (`kernels/mgk_grad.cu` after the batched template, whose value-only
/// kernel it leaves out): two solves per pair, then the gradient sums. Adds
/// `kappa_node_grad` / `kappa_edge_grad` (the base kernels' log-θ gradients
/// by forward-mode differentiation, see
/// [`cuda_gradient_body`]),
/// `MGK_N_THETA`, `MGK_NODE_THETA` and `MGK_EDGE_THETA` to the preface. The
/// kernel is named `MGK_GRAD_NAME` = `name` = `mgk_grad_<hash>`.
///
/// # Errors
/// [`CudaError::Kernel`] when a base kernel has no CUDA form (or a gradient
/// form cannot be generated for it).
#[cfg(any(test, feature = "testing"))]
pub fn mgk_grad_source<N: ?Sized, E: ?Sized, KN: BaseKernel<N>, KE: BaseKernel<E>>(
    node_kernel: &KN,
    edge_kernel: &KE,
    node_layout: &LabelLayout,
    edge_layout: &LabelLayout,
    precision: Precision,
) -> Result<KernelSource, CudaError> {
    let tuning = Tuning::default();
    mgk_grad_source_placed(node_kernel, edge_kernel, node_layout, edge_layout, precision, VectorPlacement::Any, &tuning)
}

/// The source of the gradient kernel with the vector placements
/// `placement`: `mgk_grad_source` (tests only) for [`VectorPlacement::Any`] (pairs
/// whose vectors do not fit in shared memory solve with p and y in global
/// memory, their graphs staged in shared or global memory);
/// [`VectorPlacement::Shared`] adds `#define MGK_GLOBAL_VECTORS 0` (only
/// the shared-memory copy: less to compile). Same launch arguments either
/// way.
///
/// # Errors
/// [`CudaError::Kernel`] when a base kernel has no CUDA form (or a gradient
/// form cannot be generated for it).
pub fn mgk_grad_source_placed<N: ?Sized, E: ?Sized, KN: BaseKernel<N>, KE: BaseKernel<E>>(
    node_kernel: &KN,
    edge_kernel: &KE,
    node_layout: &LabelLayout,
    edge_layout: &LabelLayout,
    precision: Precision,
    placement: VectorPlacement,
    tuning: &Tuning,
) -> Result<KernelSource, CudaError> {
    generate(node_kernel, edge_kernel, node_layout, edge_layout, precision, Family::Gradient(placement), tuning)
}

/// The batched pair-system kernel of the generic Kronecker layer
/// (`kernels/kron_pairs.cu` after `kernels/mgk_xmv.cu`, whose row-scheme
/// staging and product it reuses): a user's diagonal, right-hand side and
/// output per pair, or a factored system's with the node-label kernel
/// `node_kernel` (`Unlabeled` where it has none; see
/// `crate::kron::solve_pairs`). The kernel is named `KRON_PAIRS_NAME` =
/// `name` = `kron_pairs_<hash>`; θ is the node kernel's, then the edge
/// kernel's.
///
/// # Errors
/// [`CudaError::Kernel`] when the edge kernel has no CUDA form.
pub fn kron_pairs_source<N: ?Sized, E: ?Sized, KN: BaseKernel<N>, KE: BaseKernel<E>>(
    node_kernel: &KN,
    edge_kernel: &KE,
    node_layout: &LabelLayout,
    edge_layout: &LabelLayout,
    precision: Precision,
    tuning: &Tuning,
) -> Result<KernelSource, CudaError> {
    generate(node_kernel, edge_kernel, node_layout, edge_layout, precision, Family::Pairs, tuning)
}

/// The kernels of the generic pair systems (appended after
/// [`MGK_COMMON_TEMPLATE`] and `kernels/mgk_xmv.cu`), and the batched power
/// sums of the random-walk series kernels (`kernels/kron_series.cu`, the
/// kernel `<name>_series`).
pub const KRON_PAIRS_TEMPLATE: &str = concat!(
    include_str!("../../../kernels/mgk_xmv.cu"),
    include_str!("../../../kernels/kron_pairs.cu"),
    include_str!("../../../kernels/kron_series.cu")
);

/// The kernel families generated from one template set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Batched(XmvScheme, VectorPlacement),
    Large,
    Gradient(VectorPlacement),
    /// The generic pair systems (`kron_pairs_source`).
    Pairs,
}

fn generate<N: ?Sized, E: ?Sized, KN: BaseKernel<N>, KE: BaseKernel<E>>(
    node_kernel: &KN,
    edge_kernel: &KE,
    node_layout: &LabelLayout,
    edge_layout: &LabelLayout,
    precision: Precision,
    family: Family,
    tuning: &Tuning,
) -> Result<KernelSource, CudaError> {
    let real = precision.c_type();
    let mut cg = CudaGen::new(real, "theta");
    cg.helper(&cuda_preamble());
    let kv = node_kernel.cuda("a", "b", &mut cg).map_err(|source| CudaError::Kernel { which: "node", source })?;
    let ke = edge_kernel.cuda("a", "b", &mut cg).map_err(|source| CudaError::Kernel { which: "edge", source })?;
    // The gradients: the same expressions in dual numbers (their helpers join
    // `cg`'s; its slots stay as they are). The edge kernel's slots follow
    // the node kernel's, in θ and in the gradient array alike.
    let n_node = node_kernel.num_hyperparameters();
    let grads = if let Family::Gradient(_) = family {
        let gv = cuda_gradient_body(node_kernel, "a", "b", "theta", "g", 0, &mut cg)
            .map_err(|source| CudaError::Kernel { which: "node", source })?;
        let ge = cuda_gradient_body(edge_kernel, "a", "b", "theta", "g", n_node, &mut cg)
            .map_err(|source| CudaError::Kernel { which: "edge", source })?;
        Some((gv, ge))
    } else {
        None
    };
    let mut body = String::new();
    body.push_str("// generated by kronograph: marginalized graph kernel, batched PCG\n");
    body.push_str(&format!("typedef {real} real;\n"));
    body.push_str(&format!("#define MGK_REAL_IS_DOUBLE {}\n", (precision == Precision::F64) as u8));
    if family != Family::Large {
        body.push_str(&format!("#define MGK_LANE_NZ {}\n", tuning.lane_nz(precision)));
    }
    if matches!(family, Family::Batched(XmvScheme::Rows, _) | Family::Gradient(_)) && tuning.xmv_csr {
        body.push_str("#define MGK_XMV_CSR 1\n");
    }
    if let Family::Batched(XmvScheme::TilePairs, _) = family {
        body.push_str(&format!("#define MGK_XMV_TILES 1\n#define MGK_DENSE_MIN {}\n", tuning.dense_min));
    }
    if let Family::Batched(_, VectorPlacement::Any | VectorPlacement::Global) = family {
        body.push_str(&format!("#define MGK_GLOBAL_COPIES {}\n", tuning.global_copies));
    }
    if let Family::Batched(_, VectorPlacement::Shared) | Family::Gradient(VectorPlacement::Shared) = family {
        body.push_str("#define MGK_GLOBAL_VECTORS 0\n");
    }
    if let Family::Batched(_, VectorPlacement::Global) = family {
        body.push_str("#define MGK_SHARED_VECTORS 0\n");
    }
    // f32 value kernels: NVRTC's fast math (the label kernels' exp and division, once per nonzero
    // product of each XMV, were most of the labeled sets' time: issue 31). Their stated agreement
    // with f64 (about 1e-5 relative) is unchanged: the fast exp's relative error is about
    // 2 ulp + 2^-22 |x|, far under the PCG's 1e-6 tolerance for the arguments that matter.
    // Only where the label kernels divide or call a transcendental function (nothing else in
    // the kernel pays for it: the PCG divides a few times per iteration).
    let approximable = |e: &str| ["/", "exp(", "log(", "pow(", "sqrt("].iter().any(|t| e.contains(t));
    if precision == Precision::F32
        && !matches!(family, Family::Gradient(_))
        && (approximable(&kv) || approximable(&ke))
        && tuning.fast_math
    {
        body.push_str(crate::cuda::FAST_MATH_MARKER);
    }
    body.push_str(&format!("#define MGK_MAX_THETA {}\n", cg.params().len().max(1)));
    body.push_str(&node_layout.declaration("node_label"));
    body.push_str(&edge_layout.declaration("edge_label"));
    for h in cg.helpers() {
        body.push_str(h);
        body.push('\n');
    }
    // κv in [0, floor) raised to the floor, as on the CPU (crate::mgk::system::floor_node_kernel)
    let floor = match precision {
        Precision::F64 => crate::mgk::system::NODE_KERNEL_FLOOR_F64,
        Precision::F32 => crate::mgk::system::NODE_KERNEL_FLOOR_F32,
    };
    body.push_str(&format!(
        "static __device__ __forceinline__ real mgk_kv_floor(const real v) {{\n    \
         return (v >= (real)0 && v < (real){floor:e}) ? (real){floor:e} : v;\n}}\n"
    ));
    body.push_str(&format!(
        "static __device__ __forceinline__ real kappa_node(const node_label& a, const node_label& b, \
         const real* __restrict__ theta) {{\n    (void)a; (void)b; (void)theta;\n    return mgk_kv_floor((real)({kv}));\n}}\n"
    ));
    body.push_str(&format!(
        "static __device__ __forceinline__ real kappa_edge(const edge_label& a, const edge_label& b, \
         const real* __restrict__ theta) {{\n    (void)a; (void)b; (void)theta;\n    return (real)({ke});\n}}\n"
    ));
    if let Some((gv, ge)) = grads {
        body.push_str(&format!(
            "#define MGK_GRAD 1\n#define MGK_N_THETA {}\n#define MGK_NODE_THETA {n_node}\n#define MGK_EDGE_THETA {}\n",
            cg.params().len(),
            edge_kernel.num_hyperparameters()
        ));
        body.push_str(&format!(
            "static __device__ __forceinline__ real kappa_node_grad_raw(const node_label& a, const node_label& b, \
             const real* __restrict__ theta, real* __restrict__ g) {{\n  (void)a; (void)b; (void)theta; (void)g;\n{gv}}}\n\
             static __device__ __forceinline__ real kappa_node_grad(const node_label& a, const node_label& b, \
             const real* __restrict__ theta, real* __restrict__ g) {{\n  \
             return mgk_kv_floor(kappa_node_grad_raw(a, b, theta, g));\n}}\n"
        ));
        body.push_str(&format!(
            "static __device__ __forceinline__ real kappa_edge_grad(const edge_label& a, const edge_label& b, \
             const real* __restrict__ theta, real* __restrict__ g) {{\n  (void)a; (void)b; (void)theta; (void)g;\n{ge}}}\n"
        ));
    }
    body.push_str(MGK_COMMON_TEMPLATE);
    match family {
        Family::Batched(..) => body.push_str(MGK_PCG_TEMPLATE),
        Family::Large => body.push_str(MGK_LARGE_TEMPLATE),
        Family::Gradient(_) => {
            body.push_str(MGK_PCG_TEMPLATE);
            body.push_str(MGK_GRAD_TEMPLATE);
        }
        Family::Pairs => body.push_str(KRON_PAIRS_TEMPLATE),
    }
    let (prefix, define) = match family {
        Family::Batched(..) => ("mgk_pcg", "MGK_KERNEL_NAME"),
        Family::Large => ("mgk_large", "MGK_LARGE_NAME"),
        Family::Gradient(_) => ("mgk_grad", "MGK_GRAD_NAME"),
        Family::Pairs => ("kron_pairs", "KRON_PAIRS_NAME"),
    };
    let name = format!("{prefix}_{}", &hash_hex(&[body.as_bytes()])[..16]);
    let source = format!("#define {define} {name}\n{body}");
    Ok(KernelSource { name, source, theta: cg.params().to_vec() })
}

#[cfg(test)]
#[path = "codegen_tests.rs"]
mod tests;
