//! The result type of the graphlet transform and the names of its 16 orbits.

use std::time::Duration;

/// Number of orbits: graphlets of 1 to 4 vertices, one column per orbit.
pub const ORBITS: usize = 16;

/// FGLT's column names (its CSV header), in column order: `[0]` single
/// vertex, `[1]` edge, `[2]`–`[3]` 2-path end / middle, `[4]` triangle,
/// `[5]`–`[6]` 3-path end / interior, `[7]`–`[8]` claw leaf / centre,
/// `[9]`–`[11]` paw pendant / base / centre, `[12]` 4-cycle, `[13]`–`[14]`
/// diamond off-cord / on-cord, `[15]` 4-clique.
pub const ORBIT_NAMES: [&str; ORBITS] = [
    "[0] vertex (==1)",
    "[1] degree",
    "[2] 2-path",
    "[3] bifork",
    "[4] 3-cycle",
    "[5] 3-path, end",
    "[6] 3-path, interior",
    "[7] claw, leaf",
    "[8] claw, root",
    "[9] paw, handle",
    "[10] paw, base",
    "[11] paw, center",
    "[12] 4-cycle",
    "[13] diamond, off-cord",
    "[14] diamond, on-cord",
    "[15] 4-clique",
];

/// Per-vertex orbit frequencies: `n × 16`, row-major (`data[16 i + k]` is
/// orbit `k` at vertex `i`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frequencies {
    /// Number of vertices (rows).
    pub n: usize,
    /// Row-major `n × 16` counts.
    pub data: Vec<u64>,
}

impl Frequencies {
    /// All-zero frequencies of `n` vertices.
    pub fn zeros(n: usize) -> Self {
        Frequencies { n, data: vec![0; n * ORBITS] }
    }

    /// The 16 counts of vertex `i`.
    ///
    /// # Panics
    /// If `i >= n`.
    pub fn row(&self, i: usize) -> &[u64; ORBITS] {
        self.data[i * ORBITS..(i + 1) * ORBITS].try_into().expect("a row has 16 entries")
    }

    /// Column `k` (orbit `k` at every vertex).
    ///
    /// # Panics
    /// If `k >= 16`.
    pub fn column(&self, k: usize) -> Vec<u64> {
        assert!(k < ORBITS, "orbit {k} is out of range 0..16");
        self.data.iter().skip(k).step_by(ORBITS).copied().collect()
    }
}

/// The fast graphlet transform of a graph: raw (non-induced) and net
/// (induced) frequencies of the 16 orbits at every vertex, in the graph's
/// vertex order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fglt {
    /// Raw frequencies `d̂`: copies of each graphlet as a subgraph, not
    /// necessarily induced.
    pub raw: Frequencies,
    /// Net frequencies `f = T d̂`: induced copies.
    pub net: Frequencies,
    /// What the transform ignored in its input (self-loops, weights).
    pub ignored: Ignored,
    /// Wall time of each stage, in order (for `--verbose`).
    pub stages: Vec<(&'static str, Duration)>,
    /// Where it ran: `None` the CPU, `Some(i)` CUDA device `i`.
    pub device: Option<usize>,
}

/// What the transform ignores: it counts graphlets of the simple graph
/// underneath the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ignored {
    /// Self-loops dropped.
    pub self_loops: usize,
    /// Whether some edge weight differs from 1 (weights are not read).
    pub weighted: bool,
}

impl Ignored {
    /// A one-line note for the user, or `None` when nothing was ignored.
    pub fn note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.self_loops > 0 {
            parts.push(format!("{} self-loop(s) ignored", self.self_loops));
        }
        if self.weighted {
            parts.push("edge weights ignored (graphlets count edges, not weights)".to_string());
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// A progress callback: `(stage name, stage index, number of stages)`,
/// called as each stage starts.
pub type StageProgress = std::sync::Arc<dyn Fn(&str, usize, usize) + Send + Sync>;
