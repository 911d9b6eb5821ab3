use super::*;
use crate::basekernel::BaseKernel;
use crate::graph::{Direction, Graph, GraphBuilder};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// κ(a, b) = exp(−(a − b)²) on real edge labels.
#[derive(Clone, Debug)]
struct Gauss;
impl BaseKernel<f64> for Gauss {
    fn value(&self, a: &f64, b: &f64) -> f64 {
        (-(a - b) * (a - b)).exp()
    }
    fn range(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
}

fn random_graph(n: usize, p: f64, loops: bool, seed: u64) -> Graph<u8, f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labels = (0..n).map(|_| rng.random_range(0..3u8)).collect();
    let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(labels);
    for i in 0..n {
        for j in i..n {
            if (i != j || loops) && rng.random_bool(p) {
                b.push_edge(i, j, rng.random_range(0.5..2.0), rng.random_range(0.0..1.0));
            }
        }
    }
    b.build().unwrap()
}

/// Dense reference from the graphs themselves (not through the packing).
fn reference(g: &Graph<u8, f64>, h: &Graph<u8, f64>) -> Vec<f64> {
    let (n, m) = (g.num_nodes(), h.num_nodes());
    let d = n * m;
    let mut a = vec![0.0; d * d];
    for i in 0..n {
        for j in 0..n {
            let Some(k) = g.find_entry(i, j) else { continue };
            for ip in 0..m {
                for jp in 0..m {
                    let Some(kp) = h.find_entry(ip, jp) else { continue };
                    a[(i * m + ip) * d + j * m + jp] =
                        g.weights()[k] * h.weights()[kp] * Gauss.value(&g.edge_labels()[k], &h.edge_labels()[kp]);
                }
            }
        }
    }
    a
}

