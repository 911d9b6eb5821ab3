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

/// Output paths that cannot work are refused before anything is computed
/// (the refusal comes before the graph is even read: a missing input is not
/// what the message is about): the same file for --out and --csv, a path
/// ending in `/`, a name too long for the temporary file written next to it.
#[test]
fn bad_output_paths_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("f.out");
    let same_s = same.to_str().unwrap();
    let missing = dir.path().join("no-such-graph.mtx");
    let missing_s = missing.to_str().unwrap();
    // the same file twice, also spelled differently
    let other = format!("{}/./f.out", dir.path().display());
    for (a, b) in [(same_s, same_s), (same_s, other.as_str())] {
        let out = fglt(&[missing_s, "--out", a, "--csv", b]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains("--out") && e.contains("--csv"), "{e}");
        assert!(!same.exists());
    }
    let slash = format!("{}/sub/", dir.path().display());
    let out = fglt(&[missing_s, "--out", &slash]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("folder") && !e.contains("no-such-graph"), "{e}");
    // 244 bytes + 12 of the temporary name > 255; 243 is fine (refused only for the missing input)
    let long = dir.path().join("x".repeat(244));
    let out = fglt(&[missing_s, "--out", long.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("244 bytes") && e.contains("243"), "{e}");
    let fine = dir.path().join("x".repeat(243));
    let out = fglt(&[missing_s, "--out", fine.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("no-such-graph"), "{e}");
    // an option error is not a "generator parameter"
    let out = fglt(&[missing_s]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("nothing to write") && !e.contains("generator"), "{e}");
}
