//! The lazy generalized Kronecker product `(W ⊗ W') ⊙ κe(E, E')`.

use super::{KronApply, Octiles, Tile};
use crate::basekernel::{BaseKernel, CudaGen, Hyperparameter, KernelError};
use crate::graph::Label;
use crate::solver::{LinOp, Real, SolverError};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::Mutex;

/// A scalar in which a [`KronProduct`] evaluates base kernels: `f64` calls
/// [`BaseKernel::value`], `f32` calls [`BaseKernel::value_f32`].
pub trait KronScalar: Real {
    /// κ(a, b) in this precision.
    fn kernel_value<E: ?Sized, K: BaseKernel<E>>(k: &K, a: &E, b: &E) -> Self;
}

impl KronScalar for f64 {
    #[inline(always)]
    fn kernel_value<E: ?Sized, K: BaseKernel<E>>(k: &K, a: &E, b: &E) -> Self {
        k.value(a, b)
    }
}

impl KronScalar for f32 {
    #[inline(always)]
    fn kernel_value<E: ?Sized, K: BaseKernel<E>>(k: &K, a: &E, b: &E) -> Self {
        k.value_f32(a, b)
    }
}

/// The edge kernel κe ≡ 1 on any label type: with it a [`KronProduct`] is the
/// plain Kronecker product `W ⊗ W'` (the constant folds away in the
/// monomorphized inner loop).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unlabeled;

impl<E: ?Sized> BaseKernel<E> for Unlabeled {
    #[inline(always)]
    fn value(&self, _a: &E, _b: &E) -> f64 {
        1.0
    }
    #[inline(always)]
    fn value_f32(&self, _a: &E, _b: &E) -> f32 {
        1.0
    }
    fn range(&self) -> (f64, f64) {
        (1.0, 1.0)
    }
    fn low_rank(&self, a: &[&E], b: &[&E]) -> Option<crate::basekernel::LowRank> {
        Some(crate::basekernel::LowRank::constant(1.0, a.len(), b.len()))
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        Vec::new()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        if theta.is_empty() {
            Ok(())
        } else {
            Err(KernelError::ThetaLength { expected: 0, found: theta.len() })
        }
    }
    fn gradient(&self, _a: &E, _b: &E, _grad: &mut [f64]) -> f64 {
        1.0
    }
    fn cuda(&self, _a: &str, _b: &str, _gen: &mut CudaGen) -> Result<String, KernelError> {
        Ok("1".to_string())
    }
}

/// The lazy operator `A× = (W ⊗ W') ⊙ κe(E, E')` of two packed graphs.
///
/// Entry `A×[(i,i'),(j,j')] = W_ij W'_i'j' κe(e_ij, e'_i'j')`, product node
/// `(i, i')` at index `i·n' + i'`. Never stored: [`apply_add`](KronApply::apply_add)
/// walks all pairs of non-empty octiles and evaluates κe on the fly, in
/// `O(nnz · nnz')` time and `O(1)` extra memory.
///
/// `T` is the precision (`f64` or `f32`), `E` the edge label type and `K` the
/// edge kernel, monomorphized into the inner loop.
///
/// When the edge kernel is a constant `c` (its [`range`](BaseKernel::range)
/// is a single point, as for [`Unlabeled`]), `A× = c W ⊗ W'` factorizes and
/// the product is applied as `Y ← Y + α c W X W'ᵀ` (`X`, `Y` the `n × n'`
/// matrices of `x`, `y`) in `O(n·nnz' + nnz·n')` instead of `O(nnz·nnz')`,
/// with an `n·n'` scratch buffer held by the operator.
///
/// # Examples
/// ```
/// use kronograph::graph::{Direction, GraphBuilder};
/// use kronograph::kron::{KronApply, KronProduct, Octiles, Unlabeled};
/// let g = GraphBuilder::<(), ()>::new(2, Direction::Undirected)
///     .node_labels(vec![(); 2]).edge(0, 1, 1.0, ()).build().unwrap();
/// let p = Octiles::<f64, ()>::new(&g);
/// let k = KronProduct::new(&p, &p, &Unlabeled)?;
/// let mut y = vec![0.0; 4];
/// k.apply_add(1.0, &[1.0, 2.0, 3.0, 4.0], &mut y);
/// assert_eq!(y, vec![4.0, 3.0, 2.0, 1.0]); // (W ⊗ W) x swaps both indices
/// # Ok::<(), kronograph::basekernel::KernelError>(())
/// ```
///
/// A kernel on [`Record`](crate::graph::Record) labels is bound to the
/// labels' schema by [`new`](Self::new): a field the labels do not have is
/// an error naming it, not a silent default.
#[derive(Debug)]
pub struct KronProduct<'a, T, E, K: Clone> {
    a: &'a Octiles<T, E>,
    b: &'a Octiles<T, E>,
    kernel: Cow<'a, K>,
    constant: Option<T>,
    scratch: Mutex<Vec<T>>,
}

