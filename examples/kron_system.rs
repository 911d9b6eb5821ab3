//! Your own Kronecker system over pairs of graphs, on any backend.
//!
//! The marginalized graph kernel solves, per pair of graphs,
//! `(s (D ⊗ D') V×⁻¹ − (W ⊗ W') ⊙ E×) r = s (D ⊗ D') 1` and sums
//! `(p ⊗ p')ᵀ r` ([`KronSystem`]). Choosing the scale `s`, the degree rule,
//! the node and edge base kernels and the start probabilities gives other
//! kernels through the same API, on the CPU or a CUDA GPU. Here: a geometric
//! random walk with decay λ whose steps are weighted by soft label matches,
//! `K = 1ᵀ (I/λ V×⁻¹ − (W ⊗ W') ⊙ E×)⁻¹ (1/λ) 1` with κv = κe =
//! `delta(label, 0.5)` (unit degrees, `s = 1/λ`).
//!
//! Run: `cargo run --release --example kron_system` (on a GPU when one can be
//! used, else on the CPU).

use kronograph::backend::Backend;
use kronograph::basekernel::spec::SpecKernel;
use kronograph::mgk::{DegreeRule, KronSystem, MarginalizedGraphKernel};
use kronograph::rw::RandomWalkKernel;

fn main() -> kronograph::Result<()> {
    let mut ds = kronograph::datasets::mutag()?;
    ds.graphs.truncate(12);
    // positive definite when λ ρ(W) ρ(W') < 1 (κv ≤ 1 only helps)
    let rho = ds.graphs.iter().map(RandomWalkKernel::spectral_radius_bound).fold(0.0, f64::max);
    let lambda = 0.5 / (rho * rho);
    let system = KronSystem { scale: 1.0 / lambda, degrees: DegreeRule::Ones };
    let kv = SpecKernel::parse_for("delta(label, 0.5)", &ds.node_schema)?;
    let ke = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema)?;
    // q is the marginalized kernel's own parameter; a custom system does not use it
    let k = MarginalizedGraphKernel::new(kv, ke, 0.5)?.with_system(Some(system))?;
    let cpu = k.gram_normalized_on(Backend::Cpu, &ds.graphs)?;
    let any = k.gram_normalized_on(Backend::Auto, &ds.graphs)?;
    let worst = cpu.as_slice().iter().zip(any.as_slice()).map(|(a, b)| (a - b).abs() / a.abs()).fold(0.0, f64::max);
    println!("label-weighted random walk, λ = {lambda:.3e}, {} graphs", ds.graphs.len());
    for i in 0..4 {
        let row: Vec<String> = (0..4).map(|j| format!("{:.4}", any.get(i, j))).collect();
        println!("{}", row.join(" "));
    }
    println!("largest relative difference between the CPU and the chosen backend: {worst:.1e}");
    assert!(worst < 1e-8, "the backends disagree");
    Ok(())
}
