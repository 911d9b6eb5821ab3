//! `kronograph gram --tiles SIZE --out big.npy [--resume]`: the Gram matrix
//! out of core, tile by tile into a resumable `.npy`
//! ([`TiledNpy`](kronograph::graph::io::tiled::TiledNpy)).
//!
//! The `N × N` matrix is cut into `SIZE × SIZE` tiles; the tiles on and
//! above the diagonal are computed in row order (a diagonal tile by `gram`,
//! the others by `gram_xy` on the two slices of graphs), each written in
//! place with its mirror image below the diagonal, then logged as done.
//! Memory: the graphs, one tile and, with `--normalize`, the `N` diagonal
//! values (computed first, again on resume). An interrupted run leaves
//! `OUT.partial` and `OUT.progress`; `--resume` with the same arguments
//! continues it; `OUT` appears only when every tile is written.

use super::gram::{load, setup, Args, Setup};
use super::progress::Bar;
use kronograph::graph::io::tiled::TiledNpy;
use kronograph::mgk::system::normalize;
use std::time::Instant;

/// Default tile side with `--resume` when the log is missing (never used
/// to resume: the log's own size is).
const DEFAULT_TILE: usize = 256;

/// Runs the out-of-core `gram`.
pub fn run(args: &Args, quiet: bool) -> kronograph::Result<()> {
    let Some(out) = args.out.as_deref() else {
        return Err(kronograph::mgk::MgkError::InvalidParameter(
            "--tiles and --resume write the Gram tile by tile into a file: give it with --out FILE.npy".into(),
        )
        .into());
    };
    if args.tiles == Some(0) {
        return Err(kronograph::mgk::MgkError::InvalidParameter(
            "--tiles 0: give a tile size of at least 1 (e.g. 256)".into(),
        )
        .into());
    }
    crate::preflight::check_out(Some(out), &args.dataset)?;
    let (ds, loaded) = load(&args.dataset, args.weight.as_deref(), args.first)?;
    let n = ds.graphs.len();
    let tile = match (args.tiles, args.resume) {
        (Some(t), _) => t,
        (None, _) => recorded_tile(out).unwrap_or(DEFAULT_TILE),
    };
    let bar = Bar::new((n * (n + 1) / 2) as u64, true, "pairs");
    let Setup { mgk, backend, description, .. } = setup(args, &ds, &bar)?;
    crate::preflight::check_tile_memory(&ds.graphs, loaded, tile)?;
    // the data's content, not only its path: a data set changed between
    // the interruption and --resume is refused, not mixed into the result
    let fingerprint = format!(
        "{} first {:?} graphs {n} data {:016x}; {description}; normalize {}; reorder {:?}",
        args.dataset.display(),
        args.first,
        digest(&ds),
        args.normalize,
        args.reorder
    );
    let mut w = TiledNpy::open(out, n, n, tile, &fingerprint, args.resume)?;
    let nb = n.div_ceil(tile);
    let total = nb * (nb + 1) / 2;
    if !quiet {
        eprintln!(
            "{}: {n} graphs; {description}; on {backend}; {total} tiles of {tile} x {tile}, {} done before",
            ds.name,
            w.num_done()
        );
    }
    let t0 = Instant::now();
    let diag = if args.normalize { Some(mgk.diag_on(backend, &ds.graphs)?) } else { None };
    let (mut computed, mut pairs) = (0usize, 0usize);
    for bi in 0..nb {
        for bj in bi..nb {
            let t = (bi * nb + bj) as u64;
            if w.is_done(t) {
                continue;
            }
            if args.stop_after_tiles == Some(computed) {
                eprintln!("gram: stopped after {computed} tiles (--stop-after-tiles); continue with --resume");
                std::process::exit(130);
            }
            let (r0, r1) = (bi * tile, ((bi + 1) * tile).min(n));
            let (c0, c1) = (bj * tile, ((bj + 1) * tile).min(n));
            let (x, y) = (&ds.graphs[r0..r1], &ds.graphs[c0..c1]);
            let mut k =
                if bi == bj { mgk.gram_on(backend, x)?.into_vec() } else { mgk.gram_xy_on(backend, x, y)?.into_vec() };
            if let Some(d) = &diag {
                normalize(&mut k, &d[r0..r1], &d[c0..c1])?;
            }
            let shape = (r1 - r0, c1 - c0);
            w.write_block((r0, c0), shape, &k, false)?;
            if bi != bj {
                w.write_block((r0, c0), shape, &k, true)?;
            }
            w.mark_done(t)?;
            computed += 1;
            pairs += if bi == bj { shape.0 * (shape.0 + 1) / 2 } else { shape.0 * shape.1 };
            if !quiet {
                eprintln!("gram: tile {}/{total} ({bi}, {bj}) done", w.num_done());
            }
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let path = w.finish()?;
    eprintln!(
        "gram: {n} x {n} in {total} tiles ({computed} computed now, {pairs} pairs) in {secs:.3} s ({:.0} pairs/s); \
         wrote {}",
        pairs as f64 / secs.max(1e-12),
        path.display()
    );
    Ok(())
}

/// The XXH3-64 digest of a data set's content: every graph's direction,
/// structure, weights (their bits), start probabilities and node and edge
/// labels, in order. `O(size of the data)`.
pub fn digest(ds: &kronograph::graph::Dataset) -> u64 {
    use std::fmt::Write as _;
    struct Hash(xxhash_rust::xxh3::Xxh3);
    impl std::fmt::Write for Hash {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.update(s.as_bytes());
            Ok(())
        }
    }
    let mut h = Hash(xxhash_rust::xxh3::Xxh3::new());
    for g in &ds.graphs {
        let words = |h: &mut Hash, v: &mut dyn Iterator<Item = u64>| v.for_each(|x| h.0.update(&x.to_le_bytes()));
        words(&mut h, &mut [g.num_nodes() as u64, u64::from(g.is_directed()), g.num_entries() as u64].into_iter());
        words(&mut h, &mut g.indptr().iter().map(|&x| x as u64));
        words(&mut h, &mut g.indices().iter().map(|&x| x as u64));
        words(&mut h, &mut g.weights().iter().map(|w| w.to_bits()));
        words(&mut h, &mut g.start_probabilities().unwrap_or(&[]).iter().map(|w| w.to_bits()));
        // labels by their Debug form (exact for floats: shortest round-trip digits)
        let _ = write!(h, "{:?}|{:?}|", g.node_labels(), g.edge_labels());
    }
    h.0.digest()
}

/// The tile size recorded in an interrupted run's log, if any.
fn recorded_tile(out: &std::path::Path) -> Option<usize> {
    let log = kronograph::graph::io::tiled::with_suffix(out, ".progress");
    let text = std::fs::read_to_string(log).ok()?;
    text.lines().find_map(|l| l.strip_prefix("tile ")).and_then(|v| v.trim().parse().ok())
}
