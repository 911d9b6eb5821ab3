//! Your own pair system through the generic Kronecker layer, in three steps.
//!
//! 1. **State the system.** For two graphs `G`, `G'` with degree matrices
//!    `D`, `D'`, adjacency `W`, `W'` and a bond-type kernel κe,
//!    `(D ⊗ D' + I − c (W ⊗ W') ⊙ κe) x = b`, with an own right-hand side
//!    `b_(i,i') = 1 + β [atom_i = atom'_i']` and the output `value = 1ᵀ x`.
//!    A [`PairSystem`] says this: the diagonal, the right-hand side, the
//!    output functional, the coupling `c`, and the derivatives of each with
//!    respect to the parameters θ = (c, β).
//! 2. **Solve it for many pairs.** [`solve_pairs`] on `Backend::Cpu` solves
//!    every pair in parallel (CG with Jacobi for undirected graphs), with the nodal outputs
//!    and the gradient ∂value/∂θ by one adjoint solve per pair. The result
//!    is checked here against a dense solve (1e-12) and the gradient against
//!    central finite differences (1e-6).
//! 3. **Write your own solver.** The operator is a plain
//!    [`LinOp`](kronograph::solver::LinOp) ([`ShiftedKron`] over the lazy
//!    [`KronProduct`]); a Chebyshev iteration over it takes twenty lines of
//!    [`Vector`] operations and the [`IterParams`] bookkeeping.
//!
//! 4. **Run it on the GPU.** The same [`solve_pairs`] call with
//!    `Backend::Auto` (the first GPU, else the CPU) takes the system to a
//!    CUDA device: the graphs are uploaded once, a kernel is generated for
//!    the bond kernel's expression, and every pair is solved in one batched
//!    launch (Jacobi-CG per pair, the gradient's adjoint solve in the same
//!    launch); equal to the CPU to 1e-12 in f64, to 1e-4 in f32
//!    ([`PairSolve::precision`]).
//!    The Chebyshev iteration of step 3, generic over the vector type, runs
//!    unchanged over the device operator
//!    ([`DeviceShiftedKron`](kronograph::kron::DeviceShiftedKron) over
//!    [`DeviceKron`](kronograph::kron::DeviceKron), vectors
//!    [`DeviceVec`](kronograph::cuda::DeviceVec)).
//!
//! Run: `cargo run --release --example own_system`.

use kronograph::backend::{Backend, Precision};
use kronograph::basekernel::spec::SpecKernel;
use kronograph::graph::{Graph, Record};
use kronograph::kron::{solve_pairs, Diag, KronApply, KronProduct, Octiles, PairSolve, PairSystem, ShiftedKron};
use kronograph::solver::{dense_solve, IterParams, LinOp, SolveInfo, SolverError, Vector};

type Molecule = Graph<Record, Record>;

/// The system of step 1.
struct Diffusion {
    bonds: SpecKernel,
    c: f64,
    beta: f64,
}

impl PairSystem<Record, Record> for Diffusion {
    type EdgeKernel = SpecKernel;
    fn edge_kernel(&self) -> &SpecKernel {
        &self.bonds
    }
    fn coupling(&self) -> f64 {
        self.c
    }
    fn diagonal(&self, g: &Molecule, h: &Molecule, d: &mut [f64]) {
        let (dg, dh) = (g.degrees(), h.degrees());
        for (k, v) in d.iter_mut().enumerate() {
            *v = dg[k / dh.len()] * dh[k % dh.len()] + 1.0;
        }
    }
    fn rhs(&self, g: &Molecule, h: &Molecule, b: &mut [f64]) {
        let m = h.num_nodes();
        for (k, v) in b.iter_mut().enumerate() {
            *v = 1.0 + self.beta * same_atom(g, h, k / m, k % m);
        }
    }
    fn output(&self, _g: &Molecule, _h: &Molecule, o: &mut [f64]) {
        o.fill(1.0);
    }
    fn num_params(&self) -> usize {
        2
    }
    fn derivatives(
        &self,
        g: &Molecule,
        h: &Molecule,
        t: usize,
        _dd: &mut [f64],
        db: &mut [f64],
        _do: &mut [f64],
    ) -> f64 {
        match t {
            0 => 1.0, // ∂c/∂c; d, b, o do not depend on c
            _ => {
                let m = h.num_nodes();
                for (k, v) in db.iter_mut().enumerate() {
                    *v = same_atom(g, h, k / m, k % m);
                }
                0.0
            }
        }
    }
}

/// 1 when node `i` of `g` and node `ip` of `h` are the same element, else 0.
fn same_atom(g: &Molecule, h: &Molecule, i: usize, ip: usize) -> f64 {
    f64::from(u8::from(g.node_labels()[i] == h.node_labels()[ip]))
}

