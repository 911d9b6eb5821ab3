//! The Kronecker product restricted to node pairs of equal class.

use super::KronApply;
use crate::graph::{Graph, Label};
use crate::solver::{LinOp, Real, SolverError};

/// One arc of a [`ClassPacking`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct ClassArc<T> {
    i: u32,
    j: u32,
    ri: u32,
    rj: u32,
    w: T,
}

/// A graph packed for [`MatchedKron`]: each node's class (a small integer,
/// e.g. its discrete label) and rank among the nodes of its class, and the
/// arcs grouped by the class pair `(class(i), class(j))`.
///
/// Built once per graph in `O(n + nnz log nnz)`.
#[derive(Clone, Debug)]
pub struct ClassPacking<T> {
    n: usize,
    class: Vec<u32>,
    rank: Vec<u32>,
    class_size: Vec<u32>,
    arcs: Vec<ClassArc<T>>,
    /// (class i, class j, start, end) into `arcs`, sorted.
    buckets: Vec<(u32, u32, u32, u32)>,
    self_loops: Vec<u32>,
    directed: bool,
}

impl<T: Real> ClassPacking<T> {
    /// Packs `g` with node classes `classes` (one per node).
    ///
    /// # Panics
    /// If `classes.len() != g.num_nodes()`.
    pub fn new<N: Label, E: Label>(g: &Graph<N, E>, classes: &[u32]) -> Self {
        let n = g.num_nodes();
        assert_eq!(classes.len(), n, "ClassPacking: one class per node");
        let nc = classes.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut class_size = vec![0u32; nc];
        let mut rank = vec![0u32; n];
        for (i, &c) in classes.iter().enumerate() {
            rank[i] = class_size[c as usize];
            class_size[c as usize] += 1;
        }
        let mut arcs: Vec<ClassArc<T>> = Vec::with_capacity(g.num_entries());
        for i in 0..n {
            for k in g.row_range(i) {
                let j = g.indices()[k];
                arcs.push(ClassArc {
                    i: i as u32,
                    j: j as u32,
                    ri: rank[i],
                    rj: rank[j],
                    w: T::of_f64(g.weights()[k]),
                });
            }
        }
        arcs.sort_by_key(|a| (classes[a.i as usize], classes[a.j as usize], a.ri, a.rj));
        let mut buckets: Vec<(u32, u32, u32, u32)> = Vec::new();
        let mut self_loops = Vec::new();
        for (k, a) in arcs.iter().enumerate() {
            let key = (classes[a.i as usize], classes[a.j as usize]);
            match buckets.last_mut() {
                Some(b) if (b.0, b.1) == key => b.3 += 1,
                _ => buckets.push((key.0, key.1, k as u32, k as u32 + 1)),
            }
            if a.i == a.j {
                self_loops.push(k as u32);
            }
        }
        ClassPacking {
            n,
            class: classes.to_vec(),
            rank,
            class_size,
            arcs,
            buckets,
            self_loops,
            directed: g.is_directed(),
        }
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.n
    }

    /// Whether the packed graph is directed.
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// Number of nodes of class `c`.
    #[inline]
    pub fn class_size(&self, c: u32) -> u32 {
        self.class_size.get(c as usize).copied().unwrap_or(0)
    }

    fn bucket(&self, ci: u32, cj: u32) -> Option<(usize, usize)> {
        self.buckets
            .binary_search_by(|b| (b.0, b.1).cmp(&(ci, cj)))
            .ok()
            .map(|k| (self.buckets[k].2 as usize, self.buckets[k].3 as usize))
    }
}

/// A pair of node classes.
type ClassPair = (u32, u32);

/// One arc of `G` with the arcs of `G'` it pairs with.
#[derive(Clone, Copy, Debug)]
struct PlanItem<T> {
    yo: u32,
    xo: u32,
    w: T,
    start: u32,
    end: u32,
}

/// The Kronecker product `W ⊗ W'` restricted to the node pairs `(i, i')`
/// with `class(i) = class(i')` (node-labeled random walks: walks on both
/// graphs that visit nodes of equal labels step by step).
///
/// Product nodes are indexed compactly: `(i, i') ↦ off(i) + rank'(i')`, where
/// `off(i) = Σ_{k<i} |{i' : class(i') = class(k)}|` and `rank'(i')` is the
/// rank of `i'` among the nodes of its class in `G'`. The dimension is
/// `Σ_c n_c n'_c`, and one application costs `O(Σ_{c,d} nnz_cd nnz'_cd)`,
/// where `nnz_cd` counts arcs from class `c` to class `d`: for `C` evenly
/// spread classes about `nnz·nnz'/C²`, against `nnz·nnz'` for the full product.
///
/// Building it costs `O(n + nnz log nnz')` and `O(n + nnz)` memory (the
/// offsets and, per arc of `G`, the range of matching arcs of `G'`).
#[derive(Clone, Debug)]
pub struct MatchedKron<'a, T> {
    a: &'a ClassPacking<T>,
    b: &'a ClassPacking<T>,
    off: Vec<u32>,
    dim: usize,
    plan: Vec<PlanItem<T>>,
}

