//! Reading an input file once, whatever it is.
//!
//! A regular file is read whole, in large blocks read in parallel at their
//! offsets (`pread`), into one buffer. Anything else (a pipe, a FIFO,
//! process substitution `<(…)`, `/dev/stdin`, a character device) is read
//! once as a stream, up to a size limit ([`max_stream_bytes`]): past it the
//! read stops with [`IoError::InputTooLarge`], so that `/dev/zero` or
//! `/dev/urandom` given as input are refused instead of filling memory.
//! Every reader sniffs the format from the bytes read here, never by
//! opening the file a second time (which would lose a pipe's first bytes
//! and hang on a FIFO).
//!
//! The files of a TU data set must be regular files: [`regular_or_absent`]
//! tells a missing optional file (absent) from one that exists in another
//! form (an error naming it).

use super::{limits, IoError};
use rayon::prelude::*;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The stream size limit when neither `KRONOGRAPH_MAX_INPUT` nor the
/// memory available is known: 4 GiB.
pub const DEFAULT_MAX_STREAM: u64 = 4 << 30;

/// Blocks of a regular file read in parallel.
const BLOCK: usize = 8 << 20;

/// The most bytes read from an input that is not a regular file:
/// `KRONOGRAPH_MAX_INPUT` (bytes, with an optional `K`, `M`, `G`, `T`
/// suffix) where set, else a quarter of the memory budget
/// ([`limits::memory_budget`]), else [`DEFAULT_MAX_STREAM`].
pub fn max_stream_bytes() -> u64 {
    if let Some(b) = std::env::var("KRONOGRAPH_MAX_INPUT").ok().and_then(|s| limits::parse_bytes(&s)) {
        return b;
    }
    limits::memory_budget().map_or(DEFAULT_MAX_STREAM, |b| b / 4)
}

