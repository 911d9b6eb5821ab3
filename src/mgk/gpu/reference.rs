//! A CPU implementation of exactly what the GPU kernel computes, the
//! executable specification the GPU results are checked against.
//!
//! [`mgk_pair`] runs the same PCG as `kernels/mgk_pcg.cu` — x₀ = 0, Jacobi
//! preconditioner M = D× V×⁻¹, stop at ‖r‖ ≤ tol ‖D× 1‖ — in f64 or f32
//! (to see what single precision can reach). [`mgk_pair_dense`] solves the
//! same system by dense Cholesky factorization, the check of the check.

use crate::basekernel::BaseKernel;
use crate::graph::{Graph, Label};
use crate::mgk::system::{floor_node_kernel, NODE_KERNEL_FLOOR_F32, NODE_KERNEL_FLOOR_F64};
use crate::mgk::MgkConfig;
use num_traits::Float;
use rayon::prelude::*;

/// The value of one pair and how the solve went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairResult {
    /// K(G, G′).
    pub value: f64,
    /// PCG iterations.
    pub iterations: usize,
    /// Whether the tolerance was met within `max_iter`.
    pub converged: bool,
}

fn starts<N: Label, E: Label>(g: &Graph<N, E>) -> Vec<f64> {
    g.start_probabilities().map(<[f64]>::to_vec).unwrap_or_else(|| vec![1.0; g.num_nodes()])
}

/// K(G, G′) by PCG in precision `T`, the GPU kernel's algorithm.
///
/// Complexity per iteration O(nnz · nnz′ + n n′); the nonzero products are
/// formed once, O(nnz · nnz′) memory.
pub fn mgk_pair<T, N, E, KN, KE>(
    g1: &Graph<N, E>,
    g2: &Graph<N, E>,
    node_kernel: &KN,
    edge_kernel: &KE,
    params: &MgkConfig,
) -> PairResult
where
    T: Float + std::iter::Sum,
    N: Label,
    E: Label,
    KN: BaseKernel<N>,
    KE: BaseKernel<E>,
{
    let (n1, n2) = (g1.num_nodes(), g2.num_nodes());
    let nn = n1 * n2;
    if nn == 0 {
        return PairResult { value: 0.0, iterations: 0, converged: true };
    }
    let c = |x: f64| T::from(x).unwrap();
    let (d1, d2) = (params.system().node_degrees(g1), params.system().node_degrees(g2));
    let (p1, p2) = (starts(g1), starts(g2));
    let dscale = c(params.system().scale);
    // product entries (out, in, value)
    let mut prod: Vec<(u32, u32, T)> = Vec::with_capacity(g1.num_entries() * g2.num_entries());
    for i in 0..n1 {
        for k in g1.row_range(i) {
            let j = g1.indices()[k];
            let w = c(g1.weights()[k]);
            let e = &g1.edge_labels()[k];
            for i2 in 0..n2 {
                for k2 in g2.row_range(i2) {
                    let j2 = g2.indices()[k2];
                    let v = w * c(g2.weights()[k2]) * c(edge_kernel.value(e, &g2.edge_labels()[k2]));
                    prod.push(((i * n2 + i2) as u32, (j * n2 + j2) as u32, v));
                }
            }
        }
    }
    let floor = if std::mem::size_of::<T>() == 8 { NODE_KERNEL_FLOOR_F64 } else { NODE_KERNEL_FLOOR_F32 };
    let mut diag = vec![T::zero(); nn];
    let mut minv = vec![T::zero(); nn];
    let mut b = vec![T::zero(); nn];
    for i in 0..n1 {
        for i2 in 0..n2 {
            let d = c(d1[i]) * c(d2[i2]) * dscale;
            let kv = c(floor_node_kernel(node_kernel.value(&g1.node_labels()[i], &g2.node_labels()[i2]), floor));
            let dg = d / kv;
            diag[i * n2 + i2] = dg;
            minv[i * n2 + i2] = T::one() / dg;
            b[i * n2 + i2] = d;
        }
    }
    let mut x = vec![T::zero(); nn];
    let mut r = b.clone();
    let mut p: Vec<T> = (0..nn).map(|k| minv[k] * r[k]).collect();
    let mut rz: T = (0..nn).map(|k| r[k] * p[k]).sum();
    let bb: T = b.iter().map(|&v| v * v).sum();
    let tol = c(params.tolerance());
    let thresh = tol * tol * bb;
    let mut y = vec![T::zero(); nn];
    let mut it = 0;
    let mut converged = false;
    while it < params.max_iter as usize {
        y.iter_mut().for_each(|v| *v = T::zero());
        for &(o, i, v) in &prod {
            y[o as usize] = y[o as usize] + v * p[i as usize];
        }
        let mut pap = T::zero();
        for k in 0..nn {
            y[k] = diag[k] * p[k] - y[k];
            pap = pap + p[k] * y[k];
        }
        let alpha = rz / pap;
        let (mut rr, mut rzn) = (T::zero(), T::zero());
        for k in 0..nn {
            x[k] = x[k] + alpha * p[k];
            r[k] = r[k] - alpha * y[k];
            rr = rr + r[k] * r[k];
            rzn = rzn + r[k] * minv[k] * r[k];
        }
        it += 1;
        if rr.partial_cmp(&thresh) != Some(std::cmp::Ordering::Greater) {
            converged = true;
            break;
        }
        let beta = rzn / rz;
        rz = rzn;
        for k in 0..nn {
            p[k] = minv[k] * r[k] + beta * p[k];
        }
    }
    let mut value = 0.0;
    for i in 0..n1 {
        for i2 in 0..n2 {
            let mut v = x[i * n2 + i2].to_f64().unwrap();
            if params.lmin == 1 {
                v -= node_kernel.value(&g1.node_labels()[i], &g2.node_labels()[i2]);
            }
            value += p1[i] * p2[i2] * v;
        }
    }
    PairResult { value, iterations: it, converged }
}