impl<T: Copy, E, K: Clone> Clone for KronProduct<'_, T, E, K> {
    fn clone(&self) -> Self {
        KronProduct {
            a: self.a,
            b: self.b,
            kernel: self.kernel.clone(),
            constant: self.constant,
            scratch: Mutex::default(),
        }
    }
}

/// (row block, first tile, end tile) of the tiles of one row block.
type RowGroup = (usize, usize, usize);

/// Product dimension from which [`KronProduct`] parallelizes one
/// application over row blocks with rayon.
pub(super) const PAR_DIM: usize = 1 << 17;

/// `kernel` bound ([`BaseKernel::bind`], on a clone) to the schema of the
/// edge labels of two graphs (`a`, `b`: the schema of each graph's labels, if
/// any), or borrowed as it is for labels without a schema.
///
/// # Errors
/// [`KernelError::Label`] naming a field the labels do not have (or of the
/// wrong kind), or when the two graphs' labels have different schemas.
pub(crate) fn bind_kernel<E: ?Sized, K: BaseKernel<E> + Clone>(
    kernel: &K,
    a: Option<std::sync::Arc<crate::graph::Schema>>,
    b: Option<std::sync::Arc<crate::graph::Schema>>,
) -> Result<Cow<'_, K>, KernelError> {
    Ok(match (a, b) {
        (None, None) => Cow::Borrowed(kernel),
        (Some(s), Some(t)) if *s != *t => {
            return Err(crate::graph::LabelError::RecordShape {
                expected: s.describe(),
                found: format!("edge labels of the second graph with fields {}", t.describe()),
            }
            .into())
        }
        (Some(s), _) | (None, Some(s)) => {
            let mut k = kernel.clone();
            k.bind(&s)?;
            Cow::Owned(k)
        }
    })
}

impl<'a, T: KronScalar, E: Label, K: BaseKernel<E>> KronProduct<'a, T, E, K> {
    /// The product of the packed graphs `a` (`G`) and `b` (`G'`) with edge
    /// kernel `kernel`. `O(1)` for labels without a schema; for
    /// [`Record`](crate::graph::Record) labels the kernel is cloned and bound
    /// ([`BaseKernel::bind`]) to their schema, so that a field name is
    /// checked where the kernel meets the data.
    ///
    /// # Errors
    /// [`KernelError::Label`] naming a field the labels do not have (or of
    /// the wrong kind), or when the two graphs' edge labels have different
    /// schemas.
    pub fn new(a: &'a Octiles<T, E>, b: &'a Octiles<T, E>, kernel: &'a K) -> Result<Self, KernelError> {
        let schema = |o: &Octiles<T, E>| o.labels().first().and_then(|l| l.schema()).cloned();
        let kernel = bind_kernel(kernel, schema(a), schema(b))?;
        Ok(Self::with_kernel(a, b, kernel))
    }

    /// [`new`](Self::new) for a kernel the caller has already bound to the
    /// labels' schema (the marginalized graph kernel binds once per call).
    pub(crate) fn prebound(a: &'a Octiles<T, E>, b: &'a Octiles<T, E>, kernel: &'a K) -> Self {
        Self::with_kernel(a, b, Cow::Borrowed(kernel))
    }

    fn with_kernel(a: &'a Octiles<T, E>, b: &'a Octiles<T, E>, kernel: Cow<'a, K>) -> Self {
        let (lo, hi) = kernel.range();
        let constant = (lo == hi && lo.is_finite()).then(|| T::of_f64(lo));
        KronProduct { a, b, kernel, constant, scratch: Mutex::default() }
    }

    /// Whether the edge kernel is constant, so that the factorized
    /// `W X W'ᵀ` form is used.
    pub fn is_factorized(&self) -> bool {
        self.constant.is_some()
    }

