//! The one-signature operations of `kronograph::matrix::op` (ewise add and
//! mult, apply, select, mxm, reduce, reduce_rows, extract, assign) on the
//! CPU and on every CUDA device present (`test_device!`), each against a
//! slow dense reference of `w⟨mask, replace⟩ = accum(w, t)`. Values are
//! small integers in `f64`, so every sum is exact on every place.

use crate::device_common::test_device;
use kronograph::cuda::Backend;
use kronograph::matrix::{op, DenseVector, Descriptor, Mask, MatrixMask, MxmMethod, SparseMatrix};
use kronograph::semirings::{MinPlus, PlusTimes};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A dense vector or a row-major matrix, absent entries `None`.
pub(crate) type D = Vec<Option<f64>>;

pub(crate) fn rand_dense(rng: &mut ChaCha8Rng, len: usize, p: f64) -> D {
    (0..len).map(|_| rng.random_bool(p).then(|| rng.random_range(0..7) as f64)).collect()
}

/// `w⟨mask, replace⟩ = accum(w, t)` (accum: plus), `allow(k)` for position `k`.
pub(crate) fn write(old: &D, allow: &dyn Fn(usize) -> bool, accum: bool, replace: bool, t: &D) -> D {
    (0..old.len())
        .map(|k| {
            let z = match (accum, old[k], t[k]) {
                (true, Some(c), Some(x)) => Some(c + x),
                (true, c, None) => c,
                (_, _, x) => x,
            };
            if allow(k) {
                z
            } else if replace {
                None
            } else {
                old[k]
            }
        })
        .collect()
}

pub(crate) fn matrix(m: usize, n: usize, d: &D) -> SparseMatrix<f64> {
    SparseMatrix::from_dense_options(m, n, d)
}

/// `dᵀ` of an `m × n` row-major matrix.
pub(crate) fn transposed(m: usize, n: usize, d: &D) -> D {
    (0..n * m).map(|k| d[(k % m) * n + k / m]).collect()
}

/// The mask, accumulator and descriptor of one case.
#[derive(Clone, Debug)]
pub(crate) struct Case {
    pub(crate) bits: Option<(Vec<bool>, bool)>,
    pub(crate) accum: bool,
    pub(crate) desc: Descriptor,
}

impl Case {
    pub(crate) fn new(rng: &mut ChaCha8Rng, len: usize) -> Self {
        let bits =
            rng.random_bool(0.7).then(|| ((0..len).map(|_| rng.random_bool(0.5)).collect(), rng.random_bool(0.5)));
        let desc = Descriptor { replace: rng.random_bool(0.3), ..Descriptor::DEFAULT };
        Case { bits, accum: rng.random_bool(0.5), desc }
    }

    pub(crate) fn allows(&self, k: usize) -> bool {
        self.bits.as_ref().is_none_or(|(b, comp)| b[k] != *comp)
    }

    pub(crate) fn want(&self, old: &D, t: &D) -> D {
        write(old, &|k| self.allows(k), self.accum, self.desc.replace, t)
    }

    pub(crate) fn vector_mask(&self) -> Option<Mask<'static>> {
        self.bits.as_ref().map(|(b, comp)| {
            let m = Mask::from_bits(b.clone());
            if *comp {
                m.complement()
            } else {
                m
            }
        })
    }

    /// The pattern matrix of the mask bits (`m × n`) and whether to complement it.
    pub(crate) fn pattern(&self, m: usize, n: usize) -> Option<(SparseMatrix<f64>, bool)> {
        self.bits.as_ref().map(|(b, comp)| {
            let d: D = b.iter().map(|&x| x.then_some(1.0)).collect();
            (matrix(m, n, &d), *comp)
        })
    }
}

pub(crate) fn matrix_mask(p: &Option<(SparseMatrix<f64>, bool)>) -> Option<MatrixMask<'_>> {
    p.as_ref().map(|(m, comp)| {
        let mm = MatrixMask::structural(m);
        if *comp {
            mm.complement()
        } else {
            mm
        }
    })
}

/// The device ordinal of a device backend (`test_device!` passes `Cpu` or `Cuda(i)`).
pub(crate) fn ordinal(b: Backend) -> usize {
    match b {
        Backend::Cuda(i) => i,
        other => unreachable!("not a device backend: {other:?}"),
    }
}

