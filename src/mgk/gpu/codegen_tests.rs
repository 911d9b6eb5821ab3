//! Unit tests of the MGK's CUDA code generation (`codegen.rs`).

use super::*;
use crate::basekernel::{Constant, Field, KroneckerDelta};
use crate::graph::Record;

#[test]
fn theta_changes_never_change_the_source() {
    let layout = LabelLayout::record(&[("label".into(), crate::cuda::label::CType::Int32)], Precision::F32);
    let a = mgk_source::<Record, (), _, _>(
        &Field::new("label", KroneckerDelta::new(0.5)),
        &Constant::new(1.0),
        &layout,
        &LabelLayout::Empty,
        Precision::F32,
    )
    .unwrap();
    let b = mgk_source::<Record, (), _, _>(
        &Field::new("label", KroneckerDelta::new(0.25)),
        &Constant::new(2.0),
        &layout,
        &LabelLayout::Empty,
        Precision::F32,
    )
    .unwrap();
    assert_eq!(a.source, b.source);
    assert_eq!(a.name, b.name);
    assert_eq!(a.theta, vec![0.5, 1.0]);
    assert_eq!(b.theta, vec![0.25, 2.0]);
    let c = mgk_source::<Record, (), _, _>(
        &Field::new("label", KroneckerDelta::new(0.5)),
        &Constant::new(1.0),
        &layout,
        &LabelLayout::Empty,
        Precision::F64,
    )
    .unwrap();
    assert_ne!(a.name, c.name);
    assert!(a.source.contains("MGK_KERNEL_NAME mgk_pcg_"));
    assert!(!a.source.contains("0.5"), "hyperparameter values must not be in the source");
}

#[test]
fn large_pair_source_names_every_kernel() {
    let layout = LabelLayout::record(&[("label".into(), crate::cuda::label::CType::Int32)], Precision::F64);
    let kn = Field::new("label", KroneckerDelta::new(0.5));
    let a = mgk_large_source::<Record, (), _, _>(
        &kn,
        &Constant::new(1.0),
        &layout,
        &LabelLayout::Empty,
        Precision::F64,
        &Tuning::default(),
    )
    .unwrap();
    assert!(a.name.starts_with("mgk_large_"));
    assert!(a.source.contains(&format!("#define MGK_LARGE_NAME {}\n", a.name)));
    for suffix in LARGE_KERNELS {
        assert!(a.source.contains(&format!("MGK_CAT(MGK_LARGE_NAME, {suffix})")), "{suffix}");
    }
    assert!(!a.source.contains("0.5"), "hyperparameter values must not be in the source");
    let batched =
        mgk_source::<Record, (), _, _>(&kn, &Constant::new(1.0), &layout, &LabelLayout::Empty, Precision::F64).unwrap();
    assert_ne!(a.name, batched.name);
}

#[test]
fn gradient_functions_use_the_kernels_own_slots() {
    let nl = LabelLayout::record(&[("label".into(), crate::cuda::label::CType::Int32)], Precision::F32);
    let src = mgk_grad_source::<Record, (), _, _>(
        &Field::new("label", KroneckerDelta::new(0.5)),
        &Constant::new(1.0),
        &nl,
        &LabelLayout::Empty,
        Precision::F32,
    )
    .unwrap();
    assert!(src.name.starts_with("mgk_grad_") && src.source.contains(&format!("#define MGK_GRAD_NAME {}\n", src.name)));
    let value = mgk_source::<Record, (), _, _>(
        &Field::new("label", KroneckerDelta::new(0.5)),
        &Constant::new(1.0),
        &nl,
        &LabelLayout::Empty,
        Precision::F32,
    )
    .unwrap();
    assert!(!value.source.contains("kappa_node_grad") && !value.source.contains("kg_dual"), "value kernels stay lean");
    let node = src.source.split("kappa_node_grad_raw(").nth(1).unwrap().split("\n}\n").next().unwrap();
    let edge = src.source.split("kappa_edge_grad(").nth(1).unwrap().split("\n}\n").next().unwrap();
    assert!(node.contains("g[0] = kg_k.d[0];") && !node.contains("g[1]") && !node.contains("theta[1]"), "{node}");
    assert!(edge.contains("theta[1]") && edge.contains("g[1] = kg_k.d[0];"), "{edge}");
    assert!(!edge.contains("theta[0]") && !edge.contains("g[0]"), "{edge}");
    assert!(src.source.contains("#define MGK_N_THETA 2\n#define MGK_NODE_THETA 1\n#define MGK_EDGE_THETA 1\n"));
    assert!(!src.source.contains("0.5"), "hyperparameter values must not be in the source");
}

