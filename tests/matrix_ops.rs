//! Every matrix operation against an executable specification: plain dense
//! loops over `Option` arrays with the same semiring, masks, accumulators and
//! descriptors, on random small inputs, for every built-in semiring.

use kronograph::matrix::*;
use kronograph::semirings::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type R = ChaCha8Rng;
type Dense<T> = Vec<Option<T>>;
type SpecAccum<'a, T> = Option<&'a dyn Fn(T, T) -> T>;

// ------------------------------------------------------------------ the specification

/// Left fold of the terms in order; no terms → absent.
fn fold<C: Copy, M: Monoid<C>>(m: M, terms: impl Iterator<Item = C>) -> Option<C> {
    terms.fold(None, |acc, t| Some(acc.map_or(t, |a| m.combine(a, t))))
}

fn spec_transpose<T: Copy>(a: &Dense<T>, m: usize, n: usize) -> Dense<T> {
    (0..n * m).map(|r| a[(r % m) * n + r / m]).collect()
}

fn spec_mxm<S: Semiring>(s: S, a: &Dense<S::A>, b: &Dense<S::B>, m: usize, p: usize, n: usize) -> Dense<S::C> {
    let mut c = vec![None; m * n];
    for i in 0..m {
        for j in 0..n {
            let terms = (0..p).filter_map(|k| match (a[i * p + k], b[k * n + j]) {
                (Some(x), Some(y)) => Some(s.multiply(x, y, Position::new(i, k, j))),
                _ => None,
            });
            c[i * n + j] = fold(s.add_monoid(), terms);
        }
    }
    c
}

/// `C⟨M, replace⟩ = accum(C, T)` entry by entry.
fn spec_write<T: Copy>(
    c: &Dense<T>,
    allowed: &[bool],
    accum: Option<&dyn Fn(T, T) -> T>,
    replace: bool,
    t: &Dense<T>,
) -> Dense<T> {
    (0..c.len())
        .map(|i| {
            if allowed[i] {
                match (accum, c[i], t[i]) {
                    (Some(f), Some(x), Some(y)) => Some(f(x, y)),
                    (Some(_), x, None) => x,
                    (_, _, y) => y,
                }
            } else if replace {
                None
            } else {
                c[i]
            }
        })
        .collect()
}

// ------------------------------------------------------------------ random inputs

fn rand_dense<T>(rng: &mut R, len: usize, density: f64, g: &dyn Fn(&mut R) -> T) -> Dense<T> {
    (0..len).map(|_| if rng.random_bool(density) { Some(g(rng)) } else { None }).collect()
}

/// A random mask over `len` positions: none, structural or valued, maybe
/// complemented; returns the mask source and the allowed positions.
struct MaskCase {
    kind: u8, // 0 none, 1 structural, 2 valued
    complement: bool,
    src: Dense<u8>,
}

impl MaskCase {
    fn random(rng: &mut R, len: usize) -> Self {
        MaskCase {
            kind: rng.random_range(0..3),
            complement: rng.random_bool(0.5),
            src: rand_dense(rng, len, 0.6, &|r| r.random_range(0..3u8)),
        }
    }
    fn allowed(&self) -> Vec<bool> {
        self.src
            .iter()
            .map(|v| match self.kind {
                0 => true,
                1 => v.is_some() != self.complement,
                _ => v.is_some_and(|x| x != 0) != self.complement,
            })
            .collect()
    }
    fn vector(&self) -> DenseVector<u8> {
        DenseVector::from_options(&self.src)
    }
    fn mask<'a>(&self, v: &'a DenseVector<u8>) -> Option<Mask<'a>> {
        let m = match self.kind {
            0 => return None,
            1 => Mask::structural(v),
            _ => Mask::valued(v),
        };
        Some(if self.complement { m.complement() } else { m })
    }
    fn matrix(&self, m: usize, n: usize) -> SparseMatrix<u8> {
        SparseMatrix::from_dense_options(m, n, &self.src)
    }
    fn matrix_mask<'a>(&self, a: &'a SparseMatrix<u8>) -> Option<MatrixMask<'a>> {
        let m = match self.kind {
            0 => return None,
            1 => MatrixMask::structural(a),
            _ => MatrixMask::valued(a),
        };
        Some(if self.complement { m.complement() } else { m })
    }
}

