//! Fitting a graph kernel's hyperparameters by gradient ascent on log θ:
//! kernel-target alignment A(K, y) = ⟨K, yyᵀ⟩ / (‖K‖ ‖yyᵀ‖) on MUTAG's
//! normalized marginalized graph kernel, with θ, its bounds and the
//! gradients in scikit-learn's convention (log space, trained
//! hyperparameters only, one order).
//!
//! Run with `cargo run --release --example fit_hyperparameters`.

use kronograph::basekernel::expr::{constant, hyper, if_eq, x, y};
use kronograph::basekernel::ExprKernel;
use kronograph::mgk::MarginalizedGraphKernel;
use kronograph::mgk::{Gradient, Matrix};

/// A(K, y) and ∂A/∂θ_t for the normalized Gram matrix `k` and its gradient `g`.
fn alignment(k: &Matrix, g: &Gradient, labels: &[f64]) -> (f64, Vec<f64>) {
    let n = labels.len();
    let nt = g.names().len();
    let (mut ky, mut kk) = (0.0, 0.0);
    let (mut dky, mut dkk) = (vec![0.0; nt], vec![0.0; nt]);
    for i in 0..n {
        for j in 0..n {
            let (kij, yy) = (k.get(i, j), labels[i] * labels[j]);
            ky += kij * yy;
            kk += kij * kij;
            for t in 0..nt {
                dky[t] += g.get(i, j, t) * yy;
                dkk[t] += 2.0 * kij * g.get(i, j, t);
            }
        }
    }
    let norm = kk.sqrt() * n as f64; // ‖yyᵀ‖ = n for y ∈ {±1}
    let a = ky / norm;
    let grad = (0..nt).map(|t| dky[t] / norm - a * dkk[t] / (2.0 * kk)).collect();
    (a, grad)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut ds = kronograph::datasets::mutag()?;
    ds.graphs.truncate(40);
    let labels: Vec<f64> = ds.graph_labels.as_ref().ok_or("MUTAG has graph labels")?[..40].to_vec();

    // Delta kernels on the atom and bond types, each with its own trained h.
    let delta = |h: &str, v: f64| if_eq(x("label"), y("label"), constant(1.0), hyper(h, v, (1e-2, 1.0)));
    let mut mgk =
        MarginalizedGraphKernel::new(ExprKernel::new(delta("h", 0.9))?, ExprKernel::new(delta("h", 0.9))?, 0.1)?;
    let names: Vec<String> = mgk.active_hyperparameters().into_iter().map(|h| h.name).collect();
    println!("trained: {names:?}, log bounds {:?}", mgk.bounds_log());

    let (mut first, mut last) = (None, 0.0);
    let step = 2.0;
    for it in 0..6 {
        let (k, g) = mgk.gram_with_gradient(&ds.graphs, true)?;
        let (a, da) = alignment(&k, &g, &labels);
        println!("iteration {it}: A = {a:.6}, θ = {:?}, ∂A/∂log θ = {da:.4?}", mgk.theta_log());
        first.get_or_insert(a);
        last = a;
        // one projected gradient-ascent step in log space
        let next: Vec<f64> = mgk
            .theta_log()
            .iter()
            .zip(&da)
            .zip(mgk.bounds_log())
            .map(|((t, d), (lo, hi))| (t + step * d).clamp(lo, hi))
            .collect();
        mgk.set_theta_log(&next)?;
    }
    let first = first.unwrap_or(last);
    println!("alignment {first:.6} -> {last:.6}");
    assert!(last >= first - 1e-9, "gradient ascent lowered the alignment");
    Ok(())
}
