//! A `.npy` matrix too large for memory, written in place block by block and
//! resumable after an interruption: the one documented exception to the
//! atomic writes of [`output`](super::output).
//!
//! [`TiledNpy`] writes an `f64` matrix of shape `(rows, cols)` to
//! `TARGET.partial` (the `.npy` header first, the file sized to its final
//! length, then blocks written in place at their offsets) and keeps a
//! progress log `TARGET.progress` (text: a header naming the shape, the
//! tile size and a fingerprint of the computation, then one line
//! `done K` per finished tile, appended after the tile's data is on disk).
//! [`finish`](TiledNpy::finish) renames the partial file to `TARGET` and
//! removes the log, so:
//!
//! - `TARGET` exists only when every tile was written: an interrupted run
//!   (SIGINT, SIGKILL, a power cut) never leaves a file that looks
//!   complete;
//! - a later run with the same fingerprint continues from the log
//!   ([`TiledNpy::open`] with `resume`); a tile whose `done` line is
//!   missing or torn is computed again;
//! - memory stays bounded by one tile: nothing holds the whole matrix.

use super::IoError;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// First line of a progress log.
const MAGIC: &str = "kronograph tiled npy v1";

/// A resumable `.npy` matrix being written (see the [module documentation](self)).
#[derive(Debug)]
pub struct TiledNpy {
    target: PathBuf,
    partial: PathBuf,
    progress: PathBuf,
    file: File,
    log: File,
    rows: usize,
    cols: usize,
    header: u64,
    done: HashSet<u64>,
}

impl TiledNpy {
    /// Starts (or, with `resume`, continues) writing the `rows × cols`
    /// matrix of `target` in tiles of side `tile`; `fingerprint` (one line)
    /// names the computation, so that a resumed run is the same one.
    ///
    /// # Errors
    /// [`IoError::Output`] when `resume` is false but an interrupted run
    /// of `target` exists, when `resume` is true but there is none, or its
    /// log is for another shape, tile size or computation (the message says
    /// which files to delete to start over); [`IoError::Malformed`] for a
    /// log line that is not `done K` (other than a torn last line);
    /// [`IoError::Os`] when the files cannot be created, read or written.
    pub fn open(
        target: impl AsRef<Path>,
        rows: usize,
        cols: usize,
        tile: usize,
        fingerprint: &str,
        resume: bool,
    ) -> Result<Self, IoError> {
        let target = target.as_ref().to_path_buf();
        let partial = with_suffix(&target, ".partial");
        let progress = with_suffix(&target, ".progress");
        let refuse = |problem: String| IoError::Output { path: target.clone(), problem };
        let os = |path: &Path| {
            let path = path.to_path_buf();
            move |source| IoError::Os { path, source }
        };
        let fingerprint = fingerprint.replace('\n', " ");
        let head = format!("{MAGIC}\nshape {rows} {cols}\ntile {tile}\nfingerprint {fingerprint}\n");
        let bytes = npy_header(rows, cols);
        let header = bytes.len() as u64;
        let len = rows
            .checked_mul(cols)
            .and_then(|n| n.checked_mul(8))
            .and_then(|n| (n as u64).checked_add(header))
            .ok_or_else(|| refuse(format!("a {rows} × {cols} matrix of f64 is too large for one file")))?;
        let exists = partial.exists() || progress.exists();
        let mut done = HashSet::new();
        let (file, log) = if resume {
            if !(partial.exists() && progress.exists()) {
                return Err(refuse(format!(
                    "--resume: no interrupted run to continue ({} and {} must both exist); run without --resume \
                     to start",
                    partial.display(),
                    progress.display()
                )));
            }
            let text = BufReader::new(File::open(&progress).map_err(os(&progress))?);
            let lines: Vec<String> = text.lines().collect::<Result<_, _>>().map_err(os(&progress))?;
            let expect: Vec<&str> = head.lines().collect();
            if lines.len() < expect.len() || lines[..expect.len()] != expect[..] {
                return Err(refuse(format!(
                    "--resume: {} was written for another computation (its header differs from `{}`); rerun with \
                     the same arguments, or delete {} and {} to start over",
                    progress.display(),
                    expect.join(" | "),
                    partial.display(),
                    progress.display()
                )));
            }
            let body = &lines[expect.len()..];
            for (k, line) in body.iter().enumerate() {
                match line.strip_prefix("done ").and_then(|v| v.parse::<u64>().ok()) {
                    Some(t) => {
                        done.insert(t);
                    }
                    // a torn last line: that tile is computed again
                    None if k + 1 == body.len() => {}
                    None => {
                        return Err(IoError::Malformed {
                            path: progress.clone(),
                            line: expect.len() + k + 1,
                            expected: "`done K` (a finished tile)".into(),
                            found: line.chars().take(60).collect(),
                        })
                    }
                }
            }
            let file = OpenOptions::new().read(true).write(true).open(&partial).map_err(os(&partial))?;
            let found = file.metadata().map_err(os(&partial))?.len();
            if found != len {
                return Err(refuse(format!(
                    "--resume: {} has {found} bytes, not the {len} of a {rows} × {cols} matrix; delete {} and {} \
                     to start over",
                    partial.display(),
                    partial.display(),
                    progress.display()
                )));
            }
            // rewrite the log without a torn line, then append
            let mut log = File::create(&progress).map_err(os(&progress))?;
            let mut kept = head.clone();
            let mut sorted: Vec<&u64> = done.iter().collect();
            sorted.sort_unstable();
            for t in sorted {
                kept.push_str(&format!("done {t}\n"));
            }
            log.write_all(kept.as_bytes()).and_then(|_| log.sync_data()).map_err(os(&progress))?;
            (file, log)
        } else {
            if exists {
                return Err(refuse(format!(
                    "an interrupted run of this output exists ({}, {}): pass --resume to continue it, or delete \
                     both files to start over",
                    partial.display(),
                    progress.display()
                )));
            }
            let mut file =
                OpenOptions::new().read(true).write(true).create_new(true).open(&partial).map_err(os(&partial))?;
            file.write_all(&bytes)
                .and_then(|_| file.set_len(len))
                .and_then(|_| file.sync_all())
                .map_err(os(&partial))?;
            let mut log = File::create(&progress).map_err(os(&progress))?;
            log.write_all(head.as_bytes()).and_then(|_| log.sync_data()).map_err(os(&progress))?;
            (file, log)
        };
        Ok(TiledNpy { target, partial, progress, file, log, rows, cols, header, done })
    }

