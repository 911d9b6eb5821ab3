//! How much a file may make a reader allocate, and how much memory there is.
//!
//! Edge lists take their number of nodes from their largest id and Matrix
//! Market files declare it, so one number in a tiny file could otherwise ask
//! for a graph of a billion nodes (tens of gigabytes of node records). A
//! reader accepts a graph of `n` nodes and `m` entries only when
//!
//! - `n <= max_nodes` or `n <= 2 m` (every entry names two nodes: beyond the
//!   limit, the nodes must be justified by the file's own entries), and
//! - the graph's estimated footprint ([`graph_bytes`]) fits in the memory
//!   budget ([`memory_budget`]).
//!
//! Otherwise it refuses with [`IoError::TooLarge`](super::IoError::TooLarge),
//! naming the line and the memory the graph would need.
//!
//! Both limits can be set by the environment (so that the command-line tool
//! needs no extra flag): `KRONOGRAPH_MAX_NODES` (a node count) and
//! `KRONOGRAPH_MAX_MEMORY` (bytes, with an optional `K`, `M`, `G` or `T`
//! suffix, powers of 1024), which caps what `/proc/meminfo` reports as
//! available.

/// The default [`Limits::max_nodes`]: `2²⁰` (1,048,576) nodes, about 200 MB.
pub const DEFAULT_MAX_NODES: usize = 1 << 20;

/// Estimated bytes per node of a graph as [`load`](super::load) returns it
/// (row offset, node record, degree and builder scratch).
pub const BYTES_PER_NODE: u64 = 200;

/// Estimated bytes per entry (edge or arc line) of a graph as
/// [`load`](super::load) returns it (both directions of an undirected edge,
/// their weights, records and the builder's arc list).
pub const BYTES_PER_ENTRY: u64 = 500;

/// Limits on the graphs a reader builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most nodes a graph may have without at least one entry per two
    /// nodes (see the module documentation).
    pub max_nodes: usize,
    /// The memory budget in bytes; `None` (the default): the
    /// [`memory_budget`] at the time of reading (`Some(u64::MAX)` disables
    /// the check).
    pub max_bytes: Option<u64>,
}

impl Default for Limits {
    /// `max_nodes` from `KRONOGRAPH_MAX_NODES` (default
    /// [`DEFAULT_MAX_NODES`]); `max_bytes` `None` (the memory available).
    fn default() -> Self {
        let max_nodes =
            std::env::var("KRONOGRAPH_MAX_NODES").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(DEFAULT_MAX_NODES);
        Limits { max_nodes, max_bytes: None }
    }
}

/// Why a graph is refused: the text after "would need about … of memory".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The estimated footprint in bytes.
    pub needed: u64,
    /// Why that is refused, in the user's terms.
    pub why: String,
}

impl Limits {
    /// Checks a graph of `nodes` nodes and `entries` entries against the
    /// limits. `entry` names an entry in messages, singular and plural
    /// (`("edge", "edges")`).
    ///
    /// # Errors
    /// A [`Refusal`] saying which limit it exceeds.
    pub fn check_graph(&self, nodes: usize, entries: usize, entry: (&str, &str)) -> Result<(), Refusal> {
        let needed = graph_bytes(nodes, entries);
        if nodes > self.max_nodes && nodes / 2 > entries {
            return Err(Refusal {
                needed,
                why: format!(
                    "the file has only {entries} {}, and a graph of more than {} nodes needs at least one {} \
                     per two nodes (set KRONOGRAPH_MAX_NODES to allow more)",
                    if entries == 1 { entry.0 } else { entry.1 },
                    self.max_nodes,
                    entry.0
                ),
            });
        }
        match self.max_bytes.or_else(memory_budget) {
            Some(budget) if needed > budget => {
                Err(Refusal { needed, why: format!("more than the {} of memory available", human_bytes(budget)) })
            }
            _ => Ok(()),
        }
    }
}