/// The bytes of the file at `path`, read once (see the module documentation).
///
/// # Errors
/// [`IoError::Os`] when it cannot be opened or read (a folder included);
/// [`IoError::InputTooLarge`] for a regular file larger than the memory
/// budget or a stream longer than [`max_stream_bytes`].
pub fn read_input(path: &Path) -> Result<Vec<u8>, IoError> {
    let os = |source| IoError::Os { path: path.to_path_buf(), source };
    let file = File::open(path).map_err(os)?;
    let meta = file.metadata().map_err(os)?;
    if meta.is_dir() {
        return Err(os(std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a folder, not a file")));
    }
    if meta.is_file() {
        let len = meta.len();
        if let Some(budget) = limits::memory_budget().filter(|&b| len > b) {
            return Err(IoError::InputTooLarge {
                path: path.into(),
                size: len,
                limit: budget,
                why: format!("the file is larger than the memory available ({})", limits::memory_budget_source()),
            });
        }
        return read_regular(&file, len as usize).map_err(os);
    }
    let limit = max_stream_bytes();
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(os)?;
    if bytes.len() as u64 > limit {
        return Err(IoError::InputTooLarge {
            path: path.into(),
            size: bytes.len() as u64,
            limit,
            why: "the input is not a regular file (a pipe, FIFO or device) and did not end within the limit: an \
                  unbounded source such as /dev/zero? Save the data to a regular file, or raise KRONOGRAPH_MAX_INPUT"
                .into(),
        });
    }
    Ok(bytes)
}

/// The bytes of a text file, read once with [`read_input`], refused when
/// they start with a byte-order mark or the magic bytes of a compressed
/// file (gzip, bzip2, xz, zstd), with a message that says how to fix it.
///
/// # Errors
/// Those of [`read_input`]; [`IoError::Malformed`] at line 1 for a BOM or
/// a compressed file.
pub fn read_text(path: &Path) -> Result<Vec<u8>, IoError> {
    let bytes = read_input(path)?;
    super::text::check_bom(path, &bytes)?;
    Ok(bytes)
}

/// A regular file of `len` bytes, read in parallel blocks into a buffer
/// backed by huge pages where available; a file that shrinks while it is
/// read is an error, one that grows is read as it was.
fn read_regular(file: &File, len: usize) -> std::io::Result<Vec<u8>> {
    #[cfg(unix)]
    {
        let mut buf: Vec<u8> = Vec::with_capacity(len);
        let spare = &mut buf.spare_capacity_mut()[..len];
        super::alloc::advise_huge(spare);
        spare.par_chunks_mut(BLOCK).enumerate().try_for_each(|(i, c)| pread_exact(file, c, (i * BLOCK) as u64))?;
        // SAFETY: every block was filled by `pread_exact`, or the function returned.
        unsafe { buf.set_len(len) };
        Ok(buf)
    }
    #[cfg(not(unix))]
    {
        let mut buf = vec![0u8; len];
        let mut f = file;
        f.read_exact(&mut buf)?;
        Ok(buf)
    }
}

/// Fills `buf` from `file` at `offset` (as `FileExt::read_exact_at`, into
/// memory not yet initialized).
#[cfg(unix)]
fn pread_exact(file: &File, buf: &mut [std::mem::MaybeUninit<u8>], offset: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let mut done = 0;
    while done < buf.len() {
        let rest = &mut buf[done..];
        // SAFETY: the kernel writes at most `rest.len()` bytes into `rest`.
        let r = unsafe {
            libc::pread(file.as_raw_fd(), rest.as_mut_ptr().cast(), rest.len(), (offset + done as u64) as libc::off_t)
        };
        match r {
            0 => {
                return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file shrank while it was read"))
            }
            r if r > 0 => done += r as usize,
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    Ok(())
}

/// Whether the file at `path` is there: `Ok(false)` when nothing exists at
/// that path, `Ok(true)` for a regular file (or a link to one).
///
/// # Errors
/// [`IoError::NotRegular`] when something exists there that is not a
/// readable regular file: a dangling symbolic link (data under git-annex or
/// DVC that was not fetched), a folder, a FIFO, a socket or a device.
pub fn regular_or_absent(path: &Path) -> Result<bool, IoError> {
    let Ok(link) = std::fs::symlink_metadata(path) else { return Ok(false) };
    let what = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => return Ok(true),
        Ok(m) if m.is_dir() => "a folder",
        Ok(m) => special_kind(&m),
        Err(_) if link.file_type().is_symlink() => {
            let target = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_default();
            return Err(IoError::NotRegular {
                path: path.into(),
                what: format!(
                    "a symbolic link to {target:?}, which does not exist (data under git-annex or DVC that was not \
                     fetched? run `git annex get` or `dvc pull`)"
                ),
            });
        }
        Err(_) => "unreadable",
    };
    Err(IoError::NotRegular { path: path.into(), what: what.to_string() })
}

#[cfg(unix)]
fn special_kind(m: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::Metadata) -> &'static str {
    "not a regular file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_regular_files_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.bin");
        let data: Vec<u8> = (0..(3 * BLOCK + 12345)).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        assert_eq!(read_input(&p).unwrap(), data);
        let e = std::fs::write(dir.path().join("e"), b"");
        assert!(e.is_ok());
        assert!(read_input(&dir.path().join("e")).unwrap().is_empty());
        assert!(matches!(read_input(dir.path()), Err(IoError::Os { .. })));
    }

    #[cfg(unix)]
    #[test]
    fn tells_absent_from_not_regular() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.txt");
        assert!(!regular_or_absent(&p).unwrap());
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &p).unwrap();
        let e = regular_or_absent(&p).unwrap_err().to_string();
        assert!(e.contains("x.txt") && e.contains("does not exist"), "{e}");
        std::fs::create_dir(dir.path().join("d")).unwrap();
        assert!(regular_or_absent(&dir.path().join("d")).unwrap_err().to_string().contains("a folder"));
        assert!(regular_or_absent(Path::new("/dev/null")).unwrap_err().to_string().contains("a device"));
        std::fs::write(dir.path().join("f"), "1\n").unwrap();
        assert!(regular_or_absent(&dir.path().join("f")).unwrap());
    }
}