impl<'a, T: Real> MatchedKron<'a, T> {
    /// The restricted product of `a` (`G`) and `b` (`G'`).
    pub fn new(a: &'a ClassPacking<T>, b: &'a ClassPacking<T>) -> Self {
        let mut off = Vec::with_capacity(a.n);
        let mut dim = 0usize;
        for &c in &a.class {
            off.push(dim as u32);
            dim += b.class_size(c) as usize;
        }
        let mut plan = Vec::with_capacity(a.arcs.len());
        let mut last: Option<(ClassPair, Option<(usize, usize)>)> = None;
        for arc in &a.arcs {
            let key = (a.class[arc.i as usize], a.class[arc.j as usize]);
            let range = match last {
                Some((k, r)) if k == key => r,
                _ => {
                    let r = b.bucket(key.0, key.1);
                    last = Some((key, r));
                    r
                }
            };
            if let Some((s, e)) = range {
                plan.push(PlanItem {
                    yo: off[arc.i as usize],
                    xo: off[arc.j as usize],
                    w: arc.w,
                    start: s as u32,
                    end: e as u32,
                });
            }
        }
        MatchedKron { a, b, off, dim, plan }
    }

    /// The compact index of the product node `(i, i')`, or `None` when the
    /// classes differ.
    pub fn index(&self, i: usize, ip: usize) -> Option<usize> {
        (self.a.class[i] == self.b.class[ip]).then(|| self.off[i] as usize + self.b.rank[ip] as usize)
    }

    /// The product as a dense row-major `dim × dim` matrix (for tests).
    pub fn to_dense(&self) -> Vec<f64> {
        let d = self.dim;
        let mut m = vec![0.0; d * d];
        for p in &self.plan {
            for f in &self.b.arcs[p.start as usize..p.end as usize] {
                let r = p.yo as usize + f.ri as usize;
                let c = p.xo as usize + f.rj as usize;
                m[r * d + c] += p.w.as_f64() * f.w.as_f64();
            }
        }
        m
    }
}

impl<T: Real> KronApply<T> for MatchedKron<'_, T> {
    #[inline]
    fn dim(&self) -> usize {
        self.dim
    }

    fn apply_add(&self, alpha: T, x: &[T], y: &mut [T]) {
        assert_eq!(x.len(), self.dim, "MatchedKron: x length");
        assert_eq!(y.len(), self.dim, "MatchedKron: y length");
        let barcs = &self.b.arcs;
        for p in &self.plan {
            let aw = alpha * p.w;
            let (yo, xo) = (p.yo as usize, p.xo as usize);
            for f in &barcs[p.start as usize..p.end as usize] {
                // f.ri < class_size(class(i)) so yo + f.ri < dim; same for x.
                y[yo + f.ri as usize] += aw * f.w * x[xo + f.rj as usize];
            }
        }
    }

    fn diagonal_add(&self, alpha: T, d: &mut [T]) {
        for &ka in &self.a.self_loops {
            let ea = self.a.arcs[ka as usize];
            for &kb in &self.b.self_loops {
                let eb = self.b.arcs[kb as usize];
                if let Some(idx) = self.index(ea.i as usize, eb.i as usize) {
                    d[idx] += alpha * ea.w * eb.w;
                }
            }
        }
    }
}

impl<T: Real> LinOp<Vec<T>> for MatchedKron<'_, T> {
    fn nrows(&self) -> usize {
        self.dim
    }
    fn ncols(&self) -> usize {
        self.dim
    }
    fn apply(&self, x: &Vec<T>, y: &mut Vec<T>) -> Result<(), SolverError> {
        if x.len() != self.dim || y.len() != self.dim {
            return Err(SolverError::DimensionMismatch {
                what: "matched Kronecker vector",
                expected: self.dim,
                found: x.len(),
            });
        }
        y.fill(T::zero());
        self.apply_add(T::one(), x, y);
        Ok(())
    }
    fn diagonal(&self, d: &mut Vec<T>) -> Result<bool, SolverError> {
        d.resize(self.dim, T::zero());
        d.fill(T::zero());
        self.diagonal_add(T::one(), d);
        Ok(true)
    }
}