fn sparse_of<T: Element>(d: &Dense<T>) -> SparseVector<T> {
    let (i, v): (Vec<usize>, Vec<T>) = d.iter().enumerate().filter_map(|(i, x)| x.map(|x| (i, x))).unzip();
    SparseVector::try_new(d.len(), i, v).unwrap()
}

const STRATEGIES: [MergeStrategy; 3] = [MergeStrategy::Scatter, MergeStrategy::MergeSort, MergeStrategy::RadixSort];
const DIRECTIONS: [PushPull; 3] = [PushPull::Push, PushPull::Pull, PushPull::Auto { pull_density: 0.3 }];

// ------------------------------------------------------------------ products for one semiring

/// mxv, vxm (dense and sparse, every strategy and direction) and mxm (both
/// methods) against the specification, with masks, accumulators and descriptors.
fn check_products<S: Semiring>(
    s: S,
    seed: u64,
    ga: &dyn Fn(&mut R) -> S::A,
    gb: &dyn Fn(&mut R) -> S::B,
    gc: &dyn Fn(&mut R) -> S::C,
) where
    S::A: Element,
    S::B: Element,
    S::C: Element,
{
    let mut rng = R::seed_from_u64(seed);
    let add = move |x: S::C, y: S::C| s.add(x, y);
    for _round in 0..4 {
        let (m, n) = (rng.random_range(1..9usize), rng.random_range(1..9usize));
        let density = rng.random_range(0.1..0.7);
        let replace = rng.random_bool(0.5);
        let use_accum = rng.random_bool(0.5);
        let accum: Accum<'_, S::C> = if use_accum { Some(&add) } else { None };
        let spec_accum: SpecAccum<'_, S::C> = if use_accum { Some(&add) } else { None };
        let desc = Descriptor { replace, ..Descriptor::DEFAULT };

        // ---- mxv: w = A' u, A' = A or Aᵀ, A: m × n of S::A
        let a = rand_dense(&mut rng, m * n, density, ga);
        let amat = SparseMatrix::from_dense_options(m, n, &a);
        for tr in [false, true] {
            let (r, c, ad) = if tr { (n, m, spec_transpose(&a, m, n)) } else { (m, n, a.clone()) };
            let u = rand_dense(&mut rng, c, 0.6, gb);
            let w0 = rand_dense(&mut rng, r, 0.5, gc);
            let mc = MaskCase::random(&mut rng, r);
            let t = spec_mxm(s, &ad, &u, r, c, 1);
            let want = spec_write(&w0, &mc.allowed(), spec_accum, replace, &t);
            let mv = mc.vector();
            let mask = mc.mask(&mv);
            let d = Descriptor { transpose_first: tr, ..desc };
            let mut w = DenseVector::from_options(&w0);
            mxv(&mut w, mask.as_ref(), accum, s, &amat, &DenseVector::from_options(&u), &d).unwrap();
            assert_eq!(w.to_options(), want, "mxv tr={tr}");
            for strategy in STRATEGIES {
                for direction in DIRECTIONS {
                    let mut w = sparse_of(&w0);
                    let opts = SpmspvOptions { strategy, direction };
                    mxv_sparse(&mut w, mask.as_ref(), accum, s, &amat, &sparse_of(&u), &d, &opts).unwrap();
                    assert_eq!(w.to_options(), want, "mxv_sparse tr={tr} {opts:?}");
                }
            }
        }

        // ---- vxm: wᵀ = uᵀ B', B: m × n of S::B
        let b = rand_dense(&mut rng, m * n, density, gb);
        let bmat = SparseMatrix::from_dense_options(m, n, &b);
        for tr in [false, true] {
            let (r, c, bd) = if tr { (n, m, spec_transpose(&b, m, n)) } else { (m, n, b.clone()) };
            let u = rand_dense(&mut rng, r, 0.6, ga);
            let w0 = rand_dense(&mut rng, c, 0.5, gc);
            let mc = MaskCase::random(&mut rng, c);
            let t = spec_mxm(s, &u, &bd, 1, r, c);
            let want = spec_write(&w0, &mc.allowed(), spec_accum, replace, &t);
            let mv = mc.vector();
            let mask = mc.mask(&mv);
            let d = Descriptor { transpose_second: tr, ..desc };
            let mut w = DenseVector::from_options(&w0);
            vxm(&mut w, mask.as_ref(), accum, s, &DenseVector::from_options(&u), &bmat, &d).unwrap();
            assert_eq!(w.to_options(), want, "vxm tr={tr}");
            for strategy in STRATEGIES {
                for direction in DIRECTIONS {
                    let mut w = sparse_of(&w0);
                    let opts = SpmspvOptions { strategy, direction };
                    vxm_sparse(&mut w, mask.as_ref(), accum, s, &sparse_of(&u), &bmat, &d, &opts).unwrap();
                    assert_eq!(w.to_options(), want, "vxm_sparse tr={tr} {opts:?}");
                }
            }
        }

        // ---- mxm: C = A' B', A': m × p, B': p × n (stored transposed when asked)
        let p = rng.random_range(1..9usize);
        let (ta, tb) = (rng.random_bool(0.5), rng.random_bool(0.5));
        let a = rand_dense(&mut rng, m * p, density, ga);
        let b = rand_dense(&mut rng, p * n, density, gb);
        let astore = if ta {
            SparseMatrix::from_dense_options(p, m, &spec_transpose(&a, m, p))
        } else {
            SparseMatrix::from_dense_options(m, p, &a)
        };
        let bstore = if tb {
            SparseMatrix::from_dense_options(n, p, &spec_transpose(&b, p, n))
        } else {
            SparseMatrix::from_dense_options(p, n, &b)
        };
        let c0 = rand_dense(&mut rng, m * n, 0.4, gc);
        let mc = MaskCase::random(&mut rng, m * n);
        let t = spec_mxm(s, &a, &b, m, p, n);
        let want = spec_write(&c0, &mc.allowed(), spec_accum, replace, &t);
        let mm = mc.matrix(m, n);
        let mask = mc.matrix_mask(&mm);
        let d = Descriptor { transpose_first: ta, transpose_second: tb, ..desc };
        for method in [MxmMethod::Gustavson, MxmMethod::Dot, MxmMethod::Auto] {
            let mut c = SparseMatrix::from_dense_options(m, n, &c0);
            mxm(&mut c, mask.as_ref(), accum, s, &astore, &bstore, &d, method).unwrap();
            assert_eq!(c.to_dense_options(), want, "mxm {method:?} ta={ta} tb={tb}");
        }
    }
}

