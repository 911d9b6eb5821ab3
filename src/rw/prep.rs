//! Per-graph data of [`RandomWalkKernel`](super::RandomWalkKernel): the weights' power-of-two
//! scales, Collatz–Wielandt spectral-radius bounds, the moment series' moments
//! and truncation rule, and the node-label classes of the labeled kernel.

use crate::graph::{Graph, Label};
use crate::kron::{ClassPacking, Octiles};
use crate::mgk::system::unit_weights;
use crate::mgk::MgkError;
use rayon::prelude::*;

/// Largest number of series terms before falling back to the solver.
pub(super) const MAX_TERMS: usize = 400;

/// The bound on the series' tail, relative to the kernel, that the number
/// of terms is chosen for.
pub(super) const SERIES_TAIL: f64 = 1e-16;

/// The truncation rule of the moment series, for both backends (the GPU
/// evaluates the same formula with these constants passed at launch): with
/// `r = λ ρ̂ ρ̂'` (scaled weights), the terms `k = 0..=K` for
/// `K = ⌈ln(SERIES_TAIL (1 − r)) / ln r⌉` (1 when `r = 0`) leave a tail
/// below `SERIES_TAIL` relative to the kernel; `None` when `r ≥ 1` or
/// `K > MAX_TERMS` (the pair is solved instead).
pub(super) fn series_terms(r: f64) -> Option<usize> {
    if r.is_nan() || r >= 1.0 {
        return None;
    }
    let terms = if r == 0.0 { 1 } else { ((SERIES_TAIL * (1.0 - r)).ln() / r.ln()).ceil() as usize };
    (terms <= MAX_TERMS).then_some(terms)
}

/// Per-graph data of the unlabeled kernel.
pub(super) struct RwGraph<E> {
    pub(super) n: usize,
    pub(super) scale: RwScale,
    /// `m_k / ρ̂^k`, `k = 0..=MAX_TERMS` (only when the series may apply).
    pub(super) moments: Vec<f64>,
    pub(super) oct: Octiles<f64, E>,
}

/// What the convergence check needs of a graph whose weights were scaled
/// by `2^−exp` (the bounds are those of the scaled weights).
#[derive(Clone, Copy, Debug)]
pub(super) struct RwScale {
    pub(super) exp: i32,
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) directed: bool,
}

/// The graph with its weights scaled by `2^−e` and its [`RwScale`].
pub(super) fn rw_scale<N: Label, E: Label>(
    g: &Graph<N, E>,
    index: usize,
) -> Result<(std::borrow::Cow<'_, Graph<N, E>>, RwScale), MgkError> {
    let (s, exp) = unit_weights(g).map_err(|source| MgkError::WeightRange { graph: index, source })?;
    let (lo, hi) = bounds_of(&s);
    let directed = s.is_directed();
    Ok((s, RwScale { exp, lo, hi, directed }))
}

/// The class packings of the scaled graphs, with their scales.
pub(super) fn labeled_packs<N: Label, E: Label>(
    graphs: Vec<&Graph<N, E>>,
    classes: &[Vec<u32>],
) -> Result<Vec<(ClassPacking<f64>, RwScale)>, MgkError> {
    graphs
        .par_iter()
        .zip(classes)
        .enumerate()
        .map(|(i, (g, c))| {
            let (s, scale) = rw_scale(g, i)?;
            Ok((ClassPacking::new(&s, c), scale))
        })
        .collect::<Vec<Result<_, MgkError>>>()
        .into_iter()
        .collect()
}

/// Collatz–Wielandt bounds `(lo, hi)` on `ρ(W)` (see
/// [`RandomWalkKernel::spectral_radius_bounds`]).
pub(super) fn bounds_of<N: Label, E: Label>(g: &Graph<N, E>) -> (f64, f64) {
    let n = g.num_nodes();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mut v = vec![1.0; n];
    let mut wv = vec![0.0; n];
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    for _ in 0..200 {
        spmv(g, &v, &mut wv);
        let (mut l, mut h) = (f64::INFINITY, 0.0f64);
        for (a, b) in wv.iter().zip(&v) {
            let q = a / b;
            l = l.min(q);
            h = h.max(q);
        }
        lo = lo.max(l);
        hi = hi.min(h);
        if hi - lo <= 1e-9 * hi {
            break;
        }
        let mut s = 0.0f64;
        for (x, w) in v.iter_mut().zip(&wv) {
            *x += w;
            s = s.max(*x);
        }
        if s == 0.0 || !s.is_finite() {
            break;
        }
        v.iter_mut().for_each(|x| *x /= s);
        if v.iter().any(|&x| x < 1e-250) {
            break;
        }
    }
    (lo, hi)
}

