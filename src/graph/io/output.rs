//! Output files that are either complete or absent.
//!
//! [`write_atomically`] writes to a temporary file in the target's folder
//! (named `.NAME.XXXXXX.tmp`), flushes it to disk (`fsync`) and renames it
//! over the target. A run that fails or is interrupted leaves any previous
//! file at the target untouched and no partial file; two processes writing
//! the same target each produce a complete file, and the last rename wins.
//! Every writer of the library ([`npy`](super::npy), [`mtx::write`](super::mtx::write))
//! goes through it.
//!
//! A temporary file is removed when the write fails; while it exists, its
//! path is remembered so that a signal handler can remove it
//! ([`remove_pending`]: the command-line tool does so on SIGINT, SIGTERM and
//! SIGHUP). Only `SIGKILL` (or a power cut) during the write itself can
//! leave a `.NAME.XXXXXX.tmp` file behind, never a partial target.
//!
//! A target that is a device or a pipe (`/dev/null`, `/dev/stdout`, a
//! FIFO) is written in place, never replaced; through a symbolic link, the
//! file it points to is replaced and the link stays.
//!
//! [`check_target`] validates a target before a long computation.

use super::IoError;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files being written now (removed by [`remove_pending`]).
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Checks, before any computation, that `target` can be written: its folder
/// exists and is writable, `target` is not a folder, and it is none of
/// `inputs` (files, or folders whose files are all inputs). Nothing is left
/// behind (the writability probe is a temporary file, removed at once).
///
/// # Errors
/// [`IoError::Output`] saying what is wrong and what to do;
/// [`IoError::Os`] when the folder cannot be probed.
///
/// # Examples
/// ```
/// use kronograph::graph::io::output;
/// let dir = tempfile::tempdir().unwrap();
/// assert!(output::check_target(dir.path().join("k.npy"), &[]).is_ok());
/// let e = output::check_target(dir.path().join("missing/k.npy"), &[]).unwrap_err();
/// assert!(e.to_string().contains("does not exist"), "{e}");
/// ```
pub fn check_target(target: impl AsRef<Path>, inputs: &[&Path]) -> Result<(), IoError> {
    let target = target.as_ref();
    let refuse = |problem: String| IoError::Output { path: target.to_path_buf(), problem };
    if target.as_os_str().is_empty() {
        return Err(refuse("the output path is empty; give a file name such as out.npy".into()));
    }
    if target.is_dir() {
        return Err(refuse("is a folder; give a file name inside it, such as ".to_string() + &suggest(target)));
    }
    if special_file(target).is_some() {
        return Ok(());
    }
    let dir = folder_of(target);
    if !dir.is_dir() {
        let what = if dir.exists() { "is not a folder" } else { "does not exist" };
        return Err(refuse(format!("the folder {} {what}; create it first or choose another path", dir.display())));
    }
    if let Ok(canon) = std::fs::canonicalize(target) {
        for input in inputs {
            let Ok(inp) = std::fs::canonicalize(input) else { continue };
            if canon == inp || (inp.is_dir() && canon.starts_with(&inp)) {
                let what = if canon == inp { "the input" } else { "a file of the input" };
                return Err(refuse(format!(
                    "is {what} {}; writing there would overwrite the input data: choose another path",
                    input.display()
                )));
            }
        }
    }
    let probe = tempfile::Builder::new().prefix(".kronograph-probe.").suffix(".tmp").tempfile_in(&dir);
    match probe {
        Ok(f) => f.close().map_err(|source| IoError::Os { path: dir.to_path_buf(), source }),
        Err(e) => Err(refuse(format!("cannot create a file in the folder {}: {e}", dir.display()))),
    }
}

