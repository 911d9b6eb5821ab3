//! The algorithms written once over the GraphBLAS operations
//! (`components_in`, `bellman_ford_in`, `bfs_in`/`bfs_levels`,
//! `DeltaStepping`, `triangles_in`) on the CPU and on every CUDA device present
//! (`test_device!`), each against a small brute-force reference
//! (union-find; Dijkstra by an `O(n²)` scan; BFS by a queue; triangles by
//! enumerating node triples). On a device the same source runs on a
//! `DeviceMatrix`, through the device implementations of `vxm_sparse`,
//! `assign_min`, `vxm_visit`, `relax_near`/`split_far` and `reduce_mxm`.

use crate::device_common::test_device;
use kronograph::algorithms::{
    bellman_ford_in, bfs_in, bfs_levels, components_in, lower_by_degree, triangles_in, BfsDirection, BfsOptions,
    BfsResult, DeltaStepping, TriangleForm,
};
use kronograph::cuda::{Backend, GpuDevice};
use kronograph::matrix::gpu::{DeviceMatrix, DeviceMatrixMask, IndexWidth};
use kronograph::matrix::{
    reduce_mxm, relax_near, relax_rounds, vxm_visit, Descriptor, MatrixMask, MergeStrategy, MxmMethod, PushPull,
    RelaxOp, SparseMatrix, SpmspvOptions, VisitOp,
};
use kronograph::semirings::PlusTimes;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
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

/// The `n × n` pattern (values 1) of the arcs `arcs` (repeats merged).
fn pattern(n: usize, arcs: Vec<(usize, usize)>) -> SparseMatrix<f64> {
    let set: std::collections::BTreeSet<(usize, usize)> = arcs.into_iter().collect();
    let (r, c): (Vec<usize>, Vec<usize>) = set.into_iter().unzip();
    SparseMatrix::try_from_triplets(n, n, &r, &c, &vec![1.0; r.len()]).unwrap()
}

/// BFS levels by a queue (`-1` unreached).
fn bfs_levels_reference(a: &SparseMatrix<f64>, s: usize) -> Vec<i64> {
    let mut levels = vec![-1i64; a.nrows()];
    levels[s] = 0;
    let mut queue = std::collections::VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        for &v in a.row(u).0 {
            if levels[v] < 0 {
                levels[v] = levels[u] + 1;
                queue.push_back(v);
            }
        }
    }
    levels
}

/// `r` against the reference: equal levels, counts that fit them, each
/// parent a node one level up with an arc to its child (the smallest such
/// when `smallest`).
fn check_bfs(a: &SparseMatrix<f64>, s: usize, r: &BfsResult, smallest: bool, what: &str) {
    let want = bfs_levels_reference(a, s);
    assert_eq!(r.levels, want, "{what}");
    assert_eq!(r.reached, want.iter().filter(|&&l| l >= 0).count(), "{what}");
    assert_eq!(r.depth as i64, want.iter().copied().max().unwrap_or(0), "{what}");
    let arcs: usize = (0..a.nrows()).filter(|&v| want[v] >= 0).map(|v| a.row(v).0.len()).sum();
    assert_eq!(r.arcs_in_component, arcs, "{what}");
    assert_eq!(r.pulled.len(), r.depth, "{what}");
    assert_eq!(r.parents[s], s as i64, "{what}");
    for v in (0..a.nrows()).filter(|&v| v != s) {
        if want[v] < 0 {
            assert_eq!(r.parents[v], -1, "{what}: unreached {v}");
            continue;
        }
        let p = r.parents[v] as usize;
        assert!(a.get(p, v).is_some() && want[p] == want[v] - 1, "{what}: parent {p} of {v}");
        if smallest {
            let first = (0..a.nrows()).find(|&u| want[u] == want[v] - 1 && a.get(u, v).is_some());
            assert_eq!(Some(p), first, "{what}: the smallest parent of {v}");
        }
    }
}

