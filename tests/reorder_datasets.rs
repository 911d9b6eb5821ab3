//! Reordering on the bundled data sets: PBR has no more non-empty tiles than
//! the natural and RCM orders on any graph, and the tile count agrees with
//! the octile packing the kernels use.

use kronograph::graph::io;
use kronograph::graph::reorder::{self, Method};
use kronograph::kron::Octiles;

fn data(rel: &str) -> String {
    format!("{}/data/{rel}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn pbr_has_fewest_tiles_on_bundled_sets() {
    for set in ["synthetic/NWS96", "synthetic/BA96", "MUTAG"] {
        let ds = io::load(data(set)).unwrap();
        // BA96 is the slowest (about 10 ms a graph): every fourth graph.
        let step = if set.ends_with("BA96") { 4 } else { 1 };
        let (mut natural, mut rcm, mut pbr) = (0, 0, 0);
        for (i, g) in ds.graphs.iter().enumerate().step_by(step) {
            let t = |m| reorder::tile_stats(g, &reorder::permutation(g, m)).unwrap().tiles;
            let (a, b, c) = (t(Method::Natural), t(Method::Rcm), t(Method::Pbr));
            assert!(c <= a && c <= b, "{set} graph {i}: pbr {c}, natural {a}, rcm {b}");
            (natural, rcm, pbr) = (natural + a, rcm + b, pbr + c);
        }
        // And strictly fewer over the whole set.
        assert!(pbr < rcm && pbr < natural, "{set}: pbr {pbr}, rcm {rcm}, natural {natural}");
    }
}

#[test]
fn tile_count_agrees_with_octile_packing() {
    let ds = io::load(data("MUTAG")).unwrap();
    for g in ds.graphs.iter().step_by(7) {
        for m in Method::ALL {
            let (h, p) = reorder::reorder(g, m);
            let packed = Octiles::<f64, _>::new(&h);
            let stats = reorder::tile_stats(g, &p).unwrap();
            assert_eq!(packed.tiles().len(), stats.tiles);
            assert_eq!(packed.entries().len(), stats.nonzeros);
        }
    }
}
