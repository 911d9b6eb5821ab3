//! The command-line tool on hostile inputs and outputs (issue 10): tiny
//! files asking for huge graphs fail quickly and cleanly under a memory
//! ulimit, `--out` is checked before any computation and written
//! atomically (an interrupted run leaves the previous file, two concurrent
//! writers each leave a complete file), and up-front memory estimates.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

fn kronograph() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kronograph"));
    c.arg("--quiet").env_remove("KRONOGRAPH_MAX_MEMORY").env_remove("KRONOGRAPH_MAX_NODES");
    c
}

fn run(args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let out = kronograph().args(args).output().unwrap();
    (out, t.elapsed())
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The file names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A `.npy` file as (shape, values).
fn load_npy(p: &Path) -> (Vec<u64>, Vec<f64>) {
    let bytes = std::fs::read(p).unwrap();
    let arr = npyz::NpyFile::new(&bytes[..]).unwrap();
    (arr.shape().to_vec(), arr.into_vec::<f64>().unwrap())
}

#[test]
fn tiny_hostile_files_fail_fast_in_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let edges = d.path().join("big.txt");
    std::fs::write(&edges, "0 1000000000\n").unwrap();
    let mtx = d.path().join("big.mtx");
    std::fs::write(&mtx, "%%MatrixMarket matrix coordinate pattern symmetric\n2000000000 2000000000 1\n1 2\n").unwrap();
    let mtx_txt = d.path().join("mtx.txt");
    std::fs::copy(&mtx, &mtx_txt).unwrap();
    for (p, needle) in [(&edges, "big.txt:1:"), (&mtx, "big.mtx:2:"), (&mtx_txt, "mtx.txt:2:")] {
        // Under a 1 GB address-space limit: allocating the graph would abort
        // (SIGABRT), a clean refusal exits with status 1.
        let t = Instant::now();
        let out = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1000000 && exec \"$0\" info \"$1\"")
            .arg(env!("CARGO_BIN_EXE_kronograph"))
            .arg(p)
            .output()
            .unwrap();
        let msg = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{msg}");
        assert!(msg.contains(needle) && msg.contains("would need about") && msg.contains("GB"), "{msg}");
        assert!(t.elapsed() < Duration::from_secs(10), "took {:?}", t.elapsed());
    }
}

