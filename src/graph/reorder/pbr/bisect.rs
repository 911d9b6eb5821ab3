//! PBR's first stage: recursive bisection into parts of exactly 8 nodes
//! (greedy graph growing from two pseudo-peripheral starts, FM refinement of
//! the edge cut, rebalancing).

use super::PbrParams;
use crate::graph::reorder::rcm::{pseudo_peripheral, Bfs};
use crate::graph::reorder::tiles::TILE;
use crate::graph::reorder::Pattern;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(super) fn bisect_recursive(
    p: &Pattern,
    nodes: Vec<usize>,
    first_part: usize,
    part: &mut [usize],
    params: &PbrParams,
    ws: &mut Workspace,
) {
    let k = nodes.len().div_ceil(TILE);
    if k <= 1 {
        for &v in &nodes {
            part[v] = first_part;
        }
        return;
    }
    let left_size = TILE * (k / 2);
    let (left, right) = bisect(p, &nodes, left_size, params, ws);
    bisect_recursive(p, left, first_part, part, params, ws);
    bisect_recursive(p, right, first_part + k / 2, part, params, ws);
}

/// Reusable global-to-local index map.
pub(super) struct Workspace {
    local: Vec<usize>,
}

impl Workspace {
    pub(super) fn new(n: usize) -> Self {
        Workspace { local: vec![usize::MAX; n] }
    }
}

/// The subgraph induced by a node set, in local ids.
struct Sub {
    xadj: Vec<usize>,
    adj: Vec<usize>,
}

impl Sub {
    fn len(&self) -> usize {
        self.xadj.len() - 1
    }
    fn neighbors(&self, v: usize) -> &[usize] {
        &self.adj[self.xadj[v]..self.xadj[v + 1]]
    }
    fn degree(&self, v: usize) -> usize {
        self.xadj[v + 1] - self.xadj[v]
    }
    fn as_pattern(&self) -> Pattern {
        Pattern { xadj: self.xadj.clone(), adj: self.adj.clone(), self_loop: vec![false; self.len()] }
    }
}

/// Splits `nodes` into a side of exactly `target` nodes and the rest.
fn bisect(
    p: &Pattern,
    nodes: &[usize],
    target: usize,
    params: &PbrParams,
    ws: &mut Workspace,
) -> (Vec<usize>, Vec<usize>) {
    for (l, &v) in nodes.iter().enumerate() {
        ws.local[v] = l;
    }
    let mut xadj = Vec::with_capacity(nodes.len() + 1);
    let mut adj = Vec::new();
    xadj.push(0);
    for &v in nodes {
        adj.extend(p.neighbors(v).iter().map(|&w| ws.local[w]).filter(|&l| l != usize::MAX));
        xadj.push(adj.len());
    }
    for &v in nodes {
        ws.local[v] = usize::MAX;
    }
    let sub = Sub { xadj, adj };
    let sp = sub.as_pattern();
    let mut bfs = Bfs::new(sub.len());
    let a = pseudo_peripheral(&sp, 0, &mut bfs);
    bfs.run(&sp, a);
    let b = *bfs.queue.last().expect("a is in its component");

    let mut best: Option<(usize, Vec<u8>)> = None;
    for start in [a, b] {
        let mut side = grow(&sub, start, target);
        for _ in 0..params.fm_passes {
            if !fm_pass(&sub, &mut side, target, params.imbalance) {
                break;
            }
        }
        rebalance(&sub, &mut side, target);
        let cut = cut(&sub, &side);
        if best.as_ref().is_none_or(|(c, _)| cut < *c) {
            best = Some((cut, side));
        }
        if a == b {
            break;
        }
    }
    let side = best.expect("at least one start").1;
    let mut left = Vec::with_capacity(target);
    let mut right = Vec::with_capacity(nodes.len() - target);
    for (l, &v) in nodes.iter().enumerate() {
        if side[l] == 0 {
            left.push(v);
        } else {
            right.push(v);
        }
    }
    (left, right)
}

fn cut(sub: &Sub, side: &[u8]) -> usize {
    (0..sub.len()).map(|v| sub.neighbors(v).iter().filter(|&&w| side[w] != side[v]).count()).sum::<usize>() / 2
}

/// Greedy graph growing: side 0 grows from `start` by the frontier node
/// with the most edges into it (less edges out), up to `target` nodes;
/// when the frontier runs dry it restarts at the lowest unvisited id.
fn grow(sub: &Sub, start: usize, target: usize) -> Vec<u8> {
    let s = sub.len();
    let mut side = vec![1u8; s];
    let mut conn = vec![0i64; s];
    let mut heap: BinaryHeap<(i64, Reverse<usize>)> = BinaryHeap::new();
    let mut taken = 0;
    let mut next_seed = 0;
    let mut pending = Some(start);
    while taken < target {
        let v = loop {
            if let Some(v) = pending.take() {
                break v;
            }
            match heap.pop() {
                Some((score, Reverse(v))) if side[v] == 1 && score == 2 * conn[v] - sub.degree(v) as i64 => break v,
                Some(_) => continue,
                None => {
                    while side[next_seed] == 0 {
                        next_seed += 1;
                    }
                    break next_seed;
                }
            }
        };
        side[v] = 0;
        taken += 1;
        for &w in sub.neighbors(v) {
            if side[w] == 1 {
                conn[w] += 1;
                heap.push((2 * conn[w] - sub.degree(w) as i64, Reverse(w)));
            }
        }
    }
    side
}