    /// `y ← y + α c vec(W X W'ᵀ)` (constant edge kernel `c`).
    fn apply_factorized(&self, alpha: T, c: T, x: &[T], y: &mut [T]) {
        let (n, m) = (self.a.num_nodes(), self.b.num_nodes());
        let mut guard = self.scratch.try_lock();
        let mut local = Vec::new();
        let tmp: &mut Vec<T> = match guard {
            Ok(ref mut g) => g,
            Err(_) => &mut local,
        };
        tmp.resize(n * m, T::zero());
        let par = n * m >= PAR_DIM;
        // tmp[j, i'] = Σ_j' W'[i', j'] X[j, j']
        let first = |(xr, tr): (&[T], &mut [T])| {
            for (ip, t) in tr.iter_mut().enumerate() {
                let mut s = T::zero();
                for &(jp, w) in self.b.row(ip) {
                    s += w * xr[jp as usize];
                }
                *t = s;
            }
        };
        if m == 0 {
            return;
        }
        let scale = alpha * c;
        if par {
            x.par_chunks(m).zip(tmp.par_chunks_mut(m)).for_each(first);
            let tmp: &[T] = tmp;
            y.par_chunks_mut(m).enumerate().for_each(|(i, yr)| self.second_factor_row(scale, i, tmp, yr));
        } else {
            x.chunks(m).zip(tmp.chunks_mut(m)).for_each(first);
            let tmp: &[T] = tmp;
            y.chunks_mut(m).enumerate().for_each(|(i, yr)| self.second_factor_row(scale, i, tmp, yr));
        }
    }

    /// `Y[i, :] += s Σ_j W[i, j] tmp[j, :]`.
    #[inline]
    fn second_factor_row(&self, s: T, i: usize, tmp: &[T], yr: &mut [T]) {
        let m = yr.len();
        for &(j, w) in self.a.row(i) {
            let f = s * w;
            let tr = &tmp[j as usize * m..(j as usize + 1) * m];
            for (yv, &tv) in yr.iter_mut().zip(tr) {
                *yv += f * tv;
            }
        }
    }

    /// Evaluates `W_ij W'_i'j' κe(e_ij, e'_i'j')` for every pair of stored
    /// entries, in the order [`apply_add_cached`](Self::apply_add_cached)
    /// reads them, into `out` (resized to `nnz·nnz'`; capacity reused).
    ///
    /// This caches the edge-kernel part of one pair so that iterative solves
    /// evaluate κe once instead of once per iteration; it costs
    /// `nnz·nnz'` values of memory, so use it for small graphs only.
    pub fn edge_values(&self, out: &mut Vec<T>) {
        out.clear();
        out.reserve(self.a.entries().len() * self.b.entries().len());
        // κe once per pair of edges (not arcs): 4× fewer evaluations for
        // undirected graphs, whose two arcs of an edge share its label
        let (ma, mb) = (self.a.num_edge_ids(), self.b.num_edge_ids());
        let mut table = Vec::with_capacity(ma * mb);
        for ia in 0..ma as u32 {
            let la = self.a.edge_label(ia);
            table.extend((0..mb as u32).map(|ib| T::kernel_value(&*self.kernel, la, self.b.edge_label(ib))));
        }
        let (ea, ida) = (self.a.entries(), self.a.edge_ids());
        let (eb, idb) = (self.b.entries(), self.b.edge_ids());
        for ta in self.a.tiles() {
            let ra = self.a.tile_range(ta);
            for tb in self.b.tiles() {
                let rb = self.b.tile_range(tb);
                for k in ra.clone() {
                    let wa = ea[k].weight;
                    let row = &table[ida[k] as usize * mb..(ida[k] as usize + 1) * mb];
                    for (f, &ib) in eb[rb.clone()].iter().zip(&idb[rb.clone()]) {
                        out.push(wa * f.weight * row[ib as usize]);
                    }
                }
            }
        }
    }

    /// `y ← y + α A× x` with the entry values precomputed by
    /// [`edge_values`](Self::edge_values): no kernel evaluation, one
    /// sequential read of `values`. `O(nnz·nnz')`, single-threaded.
    ///
    /// # Panics
    /// If `values` does not have `nnz·nnz'` entries or `x`, `y` are not
    /// `n·n'` long.
    pub fn apply_add_cached(&self, values: &[T], alpha: T, x: &[T], y: &mut [T]) {
        let nb = self.b.num_nodes();
        assert_eq!(values.len(), self.a.entries().len() * self.b.entries().len(), "KronProduct: cached values");
        assert_eq!(x.len(), self.dim(), "KronProduct: x length");
        assert_eq!(y.len(), self.dim(), "KronProduct: y length");
        let (ea, lpb) = (self.a.entries(), self.b.local_positions());
        let mut v = values.iter();
        for ta in self.a.tiles() {
            let ra = self.a.tile_range(ta);
            for tb in self.b.tiles() {
                let lbt = &lpb[self.b.tile_range(tb)];
                let (ro, co) = (tb.bi as usize * 8, tb.bj as usize * 8);
                for e in &ea[ra.clone()] {
                    let yb = e.row as usize * nb + ro;
                    let xb = e.col as usize * nb + co;
                    for (&rc, &val) in lbt.iter().zip(v.by_ref()) {
                        let (yi, xi) = (yb + (rc >> 3) as usize, xb + (rc & 7) as usize);
                        debug_assert!(yi < y.len() && xi < x.len());
                        // SAFETY: as in `row_block`: indices are below n·n'
                        // by construction and the lengths are asserted above.
                        unsafe {
                            *y.get_unchecked_mut(yi) += alpha * val * *x.get_unchecked(xi);
                        }
                    }
                }
            }
        }
    }