fn matvec(a: &[f64], x: &[f64]) -> Vec<f64> {
    let d = x.len();
    (0..d).map(|r| (0..d).map(|c| a[r * d + c] * x[c]).sum()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn kron_matches_dense(n in 1usize..20, m in 1usize..20, p in 0.05f64..0.6, seed in any::<u64>()) {
        let g = random_graph(n, p, true, seed);
        let h = random_graph(m, p, true, seed ^ 0xabc);
        let (pg, ph) = (Octiles::<f64, f64>::new(&g), Octiles::<f64, f64>::new(&h));
        let k = KronProduct::new(&pg, &ph, &Gauss).unwrap();
        let a = reference(&g, &h);
        prop_assert_eq!(k.to_dense().len(), a.len());
        for (u, v) in k.to_dense().iter().zip(&a) {
            prop_assert!((u - v).abs() <= 1e-14);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x: Vec<f64> = (0..n * m).map(|_| rng.random_range(-1.0..1.0)).collect();
        let y0: Vec<f64> = (0..n * m).map(|_| rng.random_range(-1.0..1.0)).collect();
        let mut y = y0.clone();
        k.apply_add(0.5, &x, &mut y);
        let ax = matvec(&a, &x);
        for r in 0..n * m {
            prop_assert!((y[r] - (y0[r] + 0.5 * ax[r])).abs() <= 1e-12);
        }
        // f32 agrees to f32 precision
        let (qg, qh) = (Octiles::<f32, f64>::new(&g), Octiles::<f32, f64>::new(&h));
        let k32 = KronProduct::new(&qg, &qh, &Gauss).unwrap();
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut y32 = vec![0f32; n * m];
        k32.apply_add(1.0, &x32, &mut y32);
        for r in 0..n * m {
            prop_assert!((y32[r] as f64 - ax[r]).abs() <= 1e-4 * (1.0 + ax[r].abs()));
        }
        // cached entry values give the same product
        let mut vals = Vec::new();
        k.edge_values(&mut vals);
        let mut yc = y0.clone();
        CachedKron::new(&k, &vals).unwrap().apply_add(0.5, &x, &mut yc);
        for r in 0..n * m {
            prop_assert!((yc[r] - y[r]).abs() <= 1e-12 * (1.0 + y[r].abs()));
        }
        // the edge-pair table gives the same product and diagonal
        let mut table = Vec::new();
        EdgePairKron::table(&pg, &ph, &Gauss, &mut table, &mut Vec::new());
        let ep = EdgePairKron::new(&pg, &ph, &table);
        let mut ye = y0.clone();
        ep.apply_add(0.5, &x, &mut ye);
        for r in 0..n * m {
            prop_assert!((ye[r] - y[r]).abs() <= 1e-12 * (1.0 + y[r].abs()));
        }
        let mut de = vec![0.0; n * m];
        ep.diagonal_add(1.0, &mut de);
        for r in 0..n * m {
            prop_assert!((de[r] - a[r * n * m + r]).abs() <= 1e-14);
        }
        // diagonal
        let mut d = vec![0.0; n * m];
        k.diagonal_add(1.0, &mut d);
        for r in 0..n * m {
            prop_assert!((d[r] - a[r * n * m + r]).abs() <= 1e-14);
        }
    }

    #[test]
    fn edge_pair_kron_directed_and_mixed(n in 1usize..16, m in 1usize..16, p in 0.05f64..0.8, seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut b = GraphBuilder::new(n, Direction::Directed).node_labels(vec![0u8; n]);
        for i in 0..n {
            for j in 0..n {
                if rng.random_bool(p) {
                    b.push_edge(i, j, rng.random_range(0.5..2.0), rng.random_range(0.0..1.0));
                }
            }
        }
        let g = b.build().unwrap();
        let h = random_graph(m, p, true, seed ^ 0x5eed);
        for (g, h) in [(&g, &h), (&h, &g), (&g, &g)] {
            let (pg, ph) = (Octiles::<f64, f64>::new(g), Octiles::<f64, f64>::new(h));
            let k = KronProduct::new(&pg, &ph, &Gauss).unwrap();
            let dense = k.to_dense();
            let d = k.dim();
            let x: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let ax = matvec(&dense, &x);
            let mut table = Vec::new();
            EdgePairKron::table(&pg, &ph, &Gauss, &mut table, &mut Vec::new());
            let mut y = vec![0.0; d];
            EdgePairKron::new(&pg, &ph, &table).apply_add(1.0, &x, &mut y);
            for r in 0..d {
                prop_assert!((y[r] - ax[r]).abs() <= 1e-12 * (1.0 + ax[r].abs()));
            }
        }
    }

    #[test]
    fn matched_kron_matches_masked_dense(n in 1usize..16, m in 1usize..16, seed in any::<u64>()) {
        let g = random_graph(n, 0.4, true, seed);
        let h = random_graph(m, 0.4, true, seed ^ 7);
        let cg: Vec<u32> = g.node_labels().iter().map(|&l| l as u32).collect();
        let ch: Vec<u32> = h.node_labels().iter().map(|&l| l as u32).collect();
        let (pg, ph) = (ClassPacking::<f64>::new(&g, &cg), ClassPacking::<f64>::new(&h, &ch));
        let k = MatchedKron::new(&pg, &ph);
        let (wg, wh) = (g.to_dense(), h.to_dense());
        let pairs: Vec<(usize, usize)> =
            (0..n).flat_map(|i| (0..m).map(move |ip| (i, ip))).filter(|&(i, ip)| cg[i] == ch[ip]).collect();
        prop_assert_eq!(pairs.len(), k.dim());
        let dense = k.to_dense();
        let d = k.dim();
        for &(i, ip) in &pairs {
            for &(j, jp) in &pairs {
                let r = k.index(i, ip).unwrap();
                let c = k.index(j, jp).unwrap();
                prop_assert!((dense[r * d + c] - wg[i * n + j] * wh[ip * m + jp]).abs() <= 1e-14);
            }
        }
        let x: Vec<f64> = (0..d).map(|v| (v as f64).sin()).collect();
        let mut y = vec![0.0; d];
        k.apply_add(1.0, &x, &mut y);
        let ax = matvec(&dense, &x);
        for r in 0..d {
            prop_assert!((y[r] - ax[r]).abs() <= 1e-12);
        }
        let mut diag = vec![0.0; d];
        k.diagonal_add(1.0, &mut diag);
        for r in 0..d {
            prop_assert!((diag[r] - dense[r * d + r]).abs() <= 1e-14);
        }
    }
}

#[test]
fn parallel_apply_matches_per_entry_loop() {
    // product dimension 400·400 > PAR_DIM: the row-block parallel path
    let g = random_graph(400, 0.01, true, 1);
    let h = random_graph(400, 0.01, false, 2);
    let (pg, ph) = (Octiles::<f64, f64>::new(&g), Octiles::<f64, f64>::new(&h));
    let k = KronProduct::new(&pg, &ph, &Gauss).unwrap();
    assert!(k.dim() >= super::product_par_dim());
    let x: Vec<f64> = (0..k.dim()).map(|v| ((v * 7919) % 1000) as f64 / 1000.0).collect();
    let mut y = vec![0.0; k.dim()];
    k.apply_add(1.0, &x, &mut y);
    let mut z = vec![0.0; k.dim()];
    let m = h.num_nodes();
    for i in 0..g.num_nodes() {
        for kk in g.row_range(i) {
            let j = g.indices()[kk];
            for ip in 0..m {
                for kp in h.row_range(ip) {
                    let jp = h.indices()[kp];
                    z[i * m + ip] += g.weights()[kk]
                        * h.weights()[kp]
                        * Gauss.value(&g.edge_labels()[kk], &h.edge_labels()[kp])
                        * x[j * m + jp];
                }
            }
        }
    }
    for (a, b) in y.iter().zip(&z) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()));
    }
}