/// Gains `g(v)` = cut decrease if `v` changes side.
fn gains(sub: &Sub, side: &[u8]) -> Vec<i64> {
    (0..sub.len()).map(|v| sub.neighbors(v).iter().map(|&w| if side[w] != side[v] { 1 } else { -1 }).sum()).collect()
}

/// One Fiduccia–Mattheyses pass: moves unlocked nodes of highest gain,
/// side 0 kept within `target ± tol` nodes, then rolls back to the best
/// state seen. Returns whether the cut went down.
fn fm_pass(sub: &Sub, side: &mut [u8], target: usize, tol: usize) -> bool {
    let s = sub.len();
    let mut gain = gains(sub, side);
    let mut locked = vec![false; s];
    let mut heaps: [BinaryHeap<(i64, Reverse<usize>)>; 2] = [BinaryHeap::new(), BinaryHeap::new()];
    for v in 0..s {
        heaps[side[v] as usize].push((gain[v], Reverse(v)));
    }
    let mut size0 = side.iter().filter(|&&x| x == 0).count();
    let imb = |size0: usize| size0.abs_diff(target);
    let (mut cur, mut best, mut best_imb) = (0i64, 0i64, imb(size0));
    let mut moves: Vec<usize> = Vec::new();
    let mut best_len = 0;
    let max_idle = 64.max(s / 8);
    loop {
        // The valid top of each side's heap.
        let mut top = [None, None];
        for (sd, t) in top.iter_mut().enumerate() {
            while let Some(&(g, Reverse(v))) = heaps[sd].peek() {
                if locked[v] || side[v] as usize != sd || gain[v] != g {
                    heaps[sd].pop();
                } else {
                    *t = Some((g, v));
                    break;
                }
            }
        }
        let can0 = size0 > target.saturating_sub(tol) && size0 > 1; // move 0 → 1
        let can1 = size0 < target + tol && size0 + 1 < s; // move 1 → 0
        let pick = match (top[0].filter(|_| can0), top[1].filter(|_| can1)) {
            (Some(x), Some(y)) => {
                // Higher gain; on a tie, the move towards balance.
                if x.0 > y.0 || (x.0 == y.0 && size0 > target) {
                    Some(x.1)
                } else {
                    Some(y.1)
                }
            }
            (Some(x), None) => Some(x.1),
            (None, Some(y)) => Some(y.1),
            (None, None) => None,
        };
        let Some(v) = pick else { break };
        heaps[side[v] as usize].pop();
        cur += gain[v];
        if side[v] == 0 {
            size0 -= 1;
        } else {
            size0 += 1;
        }
        side[v] ^= 1;
        locked[v] = true;
        gain[v] = -gain[v];
        for &w in sub.neighbors(v) {
            if locked[w] {
                continue;
            }
            gain[w] += if side[w] == side[v] { -2 } else { 2 };
            heaps[side[w] as usize].push((gain[w], Reverse(w)));
        }
        moves.push(v);
        if cur > best || (cur == best && imb(size0) < best_imb) {
            best = cur;
            best_imb = imb(size0);
            best_len = moves.len();
        } else if moves.len() - best_len > max_idle {
            break;
        }
    }
    for &v in &moves[best_len..] {
        side[v] ^= 1;
    }
    best > 0
}

/// Moves nodes of highest gain from the overfull side until side 0 has
/// exactly `target` nodes.
fn rebalance(sub: &Sub, side: &mut [u8], target: usize) {
    let mut size0 = side.iter().filter(|&&x| x == 0).count();
    if size0 == target {
        return;
    }
    let from = if size0 > target { 0u8 } else { 1u8 };
    let mut gain = gains(sub, side);
    let mut heap: BinaryHeap<(i64, Reverse<usize>)> =
        (0..sub.len()).filter(|&v| side[v] == from).map(|v| (gain[v], Reverse(v))).collect();
    while size0 != target {
        let (g, Reverse(v)) = heap.pop().expect("the overfull side has nodes to give");
        if side[v] != from || gain[v] != g {
            continue;
        }
        side[v] ^= 1;
        if from == 0 {
            size0 -= 1;
        } else {
            size0 += 1;
        }
        for &w in sub.neighbors(v) {
            gain[w] += if side[w] == side[v] { -2 } else { 2 };
            if side[w] == from {
                heap.push((gain[w], Reverse(w)));
            }
        }
    }
}
