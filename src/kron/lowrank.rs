//! The factorized product for edge kernels of low rank.
//!
//! When the edge kernel's table over the edges of `G` and `G'` is
//! `κe(e, e') = Σ_r u_r[e]·v_r[e']` ([`LowRank`], from
//! [`BaseKernel::low_rank`](crate::basekernel::BaseKernel::low_rank)), the
//! product `(W ⊗ W') ⊙ κe` is `Σ_r (W ⊙ U_r) ⊗ (W' ⊙ V_r)` and applies as
//!
//! ```text
//! Y ← Y + α Σ_r (W ⊙ U_r) X (W' ⊙ V_r)ᵀ
//! ```
//!
//! (`X`, `Y` the `n × n'` matrices of `x`, `y`). Each term keeps only the
//! nonzeros of its two factors: for a Kronecker delta on edge labels, the
//! term of class `c` holds the edges of class `c` only, so all class terms
//! together cost about what the constant term costs.

use super::{KronApply, KronScalar, Octiles};
use crate::basekernel::LowRank;
use crate::graph::Label;
use std::sync::Mutex;

/// The nonzero rows of one factor `W ⊙ U_r`, CSR over those rows.
#[derive(Clone, Debug, Default)]
struct Factor<T> {
    rows: Vec<u32>,
    ptr: Vec<u32>,
    /// `(column, value)`; for the first factor the column is an index into
    /// the term's `cols`.
    ent: Vec<(u32, T)>,
}

impl<T: KronScalar> Factor<T> {
    /// `W ⊙ U` for the per-edge values `u` (zeros dropped).
    fn new<E: Label>(o: &Octiles<T, E>, u: &[f64]) -> Self {
        let mut f = Factor { rows: Vec::new(), ptr: vec![0], ent: Vec::new() };
        for i in 0..o.num_nodes() {
            let start = f.ent.len();
            for (&(j, w), &e) in o.row(i).iter().zip(o.row_edge_ids(i)) {
                let ue = u[e as usize];
                if ue != 0.0 {
                    f.ent.push((j, T::of_f64(w.as_f64() * ue)));
                }
            }
            if f.ent.len() > start {
                f.rows.push(i as u32);
                f.ptr.push(f.ent.len() as u32);
            }
        }
        f
    }

    #[inline]
    fn row(&self, k: usize) -> &[(u32, T)] {
        &self.ent[self.ptr[k] as usize..self.ptr[k + 1] as usize]
    }
}

/// One term `(W ⊙ U_r) X (W' ⊙ V_r)ᵀ`.
#[derive(Clone, Debug)]
struct Term<T> {
    a: Factor<T>,
    /// The distinct columns of `a` (the rows of `X` the term reads).
    cols: Vec<u32>,
    b: Factor<T>,
}

/// `A× = Σ_r (W ⊙ U_r) ⊗ (W' ⊙ V_r)`: the Kronecker product of two packed
/// graphs for an edge kernel given in low-rank form, applied in factorized
/// form.
///
/// One application costs `Σ_r (|cols(U_r)|·nnz(W' ⊙ V_r) + nnz(W ⊙ U_r)·|rows(V_r)|)`
/// multiply–adds ([`cost`](Self::cost)), against `nnz·nnz'` for the
/// entry-by-entry products: for `r` terms at most `r·(n·nnz' + nnz·n')`,
/// and about twice the constant kernel's `n·nnz' + nnz·n'` for a Kronecker
/// delta on edge labels. Memory: the factors (`O(nnz + nnz')` per term at
/// most) and an `|cols|·|rows|` scratch buffer.
///
/// # Examples
/// ```
/// use kronograph::basekernel::{BaseKernel, KroneckerDelta};
/// use kronograph::graph::{Direction, GraphBuilder};
/// use kronograph::kron::{KronApply, LowRankKron, Octiles};
/// let g = GraphBuilder::<(), u8>::new(3, Direction::Undirected)
///     .node_labels(vec![(); 3]).edge(0, 1, 1.0, 1).edge(1, 2, 1.0, 2).build().unwrap();
/// let p = Octiles::<f64, u8>::new(&g);
/// let k = KroneckerDelta::new(0.5);
/// let lr = LowRankKron::for_kernel(&p, &p, &k).unwrap();
/// let mut y = vec![0.0; 9];
/// let mut x = vec![0.0; 9];
/// x[0] = 1.0; // product node (0, 0)
/// lr.apply_add(1.0, &x, &mut y);
/// assert_eq!(y[4], 1.0); // (1, 1): both edges 0–1, equal labels
/// ```
#[derive(Debug)]
pub struct LowRankKron<T> {
    n: usize,
    m: usize,
    terms: Vec<Term<T>>,
    /// `(product node, value)` of the diagonal (pairs of self-loops).
    diag: Vec<(usize, T)>,
    scratch: Mutex<(Vec<T>, Vec<T>)>,
}