pub(crate) const PLUS: &(dyn Fn(f64, f64) -> f64 + Sync) = &|x, y| x + y;

/// The reference `t` of an element-wise operation on `u`, `v` (`n × n` or vectors).
fn ewise_t(which: &str, u: &D, v: &D, n: usize, matrices: bool) -> D {
    (0..u.len())
        .map(|k| match which {
            "add" => match (u[k], v[k]) {
                (Some(x), Some(y)) => Some(x + y),
                (x, None) => x,
                (None, y) => y,
            },
            "mult" => Some(u[k]? * v[k]?),
            "apply" => u[k].map(|x| x * 3.0),
            _ if matrices => u[k].filter(|_| k % n <= k / n),
            _ => u[k].filter(|&x| x < 3.0),
        })
        .collect()
}

const OPS: [&str; 4] = ["add", "mult", "apply", "select"];

test_device!(ewise_vectors_body, ewise_vectors_match_reference, ewise_vectors_match_reference_on_gpus);

fn ewise_vectors_body(backend: Backend) {
    for seed in 0..24u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = rng.random_range(1..60);
        let (u, v, w0) = (rand_dense(&mut rng, n, 0.6), rand_dense(&mut rng, n, 0.6), rand_dense(&mut rng, n, 0.5));
        let case = Case::new(&mut rng, n);
        for which in OPS {
            let want = case.want(&w0, &ewise_t(which, &u, &v, n, false));
            for got in ewise_vectors(backend, which, &u, &v, &w0, &case) {
                assert_eq!(got, want, "{which} seed {seed} {case:?} on {backend:?}");
            }
        }
    }
}

/// The results of `which` on `backend`: the host's, or a device's with
/// dense and with sparse vectors.
fn ewise_vectors(backend: Backend, which: &str, u: &D, v: &D, w0: &D, case: &Case) -> Vec<D> {
    let (hu, hv) = (DenseVector::from_options(u), DenseVector::from_options(v));
    let mut w = DenseVector::from_options(w0);
    let m = case.vector_mask();
    let acc = case.accum.then_some(PLUS);
    let d = &case.desc;
    match backend {
        Backend::Cpu => {
            match which {
                "add" => op::ewise_add(&mut w, m.as_ref(), acc, |x, y| x + y, &hu, &hv, d),
                "mult" => op::ewise_mult(&mut w, m.as_ref(), acc, |x: f64, y: f64| x * y, &hu, &hv, d),
                "apply" => op::apply(&mut w, m.as_ref(), acc, |x: f64| x * 3.0, &hu, d),
                _ => op::select(&mut w, m.as_ref(), acc, |_, x: f64| x < 3.0, &hu, d),
            }
            .unwrap();
            vec![w.to_options()]
        }
        b => gpu::ewise_vectors(ordinal(b), which, &hu, &hv, &w, m.as_ref(), case.accum, d),
    }
}

test_device!(ewise_matrices_body, ewise_matrices_match_reference, ewise_matrices_match_reference_on_gpus);

fn ewise_matrices_body(backend: Backend) {
    for seed in 0..16u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(100 + seed);
        let n = rng.random_range(1..14);
        let (a, b, c0) =
            (rand_dense(&mut rng, n * n, 0.4), rand_dense(&mut rng, n * n, 0.4), rand_dense(&mut rng, n * n, 0.3));
        let mut case = Case::new(&mut rng, n * n);
        // the second input transposed by the descriptor (ewise add and mult), the first for apply
        case.desc.transpose_second = seed % 3 == 1;
        case.desc.transpose_first = seed % 4 == 2;
        let p = case.pattern(n, n);
        for which in OPS {
            let a_t = if case.desc.transpose_first && which == "apply" { transposed(n, n, &a) } else { a.clone() };
            let b_t = if case.desc.transpose_second { transposed(n, n, &b) } else { b.clone() };
            let want = case.want(&c0, &ewise_t(which, &a_t, &b_t, n, true));
            let (ha, hb) = (matrix(n, n, &a), matrix(n, n, &b));
            let mut c = matrix(n, n, &c0);
            let m = matrix_mask(&p);
            let acc = case.accum.then_some(PLUS);
            let mut d = case.desc;
            if which != "apply" {
                d.transpose_first = false;
            }
            let got = match backend {
                Backend::Cpu => {
                    match which {
                        "add" => op::ewise_add(&mut c, m.as_ref(), acc, |x, y| x + y, &ha, &hb, &d),
                        "mult" => op::ewise_mult(&mut c, m.as_ref(), acc, |x: f64, y: f64| x * y, &ha, &hb, &d),
                        "apply" => op::apply(&mut c, m.as_ref(), acc, |x: f64| x * 3.0, &ha, &d),
                        _ => op::select(&mut c, m.as_ref(), acc, |i, j, _| j <= i, &ha, &d),
                    }
                    .unwrap();
                    c.to_dense_options()
                }
                b => gpu::ewise_matrices(ordinal(b), which, &ha, &hb, &c, m.as_ref(), case.accum, &d),
            };
            assert_eq!(got, want, "{which} seed {seed} n {n} {case:?} on {backend:?}");
        }
    }
}

