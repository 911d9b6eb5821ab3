//! A checked motif query: the graph in compact CSR form (restricted, when
//! asked, to the vertices whose colour occurs in the motif), the shades of
//! each vertex and the labels.

use super::random::{draw, TAG_MU, TAG_NU};
use super::MotifError;
use crate::graph::{Graph, Label};
use std::collections::BTreeMap;

/// Most motif vertices: 2^k evaluation points per run.
pub const MAX_MOTIF_SIZE: usize = 32;

/// The sieve's view of a query.
#[derive(Clone, Debug)]
pub(crate) struct Instance {
    /// Vertices of the input graph.
    pub n_input: usize,
    /// Motif size k.
    pub k: usize,
    /// Input id of each vertex kept (ascending).
    pub vertices: Vec<u32>,
    /// CSR row pointers over the kept vertices (self-loops dropped).
    pub indptr: Vec<u64>,
    /// CSR column indices (kept-vertex ids).
    pub indices: Vec<u32>,
    /// First shade of each kept vertex's colour.
    pub shade_first: Vec<u32>,
    /// Shades of each kept vertex's colour: its multiplicity in the motif
    /// (0 for a colour outside the motif).
    pub shade_count: Vec<u32>,
    /// `false` when some motif colour has no vertex: no match can exist.
    pub feasible: bool,
}

impl Instance {
    /// Checks the query and builds the sieve's graph.
    ///
    /// # Errors
    /// [`MotifError`] for a colour count other than `n`, an empty motif, a
    /// motif larger than the graph or than [`MAX_MOTIF_SIZE`]; the graph's
    /// error when it is directed.
    pub fn new<N: Label, E: Label>(
        g: &Graph<N, E>,
        colors: &[u32],
        motif: &[u32],
        prune: bool,
    ) -> crate::Result<Instance> {
        g.require_undirected("motif search")?;
        let n = g.num_nodes();
        let k = motif.len();
        if colors.len() != n {
            return Err(MotifError::ColorCount { colors: colors.len(), nodes: n }.into());
        }
        if k == 0 {
            return Err(MotifError::EmptyMotif.into());
        }
        if k > MAX_MOTIF_SIZE {
            return Err(MotifError::MotifTooLong { k, max: MAX_MOTIF_SIZE }.into());
        }
        if k > n {
            return Err(MotifError::MotifTooLarge { k, nodes: n }.into());
        }
        // shades: motif colour q gets M(q) consecutive ids
        let mut mult: BTreeMap<u32, u32> = BTreeMap::new();
        for &q in motif {
            *mult.entry(q).or_default() += 1;
        }
        let mut first: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
        let mut next = 0u32;
        for (&q, &m) in &mult {
            first.insert(q, (next, m));
            next += m;
        }
        let mut present: BTreeMap<u32, bool> = mult.keys().map(|&q| (q, false)).collect();
        for c in colors {
            if let Some(p) = present.get_mut(c) {
                *p = true;
            }
        }
        let feasible = present.values().all(|&p| p);
        let keep: Vec<bool> = colors.iter().map(|c| !prune || mult.contains_key(c)).collect();
        let mut new_id = vec![u32::MAX; n];
        let mut vertices = Vec::new();
        for i in 0..n {
            if keep[i] && feasible {
                new_id[i] = vertices.len() as u32;
                vertices.push(i as u32);
            }
        }
        // rows in parallel: kept neighbours (self-loops dropped), then one prefix sum
        use rayon::prelude::*;
        let new_id = &new_id;
        let kept = move |v: usize| g.neighbors(v).iter().filter(move |&&j| j != v && new_id[j] != u32::MAX);
        let degree: Vec<u64> = vertices.par_iter().map(|&v| kept(v as usize).count() as u64).collect();
        let mut indptr = Vec::with_capacity(vertices.len() + 1);
        indptr.push(0u64);
        for d in &degree {
            indptr.push(indptr[indptr.len() - 1] + d);
        }
        let mut indices = vec![0u32; indptr[vertices.len()] as usize];
        let mut rows: Vec<&mut [u32]> = Vec::with_capacity(vertices.len());
        let mut rest = &mut indices[..];
        for d in &degree {
            let (row, tail) = rest.split_at_mut(*d as usize);
            rows.push(row);
            rest = tail;
        }
        rows.into_par_iter().zip(vertices.par_iter()).for_each(|(row, &v)| {
            for (slot, &j) in row.iter_mut().zip(kept(v as usize)) {
                *slot = new_id[j];
            }
        });
        let shade = |v: &u32| first.get(&colors[*v as usize]).copied().unwrap_or((0, 0));
        let shade_first = vertices.iter().map(|v| shade(v).0).collect();
        let shade_count = vertices.iter().map(|v| shade(v).1).collect();
        Ok(Instance { n_input: n, k, vertices, indptr, indices, shade_first, shade_count, feasible })
    }

    /// Kept vertices.
    pub fn n(&self) -> usize {
        self.vertices.len()
    }

    /// Oriented edges (arcs) kept.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub fn arcs(&self) -> usize {
        self.indices.len()
    }

    /// The labels ζ_{i,ℓ} = Σ_{d ∈ S_{c(i)}} μ_{i,d} ν_{d,ℓ}, row-major
    /// `n × k`, for the field with random-element map `scalar` and product
    /// `mul`.
    pub fn labels(
        &self,
        key: u64,
        scalar: impl Fn(u64) -> u64 + Sync,
        mul: impl Fn(u64, u64) -> u64 + Sync,
    ) -> Vec<u64> {
        use rayon::prelude::*;
        let k = self.k;
        let mut zeta = vec![0u64; self.n() * k];
        zeta.par_chunks_mut(k.max(1)).enumerate().for_each(|(i, row)| {
            let (f, c) = (self.shade_first[i] as u64, self.shade_count[i] as u64);
            for d in f..f + c {
                let mu = scalar(draw(key, TAG_MU, i as u64, d));
                for (l, z) in row.iter_mut().enumerate() {
                    *z ^= mul(mu, scalar(draw(key, TAG_NU, d, l as u64)));
                }
            }
        });
        zeta
    }
}
