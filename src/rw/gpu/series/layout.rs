//! The upload of a series call: the byte layout of the graphs in the
//! page-locked buffer ([`SeriesLayout`]) and the packer that writes it in
//! one pass per graph ([`pack`]).

use super::SeriesGraph;

/// The byte offsets of one call's upload (8-byte aligned sections): the
/// graphs in 32-bit CSR form with global row pointers, the exponents, `hmax`
/// (0) and, last, the scaled weights, which are left out of the upload when
/// every weight is 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct SeriesLayout {
    pub(crate) graphs: usize,
    pub(crate) nodes: usize,
    pub(crate) nnz: usize,
    /// First node of each graph and the total (`graphs + 1` × i32).
    pub(crate) o_node: usize,
    /// Global row pointers (`nodes + 1` × i32).
    pub(crate) o_ptr: usize,
    /// Column indices, local to the graph (`nnz` × i32).
    pub(crate) o_idx: usize,
    /// The exponents (`graphs` × i32).
    pub(crate) o_exp: usize,
    /// `hmax` (one u64, 0).
    pub(crate) o_hmax: usize,
    /// The scaled weights (`nnz` × f64).
    pub(crate) o_w: usize,
    /// The end of the weights: the bytes the packer may write.
    pub(crate) end: usize,
}

#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
impl SeriesLayout {
    /// The layout of `list`.
    pub(crate) fn new(list: &[SeriesGraph<'_>]) -> Self {
        let graphs = list.len();
        let nodes: usize = list.iter().map(|g| g.indptr.len().saturating_sub(1)).sum();
        let nnz: usize = list.iter().map(|g| g.indices.len()).sum();
        // each section at least one element, so that every offset points into the buffer
        let a8 = |bytes: usize| bytes.max(1).div_ceil(8) * 8;
        let o_ptr = a8(4 * (graphs + 1));
        let o_idx = o_ptr + a8(4 * (nodes + 1));
        let o_exp = o_idx + a8(4 * nnz);
        let o_hmax = o_exp + a8(4 * graphs);
        let o_w = o_hmax + 8;
        SeriesLayout { graphs, nodes, nnz, o_node: 0, o_ptr, o_idx, o_exp, o_hmax, o_w, end: o_w + a8(8 * nnz) }
    }

    /// The 8-byte words the packer writes.
    pub(crate) fn words(&self) -> usize {
        self.end / 8
    }
}

/// What [`pack`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct Packed {
    /// Every weight is 1: the weights are not uploaded (the kernels use 1).
    pub(crate) unit: bool,
    /// A bound of every `2^e ρ̂` (longest row × largest scaled weight,
    /// scaled back) for the moments' room.
    pub(crate) top: f64,
    /// The bytes to upload: through the exponents and `hmax`, and through
    /// the weights unless `unit`.
    pub(crate) up: usize,
}

/// `words` as `i32`s (two per word).
pub(super) fn as_i32(words: &mut [u64]) -> &mut [i32] {
    // SAFETY: the u64s' memory, exclusively borrowed for the result's lifetime, holds twice
    // as many i32s; u64's alignment is a multiple of i32's; every bit pattern is an i32.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<i32>(), 2 * words.len()) }
}

/// `words` as `f64`s.
pub(super) fn as_f64(words: &mut [u64]) -> &mut [f64] {
    // SAFETY: same size and alignment; every bit pattern is an f64.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<f64>(), words.len()) }
}