test_device!(mxm_body, mxm_matches_reference, mxm_matches_reference_on_gpus);

fn mxm_body(backend: Backend) {
    for seed in 0..16u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(200 + seed);
        let (m, k, n) = (rng.random_range(1..15), rng.random_range(1..15), rng.random_range(1..15));
        let (a, b, c0) =
            (rand_dense(&mut rng, m * k, 0.4), rand_dense(&mut rng, k * n, 0.4), rand_dense(&mut rng, m * n, 0.3));
        let mut case = Case::new(&mut rng, m * n);
        case.desc.transpose_second = seed % 2 == 1;
        case.desc.transpose_first = seed % 4 >= 2;
        let t: D = (0..m * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                let terms: Vec<f64> = (0..k).filter_map(|l| Some(a[i * k + l]? * b[l * n + j]?)).collect();
                (!terms.is_empty()).then(|| terms.iter().sum())
            })
            .collect();
        let want = case.want(&c0, &t);
        let hb = if case.desc.transpose_second { matrix(n, k, &transposed(k, n, &b)) } else { matrix(k, n, &b) };
        let ha = if case.desc.transpose_first { matrix(k, m, &transposed(m, k, &a)) } else { matrix(m, k, &a) };
        let p = case.pattern(m, n);
        let complemented = p.as_ref().is_some_and(|p| p.1);
        for method in [MxmMethod::Auto, MxmMethod::Gustavson, MxmMethod::Dot] {
            if complemented && method == MxmMethod::Dot && backend != Backend::Cpu {
                continue; // the device's dot form takes a plain mask (a typed error otherwise)
            }
            let mut c = matrix(m, n, &c0);
            let mm = matrix_mask(&p);
            let got = match backend {
                Backend::Cpu => {
                    let acc = case.accum.then_some(PLUS);
                    op::mxm(&mut c, mm.as_ref(), acc, PlusTimes::<f64>::new(), &ha, &hb, &case.desc, method).unwrap();
                    Ok(c.to_dense_options())
                }
                b => gpu::mxm(ordinal(b), &ha, &hb, &c, mm.as_ref(), case.accum, &case.desc, method, false),
            };
            // masked or not, on every place
            assert_eq!(got.unwrap(), want, "seed {seed} {method:?} {case:?} on {backend:?}");
        }
    }
}

test_device!(reduce_body, reduce_matches_reference, reduce_matches_reference_on_gpus);

