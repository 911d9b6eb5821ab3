//! The method form (`a.mxv(&u, s).mask(..).accum(..).desc(..).into(&mut w)`,
//! `u.vxm(&a, s)…`, `a.mxm(&b, s)…`) on host and device objects
//! (`test_device!`), against the dense reference of
//! `w⟨mask, replace⟩ = accum(w, t)`.

use crate::device_common::test_device;
use crate::matrix_places::{matrix, matrix_mask, ordinal, rand_dense, transposed, Case, D, PLUS};
use kronograph::cuda::Backend;
use kronograph::matrix::{DenseVector, SparseVector};
use kronograph::semirings::PlusTimes;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `t = A x` (plus-times over the present terms) of an `n × n` `a`.
fn product(n: usize, a: &D, x: &D) -> D {
    (0..n)
        .map(|i| {
            let terms: Vec<f64> = (0..n).filter_map(|k| Some(a[i * n + k]? * x[k]?)).collect();
            (!terms.is_empty()).then(|| terms.iter().sum())
        })
        .collect()
}

fn sparse(v: &D) -> SparseVector<f64> {
    let (idx, val): (Vec<usize>, Vec<f64>) = v.iter().enumerate().filter_map(|(i, x)| Some((i, (*x)?))).unzip();
    SparseVector::try_new(v.len(), idx, val).unwrap()
}

test_device!(methods_body, method_form_matches_reference, method_form_matches_reference_on_gpus);

