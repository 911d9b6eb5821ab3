//! The graphlet transform against brute-force enumeration (raw and net,
//! every orbit), on the SNAP graphs, and on edge cases; the brute-force and
//! SNAP checks on the CPU and on every GPU present.

use crate::device_common::test_device;
use kronograph::cuda::Backend;
use kronograph::graph::generate::{erdos_renyi_gnp, rmat, RmatParams};
use kronograph::graph::io::mtx;
use kronograph::graph::{Direction, Graph, GraphBuilder};
use kronograph::graphlets::transform::{self, raw_from_net_row};
use kronograph::graphlets::Primitives;
use kronograph::graphlets::{fglt, Fglt, ORBITS};
use proptest::prelude::*;
use rand::SeedableRng;

/// Orbit of each vertex of a connected graph on `k ≤ 4` vertices, given
/// its degrees (within the graph) and its number of edges.
fn orbit(k: usize, m: usize, deg: usize, degs: &[usize]) -> usize {
    match (k, m) {
        (1, _) => 0,
        (2, _) => 1,
        (3, 2) => [0, 2, 3][deg],
        (3, 3) => 4,
        (4, 3) if degs.contains(&3) => [0, 7, 0, 8][deg],   // claw
        (4, 3) => [0, 5, 6][deg],                           // 3-path
        (4, 4) if degs.contains(&3) => [0, 9, 10, 11][deg], // paw
        (4, 4) => 12,
        (4, 5) => [0, 0, 13, 14][deg],
        (4, 6) => 15,
        _ => unreachable!("({k}, {m})"),
    }
}

/// Whether the edges `es` (pairs of positions) connect all `k` positions.
fn connected(k: usize, es: &[(usize, usize)]) -> bool {
    let mut comp: Vec<usize> = (0..k).collect();
    fn root(c: &mut [usize], x: usize) -> usize {
        if c[x] == x {
            x
        } else {
            let r = root(c, c[x]);
            c[x] = r;
            r
        }
    }
    for &(a, b) in es {
        let (ra, rb) = (root(&mut comp, a), root(&mut comp, b));
        comp[ra] = rb;
    }
    (0..k).all(|x| root(&mut comp, x) == root(&mut comp, 0))
}

/// Brute force over all vertex sets of size 1–4: net counts from the
/// connected induced subgraphs, raw counts from every connected spanning
/// edge subset of them.
fn brute_force(n: usize, adj: &[Vec<bool>]) -> (Vec<[u64; ORBITS]>, Vec<[u64; ORBITS]>) {
    let mut raw = vec![[0u64; ORBITS]; n];
    let mut net = vec![[0u64; ORBITS]; n];
    let mut visit = |s: &[usize]| {
        let k = s.len();
        let mut es = Vec::new();
        for a in 0..k {
            for b in a + 1..k {
                if adj[s[a]][s[b]] {
                    es.push((a, b));
                }
            }
        }
        for mask in 0u32..(1 << es.len()) {
            let sub: Vec<(usize, usize)> = (0..es.len()).filter(|t| mask >> t & 1 == 1).map(|t| es[t]).collect();
            if !connected(k, &sub) {
                continue;
            }
            let mut degs = vec![0; k];
            for &(a, b) in &sub {
                degs[a] += 1;
                degs[b] += 1;
            }
            let induced = mask == (1 << es.len()) - 1;
            for a in 0..k {
                let o = orbit(k, sub.len(), degs[a], &degs);
                raw[s[a]][o] += 1;
                if induced {
                    net[s[a]][o] += 1;
                }
            }
        }
    };
    for a in 0..n {
        visit(&[a]);
        for b in a + 1..n {
            visit(&[a, b]);
            for c in b + 1..n {
                visit(&[a, b, c]);
                for d in c + 1..n {
                    visit(&[a, b, c, d]);
                }
            }
        }
    }
    (raw, net)
}

