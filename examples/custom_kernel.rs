//! A user-defined base kernel on a user's own label struct, composed with
//! built-in kernels and evaluated on two labels.
//!
//! Run with `cargo run --example custom_kernel`.

use kronograph::basekernel::{
    BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError, KroneckerDelta, Project, SquareExponential,
};

/// The user's node label.
#[derive(Clone, Debug, PartialEq)]
struct Atom {
    element: u8,
    charge: f32,
    position: [f32; 3],
}

/// A Laplacian kernel on the charge: κ(x, y) = exp(−|q_x − q_y| / w).
///
/// Positive definite on ℝ, range (0, 1], one hyperparameter `width` = w > 0.
#[derive(Clone, Debug)]
struct ChargeLaplace {
    width: f64,
}

impl BaseKernel<Atom> for ChargeLaplace {
    #[inline]
    fn value(&self, a: &Atom, b: &Atom) -> f64 {
        (-((a.charge - b.charge).abs() as f64) / self.width).exp()
    }

    fn range(&self) -> (f64, f64) {
        (0.0, 1.0)
    }

    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![Hyperparameter::new("width", self.width, Bounds::Range(1e-3, 1e3))]
    }

    fn num_hyperparameters(&self) -> usize {
        1
    }

    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        if theta.len() != 1 {
            return Err(KernelError::ThetaLength { expected: 1, found: theta.len() });
        }
        let bounds = Bounds::Range(1e-3, 1e3);
        if !bounds.contains(theta[0]) {
            return Err(KernelError::OutOfBounds { name: "width".into(), value: theta[0], bounds });
        }
        self.width = theta[0];
        Ok(())
    }

    /// w ∂κ/∂w = κ |q_x − q_y| / w.
    fn gradient(&self, a: &Atom, b: &Atom, grad: &mut [f64]) -> f64 {
        let d = (a.charge - b.charge).abs() as f64;
        let k = (-d / self.width).exp();
        grad[0] = k * d / self.width;
        k
    }

    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let w = cg.param(self.width);
        Ok(format!("exp(-fabs({a}.charge - {b}.charge) / {w})"))
    }
}

// Lets built-ins combine with it (`builtin * ChargeLaplace`) and gives it `*` and `+`.
kronograph::kernel_ops!(impl[] ChargeLaplace);

fn main() -> Result<(), KernelError> {
    // κ = δ(element) · Laplace(charge) · SE(position), all on `Atom`.
    let kernel = Project::new("element", |a: &Atom| &a.element, KroneckerDelta::new(0.5))
        * ChargeLaplace { width: 0.5 }
        * Project::new("position", |a: &Atom| &a.position, SquareExponential::new(1.5));

    let carbon = Atom { element: 6, charge: -0.12, position: [0.0, 0.0, 0.0] };
    let oxygen = Atom { element: 8, charge: -0.41, position: [1.2, 0.1, 0.0] };

    let k = kernel.value(&carbon, &oxygen);
    let expected = 0.5 * (-0.29f64 / 0.5).exp() * (-(1.2f64 * 1.2 + 0.1 * 0.1) / (2.0 * 1.5 * 1.5)).exp();
    println!("kappa(C, O)      = {k:.6} (by hand {expected:.6})");
    println!("kappa(C, C)      = {:.6}", kernel.value(&carbon, &carbon));
    println!("kappa_f32(C, O)  = {:.6}", kernel.value_f32(&carbon, &oxygen));
    println!("range            = {:?}", kernel.range());

    let mut grad = vec![0.0; kernel.num_hyperparameters()];
    kernel.gradient(&carbon, &oxygen, &mut grad);
    for (h, g) in kernel.hyperparameters().iter().zip(&grad) {
        println!("d kappa / d log {:<16} = {g:+.6}  (value {}, bounds {})", h.name, h.value, h.bounds);
    }

    let mut trained = kernel.clone();
    trained.set_hyperparameter("width", 0.25)?;
    println!("with width 0.25  = {:.6}", trained.value(&carbon, &oxygen));
    match trained.set_hyperparameter("position.scale", -1.0) {
        Err(e) => println!("bad value        : {e}"),
        Ok(()) => unreachable!("a negative length scale is out of bounds"),
    }

    let mut cg = CudaGen::new("float", "theta");
    println!("CUDA expression  : {}", kernel.cuda("a", "b", &mut cg)?);
    println!("CUDA parameters  : {:?}", cg.params());
    assert!((k - expected).abs() < 1e-6);
    Ok(())
}
