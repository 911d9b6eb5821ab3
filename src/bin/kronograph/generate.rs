//! `kronograph generate motif --n N --d D --k K --out DIR`.

use kronograph::graph::generate;
use kronograph::graph::io::{mtx, output, IoError};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `generate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand, Debug)]
enum What {
    /// A motif-search instance: a random d-regular (or power-law) graph, colours uniform over
    /// --colors colours, and a planted match of k vertices with a colour of their own. Writes
    /// DIR/graph.mtx, DIR/colors.txt, DIR/motif.txt (the motif, comma-separated) and
    /// DIR/planted.txt (the planted vertices, one per line).
    Motif(MotifArgs),
}

/// Arguments of `generate motif`.
#[derive(clap::Args, Debug)]
pub struct MotifArgs {
    /// Vertices.
    #[arg(long)]
    n: usize,
    /// Degree (mean degree for --power-law).
    #[arg(long, default_value_t = 20)]
    d: usize,
    /// Motif size.
    #[arg(long)]
    k: usize,
    /// Colours of the other vertices.
    #[arg(long, default_value_t = 16)]
    colors: u32,
    /// A Barabási–Albert (power-law) graph instead of a regular one.
    #[arg(long)]
    power_law: bool,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output folder (created).
    #[arg(long)]
    out: PathBuf,
}

/// Runs `generate`.
pub fn run(args: Args) -> kronograph::Result<()> {
    let What::Motif(a) = args.what;
    let rng = &mut ChaCha8Rng::seed_from_u64(a.seed);
    let inst = if a.power_law {
        generate::power_law_motif(a.n, a.d, a.colors, a.k, rng)?
    } else {
        generate::regular_motif(a.n, a.d, a.colors, a.k, rng)?
    };
    let os = |path: PathBuf| move |source| IoError::Os { path, source };
    std::fs::create_dir_all(&a.out).map_err(os(a.out.clone()))?;
    let lines = |v: &mut dyn Iterator<Item = String>| v.map(|s| s + "\n").collect::<String>();
    let write = |name: &str, text: String| -> kronograph::Result<()> {
        output::write_atomically(a.out.join(name), |w| w.write_all(text.as_bytes()))?;
        Ok(())
    };
    mtx::write(a.out.join("graph.mtx"), &inst.graph)?;
    write("colors.txt", lines(&mut inst.colors.iter().map(|c| c.to_string())))?;
    write("motif.txt", inst.motif.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",") + "\n")?;
    write("planted.txt", lines(&mut inst.planted.iter().map(|v| v.to_string())))?;
    println!(
        "wrote {}: {} vertices, {} edges, k = {}, planted colour {}",
        a.out.display(),
        inst.graph.num_nodes(),
        inst.graph.num_edges(),
        a.k,
        a.colors
    );
    Ok(())
}
