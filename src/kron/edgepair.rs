//! The lazy product with a cached table of edge-pair values, applied row by
//! row of the second graph.
//!
//! For graphs `G` (edges `e`, arcs `i → j`) and `G'`, the entry values of
//! `A× = (W ⊗ W') ⊙ κe(E, E')` depend on the pair of *edges* only: both arcs
//! of an undirected edge carry its weight and label. [`EdgePairKron`] keeps
//! the table `C[e, e'] = w_e w'_e' κe(l_e, l'_e')` (`|E|·|E'|` values, a
//! quarter of the `nnz·nnz'` arc pairs of two undirected graphs) and applies
//!
//! ```text
//! Y[i, i'] += α Σ_{arcs i→j of e} Σ_{arcs i'→j' of G'} C[e, e'(i'→j')] X[j, j']
//! ```
//!
//! edge by edge of `G`, each edge's two arcs together, as sparse
//! matrix–vector products over the rows of `G'` (CSR): the table row of the
//! edge and the rows `X[j, :]` stay in L1, the sums run in registers and
//! each row of `Y` is written once per edge (no scattered
//! read–modify–write per entry).

use super::{KronApply, KronScalar, Octiles};
use crate::basekernel::BaseKernel;
use crate::graph::Label;

/// From this mean degree of `G'` on, rows of `Y` are summed in registers
/// (few, long rows); below it, the arcs of `G'` are walked in one flat loop
/// (many short rows, where the per-row overhead dominates).
const ROW_SUM_DEGREE: usize = 6;

/// `A× = (W ⊗ W') ⊙ κe(E, E')` applied through a table of edge-pair values
/// computed once per pair of graphs by [`EdgePairKron::table`].
///
/// Memory: the table (`|E|·|E'|` values, borrowed). One application costs
/// `nnz·nnz'` multiply–adds, like the tiled [`KronProduct`](super::KronProduct)
/// loop, without evaluating κe.
///
/// # Examples
/// ```
/// use kronograph::graph::{Direction, GraphBuilder};
/// use kronograph::kron::{EdgePairKron, KronApply, Octiles, Unlabeled};
/// let g = GraphBuilder::<(), ()>::new(2, Direction::Undirected)
///     .node_labels(vec![(); 2]).edge(0, 1, 1.0, ()).build().unwrap();
/// let p = Octiles::<f64, ()>::new(&g);
/// let mut table = Vec::new();
/// EdgePairKron::table(&p, &p, &Unlabeled, &mut table, &mut Vec::new());
/// let k = EdgePairKron::new(&p, &p, &table);
/// let mut y = vec![0.0; 4];
/// k.apply_add(1.0, &[1.0, 2.0, 3.0, 4.0], &mut y);
/// assert_eq!(y, vec![4.0, 3.0, 2.0, 1.0]); // (W ⊗ W) x swaps both indices
/// ```
#[derive(Clone, Copy, Debug)]
pub struct EdgePairKron<'a, T, E> {
    a: &'a Octiles<T, E>,
    b: &'a Octiles<T, E>,
    values: &'a [T],
}

impl<'a, T: KronScalar, E: Label> EdgePairKron<'a, T, E> {
    /// Fills `out` (resized to `|E|·|E'|`, capacity reused) with
    /// `C[e·|E'| + e'] = w_e w'_e' κe(l_e, l'_e')` for the packed graphs `a`
    /// and `b`: one [`BaseKernel::table`] of `|E|·|E'|` values of κe (in
    /// `f64`, into `scratch`), then the weights in precision `T`.
    pub fn table<K: BaseKernel<E>>(
        a: &Octiles<T, E>,
        b: &Octiles<T, E>,
        kernel: &K,
        out: &mut Vec<T>,
        scratch: &mut Vec<f64>,
    ) {
        let (ma, mb) = (a.num_edge_ids(), b.num_edge_ids());
        let la: Vec<&E> = (0..ma as u32).map(|e| a.edge_label(e)).collect();
        let lb: Vec<&E> = (0..mb as u32).map(|e| b.edge_label(e)).collect();
        kernel.table(&la, &lb, scratch);
        let wb: Vec<T> = (0..mb as u32).map(|e| b.edge_arc(e).2).collect();
        out.clear();
        out.reserve(ma * mb);
        for (e, kr) in scratch.chunks_exact(mb.max(1)).take(ma).enumerate() {
            let wa = a.edge_arc(e as u32).2;
            out.extend(kr.iter().zip(&wb).map(|(&k, &w)| wa * w * T::of_f64(k)));
        }
    }

    /// The operator of `a` (`G`) and `b` (`G'`) with the table `values` of
    /// [`table`](Self::table).
    ///
    /// # Panics
    /// If `values` does not hold `|E|·|E'|` entries.
    pub fn new(a: &'a Octiles<T, E>, b: &'a Octiles<T, E>, values: &'a [T]) -> Self {
        assert_eq!(values.len(), a.num_edge_ids() * b.num_edge_ids(), "EdgePairKron: table length");
        EdgePairKron { a, b, values }
    }

