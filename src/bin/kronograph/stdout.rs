//! Standard output that fails like a Unix tool's: [`outln!`](crate::outln)
//! and [`out!`](crate::out) instead of `println!`/`print!`, which panic when
//! the write fails.
//!
//! - A closed pipe (`kronograph info DS | head -c1`): the temporary output
//!   file being written (if any) is removed and the process dies of
//!   `SIGPIPE`, quietly, as `cat` or `grep` do.
//! - Any other failure (`> /dev/full`, a disk full, an I/O error): one line
//!   `error: cannot write to standard output: …` on standard error and exit
//!   status 1.

use std::io::Write;

/// Writes `args` to standard output and flushes it; on failure, exits as
/// the [module documentation](self) says (never returns an error, never
/// panics).
pub fn write(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        fail(&e);
    }
}

/// Leaves the process after a failed write to standard output.
fn fail(e: &std::io::Error) -> ! {
    kronograph::graph::io::output::remove_pending();
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        #[cfg(unix)]
        {
            // the default action of SIGPIPE: terminate, as a Unix tool does
            let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGPIPE);
        }
        std::process::exit(141);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1);
}

/// `println!` that fails like a Unix tool (see [`stdout`](crate::stdout)).
#[macro_export]
macro_rules! outln {
    () => { $crate::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` that fails like a Unix tool (see [`stdout`](crate::stdout)).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*)) };
}