    /// Whether tile `t` was finished (by this run or an earlier one).
    pub fn is_done(&self, t: u64) -> bool {
        self.done.contains(&t)
    }

    /// Number of tiles finished.
    pub fn num_done(&self) -> usize {
        self.done.len()
    }

    /// Writes the row-major block `data` of `rows × cols` entries at
    /// `(r0, c0)`, or its transpose at `(c0, r0)` when `transpose`, in
    /// place (one positioned write per row).
    ///
    /// # Errors
    /// [`IoError::Shape`] when the block does not fit the matrix;
    /// [`IoError::Os`] when the write fails.
    pub fn write_block(
        &mut self,
        (r0, c0): (usize, usize),
        (rows, cols): (usize, usize),
        data: &[f64],
        transpose: bool,
    ) -> Result<(), IoError> {
        let (tr, tc, tr0, tc0) = if transpose { (cols, rows, c0, r0) } else { (rows, cols, r0, c0) };
        if data.len() != rows * cols || tr0 + tr > self.rows || tc0 + tc > self.cols {
            return Err(IoError::Shape {
                path: self.partial.clone(),
                shape: vec![self.rows, self.cols],
                expected: rows * cols,
                found: data.len(),
            });
        }
        let mut buf = Vec::with_capacity(tc * 8);
        for i in 0..tr {
            buf.clear();
            for j in 0..tc {
                let v = if transpose { data[j * cols + i] } else { data[i * cols + j] };
                buf.extend_from_slice(&v.to_le_bytes());
            }
            let at = self.header + (((tr0 + i) * self.cols + tc0) * 8) as u64;
            self.file
                .seek(SeekFrom::Start(at))
                .and_then(|_| self.file.write_all(&buf))
                .map_err(|source| IoError::Os { path: self.partial.clone(), source })?;
        }
        Ok(())
    }

