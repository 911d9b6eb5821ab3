//! The edge-pair product in SIMD form: the second graph packed as SELL-8
//! (rows in chunks of eight, each chunk padded to its longest row), the
//! first graph's rows of `X` gathered once per application.
//!
//! For graphs `G` (edges `e = s–t`) and `G'`, [`SellKron`] applies
//!
//! ```text
//! Y[s, i'] += α Σ_{e = s–t} Σ_{arcs i'→j' of G'} C[e, e'(i'→j')] X[t, j']
//! ```
//!
//! in two steps:
//!
//! 1. `Xg[t, p] = X[t, j'(p)]` for every node `t` of `G` and every slot `p`
//!    of the packing of `G'` (`n·L` gathers, `L ≈ nnz'`), shared by all the
//!    edges of `G` at `t`;
//! 2. for every edge `e = s–t` of `G`, eight rows of `G'` at a time:
//!    `Y[s, i'..i'+8] += α Σ_slots Carc[e, p..p+8] ⊙ Xg[t, p..p+8]` (and
//!    `s`, `t` swapped for the reverse arc), where `Carc[e, p] = C[e, e'(p)]`
//!    is the edge-pair table laid out in the slots of the packing (0 on
//!    padding): contiguous loads, sums in registers, no gathers.
//!
//! The sums run in the same order on every instruction set, and no multiply
//! and add are fused, so the AVX-512 and AVX2 builds of the loop (chosen at
//! run time) and the portable one give the same bits.

use super::{KronApply, KronScalar, Octiles};
use crate::basekernel::BaseKernel;
use crate::graph::Label;
use std::sync::Mutex;

/// Rows of `G'` per chunk (one AVX-512 register of `f64`).
pub const LANES: usize = 8;

/// The arcs of a graph packed as SELL-8: rows `8c..8c+8` form chunk `c`,
/// whose slots hold, row by row interleaved (`slot·8 + lane`), the arcs of
/// those rows, padded to the longest one.
///
/// Few slots are padding when rows of similar length are neighbours: the
/// MGK's CPU engine numbers the nodes of small graphs by decreasing degree.
#[derive(Clone, Debug, Default)]
pub struct SellPattern {
    rows: usize,
    /// Start of chunk `c`'s slots (a multiple of 8); `chunks + 1` entries.
    chunk_ptr: Vec<u32>,
    /// Column `j'` of each slot (0 on padding).
    cols: Vec<u32>,
    /// Edge id of each slot (`num_edges` on padding).
    edges: Vec<u32>,
    /// The number of edge ids of the graph.
    num_edges: usize,
    /// `(row, slot)` of every self-loop.
    loops: Vec<(u32, u32)>,
}

impl SellPattern {
    /// Packs the arcs of `g`.
    pub fn new<T: KronScalar, E: Label>(g: &Octiles<T, E>) -> Self {
        let rows = g.num_nodes();
        let (ptr, arcs) = (g.row_ptr(), g.arcs());
        let pad = u32::try_from(g.num_edge_ids()).expect("SellPattern: fewer than 2³² edges");
        let mut chunk_ptr = vec![0u32];
        let (mut cols, mut edges, mut loops) = (Vec::new(), Vec::new(), Vec::new());
        for c in 0..rows.div_ceil(LANES) {
            let lanes = c * LANES..((c + 1) * LANES).min(rows);
            let width = lanes.clone().map(|i| (ptr[i + 1] - ptr[i]) as usize).max().unwrap_or(0);
            for slot in 0..width {
                for lane in 0..LANES {
                    let i = c * LANES + lane;
                    match (lanes.contains(&i)).then(|| ptr[i] as usize + slot).filter(|&k| k < ptr[i + 1] as usize) {
                        Some(k) => {
                            if arcs[k][0] == arcs[k][1] {
                                loops.push((arcs[k][0], cols.len() as u32));
                            }
                            cols.push(arcs[k][1]);
                            edges.push(arcs[k][2]);
                        }
                        None => {
                            cols.push(0);
                            edges.push(pad);
                        }
                    }
                }
            }
            chunk_ptr.push(u32::try_from(cols.len()).expect("SellPattern: fewer than 2³² slots"));
        }
        SellPattern { rows, chunk_ptr, cols, edges, num_edges: g.num_edge_ids(), loops }
    }