fn reduce_body(backend: Backend) {
    for seed in 0..16u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(300 + seed);
        let (m, n) = (rng.random_range(1..20), rng.random_range(1..20));
        let (a, w0) = (rand_dense(&mut rng, m * n, 0.3), rand_dense(&mut rng, m.max(n), 0.5));
        let mut case = Case::new(&mut rng, m.max(n));
        case.desc.transpose_first = seed % 2 == 1;
        let (rows, cols, at) = if case.desc.transpose_first { (n, m, transposed(m, n, &a)) } else { (m, n, a.clone()) };
        let w0 = w0[..rows].to_vec();
        if let Some((b, _)) = case.bits.as_mut() {
            b.truncate(rows);
        }
        let t: D = (0..rows)
            .map(|i| {
                let r: Vec<f64> = at[i * cols..(i + 1) * cols].iter().flatten().copied().collect();
                (!r.is_empty()).then(|| r.iter().sum())
            })
            .collect();
        let want_rows = case.want(&w0, &t);
        let present: Vec<f64> = a.iter().flatten().copied().collect();
        let want_sum: f64 = present.iter().sum();
        let want_min = present.iter().copied().fold(f64::INFINITY, f64::min);
        let ha = matrix(m, n, &a);
        let hv = DenseVector::from_options(&a[..n]);
        let want_vsum: f64 = a[..n].iter().flatten().sum();
        let got = match backend {
            Backend::Cpu => {
                let mut w = DenseVector::from_options(&w0);
                let vm = case.vector_mask();
                let acc = case.accum.then_some(PLUS);
                op::reduce_rows(&mut w, vm.as_ref(), acc, PlusTimes::<f64>::new(), &ha, &case.desc).unwrap();
                let r = [
                    op::reduce(PlusTimes::<f64>::new(), &ha).unwrap(),
                    op::reduce(MinPlus::<f64>::new(), &ha).unwrap(),
                    op::reduce(PlusTimes::<f64>::new(), &hv).unwrap(),
                ];
                (w.to_options(), r)
            }
            b => gpu::reduce(ordinal(b), &ha, &hv, &w0, case.vector_mask().as_ref(), case.accum, &case.desc),
        };
        assert_eq!(got.0, want_rows, "reduce_rows seed {seed} {case:?} on {backend:?}");
        assert_eq!(got.1, [want_sum, want_min, want_vsum], "reduce seed {seed} on {backend:?}");
    }
}

test_device!(index_body, extract_assign_match_reference, extract_assign_match_reference_on_gpus);

/// The inputs of one case of the index operations (extract, assign and
/// their vector forms), each with its own mask, accumulator and descriptor.
#[derive(Clone, Debug)]
pub(crate) struct IndexCase {
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) a: D,
    /// extract's indices (repeats allowed) and its case (`transpose_first`: `A` is given as `Aᵀ`)
    pub(crate) ext: (Vec<usize>, Vec<usize>, Case),
    pub(crate) ext_c0: D,
    /// assign's distinct indices, the assigned matrix and its case
    pub(crate) asg: (Vec<usize>, Vec<usize>, Case),
    pub(crate) asg_s: D,
    pub(crate) asg_c0: D,
    /// the vector forms: u, extract's old w and case, assign's source, old w and case
    pub(crate) u: D,
    pub(crate) vext: (D, Case),
    pub(crate) vasg: (D, D, Case),
}

/// `k` distinct indices below `size` in a random order, or all of them in order (GrB_ALL).
fn distinct(rng: &mut ChaCha8Rng, size: usize, k: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..size).collect();
    if rng.random_bool(0.2) {
        return v;
    }
    for i in (1..size).rev() {
        v.swap(i, rng.random_range(0..=i));
    }
    v.truncate(k);
    v
}

impl IndexCase {
    pub(crate) fn new(rng: &mut ChaCha8Rng, m: usize, n: usize) -> Self {
        let a = rand_dense(rng, m * n, 0.4);
        // extract: any indices, repeats too, or the full ranges
        let (p, q) = (rng.random_range(1..=m + 2), rng.random_range(1..=n + 2));
        let (er, ec) = if rng.random_bool(0.2) {
            ((0..m).collect::<Vec<_>>(), (0..n).collect::<Vec<_>>())
        } else {
            ((0..p).map(|_| rng.random_range(0..m)).collect(), (0..q).map(|_| rng.random_range(0..n)).collect())
        };
        let mut ecase = Case::new(rng, er.len() * ec.len());
        ecase.desc.transpose_first = rng.random_bool(0.5);
        let ext_c0 = rand_dense(rng, er.len() * ec.len(), 0.3);
        let (kr, kc) = (rng.random_range(1..=m), rng.random_range(1..=n));
        let (ar, ac) = (distinct(rng, m, kr), distinct(rng, n, kc));
        let mut acase = Case::new(rng, m * n);
        acase.desc.transpose_first = rng.random_bool(0.3);
        let asg_s = rand_dense(rng, ar.len() * ac.len(), 0.5);
        let asg_c0 = rand_dense(rng, m * n, 0.3);
        let u = rand_dense(rng, m, 0.6);
        // the vector extract reads u (of size m) at extract's rows
        let vext = (rand_dense(rng, er.len(), 0.4), Case::new(rng, er.len()));
        let vasg = (rand_dense(rng, ar.len(), 0.6), rand_dense(rng, m, 0.5), Case::new(rng, m));
        let ext = (er, ec, ecase);
        IndexCase { m, n, a, ext, ext_c0, asg: (ar, ac, acase), asg_s, asg_c0, u, vext, vasg }
    }

