//! `kronograph generate motif` and `kronograph motif` run as programs.

use std::path::Path;
use std::process::{Command, Output};

fn kronograph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kronograph")).args(args).output().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn generate_then_search_finds_exactly_the_planted_match() {
    let dir = tempfile::tempdir().unwrap();
    let inst = dir.path().join("inst");
    let out =
        kronograph(&["generate", "motif", "--n", "256", "--d", "6", "--k", "6", "--seed", "3", "--out", s(&inst)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let motif = std::fs::read_to_string(inst.join("motif.txt")).unwrap();
    let hits = dir.path().join("hits.npy");
    let out = kronograph(&[
        "motif",
        s(&inst.join("graph.mtx")),
        "--colors",
        s(&inst.join("colors.txt")),
        "--motif",
        motif.trim(),
        "--backend",
        "cpu",
        "--matches",
        "--out",
        s(&hits),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&hits).unwrap();
    let got: Vec<bool> = npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap();
    assert_eq!(got.len(), 256);
    let planted: Vec<usize> =
        std::fs::read_to_string(inst.join("planted.txt")).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    let found: Vec<usize> = (0..256).filter(|&i| got[i]).collect();
    assert_eq!(found, planted);
    let line: Vec<String> = planted.iter().map(|v| v.to_string()).collect();
    assert!(stdout.contains("matches: 1") && stdout.contains(&line.join(" ")), "{stdout}");
}

#[test]
fn bad_colour_files_name_file_and_line_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.mtx");
    std::fs::write(&graph, "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n3 2 1\n").unwrap();
    let hits = dir.path().join("hits.npy");
    let run = |colors: &str, motif: &str| {
        let c = dir.path().join("c.txt");
        std::fs::write(&c, colors).unwrap();
        kronograph(&["motif", s(&graph), "--colors", s(&c), "--motif", motif, "--backend", "cpu", "--out", s(&hits)])
    };
    for (colors, motif, want) in [
        ("1\n-2\n1\n", "1,1", "c.txt:2: expected one non-negative integer colour"),
        ("1\n2\n", "1,2", "c.txt:3: expected 3 data lines"),
        ("1\n2\n1\n", "", "the motif is empty"),
        ("1\n2\n1\n", "1,1,1,1", "k = 4 colours but the graph only 3 vertices"),
        ("1\n2\n1\n", "1,x", "--motif: \"x\" is not a non-negative integer"),
    ] {
        let out = run(colors, motif);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(want), "{colors:?} {motif:?}: {err}");
        assert!(!hits.exists());
    }
    let out = run("1\n2\n1\n", "1,2");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&hits).unwrap();
    let got: Vec<bool> = npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap();
    assert_eq!(got, [true, true, true]);
}