    /// `y_s[i'] += α Σ_{i'→j'} row[e'] x_t[j']` (arc `s → t` of `G`) and,
    /// for the reverse arc, `y_t[i'] += α Σ row[e'] x_s[j']`, over the arcs
    /// of `G'` in one flat pass.
    #[inline(always)]
    fn edge_rows(&self, alpha: T, row: &[T], xt: &[T], xs: Option<&[T]>, ys: &mut [T], yt: Option<&mut [T]>) {
        let arcs = self.b.arcs();
        let m = self.b.num_nodes();
        assert!(xt.len() == m && ys.len() == m && row.len() == self.b.num_edge_ids());
        let dense_rows = arcs.len() >= ROW_SUM_DEGREE * m;
        match (xs, yt) {
            (Some(xs), Some(yt)) if dense_rows => {
                assert!(xs.len() == m && yt.len() == m);
                let ptr = self.b.row_ptr();
                for ip in 0..m {
                    // two partial sums per row (even and odd arcs): half the add latency chain
                    let (mut s1, mut s2, mut t1, mut t2) = (T::zero(), T::zero(), T::zero(), T::zero());
                    // SAFETY: as below; `ptr` has n' + 1 entries, at most arcs.len().
                    unsafe {
                        let (lo, hi) = (*ptr.get_unchecked(ip) as usize, *ptr.get_unchecked(ip + 1) as usize);
                        let pairs = arcs.get_unchecked(lo..hi).chunks_exact(2);
                        let rest = pairs.remainder();
                        for two in pairs {
                            let ([_, j0, e0], [_, j1, e1]) = (two[0], two[1]);
                            let (c0, c1) = (*row.get_unchecked(e0 as usize), *row.get_unchecked(e1 as usize));
                            s1 += c0 * *xt.get_unchecked(j0 as usize);
                            s2 += c0 * *xs.get_unchecked(j0 as usize);
                            t1 += c1 * *xt.get_unchecked(j1 as usize);
                            t2 += c1 * *xs.get_unchecked(j1 as usize);
                        }
                        for &[_, j, e] in rest {
                            let c = *row.get_unchecked(e as usize);
                            s1 += c * *xt.get_unchecked(j as usize);
                            s2 += c * *xs.get_unchecked(j as usize);
                        }
                        *ys.get_unchecked_mut(ip) += alpha * (s1 + t1);
                        *yt.get_unchecked_mut(ip) += alpha * (s2 + t2);
                    }
                }
            }
            (Some(xs), Some(yt)) => {
                assert!(xs.len() == m && yt.len() == m);
                for &[ip, j, e] in arcs {
                    // SAFETY: rows and columns are below n' (the lengths
                    // asserted above) and edge ids below |E'| = row.len(),
                    // by construction of the packing.
                    unsafe {
                        let c = alpha * *row.get_unchecked(e as usize);
                        *ys.get_unchecked_mut(ip as usize) += c * *xt.get_unchecked(j as usize);
                        *yt.get_unchecked_mut(ip as usize) += c * *xs.get_unchecked(j as usize);
                    }
                }
            }
            _ => {
                for &[ip, j, e] in arcs {
                    // SAFETY: as above.
                    unsafe {
                        let c = alpha * *row.get_unchecked(e as usize);
                        *ys.get_unchecked_mut(ip as usize) += c * *xt.get_unchecked(j as usize);
                    }
                }
            }
        }
    }
}

impl<T: KronScalar, E: Label> KronApply<T> for EdgePairKron<'_, T, E> {
    #[inline]
    fn dim(&self) -> usize {
        self.a.num_nodes() * self.b.num_nodes()
    }

    fn apply_add(&self, alpha: T, x: &[T], y: &mut [T]) {
        let dim = self.dim();
        assert_eq!(x.len(), dim, "EdgePairKron: x length");
        assert_eq!(y.len(), dim, "EdgePairKron: y length");
        let (m, mb) = (self.b.num_nodes(), self.b.num_edge_ids());
        if m == 0 {
            return;
        }
        for e in 0..self.a.num_edge_ids() {
            let (s, t, _) = self.a.edge_arc(e as u32);
            let row = &self.values[e * mb..(e + 1) * mb];
            let xt = &x[t * m..(t + 1) * m];
            if self.a.is_undirected() && s != t {
                // arcs s → t and t → s: rows s and t of Y (s < t)
                let xs = &x[s * m..(s + 1) * m];
                let (lo, hi) = y.split_at_mut(t * m);
                self.edge_rows(alpha, row, xt, Some(xs), &mut lo[s * m..(s + 1) * m], Some(&mut hi[..m]));
            } else {
                self.edge_rows(alpha, row, xt, None, &mut y[s * m..(s + 1) * m], None);
            }
        }
    }

    fn diagonal_add(&self, alpha: T, d: &mut [T]) {
        let (nb, mb) = (self.b.num_nodes(), self.b.num_edge_ids());
        let (ea, ida) = (self.a.entries(), self.a.edge_ids());
        let (eb, idb) = (self.b.entries(), self.b.edge_ids());
        for &ka in self.a.self_loops() {
            for &kb in self.b.self_loops() {
                let c = self.values[ida[ka as usize] as usize * mb + idb[kb as usize] as usize];
                d[ea[ka as usize].row as usize * nb + eb[kb as usize].row as usize] += alpha * c;
            }
        }
    }
}
