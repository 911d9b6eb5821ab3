//! Tile statistics against a dense brute-force count; RCM bandwidth; PBR
//! part sizes and tile counts against the natural and RCM orders.

use kronograph::graph::generate;
use kronograph::graph::reorder::{self, Method, PbrParams, Permutation, TileStats, TILE};
use kronograph::graph::{Direction, Duplicates, Graph, GraphBuilder};
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn perm_from_keys(keys: &[u32]) -> Permutation {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| (keys[i], i));
    Permutation::from_order(order).unwrap()
}

fn graph(n: usize, edges: &[(usize, usize)], directed: bool) -> Graph {
    let dir = if directed { Direction::Directed } else { Direction::Undirected };
    let mut b = GraphBuilder::<(), ()>::new(n, dir).default_node_labels().duplicates(Duplicates::KeepFirst);
    for &(u, v) in edges {
        b.push_edge(u % n, v % n, 1.0, ());
    }
    b.build().unwrap()
}

/// Non-empty 8×8 blocks of the dense adjacency, counted block by block.
fn dense_tiles(h: &Graph) -> (usize, usize) {
    let n = h.num_nodes();
    let d = h.to_dense();
    let nb = n.div_ceil(TILE);
    let (mut tiles, mut nnz) = (0, 0);
    for bi in 0..nb {
        for bj in 0..nb {
            let mut c = 0;
            for i in bi * TILE..((bi + 1) * TILE).min(n) {
                for j in bj * TILE..((bj + 1) * TILE).min(n) {
                    c += (d[i * n + j] != 0.0) as usize;
                }
            }
            tiles += (c > 0) as usize;
            nnz += c;
        }
    }
    (tiles, nnz)
}

fn pbr_only(g: &Graph) -> Permutation {
    let part = reorder::pbr_partition(g, &PbrParams { multi_start: false, ..Default::default() });
    let mut order: Vec<usize> = (0..g.num_nodes()).collect();
    order.sort_by_key(|&v| (part[v], v));
    Permutation::from_order(order).unwrap()
}

proptest! {
    #[test]
    fn tile_count_matches_dense_count(
        n in 0usize..45,
        edges in proptest::collection::vec((0usize..45, 0usize..45), 0..150),
        directed in any::<bool>(),
        keys in proptest::collection::vec(any::<u32>(), 45),
    ) {
        let n = n.max(1);
        let g = graph(n, &edges, directed);
        let p = perm_from_keys(&keys[..n]);
        let s = reorder::tile_stats(&g, &p).unwrap();
        let (tiles, nnz) = dense_tiles(&p.apply(&g).unwrap());
        prop_assert_eq!(s.tiles, tiles);
        prop_assert_eq!(s.nonzeros, nnz);
        prop_assert_eq!((s.graphs, s.nodes), (1, n));
        prop_assert_eq!(reorder::tile_stats_natural(&g), TileStats { graphs: 1, nodes: n, nonzeros: nnz, tiles: dense_tiles(&g).0 });
        if tiles > 0 {
            prop_assert!((1.0..=64.0).contains(&s.density()));
        }
        // Every method's order is counted the same way.
        for m in Method::ALL {
            let q = reorder::permutation(&g, m);
            prop_assert_eq!(reorder::tile_stats(&g, &q).unwrap().tiles, dense_tiles(&q.apply(&g).unwrap()).0);
        }
    }
}

#[test]
fn empty_graphs_have_no_tiles() {
    let g = graph(5, &[], false);
    let s = reorder::tile_stats_natural(&g);
    assert_eq!((s.tiles, s.nonzeros, s.density()), (0, 0, 0.0));
    let stats = reorder::stats::<(), ()>(&[], &Method::ALL);
    assert_eq!(stats.len(), 3);
    assert!(stats.iter().all(|s| s.tiles == TileStats::default()));
}

