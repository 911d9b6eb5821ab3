//! Shared helpers of the graph-kernel integration tests: small base kernels
//! of our own (the library's kernels live in `basekernel`), random labeled
//! weighted graphs and dense reference solutions.
#![allow(dead_code, clippy::needless_range_loop)]

use kronograph::basekernel::{BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError};
use kronograph::graph::{Direction, Graph, GraphBuilder};
use kronograph::solver::dense_solve;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// κ(a, b) = 1 if a = b else h, on integer labels; h trainable in [1e-3, 1].
#[derive(Clone, Debug)]
pub struct Delta(pub f64);

impl BaseKernel<u8> for Delta {
    fn value(&self, a: &u8, b: &u8) -> f64 {
        if a == b {
            1.0
        } else {
            self.0
        }
    }
    fn range(&self) -> (f64, f64) {
        (self.0.min(1.0), self.0.max(1.0))
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![Hyperparameter::new("h", self.0, Bounds::Range(1e-3, 1.0))]
    }
    fn set_theta(&mut self, t: &[f64]) -> Result<(), KernelError> {
        self.0 = t[0];
        Ok(())
    }
    fn gradient(&self, a: &u8, b: &u8, g: &mut [f64]) -> f64 {
        g[0] = if a == b { 0.0 } else { self.0 };
        self.value(a, b)
    }
    fn cuda(&self, _a: &str, _b: &str, _g: &mut CudaGen) -> Result<String, KernelError> {
        Err(KernelError::NoCudaForm("Delta".into()))
    }
}

/// κ(a, b) = exp(−(a − b)² / (2ℓ²)) on real labels; ℓ trainable.
#[derive(Clone, Debug)]
pub struct SqExp(pub f64);

impl BaseKernel<f64> for SqExp {
    fn value(&self, a: &f64, b: &f64) -> f64 {
        (-(a - b) * (a - b) / (2.0 * self.0 * self.0)).exp()
    }
    fn range(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![Hyperparameter::new("scale", self.0, Bounds::Range(1e-3, 1e3))]
    }
    fn set_theta(&mut self, t: &[f64]) -> Result<(), KernelError> {
        self.0 = t[0];
        Ok(())
    }
    fn gradient(&self, a: &f64, b: &f64, g: &mut [f64]) -> f64 {
        let k = self.value(a, b);
        g[0] = k * (a - b) * (a - b) / (self.0 * self.0);
        k
    }
    fn cuda(&self, _a: &str, _b: &str, _g: &mut CudaGen) -> Result<String, KernelError> {
        Err(KernelError::NoCudaForm("SqExp".into()))
    }
}

/// The constant kernel c (for range errors).
#[derive(Clone, Debug)]
pub struct Const(pub f64);

impl<T> BaseKernel<T> for Const {
    fn value(&self, _a: &T, _b: &T) -> f64 {
        self.0
    }
    fn range(&self) -> (f64, f64) {
        (self.0, self.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![Hyperparameter::new("c", self.0, Bounds::Fixed)]
    }
    fn set_theta(&mut self, t: &[f64]) -> Result<(), KernelError> {
        self.0 = t[0];
        Ok(())
    }
    fn gradient(&self, _a: &T, _b: &T, g: &mut [f64]) -> f64 {
        g[0] = 0.0;
        self.0
    }
    fn cuda(&self, _a: &str, _b: &str, _g: &mut CudaGen) -> Result<String, KernelError> {
        Err(KernelError::NoCudaForm("Const".into()))
    }
}

/// A random graph: node labels in 0..3, edge labels in [0, 1), weights in
/// [0.5, 2), edge probability `p`, possibly with self-loops.
pub fn random_graph(n: usize, p: f64, seed: u64, direction: Direction) -> Graph<u8, f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labels = (0..n).map(|_| rng.random_range(0..3u8)).collect();
    let mut b = GraphBuilder::new(n, direction).node_labels(labels);
    for i in 0..n {
        let start = if direction == Direction::Directed { 0 } else { i };
        for j in start..n {
            let pp = if i == j { p / 3.0 } else { p };
            if rng.random_bool(pp) {
                b.push_edge(i, j, rng.random_range(0.5..2.0), rng.random_range(0.0..1.0));
            }
        }
    }
    b.build().unwrap()
}

