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
                let got = crate::matrix_places::gpu::mxm(i, &ha, &hb, &matrix(m, n, &c0), mm.as_ref(), case.accum, &case.desc, method, wide);
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