/// `y ← W x`.
pub(super) fn spmv<N: Label, E: Label>(g: &Graph<N, E>, x: &[f64], y: &mut [f64]) {
    for (i, yi) in y.iter_mut().enumerate() {
        let r = g.row_range(i);
        *yi = g.indices()[r.clone()].iter().zip(&g.weights()[r]).map(|(&j, &w)| w * x[j]).sum();
    }
}

/// `m_k / ρ̂^k = 1ᵀ (W/ρ̂)^k 1` for `k = 0..=MAX_TERMS` (zeros after `k = 0`
/// when `ρ̂ = 0`).
pub(super) fn scaled_moments<N: Label, E: Label>(g: &Graph<N, E>, rho: f64) -> Vec<f64> {
    scaled_moments_upto(g, rho, MAX_TERMS + 1)
}

/// `m_k / s^k = 1ᵀ (W/s)^k 1` for `k = 0..count` (zeros after `k = 0` when
/// `s = 0`, and after the first zero moment: `W` is nilpotent there).
pub(super) fn scaled_moments_upto<N: Label, E: Label>(g: &Graph<N, E>, s: f64, count: usize) -> Vec<f64> {
    let n = g.num_nodes();
    let mut m = vec![0.0; count.max(1)];
    m[0] = n as f64;
    if s == 0.0 {
        return m;
    }
    let mut v = vec![1.0; n];
    let mut w = vec![0.0; n];
    for mk in m.iter_mut().skip(1) {
        spmv(g, &v, &mut w);
        w.iter_mut().for_each(|x| *x /= s);
        std::mem::swap(&mut v, &mut w);
        *mk = v.iter().sum();
        if *mk == 0.0 {
            break; // W is nilpotent: every later moment is 0
        }
    }
    m
}

/// Class ids `0..C` for the node labels of all graphs (equal labels, equal
/// ids). `O(total nodes × C)`.
pub(super) fn node_classes<'g, N: Label + PartialEq + 'g, E: Label + 'g>(
    graphs: impl Iterator<Item = &'g Graph<N, E>>,
) -> Vec<Vec<u32>> {
    let mut distinct: Vec<N> = Vec::new();
    graphs
        .map(|g| {
            g.node_labels()
                .iter()
                .map(|l| match distinct.iter().position(|d| d == l) {
                    Some(k) => k as u32,
                    None => {
                        distinct.push(l.clone());
                        (distinct.len() - 1) as u32
                    }
                })
                .collect()
        })
        .collect()
}

/// The graph list of a Gram call, `x` then `y` (when given), and the node
/// classes its pairs match by: the one set-up of the device paths
/// (`gpu_pairs.rs`, `series_gpu.rs`).
pub(super) struct GraphList<'g, N, E> {
    /// `x`, then `y`.
    pub(super) list: Vec<&'g Graph<N, E>>,
    /// The number of graphs of `x`.
    pub(super) nx: usize,
    /// Whether `y` was given (pairs `x × y`, else the pairs within `x`).
    pub(super) cross: bool,
    /// Per graph of the list, its nodes' classes (node pairs match where
    /// their classes are equal).
    pub(super) classes: Vec<Vec<u32>>,
}

impl<'g, N: Label, E: Label> GraphList<'g, N, E> {
    fn of(
        x: &'g [Graph<N, E>],
        y: Option<&'g [Graph<N, E>]>,
        classes: impl FnOnce(&[&'g Graph<N, E>]) -> Vec<Vec<u32>>,
    ) -> Self {
        let list: Vec<&Graph<N, E>> = x.iter().chain(y.unwrap_or_default()).collect();
        let classes = classes(&list);
        GraphList { list, nx: x.len(), cross: y.is_some(), classes }
    }

    /// The plain kernel's list: every node in one class (all node pairs match).
    pub(super) fn plain(x: &'g [Graph<N, E>], y: Option<&'g [Graph<N, E>]>) -> Self {
        Self::of(x, y, |list| list.iter().map(|g| vec![0; g.num_nodes()]).collect())
    }

    /// The node-labeled kernel's list: classes by equal labels ([`node_classes`]).
    pub(super) fn labeled(x: &'g [Graph<N, E>], y: Option<&'g [Graph<N, E>]>) -> Self
    where
        N: PartialEq,
    {
        Self::of(x, y, |list| node_classes(list.iter().copied()))
    }

    /// Per graph of the list, how many of its nodes are in each class (the
    /// matched node pairs of a pair are `Σ_c count_c count'_c`).
    pub(super) fn class_counts(&self) -> Vec<Vec<u64>> {
        let ncls = self.classes.iter().flatten().map(|&c| c as usize + 1).max().unwrap_or(0);
        self.classes
            .iter()
            .map(|c| {
                let mut h = vec![0u64; ncls];
                c.iter().for_each(|&v| h[v as usize] += 1);
                h
            })
            .collect()
    }
}
