//! The method form (`a.mxv(&u, s).mask(..).accum(..).desc(..).into(&mut w)`,
//! `u.vxm(&a, s)…`, `a.mxm(&b, s)…`): one test body, generic over the place
//! of its objects ([`Place`]), run on the host and on every device
//! (`test_device!`), against the dense reference of
//! `w⟨mask, replace⟩ = accum(w, t)`.

use crate::device_common::test_device;
use crate::matrix_places::{matrix, matrix_mask, ordinal, rand_dense, transposed, Case, D, PLUS};
use kronograph::cuda::Backend;
use kronograph::matrix::{
    DenseVector, Located, Mask, MatrixMask, Mxm, MxmOutput, Mxv, MxvOutput, SparseMatrix, SparseVector, Vxm, VxmOutput,
};
use kronograph::semirings::PlusTimes;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type S = PlusTimes<f64>;

/// The objects of one place, made from host values and read back to them.
trait Place {
    /// A matrix there (and its mask and accumulator types, [`Located`]).
    type M: Located + MxmOutput<S, Self::M, Self::M>;
    /// A dense vector there.
    type Dv: MxvOutput<S, Self::M, Self::Dv> + VxmOutput<S, Self::Dv, Self::M>;
    /// A sparse vector there.
    type Sv: VxmOutput<S, Self::Sv, Self::M>;
    fn matrix(&self, a: &SparseMatrix<f64>) -> Self::M;
    fn dense(&self, v: &D) -> Self::Dv;
    fn sparse(&self, v: &D) -> Self::Sv;
    fn vector_mask<'x>(&self, m: &Mask<'x>) -> <Self::M as Located>::VectorMask<'x>;
    fn matrix_mask<'x>(&self, m: &MatrixMask<'x>) -> <Self::M as Located>::MatrixMask<'x>;
    /// The accumulator `+`.
    fn plus(&self) -> &<Self::M as Located>::Accum<'_, f64>;
    fn dense_back(&self, v: &Self::Dv) -> D;
    fn sparse_back(&self, v: &Self::Sv) -> D;
    fn matrix_back(&self, a: &Self::M) -> D;
}

fn sparse(v: &D) -> SparseVector<f64> {
    let (idx, val): (Vec<usize>, Vec<f64>) = v.iter().enumerate().filter_map(|(i, x)| Some((i, (*x)?))).unzip();
    SparseVector::try_new(v.len(), idx, val).unwrap()
}

/// The host.
struct Host;

impl Place for Host {
    type M = SparseMatrix<f64>;
    type Dv = DenseVector<f64>;
    type Sv = SparseVector<f64>;
    fn matrix(&self, a: &SparseMatrix<f64>) -> SparseMatrix<f64> {
        a.clone()
    }
    fn dense(&self, v: &D) -> DenseVector<f64> {
        DenseVector::from_options(v)
    }
    fn sparse(&self, v: &D) -> SparseVector<f64> {
        sparse(v)
    }
    fn vector_mask<'x>(&self, m: &Mask<'x>) -> Mask<'x> {
        m.clone()
    }
    fn matrix_mask<'x>(&self, m: &MatrixMask<'x>) -> MatrixMask<'x> {
        m.clone()
    }
    fn plus(&self) -> &(dyn Fn(f64, f64) -> f64 + Sync) {
        PLUS
    }
    fn dense_back(&self, v: &DenseVector<f64>) -> D {
        v.to_options()
    }
    fn sparse_back(&self, v: &SparseVector<f64>) -> D {
        v.to_options()
    }
    fn matrix_back(&self, a: &SparseMatrix<f64>) -> D {
        a.to_dense_options()
    }
}

#[cfg(feature = "cuda")]
mod device {
    //! One CUDA device as a [`Place`].
    use super::{sparse, Place, S};
    use crate::matrix_places::D;
    use kronograph::cuda::GpuDevice;
    use kronograph::matrix::gpu::{
        DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector, GpuBinaryOp,
    };
    use kronograph::matrix::{DenseVector, Mask, MatrixMask, SparseMatrix};

    pub(super) struct Device {
        dev: GpuDevice,
        plus: GpuBinaryOp,
    }

    impl Place for Device {
        type M = DeviceMatrix<f64>;
        type Dv = DeviceDenseVector<f64>;
        type Sv = DeviceSparseVector<f64>;
        fn matrix(&self, a: &SparseMatrix<f64>) -> DeviceMatrix<f64> {
            DeviceMatrix::upload(&self.dev, a).unwrap()
        }
        fn dense(&self, v: &D) -> DeviceDenseVector<f64> {
            DeviceDenseVector::upload(&self.dev, &DenseVector::from_options(v)).unwrap()
        }
        fn sparse(&self, v: &D) -> DeviceSparseVector<f64> {
            DeviceSparseVector::upload(&self.dev, &sparse(v)).unwrap()
        }
        fn vector_mask(&self, m: &Mask<'_>) -> DeviceMask {
            DeviceMask::upload(&self.dev, m).unwrap()
        }
        fn matrix_mask(&self, m: &MatrixMask<'_>) -> DeviceMatrixMask {
            DeviceMatrixMask::upload(&self.dev, m).unwrap()
        }
        fn plus(&self) -> &GpuBinaryOp {
            &self.plus
        }
        fn dense_back(&self, v: &DeviceDenseVector<f64>) -> D {
            v.download().unwrap().to_options()
        }
        fn sparse_back(&self, v: &DeviceSparseVector<f64>) -> D {
            v.download().unwrap().to_options()
        }
        fn matrix_back(&self, a: &DeviceMatrix<f64>) -> D {
            a.download().unwrap().to_dense_options()
        }
    }

