//! One graph of a TU data set assembled by the counting sort of
//! [`csr`](crate::graph::io::csr), checked for duplicate arcs and for the
//! symmetry of an undirected graph (every arc listed in both directions,
//! with the same labels) without making a label record per arc first.

use super::diagnose::Ctx;
use crate::graph::io::csr;
use crate::graph::{Direction, Duplicates, Graph, Record};

impl Ctx<'_> {
    /// The graph of nodes `lo..hi` and arcs `ids` (indexes into the arcs, in
    /// file order), or `None` when it has a duplicate or an arc without its
    /// reverse (the builder then reports it with its line).
    pub(super) fn assemble(
        &self,
        lo: usize,
        hi: usize,
        ids: &[usize],
        node_record: &(impl Fn(usize) -> Record + Sync),
        edge_record: &(impl Fn(usize) -> Record + Sync),
    ) -> Option<Graph<Record, Record>> {
        let n = hi - lo;
        let rows: Vec<u32> = ids.iter().map(|&k| (self.arcs[k].0 - lo) as u32).collect();
        let cols: Vec<u32> = ids.iter().map(|&k| (self.arcs[k].1 - lo) as u32).collect();
        if rows.iter().chain(&cols).any(|&x| x as usize >= n) {
            return None;
        }
        let sorted = csr::sort(n, &[(&rows, &cols)], false)?;
        let (indptr, indices, sorted) = csr::resolve(sorted, Duplicates::Reject)?;
        let arc = |p: usize| ids[sorted.entry(sorted.slots[p])];
        let same =
            |a: usize, b: usize| [self.edge_labels, self.edge_attrs].into_iter().flatten().all(|t| t.same_rows(a, b));
        for i in 0..n {
            for p in indptr[i]..indptr[i + 1] {
                let j = indices[p];
                if j == i {
                    continue;
                }
                let back = indices[indptr[j]..indptr[j + 1]].binary_search(&i).ok()? + indptr[j];
                if !same(arc(p), arc(back)) {
                    return None;
                }
            }
        }
        let edge_labels = (0..indices.len()).map(|p| edge_record(arc(p))).collect();
        let weights = vec![1.0; indices.len()];
        let nodes = (lo..hi).map(node_record).collect();
        csr::graph(n, Direction::Undirected, (indptr, indices, weights), nodes, edge_labels)
    }
}