#[test]
fn tile_pair_source_defines_its_scheme() {
    let layout = LabelLayout::record(&[("label".into(), crate::cuda::label::CType::Int32)], Precision::F32);
    let kn = Field::new("label", KroneckerDelta::new(0.5));
    for p in [Precision::F32, Precision::F64] {
        let rows = mgk_source::<Record, (), _, _>(&kn, &Constant::new(1.0), &layout, &LabelLayout::Empty, p).unwrap();
        let rows2 = mgk_source_with::<Record, (), _, _>(
            &kn,
            &Constant::new(1.0),
            &layout,
            &LabelLayout::Empty,
            p,
            XmvScheme::Rows,
        )
        .unwrap();
        assert_eq!(rows, rows2, "mgk_source is the row scheme");
        let tiles = mgk_source_with::<Record, (), _, _>(
            &kn,
            &Constant::new(1.0),
            &layout,
            &LabelLayout::Empty,
            p,
            XmvScheme::TilePairs,
        )
        .unwrap();
        // the generated prefaces (the template has its own #ifndef defaults)
        let preface = |src: &str| src.split(MGK_COMMON_TEMPLATE).next().unwrap().to_string();
        let (pt, pr) = (preface(&tiles.source), preface(&rows.source));
        assert!(pt.contains("#define MGK_XMV_TILES 1\n"), "{pt}");
        assert!(pt.contains(&format!("#define MGK_DENSE_MIN {}\n", Tuning::default().dense_min)), "{pt}");
        assert!(!pr.contains("MGK_XMV_TILES") && !pr.contains("MGK_DENSE_MIN"), "{pr}");
        assert_ne!(tiles.source, rows.source);
        assert_ne!(tiles.name, rows.name);
        assert!(tiles.name.starts_with("mgk_pcg_"));
        assert!(tiles.source.contains(&format!("#define MGK_KERNEL_NAME {}\n", tiles.name)));
        assert_eq!(tiles.theta, rows.theta);
        // the template holds both schemes; the gradient family never selects the tiles
        assert!(tiles.source.contains("#if MGK_XMV_TILES") && tiles.source.contains("stage_tiles("));
        let grad =
            mgk_grad_source::<Record, (), _, _>(&kn, &Constant::new(1.0), &layout, &LabelLayout::Empty, p).unwrap();
        assert!(!preface(&grad.source).contains("MGK_XMV_TILES"));
    }
}

#[test]
fn shared_placement_is_its_own_kernel() {
    let layout = LabelLayout::record(&[("label".into(), crate::cuda::label::CType::Int32)], Precision::F32);
    let kn = Field::new("label", KroneckerDelta::new(0.5));
    for xmv in [XmvScheme::Rows, XmvScheme::TilePairs] {
        let cg = |placement| {
            mgk_source_placed::<Record, (), _, _>(
                &kn,
                &Constant::new(1.0),
                &layout,
                &LabelLayout::Empty,
                Precision::F32,
                xmv,
                placement,
                &Tuning::default(),
            )
            .unwrap()
        };
        let (shared, any) = (cg(VectorPlacement::Shared), cg(VectorPlacement::Any));
        let preface = |src: &str| src.split(MGK_COMMON_TEMPLATE).next().unwrap().to_string();
        assert!(preface(&shared.source).contains("#define MGK_GLOBAL_VECTORS 0\n"));
        assert!(!preface(&any.source).contains("MGK_GLOBAL_VECTORS"));
        assert_ne!(shared.name, any.name);
        assert_eq!(shared.theta, any.theta);
        assert!(preface(&any.source).contains("#define MGK_GLOBAL_COPIES "));
        assert!(!preface(&any.source).contains("MGK_SHARED_VECTORS"));
        let global = cg(VectorPlacement::Global);
        assert!(preface(&global.source).contains("#define MGK_SHARED_VECTORS 0\n"));
        assert!(!preface(&global.source).contains("MGK_GLOBAL_VECTORS"));
        assert_ne!(global.name, any.name);
        assert_eq!(global.theta, any.theta);
    }
    // the gradient kernel: the same switch, and the default (Any) source holds the global path
    let grad = |placement| {
        mgk_grad_source_placed::<Record, (), _, _>(
            &kn,
            &Constant::new(1.0),
            &layout,
            &LabelLayout::Empty,
            Precision::F32,
            placement,
            &Tuning::default(),
        )
        .unwrap()
    };
    let (shared, any) = (grad(VectorPlacement::Shared), grad(VectorPlacement::Any));
    let preface = |src: &str| src.split(MGK_COMMON_TEMPLATE).next().unwrap().to_string();
    assert!(preface(&shared.source).contains("#define MGK_GLOBAL_VECTORS 0\n"));
    assert!(!preface(&any.source).contains("MGK_GLOBAL_VECTORS"));
    assert_ne!(shared.name, any.name);
    let default =
        mgk_grad_source::<Record, (), _, _>(&kn, &Constant::new(1.0), &layout, &LabelLayout::Empty, Precision::F32)
            .unwrap();
    assert_eq!(default, any);
}