fn small_f64(r: &mut R) -> f64 {
    r.random_range(-100.0..100.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn plus_times(seed: u64) {
        check_products(PlusTimes::<f64>::new(), seed, &small_f64, &small_f64, &small_f64);
        check_products(PlusTimes::<f32>::new(), seed, &|r| r.random_range(-9.0..9.0f32), &|r| r.random_range(-9.0..9.0f32), &|r| r.random_range(-9.0..9.0f32));
        check_products(PlusTimes::<i64>::new(), seed, &|r| r.random_range(-9..9i64), &|r| r.random_range(-9..9i64), &|r| r.random_range(-9..9i64));
        check_products(PlusTimes::<u32>::new(), seed, &|r| r.random(), &|r| r.random(), &|r| r.random());
    }

    #[test]
    fn tropical(seed: u64) {
        check_products(MinPlus::<f64>::new(), seed, &small_f64, &small_f64, &small_f64);
        check_products(MinPlus::<i32>::new(), seed, &|r| r.random_range(-50..50i32), &|r| r.random_range(-50..50i32), &|r| r.random_range(-50..50i32));
        check_products(MaxPlus::<i64>::new(), seed, &|r| r.random_range(-50..50i64), &|r| r.random_range(-50..50i64), &|r| r.random_range(-50..50i64));
        check_products(MaxMin::<u64>::new(), seed, &|r| r.random_range(0..50u64), &|r| r.random_range(0..50u64), &|r| r.random_range(0..50u64));
    }

    #[test]
    fn boolean_and_structural(seed: u64) {
        check_products(LorLand, seed, &|r| r.random(), &|r| r.random(), &|r| r.random());
        check_products(AnyPair::<f64, i32>::new(), seed, &small_f64, &|r| r.random(), &|r| r.random());
        check_products(AnySecondi::<bool, f64>::new(), seed, &|r| r.random(), &small_f64, &|r| r.random_range(0..9u64));
        check_products(PlusPair::<f64, u8, u64>::new(), seed, &small_f64, &|r| r.random(), &|r| r.random_range(0..9u64));
    }

    #[test]
    fn finite_fields(seed: u64) {
        check_products(Gf256, seed, &|r| r.random(), &|r| r.random(), &|r| r.random());
        check_products(Gf2p64, seed, &|r| r.random(), &|r| r.random(), &|r| r.random());
    }

    #[test]
    fn elementwise_and_structure(seed: u64) {
        check_structure(seed);
    }
}

// ------------------------------------------------------------------ other operations

fn check_structure(seed: u64) {
    let mut rng = R::seed_from_u64(seed);
    let g = |r: &mut R| r.random_range(-20..20i64);
    let (m, n) = (rng.random_range(1..8usize), rng.random_range(1..8usize));
    let replace = rng.random_bool(0.5);
    let use_accum = rng.random_bool(0.5);
    let plus = |x: i64, y: i64| x + y;
    let accum: Accum<'_, i64> = if use_accum { Some(&plus) } else { None };
    let spec_accum: Option<&dyn Fn(i64, i64) -> i64> = if use_accum { Some(&plus) } else { None };
    let desc = Descriptor { replace, ..Descriptor::DEFAULT };
    let a = rand_dense(&mut rng, m * n, 0.5, &g);
    let b = rand_dense(&mut rng, m * n, 0.5, &g);
    let (am, bm) = (SparseMatrix::from_dense_options(m, n, &a), SparseMatrix::from_dense_options(m, n, &b));
    let c0 = rand_dense(&mut rng, m * n, 0.4, &g);
    let mc = MaskCase::random(&mut rng, m * n);
    let mm = mc.matrix(m, n);
    let mask = mc.matrix_mask(&mm);
    let allowed = mc.allowed();
    let run = |f: &dyn Fn(&mut SparseMatrix<i64>), want_t: Dense<i64>, what: &str| {
        let mut c = SparseMatrix::from_dense_options(m, n, &c0);
        f(&mut c);
        assert_eq!(c.to_dense_options(), spec_write(&c0, &allowed, spec_accum, replace, &want_t), "{what}");
    };
    let union: Dense<i64> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Some(x * 3 - y),
            (x, None) => *x,
            (None, y) => *y,
        })
        .collect();
    run(&|c| ewise_add(c, mask.as_ref(), accum, |x, y| x * 3 - y, &am, &bm, &desc).unwrap(), union, "ewise_add");
    let inter: Dense<i64> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Some(x * y - 1),
            _ => None,
        })
        .collect();
    run(
        &|c| ewise_mult(c, mask.as_ref(), accum, |x: i64, y: i64| x * y - 1, &am, &bm, &desc).unwrap(),
        inter,
        "ewise_mult",
    );
    run(
        &|c| apply(c, mask.as_ref(), accum, |x: i64| x * x, &am, &desc).unwrap(),
        a.iter().map(|x| x.map(|x| x * x)).collect(),
        "apply",
    );
    let sel: Dense<i64> = (0..m * n).map(|t| a[t].filter(|&x| t % n <= t / n && x > 0)).collect();
    run(&|c| select(c, mask.as_ref(), accum, |i, j, x| j <= i && x > 0, &am, &desc).unwrap(), sel, "select");
    // transposes: square case through a transposed descriptor
    if m == n {
        let at = spec_transpose(&a, m, n);
        run(&|c| transpose(c, mask.as_ref(), accum, &am, &desc).unwrap(), at.clone(), "transpose");
        run(
            &|c| {
                apply(c, mask.as_ref(), accum, |x: i64| x, &am, &Descriptor { transpose_first: true, ..desc }).unwrap()
            },
            at,
            "apply Aᵀ",
        );
    }
    assert_eq!(am.transpose().to_dense_options(), spec_transpose(&a, m, n));
    assert_eq!(am.transpose().transpose().to_dense_options(), a);
    assert_eq!(am.csc().to_dense().into_raw_vec_and_offset().0.len(), m * n);

    // reduce to vector (rows, or columns through the descriptor) and to scalar
    for tr in [false, true] {
        let (r, c, ad) = if tr { (n, m, spec_transpose(&a, m, n)) } else { (m, n, a.clone()) };
        let t: Dense<i64> = (0..r).map(|i| fold(Max, (0..c).filter_map(|j| ad[i * c + j]))).collect();
        let w0 = rand_dense(&mut rng, r, 0.5, &g);
        let vmc = MaskCase::random(&mut rng, r);
        let mv = vmc.vector();
        let vmask = vmc.mask(&mv);
        let mut w = DenseVector::from_options(&w0);
        reduce_rows(
            &mut w,
            vmask.as_ref(),
            accum,
            MaxPlus::<i64>::new(),
            &am,
            &Descriptor { transpose_first: tr, ..desc },
        )
        .unwrap();
        assert_eq!(w.to_options(), spec_write(&w0, &vmc.allowed(), spec_accum, replace, &t), "reduce_rows tr={tr}");
    }
    assert_eq!(reduce(PlusTimes::<i64>::new(), &am).unwrap(), a.iter().flatten().sum::<i64>());
    assert_eq!(reduce(MinPlus::<i64>::new(), &am).unwrap(), a.iter().flatten().copied().min().unwrap_or(i64::MAX));

    // extract / assign with index sets
    let rows: Vec<usize> = (0..rng.random_range(1..6)).map(|_| rng.random_range(0..m)).collect();
    let cols: Vec<usize> = (0..rng.random_range(1..6)).map(|_| rng.random_range(0..n)).collect();
    let (p, q) = (rows.len(), cols.len());
    let t: Dense<i64> = (0..p * q).map(|x| a[rows[x / q] * n + cols[x % q]]).collect();
    let e0 = rand_dense(&mut rng, p * q, 0.4, &g);
    let emc = MaskCase::random(&mut rng, p * q);
    let emm = emc.matrix(p, q);
    let mut e = SparseMatrix::from_dense_options(p, q, &e0);
    extract(&mut e, emc.matrix_mask(&emm).as_ref(), accum, &am, &rows, &cols, &desc).unwrap();
    assert_eq!(e.to_dense_options(), spec_write(&e0, &emc.allowed(), spec_accum, replace, &t), "extract");

    let mut urows: Vec<usize> = rows.clone();
    urows.sort_unstable();
    urows.dedup();
    let mut ucols: Vec<usize> = cols.clone();
    ucols.sort_unstable();
    ucols.dedup();
    urows.reverse(); // unsorted index sets
    let (p, q) = (urows.len(), ucols.len());
    let src = rand_dense(&mut rng, p * q, 0.5, &g);
    let mut z = c0.clone();
    for x in 0..p {
        for y in 0..q {
            let pos = urows[x] * n + ucols[y];
            z[pos] = match (spec_accum, c0[pos], src[x * q + y]) {
                (Some(f), Some(o), Some(v)) => Some(f(o, v)),
                (Some(_), o, None) => o,
                (_, _, v) => v,
            };
        }
    }
    let want = spec_write(&c0, &allowed, None, replace, &z);
    let mut c = SparseMatrix::from_dense_options(m, n, &c0);
    assign(&mut c, mask.as_ref(), accum, &SparseMatrix::from_dense_options(p, q, &src), &urows, &ucols, &desc).unwrap();
    assert_eq!(c.to_dense_options(), want, "assign");

    // vectors: ewise, apply, select, extract, assign, reduce
    let u = rand_dense(&mut rng, n, 0.6, &g);
    let v = rand_dense(&mut rng, n, 0.6, &g);
    let w0 = rand_dense(&mut rng, n, 0.5, &g);
    let vmc = MaskCase::random(&mut rng, n);
    let mv = vmc.vector();
    let vmask = vmc.mask(&mv);
    let vallowed = vmc.allowed();
    let (ud, vd) = (DenseVector::from_options(&u), DenseVector::from_options(&v));
    let runv = |f: &dyn Fn(&mut DenseVector<i64>), t: Dense<i64>, what: &str| {
        let mut w = DenseVector::from_options(&w0);
        f(&mut w);
        assert_eq!(w.to_options(), spec_write(&w0, &vallowed, spec_accum, replace, &t), "{what}");
    };
    let union: Dense<i64> = u
        .iter()
        .zip(&v)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Some(x - y),
            (x, None) => *x,
            (None, y) => *y,
        })
        .collect();
    runv(&|w| ewise_add(w, vmask.as_ref(), accum, |x, y| x - y, &ud, &vd, &desc).unwrap(), union, "ewise_add_vector");
    let inter: Dense<i64> = u
        .iter()
        .zip(&v)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Some(x * y),
            _ => None,
        })
        .collect();
    runv(
        &|w| ewise_mult(w, vmask.as_ref(), accum, |x: i64, y: i64| x * y, &ud, &vd, &desc).unwrap(),
        inter,
        "ewise_mult_vector",
    );
    runv(
        &|w| apply(w, vmask.as_ref(), accum, |x: i64| -x, &ud, &desc).unwrap(),
        u.iter().map(|x| x.map(|x| -x)).collect(),
        "apply_vector",
    );
    let sel: Dense<i64> = u.iter().enumerate().map(|(i, x)| x.filter(|&x| x % 2 == 0 || i == 0)).collect();
    runv(&|w| select(w, vmask.as_ref(), accum, |i, x| x % 2 == 0 || i == 0, &ud, &desc).unwrap(), sel, "select_vector");
    let idx: Vec<usize> = (0..n).map(|_| rng.random_range(0..n)).collect();
    let t: Dense<i64> = idx.iter().map(|&i| u[i]).collect();
    runv(&|w| extract_vector(w, vmask.as_ref(), accum, &ud, &idx, &desc).unwrap(), t, "extract_vector");
    let mut uidx = idx.clone();
    uidx.sort_unstable();
    uidx.dedup();
    uidx.reverse();
    let src = rand_dense(&mut rng, uidx.len(), 0.6, &g);
    let mut z = w0.clone();
    for (p, &i) in uidx.iter().enumerate() {
        z[i] = match (spec_accum, w0[i], src[p]) {
            (Some(f), Some(o), Some(v)) => Some(f(o, v)),
            (Some(_), o, None) => o,
            (_, _, v) => v,
        };
    }
    let mut w = DenseVector::from_options(&w0);
    assign_vector(&mut w, vmask.as_ref(), accum, &DenseVector::from_options(&src), &uidx, &desc).unwrap();
    assert_eq!(w.to_options(), spec_write(&w0, &vallowed, None, replace, &z), "assign_vector");
    assert_eq!(reduce(PlusTimes::<i64>::new(), &ud).unwrap(), u.iter().flatten().sum::<i64>());

    // kronecker against its definition
    let (p, q) = (rng.random_range(1..4usize), rng.random_range(1..4usize));
    let bb = rand_dense(&mut rng, p * q, 0.6, &g);
    let k = kronecker(|x: i64, y: i64| x * 100 + y, &am, &SparseMatrix::from_dense_options(p, q, &bb));
    let kd = k.to_dense_options();
    for r in 0..m * p {
        for c in 0..n * q {
            let want = match (a[(r / p) * n + c / q], bb[(r % p) * q + c % q]) {
                (Some(x), Some(y)) => Some(x * 100 + y),
                _ => None,
            };
            assert_eq!(kd[r * n * q + c], want);
        }
    }
}