    /// The references of `[extract, assign, extract_vector, assign_vector]`.
    pub(crate) fn want(&self) -> [D; 4] {
        let (m, n) = (self.m, self.n);
        let (er, ec, ecase) = &self.ext;
        let q = ec.len();
        let t: D = (0..er.len() * q).map(|e| self.a[er[e / q] * n + ec[e % q]]).collect();
        let ext = ecase.want(&self.ext_c0, &t);
        let (ar, ac, acase) = &self.asg;
        let q = ac.len();
        let mut z = self.asg_c0.clone();
        for (e, &x) in self.asg_s.iter().enumerate() {
            let k = ar[e / q] * n + ac[e % q];
            z[k] = match (acase.accum, self.asg_c0[k], x) {
                (true, Some(c), Some(x)) => Some(c + x),
                (true, c, None) => c,
                (_, _, x) => x,
            };
        }
        let asg = write(&self.asg_c0, &|k| acase.allows(k), false, acase.desc.replace, &z);
        let (w0, vcase) = &self.vext;
        let vext = vcase.want(w0, &er.iter().map(|&i| self.u[i]).collect::<D>());
        let (src, w1, vcase) = &self.vasg;
        let mut z = w1.clone();
        for (e, &i) in ar.iter().enumerate() {
            z[i] = match (vcase.accum, w1[i], src[e]) {
                (true, Some(c), Some(x)) => Some(c + x),
                (true, c, None) => c,
                (_, _, x) => x,
            };
        }
        let vasg = write(w1, &|k| vcase.allows(k), false, vcase.desc.replace, &z);
        debug_assert_eq!(vasg.len(), m);
        [ext, asg, vext, vasg]
    }

    /// `A` as extract takes it (`Aᵀ` stored when the descriptor transposes).
    pub(crate) fn ext_a(&self) -> SparseMatrix<f64> {
        if self.ext.2.desc.transpose_first {
            matrix(self.n, self.m, &transposed(self.m, self.n, &self.a))
        } else {
            matrix(self.m, self.n, &self.a)
        }
    }

    /// The assigned matrix as assign takes it.
    pub(crate) fn asg_s(&self) -> SparseMatrix<f64> {
        let (p, q) = (self.asg.0.len(), self.asg.1.len());
        if self.asg.2.desc.transpose_first {
            matrix(q, p, &transposed(p, q, &self.asg_s))
        } else {
            matrix(p, q, &self.asg_s)
        }
    }

    /// The four operations on the host.
    pub(crate) fn host(&self) -> [D; 4] {
        let (er, ec, ecase) = &self.ext;
        let mut c = matrix(er.len(), ec.len(), &self.ext_c0);
        let pat = ecase.pattern(er.len(), ec.len());
        let acc = ecase.accum.then_some(PLUS);
        op::extract(&mut c, matrix_mask(&pat).as_ref(), acc, &self.ext_a(), er, ec, &ecase.desc).unwrap();
        let ext = c.to_dense_options();
        let (ar, ac, acase) = &self.asg;
        let mut c = matrix(self.m, self.n, &self.asg_c0);
        let pat = acase.pattern(self.m, self.n);
        let acc = acase.accum.then_some(PLUS);
        op::assign(&mut c, matrix_mask(&pat).as_ref(), acc, &self.asg_s(), ar, ac, &acase.desc).unwrap();
        let asg = c.to_dense_options();
        let u = DenseVector::from_options(&self.u);
        let (w0, vcase) = &self.vext;
        let mut w = DenseVector::from_options(w0);
        let (vm, acc) = (vcase.vector_mask(), vcase.accum.then_some(PLUS));
        op::extract_vector(&mut w, vm.as_ref(), acc, &u, er, &vcase.desc).unwrap();
        let vext = w.to_options();
        let (src, w1, vcase) = &self.vasg;
        let mut w = DenseVector::from_options(w1);
        let (vm, acc) = (vcase.vector_mask(), vcase.accum.then_some(PLUS));
        op::assign_vector(&mut w, vm.as_ref(), acc, &DenseVector::from_options(src), ar, &vcase.desc).unwrap();
        [ext, asg, vext, w.to_options()]
    }
}

