//! Every built-in semiring's CUDA C++ form compiles with NVRTC (PTX for
//! `compute_90`), inside small generated kernels that use all of its parts:
//! a pull SpMV (`kg_mul`, `kg_add`, `KG_IDENTITY`, `KG_IS_TERMINAL` early
//! exit), a push SpMSpV scatter (`kg_atomic_add`), a shared-memory block
//! reduction (`kg_add` with the identity as padding) and, where the monoid
//! has one, a use of `KG_TERMINAL`.
//!
//! Needs libnvrtc (e.g. `pip install nvidia-cuda-nvrtc` and its
//! `nvidia/cu13/lib` folder on `LD_LIBRARY_PATH`); no GPU. Skips when it is
//! absent, unless `KRONOGRAPH_REQUIRE_NVRTC=1` or `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use crate::nvrtc_common;

use kronograph::semirings::{CudaSemiring, Gf256, Gf2p64, Semiring};
use nvrtc_common::{builtin_forms, nvrtc_or_skip, ptx};

/// Every built-in semiring, each numeric one over every scalar type with a CUDA form.
fn all_cuda_forms() -> Vec<CudaSemiring> {
    let mut v = builtin_forms();
    v.extend([Gf256.cuda(), Gf2p64.cuda()]);
    v
}

/// The test kernels, after the semiring's preface.
fn kernels(c: &CudaSemiring) -> String {
    let name = &c.name;
    let mut s = c.source();
    s.push_str(&format!(
        r#"
// y = A x over the semiring, one thread per row (pull), early exit on a terminal value.
extern "C" __global__ void kg_spmv_{name}(const long long *indptr, const long long *indices, const kg_a_t *vals,
                                          const kg_b_t *x, kg_c_t *y, long long n) {{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    kg_c_t acc = KG_IDENTITY;
    for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {{
        long long k = indices[p];
        acc = kg_add(acc, kg_mul(vals[p], x[k], i, k, 0));
        if (KG_IS_TERMINAL(acc)) break;
    }}
    y[i] = acc;
}}

// y += x^T A over the semiring for a sparse x (push): one thread per stored entry of x's rows.
extern "C" __global__ void kg_spmspv_{name}(const long long *indptr, const long long *indices, const kg_b_t *vals,
                                            const long long *x_idx, const kg_a_t *x_val, long long x_nnz,
                                            kg_c_t *y) {{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= x_nnz) return;
    long long k = x_idx[t];
    for (long long p = indptr[k]; p < indptr[k + 1]; ++p) {{
        long long j = indices[p];
        kg_atomic_add(&y[j], kg_mul(x_val[t], vals[p], 0, k, j));
    }}
}}

// out[blockIdx.x] = the ⊕-reduction of one block of x (identity-padded), then out[0] ⊕= it atomically.
extern "C" __global__ void kg_reduce_{name}(const kg_c_t *x, long long n, kg_c_t *block_out, kg_c_t *total) {{
    __shared__ kg_c_t buf[256];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? x[i] : KG_IDENTITY;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {{
        if (threadIdx.x < s) buf[threadIdx.x] = kg_add(buf[threadIdx.x], buf[threadIdx.x + s]);
        __syncthreads();
    }}
    if (threadIdx.x == 0) {{
        block_out[blockIdx.x] = buf[0];
        kg_atomic_add(total, buf[0]);
    }}
}}

#if KG_HAS_TERMINAL
// Marks the entries of x that already hold the terminal value.
extern "C" __global__ void kg_terminal_{name}(const kg_c_t *x, long long n, unsigned char *is_terminal) {{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) is_terminal[i] = (x[i] == KG_TERMINAL) ? 1 : 0;
}}
#endif
"#
    ));
    s
}

#[test]
fn every_builtin_semiring_compiles_with_nvrtc() {
    if !nvrtc_or_skip() {
        return;
    }
    let forms = all_cuda_forms();
    assert_eq!(forms.len(), 35, "the built-in list changed: update this test");
    let mut failures = Vec::new();
    for c in &forms {
        let src = kernels(c);
        match ptx(&format!("semiring_{}", c.name), &src) {
            Ok(text) => {
                for kernel in ["spmv", "spmspv", "reduce"] {
                    let entry = format!(".entry kg_{kernel}_{}", c.name);
                    assert!(text.contains(&entry), "{}: no `{entry}` in the PTX", c.name);
                }
                let has_terminal = c.terminal.is_some();
                assert_eq!(text.contains(&format!(".entry kg_terminal_{}", c.name)), has_terminal, "{}", c.name);
            }
            Err(log) => failures.push(format!("{}: {log}\n--- source ---\n{src}", c.name)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} semirings failed to compile:\n{}",
        failures.len(),
        forms.len(),
        failures.join("\n")
    );
}