#[test]
fn octiles_pack_tiles() {
    let g = random_graph(30, 0.3, true, 5);
    let p = Octiles::<f64, f64>::new(&g);
    assert_eq!(p.entries().len(), g.num_entries());
    let mut count = 0;
    for t in p.tiles() {
        assert_eq!(t.bitmap.count_ones(), t.len);
        for e in &p.entries()[p.tile_range(t)] {
            assert_eq!((e.row / 8, e.col / 8), (t.bi, t.bj));
            count += 1;
        }
    }
    assert_eq!(count, g.num_entries());
    assert!(p.fill() >= 1.0 && p.fill() <= 64.0);
    assert_eq!(p.self_loops().len(), g.self_loops());
}

#[test]
fn shifted_kron_is_diag_minus_product() {
    let g = random_graph(7, 0.5, true, 9);
    let h = random_graph(5, 0.5, true, 10);
    let (pg, ph) = (Octiles::<f64, f64>::new(&g), Octiles::<f64, f64>::new(&h));
    let k = KronProduct::new(&pg, &ph, &Unlabeled).unwrap();
    let d: Vec<f64> = (0..35).map(|v| 10.0 + v as f64).collect();
    let op = ShiftedKron::new(Diag::Vec(&d), 0.5, &k).unwrap();
    let dense = k.to_dense();
    let x: Vec<f64> = (0..35).map(|v| (v as f64).cos()).collect();
    let mut y = vec![0.0; 35];
    op.apply(&x, &mut y).unwrap();
    let ax = matvec(&dense, &x);
    for r in 0..35 {
        assert!((y[r] - (d[r] * x[r] - 0.5 * ax[r])).abs() < 1e-12);
    }
    let mut dg = vec![];
    assert!(op.diagonal(&mut dg).unwrap());
    for r in 0..35 {
        assert!((dg[r] - (d[r] - 0.5 * dense[r * 35 + r])).abs() < 1e-14);
    }
}

/// κ ≡ 1 but with a declared range of [0, 1]: forces the tiled path.
#[derive(Clone, Debug)]
struct OneTiled;
impl<E> BaseKernel<E> for OneTiled {
    fn value(&self, _a: &E, _b: &E) -> f64 {
        1.0
    }
    fn range(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn factorized_matches_tiled(n in 0usize..20, m in 0usize..20, seed in any::<u64>(), directed in any::<bool>()) {
        let dir = if directed { Direction::Directed } else { Direction::Undirected };
        let mk = |n: usize, s: u64| {
            let mut rng = ChaCha8Rng::seed_from_u64(s);
            let mut b = GraphBuilder::<u8, f64>::new(n, dir).node_labels(vec![0; n]);
            for i in 0..n {
                for j in 0..n {
                    if (directed || j >= i) && rng.random_bool(0.3) {
                        b.push_edge(i, j, rng.random_range(0.5..2.0), 0.0);
                    }
                }
            }
            b.build().unwrap()
        };
        let (g, h) = (mk(n, seed), mk(m, seed ^ 5));
        let (pg, ph) = (Octiles::<f64, f64>::new(&g), Octiles::<f64, f64>::new(&h));
        let fast = KronProduct::new(&pg, &ph, &Unlabeled).unwrap();
        let slow = KronProduct::new(&pg, &ph, &OneTiled).unwrap();
        prop_assert!(fast.is_factorized() && !slow.is_factorized());
        let x: Vec<f64> = (0..n * m).map(|v| (v as f64 * 0.37).sin()).collect();
        let (mut y1, mut y2) = (vec![1.0; n * m], vec![1.0; n * m]);
        fast.apply_add(-0.7, &x, &mut y1);
        slow.apply_add(-0.7, &x, &mut y2);
        for (a, b) in y1.iter().zip(&y2) {
            prop_assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()));
        }
    }
}