    /// Records tile `t` as finished: its data is flushed to disk first, then
    /// the `done` line appended to the log (and flushed), so a tile in the
    /// log is on disk.
    ///
    /// # Errors
    /// [`IoError::Os`] when a flush or the append fails.
    pub fn mark_done(&mut self, t: u64) -> Result<(), IoError> {
        self.file.sync_data().map_err(|source| IoError::Os { path: self.partial.clone(), source })?;
        self.log
            .write_all(format!("done {t}\n").as_bytes())
            .and_then(|_| self.log.sync_data())
            .map_err(|source| IoError::Os { path: self.progress.clone(), source })?;
        self.done.insert(t);
        Ok(())
    }

    /// Completes the file: flushes it, renames `TARGET.partial` to `TARGET`
    /// and removes the log.
    ///
    /// # Errors
    /// [`IoError::Os`] when the flush, the rename or the removal fails.
    pub fn finish(self) -> Result<PathBuf, IoError> {
        let TiledNpy { target, partial, progress, file, log, .. } = self;
        file.sync_all().map_err(|source| IoError::Os { path: partial.clone(), source })?;
        drop((file, log));
        std::fs::rename(&partial, &target).map_err(|source| IoError::Os { path: target.clone(), source })?;
        std::fs::remove_file(&progress).map_err(|source| IoError::Os { path: progress.clone(), source })?;
        Ok(target)
    }
}

/// `path` with `suffix` appended to its file name.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The `.npy` 1.0 header of a C-order `<f8` matrix, padded to 64 bytes.
fn npy_header(rows: usize, cols: usize) -> Vec<u8> {
    super::npy::header("<f8", &[rows as u64, cols as u64])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_resume_and_finish() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("k.npy");
        let (n, m) = (5, 5);
        let full: Vec<f64> = (0..n * m).map(|v| v as f64 * 0.5).collect();
        let block = |r0: usize, c0: usize, r: usize, c: usize| -> Vec<f64> {
            (0..r).flat_map(|i| (0..c).map(move |j| (i, j))).map(|(i, j)| full[(r0 + i) * m + c0 + j]).collect()
        };
        let mut w = TiledNpy::open(&target, n, m, 3, "test", false).unwrap();
        w.write_block((0, 0), (3, 3), &block(0, 0, 3, 3), false).unwrap();
        w.mark_done(0).unwrap();
        drop(w); // interrupted
        assert!(!target.exists());
        // a second start without --resume is refused, naming both files
        let e = TiledNpy::open(&target, n, m, 3, "test", false).unwrap_err().to_string();
        assert!(e.contains("--resume") && e.contains("k.npy.partial"), "{e}");
        // another computation is refused
        let e = TiledNpy::open(&target, n, m, 3, "other", true).unwrap_err().to_string();
        assert!(e.contains("another computation"), "{e}");
        // a torn last line is ignored
        let log = with_suffix(&target, ".progress");
        let mut f = OpenOptions::new().append(true).open(&log).unwrap();
        f.write_all(b"don").unwrap();
        drop(f);
        let mut w = TiledNpy::open(&target, n, m, 3, "test", true).unwrap();
        assert!(w.is_done(0) && !w.is_done(1) && w.num_done() == 1);
        // the rest: blocks (0, 3) 3×2, (3, 0) as the transpose of a 2×3 block... written directly
        w.write_block((0, 3), (3, 2), &block(0, 3, 3, 2), false).unwrap();
        let bt: Vec<f64> = block(3, 0, 2, 3);
        // the transpose of (3,0) is a 3×2 block at (0,3) in a symmetric use; here write it as given
        w.write_block((3, 0), (2, 3), &bt, false).unwrap();
        let t: Vec<f64> = {
            let b = block(3, 3, 2, 2);
            vec![b[0], b[2], b[1], b[3]]
        };
        w.write_block((3, 3), (2, 2), &t, true).unwrap();
        assert!(w.write_block((4, 4), (2, 2), &t, false).is_err());
        w.mark_done(1).unwrap();
        w.finish().unwrap();
        assert!(!with_suffix(&target, ".partial").exists() && !log.exists());
        let bytes = std::fs::read(&target).unwrap();
        let arr = npyz::NpyFile::new(&bytes[..]).unwrap();
        assert_eq!(arr.shape(), &[5, 5]);
        assert_eq!(arr.into_vec::<f64>().unwrap(), full);
    }
}
