//! The algorithms written once over the GraphBLAS operations
//! (`components_in`, `bellman_ford_in`) on the CPU and on every CUDA device
//! present (`test_device!`), each against a small brute-force reference
//! (union-find; Dijkstra by an `O(n²)` scan). On a device the same source
//! runs on a `DeviceMatrix`, through the device implementations of
//! `vxm_sparse` and `assign_min`.

use crate::device_common::test_device;
use kronograph::algorithms::{bellman_ford_in, components_in};
use kronograph::cuda::{Backend, GpuDevice};
use kronograph::matrix::gpu::{DeviceMatrix, IndexWidth};
use kronograph::matrix::{MergeStrategy, SparseMatrix, SpmspvOptions};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random graph on `n` nodes with `m` arcs (both directions when `symmetric`).
fn random(seed: u64, n: usize, m: usize, symmetric: bool) -> SparseMatrix<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut arcs = std::collections::BTreeMap::new();
    while arcs.len() < m {
        let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
        let w = rng.random_range(0..20) as f64 / 4.0;
        arcs.insert((u, v), w);
        if symmetric {
            arcs.insert((v, u), w);
        }
    }
    let (mut r, mut c, mut vals) = (Vec::new(), Vec::new(), Vec::new());
    for ((u, v), w) in arcs {
        r.push(u);
        c.push(v);
        vals.push(w);
    }
    SparseMatrix::try_from_triplets(n, n, &r, &c, &vals).unwrap()
}

fn union_find_labels(a: &SparseMatrix<f64>) -> Vec<usize> {
    let n = a.nrows();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        p[x] = r;
        r
    }
    for u in 0..n {
        for &v in a.row(u).0 {
            let (ru, rv) = (find(&mut parent, u), find(&mut parent, v));
            parent[ru.max(rv)] = ru.min(rv);
        }
    }
    // the smallest id of each component
    let roots: Vec<usize> = (0..n).map(|v| find(&mut parent, v)).collect();
    let mut smallest = vec![usize::MAX; n];
    for (v, &r) in roots.iter().enumerate() {
        smallest[r] = smallest[r].min(v);
    }
    roots.iter().map(|&r| smallest[r]).collect()
}

fn dijkstra(a: &SparseMatrix<f64>, s: usize) -> Vec<f64> {
    let n = a.nrows();
    let mut d = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    d[s] = 0.0;
    for _ in 0..n {
        let Some(u) = (0..n).filter(|&u| !done[u] && d[u].is_finite()).min_by(|&x, &y| d[x].total_cmp(&d[y])) else {
            break;
        };
        done[u] = true;
        let (cols, vals) = a.row(u);
        for (&v, &w) in cols.iter().zip(vals) {
            d[v] = d[v].min(d[u] + w);
        }
    }
    d
}

/// The device matrix of `a` on `backend`'s device, of index width `w`.
fn upload<T: kronograph::matrix::gpu::GpuElement>(
    backend: Backend,
    a: &SparseMatrix<T>,
    w: IndexWidth,
) -> DeviceMatrix<T> {
    let Backend::Cuda(i) = backend else { unreachable!("a device backend") };
    DeviceMatrix::upload_with_width(&GpuDevice::open(i).unwrap(), a, w).unwrap()
}

test_device!(components_body, components_match_union_find, components_match_union_find_on_gpus);

fn components_body(backend: Backend) {
    for seed in 0..6u64 {
        let a = random(seed, 200 + 50 * seed as usize, 120 + 40 * seed as usize, true);
        let want = union_find_labels(&a);
        let pattern = a.map(|_| 0u64);
        let got = match backend {
            Backend::Cpu => components_in(&pattern).unwrap(),
            _ => {
                let w = if seed % 2 == 1 { IndexWidth::U64 } else { IndexWidth::U32 };
                components_in(&upload(backend, &pattern, w)).unwrap()
            }
        };
        assert_eq!(got.labels, want, "seed {seed} on {backend:?}");
        let count = want.iter().enumerate().filter(|&(v, &l)| v == l).count();
        assert_eq!(got.count, count);
    }
}

test_device!(bellman_ford_body, bellman_ford_matches_dijkstra, bellman_ford_matches_dijkstra_on_gpus);

fn bellman_ford_body(backend: Backend) {
    for seed in 0..4u64 {
        let n = 150 + 100 * seed as usize;
        let a = random(seed, n, 5 * n, false);
        let want = dijkstra(&a, 0);
        let strategies =
            [MergeStrategy::Scatter, MergeStrategy::MergeSort, MergeStrategy::RadixSort, MergeStrategy::Auto];
        for strategy in strategies {
            let opts = SpmspvOptions { strategy, ..SpmspvOptions::default() };
            let got = match backend {
                Backend::Cpu => bellman_ford_in(&a, 0, &opts).unwrap(),
                _ => bellman_ford_in(&upload(backend, &a, IndexWidth::U32), 0, &opts).unwrap(),
            };
            // weights are multiples of 1/4: every path sum is exact
            assert_eq!(got.distances, want, "seed {seed} {strategy:?} on {backend:?}");
            assert!(got.rounds >= 1);
        }
        // out of range and non-square are typed errors on every place
        let e = match backend {
            Backend::Cpu => bellman_ford_in(&a, n, &SpmspvOptions::default()),
            _ => bellman_ford_in(&upload(backend, &a, IndexWidth::U32), n, &SpmspvOptions::default()),
        };
        assert!(e.unwrap_err().to_string().contains("out of range"));
    }
}
