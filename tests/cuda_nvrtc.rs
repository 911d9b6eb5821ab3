//! Every generated kernel source compiles with NVRTC, on machines without a GPU too.
//!
//! Needs libnvrtc (e.g. `pip install nvidia-cuda-nvrtc==13.0.88` and its
//! `nvidia/cu13/lib` folder on `LD_LIBRARY_PATH`). Skips when it is absent,
//! unless `KRONOGRAPH_REQUIRE_NVRTC=1` or `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use crate::nvrtc_common;

use kronograph::basekernel::BaseKernel;
use kronograph::basekernel::{product, Constant, Field, KroneckerDelta, SquareExponential};
use kronograph::cuda::jit::{compile, nvrtc_version, options, options_for_source, tier_source, Tier};
use kronograph::cuda::label::{CType, LabelLayout};
use kronograph::cuda::{CudaError, Precision};
use kronograph::graph::Record;
use kronograph::mgk::codegen::{
    mgk_grad_source, mgk_grad_source_placed, mgk_large_source, mgk_source, mgk_source_placed, mgk_source_with,
    VectorPlacement,
};
use kronograph::mgk::{Tuning, XmvScheme};
use nvrtc_common::{check_options, nvrtc_or_skip};

/// The batched kernel (both XMV schemes, both vector placements), the gradient kernel and the
/// single-large-pair kernels for these kernels and layouts, in f32 and f64,
/// for sm_90 and sm_80.
fn compile_both<N: ?Sized, E: ?Sized>(
    kn: &impl BaseKernel<N>,
    ke: &impl BaseKernel<E>,
    nl: &LabelLayout,
    el: &LabelLayout,
) {
    for precision in [Precision::F32, Precision::F64] {
        for arch in [(9, 0), (8, 0)] {
            // the batched kernel with either XMV scheme, and the gradient kernel
            for src in [
                mgk_source(kn, ke, nl, el, precision).unwrap(),
                mgk_source_with(kn, ke, nl, el, precision, XmvScheme::TilePairs).unwrap(),
                mgk_grad_source(kn, ke, nl, el, precision).unwrap(),
            ]
            .into_iter()
            // the shared-memory-only kernel of launches without pairs in global memory (a subset
            // of the code above, by the preprocessor: sm_90 only, to keep the test short)
            .chain((arch == (9, 0)).then(|| {
                mgk_source_placed(
                    kn,
                    ke,
                    nl,
                    el,
                    precision,
                    XmvScheme::Rows,
                    VectorPlacement::Shared,
                    &Tuning::default(),
                )
                .unwrap()
            }))
            .chain((arch == (9, 0)).then(|| {
                mgk_grad_source_placed(kn, ke, nl, el, precision, VectorPlacement::Shared, &Tuning::default()).unwrap()
            })) {
                let image =
                    compile(&src.source, &src.name, &check_options(options_for_source(&src.source, arch, Tier::Full)))
                        .unwrap_or_else(|e| {
                            panic!(
                                "{} {precision:?} sm_{}{}: {e}\n--- source ---\n{}",
                                src.name, arch.0, arch.1, src.source
                            )
                        });
                assert!(image.len() > 1000, "a CUBIN of {} bytes", image.len());
            }
        }
        // the global-memory-only value kernel, and the fast tier's leaner source of each placement
        for placement in [VectorPlacement::Shared, VectorPlacement::Any, VectorPlacement::Global] {
            let src =
                mgk_source_placed(kn, ke, nl, el, precision, XmvScheme::Rows, placement, &Tuning::default()).unwrap();
            for tier in [Tier::Full, Tier::Fast] {
                let image = compile(
                    &tier_source(&src.source, tier),
                    &src.name,
                    &check_options(options_for_source(&src.source, (9, 0), tier)),
                )
                .unwrap_or_else(|e| panic!("{placement:?} {tier:?} {precision:?}: {e}"));
                assert!(image.len() > 1000, "a CUBIN of {} bytes", image.len());
            }
        }
        for arch in [(9, 0), (8, 0)] {
            let src = mgk_large_source(kn, ke, nl, el, precision, &Tuning::default()).unwrap();
            let image = compile(&src.source, &src.name, &check_options(options(arch))).unwrap_or_else(|e| {
                panic!("large-pair {precision:?} sm_{}{}: {e}\n--- source ---\n{}", arch.0, arch.1, src.source)
            });
            assert!(image.len() > 1000, "a CUBIN of {} bytes", image.len());
        }
    }
}

#[test]
fn unlabeled_kernel_compiles() {
    if !nvrtc_or_skip() {
        return;
    }
    eprintln!("NVRTC {:?}", nvrtc_version().unwrap());
    compile_both::<(), ()>(&Constant::new(1.0), &Constant::new(1.0), &LabelLayout::Empty, &LabelLayout::Empty);
}

