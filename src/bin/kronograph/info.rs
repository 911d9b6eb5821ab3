//! `kronograph info PATH`.

/// Arguments of `info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A TU data set folder, a Matrix Market file (.mtx) or an edge list.
    pub path: std::path::PathBuf,
}

/// Runs `info`.
pub fn run(_args: Args) -> kronograph::Result<()> {
    Ok(())
}
