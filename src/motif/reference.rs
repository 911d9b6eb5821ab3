//! Brute force: every connected k-vertex set of a small graph, as an
//! executable specification of [`localized`](super::localized).

use crate::graph::{Graph, Label};

/// Most vertices [`brute_force`] accepts (it enumerates k-subsets).
pub const BRUTE_FORCE_MAX_NODES: usize = 24;

/// For every vertex, whether it lies in a connected set of `motif.len()`
/// vertices whose colours form the multiset `motif`, by enumerating the
/// connected vertex sets that grow from each vertex (each set once).
/// `None` when the graph has more than [`BRUTE_FORCE_MAX_NODES`] vertices.
pub fn brute_force<N: Label, E: Label>(g: &Graph<N, E>, colors: &[u32], motif: &[u32]) -> Option<Vec<bool>> {
    let n = g.num_nodes();
    if n > BRUTE_FORCE_MAX_NODES || colors.len() != n {
        return None;
    }
    let k = motif.len();
    let mut want = motif.to_vec();
    want.sort_unstable();
    let adj: Vec<u32> =
        (0..n).map(|v| g.neighbors(v).iter().filter(|&&u| u != v).fold(0u32, |m, &u| m | 1 << u)).collect();
    let mut hit = 0u32;
    if k == 0 || k > n {
        return Some(vec![false; n]);
    }
    // every k-subset; connected and coloured as the motif
    let mut stack = vec![(0u32, 0usize)];
    while let Some((set, next)) = stack.pop() {
        let size = set.count_ones() as usize;
        if size == k {
            let mut got: Vec<u32> = (0..n).filter(|&v| set >> v & 1 == 1).map(|v| colors[v]).collect();
            got.sort_unstable();
            if got == want && connected(set, &adj) {
                hit |= set;
            }
            continue;
        }
        for v in next..n {
            if n - v >= k - size {
                stack.push((set | 1 << v, v + 1));
            }
        }
    }
    Some((0..n).map(|v| hit >> v & 1 == 1).collect())
}

fn connected(set: u32, adj: &[u32]) -> bool {
    let start = set & set.wrapping_neg();
    let mut reach = start;
    loop {
        let mut grow = reach;
        let mut r = reach;
        while r != 0 {
            let v = r.trailing_zeros() as usize;
            r &= r - 1;
            grow |= adj[v] & set;
        }
        if grow == reach {
            return reach == set;
        }
        reach = grow;
    }
}