/// A connected graph with edges only within bandwidth `b`, then shuffled:
/// RCM recovers a small bandwidth.
#[test]
fn rcm_recovers_a_band() {
    for seed in 0..20u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (n, b) = (60 + rng.random_range(0..60), 1 + rng.random_range(0..4));
        let mut edges: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
        for i in 0..n {
            for j in i + 2..(i + b + 1).min(n) {
                if rng.random_bool(0.4) {
                    edges.push((i, j));
                }
            }
        }
        let banded = graph(n, &edges, false);
        let mut shuffle: Vec<usize> = (0..n).collect();
        shuffle.shuffle(&mut rng);
        let g = banded.permute(&shuffle).unwrap();
        let id = Permutation::identity(n);
        let natural = reorder::bandwidth(&g, &id).unwrap();
        let rcm = reorder::bandwidth(&g, &reorder::rcm(&g)).unwrap();
        assert!(rcm <= natural, "seed {seed}: rcm {rcm} > natural {natural}");
        assert!(rcm <= 2 * b, "seed {seed}: rcm bandwidth {rcm} for a band of {b}");
        // And RCM does not spoil the band of the unshuffled graph.
        let rcm0 = reorder::bandwidth(&banded, &reorder::rcm(&banded)).unwrap();
        assert!(rcm0 <= 2 * reorder::bandwidth(&banded, &id).unwrap());
    }
}

#[test]
fn rcm_handles_components_and_isolated_nodes() {
    // Two paths and two isolated nodes, interleaved ids.
    let g = graph(10, &[(0, 2), (2, 4), (4, 6), (1, 3), (3, 5)], false);
    let p = reorder::rcm(&g);
    assert_eq!(reorder::bandwidth(&g, &p).unwrap(), 1);
}

/// The PBR order lists parts of exactly 8 nodes (the last one smaller).
#[test]
fn pbr_order_is_its_partition() {
    for seed in 0..10u64 {
        for n in [1, 7, 8, 9, 64, 95, 96, 101] {
            let g = generate::erdos_renyi_gnp(n, 0.1, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
            let params = PbrParams::default();
            let part = reorder::pbr_partition(&g, &params);
            let p = reorder::pbr(&g);
            for (k, chunk) in p.old_of_new().chunks(TILE).enumerate() {
                assert!(chunk.iter().all(|&v| part[v] == k));
                assert_eq!(
                    chunk.len(),
                    if k + 1 < n.div_ceil(TILE) { TILE } else { n - TILE * (n.div_ceil(TILE) - 1) }
                );
            }
        }
    }
}

fn sets() -> Vec<(&'static str, Vec<Graph>)> {
    let rng = |s| ChaCha8Rng::seed_from_u64(s);
    vec![
        (
            "NWS(96, 3, 0.1)",
            (0..12).map(|s| generate::newman_watts_strogatz(96, 3, 0.1, &mut rng(s)).unwrap()).collect(),
        ),
        ("BA(96, 6)", (0..12).map(|s| generate::barabasi_albert(96, 6, &mut rng(s)).unwrap()).collect()),
        ("G(150, 0.03)", (0..12).map(|s| generate::erdos_renyi_gnp(150, 0.03, &mut rng(s)).unwrap()).collect()),
    ]
}

/// PBR never has more tiles than the natural or the RCM order, graph by graph.
#[test]
fn pbr_has_fewest_tiles_on_generated_sets() {
    for (name, set) in sets() {
        for (i, g) in set.iter().enumerate() {
            let t = |m| reorder::tile_stats(g, &reorder::permutation(g, m)).unwrap().tiles;
            let (natural, rcm, pbr) = (t(Method::Natural), t(Method::Rcm), t(Method::Pbr));
            assert!(pbr <= natural && pbr <= rcm, "{name} #{i}: pbr {pbr}, natural {natural}, rcm {rcm}");
        }
        let st = reorder::stats(&set, &Method::ALL);
        assert_eq!(st.iter().map(|s| s.method).collect::<Vec<_>>(), Method::ALL);
        assert!(st.iter().all(|s| s.tiles.graphs == set.len() && s.seconds >= 0.0));
        assert!(st[2].tiles.density() >= st[0].tiles.density());
    }
}

/// The bisection alone (no RCM or natural start) already beats the natural
/// order on every set and RCM on the sets that are not near one-dimensional.
#[test]
fn pbr_bisection_alone() {
    for (name, set) in sets() {
        let sum = |f: &dyn Fn(&Graph) -> Permutation| -> usize {
            set.iter().map(|g| reorder::tile_stats(g, &f(g)).unwrap().tiles).sum()
        };
        let natural = sum(&|g| Permutation::identity(g.num_nodes()));
        let rcm = sum(&|g| reorder::rcm(g));
        let pbr = sum(&pbr_only);
        assert!(pbr < natural, "{name}: bisection-only pbr {pbr} vs natural {natural}");
        if !name.starts_with("NWS") {
            assert!(pbr < rcm, "{name}: bisection-only pbr {pbr} vs rcm {rcm}");
        }
    }
}