    /// The first factor.
    pub fn left(&self) -> &'a Octiles<T, E> {
        self.a
    }

    /// The second factor.
    pub fn right(&self) -> &'a Octiles<T, E> {
        self.b
    }

    /// The product as a dense row-major `(n·n') × (n·n')` matrix in `f64`
    /// (for tests; `O((n·n')²)` memory).
    pub fn to_dense(&self) -> Vec<f64> {
        let nb = self.b.num_nodes();
        let dim = self.a.num_nodes() * nb;
        let mut m = vec![0.0; dim * dim];
        for (ea, la) in self.a.entries().iter().zip(self.a.labels()) {
            for (eb, lb) in self.b.entries().iter().zip(self.b.labels()) {
                let r = ea.row as usize * nb + eb.row as usize;
                let c = ea.col as usize * nb + eb.col as usize;
                m[r * dim + c] += ea.weight.as_f64() * eb.weight.as_f64() * self.kernel.value(la, lb);
            }
        }
        m
    }

    /// `y_blk ← y_blk + α (A× x)` for the tiles `tiles_a` of `G`, which all
    /// lie in row block `bi`; `y_blk` holds rows `8·bi·n' ..` of `y`.
    #[inline]
    fn row_block(&self, alpha: T, x: &[T], tiles_a: &[Tile], y_blk: &mut [T], y_off: usize) {
        let nb = self.b.num_nodes();
        let (ea, la) = (self.a.entries(), self.a.labels());
        let (eb, lb, lpb) = (self.b.entries(), self.b.labels(), self.b.local_positions());
        for ta in tiles_a {
            let ra = self.a.tile_range(ta);
            for tb in self.b.tiles() {
                let rb = self.b.tile_range(tb);
                let (ebt, lbt, pbt) = (&eb[rb.clone()], &lb[rb.clone()], &lpb[rb]);
                let (ro, co) = (tb.bi as usize * 8, tb.bj as usize * 8);
                for k in ra.clone() {
                    let e = ea[k];
                    let lab = &la[k];
                    let aw = alpha * e.weight;
                    let yb = e.row as usize * nb - y_off + ro;
                    let xb = e.col as usize * nb + co;
                    for ((f, l), &rc) in ebt.iter().zip(lbt).zip(pbt) {
                        let v = aw * f.weight * T::kernel_value(&*self.kernel, lab, l);
                        let (yi, xi) = (yb + (rc >> 3) as usize, xb + (rc & 7) as usize);
                        debug_assert!(yi < y_blk.len() && xi < x.len());
                        // SAFETY: rows and columns of both packings are below
                        // their node counts (checked when packing), `x` has
                        // n·n' entries (asserted in `apply_add`) and `y_blk`
                        // holds the rows of block `bi` (built there).
                        unsafe {
                            *y_blk.get_unchecked_mut(yi) += v * *x.get_unchecked(xi);
                        }
                    }
                }
            }
        }
    }
}

