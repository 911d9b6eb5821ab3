//! The parallel readers against the line-by-line readers: on valid and
//! damaged files alike, whenever the fast path accepts a file, the line
//! reader accepts it too and gives the same graph, bit for bit; and on
//! valid files the fast path does accept (so the speed is not lost).

use super::{edgelist, mtx};
use crate::graph::{Direction, Duplicates, Graph};
use proptest::prelude::*;
use std::path::Path;

fn same(a: &Graph<(), ()>, b: &Graph<(), ()>) -> bool {
    a.indptr() == b.indptr()
        && a.indices() == b.indices()
        && a.weights().iter().zip(b.weights()).all(|(x, y)| x.to_bits() == y.to_bits())
        && a.direction() == b.direction()
}

/// A text of numbers with plausible damage: the bytes a file of edges has.
fn noisy() -> impl Strategy<Value = Vec<u8>> {
    let b = prop_oneof![
        8 => b'0'..=b'9',
        2 => Just(b' '),
        2 => Just(b'\n'),
        1 => prop::sample::select(&b"\t\r%#.-+e,x"[..]),
    ];
    prop::collection::vec(b, 0..300)
}

/// A valid edge list or Matrix Market body of `m` random entries.
fn entries(n: u32, m: usize, weights: bool, seed: u64) -> String {
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..m)
        .map(|_| {
            let (u, v) = (next() % u64::from(n), next() % u64::from(n));
            if weights {
                format!("{} {} {}\n", u + 1, v + 1, next() % 1000)
            } else {
                format!("{} {}\n", u + 1, v + 1)
            }
        })
        .collect()
}

fn check_mtx(bytes: &[u8], opts: &mtx::MtxOptions) -> Result<bool, TestCaseError> {
    let p = Path::new("f.mtx");
    let fast = mtx::fast(bytes, opts);
    let slow = mtx::read_lines(p, bytes, opts);
    if let Some(g) = &fast {
        let s = slow.as_ref().map_err(|e| TestCaseError::fail(format!("fast accepted, line reader: {e}")))?;
        prop_assert!(same(g, s));
    }
    Ok(fast.is_some())
}

fn check_edges(bytes: &[u8], opts: &edgelist::EdgeListOptions) -> Result<bool, TestCaseError> {
    let p = Path::new("f.txt");
    let fast = edgelist::fast(bytes, opts);
    let slow = edgelist::read_lines(p, bytes, opts);
    if let Some(g) = &fast {
        let s = slow.as_ref().map_err(|e| TestCaseError::fail(format!("fast accepted, line reader: {e}")))?;
        prop_assert!(same(g, s));
    }
    Ok(fast.is_some())
}

const POLICIES: [Duplicates; 3] = [Duplicates::Reject, Duplicates::KeepFirst, Duplicates::SumWeights];

proptest! {
    #[test]
    fn mtx_fast_agrees(body in noisy(), field in 0usize..3, sym: bool, p in 0usize..3) {
        let f = ["pattern", "real", "integer"][field];
        let s = if sym { "symmetric" } else { "general" };
        let mut bytes = format!("%%MatrixMarket matrix coordinate {f} {s}\n9 9 4\n").into_bytes();
        bytes.extend_from_slice(&body);
        check_mtx(&bytes, &mtx::MtxOptions { duplicates: POLICIES[p], ..Default::default() })?;
    }

    #[test]
    fn edgelist_fast_agrees(body in noisy(), directed: bool, one_based: bool, p in 0usize..3) {
        let direction = if directed { Direction::Directed } else { Direction::Undirected };
        let o = edgelist::EdgeListOptions { direction, one_based, duplicates: POLICIES[p], ..Default::default() };
        check_edges(&body, &o)?;
    }

    /// Files of several parallel blocks (over 256 KiB): the fast path
    /// accepts the valid ones and agrees with the line reader.
    #[test]
    fn large_files_take_the_fast_path(seed: u64, weights: bool, sym: bool, p in 1usize..3) {
        let m = 40_000;
        let body = entries(3000, m, weights, seed);
        let f = if weights { "integer" } else { "pattern" };
        let s = if sym { "symmetric" } else { "general" };
        let text = format!("%%MatrixMarket matrix coordinate {f} {s}\n% c\n3000 3000 {m}\n{body}");
        let o = mtx::MtxOptions { duplicates: POLICIES[p], ..Default::default() };
        prop_assert!(check_mtx(text.as_bytes(), &o)?);
        let o = edgelist::EdgeListOptions { one_based: true, duplicates: Duplicates::SumWeights, ..Default::default() };
        prop_assert!(check_edges(body.as_bytes(), &o)?);
    }
}

#[test]
fn edge_list_keep_first_refuses_different_weights() {
    let o = edgelist::EdgeListOptions { duplicates: Duplicates::KeepFirst, ..Default::default() };
    let p = Path::new("w.txt");
    let g = edgelist::parse(p, b"0 1 2\n1 0 2\n1 2 1\n", &o).unwrap();
    assert_eq!(g.num_edges(), 2);
    let e = edgelist::parse(p, b"0 1 2\n1 2 1\n1 0 3\n", &o).unwrap_err().to_string();
    assert!(e.starts_with("w.txt:3:") && e.contains("weight 2") && e.contains("line 1"), "{e}");
    let e = edgelist::parse(p, b"0 1 2\n", &o).map(|g| g.num_edges()).unwrap();
    assert_eq!(e, 1);
}

#[test]
fn integer_weights_above_2_pow_53_are_refused() {
    let p = Path::new("i.mtx");
    let head = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n";
    let ok = mtx::parse(p, format!("{head}1 2 9007199254740992\n").as_bytes(), &Default::default()).unwrap();
    assert_eq!(ok.weights(), [9007199254740992.0]);
    let e = mtx::parse(p, format!("{head}1 2 9007199254740993\n").as_bytes(), &Default::default()).unwrap_err();
    assert!(e.to_string().starts_with("i.mtx:3:") && e.to_string().contains("2^53"), "{e}");
}