#[test]
fn factorized_parallel_matches_tiled() {
    let g = random_graph(400, 0.01, true, 3);
    let h = random_graph(400, 0.01, true, 4);
    let (pg, ph) = (Octiles::<f64, f64>::new(&g), Octiles::<f64, f64>::new(&h));
    let fast = KronProduct::new(&pg, &ph, &Unlabeled).unwrap();
    let slow = KronProduct::new(&pg, &ph, &OneTiled).unwrap();
    let x: Vec<f64> = (0..fast.dim()).map(|v| (v as f64 * 0.11).cos()).collect();
    let (mut y1, mut y2) = (vec![0.0; fast.dim()], vec![0.0; fast.dim()]);
    fast.apply_add(1.0, &x, &mut y1);
    slow.apply_add(1.0, &x, &mut y2);
    for (a, b) in y1.iter().zip(&y2) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()));
    }
}

/// A random graph with `u8` edge labels in `0..classes` (undirected with
/// self-loops, or directed).
fn random_class_graph(n: usize, p: f64, classes: u8, directed: bool, seed: u64) -> Graph<u8, u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let dir = if directed { Direction::Directed } else { Direction::Undirected };
    let mut b = GraphBuilder::new(n, dir).node_labels(vec![0u8; n]);
    for i in 0..n {
        for j in if directed { 0 } else { i }..n {
            if rng.random_bool(p) {
                b.push_edge(i, j, rng.random_range(0.5..2.0), rng.random_range(0..classes));
            }
        }
    }
    b.build().unwrap()
}