/// BFS on `backend` with `opts` from each of `sources` (one visit state
/// reused across them on a device), each checked against the reference.
fn bfs_case(backend: Backend, a: &SparseMatrix<f64>, sources: &[usize], opts: &BfsOptions, w: IndexWidth, what: &str) {
    // the host's parent is the smallest always, a device's by pull
    let smallest = backend == Backend::Cpu || opts.direction == BfsDirection::Pull;
    match backend {
        Backend::Cpu => {
            let mut v = a.visited().unwrap();
            for &s in sources {
                check_bfs(a, s, &bfs_in(a, s, opts).unwrap(), true, what);
                let r = bfs_levels(a, &mut v, s, opts).unwrap().result::<SparseMatrix<f64>>(&v).unwrap();
                check_bfs(a, s, &r, true, &format!("{what} (reused state)"));
            }
        }
        _ => {
            let d = upload(backend, a, w);
            let mut v = d.visited().unwrap();
            for &s in sources {
                let r = bfs_levels(&d, &mut v, s, opts).unwrap().result::<DeviceMatrix<f64>>(&v).unwrap();
                check_bfs(a, s, &r, smallest, &format!("{what} on {backend:?} {w:?}"));
                // the device decides the directions by the host's rule
                assert_eq!(r.pulled, bfs_in(a, s, opts).unwrap().pulled, "{what}: directions on {backend:?}");
            }
            check_bfs(a, sources[0], &bfs_in(&d, sources[0], opts).unwrap(), smallest, what);
        }
    }
}

const DIRECTIONS: [BfsDirection; 3] =
    [BfsDirection::Push, BfsDirection::Pull, BfsDirection::Auto { alpha: 14.0, beta: 24.0 }];

test_device!(bfs_body, bfs_matches_reference, bfs_matches_reference_on_gpus);

fn bfs_body(backend: Backend) {
    for seed in 0..4u64 {
        let n = 120 + 90 * seed as usize;
        let (sym, a) = (seed % 2 == 0, random(seed, n, 4 * n, seed % 2 == 0));
        let w = if seed == 3 { IndexWidth::U64 } else { IndexWidth::U32 };
        for direction in DIRECTIONS {
            for strategy in [MergeStrategy::Scatter, MergeStrategy::MergeSort, MergeStrategy::Auto] {
                let opts = BfsOptions { direction, strategy };
                let what = format!("seed {seed} symmetric {sym} {direction:?} {strategy:?}");
                bfs_case(backend, &a, &[0, n / 2, n - 1], &opts, w, &what);
            }
        }
        // out of range is a typed error on every place
        let e = match backend {
            Backend::Cpu => bfs_in(&a, n, &BfsOptions::default()).map(|_| ()),
            _ => bfs_in(&upload(backend, &a, w), n, &BfsOptions::default()).map(|_| ()),
        };
        assert!(e.unwrap_err().to_string().contains("out of range"));
    }
}

test_device!(bfs_deep_wide_body, bfs_deep_and_wide, bfs_deep_and_wide_on_gpus);

/// A path of 40 arcs (more levels than a device batch) ending at a hub of
/// 1,100 leaves, one of which is a second hub of 1,030 (out-degrees past
/// 1024: their arcs in chunks), undirected; from the path's start, the
/// hub and a leaf, every direction and both index widths.
fn bfs_deep_wide_body(backend: Backend) {
    let (path, hub_leaves, hub2_leaves) = (40usize, 1100usize, 1030usize);
    let hub = path;
    let hub2 = hub + 1;
    let n = hub + 1 + hub_leaves + hub2_leaves;
    let mut arcs = Vec::new();
    let mut edge = |u: usize, v: usize| {
        arcs.push((u, v));
        arcs.push((v, u));
    };
    for u in 0..path {
        edge(u, u + 1);
    }
    for l in 0..hub_leaves {
        edge(hub, hub + 1 + l);
    }
    for l in 0..hub2_leaves {
        edge(hub2, hub + 1 + hub_leaves + l);
    }
    let a = pattern(n, arcs);
    for w in [IndexWidth::U32, IndexWidth::U64] {
        for direction in DIRECTIONS {
            let opts = BfsOptions { direction, ..BfsOptions::default() };
            bfs_case(backend, &a, &[0, hub, n - 1], &opts, w, &format!("deep and wide {direction:?}"));
        }
    }
}

test_device!(single_steps_body, single_steps_match_fused, single_steps_match_fused_on_gpus);

/// The single-step operations against the fused ones on the same place:
/// `vxm_visit` level by level (push and pull alternating) gives the
/// reference levels, and `relax_near` round by round the same queues and
/// distances as `relax_rounds`.
fn single_steps_body(backend: Backend) {
    match backend {
        Backend::Cpu => single_steps(&random(5, 3000, 12_000, true)),
        _ => single_steps(&upload(backend, &random(5, 3000, 12_000, true), IndexWidth::U32)),
    }
}

