//! A `.npy` matrix too large for memory, written in place block by block and
//! resumable after an interruption: the one documented exception to the
//! atomic writes of [`output`](super::output).
//!
//! [`TiledNpy`] writes an `f64` matrix of shape `(rows, cols)` to
//! `TARGET.partial` (the `.npy` header first, the file sized to its final
//! length, then blocks written in place at their offsets) and keeps a
//! progress log `TARGET.progress` (text: a header naming the shape, the
//! tile size and a fingerprint of the computation, then one line
//! `done K HASH R0,C0,ROWS,COLS …` per finished tile, appended after the
//! tile's data is on disk: the blocks it wrote and the XXH3-64 checksum of
//! their bytes). [`finish`](TiledNpy::finish) renames the partial file to
//! `TARGET` and removes the log, so:
//!
//! - `TARGET` exists only when every tile was written: an interrupted run
//!   (SIGINT, SIGKILL, a power cut) never leaves a file that looks
//!   complete;
//! - a later run with the same fingerprint continues from the log
//!   ([`TiledNpy::open`] with `resume`); a tile whose `done` line is
//!   missing or torn is computed again;
//! - nothing in the state is trusted on resume: the `.npy` header of the
//!   partial file is checked, and every finished tile's blocks are read
//!   back and checked against their checksum (a tile logged but never
//!   written, or changed since, is an error naming it);
//! - one writer at a time: the log is locked (an advisory `flock`) for as
//!   long as a [`TiledNpy`] is open, and a second run is refused;
//! - memory stays bounded by one tile: nothing holds the whole matrix.

use super::IoError;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// First line of a progress log (v2: a checksum per finished tile).
const MAGIC: &str = "kronograph tiled npy v2";

/// A block written in place: `(row, col, rows, cols)` in the matrix.
type Block = (usize, usize, usize, usize);

/// A resumable `.npy` matrix being written (see the [module documentation](self)).
///
/// Tile `t` is the block at row `t / nb`, column `t % nb` of the grid of
/// `tile × tile` blocks (`nb = ⌈cols / tile⌉`), optionally with its mirror
/// image: what a `done t` line may name.
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
    /// The blocks written since the last [`mark_done`](Self::mark_done),
    /// and the running checksum of their bytes.
    pending: Vec<Block>,
    hasher: Checksum,
}

/// The running XXH3-64 checksum of a tile's bytes.
#[derive(Default)]
struct Checksum(xxhash_rust::xxh3::Xxh3);

