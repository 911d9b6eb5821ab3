//! PBR's refinement: k-way swaps of nodes between parts on the exact number
//! of non-empty tiles.

use crate::graph::reorder::Pattern;
use std::collections::HashMap;

/// Edge counts between pairs of parts (unordered; `(P, P)` counts inner
/// edges and self-loops): dense for few parts, hashed for many.
enum PairCounts {
    Dense { k: usize, c: Vec<u32> },
    Sparse(HashMap<(usize, usize), u32>),
}

impl PairCounts {
    fn new(k: usize) -> Self {
        if k <= 1024 {
            PairCounts::Dense { k, c: vec![0; k * k] }
        } else {
            PairCounts::Sparse(HashMap::new())
        }
    }
    fn get(&self, key: (usize, usize)) -> u32 {
        match self {
            PairCounts::Dense { k, c } => c[key.0 * k + key.1],
            PairCounts::Sparse(m) => m.get(&key).copied().unwrap_or(0),
        }
    }
    fn add(&mut self, key: (usize, usize), d: i64) {
        match self {
            PairCounts::Dense { k, c } => {
                let x = &mut c[key.0 * *k + key.1];
                *x = (*x as i64 + d) as u32;
            }
            PairCounts::Sparse(m) => {
                let x = m.entry(key).or_default();
                *x = (*x as i64 + d) as u32;
                if *x == 0 {
                    m.remove(&key);
                }
            }
        }
    }
}

#[inline]
fn key(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

/// Tiles a pair key stands for: 2 off the diagonal (both `(P, Q)` and `(Q, P)`), 1 on it.
#[inline]
fn weight(key: (usize, usize)) -> i64 {
    if key.0 == key.1 {
        1
    } else {
        2
    }
}

/// k-way refinement of a partition on the exact tile count.
pub(super) struct KWay<'a> {
    p: &'a Pattern,
    pub(super) part: Vec<usize>,
    pub(super) members: Vec<Vec<usize>>,
    counts: PairCounts,
    /// For each node, its neighbours' parts with multiplicity, sorted by part.
    conn: Vec<Vec<(usize, u32)>>,
}

/// Adds `d` to the count of part `q` in a sorted `(part, count)` list.
fn bump(list: &mut Vec<(usize, u32)>, q: usize, d: i64) {
    match list.binary_search_by_key(&q, |e| e.0) {
        Ok(i) => {
            let c = list[i].1 as i64 + d;
            if c == 0 {
                list.remove(i);
            } else {
                list[i].1 = c as u32;
            }
        }
        Err(i) => list.insert(i, (q, d as u32)),
    }
}

impl<'a> KWay<'a> {
    pub(super) fn new(p: &'a Pattern, part: Vec<usize>, k: usize) -> Self {
        let mut members = vec![Vec::new(); k];
        let mut counts = PairCounts::new(k);
        let mut conn = Vec::with_capacity(p.len());
        for v in 0..p.len() {
            members[part[v]].push(v);
            if p.self_loop[v] {
                counts.add((part[v], part[v]), 1);
            }
            let mut c: Vec<(usize, u32)> = Vec::new();
            for &w in p.neighbors(v) {
                if v < w {
                    counts.add(key(part[v], part[w]), 1);
                }
                bump(&mut c, part[w], 1);
            }
            conn.push(c);
        }
        KWay { p, part, members, counts, conn }
    }

    /// The tile count of the current partition.
    pub(super) fn tiles(&self) -> usize {
        let k = self.members.len();
        match &self.counts {
            PairCounts::Dense { c, .. } => (0..k)
                .flat_map(|a| (a..k).map(move |b| (a, b)))
                .filter(|&kk| c[kk.0 * k + kk.1] > 0)
                .map(weight)
                .sum::<i64>() as usize,
            PairCounts::Sparse(m) => m.iter().filter(|&(_, &c)| c > 0).map(|(&kk, _)| weight(kk)).sum::<i64>() as usize,
        }
    }