/// As [`random_graph`] (undirected), plus the path `0 — 1 — … — n−1`, so
/// that every graph with two or more nodes has edges.
pub fn random_path_graph(n: usize, p: f64, seed: u64) -> Graph<u8, f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labels = (0..n).map(|_| rng.random_range(0..3u8)).collect();
    let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(labels);
    for i in 0..n {
        for j in i + 1..n {
            if j == i + 1 || rng.random_bool(p) {
                b.push_edge(i, j, rng.random_range(0.5..2.0), rng.random_range(0.0..1.0));
            }
        }
    }
    b.build().unwrap()
}

/// Dense reference of the marginalized graph kernel: builds
/// `D× V×⁻¹ − (W ⊗ W') ⊙ E×` densely and solves it directly.
#[allow(clippy::too_many_arguments)]
pub fn dense_mgk(
    g: &Graph<u8, f64>,
    h: &Graph<u8, f64>,
    kv: &impl BaseKernel<u8>,
    ke: &impl BaseKernel<f64>,
    q: f64,
    pg: &[f64],
    ph: &[f64],
    lmin: u32,
) -> (f64, Vec<f64>) {
    let (n, m) = (g.num_nodes(), h.num_nodes());
    let d = n * m;
    let deg = |x: &Graph<u8, f64>| -> Vec<f64> {
        (0..x.num_nodes())
            .map(|i| {
                let s: f64 = x.weights()[x.row_range(i)].iter().sum();
                if s == 0.0 {
                    1.0
                } else {
                    s
                }
            })
            .collect()
    };
    let (dg, dh) = (deg(g), deg(h));
    let mut a = vec![0.0; d * d];
    let mut b = vec![0.0; d];
    for i in 0..n {
        for ip in 0..m {
            let r = i * m + ip;
            let dx = dg[i] * dh[ip] / ((1.0 - q) * (1.0 - q));
            b[r] = dx;
            a[r * d + r] += dx / kv.value(&g.node_labels()[i], &h.node_labels()[ip]);
            for j in 0..n {
                let Some(k) = g.find_entry(i, j) else { continue };
                for jp in 0..m {
                    let Some(kp) = h.find_entry(ip, jp) else { continue };
                    a[r * d + j * m + jp] -=
                        g.weights()[k] * h.weights()[kp] * ke.value(&g.edge_labels()[k], &h.edge_labels()[kp]);
                }
            }
        }
    }
    let r = dense_solve(d, &a, &b).expect("non-singular");
    let mut nodal = vec![0.0; d];
    let mut k = 0.0;
    for i in 0..n {
        for ip in 0..m {
            let mut v = pg[i] * ph[ip] * r[i * m + ip];
            if lmin == 1 {
                v -= pg[i] * ph[ip] * kv.value(&g.node_labels()[i], &h.node_labels()[ip]);
            }
            nodal[i * m + ip] = v;
            k += v;
        }
    }
    (k, nodal)
}

/// `|a − b| ≤ tol · max(|a|, |b|, tiny)`.
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300)
}

/// The largest relative difference `|a − b| / max(|a|, |b|)` between two
/// equally long slices (0 where both are 0).
pub fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs() / x.abs().max(y.abs()).max(f64::MIN_POSITIVE)).fold(0.0, f64::max)
}

pub use crate::device_common::gpu_or_skip;

/// The device sets a GPU test runs with: `{0}` (a set of one device, which
/// must behave as `cuda:0`) on every GPU machine, `{0, 1}` and `{0, 1, 2, 3}`
/// where that many devices exist; empty without a GPU.
pub fn device_sets() -> Vec<kronograph::backend::Backend> {
    use kronograph::backend::{Backend, DeviceSet};
    let n = kronograph::cuda::device_count().unwrap_or(0);
    [1usize, 2, 4]
        .into_iter()
        .filter(|&s| s <= n)
        .map(|s| Backend::Devices(DeviceSet::of(&(0..s).collect::<Vec<_>>()).unwrap()))
        .collect()
}
