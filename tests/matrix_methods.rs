//! The method form of the products (`a.mxv(&x, s)…`, in place) against the
//! GraphBLAS-shaped functions, on seeded random inputs with masks,
//! accumulators and descriptors.

use kronograph::matrix::*;
use kronograph::semirings::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn matrix(rng: &mut ChaCha8Rng, m: usize, n: usize, density: f64) -> SparseMatrix<f64> {
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..m {
        for j in 0..n {
            if rng.random_bool(density) {
                r.push(i);
                c.push(j);
                v.push(rng.random_range(1..10) as f64);
            }
        }
    }
    SparseMatrix::try_from_triplets(m, n, &r, &c, &v).unwrap()
}

fn dense(rng: &mut ChaCha8Rng, n: usize) -> DenseVector<f64> {
    let o: Vec<Option<f64>> = (0..n).map(|_| rng.random_bool(0.6).then(|| rng.random_range(0..20) as f64)).collect();
    DenseVector::from_options(&o)
}

fn bits(rng: &mut ChaCha8Rng, n: usize) -> Vec<bool> {
    (0..n).map(|_| rng.random_bool(0.5)).collect()
}

const DESCS: [Descriptor; 3] =
    [Descriptor::DEFAULT, Descriptor::DEFAULT.replace(), Descriptor::DEFAULT.transpose_first().replace()];

#[test]
fn vector_products_match_the_functions() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let min = |a: f64, b: f64| a.min(b);
    for _ in 0..40 {
        let n = rng.random_range(1..30);
        let a = matrix(&mut rng, n, n, 0.2);
        let (x, w0) = (dense(&mut rng, n), dense(&mut rng, n));
        let m = Mask::from_bits(bits(&mut rng, n));
        for desc in DESCS {
            // mxv, dense
            let mut want = w0.clone();
            mxv(&mut want, Some(&m), Some(&min), MinPlus::new(), &a, &x, &desc).unwrap();
            let mut got = w0.clone();
            a.mxv(&x, MinPlus::new()).mask(&m).accum(&min).desc(desc).into(&mut got).unwrap();
            assert_eq!(got, want);
            // vxm, sparse
            let (xs, ws) = (x.to_sparse(), w0.to_sparse());
            let mut want = ws.clone();
            let o = SpmspvOptions::default();
            vxm_sparse(&mut want, Some(&m), Some(&min), PlusTimes::new(), &xs, &a, &desc, &o).unwrap();
            let mut got = ws.clone();
            xs.vxm(&a, PlusTimes::new()).mask(&m).accum(&min).desc(desc).into(&mut got).unwrap();
            assert_eq!(got, want);
            // in place = the function with a copy of the input
            for sparse in [false, true] {
                let (mut want, mut got) = (w0.clone(), w0.clone());
                if sparse {
                    let (mut ws_want, mut ws_got) = (ws.clone(), ws.clone());
                    let u = ws_want.clone();
                    mxv_sparse(&mut ws_want, Some(&m), Some(&min), MinPlus::new(), &a, &u, &desc, &o).unwrap();
                    a.mxv_in_place(MinPlus::new()).mask(&m).accum(&min).desc(desc).into(&mut ws_got).unwrap();
                    assert_eq!(ws_got, ws_want);
                } else {
                    let u = want.clone();
                    vxm(&mut want, Some(&m), None, MinPlus::new(), &u, &a, &desc).unwrap();
                    a.vxm_in_place(MinPlus::new()).mask(&m).desc(desc).into(&mut got).unwrap();
                    assert_eq!(got, want);
                }
            }
        }
        // run() is into() on an empty output
        let mut want = DenseVector::new(n);
        mxv(&mut want, None, None, PlusTimes::new(), &a, &x, &Descriptor::DEFAULT).unwrap();
        assert_eq!(a.mxv(&x, PlusTimes::new()).run().unwrap(), want);
    }
}