// ------------------------------------------------------------------ the seed example and errors

fn seed_matrix() -> SparseMatrix<f64> {
    SparseMatrix::try_from_triplets(4, 4, &[0, 0, 1, 1, 2, 3], &[1, 2, 2, 3, 3, 0], &[2.0, 3.0, 1.0, 4.0, 5.0, 1.0])
        .unwrap()
}

#[test]
fn seed_example_all_strategies() {
    let a = seed_matrix();
    let x = SparseVector::try_new(4, vec![0, 1], vec![1.0, 2.0]).unwrap();
    for strategy in STRATEGIES {
        for direction in DIRECTIONS {
            let opts = SpmspvOptions { strategy, direction };
            let mut y = SparseVector::new(4);
            vxm_sparse(&mut y, None, None, PlusTimes::<f64>::new(), &x, &a, &Descriptor::DEFAULT, &opts).unwrap();
            assert_eq!(y.indices(), &[1, 2, 3]);
            assert_eq!(y.values(), &[2.0, 5.0, 8.0], "{opts:?}");
            vxm_sparse(&mut y, None, None, MinPlus::<f64>::new(), &x, &a, &Descriptor::DEFAULT, &opts).unwrap();
            assert_eq!(y.indices(), &[1, 2, 3]);
            assert_eq!(y.values(), &[3.0, 3.0, 6.0], "{opts:?}");
            // the same through mxv with Aᵀ
            mxv_sparse(
                &mut y,
                None,
                None,
                MinPlus::<f64>::new(),
                &a,
                &x,
                &Descriptor::DEFAULT.transpose_first(),
                &opts,
            )
            .unwrap();
            assert_eq!(y.values(), &[3.0, 3.0, 6.0], "{opts:?}");
        }
    }
}

