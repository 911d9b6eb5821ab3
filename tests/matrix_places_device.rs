//! The device's matrix product (masked or not), extract and assign against
//! the host on random inputs (proptest), on every CUDA device present (none:
//! the cases run on the host only; `KRONOGRAPH_REQUIRE_GPU=1` fails then).
//! Products take arbitrary floating-point values: both places fold each
//! entry's terms in increasing `k`, so their results are equal bitwise.

use crate::device_common::gpu_ordinals;
use crate::matrix_places::{matrix, matrix_mask, rand_dense, transposed, Case, IndexCase, D};
use kronograph::matrix::{op, MxmMethod};
use kronograph::semirings::PlusTimes;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random `len` matrix of floats (not small integers: sums round).
fn rand_floats(rng: &mut ChaCha8Rng, len: usize, p: f64) -> D {
    (0..len).map(|_| rng.random_bool(p).then(|| rng.random::<f64>() * 8.0 - 4.0)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// `op::mxm` on each device equals the host's, bitwise: no mask, a plain
    /// or a complemented mask, with or without accumulator, replace and the
    /// transposes, every method, 32- or 64-bit indices.
    #[test]
    fn device_mxm_equals_host(seed in any::<u64>(), m in 1usize..40, k in 1usize..40, n in 1usize..40) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let d = rng.random_range(0.05..0.6);
        let (a, b, c0) = (rand_floats(&mut rng, m * k, d), rand_floats(&mut rng, k * n, d), rand_dense(&mut rng, m * n, 0.3));
        let mut case = Case::new(&mut rng, m * n);
        case.desc.transpose_first = rng.random_bool(0.3);
        case.desc.transpose_second = rng.random_bool(0.3);
        let ha = if case.desc.transpose_first { matrix(k, m, &transposed(m, k, &a)) } else { matrix(m, k, &a) };
        let hb = if case.desc.transpose_second { matrix(n, k, &transposed(k, n, &b)) } else { matrix(k, n, &b) };
        let p = case.pattern(m, n);
        let mm = matrix_mask(&p);
        let wide = rng.random_bool(0.3);
        for method in [MxmMethod::Auto, MxmMethod::Gustavson, MxmMethod::Dot] {
            let mut c = matrix(m, n, &c0);
            let acc = case.accum.then_some(crate::matrix_places::PLUS);
            op::mxm(&mut c, mm.as_ref(), acc, PlusTimes::<f64>::new(), &ha, &hb, &case.desc, method).unwrap();
            let want = c.to_dense_options();
            let complemented = p.as_ref().is_some_and(|p| p.1);
            for i in gpu_ordinals() {
                let got = gpu::mxm(i, &ha, &hb, &matrix(m, n, &c0), mm.as_ref(), case.accum, &case.desc, method, wide);
                match got {
                    Ok(got) => prop_assert_eq!(&got, &want, "{:?} {:?} wide {}", method, case, wide),
                    // the dot form takes no complemented mask: a typed error
                    Err(e) => prop_assert!(complemented && method == MxmMethod::Dot, "{e}"),
                }
            }
        }
    }

    /// extract, assign, extract_vector and assign_vector on each device equal
    /// the reference (and so the host), any case.
    #[test]
    fn device_index_ops_equal_reference(seed in any::<u64>(), m in 1usize..30, n in 1usize..30) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let case = IndexCase::new(&mut rng, m, n);
        let want = case.want();
        prop_assert_eq!(&case.host(), &want);
        for i in gpu_ordinals() {
            prop_assert_eq!(&crate::matrix_places::gpu::index_ops(i, &case), &want, "{:?}", case);
        }
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::D;
    use kronograph::cuda::GpuDevice;
    use kronograph::matrix::gpu::{DeviceMatrix, DeviceMatrixMask, GpuBinaryOp, IndexWidth};
    use kronograph::matrix::{op, Descriptor, MatrixMask, MxmMethod, SparseMatrix};
    use kronograph::semirings::PlusTimes;

    /// `op::mxm` on device `i`, every object at 64-bit indices when `wide`.
    #[allow(clippy::too_many_arguments)]
    pub fn mxm(
        i: usize,
        a: &SparseMatrix<f64>,
        b: &SparseMatrix<f64>,
        c: &SparseMatrix<f64>,
        m: Option<&MatrixMask<'_>>,
        accum: bool,
        d: &Descriptor,
        method: MxmMethod,
        wide: bool,
    ) -> kronograph::Result<D> {
        let dev = GpuDevice::open(i).unwrap();
        let up = |x: &SparseMatrix<f64>| {
            if wide {
                DeviceMatrix::upload_with_width(&dev, x, IndexWidth::U64).unwrap()
            } else {
                DeviceMatrix::upload(&dev, x).unwrap()
            }
        };
        let dm = m.map(|m| {
            if wide {
                DeviceMatrixMask::upload_with_width(&dev, m, IndexWidth::U64).unwrap()
            } else {
                DeviceMatrixMask::upload(&dev, m).unwrap()
            }
        });
        let plus = GpuBinaryOp::add(&PlusTimes::<f64>::new());
        let (da, db, mut dc) = (up(a), up(b), up(c));
        op::mxm(&mut dc, dm.as_ref(), accum.then_some(&plus), PlusTimes::<f64>::new(), &da, &db, d, method)?;
        Ok(dc.download().unwrap().to_dense_options())
    }
}