/// `LowRankKron` against the edge-pair table (κe evaluated per pair) for one kernel.
fn check_low_rank<K: BaseKernel<u8>>(
    k: &K,
    g: &Graph<u8, u8>,
    h: &Graph<u8, u8>,
    seed: u64,
) -> Result<(), TestCaseError> {
    let (pg, ph) = (Octiles::<f64, u8>::new(g), Octiles::<f64, u8>::new(h));
    let lr = LowRankKron::for_kernel(&pg, &ph, k).expect("a low-rank kernel");
    let mut table = Vec::new();
    EdgePairKron::table(&pg, &ph, k, &mut table, &mut Vec::new());
    let full = EdgePairKron::new(&pg, &ph, &table);
    let d = full.dim();
    prop_assert_eq!(lr.dim(), d);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let (mut want, mut got) = (vec![0.5; d], vec![0.5; d]);
    full.apply_add(-0.7, &x, &mut want);
    lr.apply_add(-0.7, &x, &mut got);
    let scale = want.iter().fold(1.0f64, |s, v| s.max(v.abs()));
    for r in 0..d {
        prop_assert!((got[r] - want[r]).abs() <= 1e-12 * scale, "{k:?} at {r}: {} vs {}", got[r], want[r]);
    }
    let (mut dw, mut dg) = (vec![1.0; d], vec![1.0; d]);
    full.diagonal_add(2.0, &mut dw);
    lr.diagonal_add(2.0, &mut dg);
    for r in 0..d {
        prop_assert!((dg[r] - dw[r]).abs() <= 1e-12 * (1.0 + dw[r].abs()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn low_rank_matches_edge_pair_table(
        n in 0usize..18, m in 0usize..18, p in 0.05f64..0.7, classes in 1u8..6, h in 0.0f64..1.0,
        directed in any::<bool>(), seed in any::<u64>(),
    ) {
        use crate::basekernel::{Constant, KroneckerDelta};
        let g = random_class_graph(n, p, classes, directed, seed);
        let hh = random_class_graph(m, p, classes, directed, seed ^ 0x10);
        let delta = KroneckerDelta::new(h);
        check_low_rank(&delta, &g, &hh, seed)?;
        check_low_rank(&Constant::new(0.3), &g, &hh, seed)?;
        check_low_rank(&(KroneckerDelta::new(0.5) * Constant::new(0.8) * delta), &g, &hh, seed)?;
        check_low_rank(&(0.5 * delta + KroneckerDelta::new(0.2) * KroneckerDelta::new(0.9)), &g, &hh, seed)?;
        check_low_rank(&delta, &hh, &g, seed)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// The SIMD edge-pair product (SELL-8 packing, gathered rows) against the
    /// dense matrix, on undirected graphs with self-loops, directed ones and
    /// mixed pairs, sizes around the chunk width; its diagonal; the
    /// instruction-set builds against the portable loop (same bits); f32.
    #[test]
    fn sell_kron_matches_dense(n in 1usize..20, m in 1usize..20, p in 0.05f64..0.8, seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut b = GraphBuilder::new(n, Direction::Directed).node_labels(vec![0u8; n]);
        for i in 0..n {
            for j in 0..n {
                if rng.random_bool(p) {
                    b.push_edge(i, j, rng.random_range(0.5..2.0), rng.random_range(0.0..1.0));
                }
            }
        }
        let directed = b.build().unwrap();
        let g = random_graph(n, p, true, seed ^ 0x5e11);
        let h = random_graph(m, p, true, seed ^ 0xce11);
        for (g, h) in [(&g, &h), (&directed, &h), (&h, &directed), (&directed, &directed)] {
            let (pg, ph) = (Octiles::<f64, f64>::new(g), Octiles::<f64, f64>::new(h));
            let dense = KronProduct::new(&pg, &ph, &Gauss).unwrap().to_dense();
            let d = pg.num_nodes() * ph.num_nodes();
            let x: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let y0: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let ax = matvec(&dense, &x);
            let pat = SellPattern::new(&ph);
            let (mut table, mut scratch, mut row) = (Vec::new(), Vec::new(), Vec::new());
            SellKron::table(&pg, &ph, &pat, &Gauss, &mut table, &mut scratch, &mut row);
            let k = SellKron::new(&pg, &pat, &table, Vec::new());
            let mut y = y0.clone();
            k.apply_add(0.5, &x, &mut y);
            for r in 0..d {
                prop_assert!((y[r] - (y0[r] + 0.5 * ax[r])).abs() <= 1e-12 * (1.0 + ax[r].abs()));
            }
            let mut yp = y0.clone();
            k.apply_portable(0.5, &x, &mut yp);
            prop_assert_eq!(&yp, &y);
            // CG's direction step p ← z + βp, q ← (D − A×) p, pᵀq: fused as the three operations, same bits
            let dv: Vec<f64> = (0..d).map(|_| rng.random_range(1.0..3.0)).collect();
            let z: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let op = ShiftedKron::new(Diag::Vec(&dv), 1.0, &k).unwrap();
            let (mut p1, mut q1, mut p2, mut q2) = (x.clone(), vec![0.0; d], x.clone(), vec![0.0; d]);
            let pq1 = op.xpay_apply_dot(Some((&z, 0.375)), &mut p1, &mut q1).unwrap();
            crate::solver::Vector::xpay(&mut p2, &z, 0.375);
            op.apply(&p2, &mut q2).unwrap();
            let pq2 = crate::solver::Vector::dot(&p2, &q2);
            prop_assert_eq!((&p1, &q1, pq1.to_bits()), (&p2, &q2, pq2.to_bits()));
            let ap = matvec(&dense, &p2);
            for r in 0..d {
                prop_assert!((q1[r] - (dv[r] * p2[r] - ap[r])).abs() <= 1e-12 * (1.0 + ap[r].abs() + dv[r] * p2[r].abs()));
            }
            let mut diag = vec![0.0; d];
            k.diagonal_add(1.0, &mut diag);
            for r in 0..d {
                prop_assert!((diag[r] - dense[r * d + r]).abs() <= 1e-14);
            }
            let (qg, qh) = (Octiles::<f32, f64>::new(g), Octiles::<f32, f64>::new(h));
            let qpat = SellPattern::new(&qh);
            let (mut qtable, mut qrow) = (Vec::new(), Vec::new());
            SellKron::table(&qg, &qh, &qpat, &Gauss, &mut qtable, &mut scratch, &mut qrow);
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let mut y32 = vec![0f32; d];
            SellKron::new(&qg, &qpat, &qtable, Vec::new()).apply_add(1.0, &x32, &mut y32);
            for r in 0..d {
                prop_assert!((y32[r] as f64 - ax[r]).abs() <= 1e-4 * (1.0 + ax[r].abs()));
            }
        }
    }
}

/// Record-labelled graphs: a path `0 – 1 – 2` whose bonds have an integer
/// `label` and a real `length`.
fn record_path(labels: [i64; 2]) -> Graph<(), crate::graph::Record> {
    use crate::graph::{FieldKind, Record, Schema, Value};
    let s = std::sync::Arc::new(Schema::new().with("label", FieldKind::Int).with("length", FieldKind::Float));
    let r = |l: i64, len: f64| Record::new(s.clone(), [Value::Int(l), Value::Float(len)]).unwrap();
    GraphBuilder::new(3, Direction::Undirected)
        .node_labels(vec![(); 3])
        .edge(0, 1, 1.0, r(labels[0], 1.2))
        .edge(1, 2, 1.0, r(labels[1], 1.5))
        .build()
        .unwrap()
}

/// A kernel on a field the labels do not have is refused by
/// `KronProduct::new` with the field's name (never the silent default of an
/// unbound field), for a `Field` and for an `ExprKernel`; a correct field
/// gives the dense reference to 1e-15.
#[test]
fn kron_product_binds_record_kernels() {
    use crate::basekernel::expr::{x, y};
    use crate::basekernel::{ExprKernel, Field, KernelError, KroneckerDelta};
    use crate::graph::LabelError;
    let (g, h) = (record_path([1, 2]), record_path([1, 1]));
    let (pg, ph) = (Octiles::<f64, _>::new(&g), Octiles::<f64, _>::new(&h));
    let bad = Field::new("lable", KroneckerDelta::new(0.5));
    match KronProduct::new(&pg, &ph, &bad) {
        Err(KernelError::Label(LabelError::UnknownField { name, available })) => {
            assert_eq!(name, "lable");
            assert!(available.contains("label"), "{available}");
        }
        other => panic!("expected UnknownField, got {:?}", other.map(|_| ())),
    }
    let expr = ExprKernel::new((-(x("charge") - y("charge")).abs()).exp()).unwrap();
    let e = KronProduct::new(&pg, &ph, &expr).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("charge"), "{e}");
    // the inherent `bind` needs no turbofish (ExprKernel is a kernel on every label type)
    let schema = crate::graph::Label::schema(&pg.labels()[0]).unwrap().clone();
    let mut unbound = expr.clone();
    assert!(unbound.bind(&schema).is_err());
    let (lo, hi) = unbound.range();
    assert!(lo >= 0.0 && hi <= 1.0, "{lo} {hi}");
    // the right field: 1ᵀ A× 1 = Σ over edge pairs of κ (4 directed entries each)
    let good = Field::new("label", KroneckerDelta::new(0.5));
    let k = KronProduct::new(&pg, &ph, &good).unwrap();
    let mut out = vec![0.0; 9];
    k.apply_add(1.0, &[1.0; 9], &mut out);
    let total: f64 = out.iter().sum();
    // G's bonds (1, 2) against H's (1, 1): κ = 1, 1, 0.5, 0.5; each pair of
    // undirected edges gives 4 entries of the product
    assert!((total - 4.0 * 3.0).abs() < 1e-15, "{total}");
    let expr = ExprKernel::new((-(x("length") - y("length")).abs()).exp()).unwrap();
    assert!(KronProduct::new(&pg, &ph, &expr).is_ok());
}

/// Constructor checks are typed errors, not panics.
#[test]
fn shifted_and_cached_sizes_are_errors() {
    let g = random_graph(4, 0.6, false, 3);
    let pg = Octiles::<f64, f64>::new(&g);
    let k = KronProduct::new(&pg, &pg, &Gauss).unwrap();
    let short = vec![1.0; 15];
    match ShiftedKron::new(Diag::Vec(&short), 1.0, &k) {
        Err(SolverError::DimensionMismatch { expected: 16, found: 15, .. }) => {}
        other => panic!("expected DimensionMismatch, got {:?}", other.map(|_| ()).err()),
    }
    let e = CachedKron::new(&k, &[1.0]).map(|_| ()).unwrap_err();
    assert!(matches!(e, SolverError::DimensionMismatch { found: 1, .. }), "{e}");
}
