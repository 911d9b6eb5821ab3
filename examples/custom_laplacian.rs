//! A custom base kernel written once — the Laplacian exp(−|x − y|/ℓ) on a
//! float field — in the marginalized graph kernel, with gradients, on the
//! CPU and (when one is present) on the GPU.
//!
//! Run with `cargo run --release --example custom_laplacian`.

use kronograph::basekernel::expr::{hyper, x, y};
use kronograph::basekernel::{ExprKernel, KroneckerDelta, Project};
use kronograph::graph::{Direction, Graph, GraphBuilder};
use kronograph::mgk::MarginalizedGraphKernel;
use kronograph::Backend;

kronograph::label_struct! {
    /// A node label: an element and a partial charge.
    struct Atom { element: u8, charge: f64 }
}

/// A ring of atoms with the given charges (elements alternate 6, 8).
fn ring(charges: &[f64]) -> Graph<Atom, ()> {
    let atoms = charges.iter().enumerate().map(|(i, &charge)| Atom { element: [6, 8][i % 2], charge }).collect();
    let n = charges.len();
    (0..n)
        .fold(GraphBuilder::new(n, Direction::Undirected).node_labels(atoms), |b, i| b.edge(i, (i + 1) % n, 1.0, ()))
        .build()
        .unwrap()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The kernel: value, gradient, range and CUDA form all come from this one expression.
    let ell = hyper("ell", 0.5, (1e-2, 1e2));
    let laplacian = ExprKernel::new((-(x("charge") - y("charge")).abs() / ell).exp())?;

    let node = Project::new("element", |a: &Atom| &a.element, KroneckerDelta::new(0.3)) * laplacian;
    let mgk = MarginalizedGraphKernel::new(node, kronograph::kron::Unlabeled, 0.1)?;
    let graphs = [ring(&[0.1, -0.2, 0.3]), ring(&[0.0, -0.1, 0.2, 0.1]), ring(&[0.4, -0.4, 0.1, 0.0, -0.1])];

    let (k, grad) = mgk.gram_with_gradient(&graphs, true)?;
    println!("normalized Gram (CPU):");
    for i in 0..graphs.len() {
        println!("  {:?}", (0..graphs.len()).map(|j| format!("{:.6}", k.get(i, j))).collect::<Vec<_>>());
    }
    println!("hyperparameters (log θ): {:?} = {:?}", grad.names(), mgk.theta_log());

    // Check the gradient in log ℓ against central differences.
    let t = mgk.theta_log();
    let ell_at = grad.names().iter().position(|n| n == "node.ell").expect("node.ell is trained");
    let h = 1e-5;
    let shifted = |s: f64| -> Result<f64, Box<dyn std::error::Error>> {
        let mut ts = t.clone();
        ts[ell_at] += s;
        Ok(mgk.clone_with_theta(&ts)?.gram_normalized(&graphs)?.get(0, 1))
    };
    let fd = (shifted(h)? - shifted(-h)?) / (2.0 * h);
    let g = grad.get(0, 1, ell_at);
    println!("dK~(0,1)/dlog ell: analytic {g:.8e}, finite difference {fd:.8e}");
    assert!((g - fd).abs() <= 1e-6 * (1.0 + g.abs()), "gradient check failed");

    // The same kernel on the GPU, when there is one (a label_struct is a GPU label).
    if kronograph::cuda::device_count().unwrap_or(0) > 0 {
        let (kg, gg) = mgk.gram_with_gradient_on(Backend::Cuda(0), &graphs, true)?;
        let dk = (0..9).map(|p| (kg.get(p / 3, p % 3) - k.get(p / 3, p % 3)).abs()).fold(0.0, f64::max);
        let dg =
            (0..9).map(|p| (gg.get(p / 3, p % 3, ell_at) - grad.get(p / 3, p % 3, ell_at)).abs()).fold(0.0, f64::max);
        println!("GPU vs CPU: max |ΔK~| = {dk:.2e}, max |Δ∂K~/∂log ell| = {dg:.2e}");
        assert!(dk <= 1e-8 && dg <= 1e-6, "GPU and CPU disagree");
    } else {
        println!("no CUDA device: GPU part skipped");
    }
    Ok(())
}
