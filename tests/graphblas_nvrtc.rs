//! Every kernel the GPU GraphBLAS generates compiles with NVRTC (PTX for
//! `compute_90`): the module of each built-in semiring with a device form
//! (`kernels/graphblas.cu` after the semiring's CUDA preface) and the
//! semiring-independent module, and each semiring's hash (Gustavson)
//! masked-product module (`kernels/graphblas_mxm_hash.cu`). Mask kinds and merge strategies are launch
//! arguments of these modules, so this covers every kernel the library
//! launches. Each template is instantiated with 32-bit indices (every
//! module) and 64-bit ones (every template, on a share of the semirings
//! and element-wise keys: the index type is one typedef, CI time counts).
//!
//! Needs libnvrtc, no GPU; skips without it unless `KRONOGRAPH_REQUIRE_NVRTC=1`
//! or `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use crate::nvrtc_common;

use kronograph::matrix::gpu::{hash_source_for, source_for, util_source, IndexWidth};
use nvrtc_common::{builtin_forms, nvrtc_or_skip, ptx};

#[test]
fn every_generated_graphblas_module_compiles() {
    if !nvrtc_or_skip() {
        return;
    }
    let forms = builtin_forms();
    assert_eq!(forms.len(), 33);
    let (u32_, u64_) = (IndexWidth::U32, IndexWidth::U64);
    let mut jobs: Vec<(String, String)> = forms.iter().map(|c| (c.name.clone(), source_for(c, u32_))).collect();
    jobs.extend(forms.iter().map(|c| (format!("graphblas_hash_{}", c.name), hash_source_for(c, u32_))));
    // the 64-bit instantiations: the product module on every fourth form,
    // the hash module on the forms between
    for (n, c) in forms.iter().enumerate() {
        if n % 4 == 0 {
            jobs.push((format!("{}_u64", c.name), source_for(c, u64_)));
        } else if n % 4 == 2 {
            jobs.push((format!("graphblas_hash_{}_u64", c.name), hash_source_for(c, u64_)));
        }
    }
    // the (⊕, first) forms of the device's reduce_rows, on every other form
    for c in forms.iter().step_by(2) {
        let f = kronograph::matrix::gpu::row_reduce_form(c.clone());
        jobs.push((f.name.clone(), source_for(&f, u32_)));
    }
    for w in [u32_, u64_] {
        jobs.push((format!("graphblas_util_{}", w.name()), util_source(w)));
        jobs.push((format!("graphblas_frontier_{}", w.name()), kronograph::algorithms::gpu::frontier_source(w)));
    }
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

/// The util module of each index width holds every kernel of the device's
/// sparse builders (`kernels/graphblas_sparse.cu`: compaction, remaps, the
/// sort within rows, the transpose, gathers of 1, 2, 4 and 8 bytes).
#[test]
fn util_module_holds_the_sparse_builders() {
    if !nvrtc_or_skip() {
        return;
    }
    for w in [IndexWidth::U32, IndexWidth::U64] {
        let ptx = ptx(&format!("graphblas_util_{}", w.name()), &util_source(w)).unwrap();
        for k in kronograph::matrix::gpu::SPARSE_KERNELS {
            assert!(ptx.contains(&format!(".entry {k}(")), "{k} missing from the {} util module", w.name());
        }
    }
}

/// The element-wise modules: intersection with every built-in form's ⊗
/// and its ⊕ as the accumulator; union and apply with a bound ⊗ on a third
/// of the forms each; the built-in unary operators and select predicates
/// over every element type; each mask kind in turn; and the sparse/bitmap
/// conversions of every element type. The operation kind, mask kind and
/// accumulator are `#if` branches of one template, each compiled here.
#[test]
fn every_generated_element_wise_module_compiles() {
    use kronograph::matrix::gpu::{
        convert_source, ElementKey, ElementOp, GpuBinaryOp, GpuSelectOp, GpuUnaryOp, MaskKind, SelectForm, UnaryForm,
    };
    use IndexWidth::{U32, U64};
    if !nvrtc_or_skip() {
        return;
    }
    const MASKS: [MaskKind; 3] = [MaskKind::None, MaskKind::Mask, MaskKind::Complemented];
    const TYPES: [&str; 8] =
        ["bool", "unsigned char", "int", "unsigned int", "long long", "unsigned long long", "float", "double"];
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    let mut keys = Vec::new();
    for (n, c) in builtin_forms().into_iter().enumerate() {
        let (add, mul) = (GpuBinaryOp::add_of(c.clone()), GpuBinaryOp::mul_of(c.clone()));
        let z = leak(&c.c_type);
        // an unread operand takes any element type: use double
        let operand = |t: &str| if t == "unsigned char" { "double" } else { leak(t) };
        let (x, y) = (operand(&c.a_type), operand(&c.b_type));
        let mask = MASKS[n % 3];
        // every ⊕ and ⊗ (the accumulator is the ⊕); the union and bound
        // apply paths on a third of the forms each (CI time)
        let accum = Some(add.clone());
        let index = U32;
        keys.push(ElementKey { op: ElementOp::Mult(mul.clone()), accum, x, y, z, mask: MASKS[(n + 1) % 3], index });
        if n % 3 == 0 {
            keys.push(ElementKey { op: ElementOp::Add(add.clone()), accum: None, x: z, y: z, z, mask, index });
        }
        if n % 3 == 1 && c.b_type == c.c_type {
            let bound = GpuUnaryOp::for_generation(UnaryForm::BindSecond(mul), z);
            let mask = MASKS[(n + 2) % 3];
            keys.push(ElementKey { op: ElementOp::Apply(bound), accum: None, x, y: x, z, mask, index });
        }
    }
    for (n, t) in TYPES.into_iter().enumerate() {
        let unary = [UnaryForm::Identity, UnaryForm::Ainv, UnaryForm::Abs, UnaryForm::One];
        let op = ElementOp::Apply(GpuUnaryOp::new(unary[n % 4].clone()).unwrap());
        keys.push(ElementKey { op, accum: None, x: t, y: t, z: t, mask: MASKS[(n + 1) % 3], index: U32 });
        // Ainv or Abs on each type too (the signedness corner cases)
        let op = ElementOp::Apply(GpuUnaryOp::new(unary[1 + n % 2].clone()).unwrap());
        keys.push(ElementKey { op, accum: None, x: t, y: t, z: t, mask: MASKS[(n + 2) % 3], index: U32 });
        let value = [SelectForm::ValueEq, SelectForm::ValueNe, SelectForm::ValueLt, SelectForm::ValueGe];
        let index = [SelectForm::Tril, SelectForm::Triu, SelectForm::Diag, SelectForm::Offdiag];
        let f = if n % 2 == 0 { index[n / 2 % 4] } else { value[n / 2 % 4] };
        let op = if n % 2 == 0 { GpuSelectOp::index(f, -1).unwrap() } else { GpuSelectOp::for_generation(f, t) };
        let mask = MASKS[n % 3];
        keys.push(ElementKey { op: ElementOp::Select(op), accum: None, x: t, y: t, z: t, mask, index: U32 });
    }
    // the 64-bit instantiations: every fifth key (each kind and mask kind among them)
    let wide: Vec<ElementKey> =
        keys.iter().step_by(5).map(|k| ElementKey { index: IndexWidth::U64, ..k.clone() }).collect();
    keys.extend(wide);
    for k in &keys {
        k.check().unwrap_or_else(|e| panic!("{k:?}: {e}"));
    }
    let mut jobs: Vec<(String, String)> = keys.iter().map(|k| (k.module(&k.source()), k.source())).collect();
    jobs.extend(TYPES.iter().map(|t| (format!("convert_{}", t.replace(' ', "_")), convert_source(t, U32))));
    jobs.extend(
        TYPES.iter().step_by(3).map(|t| (format!("convert_{}_u64", t.replace(' ', "_")), convert_source(t, U64))),
    );
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
