//! MUTAG's normalized marginalized-graph-kernel Gram matrix, with GraphDot's
//! usual set-up: κv = κe = `delta(label, 0.5)`, stop probability q = 0.05.
//!
//! Run: `cargo run --release --example mutag_gram [DATASET]` (a TU data set
//! folder; the bundled MUTAG by default). A missing or bad data set ends the
//! program with the library's message, e.g. `Error: cannot read ...`.

use kronograph::basekernel::spec::SpecKernel;
use kronograph::graph::io;
use kronograph::mgk::MarginalizedGraphKernel;

fn main() -> kronograph::Result<()> {
    // a data set given on the command line, else the bundled MUTAG
    let ds = match std::env::args().nth(1) {
        Some(path) => io::load(&path)?,
        None => kronograph::datasets::mutag()?,
    };
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema)?;
    let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema)?;
    let mgk = MarginalizedGraphKernel::new(kv, ke, 0.05)?;
    let k = mgk.gram_normalized(&ds.graphs)?; // solved on the CPU; gram_normalized_on picks a backend

    let n = k.rows();
    println!("{}: {n} graphs, normalized Gram matrix {n} x {n}", ds.name);
    for i in 0..4 {
        let row: Vec<String> = (0..4).map(|j| format!("{:.4}", k.get(i, j))).collect();
        println!("  {}", row.join(" "));
    }
    let off = (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)));
    let (lo, hi) = off.fold((f64::MAX, f64::MIN), |(lo, hi), (i, j)| (lo.min(k.get(i, j)), hi.max(k.get(i, j))));
    println!("off-diagonal values in [{lo:.4}, {hi:.4}]");
    assert!((0..n).all(|i| (k.get(i, i) - 1.0).abs() < 1e-12), "a normalized kernel has a unit diagonal");
    assert!(lo > 0.0 && hi <= 1.0 + 1e-12);
    Ok(())
}