fn single_steps<M: VisitOp + RelaxOp>(d: &M) {
    let a = random(5, 3000, 12_000, true);
    let mut v = d.visited().unwrap();
    let mut frontier = d.visit_source(&mut v, 7).unwrap();
    let mut level = 0;
    while frontier.nodes > 0 {
        level += 1;
        let direction = if level % 2 == 0 { PushPull::Pull } else { PushPull::Push };
        frontier = vxm_visit(&mut v, d, level, &SpmspvOptions { direction, ..SpmspvOptions::default() }).unwrap();
    }
    assert_eq!(M::visited_to_host(&v).unwrap().0, bfs_levels_reference(&a, 7), "levels by single steps");
    let (mut one, mut fused) = (d.relaxed().unwrap(), d.relaxed().unwrap());
    for thr in [0.5, 2.0, 1e9] {
        d.relax_source(&mut one, 3).unwrap();
        d.relax_source(&mut fused, 3).unwrap();
        let mut rounds = 0;
        let q = loop {
            let q = relax_near(&mut one, d, thr).unwrap();
            rounds += 1;
            if q.near == 0 {
                break q;
            }
        };
        let (fq, frounds) = relax_rounds(&mut fused, d, thr).unwrap();
        // the rounds and the far queue depend on the order of the updates; what
        // they leave does not: the nodes below thr settled, the others lowered
        // from them (all on the far queue)
        let dist = M::distances_to_host(&one).unwrap();
        assert_eq!(dist, M::distances_to_host(&fused).unwrap(), "threshold {thr}");
        let far = dist.iter().filter(|&&x| x >= thr && x.is_finite()).count();
        assert!(fq.near == 0 && q.near == 0 && frounds >= 1 && rounds >= 1, "threshold {thr}");
        assert!(fq.far >= far && q.far >= far, "threshold {thr}: far {} {} < {far}", fq.far, q.far);
    }
}

test_device!(bfs_prop_body, bfs_proptest_random_graphs, bfs_proptest_random_graphs_on_gpus);

/// Random graphs (any arcs, self-loops and isolated nodes included), every
/// direction; the first source and a middle one.
fn bfs_prop_body(backend: Backend) {
    let mut runner = TestRunner::new(Config { cases: 24, failure_persistence: None, ..Config::default() });
    let graphs = (1usize..70).prop_flat_map(|n| (Just(n), proptest::collection::vec((0..n, 0..n), 0..4 * n)));
    runner
        .run(&graphs, |(n, arcs)| {
            let a = pattern(n, arcs);
            for direction in DIRECTIONS {
                let opts = BfsOptions { direction, ..BfsOptions::default() };
                bfs_case(backend, &a, &[0, n / 2], &opts, IndexWidth::U32, &format!("n {n} {direction:?}"));
            }
            Ok(())
        })
        .unwrap();
}

/// Triangles by enumerating node triples `i < j < k` of a symmetric pattern (self-loops ignored).
fn triangles_reference(a: &SparseMatrix<f64>) -> u64 {
    let n = a.nrows();
    let adj = |i: usize, j: usize| i != j && a.get(i, j).is_some();
    let mut t = 0;
    for i in 0..n {
        for j in a.row(i).0.iter().copied().filter(|&j| j > i) {
            t += (j + 1..n).filter(|&k| adj(i, k) && adj(j, k)).count() as u64;
        }
    }
    t
}

/// The triangles of the symmetric `a` on `backend` by each form.
fn triangles_case(backend: Backend, a: &SparseMatrix<f64>, w: IndexWidth, what: &str) {
    let want = triangles_reference(a);
    let l = lower_by_degree(a);
    let mask = MatrixMask::structural(&l);
    for form in [TriangleForm::Dot, TriangleForm::RowWise, TriangleForm::Auto] {
        let got = match backend {
            Backend::Cpu => triangles_in(&l, &mask, form).unwrap(),
            Backend::Cuda(i) => {
                let dev = GpuDevice::open(i).unwrap();
                let dl = DeviceMatrix::upload_with_width(&dev, &l, w).unwrap();
                let dm = DeviceMatrixMask::upload_with_width(&dev, &mask, w).unwrap();
                triangles_in(&dl, &dm, form).unwrap()
            }
            _ => unreachable!("a CPU or CUDA backend"),
        };
        assert_eq!(got, want, "{what} {form:?} on {backend:?}");
    }
}

test_device!(triangles_body, triangles_match_reference, triangles_match_reference_on_gpus);