#[test]
fn large_spmspv_uses_buckets_and_agrees() {
    // Big enough for several buckets and the radix sort's multiple passes.
    let mut rng = R::seed_from_u64(7);
    let n = 5000;
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        for _ in 0..8 {
            r.push(i);
            c.push(rng.random_range(0..n));
            v.push(rng.random_range(-1.0..1.0f64));
        }
    }
    let mut seen = std::collections::HashSet::new();
    let keep: Vec<usize> = (0..r.len()).filter(|&t| seen.insert((r[t], c[t]))).collect();
    fn pick<T: Copy>(keep: &[usize], x: &[T]) -> Vec<T> {
        keep.iter().map(|&t| x[t]).collect()
    }
    let a = SparseMatrix::try_from_triplets(n, n, &pick(&keep, &r), &pick(&keep, &c), &pick(&keep, &v)).unwrap();
    let xs: Dense<f64> =
        (0..n).map(|_| if rng.random_bool(0.2) { Some(rng.random_range(-1.0..1.0)) } else { None }).collect();
    let x = sparse_of(&xs);
    let mut reference = None;
    for strategy in STRATEGIES {
        for direction in [PushPull::Push, PushPull::Pull] {
            let mut y = SparseVector::new(n);
            let opts = SpmspvOptions { strategy, direction };
            vxm_sparse(&mut y, None, None, PlusTimes::<f64>::new(), &x, &a, &Descriptor::DEFAULT, &opts).unwrap();
            match &reference {
                None => reference = Some(y),
                Some(r0) => assert_eq!(&y, r0, "{opts:?}: bitwise identical sums"),
            }
        }
    }
    // Plain loops in increasing k, the documented order of ⊕.
    let mut spec: Dense<f64> = vec![None; n];
    for (k, xk) in xs.iter().enumerate() {
        if let Some(xk) = xk {
            let (idx, val) = a.row(k);
            for (&j, &ajk) in idx.iter().zip(val) {
                let t = xk * ajk;
                spec[j] = Some(spec[j].map_or(t, |s| s + t));
            }
        }
    }
    assert_eq!(reference.unwrap().to_options(), spec);
}

