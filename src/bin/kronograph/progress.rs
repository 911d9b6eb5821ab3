//! A progress bar for long runs: shown on a terminal, silent when stderr is
//! piped or under `--quiet`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kronograph::mgk::Progress;
use std::io::IsTerminal;
use std::sync::Arc;

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
        } else if let Ok(style) =
            ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {unit} ({{per_sec}}, eta {{eta}})"))
        {
            bar.set_style(style);
        }
        Bar { bar }
    }

    /// A callback for the kernels' `with_progress`.
    pub fn callback(&self) -> Progress {
        let bar = self.bar.clone();
        Arc::new(move |done, _total| bar.set_position(done as u64))
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