#[cfg(not(feature = "cuda"))]
mod gpu {
    use super::D;
    use kronograph::matrix::{Descriptor, MatrixMask, MxmMethod, SparseMatrix};

    #[allow(clippy::too_many_arguments)]
    pub fn mxm(
        _: usize,
        _: &SparseMatrix<f64>,
        _: &SparseMatrix<f64>,
        _: &SparseMatrix<f64>,
        _: Option<&MatrixMask<'_>>,
        _: bool,
        _: &Descriptor,
        _: MxmMethod,
        _: bool,
    ) -> kronograph::Result<D> {
        unreachable!("no device without the cuda feature")
    }
}

/// Times the device product on R-MAT graphs (Graph500 parameters, seed 1),
/// against the ways there were before it: unmasked, downloading `A`, the
/// host product and an upload of `C`; masked (`C⟨A⟩ = A A`), the product
/// brought to the host and uploaded again before the mask is applied.
/// Synchronized wall-clock medians of 5 after a warm-up; each result
/// checked against the host. Ignored: run on a GPU with `--ignored --nocapture`.
#[cfg(feature = "cuda")]
#[test]
#[ignore]
fn time_device_mxm() {
    use kronograph::cuda::GpuDevice;
    use kronograph::graph::generate::{rmat, RmatParams};
    use kronograph::matrix::gpu::{mxm_masked, DeviceMatrix, DeviceMatrixMask, GpuMxmStrategy, GpuUnaryOp, UnaryForm};
    use kronograph::matrix::{Descriptor, MatrixMask, SparseMatrix};
    use std::time::Instant;
    let Some(i) = crate::device_common::gpu_or_skip() else { return };
    let dev = GpuDevice::open(i).unwrap();
    let time = |f: &mut dyn FnMut()| -> f64 {
        f();
        let mut v: Vec<f64> = (0..5)
            .map(|_| {
                let t = Instant::now();
                f();
                dev.synchronize().unwrap();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[2]
    };
    let same = |x: &SparseMatrix<f64>, y: &SparseMatrix<f64>| {
        x.indptr() == y.indptr() && x.indices() == y.indices() && x.values() == y.values()
    };
    let s = PlusTimes::<f64>::new();
    let d = Descriptor::DEFAULT;
    println!("graph | product | new device ms | old way ms | nnz(C)");
    for scale in [10u32, 12, 13, 14, 16] {
        let g = rmat(&RmatParams::graph500(scale), &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        let a: SparseMatrix<f64> = SparseMatrix::from_graph(&g);
        let n = a.nrows();
        let da = DeviceMatrix::upload(&dev, &a).unwrap();
        if scale <= 13 {
            let mut host = SparseMatrix::new(n, n);
            op::mxm(&mut host, None, None, s, &a, &a, &d, MxmMethod::Auto).unwrap();
            let mut dc = DeviceMatrix::new(&dev, n, n).unwrap();
            let new = time(&mut || op::mxm(&mut dc, None, None, s, &da, &da, &d, MxmMethod::Auto).unwrap());
            assert!(
                same(&dc.download().unwrap(), &host),
                "rmat{scale}: the unmasked device product differs from the host's"
            );
            let old = time(&mut || {
                let ha = da.download().unwrap();
                let mut c = SparseMatrix::new(n, n);
                op::mxm(&mut c, None, None, s, &ha, &ha, &d, MxmMethod::Auto).unwrap();
                dc = DeviceMatrix::upload(&dev, &c).unwrap();
            });
            println!("rmat{scale} | A A unmasked | {new:.3} | {old:.3} | {}", host.nnz());
        }
        let mask = MatrixMask::structural(&a);
        let dm = DeviceMatrixMask::upload(&dev, &mask).unwrap();
        let mut host = SparseMatrix::new(n, n);
        op::mxm(&mut host, Some(&mask), None, s, &a, &a, &d, MxmMethod::Auto).unwrap();
        let mut dc = DeviceMatrix::new(&dev, n, n).unwrap();
        let new = time(&mut || op::mxm(&mut dc, Some(&dm), None, s, &da, &da, &d, MxmMethod::Auto).unwrap());
        assert!(same(&dc.download().unwrap(), &host), "rmat{scale}: the masked device product differs from the host's");
        let id = GpuUnaryOp::new(UnaryForm::Identity).unwrap();
        let old = time(&mut || {
            let (t, _) = mxm_masked(&dm, s, &da, &da, &d, GpuMxmStrategy::Auto).unwrap();
            let dt = DeviceMatrix::upload(&dev, &t).unwrap();
            let mut c = DeviceMatrix::<f64>::new(&dev, n, n).unwrap();
            op::apply(&mut c, Some(&dm), None, &id, &dt, &d).unwrap();
        });
        println!("rmat{scale} | C<A> = A A | {new:.3} | {old:.3} | {}", host.nnz());
    }
}