    /// Change of (tiles, inner edges) if `u` and `v` (in different parts)
    /// swap parts; with `apply`, also makes the swap.
    ///
    /// With `c_u`, `c_v` the neighbour counts per part (the edge `u–v`, if
    /// any, left out: it joins the two parts before and after), moving `u`
    /// from `P` to `Q` and `v` from `Q` to `P` changes the count of the
    /// pair `{P, R}` by `c_v[R] − c_u[R]` and of `{Q, R}` by the opposite,
    /// for `R ∉ {P, Q}`; `{P, P}` by `c_v[P] − c_u[P]`, `{Q, Q}` by
    /// `c_u[Q] − c_v[Q]`, `{P, Q}` by `c_v[Q] − c_u[Q] + c_u[P] − c_v[P]`
    /// (and self-loops move with their nodes). Cost `O(|c_u| + |c_v|)`, the
    /// numbers of distinct neighbour parts.
    pub(super) fn swap(&mut self, u: usize, v: usize, apply: bool) -> (i64, i64) {
        let (pu, pv) = (self.part[u], self.part[v]);
        let adjacent = self.p.neighbors(u).binary_search(&v).is_ok() as i64;
        let (lu, lv) = (self.p.self_loop[u] as i64, self.p.self_loop[v] as i64);
        let (mut dpp, mut dqq, mut dpq) = (lv - lu, lu - lv, 0i64);
        let (mut dt, mut dinner) = (0i64, 0i64);
        let (cu, cv) = (&self.conn[u], &self.conn[v]);
        let (mut i, mut j) = (0, 0);
        loop {
            let r = match (cu.get(i), cv.get(j)) {
                (None, None) => break,
                (Some(a), None) => a.0,
                (None, Some(b)) => b.0,
                (Some(a), Some(b)) => a.0.min(b.0),
            };
            let mut a = 0i64;
            if cu.get(i).is_some_and(|e| e.0 == r) {
                a = cu[i].1 as i64;
                i += 1;
            }
            let mut b = 0i64;
            if cv.get(j).is_some_and(|e| e.0 == r) {
                b = cv[j].1 as i64;
                j += 1;
            }
            if r == pv {
                a -= adjacent;
            }
            if r == pu {
                b -= adjacent;
            }
            if r == pu {
                dpp += b - a;
                dpq += a - b;
            } else if r == pv {
                dqq += a - b;
                dpq += b - a;
            } else if a != b {
                let pending = [(key(pu, r), b - a), (key(pv, r), a - b)];
                for &(kk, d) in &pending {
                    dt += self.tile_change(kk, d);
                }
                if apply {
                    for &(kk, d) in &pending {
                        self.counts.add(kk, d);
                    }
                }
            }
        }
        for (kk, d) in [((pu, pu), dpp), ((pv, pv), dqq), (key(pu, pv), dpq)] {
            if d != 0 {
                dt += self.tile_change(kk, d);
                if kk.0 == kk.1 {
                    dinner += d;
                }
                if apply {
                    self.counts.add(kk, d);
                }
            }
        }
        if apply {
            let iu = self.members[pu].iter().position(|&x| x == u).expect("u is in its part");
            let iv = self.members[pv].iter().position(|&x| x == v).expect("v is in its part");
            self.members[pu][iu] = v;
            self.members[pv][iv] = u;
            self.part[u] = pv;
            self.part[v] = pu;
            for (x, from, to) in [(u, pu, pv), (v, pv, pu)] {
                for &w in self.p.neighbors(x) {
                    bump(&mut self.conn[w], from, -1);
                    bump(&mut self.conn[w], to, 1);
                }
            }
        }
        (dt, dinner)
    }

    /// Change of the tile count if the pair count `kk` changes by `d`.
    #[inline]
    fn tile_change(&self, kk: (usize, usize), d: i64) -> i64 {
        let old = self.counts.get(kk) as i64;
        let new = old + d;
        if old == 0 && new > 0 {
            weight(kk)
        } else if old > 0 && new == 0 {
            -weight(kk)
        } else {
            0
        }
    }

    /// Best-improvement swap passes; returns the refined partition and its tile count.
    pub(super) fn refine(mut self, passes: usize) -> (Vec<usize>, usize) {
        let n = self.p.len();
        let mut parts: Vec<usize> = Vec::new();
        let mut cands: Vec<usize> = Vec::new();
        for _ in 0..passes {
            let mut improved = false;
            for u in 0..n {
                let pu = self.part[u];
                parts.clear();
                parts.extend(self.conn[u].iter().map(|e| e.0).filter(|&q| q != pu));
                let mut best: Option<(i64, i64, usize)> = None;
                for &q in &parts {
                    cands.clear();
                    cands.extend_from_slice(&self.members[q]);
                    for &v in &cands {
                        let (dt, din) = self.swap(u, v, false);
                        let better = dt < 0 || (dt == 0 && din > 0);
                        if better && best.is_none_or(|(bt, bi, _)| (dt, -din) < (bt, -bi)) {
                            best = Some((dt, din, v));
                        }
                    }
                }
                if let Some((_, _, v)) = best {
                    self.swap(u, v, true);
                    improved = true;
                }
            }
            if !improved {
                break;
            }
        }
        let tiles = self.tiles();
        (self.part, tiles)
    }
}