fn graph_of(n: usize, edges: &[(usize, usize)]) -> Graph {
    let mut b = GraphBuilder::<(), ()>::new(n, Direction::Undirected)
        .default_node_labels()
        .duplicates(kronograph::graph::Duplicates::KeepFirst);
    for &(u, v) in edges {
        b.push_edge(u, v, 1.0, ());
    }
    b.build().unwrap()
}

fn check_against_brute_force(backend: Backend, n: usize, edges: &[(usize, usize)]) {
    let g = graph_of(n, edges);
    let mut adj = vec![vec![false; n]; n];
    for &(u, v) in edges {
        if u != v {
            adj[u][v] = true;
            adj[v][u] = true;
        }
    }
    let (raw, net) = brute_force(n, &adj);
    let t = fglt(&g, backend).unwrap();
    for i in 0..n {
        assert_eq!(t.raw.row(i), &raw[i], "raw at vertex {i} of {edges:?}");
        assert_eq!(t.net.row(i), &net[i], "net at vertex {i} of {edges:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_orbit_matches_brute_force(n in 1usize..10, edges in proptest::collection::vec((0usize..10, 0usize..10), 0..30)) {
        let edges: Vec<(usize, usize)> = edges.into_iter().map(|(u, v)| (u % n, v % n)).collect();
        check_against_brute_force(Backend::Cpu, n, &edges);
    }
}

test_device!(dense_random_graphs, dense_random_graphs_match_brute_force, dense_random_graphs_match_brute_force_on_gpus);

fn dense_random_graphs(backend: Backend) {
    // denser than the proptest graphs: many diamonds and 4-cliques
    for seed in 0..6 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let g = erdos_renyi_gnp(11, 0.3 + 0.1 * seed as f64, &mut rng).unwrap();
        let edges: Vec<(usize, usize)> =
            (0..11).flat_map(|u| g.neighbors(u).iter().filter(move |&&v| v > u).map(move |&v| (u, v))).collect();
        check_against_brute_force(backend, 11, &edges);
    }
}

fn consistent(t: &Fglt) {
    for i in 0..t.raw.n {
        // the net counts are counts (no wrapped negative) and invert exactly
        assert!(t.net.row(i).iter().all(|&x| x < 1 << 62), "net counts at {i}: {:?}", t.net.row(i));
        assert_eq!(&raw_from_net_row(t.net.row(i)), t.raw.row(i), "d̂ = U f at {i}");
    }
}

test_device!(facebook, facebook_triangles_and_consistency, facebook_triangles_and_consistency_on_gpus);

fn facebook(backend: Backend) {
    let g = mtx::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/snap/facebook_combined.mtx")).unwrap();
    let t = fglt(&g, backend).unwrap();
    assert_eq!(t.raw.n, 4039);
    let tri: u64 = t.raw.column(4).iter().sum();
    assert_eq!(tri / 3, 1_612_010);
    assert_eq!(tri % 3, 0);
    assert_eq!(t.raw.column(1).iter().sum::<u64>(), 2 * 88_234);
    // each 4-cycle / 4-clique holds 4 vertices
    assert_eq!(t.raw.column(12).iter().sum::<u64>() % 4, 0);
    assert_eq!(t.raw.column(15).iter().sum::<u64>() % 4, 0);
    consistent(&t);
    assert_eq!(t.ignored.note(), None);
}

#[test]
fn rmat_is_consistent() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let g = rmat(&RmatParams::graph500(10), &mut rng).unwrap();
    consistent(&fglt(&g, Backend::Cpu).unwrap());
}

#[test]
fn empty_and_isolated_vertices() {
    let t = fglt(&graph_of(0, &[]), Backend::Cpu).unwrap();
    assert_eq!((t.raw.n, t.raw.data.len(), t.net.data.len()), (0, 0, 0));
    let t = fglt(&graph_of(3, &[]), Backend::Cpu).unwrap();
    for i in 0..3 {
        let mut e = [0u64; ORBITS];
        e[0] = 1;
        assert_eq!(t.raw.row(i), &e);
        assert_eq!(t.net.row(i), &e);
    }
    // an isolated vertex next to a triangle
    let t = fglt(&graph_of(4, &[(0, 1), (1, 2), (0, 2)]), Backend::Cpu).unwrap();
    assert_eq!(t.raw.row(3)[1..], [0; 15]);
    assert_eq!(t.net.row(0)[4], 1);
}