/// The estimated footprint of a graph of `nodes` nodes and `entries`
/// entries, in bytes (saturating).
pub fn graph_bytes(nodes: usize, entries: usize) -> u64 {
    (nodes as u64).saturating_mul(BYTES_PER_NODE).saturating_add((entries as u64).saturating_mul(BYTES_PER_ENTRY))
}

/// The memory this process may use, in bytes: `MemAvailable` of
/// `/proc/meminfo` where there is one, capped by `KRONOGRAPH_MAX_MEMORY`
/// where that is set; `None` when neither is known.
pub fn memory_budget() -> Option<u64> {
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| parse_meminfo(&s));
    let cap = std::env::var("KRONOGRAPH_MAX_MEMORY").ok().and_then(|s| parse_bytes(&s));
    match (available, cap) {
        (Some(a), Some(c)) => Some(a.min(c)),
        (a, c) => a.or(c),
    }
}

/// Where the memory budget comes from, for messages.
pub fn memory_budget_source() -> &'static str {
    if std::env::var("KRONOGRAPH_MAX_MEMORY").ok().and_then(|s| parse_bytes(&s)).is_some() {
        "MemAvailable of /proc/meminfo, capped by KRONOGRAPH_MAX_MEMORY"
    } else {
        "MemAvailable of /proc/meminfo"
    }
}

/// `MemAvailable` in bytes from the text of `/proc/meminfo`.
fn parse_meminfo(s: &str) -> Option<u64> {
    let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// A byte count with an optional `K`, `M`, `G`, `T` suffix (powers of 1024,
/// an optional trailing `B` or `iB`).
pub fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s.strip_suffix("iB").or_else(|| s.strip_suffix('B')).unwrap_or(s);
    let (digits, shift) = match s.chars().last()?.to_ascii_uppercase() {
        'K' => (&s[..s.len() - 1], 10),
        'M' => (&s[..s.len() - 1], 20),
        'G' => (&s[..s.len() - 1], 30),
        'T' => (&s[..s.len() - 1], 40),
        _ => (s, 0),
    };
    let v: f64 = digits.trim().parse().ok()?;
    let bytes = v * (1u64 << shift) as f64;
    (v.is_finite() && v >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// A byte count for people: `1.5 GB`, `300.0 MB`, `12 bytes` (powers of 1000).
pub fn human_bytes(b: u64) -> String {
    const UNITS: [(&str, f64); 4] = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    for (unit, size) in UNITS {
        if b as f64 >= size {
            return format!("{:.1} {unit}", b as f64 / size);
        }
    }
    format!("{b} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_bytes("1000"), Some(1000));
        assert_eq!(parse_bytes("2K"), Some(2048));
        assert_eq!(parse_bytes("1.5G"), Some(3 << 29));
        assert_eq!(parse_bytes("3 MiB"), Some(3 << 20));
        assert_eq!(parse_bytes("1TB"), Some(1 << 40));
        assert_eq!(parse_bytes("-1"), None);
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes(""), None);
        assert_eq!(parse_meminfo("MemTotal: 10 kB\nMemAvailable:    2048 kB\n"), Some(2 << 20));
        assert_eq!(parse_meminfo("MemTotal: 10 kB\n"), None);
        assert_eq!(human_bytes(160_000_000_160), "160.0 GB");
        assert_eq!(human_bytes(12), "12 bytes");
    }

    #[test]
    fn nodes_beyond_the_limit_need_entries() {
        let l = Limits { max_nodes: 100, max_bytes: Some(u64::MAX) };
        let e = ("entry", "entries");
        assert!(l.check_graph(100, 0, e).is_ok());
        assert!(l.check_graph(1000, 500, e).is_ok());
        let r = l.check_graph(1_000_000_001, 1, e).unwrap_err();
        assert_eq!(r.needed, 200_000_000_700);
        assert!(r.why.contains("only 1 entry,") && r.why.contains("one entry per two"), "{}", r.why);
        let l = Limits { max_nodes: usize::MAX, max_bytes: Some(1 << 20) };
        assert!(l.check_graph(1000, 1000, e).is_ok());
        assert!(l.check_graph(10_000, 0, e).unwrap_err().why.contains("1.0 MB of memory available"));
    }
}