#[test]
fn mxm_matches_the_function() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..20 {
        let (m, p, n) = (rng.random_range(1..12), rng.random_range(1..12), rng.random_range(1..12));
        let (a, b) = (matrix(&mut rng, m, p, 0.3), matrix(&mut rng, p, n, 0.3));
        let pattern = matrix(&mut rng, m, n, 0.4);
        let mask = MatrixMask::structural(&pattern).complement();
        let c0 = matrix(&mut rng, m, n, 0.3);
        let plus = |x: f64, y: f64| x + y;
        let mut want = c0.clone();
        mxm(&mut want, Some(&mask), Some(&plus), PlusTimes::new(), &a, &b, &Descriptor::DEFAULT, MxmMethod::Auto)
            .unwrap();
        let mut got = c0.clone();
        a.mxm(&b, PlusTimes::new()).mask(&mask).accum(&plus).into(&mut got).unwrap();
        assert_eq!(got.to_dense_options(), want.to_dense_options());
        // transposed operands through the descriptor
        let bt = b.transpose();
        let d = Descriptor::DEFAULT.transpose_second();
        let via_desc = a.mxm(&bt, PlusTimes::new()).desc(d).method(MxmMethod::Dot).run().unwrap();
        let direct = a.mxm(&b, PlusTimes::new()).run().unwrap();
        assert_eq!(via_desc.to_dense_options(), direct.to_dense_options());
    }
}

#[test]
fn mxm_in_place_matches_the_out_of_place_product() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let plus = |x: f64, y: f64| x + y;
    for _ in 0..20 {
        let n = rng.random_range(1..12);
        let (a, c0) = (matrix(&mut rng, n, n, 0.3), matrix(&mut rng, n, n, 0.3));
        let pattern = matrix(&mut rng, n, n, 0.4);
        for (variant, desc) in (0..3).flat_map(|v| {
            [Descriptor::DEFAULT, Descriptor::DEFAULT.transpose_first(), Descriptor::DEFAULT.transpose_second()]
                .map(|d| (v, d))
        }) {
            let mk = match variant {
                0 => None,
                1 => Some(MatrixMask::structural(&pattern)),
                _ => Some(MatrixMask::structural(&pattern).complement()),
            };
            let mk = mk.as_ref();
            // C = C + A C, against the out-of-place product from a copy of C
            let mut want = c0.clone();
            let mut op = a.mxm(&c0, PlusTimes::new()).accum(&plus).desc(desc);
            if let Some(m) = mk {
                op = op.mask(m);
            }
            op.into(&mut want).unwrap();
            let mut got = c0.clone();
            let mut op = a.mxm_in_place(PlusTimes::new()).accum(&plus).desc(desc);
            if let Some(m) = mk {
                op = op.mask(m);
            }
            op.into(&mut got).unwrap();
            assert_eq!(got.to_dense_options(), want.to_dense_options());
            // C = C B (no accumulator: replaced where written)
            let mut want = c0.clone();
            c0.mxm(&a, MinPlus::new()).desc(desc).into(&mut want).unwrap();
            let mut got = c0.clone();
            a.mxm_in_place_right(MinPlus::new()).desc(desc).into(&mut got).unwrap();
            assert_eq!(got.to_dense_options(), want.to_dense_options());
        }
    }
    // shapes are checked
    let a = SparseMatrix::<f64>::new(2, 3);
    let mut c = SparseMatrix::<f64>::new(3, 3);
    let e = a.mxm_in_place(PlusTimes::new()).into(&mut c).unwrap_err();
    assert!(matches!(e, MatrixError::DimensionMismatch { .. }), "{e}");
}

#[test]
fn in_place_rejects_a_non_square_product() {
    let a = SparseMatrix::<f64>::new(2, 3);
    let mut w = DenseVector::<f64>::new(3);
    let e = a.mxv_in_place(PlusTimes::new()).into(&mut w).unwrap_err();
    assert!(matches!(e, MatrixError::DimensionMismatch { .. }), "{e}");
}

#[test]
fn semirings_and_monoids_are_all_built_by_new() {
    // one constructor for every semiring and monoid, and Default agrees
    let p = Position::default();
    assert_eq!(MinPlus::<f64>::new().multiply(1.0, 2.0, p), 3.0);
    assert_eq!(Gf256::new().multiply(2, 0x80, p), 0x1D);
    assert_eq!(Gf2p64::new().multiply(1, 7, p), 7);
    assert!(LorLand::new().multiply(true, true, p));
    assert_eq!(Min::new().combine(2.0, 1.0), 1.0);
    assert_eq!(Plus::new().combine(2u64, 1), 3);
    assert_eq!(format!("{:?}", MinPlus::<f64>::default()), format!("{:?}", MinPlus::<f64>::new()));
    assert_eq!(Gf256, Gf256::new()); // a unit struct may also be written by name
}
