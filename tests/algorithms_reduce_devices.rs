//! The masked product reduced to a scalar (`reduce_mxm`) and the triangle
//! count over it (`triangles_in`) on rows of every length class, on the CPU
//! and on every CUDA device present (`test_device!`), against brute force:
//! on a device short rows take a warp's hash table, long sets or long outer
//! lists a block per piece of 1024 outer entries, sets past a block's table
//! a binary search of the sorted row (both forms, both index widths, values
//! read or not).

use crate::device_common::test_device;
use kronograph::algorithms::{lower_by_degree, triangles_in, TriangleForm};
use kronograph::cuda::{Backend, GpuDevice};
use kronograph::matrix::gpu::{DeviceMatrix, DeviceMatrixMask, IndexWidth};
use kronograph::matrix::{reduce_mxm, Descriptor, MatrixMask, MxmMethod, SparseMatrix};
use kronograph::semirings::{PlusPair, PlusTimes};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// An `n × n` matrix whose row `i` has about `len(i)` entries at random
/// columns, values in `1..5`.
fn rows_of(n: usize, seed: u64, len: impl Fn(usize) -> usize) -> SparseMatrix<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut entries = BTreeMap::new();
    for i in 0..n {
        for _ in 0..len(i) {
            entries.insert((i, rng.random_range(0..n)), rng.random_range(1..5) as f64);
        }
    }
    let (r, c): (Vec<usize>, Vec<usize>) = entries.keys().copied().unzip();
    let v: Vec<f64> = entries.values().copied().collect();
    SparseMatrix::try_from_triplets(n, n, &r, &c, &v).unwrap()
}

/// The transpose of `a`.
fn transposed(a: &SparseMatrix<f64>) -> SparseMatrix<f64> {
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..a.nrows() {
        let (cols, vals) = a.row(i);
        for (&j, &x) in cols.iter().zip(vals) {
            r.push(j);
            c.push(i);
            v.push(x);
        }
    }
    SparseMatrix::try_from_triplets(a.ncols(), a.nrows(), &r, &c, &v).unwrap()
}

/// `(Σ C, the number of terms)` of `C⟨M⟩ = A B'` for `B' = A` or `Aᵀ`:
/// every `k` stored in both `A(i,:)` and `B'(:,j)` at each mask position.
fn reference(a: &SparseMatrix<f64>, m: &SparseMatrix<f64>, transpose: bool) -> (f64, u64) {
    // the columns of B': rows of A when B' = Aᵀ, else rows of Aᵀ
    let at = if transpose { a.clone() } else { transposed(a) };
    let (mut sum, mut count) = (0.0, 0u64);
    for i in 0..a.nrows() {
        let (cols, vals) = a.row(i);
        let row: HashMap<usize, f64> = cols.iter().copied().zip(vals.iter().copied()).collect();
        for &j in m.row(i).0 {
            let (ks, bs) = at.row(j);
            for (k, b) in ks.iter().zip(bs) {
                if let Some(x) = row.get(k) {
                    sum += x * b;
                    count += 1;
                }
            }
        }
    }
    (sum, count)
}

test_device!(long_rows_body, reduce_mxm_rows_past_every_table, reduce_mxm_rows_past_every_table_on_gpus);

/// Rows of 4500, 1500, 300, 40 and 5 entries in `A` and in the mask (a
/// set past a block's table, several pieces of a long outer list, a
/// block's table, a warp's): `plus_times` on small integers (sums exact)
/// and `plus_pair` counts, each form, with and without `Bᵀ`.
fn long_rows_body(backend: Backend) {
    let n = 5000;
    let class = |i: usize, shift: usize| match (i + shift) % 100 {
        0 => 4500,
        1 => 1500,
        2 => 300,
        3..=9 => 40,
        _ => 5,
    };
    let a = rows_of(n, 3, |i| class(i, 0));
    let m = rows_of(n, 4, |i| class(i, 50));
    let mask = MatrixMask::structural(&m);
    let dev = match backend {
        Backend::Cuda(i) => Some(GpuDevice::open(i).unwrap()),
        _ => None,
    };
    for transpose in [false, true] {
        let desc = if transpose { Descriptor::DEFAULT.transpose_second() } else { Descriptor::DEFAULT };
        let (sum, count) = reference(&a, &m, transpose);
        for method in [MxmMethod::Dot, MxmMethod::Gustavson, MxmMethod::Auto] {
            let what = format!("transpose {transpose}, {method:?} on {backend:?}");
            match &dev {
                None => {
                    assert_eq!(
                        reduce_mxm(&mask, PlusTimes::<f64>::new(), &a, &a, &desc, method).unwrap(),
                        sum,
                        "{what}"
                    );
                    let c = reduce_mxm(&mask, PlusPair::<f64, f64, u64>::new(), &a, &a, &desc, method).unwrap();
                    assert_eq!(c, count, "{what}");
                }
                Some(dev) => {
                    for w in [IndexWidth::U32, IndexWidth::U64] {
                        let da = DeviceMatrix::upload_with_width(dev, &a, w).unwrap();
                        let dm = DeviceMatrixMask::upload_with_width(dev, &mask, w).unwrap();
                        let got = reduce_mxm(&dm, PlusTimes::<f64>::new(), &da, &da, &desc, method).unwrap();
                        assert_eq!(got, sum, "{what} {w:?}");
                        let c = reduce_mxm(&dm, PlusPair::<f64, f64, u64>::new(), &da, &da, &desc, method).unwrap();
                        assert_eq!(c, count, "{what} {w:?}");
                    }
                }
            }
        }
    }
}

