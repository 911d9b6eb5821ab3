//! A progress bar for long runs: shown on a terminal, silent when stderr is
//! piped or under `--quiet`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kronograph::mgk::{Progress, SolverProgress};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A progress bar over a number of items.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar of `total` items, hidden when `quiet` or stderr is not a terminal.
    pub fn new(total: u64, quiet: bool, unit: &str) -> Self {
        let bar = ProgressBar::new(total);
        if quiet || !std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        } else if let Ok(style) = ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {unit} ({{per_sec}}, eta {{eta}}) {{msg}}"
        )) {
            bar.set_style(style);
        }
        Bar { bar }
    }

    /// Whether nothing is drawn (`--quiet`, or standard error not a terminal).
    pub fn hidden(&self) -> bool {
        self.bar.is_hidden()
    }

    /// A callback for the kernels' `with_progress`.
    pub fn callback(&self) -> Progress {
        let bar = self.bar.clone();
        Arc::new(move |done, _total| bar.set_position(done as u64))
    }

    /// A per-iteration callback for the kernels' `with_solver_progress`,
    /// showing the pair, the iteration and the residual of a long solve as
    /// the bar's message (at most five times a second); `None` when the bar
    /// is hidden, so that hidden runs pay nothing.
    pub fn solver_callback(&self) -> Option<SolverProgress> {
        if self.bar.is_hidden() {
            return None;
        }
        let bar = self.bar.clone();
        let start = Instant::now();
        let last = AtomicU64::new(0);
        Some(Arc::new(move |(a, b), it, res| {
            let now = start.elapsed().as_millis() as u64;
            let prev = last.load(Ordering::Relaxed);
            if now >= prev + 200 && last.compare_exchange(prev, now, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
                bar.set_message(format!("pair ({a}, {b}): iteration {it}, residual {res:.1e}"));
            }
        }))
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
