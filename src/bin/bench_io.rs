//! The readers against SciPy in the same run (issue 27):
//! `cargo run --release --features bench --bin bench_io -- FILE.mtx [--tu DIR] [--repeat R] [--peer] [--peer-script P] [--phases]`.
//!
//! Times, as medians of `R` runs after one warm-up: the Matrix Market
//! reader on `FILE.mtx` ([`mtx::read`]), the same graph written to and read
//! back from the binary format ([`binary`]), the edge list reader on the
//! same edges (written once to a temporary edge list), a TU data set
//! (`--tu`), and with `--peer` `scipy.io.mmread` on the same file
//! (`scripts/io_peer.py`). Prints the machine (CPU model, vector width,
//! threads) with the figures.

use kronograph::graph::io::{binary, edgelist, mtx, tu};
use kronograph::graph::{Direction, Duplicates};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The median wall time of `f` over `r` runs, after one warm-up run.
fn time<T>(r: usize, mut f: impl FnMut() -> T) -> f64 {
    drop(f());
    median(
        (0..r)
            .map(|_| {
                let t = Instant::now();
                let x = f();
                let s = t.elapsed().as_secs_f64();
                drop(x);
                s
            })
            .collect(),
    )
}

fn machine() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model =
        info.lines().find_map(|l| l.strip_prefix("model name")).map_or("?", |m| m.trim_start_matches([' ', '\t', ':']));
    let flags = info.lines().find(|l| l.starts_with("flags")).unwrap_or("");
    let simd = if flags.contains(" avx512f") {
        "AVX-512"
    } else if flags.contains(" avx2") {
        "AVX2"
    } else {
        "no AVX2"
    };
    format!("{model} ({simd}), {} threads", rayon::current_num_threads())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut file = None;
    let (mut tu_dir, mut repeat, mut peer) = (None, 5usize, false);
    let mut script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/io_peer.py");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--tu" => tu_dir = it.next().map(PathBuf::from),
            "--repeat" => repeat = it.next().ok_or("--repeat needs a number")?.parse()?,
            "--peer" => peer = true,
            // The phases of every read on stderr (the readers' `KRONOGRAPH_IO_TIMES`).
            // SAFETY: argument parsing, before any thread is started.
            "--phases" => unsafe { std::env::set_var("KRONOGRAPH_IO_TIMES", "1") },
            "--peer-script" => {
                script = it.next().map(PathBuf::from).ok_or("--peer-script needs a path")?;
                peer = true;
            }
            _ => file = Some(PathBuf::from(a)),
        }
    }
    let file = file.ok_or("usage: bench_io FILE.mtx [--tu DIR] [--repeat R] [--peer]")?;
    let mb = std::fs::metadata(&file)?.len() as f64 / 1e6;
    println!("machine: {}", machine());
    let g = mtx::read(&file)?;
    println!("file: {} ({mb:.1} MB, {} nodes, {} entries)", file.display(), g.num_nodes(), g.num_entries());
    let t = time(repeat, || mtx::read(&file).unwrap());
    println!("matrix market read:  {t:.4} s  {:.0} MB/s", mb / t);

    let tmp = tempfile::tempdir_in(file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?;
    let kgb = tmp.path().join("g.kgb");
    let t = time(1, || binary::write(&kgb, &g).unwrap());
    let kb = std::fs::metadata(&kgb)?.len() as f64 / 1e6;
    println!("binary write:        {t:.4} s  ({kb:.1} MB)");
    let t = time(repeat, || binary::read(&kgb).unwrap());
    println!("binary read:         {t:.4} s  {:.0} MB/s", kb / t);

    let el = tmp.path().join("g.txt");
    let mut text = String::with_capacity((mb * 1e6) as usize);
    for i in 0..g.num_nodes() {
        for &j in g.neighbors(i).iter().filter(|&&j| g.is_directed() || j <= i) {
            text.push_str(&format!("{i} {j}\n"));
        }
    }
    std::fs::write(&el, text)?;
    let emb = std::fs::metadata(&el)?.len() as f64 / 1e6;
    let dir = if g.is_directed() { Direction::Directed } else { Direction::Undirected };
    let o = edgelist::EdgeListOptions { direction: dir, duplicates: Duplicates::KeepFirst, ..Default::default() };
    let t = time(repeat, || edgelist::read_with(&el, &o).unwrap());
    println!("edge list read:      {t:.4} s  {:.0} MB/s ({emb:.1} MB)", emb / t);

    if let Some(d) = tu_dir {
        let t = time(repeat, || tu::read_dataset(&d).unwrap());
        println!("TU {}: {:.1} ms", d.display(), t * 1e3);
    }
    if peer {
        let out = std::process::Command::new("python3").arg(script).arg(&file).arg(repeat.to_string()).output()?;
        let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let secs = line.split_whitespace().nth(4).and_then(|s| s.parse::<f64>().ok());
        match secs {
            Some(s) => println!("peer: {line}  ({:.0} MB/s)", mb / s),
            None => println!("peer: failed: {line} {}", String::from_utf8_lossy(&out.stderr).trim()),
        }
    }
    Ok(())
}