#[test]
fn dimension_errors() {
    let a = seed_matrix();
    let mut w = DenseVector::<f64>::new(3);
    let err = mxv(&mut w, None, None, PlusTimes::<f64>::new(), &a, &DenseVector::filled(4, 1.0), &Descriptor::DEFAULT);
    assert!(matches!(err, Err(kronograph::Error::Matrix(MatrixError::DimensionMismatch { op: "mxv", .. }))), "{err:?}");
    assert!(matches!(SparseVector::try_new(3, vec![0, 3], vec![1.0, 2.0]), Err(MatrixError::IndexOutOfBounds { .. })));
    assert!(matches!(SparseVector::try_new(3, vec![1, 1], vec![1.0, 2.0]), Err(MatrixError::DuplicateIndex { .. })));
    assert!(matches!(
        SparseMatrix::try_from_triplets(2, 2, &[0, 0], &[1, 1], &[1, 2]),
        Err(MatrixError::DuplicateIndex { .. })
    ));
    let mut c = SparseMatrix::<f64>::new(4, 4);
    let err = assign(&mut c, None, None, &SparseMatrix::new(2, 1), &[0, 0], &[1], &Descriptor::DEFAULT);
    assert!(matches!(err, Err(kronograph::Error::Matrix(MatrixError::DuplicateIndex { .. }))), "{err:?}");
}