/// The dense matrix `diag(d) − c K` and the vectors `b`, `o` of one pair (the check).
fn dense_value(s: &Diffusion, g: &Molecule, h: &Molecule) -> kronograph::Result<f64> {
    let dim = g.num_nodes() * h.num_nodes();
    let (pg, ph) = (Octiles::<f64, _>::new(g), Octiles::<f64, _>::new(h));
    let k = KronProduct::new(&pg, &ph, &s.bonds)?.to_dense();
    let (mut d, mut b, mut o) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
    s.diagonal(g, h, &mut d);
    s.rhs(g, h, &mut b);
    s.output(g, h, &mut o);
    let mut a: Vec<f64> = k.iter().map(|v| -s.c * v).collect();
    for i in 0..dim {
        a[i * dim + i] += d[i];
    }
    let x = dense_solve(dim, &a, &b).expect("the system is diagonally dominant");
    Ok(o.iter().zip(&x).map(|(o, x)| o * x).sum())
}

/// Step 3: the Chebyshev iteration for `A x = b` with the spectrum of `A`
/// inside `[lo, hi]`, `0 < lo` (Saad, Iterative Methods, Alg. 12.1), over
/// any vector type (`r`, `d`, `ad`: work vectors of the system's length).
fn chebyshev<V: Vector>(
    op: &dyn LinOp<V>,
    b: &V,
    x: &mut V,
    [r, d, ad]: [&mut V; 3],
    (lo, hi): (f64, f64),
    it: &IterParams,
) -> Result<SolveInfo, SolverError> {
    let (theta, delta) = ((hi + lo) / 2.0, (hi - lo) / 2.0);
    let sigma = theta / delta;
    r.copy_from(b);
    x.fill(Default::default());
    d.fill(Default::default());
    d.axpy(1.0 / theta, r);
    let (bnorm, mut rho, mut history) = (b.norm(), 1.0 / sigma, Vec::new());
    for k in 1..=it.max_iters {
        x.axpy(1.0, d);
        op.apply(d, ad)?;
        r.axpy(-1.0, ad);
        if let Some(info) = it.step(k, r.norm(), bnorm, &mut history)? {
            return Ok(info);
        }
        let next = 1.0 / (2.0 * sigma - rho);
        d.xpay(r, next * rho); // d ← r + ρ' ρ d …
        d.axpy(2.0 * next / delta - 1.0, r); // … then the weight 2ρ'/δ on r
        rho = next;
    }
    Err(it.no_convergence(r.norm(), bnorm))
}

/// Step 4's Chebyshev iteration on the GPU: the operator of one pair on the
/// device, the same `chebyshev` over device vectors; returns `1ᵀ x`.
#[cfg(feature = "cuda")]
fn chebyshev_on_gpu(
    system: &Diffusion,
    (g, gp): (&Molecule, &Molecule),
    (d, b): (&[f64], &[f64]),
    bounds: (f64, f64),
) -> kronograph::Result<f64> {
    use kronograph::cuda::{DeviceVec, GpuDevice};
    use kronograph::kron::{DeviceKron, DeviceShiftedKron};
    let dev = GpuDevice::open(0)?;
    let kron = DeviceKron::<f64>::of_pair(&dev, g, gp, &system.bonds)?;
    let d = DeviceVec::from_host(&dev, d)?;
    let op = DeviceShiftedKron::new(&d, system.c, &kron)?;
    let b = DeviceVec::from_host(&dev, b)?;
    let zeros = || DeviceVec::zeros(&dev, b.len());
    let (mut x, mut r, mut dd, mut ad) = (zeros()?, zeros()?, zeros()?, zeros()?);
    chebyshev(&op, &b, &mut x, [&mut r, &mut dd, &mut ad], bounds, &IterParams::new(1e-13, 10_000))?;
    Ok(x.to_host()?.iter().sum())
}