#[test]
fn labeled_kernels_compile() {
    if !nvrtc_or_skip() {
        return;
    }
    let nl = LabelLayout::record(&[("label".into(), CType::Int32)], Precision::F32);
    for p in [Precision::F32, Precision::F64] {
        let el = LabelLayout::record(&[("label".into(), CType::Int32), ("length".into(), CType::Real)], p);
        compile_both::<Record, Record>(
            &Field::new("label", KroneckerDelta::new(0.5)),
            &product(Field::new("label", KroneckerDelta::new(0.5)), Field::new("length", SquareExponential::new(0.1))),
            &nl,
            &el,
        );
    }
}

#[test]
fn library_kernels_on_bundled_data_compile() {
    if !nvrtc_or_skip() {
        return;
    }
    use kronograph::basekernel::spec::SpecKernel;
    use kronograph::cuda::GpuLabel;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/synthetic/BA96L");
    let ds = kronograph::graph::io::load(dir).unwrap();
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema).unwrap();
    let ke =
        SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr1, 0.1) + 0.5 * rq(attr0, 1.0, 2.0)", &ds.edge_schema);
    let ke =
        ke.unwrap_or_else(|_| SpecKernel::parse_for("delta(label, 0.5) * sqexp(attr1, 0.1)", &ds.edge_schema).unwrap());
    for p in [Precision::F32, Precision::F64] {
        let nl = Record::layout(ds.graphs[0].node_labels(), p).unwrap();
        let el = Record::layout(ds.graphs[0].edge_labels(), p).unwrap();
        let src = mgk_source(&kv, &ke, &nl, &el, p).unwrap();
        compile(&src.source, &src.name, &options((9, 0)))
            .unwrap_or_else(|e| panic!("{p:?}: {e}\n--- source ---\n{}", src.source));
        let src = mgk_source_with(&kv, &ke, &nl, &el, p, XmvScheme::TilePairs).unwrap();
        compile(&src.source, &src.name, &options((9, 0)))
            .unwrap_or_else(|e| panic!("tile pairs {p:?}: {e}\n--- source ---\n{}", src.source));
        let src = mgk_grad_source(&kv, &ke, &nl, &el, p).unwrap();
        compile(&src.source, &src.name, &options((9, 0)))
            .unwrap_or_else(|e| panic!("gradient {p:?}: {e}\n--- source ---\n{}", src.source));
        let src = mgk_large_source(&kv, &ke, &nl, &el, p, &Tuning::default()).unwrap();
        compile(&src.source, &src.name, &options((9, 0)))
            .unwrap_or_else(|e| panic!("large-pair {p:?}: {e}\n--- source ---\n{}", src.source));
    }
}

#[test]
fn compile_errors_carry_the_nvrtc_log() {
    if !nvrtc_or_skip() {
        return;
    }
    let e = compile("extern \"C\" __global__ void broken() { undefined_thing(); }", "broken", &options((9, 0)))
        .unwrap_err();
    match e {
        CudaError::Compile { ref log, .. } => assert!(log.contains("undefined_thing"), "{log}"),
        other => panic!("expected a compile error, got {other}"),
    }
}

#[test]
fn tiered_compile_runs_the_fast_image_until_the_full_one_is_ready() {
    use kronograph::cuda::jit::{compile_tiered, fast_tier_available, production, ready, wait_background, Tier};
    if !nvrtc_or_skip() {
        return;
    }
    let src = mgk_source::<(), (), _, _>(
        &Constant::new(1.0),
        &Constant::new(1.0),
        &LabelLayout::Empty,
        &LabelLayout::Empty,
        Precision::F32,
    )
    .unwrap();
    // a disk cache of its own, and a source no cache has seen. The cache folder is read from
    // the environment, which the other tests of this process share: the test runs again in a
    // child process of this test binary with `KRONOGRAPH_CACHE_DIR` set from its start.
    const CHILD: &str = "KRONOGRAPH_TEST_TIERED_CHILD";
    if std::env::var_os(CHILD).is_none() {
        let dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "--nocapture", "--test-threads=1"])
            .arg(format!(
                "{}::tiered_compile_runs_the_fast_image_until_the_full_one_is_ready",
                module_path!().split_once("::").map_or("", |(_, m)| m)
            ))
            .env(CHILD, "1")
            .env("KRONOGRAPH_CACHE_DIR", dir.path())
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "the child run failed:\n{text}");
        assert!(text.contains("1 passed"), "the child ran no test:\n{text}");
        return;
    }
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let source = format!("// tiered compile test {nanos} {}\n{}", std::process::id(), src.source);
    let arch = (9, 0);
    assert!(ready(&source, &src.name, arch).is_none());
    let (first, tier) = compile_tiered(&source, &src.name, arch).unwrap();
    assert!(first.image.len() > 1000);
    if !fast_tier_available() {
        assert_eq!(tier, Tier::Full);
        return;
    }
    assert_eq!(tier, Tier::Fast);
    wait_background();
    let full = ready(&source, &src.name, arch).expect("the full image was compiled in the background");
    let (again, tier) = compile_tiered(&source, &src.name, arch).unwrap();
    assert_eq!(tier, Tier::Full);
    assert_eq!(again.image, full.image);
    assert_ne!(full.image, first.image, "the tiers are compiled with different options");
    assert!(production(&src.name, Tier::Full).is_some() && production(&src.name, Tier::Fast).is_some());
}