#[test]
fn self_loops_and_weights_are_ignored_with_a_note() {
    let g = GraphBuilder::<(), ()>::new(3, Direction::Undirected)
        .default_node_labels()
        .edge(0, 1, 2.5, ())
        .edge(1, 2, 1.0, ())
        .edge(1, 1, 1.0, ())
        .build()
        .unwrap();
    let t = fglt(&g, Backend::Cpu).unwrap();
    let plain = fglt(&graph_of(3, &[(0, 1), (1, 2)]), Backend::Cpu).unwrap();
    assert_eq!((&t.raw, &t.net), (&plain.raw, &plain.net));
    let note = t.ignored.note().unwrap();
    assert!(note.contains("1 self-loop") && note.contains("weights"), "{note}");
}

#[test]
fn directed_graphs_are_refused_with_a_hint() {
    let g =
        GraphBuilder::<(), ()>::new(2, Direction::Directed).default_node_labels().arc(0, 1, 1.0, ()).build().unwrap();
    let e = fglt(&g, Backend::Cpu).unwrap_err().to_string();
    assert!(e.contains("undirected") && e.contains("reverse arcs"), "{e}");
}

/// The primitives of a star of `k` leaves as both backends compute them
/// (wrapping `u64`): the centre (row 0) and three of its leaves.
fn star(k: u64) -> Primitives {
    let n = 4;
    let mut p = Primitives {
        d: vec![1; n],
        ad: vec![k; n],
        aad: vec![k; n],
        a_c2: vec![(u128::from(k - 1) * u128::from(k - 2) / 2) as u64; n],
        w1: vec![0; n],
        a_w1: vec![0; n],
        w_dm2: vec![0; n],
        w_c2: vec![0; n],
        aba: vec![0; n],
        c4: vec![0; n],
        k4: vec![0; n],
    };
    p.d[0] = k;
    p.ad[0] = k;
    p.aad[0] = k.wrapping_mul(k); // 2^66 for k = 2^33: wrapped, as u64 sums wrap
    p.a_c2[0] = 0;
    p
}

/// The star's counts against their closed forms while they fit; the
/// claw centre's `C(k, 3)` past `2^64` is an error naming vertex 0 and
/// orbit 8, not `C(k, 3) mod 2^64` (the 5,000,000 leaves).
#[test]
fn counts_beyond_64_bits_are_errors() {
    for k in [3u64, 10, 1000, 2_000_000] {
        let p = star(k);
        let order: Vec<usize> = (0..p.len()).collect();
        let (raw, net) = transform::assemble(&p, &order).unwrap();
        let c3 = u128::from(k) * u128::from(k - 1) * u128::from(k - 2) / 6;
        assert_eq!(u128::from(raw.row(0)[8]), c3);
        assert_eq!(u128::from(net.row(0)[8]), c3);
        assert_eq!(raw.row(0)[3], k * (k - 1) / 2);
        assert_eq!(raw.row(1)[7], (k - 1) * (k - 2) / 2);
        assert_eq!(net.row(1)[2], k - 1);
    }
    for k in [5_000_000u64, 1 << 31] {
        let p = star(k);
        // reversed order: position 0 (the centre) is vertex n - 1
        let n = p.len();
        let order: Vec<usize> = (0..n).rev().collect();
        let e = transform::assemble(&p, &order).unwrap_err();
        assert_eq!((e.position, e.orbit), (0, 8), "{k}: {e:?}");
        assert!(e.exact);
    }
    // a primitive that may have wrapped is caught by its bound: a vertex of
    // degree 2^33 next to one whose A·d is 2^64 - 1 has an A·A·d bounded
    // only by 2^97
    let mut p = star(1 << 33);
    p.ad[1] = u64::MAX;
    let e = transform::check_primitives(&p).unwrap_err();
    assert_eq!((e.position, e.orbit, e.exact), (0, 5, false));
}