    /// The number of slots `L` (arcs and padding).
    pub fn len(&self) -> usize {
        self.cols.len()
    }

    /// Whether there are no slots (no arcs).
    pub fn is_empty(&self) -> bool {
        self.cols.is_empty()
    }

    /// The number of rows (nodes).
    pub fn rows(&self) -> usize {
        self.rows
    }
}

/// `A× = (W ⊗ W') ⊙ κe(E, E')` applied through the edge-pair table laid out
/// in the slots of `G'`'s [`SellPattern`] (`|E|·L` values) and one gather
/// of `X` per node of `G` and slot of `G'` per application (module
/// documentation).
///
/// Memory: the table (borrowed) and an `n·L` gather buffer (owned; take it
/// back with [`into_buffer`](Self::into_buffer) to reuse it).
#[derive(Debug)]
pub struct SellKron<'a, T, E> {
    a: &'a Octiles<T, E>,
    pat: &'a SellPattern,
    table: &'a [T],
    xg: Mutex<Vec<T>>,
}

impl<'a, T: KronScalar, E: Label> SellKron<'a, T, E> {
    /// Fills `out` (resized to `|E|·L`) with `Carc[e·L + p] = w_e w'_e'
    /// κe(l_e, l'_e')` for the edge `e'` of slot `p` of `pat` (the packing
    /// of `b`), 0 on padding: the rows of κe by [`BaseKernel::for_each_row`]
    /// (in `f64`, `scratch` its work memory: one row for SPEC kernels, the
    /// `|E|·|E'|` table for others), each weighted (in precision `T`, into
    /// `row`) and spread over the slots. The values are those of
    /// [`EdgePairKron::table`](super::EdgePairKron::table).
    ///
    /// # Panics
    /// If `pat` is not the packing of `b`.
    pub fn table<K: BaseKernel<E>>(
        a: &Octiles<T, E>,
        b: &Octiles<T, E>,
        pat: &SellPattern,
        kernel: &K,
        out: &mut Vec<T>,
        scratch: &mut Vec<f64>,
        row: &mut Vec<T>,
    ) {
        let (ma, mb) = (a.num_edge_ids(), b.num_edge_ids());
        assert!(pat.rows == b.num_nodes() && pat.num_edges == mb, "SellKron: pattern of another graph");
        let la: Vec<&E> = (0..ma as u32).map(|e| a.edge_label(e)).collect();
        let lb: Vec<&E> = (0..mb as u32).map(|e| b.edge_label(e)).collect();
        let wb: Vec<T> = (0..mb as u32).map(|e| b.edge_arc(e).2).collect();
        out.clear();
        out.reserve(ma * pat.len());
        // each row of κe spread over the slots as it is computed (no |E|·|E'| table
        // for kernels evaluated row by row, BaseKernel::for_each_row)
        kernel.for_each_row(&la, &lb, scratch, &mut |e, kr| {
            fill_slots(a.edge_arc(e as u32).2, &pat.edges, kr, &wb, out, row)
        });
        if mb == 0 {
            out.resize(ma * pat.len(), T::zero());
        }
    }

    /// The operator of `a` (`G`) and `G'` packed as `pat`, with the slot
    /// table `table` of [`table`](Self::table); `xg` is the gather buffer
    /// (any content, resized as needed).
    ///
    /// # Panics
    /// If the table does not have `|E|·L` entries.
    pub fn new(a: &'a Octiles<T, E>, pat: &'a SellPattern, table: &'a [T], xg: Vec<T>) -> Self {
        assert_eq!(table.len(), a.num_edge_ids() * pat.len(), "SellKron: slot table length");
        SellKron { a, pat, table, xg: Mutex::new(xg) }
    }