impl<T: KronScalar, E: Label, K: BaseKernel<E>> KronApply<T> for KronProduct<'_, T, E, K> {
    #[inline]
    fn dim(&self) -> usize {
        self.a.num_nodes() * self.b.num_nodes()
    }

    fn apply_add(&self, alpha: T, x: &[T], y: &mut [T]) {
        let dim = self.dim();
        assert_eq!(x.len(), dim, "KronProduct: x length");
        assert_eq!(y.len(), dim, "KronProduct: y length");
        if let Some(c) = self.constant {
            self.apply_factorized(alpha, c, x, y);
            return;
        }
        let nb = self.b.num_nodes();
        let tiles = self.a.tiles();
        // groups of tiles of one row block: they write rows 8bi..8bi+8 of G
        let mut groups: Vec<RowGroup> = Vec::new();
        let mut s = 0;
        while s < tiles.len() {
            let bi = tiles[s].bi;
            let mut e = s;
            while e < tiles.len() && tiles[e].bi == bi {
                e += 1;
            }
            groups.push((bi as usize, s, e));
            s = e;
        }
        let blk = 8 * nb;
        if dim >= PAR_DIM && groups.len() > 1 {
            let mut chunks: Vec<(usize, &mut [T])> = y.chunks_mut(blk).enumerate().collect();
            // chunks are indexed by row block; each group writes only its own
            let mut work: Vec<(&RowGroup, &mut [T])> = Vec::with_capacity(groups.len());
            let mut it = chunks.iter_mut();
            for g in &groups {
                let (_, c) = it.find(|(b, _)| *b == g.0).expect("row block in range");
                work.push((g, std::mem::take(c)));
            }
            work.into_par_iter().for_each(|(&(bi, s, e), yb)| self.row_block(alpha, x, &tiles[s..e], yb, bi * blk));
        } else {
            for &(bi, s, e) in &groups {
                let end = ((bi + 1) * blk).min(dim);
                self.row_block(alpha, x, &tiles[s..e], &mut y[bi * blk..end], bi * blk);
            }
        }
    }

    fn diagonal_add(&self, alpha: T, d: &mut [T]) {
        let nb = self.b.num_nodes();
        for &ka in self.a.self_loops() {
            let (ea, la) = (self.a.entries()[ka as usize], &self.a.labels()[ka as usize]);
            for &kb in self.b.self_loops() {
                let (eb, lb) = (self.b.entries()[kb as usize], &self.b.labels()[kb as usize]);
                d[ea.row as usize * nb + eb.row as usize] +=
                    alpha * ea.weight * eb.weight * T::kernel_value(&*self.kernel, la, lb);
            }
        }
    }
}

/// A [`KronProduct`] with its entry values cached by
/// [`KronProduct::edge_values`]: the same operator, applied without
/// evaluating the edge kernel.
pub struct CachedKron<'p, 'a, T, E, K: Clone> {
    kron: &'p KronProduct<'a, T, E, K>,
    values: &'p [T],
}

impl<'p, 'a, T: KronScalar, E: Label, K: BaseKernel<E>> CachedKron<'p, 'a, T, E, K> {
    /// The cached operator.
    ///
    /// # Errors
    /// [`SolverError::DimensionMismatch`] if `values` does not have
    /// `nnz·nnz'` entries (fill it with [`KronProduct::edge_values`]).
    pub fn new(kron: &'p KronProduct<'a, T, E, K>, values: &'p [T]) -> Result<Self, SolverError> {
        let expected = kron.a.entries().len() * kron.b.entries().len();
        if values.len() != expected {
            return Err(SolverError::DimensionMismatch {
                what: "CachedKron edge values",
                expected,
                found: values.len(),
            });
        }
        Ok(CachedKron { kron, values })
    }
}

impl<T: KronScalar, E: Label, K: BaseKernel<E>> KronApply<T> for CachedKron<'_, '_, T, E, K> {
    fn dim(&self) -> usize {
        self.kron.dim()
    }
    fn apply_add(&self, alpha: T, x: &[T], y: &mut [T]) {
        self.kron.apply_add_cached(self.values, alpha, x, y);
    }
    fn diagonal_add(&self, alpha: T, d: &mut [T]) {
        self.kron.diagonal_add(alpha, d);
    }
}

impl<T: KronScalar, E: Label, K: BaseKernel<E>> LinOp<Vec<T>> for KronProduct<'_, T, E, K> {
    fn nrows(&self) -> usize {
        self.dim()
    }
    fn ncols(&self) -> usize {
        self.dim()
    }
    fn apply(&self, x: &Vec<T>, y: &mut Vec<T>) -> Result<(), SolverError> {
        if x.len() != self.dim() || y.len() != self.dim() {
            return Err(SolverError::DimensionMismatch {
                what: "Kronecker product vector",
                expected: self.dim(),
                found: x.len(),
            });
        }
        y.fill(T::zero());
        self.apply_add(T::one(), x, y);
        Ok(())
    }
    fn diagonal(&self, d: &mut Vec<T>) -> Result<bool, SolverError> {
        d.resize(self.dim(), T::zero());
        d.fill(T::zero());
        self.diagonal_add(T::one(), d);
        Ok(true)
    }
}