fn methods_body(backend: Backend) {
    for seed in 0..16u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(500 + seed);
        let n = rng.random_range(1..24);
        let (a, x, w0) = (rand_dense(&mut rng, n * n, 0.3), rand_dense(&mut rng, n, 0.6), rand_dense(&mut rng, n, 0.5));
        let mut case = Case::new(&mut rng, n);
        case.desc.transpose_first = seed % 2 == 1;
        let at = transposed(n, n, &a);
        // mxv: A x (Aᵀ x by the descriptor); vxm: xᵀ A = Aᵀ x (xᵀ Aᵀ = A x with transpose_second)
        let mxv_want = case.want(&w0, &product(n, if case.desc.transpose_first { &at } else { &a }, &x));
        let vxm_want = case.want(&w0, &product(n, if case.desc.transpose_first { &a } else { &at }, &x));
        let mut vcase = case.clone();
        vcase.desc.transpose_first = false;
        vcase.desc.transpose_second = case.desc.transpose_first;
        // mxm: C⟨M⟩ = accum(C, A A), always masked (a device needs a mask)
        let (c0, mut mcase) = (rand_dense(&mut rng, n * n, 0.3), Case::new(&mut rng, n * n));
        if mcase.bits.is_none() {
            mcase.bits = Some(((0..n * n).map(|_| rng.random_bool(0.5)).collect(), false));
        }
        let t: D = (0..n * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                let terms: Vec<f64> = (0..n).filter_map(|k| Some(a[i * n + k]? * a[k * n + j]?)).collect();
                (!terms.is_empty()).then(|| terms.iter().sum())
            })
            .collect();
        let mxm_want = mcase.want(&c0, &t);
        let got = match backend {
            Backend::Cpu => {
                let (ha, hx) = (matrix(n, n, &a), DenseVector::from_options(&x));
                let m = case.vector_mask();
                let s = PlusTimes::<f64>::new();
                let mut w = DenseVector::from_options(&w0);
                let b = ha.mxv(&hx, s).desc(case.desc);
                let b = if case.accum { b.accum(PLUS) } else { b };
                match m.as_ref() {
                    Some(m) => b.mask(m).into(&mut w),
                    None => b.into(&mut w),
                }
                .unwrap();
                let mxv = w.to_options();
                let mut w = DenseVector::from_options(&w0);
                let b = hx.vxm(&ha, s).desc(vcase.desc);
                let b = if case.accum { b.accum(PLUS) } else { b };
                match m.as_ref() {
                    Some(m) => b.mask(m).into(&mut w),
                    None => b.into(&mut w),
                }
                .unwrap();
                let vxm = w.to_options();
                let mut w = sparse(&w0);
                let hs = sparse(&x);
                let b = hs.vxm(&ha, s).desc(vcase.desc);
                let b = if case.accum { b.accum(PLUS) } else { b };
                match m.as_ref() {
                    Some(m) => b.mask(m).into(&mut w),
                    None => b.into(&mut w),
                }
                .unwrap();
                let svxm = w.to_options();
                let pat = mcase.pattern(n, n);
                let mm = matrix_mask(&pat).unwrap();
                let mut c = matrix(n, n, &c0);
                let b = ha.mxm(&ha, s).mask(&mm).desc(mcase.desc);
                if mcase.accum { b.accum(PLUS).into(&mut c) } else { b.into(&mut c) }.unwrap();
                [mxv, vxm, svxm, c.to_dense_options()]
            }
            b => gpu::methods(ordinal(b), n, &a, &x, &w0, &case, &vcase, &c0, &mcase),
        };
        assert_eq!(got[0], mxv_want, "mxv seed {seed} {case:?} on {backend:?}");
        assert_eq!(got[1], vxm_want, "vxm seed {seed} {vcase:?} on {backend:?}");
        assert_eq!(got[2], vxm_want, "sparse vxm seed {seed} {vcase:?} on {backend:?}");
        assert_eq!(got[3], mxm_want, "mxm seed {seed} {mcase:?} on {backend:?}");
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::{sparse, D};
    use crate::matrix_places::{matrix, matrix_mask, Case};
    use kronograph::cuda::GpuDevice;
    use kronograph::matrix::gpu::{
        DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector, GpuBinaryOp,
    };
    use kronograph::matrix::DenseVector;
    use kronograph::semirings::PlusTimes;

    #[allow(clippy::too_many_arguments)]
    pub fn methods(
        i: usize,
        n: usize,
        a: &D,
        x: &D,
        w0: &D,
        case: &Case,
        vcase: &Case,
        c0: &D,
        mcase: &Case,
    ) -> [D; 4] {
        let dev = GpuDevice::open(i).unwrap();
        let s = PlusTimes::<f64>::new();
        let plus = GpuBinaryOp::add(&s);
        let da = DeviceMatrix::upload(&dev, &matrix(n, n, a)).unwrap();
        let dx = DeviceDenseVector::upload(&dev, &DenseVector::from_options(x)).unwrap();
        let dm = case.vector_mask().map(|m| DeviceMask::upload(&dev, &m).unwrap());
        let dense_w = || DeviceDenseVector::upload(&dev, &DenseVector::from_options(w0)).unwrap();
        let mut w = dense_w();
        let b = da.mxv(&dx, s).desc(case.desc);
        let b = if case.accum { b.accum(&plus) } else { b };
        match dm.as_ref() {
            Some(m) => b.mask(m).into(&mut w),
            None => b.into(&mut w),
        }
        .unwrap();
        let mxv = w.download().unwrap().to_options();
        let mut w = dense_w();
        let b = dx.vxm(&da, s).desc(vcase.desc);
        let b = if case.accum { b.accum(&plus) } else { b };
        match dm.as_ref() {
            Some(m) => b.mask(m).into(&mut w),
            None => b.into(&mut w),
        }
        .unwrap();
        let vxm = w.download().unwrap().to_options();
        let mut w = DeviceSparseVector::upload(&dev, &sparse(w0)).unwrap();
        let ds = DeviceSparseVector::upload(&dev, &sparse(x)).unwrap();
        let b = ds.vxm(&da, s).desc(vcase.desc);
        let b = if case.accum { b.accum(&plus) } else { b };
        match dm.as_ref() {
            Some(m) => b.mask(m).into(&mut w),
            None => b.into(&mut w),
        }
        .unwrap();
        let svxm = w.download().unwrap().to_options();
        let pat = mcase.pattern(n, n);
        let mm = DeviceMatrixMask::upload(&dev, &matrix_mask(&pat).unwrap()).unwrap();
        let mut c = DeviceMatrix::upload(&dev, &matrix(n, n, c0)).unwrap();
        let b = da.mxm(&da, s).mask(&mm).desc(mcase.desc);
        if mcase.accum { b.accum(&plus).into(&mut c) } else { b.into(&mut c) }.unwrap();
        [mxv, vxm, svxm, c.download().unwrap().to_dense_options()]
    }
}

#[cfg(not(feature = "cuda"))]
mod gpu {
    use super::D;
    use crate::matrix_places::Case;

    #[allow(clippy::too_many_arguments)]
    pub fn methods(_: usize, _: usize, _: &D, _: &D, _: &D, _: &Case, _: &Case, _: &D, _: &Case) -> [D; 4] {
        unreachable!("no device without the cuda feature")
    }
}