fn triangles_body(backend: Backend) {
    for seed in 0..5u64 {
        let n = 40 + 30 * seed as usize;
        let a = random(seed, n, 3 * n + 40 * seed as usize, true);
        let w = if seed % 2 == 1 { IndexWidth::U64 } else { IndexWidth::U32 };
        triangles_case(backend, &a, w, &format!("seed {seed}"));
    }
    // a complete graph on 9 nodes: C(9, 3) triangles
    let (r, c): (Vec<usize>, Vec<usize>) = (0..81).map(|k| (k / 9, k % 9)).filter(|(i, j)| i != j).unzip();
    let k9 = SparseMatrix::try_from_triplets(9, 9, &r, &c, &vec![1.0; r.len()]).unwrap();
    assert_eq!(triangles_reference(&k9), 84);
    triangles_case(backend, &k9, IndexWidth::U32, "K9");
}

test_device!(masked_dot_body, reduce_mxm_rows_of_every_length, reduce_mxm_rows_of_every_length_on_gpus);

/// `reduce_mxm` by dot products, values read (`plus_times` on small
/// integers: sums exact in any order), over rows of every length class
/// (hubs of 200 entries, rows of 40–60, short rows of 5: a sorted merge,
/// a search of the shorter list into the longer, the host's marker, a
/// device warp sharing a dot product), with and without `Bᵀ`, against the
/// sum of every term.
fn masked_dot_body(backend: Backend) {
    let n = 300;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut entries = std::collections::BTreeMap::new();
    let mut mask_arcs = Vec::new();
    for i in 0..n {
        let len = [200, 60, 40, 5, 5, 5, 5, 5, 5, 5][i % 10];
        for _ in 0..len {
            entries.insert((i, rng.random_range(0..n)), rng.random_range(1..5) as f64);
        }
        for _ in 0..20 {
            mask_arcs.push((i, rng.random_range(0..n)));
        }
    }
    let (r, c): (Vec<usize>, Vec<usize>) = entries.keys().copied().unzip();
    let v: Vec<f64> = entries.values().copied().collect();
    let a = SparseMatrix::try_from_triplets(n, n, &r, &c, &v).unwrap();
    let m = pattern(n, mask_arcs);
    let mask = MatrixMask::structural(&m);
    let dense = a.to_dense_options();
    let at = |i: usize, j: usize| dense[i * n + j].unwrap_or(0.0);
    let s = PlusTimes::<f64>::new();
    for transpose in [false, true] {
        let desc = if transpose { Descriptor::DEFAULT.transpose_second() } else { Descriptor::DEFAULT };
        let mut want = 0.0;
        for i in 0..n {
            for &j in m.row(i).0 {
                want += (0..n).map(|k| at(i, k) * if transpose { at(j, k) } else { at(k, j) }).sum::<f64>();
            }
        }
        let got = match backend {
            Backend::Cpu => reduce_mxm(&mask, s, &a, &a, &desc, MxmMethod::Dot).unwrap(),
            Backend::Cuda(i) => {
                let dev = GpuDevice::open(i).unwrap();
                let da = DeviceMatrix::upload(&dev, &a).unwrap();
                let dm = DeviceMatrixMask::upload(&dev, &mask).unwrap();
                reduce_mxm(&dm, s, &da, &da, &desc, MxmMethod::Dot).unwrap()
            }
            _ => unreachable!("a CPU or CUDA backend"),
        };
        assert_eq!(got, want, "transpose {transpose} on {backend:?}");
    }
    // triangles of a dense graph with hubs (every row of L long)
    let mut arcs = Vec::new();
    for u in 0..160 {
        for _ in 0..[120, 50, 30, 30][u % 4] {
            let v = rng.random_range(0..160);
            arcs.extend([(u, v), (v, u)]);
        }
    }
    let a = pattern(160, arcs.into_iter().filter(|(u, v)| u != v).collect());
    triangles_case(backend, &a, IndexWidth::U32, "dense with hubs");
}

test_device!(triangles_prop_body, triangles_proptest_random_graphs, triangles_proptest_random_graphs_on_gpus);

fn triangles_prop_body(backend: Backend) {
    let mut runner = TestRunner::new(Config { cases: 24, failure_persistence: None, ..Config::default() });
    let graphs = (1usize..50).prop_flat_map(|n| (Just(n), proptest::collection::vec((0..n, 0..n), 0..5 * n)));
    runner
        .run(&graphs, |(n, edges)| {
            let a = pattern(n, edges.iter().flat_map(|&(u, v)| [(u, v), (v, u)]).collect());
            triangles_case(backend, &a, IndexWidth::U32, &format!("n {n}"));
            Ok(())
        })
        .unwrap();
}

