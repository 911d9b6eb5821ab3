//! `kronograph info` run as a program.

use std::path::Path;
use std::process::Command;

fn info(path: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kronograph")).arg("info").arg(path).output().unwrap()
}

/// The value printed after `key:` (the first line that has it).
fn value<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}:")))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {key:?} line in:\n{out}"))
}

#[test]
fn info_on_mutag() {
    let out = info(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/MUTAG"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8(out.stdout).unwrap();
    assert_eq!(value(&s, "graphs"), "188");
    assert_eq!(value(&s, "nodes"), "3371");
    assert_eq!(value(&s, "edges"), "3721 (undirected)");
    assert!(value(&s, "degree").contains("unweighted"), "{s}");
    assert!(value(&s, "node labels").starts_with("label: int, 7 distinct values"), "{s}");
    assert!(value(&s, "edge labels").starts_with("label: int, 4 distinct values"), "{s}");
    assert!(value(&s, "graph labels").starts_with("2 classes"), "{s}");
}

#[test]
fn info_on_a_directed_edge_list() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("g.mtx");
    std::fs::write(&p, "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 1\n2 3\n").unwrap();
    let out = info(&p);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8(out.stdout).unwrap();
    assert_eq!(value(&s, "arcs"), "3 (directed)");
    assert_eq!(value(&s, "degree"), "min 0, mean 1.000, max 2 (unweighted: number of out-neighbours)");
}

#[test]
fn info_on_bad_input_fails_with_a_message() {
    let out = info(Path::new("/nonexistent/kronograph/data"));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: /nonexistent/kronograph/data"), "{err}");
    assert!(out.stdout.is_empty());

    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("bad.mtx");
    std::fs::write(&p, "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n1 x\n").unwrap();
    let out = info(&p);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.mtx:3: expected an index in 1..=3"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Standard output that fails: `> /dev/full` is a one-line error and exit
/// status 1 (no panic); a reader that closes the pipe early ends the
/// program quietly, by SIGPIPE as a Unix tool (no message, no panic).
#[test]
fn a_full_or_closed_standard_output_is_not_a_panic() {
    let mutag = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/MUTAG");
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let out = Command::new(env!("CARGO_BIN_EXE_kronograph")).arg("info").arg(&mutag).stdout(full).output().unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.starts_with("error: cannot write to standard output") && !e.contains("panicked"), "{e}");
    }
    // a pipe whose reader is gone before the first write
    let mut child = Command::new(env!("CARGO_BIN_EXE_kronograph"))
        .arg("info")
        .arg(&mutag)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.is_empty(), "{e}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(13), "SIGPIPE expected, got {:?}", out.status);
    }
}

/// Environment values that do not parse are errors naming the variable,
/// not silently ignored.
#[test]
fn unparsable_limits_in_the_environment_are_errors() {
    let mutag = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/MUTAG");
    for (var, value) in [
        ("KRONOGRAPH_MAX_MEMORY", "abc"),
        ("KRONOGRAPH_MAX_MEMORY", "-5"),
        ("KRONOGRAPH_MAX_MEMORY", "0"),
        ("KRONOGRAPH_MAX_NODES", "many"),
    ] {
        let out =
            Command::new(env!("CARGO_BIN_EXE_kronograph")).arg("info").arg(&mutag).env(var, value).output().unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains(var) && e.contains(value), "{var}={value}: {e}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kronograph"))
        .arg("info")
        .arg(&mutag)
        .env("KRONOGRAPH_MAX_MEMORY", "4G")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
