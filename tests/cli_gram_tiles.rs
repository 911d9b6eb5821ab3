//! `kronograph gram --tiles SIZE --out K.npy [--resume]` (issue 12): the
//! Gram matrix out of core, tile by tile into a resumable `.npy`. A run
//! interrupted after a few tiles leaves no `K.npy` (only `K.npy.partial` and
//! its progress log), a second start without `--resume` is refused, and
//! `--resume` completes a file equal to the in-memory Gram.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kronograph"))
        .arg("--quiet")
        .args(["gram", data("MUTAG").to_str().unwrap(), "--first", "13", "--backend", "cpu"])
        .args(args)
        .output()
        .unwrap()
}

fn load(p: &Path) -> (Vec<u64>, Vec<f64>) {
    let bytes = std::fs::read(p).unwrap();
    let arr = npyz::NpyFile::new(&bytes[..]).unwrap();
    let shape = arr.shape().to_vec();
    (shape, arr.into_vec::<f64>().unwrap())
}

fn check_resumed(extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.npy");
    let out = dir.path().join("k.npy");
    let (full_s, out_s) = (full.to_str().unwrap(), out.to_str().unwrap());
    let o = run(&[&["--out", full_s][..], extra].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // interrupted after 3 of the 10 tiles (4 × 4 tiles of 13 graphs)
    let o = run(&[&["--tiles", "4", "--out", out_s, "--stop-after-tiles", "3"][..], extra].concat());
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.exists(), "an interrupted run must not leave a file that looks complete");
    let partial = dir.path().join("k.npy.partial");
    let progress = dir.path().join("k.npy.progress");
    assert!(partial.exists() && progress.exists());
    assert_eq!(std::fs::read_to_string(&progress).unwrap().matches("done ").count(), 3);
    // starting over without --resume is refused, naming what to do
    let o = run(&[&["--tiles", "4", "--out", out_s][..], extra].concat());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("--resume"), "{e}");
    // another computation cannot resume it
    let o = run(&["--tiles", "4", "--out", out_s, "--resume", "--q", "0.1"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("another computation"), "{e}");
    // --resume (tile size from the log) completes it
    let o = run(&[&["--out", out_s, "--resume"][..], extra].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!partial.exists() && !progress.exists());
    let ((sa, a), (sb, b)) = (load(&full), load(&out));
    assert_eq!(sa, vec![13, 13]);
    assert_eq!(sa, sb);
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() <= 1e-12 * x.abs().max(1e-300), "{x} vs {y}");
    }
}

#[test]
fn interrupted_and_resumed_equals_in_memory() {
    check_resumed(&[]);
}

#[test]
fn interrupted_and_resumed_normalized() {
    check_resumed(&["--normalize"]);
}

#[test]
fn tiles_need_an_output_file() {
    let o = run(&["--tiles", "4"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("--out"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.npy");
    let o = run(&["--out", out.to_str().unwrap(), "--resume"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("no interrupted run"), "{e}");
    assert!(!out.exists());
}
