//! BFS, SSSP and connected components against plain reference algorithms.

use kronograph::algorithms::*;
use kronograph::graph::{Direction, Duplicates, Graph, GraphBuilder};
use kronograph::matrix::MergeStrategy;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

fn random_graph(seed: u64, directed: bool, weighted: bool) -> Graph {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = rng.random_range(1..60usize);
    let m = rng.random_range(0..3 * n);
    let dir = if directed { Direction::Directed } else { Direction::Undirected };
    let mut b = GraphBuilder::<(), ()>::new(n, dir).default_node_labels().duplicates(Duplicates::KeepFirst);
    for _ in 0..m {
        let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
        let w = if weighted { rng.random_range(0.0..10.0f64).round() / 4.0 + 0.1 } else { 1.0 };
        b.push_edge(u, v, w, ());
    }
    b.build().unwrap()
}

/// A plain queue BFS.
fn queue_bfs(g: &Graph, s: usize) -> Vec<i64> {
    let mut level = vec![-1i64; g.num_nodes()];
    level[s] = 0;
    let mut q = VecDeque::from([s]);
    while let Some(u) = q.pop_front() {
        for &v in g.neighbors(u) {
            if level[v] < 0 {
                level[v] = level[u] + 1;
                q.push_back(v);
            }
        }
    }
    level
}

fn dijkstra(g: &Graph, s: usize) -> Vec<f64> {
    let mut d = vec![f64::INFINITY; g.num_nodes()];
    d[s] = 0.0;
    let mut heap = BinaryHeap::from([(Reverse(0u64), s)]);
    while let Some((Reverse(dk), u)) = heap.pop() {
        if f64::from_bits(dk) > d[u] {
            continue;
        }
        for k in g.row_range(u) {
            let v = g.indices()[k];
            let nd = d[u] + g.weights()[k];
            if nd < d[v] {
                d[v] = nd;
                heap.push((Reverse(nd.to_bits()), v));
            }
        }
    }
    d
}

fn check_bfs(g: &Graph, s: usize, r: &BfsResult) -> Result<(), TestCaseError> {
    let want = queue_bfs(g, s);
    prop_assert_eq!(&r.levels, &want);
    prop_assert_eq!(r.reached, want.iter().filter(|&&l| l >= 0).count());
    prop_assert_eq!(r.depth as i64, *want.iter().max().unwrap());
    prop_assert_eq!(r.parents[s], s as i64);
    for v in 0..g.num_nodes() {
        if v == s {
            continue;
        }
        if want[v] < 0 {
            prop_assert_eq!(r.parents[v], -1);
        } else {
            let p = r.parents[v] as usize;
            prop_assert_eq!(want[p], want[v] - 1, "parent one level up");
            prop_assert!(g.find_entry(p, v).is_some(), "parent is adjacent");
            // the smallest such parent (the documented, deterministic choice)
            let first = (0..g.num_nodes()).find(|&u| want[u] == want[v] - 1 && g.find_entry(u, v).is_some());
            prop_assert_eq!(Some(p), first);
        }
    }
    let arcs: usize = (0..g.num_nodes()).filter(|&v| want[v] >= 0).map(|v| g.out_degree(v)).sum();
    prop_assert_eq!(r.arcs_in_component, arcs);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bfs_matches_queue_bfs(seed: u64, directed: bool) {
        let g = random_graph(seed, directed, false);
        let s = (seed as usize) % g.num_nodes();
        let mut first = None;
        for direction in [BfsDirection::Push, BfsDirection::Pull, BfsDirection::Auto { alpha: 14.0, beta: 24.0 }, BfsDirection::Auto { alpha: 0.5, beta: 2.0 }] {
            for strategy in [MergeStrategy::Scatter, MergeStrategy::MergeSort, MergeStrategy::RadixSort] {
                let r = bfs(&g, s, &BfsOptions { direction, strategy }).unwrap();
                check_bfs(&g, s, &r)?;
                let (levels, parents) = (r.levels.clone(), r.parents.clone());
                match &first {
                    None => first = Some((levels, parents)),
                    Some(f) => prop_assert_eq!(f, &(levels, parents)),
                }
            }
        }
    }

    #[test]
    fn sssp_matches_dijkstra(seed: u64, directed: bool) {
        let g = random_graph(seed, directed, true);
        let s = (seed as usize) % g.num_nodes();
        let r = sssp(&g, s).unwrap();
        let want = dijkstra(&g, s);
        for (a, b) in r.distances.iter().zip(&want) {
            if b.is_infinite() {
                prop_assert!(a.is_infinite());
            } else {
                prop_assert!((a - b).abs() <= 1e-9 * b.max(1.0), "{} vs {}", a, b);
            }
        }
    }

    #[test]
    fn components_match_union_find(seed: u64) {
        let g = random_graph(seed, false, false);
        let n = g.num_nodes();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while p[r] != r { r = p[r]; }
            p[x] = r;
            r
        }
        for u in 0..n {
            for &v in g.neighbors(u) {
                let (a, b) = (find(&mut parent, u), find(&mut parent, v));
                if a != b { parent[a.max(b)] = a.min(b); }
            }
        }
        let c = connected_components(&g).unwrap();
        let mut count = 0;
        for v in 0..n {
            // labels are the smallest id of the component
            let root = find(&mut parent, v);
            let smallest = (0..n).find(|&u| find(&mut parent, u) == root).unwrap();
            prop_assert_eq!(c.labels[v], smallest);
            count += (smallest == v) as usize;
        }
        prop_assert_eq!(c.count, count);
    }
}

#[test]
fn bfs_errors_and_trivial_cases() {
    let g = random_graph(3, false, false);
    let n = g.num_nodes();
    assert!(matches!(bfs(&g, n, &BfsOptions::default()), Err(AlgorithmError::SourceOutOfRange { .. })));
    assert!(matches!(sssp(&g, n + 5), Err(AlgorithmError::SourceOutOfRange { .. })));
    let lonely = GraphBuilder::<(), ()>::new(3, Direction::Undirected).default_node_labels().build().unwrap();
    let r = bfs(&lonely, 1, &BfsOptions::default()).unwrap();
    assert_eq!((r.levels, r.reached, r.depth), (vec![-1, 0, -1], 1, 0));
    let d = GraphBuilder::<(), ()>::new(3, Direction::Directed).default_node_labels().build().unwrap();
    assert!(connected_components(&d).is_err());
}

#[test]
fn bfs_on_facebook_switches_direction() {
    let g = kronograph::graph::io::mtx::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/snap/facebook_combined.mtx"))
        .unwrap();
    let r = bfs(&g, 0, &BfsOptions::default()).unwrap();
    assert_eq!(r.levels, queue_bfs(&g, 0));
    assert_eq!(r.reached, 4039, "facebook_combined is connected");
    assert!(r.pulled.iter().any(|&p| p) && r.pulled.iter().any(|&p| !p), "{:?}", r.pulled);
    assert_eq!(connected_components(&g).unwrap().count, 1);
}
