//! Shared harness of the tests that compile CUDA sources with NVRTC (no GPU
//! needed): the skip rule, PTX compilation of a source, and the built-in
//! semirings' device forms.
//!
//! Needs libnvrtc (e.g. `pip install nvidia-cuda-nvrtc==13.0.88` and its
//! `nvidia/cu13/lib` folder on `LD_LIBRARY_PATH`). The tests skip when it is
//! absent, unless `KRONOGRAPH_REQUIRE_NVRTC=1` or `KRONOGRAPH_REQUIRE_GPU=1`.
#![allow(dead_code)]

use cudarc::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions};
use kronograph::cuda::jit::nvrtc_available;
use kronograph::semirings::{
    AnyPair, AnySecondi, CudaSemiring, LorLand, MaxMin, MaxPlus, MinPlus, PlusPair, PlusTimes, Semiring,
};

/// Whether NVRTC must be there (`KRONOGRAPH_REQUIRE_NVRTC=1` or `KRONOGRAPH_REQUIRE_GPU=1`).
pub fn required() -> bool {
    ["KRONOGRAPH_REQUIRE_NVRTC", "KRONOGRAPH_REQUIRE_GPU"].iter().any(|v| std::env::var(v).is_ok_and(|s| s == "1"))
}

/// True when libnvrtc loads; otherwise skips (false) or, when it is
/// [`required`], fails.
pub fn nvrtc_or_skip() -> bool {
    if nvrtc_available() {
        return true;
    }
    assert!(!required(), "libnvrtc is required (KRONOGRAPH_REQUIRE_NVRTC/GPU=1) but could not be loaded");
    eprintln!("skipping: libnvrtc not found (put nvidia/cu13/lib of nvidia-cuda-nvrtc on LD_LIBRARY_PATH)");
    false
}

/// The options of a compile that checks that a source builds: `library`
/// (the options the library would use) with NVRTC's fastest optimisation
/// level instead of the library's (`--Ofast-compile=max`). The front end and
/// ptxas still run, so syntax, types and the target's resource limits are
/// checked at about a third of the time; the images the library builds with
/// its own options are compiled by `library_kernels_on_bundled_data_compile`
/// and by every GPU test.
pub fn check_options(library: Vec<String>) -> Vec<String> {
    let mut o: Vec<String> = library.into_iter().filter(|s| !s.starts_with("--Ofast-compile")).collect();
    o.push("--Ofast-compile=max".into());
    o
}

/// The PTX text of `src` (file name `{name}.cu`) for `compute_90` in C++17,
/// or NVRTC's log.
pub fn ptx(name: &str, src: &str) -> Result<String, String> {
    let opts = CompileOptions {
        arch: Some("compute_90"),
        options: vec!["--std=c++17".into()],
        name: Some(format!("{name}.cu")),
        ..Default::default()
    };
    compile_ptx_with_opts(src, opts).map(|p| p.to_src()).map_err(|e| match e {
        CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
        other => format!("{other:?}"),
    })
}

/// The built-in semirings' device forms: the numeric ones over every scalar
/// type, then `LorLand`, `AnyPair` and `AnySecondi` (33 forms).
pub fn builtin_forms() -> Vec<CudaSemiring> {
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