#[test]
fn zero_based_indicator_and_graph_index_messages() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("Z");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("Z_A.txt"), "1, 2\n2, 1\n3, 4\n4, 3\n").unwrap();
    std::fs::write(dir.join("Z_graph_indicator.txt"), "0\n0\n1\n1\n").unwrap();
    std::fs::write(dir.join("Z_node_labels.txt"), "1\n1\n1\n1\n").unwrap();
    let (out, _) = run(&["info", dir.to_str().unwrap()]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(msg.contains("Z_graph_indicator.txt:1:") && msg.contains("0-based"), "{msg}");
    std::fs::write(dir.join("Z_graph_indicator.txt"), "1\n1\n2\n2\n").unwrap();
    let (out, _) = run(&["bfs", dir.to_str().unwrap(), "--graph-index", "5"]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(!msg.contains("invalid generator parameters"), "{msg}");
    assert!(msg.contains("no graph 5") && msg.contains("2 graphs, numbered from 0 to 1"), "{msg}");
    let (out, _) = run(&["info", dir.join("Z_A.txt").to_str().unwrap()]);
    assert!(stderr(&out).contains("pass its folder"), "{}", stderr(&out));
}

#[test]
fn out_is_checked_before_computing() {
    let d = tempfile::tempdir().unwrap();
    let nci1 = data("NCI1");
    // A full NCI1 Gram matrix takes minutes: each refusal must come at once.
    let missing = d.path().join("missing/k.npy");
    for sub in [&["gram"][..], &["rw", "--lambda", "0.01"]] {
        let mut args = sub.to_vec();
        args.extend([nci1.to_str().unwrap(), "--out", missing.to_str().unwrap()]);
        let (out, t) = run(&args);
        let msg = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{msg}");
        assert!(msg.contains("does not exist"), "{msg}");
        assert!(t < Duration::from_secs(5), "{sub:?} took {t:?}");
    }
    let (out, t) = run(&["gram", nci1.to_str().unwrap(), "--out", d.path().to_str().unwrap()]);
    assert!(stderr(&out).contains("is a folder") && t < Duration::from_secs(5), "{}", stderr(&out));

    // --out onto the input (a data set's own file, or the edge list read).
    let copy = d.path().join("T");
    std::fs::create_dir(&copy).unwrap();
    for f in ["MUTAG_A.txt", "MUTAG_graph_indicator.txt"] {
        std::fs::copy(data("MUTAG").join(f), copy.join(f.replace("MUTAG", "T"))).unwrap();
    }
    let a = copy.join("T_A.txt");
    let before = std::fs::read(&a).unwrap();
    let (out, _) = run(&["gram", copy.to_str().unwrap(), "--first", "3", "--out", a.to_str().unwrap()]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(msg.contains("overwrite the input"), "{msg}");
    assert_eq!(std::fs::read(&a).unwrap(), before);
    let g = d.path().join("g.txt");
    std::fs::write(&g, "0 1\n1 2\n").unwrap();
    let (out, _) = run(&["bfs", g.to_str().unwrap(), "--out", g.to_str().unwrap()]);
    assert!(stderr(&out).contains("overwrite the input"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&g).unwrap(), b"0 1\n1 2\n");
    assert_eq!(names(d.path()), ["T", "g.txt"]);
}

#[test]
fn an_interrupted_gram_leaves_the_previous_file_and_no_temporary() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("k.npy");
    let previous = b"the previous result".to_vec();
    for signal in ["TERM", "KILL", "INT"] {
        std::fs::write(&out, &previous).unwrap();
        // NCI1's 8.4 million pairs take minutes: the run is stopped mid-way.
        let mut child = kronograph()
            .args(["gram", data("NCI1").to_str().unwrap(), "--backend", "cpu", "--out", out.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        assert!(child.try_wait().unwrap().is_none(), "gram ended before it was stopped");
        let status = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
        assert!(status.success());
        let st = child.wait().unwrap();
        assert!(!st.success(), "SIG{signal}: {st:?}");
        assert_eq!(std::fs::read(&out).unwrap(), previous, "SIG{signal}");
        assert_eq!(names(d.path()), ["k.npy"], "SIG{signal}");
    }
}

#[test]
fn concurrent_writers_each_leave_a_complete_file() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("k.npy");
    let mutag = data("MUTAG");
    let spawn = |first: &str| {
        kronograph()
            .args(["gram", mutag.to_str().unwrap(), "--first", first, "--backend", "cpu", "--out"])
            .arg(&out)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // The references, one at a time.
    let mut refs = Vec::new();
    for first in ["30", "40"] {
        let st = spawn(first).wait_with_output().unwrap();
        assert!(st.status.success(), "{}", stderr(&st));
        refs.push(load_npy(&out));
    }
    std::fs::remove_file(&out).unwrap();
    for _ in 0..3 {
        let (a, b) = (spawn("30"), spawn("40"));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        assert!(a.status.success() && b.status.success(), "{} {}", stderr(&a), stderr(&b));
        let got = load_npy(&out);
        assert!(got == refs[0] || got == refs[1], "the file is neither run's matrix: shape {:?}", got.0);
        assert_eq!(names(d.path()), ["k.npy"]);
    }
}

#[test]
fn a_gram_matrix_too_large_for_memory_is_refused_up_front() {
    // 100,000 tiny graphs: an 80 GB output (and more for the pairs).
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("H");
    std::fs::create_dir(&dir).unwrap();
    let n = 100_000;
    let a: String = (0..n).map(|g| format!("{}, {}\n{}, {}\n", 2 * g + 1, 2 * g + 2, 2 * g + 2, 2 * g + 1)).collect();
    let gi: String = (0..n).map(|g| format!("{}\n{}\n", g + 1, g + 1)).collect();
    std::fs::write(dir.join("H_A.txt"), a).unwrap();
    std::fs::write(dir.join("H_graph_indicator.txt"), gi).unwrap();
    for sub in [&["gram"][..], &["rw", "--lambda", "0.1"]] {
        let t = Instant::now();
        let mut args = sub.to_vec();
        args.push(dir.to_str().unwrap());
        // A budget well below what the output needs, whatever the machine.
        let out = kronograph().env("KRONOGRAPH_MAX_MEMORY", "8G").args(&args).output().unwrap();
        let msg = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{msg}");
        assert!(msg.contains("100000 x 100000") && msg.contains("80.0 GB") && msg.contains("--first"), "{msg}");
        assert!(t.elapsed() < Duration::from_secs(20), "{sub:?} took {:?}", t.elapsed());
    }
    // Under a budget that the data set and the fixed overhead alone exceed, the advice says so.
    let mutag = data("MUTAG");
    let out = kronograph().env("KRONOGRAPH_MAX_MEMORY", "1M").args(["gram", mutag.to_str().unwrap()]).output();
    let msg = stderr(&out.unwrap());
    assert!(msg.contains("alone exceed it") && msg.contains("KRONOGRAPH_MAX_MEMORY"), "{msg}");
    // Just below the whole set's need, the --first it suggests is accepted by the check.
    let need: f64 = msg.split("would need about ").nth(1).and_then(|s| s.split(" MB").next()).unwrap().parse().unwrap();
    let budget = format!("{}", ((need - 0.5) * 1e6) as u64);
    let out = kronograph().env("KRONOGRAPH_MAX_MEMORY", &budget).args(["gram", mutag.to_str().unwrap()]).output();
    let msg = stderr(&out.unwrap());
    let k: String = msg.split("--first ").nth(1).unwrap().chars().take_while(char::is_ascii_digit).collect();
    let out = kronograph()
        .env("KRONOGRAPH_MAX_MEMORY", &budget)
        .args(["gram", mutag.to_str().unwrap(), "--backend", "cpu", "--first", &k])
        .output()
        .unwrap();
    assert!(out.status.success(), "--first {k}: {}", stderr(&out));
}

/// A number for a size line or an id: small, or far beyond the node limit.
fn hostile_number() -> impl proptest::strategy::Strategy<Value = u64> {
    use proptest::prelude::*;
    prop_oneof![0u64..50, (1u64 << 21)..(1u64 << 40), Just(u64::MAX), Just(2_000_000_000)]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Random tiny Matrix Market files and edge lists with huge sizes and
    /// ids, as `info` arguments under a 1 GB address-space limit: status 0,
    /// or 1 with an error naming the file and a line; never a panic (101)
    /// or an abort on a failed allocation (SIGABRT).
    #[test]
    fn cli_on_hostile_tiny_files(
        mtx in proptest::prelude::any::<bool>(),
        size in hostile_number(),
        nnz in hostile_number(),
        ids in proptest::collection::vec((hostile_number(), hostile_number()), 0..4),
    ) {
        let d = tempfile::tempdir().unwrap();
        // Matrix Market content in a .txt too: recognized by its banner.
        let mut c = if mtx {
            format!("%%MatrixMarket matrix coordinate pattern general\n{size} {size} {nnz}\n")
        } else {
            String::new()
        };
        for (u, v) in &ids {
            c += &format!("{u} {v}\n");
        }
        let p = d.path().join("h.txt");
        std::fs::write(&p, c).unwrap();
        let out = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1000000 && exec \"$0\" info \"$1\"")
            .arg(env!("CARGO_BIN_EXE_kronograph"))
            .arg(&p)
            .output()
            .unwrap();
        let msg = stderr(&out);
        proptest::prop_assert!(matches!(out.status.code(), Some(0 | 1)), "{:?}: {}", out.status, msg);
        if out.status.code() == Some(1) {
            proptest::prop_assert!(msg.contains("h.txt:"), "{}", msg);
        }
    }
}

#[test]
fn a_signal_during_the_write_removes_the_temporary_file() {
    // 2,000 one-edge graphs: `rw` computes them in a second or two, then
    // writes a 32 MB matrix; SIGTERM as soon as the temporary file shows.
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("S");
    std::fs::create_dir(&dir).unwrap();
    let n = 2000;
    let a: String = (0..n).map(|g| format!("{}, {}\n{}, {}\n", 2 * g + 1, 2 * g + 2, 2 * g + 2, 2 * g + 1)).collect();
    let gi: String = (0..n).map(|g| format!("{}\n{}\n", g + 1, g + 1)).collect();
    std::fs::write(dir.join("S_A.txt"), a).unwrap();
    std::fs::write(dir.join("S_graph_indicator.txt"), gi).unwrap();
    let outdir = d.path().join("out");
    std::fs::create_dir(&outdir).unwrap();
    let out = outdir.join("r.npy");
    std::fs::write(&out, b"previous").unwrap();
    let mut child = kronograph()
        .args(["rw", dir.to_str().unwrap(), "--lambda", "0.1", "--out", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut caught = false;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if names(&outdir).iter().any(|n| n.starts_with(".r.npy.") && n.ends_with(".tmp")) {
            Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
            caught = true;
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    assert_eq!(names(&outdir), ["r.npy"], "caught during the write: {caught}");
    if caught {
        // Killed before the rename: the previous file; just after it: the new one, complete.
        let bytes = std::fs::read(&out).unwrap();
        assert!(bytes == b"previous" || load_npy(&out).0 == [n as u64, n as u64], "{status:?}");
    } else {
        // The write was too quick to catch: it must have completed.
        assert!(status.success());
        assert_eq!(load_npy(&out).0, [n as u64, n as u64]);
        eprintln!("note: the write finished before the temporary file was seen");
    }
}