impl std::fmt::Debug for Checksum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Checksum({:016x})", self.0.digest())
    }
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
        if resume && !(partial.exists() && progress.exists()) {
            return Err(refuse(format!(
                "--resume: no interrupted run to continue ({} and {} must both exist); run without --resume to \
                 start",
                partial.display(),
                progress.display()
            )));
        }
        if !resume && exists {
            return Err(refuse(format!(
                "an interrupted run of this output exists ({}, {}): pass --resume to continue it, or delete both \
                 files to start over",
                partial.display(),
                progress.display()
            )));
        }
        // the log, locked for as long as this writer lives: a second run is refused
        let mut log = OpenOptions::new()
            .read(true)
            .write(true)
            .create(!resume)
            .truncate(false)
            .open(&progress)
            .map_err(os(&progress))?;
        match <File as fs4::FileExt>::try_lock(&log) {
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) => {
                return Err(refuse(format!(
                    "another run is writing this output now ({} is locked): wait for it to finish, or stop it \
                     and pass --resume",
                    progress.display()
                )))
            }
            Err(fs4::TryLockError::Error(e)) => return Err(os(&progress)(e)),
        }
        let mut done = HashSet::new();
        let file = if resume {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut log, &mut text).map_err(os(&progress))?;
            let lines: Vec<&str> = text.lines().collect();
            let expect: Vec<&str> = head.lines().collect();
            if lines.len() < expect.len() || lines[..expect.len()] != expect[..] {
                let differs = lines.iter().zip(&expect).position(|(a, b)| a != b).unwrap_or(lines.len());
                let shown = |l: Option<&&str>| l.map_or("(missing)".to_string(), |l| l.chars().take(200).collect());
                let (found_line, want_line) = (shown(lines.get(differs)), shown(expect.get(differs)));
                return Err(refuse(format!(
                    "--resume: {} was written for another computation (line {}: `{}`, this run: `{}`); rerun \
                     with the same arguments and data, or delete {} and {} to start over",
                    progress.display(),
                    differs + 1,
                    found_line,
                    want_line,
                    partial.display(),
                    progress.display()
                )));
            }
            let mut file = OpenOptions::new().read(true).write(true).open(&partial).map_err(os(&partial))?;
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
            let mut on_disk = vec![0u8; bytes.len()];
            file.seek(SeekFrom::Start(0))
                .and_then(|_| std::io::Read::read_exact(&mut file, &mut on_disk))
                .map_err(os(&partial))?;
            if on_disk != bytes {
                return Err(refuse(format!(
                    "--resume: the .npy header of {} is damaged (not that of a {rows} × {cols} float64 matrix); \
                     delete {} and {} to start over",
                    partial.display(),
                    partial.display(),
                    progress.display()
                )));
            }
            let body = &lines[expect.len()..];
            let mut kept = head.clone();
            for (k, line) in body.iter().enumerate() {
                let lineno = expect.len() + k + 1;
                match parse_done(line) {
                    Some((t, sum, blocks)) => {
                        if !tile_blocks(t, rows, cols, tile).is_some_and(|own| blocks_of(&own, &blocks)) {
                            return Err(IoError::Malformed {
                                path: progress.clone(),
                                line: lineno,
                                expected: format!(
                                    "the block of tile {t} in the grid of {tile} × {tile} tiles (and its mirror image)"
                                ),
                                found: line.chars().take(80).collect(),
                            });
                        }
                        let got = checksum(&mut file, header, cols, &blocks).map_err(os(&partial))?;
                        if got != sum {
                            return Err(refuse(format!(
                                "--resume: tile {t} ({}) of {} does not match its checksum in {} (line {lineno}): \
                                 it was never written or was changed since; delete {} and {} to start over",
                                blocks
                                    .iter()
                                    .map(|b| format!("rows {}..{}, columns {}..{}", b.0, b.0 + b.2, b.1, b.1 + b.3))
                                    .collect::<Vec<_>>()
                                    .join("; "),
                                partial.display(),
                                progress.display(),
                                partial.display(),
                                progress.display()
                            )));
                        }
                        done.insert(t);
                        kept.push_str(line);
                        kept.push('\n');
                    }
                    // a torn last line: that tile is computed again
                    None if k + 1 == body.len() && !text.ends_with('\n') => {}
                    None => {
                        return Err(IoError::Malformed {
                            path: progress.clone(),
                            line: lineno,
                            expected: "`done K HASH R0,C0,ROWS,COLS …` (a finished tile)".into(),
                            found: line.chars().take(60).collect(),
                        })
                    }
                }
            }
            // rewrite the log without a torn line (same locked handle), then append
            log.set_len(0)
                .and_then(|_| log.seek(SeekFrom::Start(0)))
                .and_then(|_| log.write_all(kept.as_bytes()))
                .and_then(|_| log.sync_data())
                .map_err(os(&progress))?;
            file
        } else {
            let mut file =
                OpenOptions::new().read(true).write(true).create_new(true).open(&partial).map_err(os(&partial))?;
            file.write_all(&bytes)
                .and_then(|_| file.set_len(len))
                .and_then(|_| file.sync_all())
                .map_err(os(&partial))?;
            log.set_len(0)
                .and_then(|_| log.write_all(head.as_bytes()))
                .and_then(|_| log.sync_data())
                .map_err(os(&progress))?;
            file
        };
        let (pending, hasher) = (Vec::new(), Checksum::default());
        Ok(TiledNpy { target, partial, progress, file, log, rows, cols, header, done, pending, hasher })
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
            self.hasher.0.update(&buf);
        }
        self.pending.push((tr0, tc0, tr, tc));
        Ok(())
    }

    /// Records tile `t` as finished: its data is flushed to disk first, then
    /// the `done` line appended to the log (and flushed), so a tile in the
    /// log is on disk. The line lists the blocks written since the last
    /// call, with the checksum of their bytes.
    ///
    /// # Errors
    /// [`IoError::Os`] when a flush or the append fails.
    pub fn mark_done(&mut self, t: u64) -> Result<(), IoError> {
        self.file.sync_data().map_err(|source| IoError::Os { path: self.partial.clone(), source })?;
        let blocks: Vec<String> = self.pending.drain(..).map(|b| format!("{},{},{},{}", b.0, b.1, b.2, b.3)).collect();
        let sum = std::mem::take(&mut self.hasher).0.digest();
        self.log
            .write_all(format!("done {t} {sum:016x} {}\n", blocks.join(" ")).as_bytes())
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

/// A log line `done K HASH R0,C0,ROWS,COLS …`: the tile, its checksum and
/// its blocks (at least one), or `None`.
fn parse_done(line: &str) -> Option<(u64, u64, Vec<Block>)> {
    let mut parts = line.strip_prefix("done ")?.split(' ');
    let t = parts.next()?.parse().ok()?;
    let sum = u64::from_str_radix(parts.next()?, 16).ok()?;
    let blocks = parts
        .map(|b| {
            let v: Vec<usize> = b.split(',').map(|x| x.parse().ok()).collect::<Option<_>>()?;
            (v.len() == 4).then(|| (v[0], v[1], v[2], v[3]))
        })
        .collect::<Option<Vec<Block>>>()?;
    (!blocks.is_empty()).then_some((t, sum, blocks))
}

/// The block of tile `t` in the grid of `tile × tile` tiles of a `rows ×
/// cols` matrix (numbered row by row: tile `t` at grid row `t / nb`, column
/// `t % nb`, `nb = ⌈cols / tile⌉`), or `None` when there is no such tile.
fn tile_blocks(t: u64, rows: usize, cols: usize, tile: usize) -> Option<Block> {
    let nb = cols.div_ceil(tile.max(1)) as u64;
    let (bi, bj) = (usize::try_from(t.checked_div(nb)?).ok()?, usize::try_from(t % nb).ok()?);
    let (r0, c0) = (bi.checked_mul(tile)?, bj.checked_mul(tile)?);
    (r0 < rows && c0 < cols).then(|| (r0, c0, tile.min(rows - r0), tile.min(cols - c0)))
}

/// Whether a `done` line's `blocks` are the tile's own block `own`,
/// optionally followed by its mirror image (as [`TiledNpy::write_block`]
/// with `transpose` writes it).
fn blocks_of(own: &Block, blocks: &[Block]) -> bool {
    let mirror = (own.1, own.0, own.3, own.2);
    match blocks {
        [b] => b == own,
        [b, m] => b == own && *m == mirror,
        _ => false,
    }
}

/// The XXH3-64 checksum of `blocks` of the matrix in `file` (`.npy` data
/// from byte `header`, `cols` columns), read back row by row in the order
/// [`TiledNpy::write_block`] hashed them.
fn checksum(file: &mut File, header: u64, cols: usize, blocks: &[Block]) -> std::io::Result<u64> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = Vec::new();
    for &(r0, c0, rows, bc) in blocks {
        buf.resize(bc * 8, 0);
        for i in 0..rows {
            file.seek(SeekFrom::Start(header + (((r0 + i) * cols + c0) * 8) as u64))?;
            std::io::Read::read_exact(file, &mut buf)?;
            h.update(&buf);
        }
    }
    Ok(h.digest())
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
