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

/// `gram` of the first 13 graphs of `dataset` (a folder) with extra arguments.
fn run_on(dataset: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kronograph"))
        .arg("--quiet")
        .args(["gram", dataset.to_str().unwrap(), "--first", "13", "--backend", "cpu"])
        .args(args)
        .output()
        .unwrap()
}

/// An interrupted run (3 of 10 tiles of 4) of `dataset` into `out`.
fn interrupted(dataset: &Path, out: &Path) {
    let o = run_on(dataset, &["--tiles", "4", "--out", out.to_str().unwrap(), "--stop-after-tiles", "3"]);
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A `--resume` of `out` that must fail with a message holding every one of `want`.
fn resume_fails(dataset: &Path, out: &Path, want: &[&str]) {
    let o = run_on(dataset, &["--out", out.to_str().unwrap(), "--resume"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "resumed although: {want:?}");
    for w in want {
        assert!(e.contains(w), "{w:?} not in: {e}");
    }
    assert!(!out.exists(), "a refused resume must not complete the file");
}

/// The resume state is verified, not trusted (issue 26): each edit of the
/// state files below is refused with what does not match, and an intact
/// state still resumes to the in-memory Gram.
#[test]
fn resume_verifies_its_state() {
    let mutag = data("MUTAG");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.npy");
    let partial = dir.path().join("k.npy.partial");
    let progress = dir.path().join("k.npy.progress");
    let log = || std::fs::read_to_string(&progress).unwrap();
    let done_lines = || log().lines().filter(|l| l.starts_with("done ")).map(String::from).collect::<Vec<_>>();
    let reset = || {
        let _ = std::fs::remove_file(&partial);
        let _ = std::fs::remove_file(&progress);
        interrupted(&mutag, &out);
    };

    // a progress line for a tile never written: its own place, a made-up checksum
    reset();
    let first = done_lines()[0].clone();
    // (tile 15 is the last diagonal tile, rows and columns 12..13, not computed yet)
    let forged = first.replacen("done 0 ", "done 15 ", 1);
    std::fs::write(&progress, log() + &forged.replace("0,0,4,4", "12,12,1,1") + "\n").unwrap();
    resume_fails(&mutag, &out, &["tile 15", "rows 12..13, columns 12..13", "checksum", "k.npy.partial"]);
    // ... or another tile's line with its number changed
    reset();
    std::fs::write(&progress, log() + &forged + "\n").unwrap();
    resume_fails(&mutag, &out, &["tile 15", "k.npy.progress"]);
    // ... or a line without a checksum
    reset();
    std::fs::write(&progress, log() + "done 9\n").unwrap();
    resume_fails(&mutag, &out, &["k.npy.progress", "done K HASH"]);

    // NaN written into a finished tile (entry (1, 2) of tile 0)
    reset();
    let mut bytes = std::fs::read(&partial).unwrap();
    let at = 128 + (13 + 2) * 8;
    bytes[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    std::fs::write(&partial, &bytes).unwrap();
    resume_fails(&mutag, &out, &["tile 0", "rows 0..4, columns 0..4", "checksum"]);

    // a damaged .npy header
    reset();
    let mut bytes = std::fs::read(&partial).unwrap();
    bytes[20] ^= 0x20;
    std::fs::write(&partial, &bytes).unwrap();
    resume_fails(&mutag, &out, &["header", "k.npy.partial"]);

    // a second writer: the log is locked while a run holds it
    reset();
    {
        let held = std::fs::OpenOptions::new().read(true).write(true).open(&progress).unwrap();
        <std::fs::File as fs4::FileExt>::try_lock(&held).unwrap();
        resume_fails(&mutag, &out, &["another run is writing", "k.npy.progress"]);
    }

    // intact (the lock released): resumes, equal to the in-memory Gram
    let o = run_on(&mutag, &["--out", out.to_str().unwrap(), "--resume"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let full = dir.path().join("full.npy");
    assert!(run_on(&mutag, &["--out", full.to_str().unwrap()]).status.success());
    let ((_, a), (_, b)) = (load(&full), load(&out));
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() <= 1e-12 * x.abs().max(1e-300), "{x} vs {y}");
    }
}

/// A data set changed between the interruption and `--resume` (same path,
/// same arguments) is refused, not mixed into the result.
#[test]
fn resume_refuses_changed_data() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("MUTAG");
    std::fs::create_dir(&ds).unwrap();
    for e in std::fs::read_dir(data("MUTAG")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), ds.join(e.file_name())).unwrap();
    }
    let out = dir.path().join("k.npy");
    interrupted(&ds, &out);
    // one node label of the first graph changed (0 <-> 1)
    let labels = ds.join("MUTAG_node_labels.txt");
    let text = std::fs::read_to_string(&labels).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let changed = if first.trim() == "0" { "1" } else { "0" };
    std::fs::write(&labels, format!("{changed}\n{rest}")).unwrap();
    resume_fails(&ds, &out, &["another computation", "data"]);
}

/// `gram --tiles` is estimated against the memory budget up front, naming a
/// tile size that fits.
#[test]
fn tiles_beyond_the_memory_budget_are_refused_with_a_size_that_fits() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.npy");
    let o = Command::new(env!("CARGO_BIN_EXE_kronograph"))
        .arg("--quiet")
        .args(["gram", data("NCI1").to_str().unwrap(), "--backend", "cpu", "--tiles", "100000"])
        .args(["--out", out.to_str().unwrap()])
        .env("KRONOGRAPH_MAX_MEMORY", "200M")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("--tiles 100000") && e.contains("use --tiles "), "{e}");
    assert!(!out.exists() && !dir.path().join("k.npy.partial").exists());
}

/// Conflicting options are errors: --f32 with --precision f64.
#[test]
fn f32_and_precision_f64_conflict() {
    let o = run(&["--f32", "--precision", "f64"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("--f32") && e.contains("--precision f64"), "{e}");
    assert!(run(&["--f32", "--precision", "f32"]).status.success());
}

/// `gram` and `rw` say which weights they use, the same way: the file's own
/// (an edge list's third column) by default, `1` when there are none.
#[test]
fn gram_and_rw_report_the_weights_they_use() {
    let dir = tempfile::tempdir().unwrap();
    let weighted = dir.path().join("w.txt");
    std::fs::write(&weighted, "0 1 2.5\n1 2 0.5\n").unwrap();
    let plain = dir.path().join("p.txt");
    std::fs::write(&plain, "0 1\n1 2\n").unwrap();
    for (file, want) in [(&weighted, "weights: file"), (&plain, "weights: 1")] {
        for args in [&["gram", "--backend", "cpu"][..], &["rw", "--lambda", "0.1", "--backend", "cpu"][..]] {
            let o = Command::new(env!("CARGO_BIN_EXE_kronograph"))
                .arg(args[0])
                .arg(file)
                .args(&args[1..])
                .output()
                .unwrap();
            let e = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success() && e.contains(want), "{args:?} on {}: {e}", file.display());
        }
    }
}
