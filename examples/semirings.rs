//! Three algorithms as semiring products: shortest paths over (min, +),
//! triangles by a masked (plus, pair) mxm, and a matrix–vector product over
//! the field GF(2^8). Each is checked against a plain loop or the library's
//! own algorithm.
//!
//! Run: `cargo run --release --example semirings`.

use kronograph::algorithms::{sssp, triangle_count};
use kronograph::graph::generate::erdos_renyi_gnm;
use kronograph::matrix::{reduce, DenseVector, MatrixMask, SparseMatrix};
use kronograph::semirings::{gf256_mul, Gf256, MinPlus, PlusPair, PlusTimes};
use rand::SeedableRng;

fn main() -> kronograph::Result<()> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let g = erdos_renyi_gnm(200, 800, &mut rng)?;
    let a = SparseMatrix::from_graph(&g); // A(u, v) = weight of u -> v

    // SSSP (Bellman–Ford): dᵀ ← min(dᵀ, dᵀ ⊕.⊗ A) over (min, +) until it stops
    // changing; the product reads d and writes it back (no copy per round).
    // Distances only decrease, so a round that changes neither the number of
    // reached nodes nor the sum of distances (exact: unit weights) changed nothing.
    let mut d = DenseVector::new(g.num_nodes());
    d.set(0, 0.0);
    let state =
        |d: &DenseVector<f64>| (d.nnz(), d.values().iter().zip(d.present()).filter(|p| *p.1).map(|p| p.0).sum::<f64>());
    for round in 1..g.num_nodes() {
        let before = state(&d);
        a.vxm_in_place(MinPlus::new()).accum(&f64::min).into(&mut d)?;
        if state(&d) == before {
            println!("sssp: converged after {round} rounds");
            break;
        }
    }
    let reference = sssp(&g, 0)?.distances;
    let reached = d.nnz();
    for (v, want) in reference.iter().enumerate() {
        assert_eq!(d.get(v).unwrap_or(f64::INFINITY), *want, "distance to {v}");
    }
    println!("sssp: {reached} nodes reached from node 0, as algorithms::sssp finds");

    // Triangles: C⟨L⟩ = L ⊕.⊗ Lᵀ over (plus, pair) counts, for each edge
    // j < i, the common neighbours k < j; the sum counts every triangle once.
    let lower = SparseMatrix::from_rows(a.nrows(), a.ncols(), |i| {
        let (cols, _) = a.row(i);
        let cols: Vec<usize> = cols.iter().copied().filter(|&j| j < i).collect();
        let ones = vec![1u8; cols.len()];
        (cols, ones)
    });
    let c =
        lower.mxm(&lower.transpose(), PlusPair::<u8, u8, u64>::new()).mask(&MatrixMask::structural(&lower)).run()?;
    let triangles = reduce(PlusTimes::<u64>::new(), &c)?;
    assert_eq!(triangles, triangle_count(&g)?);
    println!("triangles: {triangles}, as algorithms::triangle_count finds");

    // GF(2^8): y = M x with ⊕ = xor and ⊗ = the field's multiply.
    let m = SparseMatrix::try_from_triplets(3, 3, &[0, 0, 1, 2, 2], &[0, 2, 1, 0, 2], &[0x02, 0x8e, 0x53, 0xff, 0x01])?;
    let x = DenseVector::full(vec![0x80u8, 0xca, 0x10]);
    let y = m.mxv(&x, Gf256::new()).run()?;
    let by_hand = [
        gf256_mul(0x02, 0x80) ^ gf256_mul(0x8e, 0x10),
        gf256_mul(0x53, 0xca),
        gf256_mul(0xff, 0x80) ^ gf256_mul(0x01, 0x10),
    ];
    assert_eq!(y.values(), &by_hand);
    println!("GF(2^8): y = {:02x?}", y.values());
    Ok(())
}