/// K(G, G′) by a dense Cholesky solve in f64; O((n n′)³), for small graphs.
///
/// Returns `None` when the system is not positive definite.
#[allow(clippy::needless_range_loop)]
pub fn mgk_pair_dense<N, E, KN, KE>(
    g1: &Graph<N, E>,
    g2: &Graph<N, E>,
    node_kernel: &KN,
    edge_kernel: &KE,
    params: &MgkConfig,
) -> Option<f64>
where
    N: Label,
    E: Label,
    KN: BaseKernel<N>,
    KE: BaseKernel<E>,
{
    let (n1, n2) = (g1.num_nodes(), g2.num_nodes());
    let nn = n1 * n2;
    let (d1, d2) = (params.system().node_degrees(g1), params.system().node_degrees(g2));
    let (p1, p2) = (starts(g1), starts(g2));
    let dscale = params.system().scale;
    let mut a = vec![0.0; nn * nn];
    let mut b = vec![0.0; nn];
    for i in 0..n1 {
        for i2 in 0..n2 {
            let d = d1[i] * d2[i2] * dscale;
            let kv = floor_node_kernel(
                node_kernel.value(&g1.node_labels()[i], &g2.node_labels()[i2]),
                NODE_KERNEL_FLOOR_F64,
            );
            let o = i * n2 + i2;
            a[o * nn + o] += d / kv;
            b[o] = d;
        }
    }
    for i in 0..n1 {
        for k in g1.row_range(i) {
            let j = g1.indices()[k];
            for i2 in 0..n2 {
                for k2 in g2.row_range(i2) {
                    let j2 = g2.indices()[k2];
                    let v = g1.weights()[k]
                        * g2.weights()[k2]
                        * edge_kernel.value(&g1.edge_labels()[k], &g2.edge_labels()[k2]);
                    a[(i * n2 + i2) * nn + j * n2 + j2] -= v;
                }
            }
        }
    }
    // Cholesky A = L Lᵀ in place (lower triangle).
    for j in 0..nn {
        let mut s = a[j * nn + j];
        for k in 0..j {
            s -= a[j * nn + k] * a[j * nn + k];
        }
        if s <= 0.0 {
            return None;
        }
        let l = s.sqrt();
        a[j * nn + j] = l;
        for i in j + 1..nn {
            let mut s = a[i * nn + j];
            for k in 0..j {
                s -= a[i * nn + k] * a[j * nn + k];
            }
            a[i * nn + j] = s / l;
        }
    }
    for i in 0..nn {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * nn + k] * b[k];
        }
        b[i] = s / a[i * nn + i];
    }
    for i in (0..nn).rev() {
        let mut s = b[i];
        for k in i + 1..nn {
            s -= a[k * nn + i] * b[k];
        }
        b[i] = s / a[i * nn + i];
    }
    let mut value = 0.0;
    for i in 0..n1 {
        for i2 in 0..n2 {
            let mut v = b[i * n2 + i2];
            if params.lmin == 1 {
                v -= node_kernel.value(&g1.node_labels()[i], &g2.node_labels()[i2]);
            }
            value += p1[i] * p2[i2] * v;
        }
    }
    Some(value)
}

