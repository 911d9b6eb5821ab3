//! Every kernel the GPU GraphBLAS generates compiles with NVRTC (PTX for
//! `compute_90`): the module of each built-in semiring with a device form
//! (`kernels/graphblas.cu` after the semiring's CUDA preface) and the
//! semiring-independent module. Mask kinds and merge strategies are launch
//! arguments of these modules, so this covers every kernel the library
//! launches.
//!
//! Needs libnvrtc, no GPU; skips without it unless `KRONOGRAPH_REQUIRE_NVRTC=1`
//! or `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use cudarc::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions};
use kronograph::cuda::jit::nvrtc_available;
use kronograph::matrix::gpu::{source_for, UTIL_SOURCE};
use kronograph::semirings::{
    AnyPair, AnySecondi, CudaSemiring, LorLand, MaxMin, MaxPlus, MinPlus, PlusPair, PlusTimes, Semiring,
};

fn required() -> bool {
    ["KRONOGRAPH_REQUIRE_NVRTC", "KRONOGRAPH_REQUIRE_GPU"].iter().any(|v| std::env::var(v).is_ok_and(|s| s == "1"))
}

fn nvrtc_or_skip() -> bool {
    if nvrtc_available() {
        return true;
    }
    assert!(!required(), "libnvrtc is required (KRONOGRAPH_REQUIRE_NVRTC/GPU=1) but could not be loaded");
    eprintln!("skipping: libnvrtc not found (put nvidia/cu13/lib of nvidia-cuda-nvrtc on LD_LIBRARY_PATH)");
    false
}

/// Every built-in semiring with a device form, numeric ones over every scalar type.
fn forms() -> Vec<CudaSemiring> {
    macro_rules! numeric {
        ($($t:ty),*) => {
            vec![$(
                PlusTimes::<$t>::new().cuda(),
                MinPlus::<$t>::new().cuda(),
                MaxPlus::<$t>::new().cuda(),
                MaxMin::<$t>::new().cuda(),
                PlusPair::<(), (), $t>::new().cuda(),
            )*]
        };
    }
    let mut v = numeric!(f32, f64, i32, i64, u32, u64);
    v.extend([LorLand.cuda(), AnyPair::<f64, f64>::new().cuda(), AnySecondi::<f64, f64>::new().cuda()]);
    v
}

fn compile(name: &str, src: &str) -> Result<(), String> {
    let opts = CompileOptions {
        arch: Some("compute_90"),
        options: vec!["--std=c++17".into()],
        name: Some(format!("{name}.cu")),
        ..Default::default()
    };
    compile_ptx_with_opts(src, opts).map(|_| ()).map_err(|e| match e {
        CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
        other => format!("{other:?}"),
    })
}

#[test]
fn every_generated_graphblas_module_compiles() {
    if !nvrtc_or_skip() {
        return;
    }
    let forms = forms();
    assert_eq!(forms.len(), 33);
    let mut jobs: Vec<(String, String)> = forms.iter().map(|c| (c.name.clone(), source_for(c))).collect();
    jobs.push(("graphblas_util".into(), UTIL_SOURCE.to_string()));
    jobs.push(("graphblas_frontier".into(), kronograph::algorithms::gpu::FRONTIER_SOURCE.to_string()));
    // two threads (CI has two cores)
    let half = jobs.len() / 2;
    let (a, b) = jobs.split_at(half);
    let failures: Vec<String> = std::thread::scope(|s| {
        let run = |part: &[(String, String)]| -> Vec<String> {
            part.iter().filter_map(|(n, src)| compile(n, src).err().map(|log| format!("{n}:\n{log}"))).collect()
        };
        let h = s.spawn(move || run(a));
        let mut f = run(b);
        f.extend(h.join().unwrap());
        f
    });
    assert!(failures.is_empty(), "NVRTC rejected {} module(s):\n{}", failures.len(), failures.join("\n"));
}