fn index_body(backend: Backend) {
    for seed in 0..24u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(400 + seed);
        let (m, n) = (rng.random_range(2..16), rng.random_range(2..16));
        let case = IndexCase::new(&mut rng, m, n);
        let got = match backend {
            Backend::Cpu => case.host(),
            b => gpu::index_ops(ordinal(b), &case),
        };
        let names = ["extract", "assign", "extract_vector", "assign_vector"];
        for (k, want) in case.want().iter().enumerate() {
            assert_eq!(&got[k], want, "{} seed {seed} {case:?} on {backend:?}", names[k]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The host's one-signature element-wise operations on vectors against the reference, any case.
    #[test]
    fn host_ewise_vectors_match_reference(seed in any::<u64>(), n in 1usize..40) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (u, v, w0) = (rand_dense(&mut rng, n, 0.6), rand_dense(&mut rng, n, 0.6), rand_dense(&mut rng, n, 0.5));
        let case = Case::new(&mut rng, n);
        for which in OPS {
            let got = ewise_vectors(Backend::Cpu, which, &u, &v, &w0, &case);
            prop_assert_eq!(&got[0], &case.want(&w0, &ewise_t(which, &u, &v, n, false)));
        }
    }
}

#[cfg(feature = "cuda")]
pub(crate) mod gpu {
    //! The device side of each case: upload, run the same `op::` call with
    //! the device's operators, download.
    use super::D;
    use kronograph::cuda::GpuDevice;
    use kronograph::matrix::gpu::{
        DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector, GpuBinaryOp, GpuSelectOp,
        GpuUnaryOp, IndexWidth, SelectForm,
    };
    use kronograph::matrix::{op, DenseVector, Descriptor, Mask, MatrixMask, MxmMethod, SparseMatrix, SparseVector};
    use kronograph::semirings::{MinPlus, PlusTimes};

    fn plus() -> GpuBinaryOp {
        GpuBinaryOp::add(&PlusTimes::<f64>::new())
    }

    fn times() -> GpuBinaryOp {
        GpuBinaryOp::mul(&PlusTimes::<f64>::new())
    }

    fn sparse(v: &DenseVector<f64>) -> SparseVector<f64> {
        let (idx, val): (Vec<usize>, Vec<f64>) =
            v.to_options().iter().enumerate().filter_map(|(i, x)| Some((i, (*x)?))).unzip();
        SparseVector::try_new(v.len(), idx, val).unwrap()
    }

    #[allow(clippy::too_many_arguments)]
    pub fn ewise_vectors(
        i: usize,
        which: &str,
        u: &DenseVector<f64>,
        v: &DenseVector<f64>,
        w: &DenseVector<f64>,
        m: Option<&Mask<'_>>,
        accum: bool,
        d: &Descriptor,
    ) -> Vec<D> {
        let dev = GpuDevice::open(i).unwrap();
        let dm = m.map(|m| DeviceMask::upload(&dev, m).unwrap());
        let (plus, times) = (plus(), times());
        let acc = accum.then_some(&plus);
        let scale = GpuUnaryOp::bind_second(times.clone(), 3.0).unwrap();
        let below = GpuSelectOp::value(SelectForm::ValueLt, 3.0).unwrap();
        // dense vectors
        let (du, dv) = (DeviceDenseVector::upload(&dev, u).unwrap(), DeviceDenseVector::upload(&dev, v).unwrap());
        let mut dw = DeviceDenseVector::upload(&dev, w).unwrap();
        match which {
            "add" => op::ewise_add(&mut dw, dm.as_ref(), acc, &plus, &du, &dv, d),
            "mult" => op::ewise_mult(&mut dw, dm.as_ref(), acc, &times, &du, &dv, d),
            "apply" => op::apply(&mut dw, dm.as_ref(), acc, &scale, &du, d),
            _ => op::select(&mut dw, dm.as_ref(), acc, &below, &du, d),
        }
        .unwrap();
        let dense = dw.download().unwrap().to_options();
        // sparse vectors
        let su = DeviceSparseVector::upload(&dev, &sparse(u)).unwrap();
        let sv = DeviceSparseVector::upload(&dev, &sparse(v)).unwrap();
        let mut sw = DeviceSparseVector::upload(&dev, &sparse(w)).unwrap();
        match which {
            "add" => op::ewise_add(&mut sw, dm.as_ref(), acc, &plus, &su, &sv, d),
            "mult" => op::ewise_mult(&mut sw, dm.as_ref(), acc, &times, &su, &sv, d),
            "apply" => op::apply(&mut sw, dm.as_ref(), acc, &scale, &su, d),
            _ => op::select(&mut sw, dm.as_ref(), acc, &below, &su, d),
        }
        .unwrap();
        vec![dense, sw.download().unwrap().to_options()]
    }

    #[allow(clippy::too_many_arguments)]
    pub fn ewise_matrices(
        i: usize,
        which: &str,
        a: &SparseMatrix<f64>,
        b: &SparseMatrix<f64>,
        c: &SparseMatrix<f64>,
        m: Option<&MatrixMask<'_>>,
        accum: bool,
        d: &Descriptor,
    ) -> D {
        let dev = GpuDevice::open(i).unwrap();
        let dm = m.map(|m| DeviceMatrixMask::upload(&dev, m).unwrap());
        let (plus, times) = (plus(), times());
        let acc = accum.then_some(&plus);
        let (da, db) = (DeviceMatrix::upload(&dev, a).unwrap(), DeviceMatrix::upload(&dev, b).unwrap());
        let mut dc = DeviceMatrix::upload(&dev, c).unwrap();
        match which {
            "add" => op::ewise_add(&mut dc, dm.as_ref(), acc, &plus, &da, &db, d),
            "mult" => op::ewise_mult(&mut dc, dm.as_ref(), acc, &times, &da, &db, d),
            "apply" => {
                op::apply(&mut dc, dm.as_ref(), acc, &GpuUnaryOp::bind_second(times.clone(), 3.0).unwrap(), &da, d)
            }
            _ => op::select(&mut dc, dm.as_ref(), acc, &GpuSelectOp::index(SelectForm::Tril, 0).unwrap(), &da, d),
        }
        .unwrap();
        dc.download().unwrap().to_dense_options()
    }

    /// `op::mxm` on device `i`, every object at 64-bit indices when `wide`
    /// (else at the width chosen by size).
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
        let plus = plus();
        let (da, db, mut dc) = (up(a), up(b), up(c));
        op::mxm(&mut dc, dm.as_ref(), accum.then_some(&plus), PlusTimes::<f64>::new(), &da, &db, d, method)?;
        Ok(dc.download().unwrap().to_dense_options())
    }

    pub fn reduce(
        i: usize,
        a: &SparseMatrix<f64>,
        v: &DenseVector<f64>,
        w0: &D,
        m: Option<&Mask<'_>>,
        accum: bool,
        d: &Descriptor,
    ) -> (D, [f64; 3]) {
        let dev = GpuDevice::open(i).unwrap();
        let dm = m.map(|m| DeviceMask::upload(&dev, m).unwrap());
        let plus = plus();
        let da = DeviceMatrix::upload(&dev, a).unwrap();
        let mut dw = DeviceDenseVector::upload(&dev, &DenseVector::from_options(w0)).unwrap();
        op::reduce_rows(&mut dw, dm.as_ref(), accum.then_some(&plus), PlusTimes::<f64>::new(), &da, d).unwrap();
        let dv = DeviceDenseVector::upload(&dev, v).unwrap();
        let sv = DeviceSparseVector::upload(&dev, &sparse(v)).unwrap();
        let r = [
            op::reduce(PlusTimes::<f64>::new(), &da).unwrap(),
            op::reduce(MinPlus::<f64>::new(), &da).unwrap(),
            op::reduce(PlusTimes::<f64>::new(), &dv).unwrap(),
        ];
        assert_eq!(op::reduce(PlusTimes::<f64>::new(), &sv).unwrap(), r[2], "a sparse vector's reduction");
        (dw.download().unwrap().to_options(), r)
    }

    /// [`IndexCase::host`](super::IndexCase::host) on device `i`.
    pub fn index_ops(i: usize, case: &super::IndexCase) -> [D; 4] {
        let dev = GpuDevice::open(i).unwrap();
        let plus = plus();
        let (er, ec, ecase) = &case.ext;
        let mut c = DeviceMatrix::upload(&dev, &super::matrix(er.len(), ec.len(), &case.ext_c0)).unwrap();
        let pat = ecase.pattern(er.len(), ec.len());
        let dm = super::matrix_mask(&pat).map(|m| DeviceMatrixMask::upload(&dev, &m).unwrap());
        let da = DeviceMatrix::upload(&dev, &case.ext_a()).unwrap();
        op::extract(&mut c, dm.as_ref(), ecase.accum.then_some(&plus), &da, er, ec, &ecase.desc).unwrap();
        let ext = c.download().unwrap().to_dense_options();
        let (ar, ac, acase) = &case.asg;
        let mut c = DeviceMatrix::upload(&dev, &super::matrix(case.m, case.n, &case.asg_c0)).unwrap();
        let pat = acase.pattern(case.m, case.n);
        let dm = super::matrix_mask(&pat).map(|m| DeviceMatrixMask::upload(&dev, &m).unwrap());
        let ds = DeviceMatrix::upload(&dev, &case.asg_s()).unwrap();
        op::assign(&mut c, dm.as_ref(), acase.accum.then_some(&plus), &ds, ar, ac, &acase.desc).unwrap();
        let asg = c.download().unwrap().to_dense_options();
        let u = DeviceDenseVector::upload(&dev, &DenseVector::from_options(&case.u)).unwrap();
        let (w0, vcase) = &case.vext;
        let mut w = DeviceDenseVector::upload(&dev, &DenseVector::from_options(w0)).unwrap();
        let vm = vcase.vector_mask().map(|m| DeviceMask::upload(&dev, &m).unwrap());
        op::extract_vector(&mut w, vm.as_ref(), vcase.accum.then_some(&plus), &u, er, &vcase.desc).unwrap();
        let vext = w.download().unwrap().to_options();
        let (src, w1, vcase) = &case.vasg;
        let mut w = DeviceDenseVector::upload(&dev, &DenseVector::from_options(w1)).unwrap();
        let vm = vcase.vector_mask().map(|m| DeviceMask::upload(&dev, &m).unwrap());
        let src = DeviceDenseVector::upload(&dev, &DenseVector::from_options(src)).unwrap();
        op::assign_vector(&mut w, vm.as_ref(), vcase.accum.then_some(&plus), &src, ar, &vcase.desc).unwrap();
        [ext, asg, vext, w.download().unwrap().to_options()]
    }
}

