//! The GPU element-wise operations equal the CPU's: union, intersection,
//! apply (built-in and bound operators) and select (index and value
//! predicates) on dense and sparse device vectors and on device matrices,
//! for the built-in semirings' ⊕ and ⊗, every mask kind (none, structural,
//! valued; each complemented or not), replace or not, with and without an
//! accumulator, and the transposing descriptors. Each matrix result's CSC
//! form is checked too (by transposing it on the device). The same with
//! 64-bit device indices (forced) on a share of the semirings.
//!
//! Values are small integers, so every result is exact. Skips without a
//! GPU unless `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use kronograph::cuda::GpuDevice;
use kronograph::matrix::gpu::IndexWidth;
use kronograph::matrix::gpu::{
    DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector, GpuBinaryOp, GpuElement,
    GpuSelectOp, GpuUnaryOp, SelectForm, UnaryForm,
};
use kronograph::matrix::{
    apply, ewise_add, ewise_mult, mxm, mxv, mxv_sparse, select, vxm, vxm_sparse, DenseVector, Descriptor, Mask,
    MatrixMask, MxmMethod, SparseMatrix, SpmspvOptions,
};
use kronograph::semirings::{
    AnyPair, AnySecondi, LorLand, MaxMin, MaxPlus, MinPlus, PlusPair, PlusTimes, Position, Semiring,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::OnceLock;

fn device() -> Option<GpuDevice> {
    static DEV: OnceLock<Option<GpuDevice>> = OnceLock::new();
    DEV.get_or_init(|| {
        crate::device_common::gpu_or_skip().map(|d| GpuDevice::open(d).expect("opening the CUDA device"))
    })
    .clone()
}

fn random_dense<T: GpuElement>(rng: &mut ChaCha8Rng, n: usize, density: f64, val: &dyn Fn(u32) -> T) -> DenseVector<T> {
    let o: Vec<Option<T>> = (0..n).map(|_| rng.random_bool(density).then(|| val(rng.random_range(0..7)))).collect();
    DenseVector::from_options(&o)
}

fn random_matrix<T: GpuElement>(
    rng: &mut ChaCha8Rng,
    n: usize,
    density: f64,
    val: &dyn Fn(u32) -> T,
) -> SparseMatrix<T> {
    let d: Vec<Option<T>> = (0..n * n).map(|_| rng.random_bool(density).then(|| val(rng.random_range(0..7)))).collect();
    SparseMatrix::from_dense_options(n, n, &d)
}

/// The vector masks of every kind: name, CPU mask, device mask (the
/// complemented ones complemented on the device, so that the kernels'
/// complemented form runs).
fn vector_masks(
    rng: &mut ChaCha8Rng,
    dev: &GpuDevice,
    n: usize,
) -> Vec<(String, Option<Mask<'static>>, Option<DeviceMask>)> {
    let mv = random_dense(rng, n, 0.6, &|x| x as i32);
    let mut out = vec![("none".to_string(), None, None)];
    for (kind, m) in [("structural", Mask::from_bits(mv.present().to_vec())), ("valued", Mask::valued(&mv))] {
        let up = |m: &Mask<'_>| DeviceMask::upload(dev, m).unwrap();
        out.push((kind.to_string(), Some(m.clone()), Some(up(&m))));
        out.push((format!("{kind} complemented"), Some(m.clone().complement()), Some(up(&m).complement())));
    }
    out
}

fn matrix_masks(rng: &mut ChaCha8Rng, n: usize) -> Vec<(String, Option<MatrixMask<'static>>)> {
    let mm = random_matrix(rng, n, 0.5, &|x| x as i32);
    let mut out = vec![("none".to_string(), None)];
    for (kind, m) in [("structural", MatrixMask::valued(&mm.map(|_| 1i32))), ("valued", MatrixMask::valued(&mm))] {
        out.push((kind.to_string(), Some(m.clone())));
        out.push((format!("{kind} complemented"), Some(m.complement())));
    }
    out
}

/// Every element-wise operation over semiring `s`, GPU against CPU. With
/// `full`, every mask kind with and without an accumulator, replace or not;
/// else one combination per operation. `positional`: ⊗ reads positions
/// (skip the ⊗ operations, which the CPU closures cannot mirror).
fn check_semiring<S, T>(s: S, seed: u64, n: usize, val: &dyn Fn(u32) -> T, full: bool, positional: bool)
where
    S: Semiring<A = T, B = T>,
    S::C: GpuElement + PartialOrd,
    T: GpuElement + PartialOrd,
{
    check_semiring_at(IndexWidth::U32, s, seed, n, val, full, positional)
}

/// [`check_semiring`] with sparse vectors, matrices and masks of index width `iw`.
fn check_semiring_at<S, T>(
    iw: IndexWidth,
    s: S,
    seed: u64,
    n: usize,
    val: &dyn Fn(u32) -> T,
    full: bool,
    positional: bool,
) where
    S: Semiring<A = T, B = T>,
    S::C: GpuElement + PartialOrd,
    T: GpuElement + PartialOrd,
{
    let Some(dev) = device() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let name = s.name();
    let to_c = |x: T| s.multiply(x, x, Position::default());
    let (add, mul) = (GpuBinaryOp::add(&s), GpuBinaryOp::mul(&s));
    let add_f = |x: S::C, y: S::C| s.add(x, y);
    let mul_f = |x: T, y: T| s.multiply(x, y, Position::default());
    let cpu_acc: &(dyn Fn(S::C, S::C) -> S::C + Sync) = &add_f;
    let scalar = val(2);
    let bound = GpuUnaryOp::bind_second(mul.clone(), scalar).unwrap();
    let tril = GpuSelectOp::index(SelectForm::Tril, -2).unwrap();

    // ---------------------------------------------------------------- vectors
    let u = random_dense(&mut rng, n, 0.5, val);
    let v = random_dense(&mut rng, n, 0.5, val);
    let map_c =
        |x: &DenseVector<T>| DenseVector::from_options(&x.to_options().iter().map(|o| o.map(to_c)).collect::<Vec<_>>());
    let (uc, vc) = (map_c(&u), map_c(&v));
    let pivot = uc.to_sparse().values().first().copied().unwrap_or(s.zero());
    let above = GpuSelectOp::value(SelectForm::ValueGt, pivot).unwrap();
    let up = |x: &DenseVector<T>| DeviceDenseVector::upload(&dev, x).unwrap();
    let upc = |x: &DenseVector<S::C>| DeviceDenseVector::upload(&dev, x).unwrap();
    let (du, dv, duc, dvc) = (up(&u), up(&v), upc(&uc), upc(&vc));
    let masks = vector_masks(&mut rng, &dev, n);
    let mut combo = 0usize;
    for (kind, m, dm) in &masks {
        for replace in [false, true] {
            for with_acc in [false, true] {
                combo += 1;
                if !full && combo % 7 != 3 {
                    continue;
                }
                let desc = if replace { Descriptor::DEFAULT.replace() } else { Descriptor::DEFAULT };
                let (acc, dacc) = if with_acc { (Some(cpu_acc), Some(&add)) } else { (None, None) };
                let what = |op: &str| format!("{name} {op}: mask {kind}, replace {replace}, accum {with_acc}");
                let old = map_c(&random_dense(&mut rng, n, 0.4, val));
                let (m, dm) = (m.as_ref(), dm.as_ref());
                // union with ⊕, dense and sparse operands
                let mut w = old.clone();
                ewise_add(&mut w, m, acc, add_f, &uc, &vc, &desc).unwrap();
                let mut dw = upc(&old);
                ewise_add(&mut dw, dm, dacc, &add, &duc, &dvc, &desc).unwrap();
                assert_eq!(dw.download().unwrap().to_options(), w.to_options(), "{}", what("ewise_add dense"));
                let mut sw = DeviceSparseVector::upload_with_width(&dev, &old.to_sparse(), iw).unwrap();
                let suc = DeviceSparseVector::upload_with_width(&dev, &uc.to_sparse(), iw).unwrap();
                ewise_add(&mut sw, dm, dacc, &add, &suc, &dvc, &desc).unwrap();
                assert_eq!(sw.download().unwrap(), w.to_sparse(), "{}", what("ewise_add sparse"));
                // select: index and value predicates (a sparse output)
                let mut w = old.clone();
                select(&mut w, m, acc, |i: usize, _: S::C| i as i64 >= 2, &uc, &desc).unwrap();
                let mut dw = upc(&old);
                select(&mut dw, dm, dacc, &tril, &duc, &desc).unwrap();
                assert_eq!(dw.download().unwrap().to_options(), w.to_options(), "{}", what("select tril"));
                let mut w = old.clone();
                select(&mut w, m, acc, |_: usize, x: S::C| x > pivot, &uc, &desc).unwrap();
                let mut sw = DeviceSparseVector::upload_with_width(&dev, &old.to_sparse(), iw).unwrap();
                select(&mut sw, dm, dacc, &above, &duc, &desc).unwrap();
                assert_eq!(sw.download().unwrap(), w.to_sparse(), "{}", what("select value"));
                if positional {
                    continue;
                }
                // intersection with ⊗ (A × B → C) and apply with ⊗ bound second
                let mut w = old.clone();
                ewise_mult(&mut w, m, acc, mul_f, &u, &v, &desc).unwrap();
                let mut dw = upc(&old);
                ewise_mult(&mut dw, dm, dacc, &mul, &du, &dv, &desc).unwrap();
                assert_eq!(dw.download().unwrap().to_options(), w.to_options(), "{}", what("ewise_mult"));
                let mut w = old.clone();
                apply(&mut w, m, acc, |x: T| mul_f(x, scalar), &u, &desc).unwrap();
                let mut dw = upc(&old);
                apply(&mut dw, dm, dacc, &bound, &du, &desc).unwrap();
                assert_eq!(dw.download().unwrap().to_options(), w.to_options(), "{}", what("apply bind2nd"));
            }
        }
    }

    // ---------------------------------------------------------------- matrices
    let a = random_matrix(&mut rng, n, 0.3, val);
    let b = random_matrix(&mut rng, n, 0.3, val);
    let (ac, bc) = (a.map(to_c), b.map(to_c));
    let (da, db) = (
        DeviceMatrix::upload_with_width(&dev, &a, iw).unwrap(),
        DeviceMatrix::upload_with_width(&dev, &b, iw).unwrap(),
    );
    let (dac, dbc) = (
        DeviceMatrix::upload_with_width(&dev, &ac, iw).unwrap(),
        DeviceMatrix::upload_with_width(&dev, &bc, iw).unwrap(),
    );
    assert_eq!(dac.index_width(), iw);
    let identity = GpuUnaryOp::new(UnaryForm::Identity).unwrap();
    // C's CSC form: Cᵀ by the device, from it, against the CPU's transpose
    let check_csc = |dc: &DeviceMatrix<S::C>, c: &SparseMatrix<S::C>, what: &str| {
        let mut t = DeviceMatrix::new(&dev, n, n).unwrap();
        apply(&mut t, None, None, &identity, dc, &Descriptor::DEFAULT.transpose_first()).unwrap();
        assert_eq!(t.download().unwrap().to_dense_options(), c.transpose().to_dense_options(), "{what}: CSC");
    };
    let mut combo = 0usize;
    for (kind, m) in matrix_masks(&mut rng, n) {
        let dm = m.as_ref().map(|m| DeviceMatrixMask::upload_with_width(&dev, m, iw).unwrap());
        for replace in [false, true] {
            for with_acc in [false, true] {
                combo += 1;
                if !full && combo % 7 != 5 {
                    continue;
                }
                let transpose = combo % 3 == 0;
                let mut desc = if replace { Descriptor::DEFAULT.replace() } else { Descriptor::DEFAULT };
                if transpose {
                    desc = desc.transpose_first().transpose_second();
                }
                let (acc, dacc) = if with_acc { (Some(cpu_acc), Some(&add)) } else { (None, None) };
                let what = |op: &str| {
                    format!("{name} {op}: mask {kind}, replace {replace}, accum {with_acc}, transposed {transpose}")
                };
                let old = random_matrix(&mut rng, n, 0.2, val).map(to_c);
                let (m, dm) = (m.as_ref(), dm.as_ref());
                let up_old = || DeviceMatrix::upload_with_width(&dev, &old, iw).unwrap();
                let mut c = old.clone();
                ewise_add(&mut c, m, acc, add_f, &ac, &bc, &desc).unwrap();
                let mut dc = up_old();
                ewise_add(&mut dc, dm, dacc, &add, &dac, &dbc, &desc).unwrap();
                assert_eq!(dc.download().unwrap().to_dense_options(), c.to_dense_options(), "{}", what("ewise_add"));
                check_csc(&dc, &c, &what("ewise_add"));
                let mut c = old.clone();
                select(&mut c, m, acc, |i: usize, j: usize, _: S::C| j as i64 <= i as i64 - 2, &ac, &desc).unwrap();
                let mut dc = up_old();
                select(&mut dc, dm, dacc, &tril, &dac, &desc).unwrap();
                assert_eq!(dc.download().unwrap().to_dense_options(), c.to_dense_options(), "{}", what("select tril"));
                check_csc(&dc, &c, &what("select tril"));
                let mut c = old.clone();
                select(&mut c, m, acc, |_: usize, _: usize, x: S::C| x > pivot, &ac, &desc).unwrap();
                let mut dc = up_old();
                select(&mut dc, dm, dacc, &above, &dac, &desc).unwrap();
                assert_eq!(dc.download().unwrap().to_dense_options(), c.to_dense_options(), "{}", what("select value"));
                if positional {
                    continue;
                }
                let mut c = old.clone();
                ewise_mult(&mut c, m, acc, mul_f, &a, &b, &desc).unwrap();
                let mut dc = up_old();
                ewise_mult(&mut dc, dm, dacc, &mul, &da, &db, &desc).unwrap();
                assert_eq!(dc.download().unwrap().to_dense_options(), c.to_dense_options(), "{}", what("ewise_mult"));
                check_csc(&dc, &c, &what("ewise_mult"));
                let mut c = old.clone();
                apply(&mut c, m, acc, |x: T| mul_f(x, scalar), &a, &desc).unwrap();
                let mut dc = up_old();
                apply(&mut dc, dm, dacc, &bound, &da, &desc).unwrap();
                assert_eq!(dc.download().unwrap().to_dense_options(), c.to_dense_options(), "{}", what("apply"));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, ..ProptestConfig::default() })]

    #[test]
    fn arithmetic(seed in any::<u64>(), n in 1usize..30) {
        check_semiring(PlusTimes::<f64>::new(), seed, n, &|x| x as f64, true, false);
        check_semiring(PlusTimes::<f32>::new(), seed, n, &|x| x as f32, false, false);
        check_semiring(PlusTimes::<i32>::new(), seed, n, &|x| x as i32 - 3, false, false);
        check_semiring(PlusTimes::<u64>::new(), seed, n, &|x| x as u64, false, false);
    }

    #[test]
    fn tropical(seed in any::<u64>(), n in 1usize..30) {
        check_semiring(MinPlus::<u32>::new(), seed, n, &|x| x, true, false);
        check_semiring(MinPlus::<f64>::new(), seed, n, &|x| x as f64, false, false);
        check_semiring(MaxPlus::<i64>::new(), seed, n, &|x| x as i64 - 3, false, false);
        check_semiring(MaxMin::<f64>::new(), seed, n, &|x| x as f64, false, false);
    }

    #[test]
    fn structural(seed in any::<u64>(), n in 1usize..30) {
        check_semiring(LorLand, seed, n, &|x| x % 2 == 1, true, false);
        check_semiring(AnyPair::<f64, f64>::new(), seed, n, &|x| x as f64, false, false);
        check_semiring(PlusPair::<f64, f64, u64>::new(), seed, n, &|x| x as f64, false, false);
        check_semiring(AnySecondi::<f64, f64>::new(), seed, n, &|x| x as f64, false, true);
    }

    /// The 64-bit instantiations, against the same CPU results.
    #[test]
    fn wide_indices(seed in any::<u64>(), n in 1usize..30) {
        let w = IndexWidth::U64;
        check_semiring_at(w, PlusTimes::<f64>::new(), seed, n, &|x| x as f64, true, false);
        check_semiring_at(w, MinPlus::<u32>::new(), seed, n, &|x| x, false, false);
        check_semiring_at(w, LorLand, seed, n, &|x| x % 2 == 1, false, false);
    }
}

/// The built-in unary operators on signed and floating-point values.
#[test]
fn unary_operators() {
    let Some(dev) = device() else { return };
    let x = DenseVector::from_options(&[Some(-3i32), None, Some(4), Some(0)]);
    let dx = DeviceDenseVector::upload(&dev, &x).unwrap();
    for (form, f) in [
        (UnaryForm::Identity, (|v| v) as fn(i32) -> i32),
        (UnaryForm::Ainv, |v: i32| -v),
        (UnaryForm::Abs, |v: i32| v.abs()),
        (UnaryForm::One, |_| 1),
    ] {
        let mut w = DenseVector::<i32>::new(4);
        apply(&mut w, None, None, f, &x, &Descriptor::DEFAULT).unwrap();
        let mut dw = DeviceDenseVector::<i32>::new(&dev, 4).unwrap();
        apply(&mut dw, None, None, &GpuUnaryOp::new(form.clone()).unwrap(), &dx, &Descriptor::DEFAULT).unwrap();
        assert_eq!(dw.download().unwrap().to_options(), w.to_options(), "{form:?}");
    }
    // f64 → f64 with ⊕ bound first (min(2.5, x))
    let y = DenseVector::from_options(&[Some(-1.5f64), Some(7.0), None]);
    let dy = DeviceDenseVector::upload(&dev, &y).unwrap();
    let op = GpuUnaryOp::bind_first(GpuBinaryOp::add(&MinPlus::<f64>::new()), 2.5f64).unwrap();
    let mut dw = DeviceDenseVector::new(&dev, 3).unwrap();
    apply(&mut dw, None, None, &op, &dy, &Descriptor::DEFAULT).unwrap();
    assert_eq!(dw.download().unwrap().to_options(), vec![Some(-1.5), Some(2.5), None]);
}

/// Operator types that do not fit the operands are named, not run.
#[test]
fn type_mismatches_are_reported() {
    let Some(dev) = device() else { return };
    let x = DeviceDenseVector::upload(&dev, &DenseVector::full(vec![1.0f64, 2.0])).unwrap();
    let mut w = DeviceDenseVector::<f64>::new(&dev, 2).unwrap();
    let wrong = GpuBinaryOp::add(&PlusTimes::<i32>::new());
    let e = ewise_add(&mut w, None, None, &wrong, &x, &x, &Descriptor::DEFAULT).unwrap_err().to_string();
    assert!(e.contains("double") && e.contains("int"), "{e}");
    let short = DeviceDenseVector::upload(&dev, &DenseVector::full(vec![1.0f64])).unwrap();
    let add = GpuBinaryOp::add(&PlusTimes::<f64>::new());
    assert!(ewise_add(&mut w, None, None, &add, &x, &short, &Descriptor::DEFAULT).is_err());
}

/// Products with an accumulator: the device product into a temporary, then
/// the accumulator by `apply` (identity, accumulator given), against the CPU's products with the
/// accumulator (dense and sparse vectors, every mask kind, replace or not;
/// the masked dot product under structural and valued masks).
fn check_products<S, T>(s: S, seed: u64, n: usize, val: &dyn Fn(u32) -> T)
where
    S: Semiring<A = T, B = T>,
    S::C: GpuElement,
    T: GpuElement,
{
    let Some(dev) = device() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let name = s.name();
    let to_c = |x: T| s.multiply(x, x, Position::default());
    let add = GpuBinaryOp::add(&s);
    let identity = GpuUnaryOp::new(UnaryForm::Identity).unwrap();
    let add_f = |x: S::C, y: S::C| s.add(x, y);
    let acc: &(dyn Fn(S::C, S::C) -> S::C + Sync) = &add_f;
    let a = random_matrix(&mut rng, n, 0.3, val);
    let x = random_dense(&mut rng, n, 0.5, val);
    let xs = x.to_sparse();
    let da = DeviceMatrix::upload(&dev, &a).unwrap();
    let (dx, dxs) = (DeviceDenseVector::upload(&dev, &x).unwrap(), DeviceSparseVector::upload(&dev, &xs).unwrap());
    let map_c =
        |v: &DenseVector<T>| DenseVector::from_options(&v.to_options().iter().map(|o| o.map(to_c)).collect::<Vec<_>>());
    for (kind, m, dm) in vector_masks(&mut rng, &dev, n) {
        for replace in [false, true] {
            let desc = if replace { Descriptor::DEFAULT.replace() } else { Descriptor::DEFAULT };
            let what = format!("{name} mxv + accumulate: mask {kind}, replace {replace}");
            let old = map_c(&random_dense(&mut rng, n, 0.4, val));
            let mut w = old.clone();
            mxv(&mut w, m.as_ref(), Some(acc), s, &a, &x, &desc).unwrap();
            let mut t = DeviceDenseVector::new(&dev, n).unwrap();
            mxv(&mut t, dm.as_ref(), None, s, &da, &dx, &Descriptor::DEFAULT).unwrap();
            let mut dw = DeviceDenseVector::upload(&dev, &old).unwrap();
            apply(&mut dw, dm.as_ref(), Some(&add), &identity, &t, &desc).unwrap();
            assert_eq!(dw.download().unwrap().to_options(), w.to_options(), "{what}");
            let mut ws = old.to_sparse();
            mxv_sparse(&mut ws, m.as_ref(), Some(acc), s, &a, &xs, &desc, &SpmspvOptions::default()).unwrap();
            let mut ts = DeviceSparseVector::new(&dev, n).unwrap();
            mxv_sparse(&mut ts, dm.as_ref(), None, s, &da, &dxs, &Descriptor::DEFAULT, &SpmspvOptions::default())
                .unwrap();
            let mut dws = DeviceSparseVector::upload(&dev, &old.to_sparse()).unwrap();
            apply(&mut dws, dm.as_ref(), Some(&add), &identity, &ts, &desc).unwrap();
            assert_eq!(dws.download().unwrap(), ws, "{what} (sparse)");
            // the one API: the same calls on device objects, accumulator and all
            let mut dw = DeviceDenseVector::upload(&dev, &old).unwrap();
            mxv(&mut dw, dm.as_ref(), Some(&add), s, &da, &dx, &desc).unwrap();
            assert_eq!(dw.download().unwrap().to_options(), w.to_options(), "{what} (one API)");
            let mut dws = DeviceSparseVector::upload(&dev, &old.to_sparse()).unwrap();
            mxv_sparse(&mut dws, dm.as_ref(), Some(&add), s, &da, &dxs, &desc, &SpmspvOptions::default()).unwrap();
            assert_eq!(dws.download().unwrap(), ws, "{what} (one API, sparse)");
            // without an accumulator: a masked product keeps what the mask protects unless replace
            let (mut w, mut ws) = (old.clone(), old.to_sparse());
            vxm(&mut w, m.as_ref(), None, s, &x, &a, &desc).unwrap();
            vxm_sparse(&mut ws, m.as_ref(), None, s, &xs, &a, &desc, &SpmspvOptions::default()).unwrap();
            let mut dw = DeviceDenseVector::upload(&dev, &old).unwrap();
            vxm(&mut dw, dm.as_ref(), None, s, &dx, &da, &desc).unwrap();
            assert_eq!(dw.download().unwrap().to_options(), w.to_options(), "{what} (one API vxm)");
            let mut dws = DeviceSparseVector::upload(&dev, &old.to_sparse()).unwrap();
            vxm_sparse(&mut dws, dm.as_ref(), None, s, &dxs, &da, &desc, &SpmspvOptions::default()).unwrap();
            assert_eq!(dws.download().unwrap(), ws, "{what} (one API vxm_sparse)");
        }
    }
    let mm = random_matrix(&mut rng, n, 0.5, &|x| x as i32);
    for (kind, cm) in [("structural", MatrixMask::structural(&mm)), ("valued", MatrixMask::valued(&mm))] {
        let dcm = DeviceMatrixMask::upload(&dev, &cm).unwrap();
        for replace in [false, true] {
            let desc = if replace { Descriptor::DEFAULT.replace() } else { Descriptor::DEFAULT };
            let old = random_matrix(&mut rng, n, 0.3, val).map(to_c);
            let mut c = old.clone();
            mxm(&mut c, Some(&cm), Some(acc), s, &a, &a, &desc.transpose_second(), MxmMethod::Dot).unwrap();
            let mut dt = DeviceMatrix::new(&dev, n, n).unwrap();
            let dsc = Descriptor::DEFAULT.transpose_second();
            mxm(&mut dt, Some(&dcm), None, s, &da, &da, &dsc, MxmMethod::Dot).unwrap();
            let mut dc = DeviceMatrix::upload(&dev, &old).unwrap();
            apply(&mut dc, Some(&dcm), Some(&add), &identity, &dt, &desc).unwrap();
            let what = format!("{name} mxm + accumulate: mask {kind}, replace {replace}");
            assert_eq!(dc.download().unwrap().to_dense_options(), c.to_dense_options(), "{what}");
            // the one API: the product with its accumulator in one call
            let mut dc = DeviceMatrix::upload(&dev, &old).unwrap();
            mxm(&mut dc, Some(&dcm), Some(&add), s, &da, &da, &desc.transpose_second(), MxmMethod::Dot).unwrap();
            assert_eq!(dc.download().unwrap().to_dense_options(), c.to_dense_options(), "{what} (one API)");
        }
    }
}

#[test]
fn products_with_accumulators() {
    for seed in 0..3u64 {
        let n = 5 + 9 * seed as usize;
        check_products(PlusTimes::<f64>::new(), seed, n, &|x| x as f64);
        check_products(MinPlus::<u32>::new(), seed, n, &|x| x);
        check_products(LorLand, seed, n, &|x| x % 2 == 1);
    }
}
