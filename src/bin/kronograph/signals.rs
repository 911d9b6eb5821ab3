//! SIGINT, SIGTERM and SIGHUP: remove the temporary output file being
//! written (if any; see [`output`](kronograph::graph::io::output)), then
//! die of the signal as if it had not been handled.

/// Installs the handler (a thread waiting for the signals). Without it an
/// interrupted write could leave a `.NAME.XXXXXX.tmp` file next to the
/// output; the output itself is never partial either way.
pub fn install() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                kronograph::graph::io::output::remove_pending();
                // Restores the default action and raises the signal again.
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        });
    }
}