#[cfg(not(feature = "cuda"))]
pub(crate) mod gpu {
    //! Without the `cuda` feature there is no device: `test_device!` runs no case.
    use super::D;
    use kronograph::matrix::{DenseVector, Descriptor, Mask, MatrixMask, MxmMethod, SparseMatrix};

    fn none() -> ! {
        unreachable!("no device without the cuda feature")
    }

    #[allow(clippy::too_many_arguments)]
    pub fn ewise_vectors(
        _: usize,
        _: &str,
        _: &DenseVector<f64>,
        _: &DenseVector<f64>,
        _: &DenseVector<f64>,
        _: Option<&Mask<'_>>,
        _: bool,
        _: &Descriptor,
    ) -> Vec<D> {
        none()
    }

    #[allow(clippy::too_many_arguments)]
    pub fn ewise_matrices(
        _: usize,
        _: &str,
        _: &SparseMatrix<f64>,
        _: &SparseMatrix<f64>,
        _: &SparseMatrix<f64>,
        _: Option<&MatrixMask<'_>>,
        _: bool,
        _: &Descriptor,
    ) -> D {
        none()
    }

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
        none()
    }

    pub fn reduce(
        _: usize,
        _: &SparseMatrix<f64>,
        _: &DenseVector<f64>,
        _: &D,
        _: Option<&Mask<'_>>,
        _: bool,
        _: &Descriptor,
    ) -> (D, [f64; 3]) {
        none()
    }

    pub fn index_ops(_: usize, _: &super::IndexCase) -> [D; 4] {
        none()
    }
}