/// Delta-stepping on `backend` with each `Δ` from each source (one state
/// per `Δ`, reused across sources), against Dijkstra (weights are multiples
/// of 1/4 or integers: every path sum is exact).
fn delta_case(backend: Backend, a: &SparseMatrix<f64>, sources: &[usize], w: IndexWidth, what: &str) {
    // the automatic Δ, a tiny one (threshold jumps), a middle one, a huge one (one bucket)
    for delta in [None, Some(0.01), Some(1.5), Some(1e9)] {
        let got: Vec<(Vec<f64>, usize)> = match backend {
            Backend::Cpu => {
                let mut ds = DeltaStepping::new(a, delta).unwrap();
                sources.iter().map(|&s| ds.run(a, s).map(|r| (r.distances, r.rounds)).unwrap()).collect()
            }
            _ => {
                let d = upload(backend, a, w);
                let mut ds = DeltaStepping::new(&d, delta).unwrap();
                sources.iter().map(|&s| ds.run(&d, s).map(|r| (r.distances, r.rounds)).unwrap()).collect()
            }
        };
        for (&s, (dist, rounds)) in sources.iter().zip(got) {
            assert_eq!(dist, dijkstra(a, s), "{what} Δ {delta:?} from {s} on {backend:?}");
            assert!(rounds >= 1, "{what}");
        }
    }
}

test_device!(delta_body, delta_stepping_matches_dijkstra, delta_stepping_matches_dijkstra_on_gpus);

fn delta_body(backend: Backend) {
    for seed in 0..4u64 {
        let n = 150 + 100 * seed as usize;
        let a = random(seed, n, 5 * n, seed % 2 == 0);
        let w = if seed % 2 == 1 { IndexWidth::U64 } else { IndexWidth::U32 };
        delta_case(backend, &a, &[0, n / 2], w, &format!("seed {seed}"));
    }
    // zero weights and a hub of out-degree >= 1024 (the grid-wide relaxation on a device)
    let n = 3000;
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut arcs = std::collections::BTreeMap::new();
    for j in 1..n {
        arcs.insert((0, j), rng.random_range(0..4) as f64);
        arcs.insert((j, (j * 7 + 1) % n), rng.random_range(0..3) as f64 * 0.5);
    }
    let (r, c): (Vec<usize>, Vec<usize>) = arcs.keys().copied().unzip();
    let v: Vec<f64> = arcs.values().copied().collect();
    let hub = SparseMatrix::try_from_triplets(n, n, &r, &c, &v).unwrap();
    delta_case(backend, &hub, &[0, 5], IndexWidth::U32, "hub");
    // a negative weight and a bad Δ are typed errors on every place
    let bad = SparseMatrix::try_from_triplets(3, 3, &[0, 1], &[1, 2], &[1.0, -2.0]).unwrap();
    let errors = match backend {
        Backend::Cpu => [DeltaStepping::new(&bad, None).err(), DeltaStepping::new(&hub, Some(0.0)).err()],
        _ => {
            let (db, dh) = (upload(backend, &bad, IndexWidth::U32), upload(backend, &hub, IndexWidth::U32));
            [DeltaStepping::new(&db, None).err(), DeltaStepping::new(&dh, Some(0.0)).err()]
        }
    };
    let [weight, delta] = errors.map(|e| e.expect("an error").to_string());
    assert!(weight.contains("-2") && weight.contains("1 -> 2"), "{weight}");
    assert!(delta.contains("bucket width"), "{delta}");
}

test_device!(delta_prop_body, delta_stepping_proptest_random_graphs, delta_stepping_proptest_random_graphs_on_gpus);

fn delta_prop_body(backend: Backend) {
    let mut runner = TestRunner::new(Config { cases: 24, failure_persistence: None, ..Config::default() });
    let graphs = (1usize..60).prop_flat_map(|n| (Just(n), proptest::collection::vec((0..n, 0..n, 0u32..12), 0..5 * n)));
    runner
        .run(&graphs, |(n, arcs)| {
            let set: std::collections::BTreeMap<(usize, usize), f64> =
                arcs.into_iter().map(|(u, v, w)| ((u, v), f64::from(w) / 4.0)).collect();
            let (r, c): (Vec<usize>, Vec<usize>) = set.keys().copied().unzip();
            let vals: Vec<f64> = set.values().copied().collect();
            let a = SparseMatrix::try_from_triplets(n, n, &r, &c, &vals).unwrap();
            delta_case(backend, &a, &[0, n - 1], IndexWidth::U32, &format!("n {n}"));
            Ok(())
        })
        .unwrap();
}
