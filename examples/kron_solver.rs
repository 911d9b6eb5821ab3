//! Your own tensor-product system, solved matrix-free: the lazy
//! [`KronProduct`] of two graphs as a linear operator, handed to conjugate
//! gradients, and checked against a dense solve.
//!
//! The system (a label-aware diffusion on the product graph):
//! `(D ⊗ D' − s (W ⊗ W') ⊙ κe) x = 1`, with `D`, `D'` the degree matrices,
//! `κe = delta(label, 0.5)` on the bond types and `s = 0.9`. Since
//! `0 ≤ κe ≤ 1`, the matrix is symmetric and strictly diagonally dominant:
//! CG applies. [`ShiftedKron`] is that `diag(d) − s A×` operator; the product
//! is never formed (`nnz(W)·nnz(W')` entries).
//!
//! `examples/kron_system.rs` does the same kind of system through the graph
//! kernel API (every pair of a data set, on any backend); this example is
//! the operator and the solver by hand.
//!
//! Run: `cargo run --release --example kron_solver`.

use kronograph::basekernel::spec::SpecKernel;
use kronograph::kron::{Diag, KronProduct, Octiles, ShiftedKron};
use kronograph::solver::{cg, dense_solve, CgParams, Precond, Workspace};

fn main() -> kronograph::Result<()> {
    let ds = kronograph::datasets::mutag()?;
    let (g, h) = (&ds.graphs[0], &ds.graphs[1]);
    let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema)?;

    // the operator: diag(D ⊗ D') − s (W ⊗ W') ⊙ κe, product node (i, i') at i·n' + i'
    let (pg, ph) = (Octiles::<f64, _>::new(g), Octiles::<f64, _>::new(h));
    let kron = KronProduct::new(&pg, &ph, &ke)?;
    let d: Vec<f64> = g.degrees().iter().flat_map(|&a| h.degrees().iter().map(move |&b| a * b)).collect();
    let s = 0.9;
    let op = ShiftedKron::new(Diag::Vec(&d), s, &kron)?;

    // solve by Jacobi-preconditioned CG
    let b = vec![1.0; d.len()];
    let mut x = vec![0.0; d.len()];
    let params = CgParams::new(1e-12, Precond::Jacobi);
    let info = cg(&op, &b, &mut x, &params, &mut Workspace::new())?;

    // the same system, dense: A = diag(d) − s A× (A× formed only for the check)
    let n = d.len();
    let mut a: Vec<f64> = kron.to_dense().iter().map(|v| -s * v).collect();
    for i in 0..n {
        a[i * n + i] += d[i];
    }
    let exact = dense_solve(n, &a, &b).expect("the system is non-singular");
    let err = x.iter().zip(&exact).map(|(x, e)| (x - e).abs() / e.abs()).fold(0.0, f64::max);

    println!("graphs 0 and 1 of MUTAG: {} x {} nodes, a system of {n} unknowns", g.num_nodes(), h.num_nodes());
    println!("CG: {} iterations, relative residual {:.1e}", info.iterations, info.rel_residual);
    println!("largest relative difference from the dense solve: {err:.1e}");
    assert!(err < 1e-9, "CG and the dense solve disagree");
    Ok(())
}