/// The Gram matrix (row-major, `len × len`) by [`mgk_pair`] in f64, pairs
/// in parallel (rayon).
pub fn gram<N, E, KN, KE>(graphs: &[Graph<N, E>], node_kernel: &KN, edge_kernel: &KE, params: &MgkConfig) -> Vec<f64>
where
    N: Label,
    E: Label,
    KN: BaseKernel<N>,
    KE: BaseKernel<E>,
{
    let m = graphs.len();
    let pairs = crate::mgk::system::upper_pairs(m);
    let vals: Vec<f64> = pairs
        .par_iter()
        .map(|&(i, j)| mgk_pair::<f64, _, _, _, _>(&graphs[i], &graphs[j], node_kernel, edge_kernel, params).value)
        .collect();
    let mut k = vec![0.0; m * m];
    for (&(i, j), v) in pairs.iter().zip(vals) {
        k[i * m + j] = v;
        k[j * m + i] = v;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basekernel::{product, Constant, Field, KroneckerDelta, SquareExponential};
    use crate::graph::{Direction, FieldKind, GraphBuilder, Record, Schema, Value};
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;

    pub(crate) fn random_labeled(n: usize, p: f64, rng: &mut impl Rng) -> Graph<Record, Record> {
        let vs = Arc::new(Schema::new().with("label", FieldKind::Int));
        let es = Arc::new(Schema::new().with("label", FieldKind::Int).with("length", FieldKind::Float));
        let labels = (0..n).map(|_| Record::new(vs.clone(), [Value::Int(rng.random_range(0..3))]).unwrap()).collect();
        let mut b = GraphBuilder::new(n, Direction::Undirected).node_labels(labels);
        for i in 0..n {
            for j in i + 1..n {
                if rng.random::<f64>() < p {
                    let e = Record::new(
                        es.clone(),
                        [Value::Int(rng.random_range(0..2)), Value::Float(rng.random::<f64>())],
                    )
                    .unwrap();
                    b.push_edge(i, j, rng.random_range(0.5..2.0), e);
                }
            }
        }
        b.build().unwrap()
    }

    #[test]
    fn pcg_matches_dense_cholesky() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let kn = Field::new("label", KroneckerDelta::new(0.5));
        let ke =
            product(Field::new("label", KroneckerDelta::new(0.5)), Field::new("length", SquareExponential::new(0.3)));
        for lmin in [0, 1] {
            let params = MgkConfig { lmin, tol: Some(1e-13), ..Default::default() };
            for _ in 0..4 {
                let n1 = rng.random_range(1..9);
                let n2 = rng.random_range(1..9);
                let g1 = random_labeled(n1, 0.4, &mut rng);
                let g2 = random_labeled(n2, 0.4, &mut rng);
                let dense = mgk_pair_dense(&g1, &g2, &kn, &ke, &params).unwrap();
                let pcg = mgk_pair::<f64, _, _, _, _>(&g1, &g2, &kn, &ke, &params);
                assert!(pcg.converged);
                assert!((pcg.value - dense).abs() <= 1e-10 * dense.abs().max(1.0), "{} vs {dense}", pcg.value);
                let single = mgk_pair::<f32, _, _, _, _>(&g1, &g2, &kn, &ke, &MgkConfig { tol: None, ..params });
                assert!((single.value - dense).abs() <= 1e-5 * dense.abs().max(1.0), "{} vs {dense}", single.value);
            }
        }
    }

    #[test]
    fn unlabeled_single_edge_matches_closed_form() {
        // Two copies of one edge (weight 1): d = 1, W⊗W' is the swap of 2×2
        // pairs; with κ = 1 the system per component is (s - 1) r = s with
        // s = 1/(1-q)², over 4 unknowns coupled in two pairs → K = 4 s/(s-1).
        let g: Graph<(), ()> =
            GraphBuilder::new(2, Direction::Undirected).default_node_labels().edge(0, 1, 1.0, ()).build().unwrap();
        let params = MgkConfig { tol: Some(1e-14), ..Default::default() };
        let v = mgk_pair::<f64, _, _, _, _>(&g, &g, &Constant::new(1.0), &Constant::new(1.0), &params).value;
        let s = 1.0 / (0.95f64 * 0.95);
        assert!((v - 4.0 * s / (s - 1.0)).abs() < 1e-9, "{v}");
    }
}