/// Writes the device layout of `list` ([`SeriesLayout`]) into `buf` (at
/// least `layout.words()` words) in one pass per graph: the largest weight
/// and the unit-weight check (one sweep of the weights), the exponent of
/// [`unit_weights`](crate::mgk::system::unit_weights), the row pointers made
/// global, the column indices in 32 bits, and the weights scaled by `2^−e`
/// (only once some graph's weights are not all 1; until then no weight is
/// written). No allocation. `O(nodes + nnz)`.
///
/// # Errors
/// `Err(g)` for the first graph whose scaled weights underflow to 0 (where
/// `unit_weights` fails). The caller checks the 32-bit limits first.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn pack(list: &[SeriesGraph<'_>], layout: &SeriesLayout, buf: &mut [u64]) -> Result<Packed, usize> {
    use crate::mgk::system::{scale_pow2, weight_exponent, weight_summary};
    let l = layout;
    let buf = &mut buf[..l.words()];
    let (head, w) = buf.split_at_mut(l.o_w / 8);
    let w = as_f64(w);
    let (head, hmax) = head.split_at_mut(l.o_hmax / 8);
    hmax[0] = 0;
    let (head, exp) = head.split_at_mut(l.o_exp / 8);
    let exp = as_i32(exp);
    let (head, idx) = head.split_at_mut(l.o_idx / 8);
    let idx = as_i32(idx);
    let (node_off, ptr) = head.split_at_mut(l.o_ptr / 8);
    let (node_off, ptr) = (as_i32(node_off), as_i32(ptr));
    ptr[0] = 0;
    let (mut node, mut base, mut unit, mut top) = (0usize, 0usize, true, 0.0f64);
    for (gi, g) in list.iter().enumerate() {
        let (largest, ones) = weight_summary(g.weights);
        let e = weight_exponent(largest);
        exp[gi] = e;
        node_off[gi] = node as i32;
        let n = g.indptr.len().saturating_sub(1);
        let mut longest = 0usize;
        for (d, r) in ptr[node + 1..node + 1 + n].iter_mut().zip(g.indptr.windows(2)) {
            *d = (base + r[1]) as i32;
            longest = longest.max(r[1] - r[0]);
        }
        let len = g.indices.len();
        for (d, &j) in idx[base..base + len].iter_mut().zip(g.indices) {
            *d = j as i32;
        }
        if !ones && unit {
            // the first graph with other weights: the graphs before it have weights 1
            w[..base].fill(1.0);
            unit = false;
        }
        if !unit {
            let wg = &mut w[base..base + len];
            if e == 0 {
                wg.copy_from_slice(g.weights);
            } else {
                let mut lost = false;
                for (d, &x) in wg.iter_mut().zip(g.weights) {
                    *d = scale_pow2(x, -e);
                    lost |= *d == 0.0 && x != 0.0;
                }
                if lost {
                    return Err(gi);
                }
            }
        }
        let wmax = if ones { 1.0 } else { scale_pow2(largest, -e) };
        top = top.max(scale_pow2(longest as f64 * wmax, e));
        node += n;
        base += len;
    }
    node_off[list.len()] = node as i32;
    Ok(Packed { unit, top, up: if unit { l.o_w } else { l.end } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Direction, Graph, GraphBuilder};
    use crate::mgk::system::unit_weights;

    fn graph(n: usize, seed: u64, w: impl Fn(usize) -> f64) -> Graph<(), ()> {
        let mut b = GraphBuilder::<(), ()>::new(n, Direction::Undirected).default_node_labels();
        let mut k = 0;
        for i in 0..n {
            for j in i + 1..n {
                if (i * 7 + j * 13 + seed as usize) % 3 == 0 {
                    b.push_edge(i, j, w(k), ());
                    k += 1;
                }
            }
        }
        b.build().unwrap()
    }

    fn list(x: &[Graph<(), ()>]) -> Vec<SeriesGraph<'_>> {
        x.iter().map(SeriesGraph::of).collect()
    }

    /// The packed layout is the graphs scaled by `unit_weights`, in 32-bit
    /// CSR with global row pointers; the weights are sent only when some
    /// are not 1, and then for every graph.
    #[test]
    fn pack_is_the_scaled_csr() {
        let unit = graph(9, 1, |_| 1.0);
        let band = graph(7, 2, |k| 0.5 + k as f64);
        let huge = graph(6, 3, |k| 1e150 * (1.0 + k as f64));
        let empty = graph(3, 4, |_| 1.0);
        for (set, want_unit) in [
            (vec![unit.clone(), empty.clone(), unit.clone()], true),
            (vec![unit.clone(), band.clone(), huge.clone(), empty.clone(), unit.clone()], false),
            (vec![huge.clone(), unit.clone()], false),
        ] {
            let l = list(&set);
            let layout = SeriesLayout::new(&l);
            let mut buf = vec![u64::MAX; layout.words() + 3];
            let packed = pack(&l, &layout, &mut buf).unwrap();
            assert_eq!(packed.unit, want_unit);
            assert_eq!(packed.up, if want_unit { layout.o_w } else { layout.end });
            let words = &mut buf[..layout.words()];
            let i32s = |w: &mut [u64], at: usize, n: usize| as_i32(&mut w[at / 8..])[..n].to_vec();
            let node_off = i32s(words, layout.o_node, set.len() + 1);
            let ptr = i32s(words, layout.o_ptr, layout.nodes + 1);
            let idx = i32s(words, layout.o_idx, layout.nnz);
            let exp = i32s(words, layout.o_exp, set.len());
            assert_eq!(words[layout.o_hmax / 8], 0);
            let w = as_f64(&mut words[layout.o_w / 8..])[..layout.nnz].to_vec();
            let (mut node, mut base, mut top) = (0usize, 0usize, 0.0f64);
            for (g, x) in set.iter().enumerate() {
                let (s, e) = unit_weights(x).unwrap();
                assert_eq!(exp[g], e);
                assert_eq!(node_off[g] as usize, node);
                for i in 0..x.num_nodes() {
                    assert_eq!(ptr[node + i + 1] as usize, base + s.indptr()[i + 1]);
                }
                for (k, &j) in s.indices().iter().enumerate() {
                    assert_eq!(idx[base + k] as usize, j);
                    if !want_unit {
                        assert_eq!(w[base + k].to_bits(), s.weights()[k].to_bits());
                    }
                }
                let longest = s.indptr().windows(2).map(|r| r[1] - r[0]).max().unwrap_or(0) as f64;
                let wmax = s.weights().iter().copied().fold(0.0, f64::max);
                top = top.max(crate::mgk::system::scale_pow2(longest * wmax, e));
                node += x.num_nodes();
                base += x.indices().len();
            }
            assert_eq!(node_off[set.len()] as usize, node);
            assert_eq!(packed.top, top);
        }
    }

    /// A graph whose scaled weights underflow is reported by its index, as
    /// `unit_weights` rejects it.
    #[test]
    fn pack_reports_weights_out_of_range() {
        let bad = graph(6, 5, |k| if k == 0 { 1e300 } else { 1e-300 });
        assert!(unit_weights(&bad).is_err());
        let set = [graph(4, 1, |_| 1.0), bad];
        let l = list(&set);
        let layout = SeriesLayout::new(&l);
        let mut buf = vec![0; layout.words()];
        assert_eq!(pack(&l, &layout, &mut buf), Err(1));
    }
}