/// Writes `target` through `write`: into a temporary file in the same
/// folder, which is then flushed, `fsync`'d and renamed over `target` (see
/// the module documentation). On any error the temporary file is removed
/// and `target` is left as it was.
///
/// # Errors
/// [`IoError::Os`] (naming `target`) when the folder cannot take a new
/// file, `write` fails, or the file cannot be flushed or renamed.
///
/// # Examples
/// ```
/// use std::io::Write;
/// use kronograph::graph::io::output;
/// let dir = tempfile::tempdir().unwrap();
/// let p = dir.path().join("hello.txt");
/// output::write_atomically(&p, |w| w.write_all(b"hello\n")).unwrap();
/// assert_eq!(std::fs::read(&p).unwrap(), b"hello\n");
/// ```
pub fn write_atomically(
    target: impl AsRef<Path>,
    write: impl FnOnce(&mut BufWriter<&std::fs::File>) -> std::io::Result<()>,
) -> Result<(), IoError> {
    let given = target.as_ref();
    let os = |source| IoError::Os { path: given.to_path_buf(), source };
    if let Some(special) = special_file(given) {
        // A device or pipe (/dev/null, /dev/stdout, a FIFO): written in
        // place; renaming a file over it would replace it.
        let file = std::fs::OpenOptions::new().write(true).open(special).map_err(os)?;
        let mut out = BufWriter::new(&file);
        return write(&mut out).and_then(|()| out.flush()).map_err(os);
    }
    // Through a symbolic link, the file it points to is replaced (the link stays).
    let resolved = match std::fs::symlink_metadata(given) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(given).unwrap_or_else(|_| given.to_path_buf()),
        _ => given.to_path_buf(),
    };
    let target = resolved.as_path();
    if target.is_dir() {
        return Err(IoError::Output {
            path: target.to_path_buf(),
            problem: "is a folder; give a file name inside it, such as ".to_string() + &suggest(target),
        });
    }
    let dir = folder_of(target);
    let name = target.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // The usual permissions of a new file (0666 less the umask), not the
        // temporary file's 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder.tempfile_in(&dir).map_err(os)?;
    let guard = Pending::new(tmp.path().to_path_buf());
    let result = (|| {
        let file = tmp.as_file();
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        out.flush()?;
        drop(out);
        file.sync_all()
    })();
    if let Err(e) = result {
        drop(guard);
        let _ = tmp.close();
        return Err(os(e));
    }
    let persisted = tmp.persist(target);
    drop(guard);
    persisted.map_err(|e| {
        let _ = e.file.close();
        os(e.error)
    })?;
    // Make the rename itself durable (best effort: not every file system
    // lets a folder be opened and synced).
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Removes every temporary file being written now. Meant for signal
/// handlers: call it, then exit.
pub fn remove_pending() {
    let pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    for p in pending.iter() {
        let _ = std::fs::remove_file(p);
    }
}

/// `target` itself when it exists and is neither a regular file nor a
/// folder (a device, a FIFO, a socket), following symbolic links.
fn special_file(target: &Path) -> Option<&Path> {
    let m = std::fs::metadata(target).ok()?;
    (!m.is_file() && !m.is_dir()).then_some(target)
}

/// The folder a target lies in (`.` for a bare file name).
fn folder_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn suggest(dir: &Path) -> String {
    dir.join("out.npy").display().to_string()
}

/// Registers a temporary file in [`PENDING`] while it lives.
struct Pending(PathBuf);

impl Pending {
    fn new(p: PathBuf) -> Self {
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).push(p.clone());
        Pending(p)
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = pending.iter().position(|p| *p == self.0) {
            pending.swap_remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_previous_file_and_no_temporary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("k.npy");
        std::fs::write(&p, b"previous").unwrap();
        let e = write_atomically(&p, |w| {
            w.write_all(&[0u8; 100_000])?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(e.to_string().contains("disk full") && e.to_string().contains("k.npy"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"previous");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        assert!(PENDING.lock().unwrap().is_empty());
        write_atomically(&p, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn pipes_are_written_in_place_and_links_kept() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("pipe");
        if !std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
            return; // no mkfifo here
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        check_target(&fifo, &[]).unwrap();
        write_atomically(&fifo, |w| w.write_all(b"through the pipe")).unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(!std::fs::metadata(&fifo).unwrap().is_file(), "the FIFO was replaced");
        let real = d.path().join("real.npy");
        let link = d.path().join("link.npy");
        std::fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, |w| w.write_all(b"new")).unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn targets_are_checked() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("g.txt");
        std::fs::write(&input, "0 1\n").unwrap();
        let msg = |t: &Path, inputs: &[&Path]| check_target(t, inputs).unwrap_err().to_string();
        assert!(msg(d.path(), &[]).contains("is a folder"));
        assert!(msg(&d.path().join("no/k.npy"), &[]).contains("does not exist"));
        assert!(msg(&input.join("k.npy"), &[]).contains("is not a folder"));
        assert!(msg(&input, &[&input]).contains("overwrite the input"));
        assert!(msg(&input, &[d.path()]).contains("a file of the input"));
        assert!(check_target(d.path().join("k.npy"), &[&input, d.path()]).is_ok());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        assert!(write_atomically(d.path(), |_| Ok(())).is_err());
    }
}