impl<T: KronScalar> LowRankKron<T> {
    /// The product of `a` (`G`) and `b` (`G'`) for the edge kernel whose
    /// table over their edges (edge ids of [`Octiles`]) is `lr`.
    ///
    /// # Panics
    /// If `lr` is not `|E| × |E'|`.
    pub fn new<E: Label>(a: &Octiles<T, E>, b: &Octiles<T, E>, lr: &LowRank) -> Self {
        assert_eq!(lr.shape(), (a.num_edge_ids(), b.num_edge_ids()), "LowRankKron: shape of the low-rank form");
        let mut slot = vec![u32::MAX; a.num_nodes()];
        let terms = lr
            .terms()
            .iter()
            .map(|t| {
                let mut fa = Factor::new(a, &t.u);
                let mut cols = Vec::new();
                for (j, _) in fa.ent.iter_mut() {
                    let s = &mut slot[*j as usize];
                    if *s == u32::MAX {
                        *s = cols.len() as u32;
                        cols.push(*j);
                    }
                    *j = *s;
                }
                cols.iter().for_each(|&j| slot[j as usize] = u32::MAX);
                Term { a: fa, cols, b: Factor::new(b, &t.v) }
            })
            .collect();
        let m = b.num_nodes();
        let (ea, ida) = (a.entries(), a.edge_ids());
        let (eb, idb) = (b.entries(), b.edge_ids());
        let mut diag = Vec::new();
        for &ka in a.self_loops() {
            for &kb in b.self_loops() {
                let (sa, sb) = (&ea[ka as usize], &eb[kb as usize]);
                let (e, ep) = (ida[ka as usize] as usize, idb[kb as usize] as usize);
                let k: f64 = lr.terms().iter().map(|t| t.u[e] * t.v[ep]).sum();
                diag.push((
                    sa.row as usize * m + sb.row as usize,
                    T::of_f64(sa.weight.as_f64() * sb.weight.as_f64() * k),
                ));
            }
        }
        LowRankKron { n: a.num_nodes(), m, terms, diag, scratch: Mutex::default() }
    }

    /// The product for edge kernel `kernel`, if it has a low-rank form on
    /// the edge labels of `a` and `b`
    /// ([`BaseKernel::low_rank`](crate::basekernel::BaseKernel::low_rank)).
    pub fn for_kernel<E: Label, K: crate::basekernel::BaseKernel<E>>(
        a: &Octiles<T, E>,
        b: &Octiles<T, E>,
        kernel: &K,
    ) -> Option<Self> {
        let la: Vec<&E> = (0..a.num_edge_ids() as u32).map(|e| a.edge_label(e)).collect();
        let lb: Vec<&E> = (0..b.num_edge_ids() as u32).map(|e| b.edge_label(e)).collect();
        kernel.low_rank(&la, &lb).map(|lr| Self::new(a, b, &lr))
    }

    /// The number of terms.
    pub fn rank(&self) -> usize {
        self.terms.len()
    }

    /// Multiply–adds of one application:
    /// `Σ_r (|cols(U_r)|·nnz(W' ⊙ V_r) + nnz(W ⊙ U_r)·|rows(V_r)|)`.
    pub fn cost(&self) -> usize {
        self.terms.iter().map(|t| t.cols.len() * t.b.ent.len() + t.a.ent.len() * t.b.rows.len()).sum()
    }

    /// `y ← y + α (W ⊙ U) X (W' ⊙ V)ᵀ` for one term.
    fn apply_term(&self, t: &Term<T>, alpha: T, x: &[T], y: &mut [T], tmp: &mut Vec<T>, acc: &mut Vec<T>) {
        let m = self.m;
        let rows = &t.b.rows;
        let k = rows.len();
        // tmp[c, k] = Σ_j' (W' ⊙ V)[rows[k], j'] X[cols[c], j']
        tmp.clear();
        tmp.reserve(t.cols.len() * k);
        for &j in &t.cols {
            let xr = &x[j as usize * m..(j as usize + 1) * m];
            tmp.extend((0..k).map(|r| {
                let mut s = T::zero();
                for &(jp, w) in t.b.row(r) {
                    s += w * xr[jp as usize];
                }
                s
            }));
        }
        let full = k == m;
        for (ra, &i) in t.a.rows.iter().enumerate() {
            let yr = &mut y[i as usize * m..(i as usize + 1) * m];
            let target: &mut [T] = if full {
                yr
            } else {
                acc.clear();
                acc.resize(k, T::zero());
                acc
            };
            for &(c, w) in t.a.row(ra) {
                let f = alpha * w;
                let tr = &tmp[c as usize * k..(c as usize + 1) * k];
                target.iter_mut().zip(tr).for_each(|(o, &v)| *o += f * v);
            }
            if !full {
                let yr = &mut y[i as usize * m..(i as usize + 1) * m];
                for (&ip, &v) in rows.iter().zip(acc.iter()) {
                    yr[ip as usize] += v;
                }
            }
        }
    }
}

impl<T: KronScalar> KronApply<T> for LowRankKron<T> {
    #[inline]
    fn dim(&self) -> usize {
        self.n * self.m
    }

    fn apply_add(&self, alpha: T, x: &[T], y: &mut [T]) {
        let dim = self.dim();
        assert_eq!(x.len(), dim, "LowRankKron: x length");
        assert_eq!(y.len(), dim, "LowRankKron: y length");
        let mut guard = self.scratch.try_lock();
        let mut local = (Vec::new(), Vec::new());
        let (tmp, acc) = match guard {
            Ok(ref mut g) => {
                let (tmp, acc) = &mut **g;
                (tmp, acc)
            }
            Err(_) => (&mut local.0, &mut local.1),
        };
        for t in &self.terms {
            self.apply_term(t, alpha, x, y, tmp, acc);
        }
    }

    fn diagonal_add(&self, alpha: T, d: &mut [T]) {
        for &(at, v) in &self.diag {
            d[at] += alpha * v;
        }
    }
}
