//! Every kernel the GPU GraphBLAS generates compiles with NVRTC (PTX for
//! `compute_90`): the module of each built-in semiring with a device form
//! (`kernels/graphblas.cu` after the semiring's CUDA preface) and the
//! semiring-independent module, and each semiring's hash (Gustavson)
//! masked-product module (`kernels/graphblas_mxm_hash.cu`). Mask kinds and merge strategies are launch
//! arguments of these modules, so this covers every kernel the library
//! launches.
//!
//! Needs libnvrtc, no GPU; skips without it unless `KRONOGRAPH_REQUIRE_NVRTC=1`
//! or `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

mod nvrtc_common;

use kronograph::matrix::gpu::{hash_source_for, source_for, UTIL_SOURCE};
use nvrtc_common::{builtin_forms, nvrtc_or_skip, ptx};

#[test]
fn every_generated_graphblas_module_compiles() {
    if !nvrtc_or_skip() {
        return;
    }
    let forms = builtin_forms();
    assert_eq!(forms.len(), 33);
    let mut jobs: Vec<(String, String)> = forms.iter().map(|c| (c.name.clone(), source_for(c))).collect();
    jobs.extend(forms.iter().map(|c| (format!("graphblas_hash_{}", c.name), hash_source_for(c))));
    jobs.push(("graphblas_util".into(), UTIL_SOURCE.to_string()));
    jobs.push(("graphblas_frontier".into(), kronograph::algorithms::gpu::FRONTIER_SOURCE.to_string()));
    // two threads (CI has two cores)
    let half = jobs.len() / 2;
    let (a, b) = jobs.split_at(half);
    let failures: Vec<String> = std::thread::scope(|s| {
        let run = |part: &[(String, String)]| -> Vec<String> {
            part.iter().filter_map(|(n, src)| ptx(n, src).err().map(|log| format!("{n}:\n{log}"))).collect()
        };
        let h = s.spawn(move || run(a));
        let mut f = run(b);
        f.extend(h.join().unwrap());
        f
    });
    assert!(failures.is_empty(), "NVRTC rejected {} module(s):\n{}", failures.len(), failures.join("\n"));
}