fn main() -> kronograph::Result<()> {
    let ds = kronograph::datasets::mutag()?;
    // a few small molecules
    let graphs: Vec<Molecule> = ds.graphs.into_iter().filter(|g| g.num_nodes() <= 14).take(4).collect();
    let bonds = SpecKernel::parse_for("delta(label, 0.5)", &ds.edge_schema)?;
    let system = Diffusion { bonds, c: 0.8, beta: 0.5 };

    // step 2: every pair, with gradients and nodal outputs
    let pairs: Vec<(usize, usize)> = (0..graphs.len()).flat_map(|a| (a..graphs.len()).map(move |b| (a, b))).collect();
    let opts = PairSolve { backend: Backend::Cpu, tol: 1e-14, gradient: true, nodal: true, ..Default::default() };
    let out = solve_pairs(&system, &graphs, None, &pairs, &opts)?;
    let h = 1e-5;
    let (mut worst_value, mut worst_grad) = (0.0f64, 0.0f64);
    for (r, &(a, b)) in out.iter().zip(&pairs) {
        let (g, gp) = (&graphs[a], &graphs[b]);
        let want = dense_value(&system, g, gp)?;
        worst_value = worst_value.max((r.value - want).abs() / want.abs());
        let at = |c: f64, beta: f64| dense_value(&Diffusion { bonds: system.bonds.clone(), c, beta }, g, gp);
        let fd = [
            (at(system.c + h, system.beta)? - at(system.c - h, system.beta)?) / (2.0 * h),
            (at(system.c, system.beta + h)? - at(system.c, system.beta - h)?) / (2.0 * h),
        ];
        for (got, fd) in r.grad.iter().zip(fd) {
            worst_grad = worst_grad.max((got - fd).abs() / fd.abs().max(1.0));
        }
        let nodal: f64 = r.nodal.as_ref().map_or(0.0, |v| v.iter().sum());
        assert!((nodal - r.value).abs() <= 1e-12 * r.value.abs());
    }
    println!(
        "{} pairs: values vs dense solve {worst_value:.1e}, gradients vs finite differences {worst_grad:.1e}",
        pairs.len()
    );
    assert!(worst_value <= 1e-12, "values differ from the dense solve");
    assert!(worst_grad <= 1e-6, "gradients differ from finite differences");

    // step 3: the operator of one pair, solved by our own Chebyshev iteration
    let (g, gp) = (&graphs[0], &graphs[1]);
    let dim = g.num_nodes() * gp.num_nodes();
    let (pg, ph) = (Octiles::<f64, _>::new(g), Octiles::<f64, _>::new(gp));
    let kron = KronProduct::new(&pg, &ph, &system.bonds)?;
    let (mut d, mut b) = (vec![0.0; dim], vec![0.0; dim]);
    system.diagonal(g, gp, &mut d);
    system.rhs(g, gp, &mut b);
    let op = ShiftedKron::new(Diag::Vec(&d), system.c, &kron)?;
    // Gershgorin: every eigenvalue lies in [d_i − R_i, d_i + R_i], R = c K 1 (K ≥ 0)
    let mut radius = vec![0.0; dim];
    kron.apply_add(system.c, &vec![1.0; dim], &mut radius);
    let lo = d.iter().zip(&radius).map(|(d, r)| d - r).fold(f64::INFINITY, f64::min);
    let hi = d.iter().zip(&radius).map(|(d, r)| d + r).fold(0.0, f64::max);
    let mut x = vec![0.0; dim];
    let (mut r, mut dd, mut ad) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
    let work = [&mut r, &mut dd, &mut ad];
    let info = chebyshev(&op, &b, &mut x, work, (lo, hi), &IterParams::new(1e-13, 10_000))?;
    let value: f64 = x.iter().sum();
    let rel = (value - out[1].value).abs() / out[1].value;
    println!(
        "Chebyshev on pair (0, 1): {} iterations, value {value:.12} (CG: {:.12}, relative {rel:.1e})",
        info.iterations, out[1].value
    );
    assert!(rel <= 1e-10, "Chebyshev and CG disagree");

    // step 4: the same system on the GPU (Backend::Auto: the first GPU, else the CPU)
    let auto = PairSolve { backend: Backend::Auto, ..opts.clone() };
    let gpu = solve_pairs(&system, &graphs, None, &pairs, &auto)?;
    let mut worst = 0.0f64;
    for (g, c) in gpu.iter().zip(&out) {
        worst = worst.max((g.value - c.value).abs() / c.value.abs());
        for (gg, cg) in g.grad.iter().zip(&c.grad) {
            worst = worst.max((gg - cg).abs() / cg.abs().max(1.0));
        }
    }
    println!("solve_pairs (Backend::Auto) vs the CPU: values and gradients within {worst:.1e}");
    assert!(worst <= 1e-12, "the GPU and the CPU disagree");
    // in single precision on the device (a looser tolerance: f32 reaches about 1e-6)
    let f32_opts = PairSolve { precision: Precision::F32, tol: 1e-6, ..auto };
    let single = solve_pairs(&system, &graphs, None, &pairs, &f32_opts)?;
    let worst = single.iter().zip(&out).map(|(g, c)| (g.value - c.value).abs() / c.value.abs()).fold(0.0, f64::max);
    println!("solve_pairs in f32 (Backend::Auto) vs the CPU f64: values within {worst:.1e}");
    assert!(worst <= 1e-4, "f32 values differ from the f64 ones");
    #[cfg(feature = "cuda")]
    if kronograph::cuda::device_count()? > 0 {
        let on_gpu = chebyshev_on_gpu(&system, (g, gp), (&d, &b), (lo, hi))?;
        let rel = (on_gpu - out[1].value).abs() / out[1].value;
        println!("Chebyshev over the device KronProduct: value {on_gpu:.12} (relative {rel:.1e})");
        assert!(rel <= 1e-10, "Chebyshev on the GPU and CG disagree");
    }
    Ok(())
}
