//! Repeated-run timings of the traversal subcommands (`bfs`, `sssp`,
//! `triangles`): best, median, TEPS and GTEPS.

use kronograph::Backend;
use std::time::Duration;

/// The options every timed traversal subcommand shares (`bfs`, `sssp`,
/// `triangles`): which graph of a data set, where to run, how many runs.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Which graph of a multi-graph data set.
    #[arg(long, default_value_t = 0)]
    pub graph_index: usize,
    /// Where to run: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// Run this many times (at least 1) and report the fastest and the median.
    #[arg(long, default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub repeat: usize,
}

impl RunArgs {
    /// Runs `f` [`repeat`](Self::repeat) times (at least once); each run
    /// reports its own seconds (an algorithm's time without its setup): the
    /// last run's result and the times.
    ///
    /// # Errors
    /// The first error of `f`.
    pub fn repeated<R, E>(&self, mut f: impl FnMut() -> Result<(R, f64), E>) -> Result<(R, Times), E> {
        let mut times = Times::default();
        let mut last = None;
        for _ in 0..self.repeat.max(1) {
            let (r, seconds) = f()?;
            times.push(Duration::from_secs_f64(seconds.max(0.0)));
            last = Some(r);
        }
        Ok((last.expect("at least one run"), times))
    }
}

/// Prints the `backend:` line and, on a device, the `setup:` line: the
/// seconds paid once (device opening, upload, JIT, workspaces) apart from
/// the algorithm's time that `time:` and `GTEPS:` report.
pub fn print_backend(backend: Backend, device: Option<&str>, setup: f64) {
    match device {
        Some(d) => {
            crate::outln!("backend:  {d}");
            crate::outln!("setup:    {:.3} ms (device open, upload, JIT, workspaces; once)", setup * 1e3);
        }
        None => crate::outln!("backend:  {backend} (CPU)"),
    }
}

/// The times of repeated runs.
#[derive(Default, Debug)]
pub struct Times(Vec<Duration>);

impl Times {
    /// Adds one run.
    pub fn push(&mut self, t: Duration) {
        self.0.push(t);
    }

    /// The fastest run and the median.
    pub fn best_median(&self) -> (Duration, Duration) {
        let mut t = self.0.clone();
        t.sort();
        (t[0], t[t.len() / 2])
    }

    /// Prints `time:` and, for `edges > 0`, `TEPS:` and `GTEPS:` lines
    /// (edges over time of the best and the median run).
    pub fn print(&self, edges: usize) {
        let (best, median) = self.best_median();
        crate::outln!(
            "time:     {:.3} ms (best of {}; median {:.3} ms; {} threads)",
            ms(best),
            self.0.len(),
            ms(median),
            rayon::current_num_threads()
        );
        crate::outln!("TEPS:     {:.3e} (best; median {:.3e})", teps(edges, best), teps(edges, median));
        crate::outln!("GTEPS:    {:.4} (best; median {:.4})", teps(edges, best) / 1e9, teps(edges, median) / 1e9);
    }
}

/// Edges per second (`t` floored at 1 ns).
pub fn teps(edges: usize, t: Duration) -> f64 {
    edges as f64 / t.as_secs_f64().max(1e-9)
}

/// Milliseconds.
pub fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
}