    /// The gather buffer, for reuse.
    pub fn into_buffer(self) -> Vec<T> {
        self.xg.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// Step 2 for all edges of `G` (module documentation).
    #[inline(always)]
    fn edges_pass(&self, alpha: T, xg: &[T], y: &mut [T]) {
        let (m, l) = (self.pat.rows, self.pat.len());
        let cp = &self.pat.chunk_ptr;
        for e in 0..self.a.num_edge_ids() {
            let (s, t, _) = self.a.edge_arc(e as u32);
            let row = &self.table[e * l..(e + 1) * l];
            let xt = &xg[t * l..(t + 1) * l];
            if self.a.is_undirected() && s != t {
                let xs = &xg[s * l..(s + 1) * l];
                let (lo, hi) = y.split_at_mut(t * m);
                let (ys, yt) = (&mut lo[s * m..(s + 1) * m], &mut hi[..m]);
                for (c, w) in cp.windows(2).enumerate() {
                    let (p0, p1) = (w[0] as usize, w[1] as usize);
                    let (mut acs, mut act) = ([T::zero(); LANES], [T::zero(); LANES]);
                    let slots = row[p0..p1].chunks_exact(LANES).zip(xt[p0..p1].chunks_exact(LANES));
                    for ((cv, xtv), xsv) in slots.zip(xs[p0..p1].chunks_exact(LANES)) {
                        for k in 0..LANES {
                            acs[k] += cv[k] * xtv[k];
                            act[k] += cv[k] * xsv[k];
                        }
                    }
                    add_lanes(alpha, &acs, &mut ys[c * LANES..]);
                    add_lanes(alpha, &act, &mut yt[c * LANES..]);
                }
            } else {
                let ys = &mut y[s * m..(s + 1) * m];
                for (c, w) in cp.windows(2).enumerate() {
                    let (p0, p1) = (w[0] as usize, w[1] as usize);
                    let mut acs = [T::zero(); LANES];
                    for (cv, xtv) in row[p0..p1].chunks_exact(LANES).zip(xt[p0..p1].chunks_exact(LANES)) {
                        for k in 0..LANES {
                            acs[k] += cv[k] * xtv[k];
                        }
                    }
                    add_lanes(alpha, &acs, &mut ys[c * LANES..]);
                }
            }
        }
    }

    /// Both steps, for one instruction set (inlined into each `target_feature` build).
    #[inline(always)]
    fn apply_body(&self, alpha: T, x: &[T], y: &mut [T], xg: &mut Vec<T>) {
        let (n, m, l) = (self.a.num_nodes(), self.pat.rows, self.pat.len());
        if m == 0 || l == 0 {
            return;
        }
        xg.resize(n * l, T::zero());
        gather_rows(&self.pat.cols, m, x, xg);
        self.edges_pass(alpha, xg, y);
    }

    /// `y ← y + α A× x` by the portable loop (the instruction-set builds give the same bits).
    #[cfg(test)]
    pub(crate) fn apply_portable(&self, alpha: T, x: &[T], y: &mut [T]) {
        let mut xg = self.xg.lock().unwrap_or_else(|e| e.into_inner());
        self.apply_body(alpha, x, y, &mut xg)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn apply_avx512(&self, alpha: T, x: &[T], y: &mut [T], xg: &mut Vec<T>) {
        self.apply_body(alpha, x, y, xg)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn apply_avx2(&self, alpha: T, x: &[T], y: &mut [T], xg: &mut Vec<T>) {
        self.apply_body(alpha, x, y, xg)
    }
}

crate::simd::isa_dispatch!(
    /// One row of the slot table from the row `k` of κe (`|E'|` values) of
    /// an edge of weight `wa`: weighted into `row` (with a 0 for padding at
    /// `|E'|`), then spread over the slots (`edges`: the edge of each slot)
    /// and appended to `out`; compiled for the CPU's widest vectors
    /// (gathers), the same values on every path.
    fn fill_slots<T: KronScalar>(wa: T, edges: &[u32], k: &[f64], wb: &[T], out: &mut Vec<T>, row: &mut Vec<T>) = fill_slots_body
);

#[inline(always)]
fn fill_slots_body<T: KronScalar>(wa: T, edges: &[u32], k: &[f64], wb: &[T], out: &mut Vec<T>, row: &mut Vec<T>) {
    // padding at |E'|
    row.clear();
    row.extend(k.iter().zip(wb).map(|(&k, &w)| wa * w * T::of_f64(k)));
    row.resize(wb.len() + 1, T::zero());
    let row: &[T] = row;
    out.reserve(edges.len());
    // written through a slice of the spare capacity (a plain loop of loads and
    // stores: `extend` reloaded the row's pointer for every slot)
    for (o, &e) in out.spare_capacity_mut()[..edges.len()].iter_mut().zip(edges) {
        // SAFETY: the edge ids of the pattern are below |E'| + 1 = row.len()
        // (|E'| marks padding; the caller checked the pattern against G').
        o.write(unsafe { *row.get_unchecked(e as usize) });
    }
    // SAFETY: the loop above initialized the next edges.len() entries (reserved).
    unsafe { out.set_len(out.len() + edges.len()) };
}

/// Step 1 (module documentation): `xg[t·L + p] = x[t·m + cols[p]]`, by
/// scalar loads and stores (four rows of `G` per column read): kept out of
/// the instruction-set builds, whose hardware gathers (`vgatherqpd`) ran
/// slower on these short rows.
#[inline(never)]
fn gather_rows<T: KronScalar>(cols: &[u32], m: usize, x: &[T], xg: &mut [T]) {
    let l = cols.len();
    // four rows per column read: three memory operations per value become two and a quarter
    let mut xb = x.chunks_exact(4 * m);
    let mut gb = xg.chunks_exact_mut(4 * l);
    for (g, xr) in (&mut gb).zip(&mut xb) {
        let (g0, g) = g.split_at_mut(l);
        let (g1, g) = g.split_at_mut(l);
        let (g2, g3) = g.split_at_mut(l);
        let (x0, x1, x2, x3) = (&xr[..m], &xr[m..2 * m], &xr[2 * m..3 * m], &xr[3 * m..]);
        for (p, &j) in cols.iter().enumerate() {
            // SAFETY: every column of the pattern is a node of `G'` (an arc's
            // column, or 0 on padding, and `G'` has nodes), below m; p < l.
            unsafe {
                let j = j as usize;
                *g0.get_unchecked_mut(p) = *x0.get_unchecked(j);
                *g1.get_unchecked_mut(p) = *x1.get_unchecked(j);
                *g2.get_unchecked_mut(p) = *x2.get_unchecked(j);
                *g3.get_unchecked_mut(p) = *x3.get_unchecked(j);
            }
        }
    }
    for (g, xr) in gb.into_remainder().chunks_exact_mut(l).zip(xb.remainder().chunks_exact(m)) {
        for (o, &j) in g.iter_mut().zip(cols) {
            // SAFETY: as above.
            *o = unsafe { *xr.get_unchecked(j as usize) };
        }
    }
}

/// `y[k] += α·acc[k]` for the lanes that are rows (the last chunk may be short).
#[inline(always)]
fn add_lanes<T: KronScalar>(alpha: T, acc: &[T; LANES], y: &mut [T]) {
    if let Some(y) = y.first_chunk_mut::<LANES>() {
        for k in 0..LANES {
            y[k] += alpha * acc[k];
        }
    } else {
        for (y, &a) in y.iter_mut().zip(acc) {
            *y += alpha * a;
        }
    }
}

impl<T: KronScalar, E: Label> KronApply<T> for SellKron<'_, T, E> {
    #[inline]
    fn dim(&self) -> usize {
        self.a.num_nodes() * self.pat.rows
    }

    fn apply_add(&self, alpha: T, x: &[T], y: &mut [T]) {
        let dim = self.dim();
        assert_eq!(x.len(), dim, "SellKron: x length");
        assert_eq!(y.len(), dim, "SellKron: y length");
        let mut xg = self.xg.lock().unwrap_or_else(|e| e.into_inner());
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F (checked just above).
                return unsafe { self.apply_avx512(alpha, x, y, &mut xg) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                return unsafe { self.apply_avx2(alpha, x, y, &mut xg) };
            }
        }
        self.apply_body(alpha, x, y, &mut xg)
    }

    fn diagonal_add(&self, alpha: T, d: &mut [T]) {
        let (m, l) = (self.pat.rows, self.pat.len());
        let (ea, ida) = (self.a.entries(), self.a.edge_ids());
        for &ka in self.a.self_loops() {
            let (i, e) = (ea[ka as usize].row as usize, ida[ka as usize] as usize);
            for &(ip, p) in &self.pat.loops {
                d[i * m + ip as usize] += alpha * self.table[e * l + p as usize];
            }
        }
    }
}