    /// `f` on device `i`.
    pub(super) fn on_device<R>(i: usize, f: impl FnOnce(&Device) -> R) -> R {
        let dev = GpuDevice::open(i).unwrap();
        f(&Device { plus: GpuBinaryOp::add(&S::new()), dev })
    }
}

#[cfg(feature = "cuda")]
use device::on_device;

/// Without the `cuda` feature there is no device: `test_device!` runs no case.
#[cfg(not(feature = "cuda"))]
fn on_device<R>(_: usize, _: impl FnOnce(&Host) -> R) -> R {
    unreachable!("no device without the cuda feature")
}

/// `t = A x` (plus-times over the present terms) of an `n × n` `a`.
fn product(n: usize, a: &D, x: &D) -> D {
    (0..n)
        .map(|i| {
            let terms: Vec<f64> = (0..n).filter_map(|k| Some(a[i * n + k]? * x[k]?)).collect();
            (!terms.is_empty()).then(|| terms.iter().sum())
        })
        .collect()
}

/// The inputs of one case: `A` (`n × n`), `x`, the old `w`, the old `C`,
/// and the cases of the vector products and of the matrix product.
struct Inputs {
    n: usize,
    a: D,
    x: D,
    w0: D,
    c0: D,
    case: Case,
    vcase: Case,
    mcase: Case,
}

/// `[mxv, vxm (dense), vxm (sparse), mxm]` by the builders on place `p`.
fn methods_on<P: Place>(p: &P, i: &Inputs) -> [D; 4] {
    let s = S::new();
    let a = p.matrix(&matrix(i.n, i.n, &i.a));
    let (x, xs) = (p.dense(&i.x), p.sparse(&i.x));
    let host_mask = i.case.vector_mask();
    let m = host_mask.as_ref().map(|m| p.vector_mask(m));
    let mut w = p.dense(&i.w0);
    let b = Mxv::new(&a, &x, s).desc(i.case.desc);
    let b = if i.case.accum { b.accum(p.plus()) } else { b };
    match m.as_ref() {
        Some(m) => b.mask(m).into(&mut w),
        None => b.into(&mut w),
    }
    .unwrap();
    let mxv = p.dense_back(&w);
    let mut w = p.dense(&i.w0);
    let b = Vxm::new(&x, &a, s).desc(i.vcase.desc);
    let b = if i.case.accum { b.accum(p.plus()) } else { b };
    match m.as_ref() {
        Some(m) => b.mask(m).into(&mut w),
        None => b.into(&mut w),
    }
    .unwrap();
    let vxm = p.dense_back(&w);
    let mut w = p.sparse(&i.w0);
    let b = Vxm::new(&xs, &a, s).desc(i.vcase.desc);
    let b = if i.case.accum { b.accum(p.plus()) } else { b };
    match m.as_ref() {
        Some(m) => b.mask(m).into(&mut w),
        None => b.into(&mut w),
    }
    .unwrap();
    let svxm = p.sparse_back(&w);
    let pat = i.mcase.pattern(i.n, i.n);
    let mm = p.matrix_mask(&matrix_mask(&pat).unwrap());
    let mut c = p.matrix(&matrix(i.n, i.n, &i.c0));
    let b = Mxm::new(&a, &a, s).mask(&mm).desc(i.mcase.desc);
    if i.mcase.accum { b.accum(p.plus()).into(&mut c) } else { b.into(&mut c) }.unwrap();
    [mxv, vxm, svxm, p.matrix_back(&c)]
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
        let inputs = Inputs { n, a, x, w0, c0, case: case.clone(), vcase: vcase.clone(), mcase: mcase.clone() };
        let got = match backend {
            Backend::Cpu => methods_on(&Host, &inputs),
            b => on_device(ordinal(b), |p| methods_on(p, &inputs)),
        };
        assert_eq!(got[0], mxv_want, "mxv seed {seed} {case:?} on {backend:?}");
        assert_eq!(got[1], vxm_want, "vxm seed {seed} {vcase:?} on {backend:?}");
        assert_eq!(got[2], vxm_want, "sparse vxm seed {seed} {vcase:?} on {backend:?}");
        assert_eq!(got[3], mxm_want, "mxm seed {seed} {mcase:?} on {backend:?}");
    }
}

/// The methods start the same builders as `Mxv::new`, … on the host (the
/// generic body above starts them by `new`).
#[test]
fn methods_and_new_agree_on_the_host() {
    let a = SparseMatrix::try_from_triplets(3, 3, &[0, 1, 2], &[1, 2, 0], &[2.0, 3.0, 4.0]).unwrap();
    let x = DenseVector::from_options(&[Some(1.0), None, Some(5.0)]);
    let s = S::new();
    assert_eq!(a.mxv(&x, s).run().unwrap(), Mxv::new(&a, &x, s).run().unwrap());
    assert_eq!(x.vxm(&a, s).run().unwrap(), Vxm::new(&x, &a, s).run().unwrap());
    let c = a.mxm(&a, s).run().unwrap();
    assert_eq!(c.to_dense_options(), Mxm::new(&a, &a, s).run().unwrap().to_dense_options());
    assert_eq!(c.get(0, 2), Some(6.0));
}
