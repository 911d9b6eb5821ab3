//! `kronograph fglt` run as a program: .npy and CSV outputs, errors.

use std::path::Path;
use std::process::Command;

fn fglt(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kronograph")).arg("fglt").args(args).output().unwrap()
}

fn oregon() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/snap/oregon1_010331.mtx").display().to_string()
}

#[test]
fn writes_npy_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("f.npy");
    let csv = dir.path().join("f.csv");
    let out = fglt(&[
        &oregon(),
        "--both",
        "--backend",
        "cpu",
        "--out",
        npy.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--verbose",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4-cliques:") && err.contains("transform:"), "{err}");
    let bytes = std::fs::read(&npy).unwrap();
    let arr = npyz::NpyFile::new(&bytes[..]).unwrap();
    assert_eq!(arr.shape(), &[10670, 32]);
    let data: Vec<u64> = arr.into_vec().unwrap();
    // column 0 (raw) and 16 (net) are 1; raw and net degrees agree
    assert!(data.chunks(32).all(|r| r[0] == 1 && r[16] == 1 && r[1] == r[17]));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("\"raw [0] vertex (==1)\",\"raw [1] degree\""), "{header}");
    assert!(header.ends_with("\"net [15] 4-clique\""), "{header}");
    assert_eq!(lines.count(), 10670);
    // net only: 16 columns
    let out = fglt(&[&oregon(), "--backend", "cpu", "--out", npy.to_str().unwrap()]);
    assert!(out.status.success());
    let bytes = std::fs::read(&npy).unwrap();
    assert_eq!(npyz::NpyFile::new(&bytes[..]).unwrap().shape(), &[10670, 16]);
}

#[test]
fn refuses_without_output_and_on_bad_backend() {
    let out = fglt(&[&oregon(), "--backend", "cpu"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--out"));
    let out = fglt(&[&oregon(), "--backend", "tpu", "--out", "x.npy"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected auto, cpu, cuda"));
}