#[test]
fn fast_math_marks_the_f32_value_kernels_only() {
    use crate::cuda::FAST_MATH_MARKER;
    let layout = |p| LabelLayout::record(&[("label".into(), crate::cuda::label::CType::Int32)], p);
    let delta = Field::new("label", KroneckerDelta::new(0.5));
    let sqexp = Field::new("label", crate::basekernel::SquareExponential::new(0.5));
    for p in [Precision::F32, Precision::F64] {
        let l = layout(p);
        // an exp in the edge kernel: fast math in f32; a delta and a constant: none
        let batched = mgk_source::<Record, Record, _, _>(&delta, &sqexp, &l, &l, p).unwrap();
        let large = mgk_large_source::<Record, Record, _, _>(&delta, &sqexp, &l, &l, p, &Tuning::default()).unwrap();
        let grad = mgk_grad_source::<Record, Record, _, _>(&delta, &sqexp, &l, &l, p).unwrap();
        let plain = mgk_source::<Record, (), _, _>(&delta, &Constant::new(1.0), &l, &LabelLayout::Empty, p).unwrap();
        let fast = p == Precision::F32; // the default tuning has fast math on
        assert_eq!(batched.source.contains(FAST_MATH_MARKER), fast);
        assert_eq!(large.source.contains(FAST_MATH_MARKER), fast);
        assert!(!grad.source.contains(FAST_MATH_MARKER));
        assert!(!plain.source.contains(FAST_MATH_MARKER));
        // off by the tuning: not in the source (and another kernel name)
        let off = Tuning::default().with_fast_math(false);
        let (xmv, any) = (XmvScheme::Rows, VectorPlacement::Any);
        let slow = mgk_source_placed::<Record, Record, _, _>(&delta, &sqexp, &l, &l, p, xmv, any, &off).unwrap();
        assert!(!slow.source.contains(FAST_MATH_MARKER));
        assert_eq!(slow.name == batched.name, !fast);
    }
}

/// Every tuning field that changes a kernel's source changes its name (the
/// key of the in-memory and disk caches), so two `GpuGram`s with different
/// tunings in one process never share a module; `block` is launch-time only.
#[test]
fn every_source_changing_tuning_field_changes_the_kernel_name() {
    let l = LabelLayout::record(&[("label".into(), crate::cuda::label::CType::Int32)], Precision::F32);
    let kn = Field::new("label", KroneckerDelta::new(0.5));
    let ke = Field::new("label", crate::basekernel::SquareExponential::new(0.5));
    let name = |xmv, placement, t: &Tuning| {
        mgk_source_placed::<Record, Record, _, _>(&kn, &ke, &l, &l, Precision::F32, xmv, placement, t).unwrap().name
    };
    let grad = |t: &Tuning| {
        mgk_grad_source_placed::<Record, Record, _, _>(&kn, &ke, &l, &l, Precision::F32, VectorPlacement::Any, t)
            .unwrap()
            .name
    };
    let base = Tuning::default();
    let (rows, tiles, any) = (XmvScheme::Rows, XmvScheme::TilePairs, VectorPlacement::Any);
    for (what, t) in [
        ("lane_nz", base.with_lane_nz(Some(1))),
        ("xmv_csr", base.with_xmv_csr(true)),
        ("global_copies", base.with_global_copies(2)),
        ("fast_math", base.with_fast_math(false)),
    ] {
        assert_ne!(name(rows, any, &base), name(rows, any, &t), "{what}");
    }
    assert_ne!(name(tiles, any, &base), name(tiles, any, &base.with_dense_min(16)), "dense_min");
    assert_ne!(grad(&base), grad(&base.with_lane_nz(Some(1))), "lane_nz, gradient");
    assert_ne!(grad(&base), grad(&base.with_xmv_csr(true)), "xmv_csr, gradient");
    assert_eq!(name(rows, any, &base), name(rows, any, &base.with_block(Some(128))), "block is launch-time");
}

#[test]
fn hash_separates_parts() {
    assert_ne!(hash_hex(&[b"ab", b"c"]), hash_hex(&[b"a", b"bc"]));
    assert_eq!(hash_hex(&[b"x"]).len(), 32);
}