/// Triangles of the symmetric pattern `adj` (self-loops ignored) by
/// enumerating, for each edge `i < j`, the `k > j` adjacent to both.
fn triangles_reference(n: usize, adj: &BTreeSet<(usize, usize)>) -> u64 {
    let mut dense = vec![false; n * n];
    for &(u, v) in adj {
        dense[u * n + v] = u != v;
    }
    let mut t = 0;
    for &(i, j) in adj.iter().filter(|&&(i, j)| i < j) {
        t += (j + 1..n).filter(|&k| dense[i * n + k] && dense[j * n + k]).count() as u64;
    }
    t
}

/// The triangles of `adj` on `backend` by each form, at each width on a device.
fn triangles_case(backend: Backend, n: usize, adj: &BTreeSet<(usize, usize)>, what: &str) {
    let want = triangles_reference(n, adj);
    let (r, c): (Vec<usize>, Vec<usize>) = adj.iter().copied().unzip();
    let a = SparseMatrix::try_from_triplets(n, n, &r, &c, &vec![1.0; r.len()]).unwrap();
    let l = lower_by_degree(&a);
    let mask = MatrixMask::structural(&l);
    for form in [TriangleForm::Dot, TriangleForm::RowWise, TriangleForm::Auto] {
        match backend {
            Backend::Cuda(i) => {
                let dev = GpuDevice::open(i).unwrap();
                for w in [IndexWidth::U32, IndexWidth::U64] {
                    let dl = DeviceMatrix::upload_with_width(&dev, &l, w).unwrap();
                    let dm = DeviceMatrixMask::upload_with_width(&dev, &mask, w).unwrap();
                    assert_eq!(triangles_in(&dl, &dm, form).unwrap(), want, "{what} {form:?} {w:?} on {backend:?}");
                }
            }
            _ => assert_eq!(triangles_in(&l, &mask, form).unwrap(), want, "{what} {form:?}"),
        }
    }
}

/// A symmetric pattern on `n` nodes: a dense core of `core` nodes (each
/// pair with probability `p`) and `extra` random edges.
fn cored(seed: u64, n: usize, core: usize, p: f64, extra: usize) -> BTreeSet<(usize, usize)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut adj = BTreeSet::new();
    for u in 0..core {
        for v in u + 1..core {
            if rng.random_bool(p) {
                adj.extend([(u, v), (v, u)]);
            }
        }
    }
    for _ in 0..extra {
        let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
        if u != v {
            adj.extend([(u, v), (v, u)]);
        }
    }
    adj
}

test_device!(long_triangles_body, triangles_of_long_rows, triangles_of_long_rows_on_gpus);

/// Rows of `L` past a warp's table (a dense core of 700 nodes: rows of up
/// to about 500) and a complete graph on 300 nodes (rows up to 299).
fn long_triangles_body(backend: Backend) {
    triangles_case(backend, 2000, &cored(5, 2000, 700, 0.7, 6000), "dense core");
    triangles_case(backend, 300, &cored(6, 300, 300, 1.0, 0), "K300");
}

test_device!(long_triangles_prop_body, triangles_proptest_dense_cores, triangles_proptest_dense_cores_on_gpus);

fn long_triangles_prop_body(backend: Backend) {
    let mut runner = TestRunner::new(Config { cases: 6, failure_persistence: None, ..Config::default() });
    let cases = (100usize..600, 0.3f64..1.0, 0usize..3000, any::<u64>());
    runner
        .run(&cases, |(core, p, extra, seed)| {
            let n = core + 200;
            triangles_case(backend, n, &cored(seed, n, core, p, extra), &format!("core {core}, p {p:.2}"));
            Ok(())
        })
        .unwrap();
}
