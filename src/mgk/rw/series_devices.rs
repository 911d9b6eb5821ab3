//! The random-walk moment series over a set of devices: the rows of the
//! Gram matrix shared out from one queue ([`crate::spread`]), each chunk of
//! rows one series call (its graphs and every column graph) on the device
//! that took it.
//!
//! A pair's value depends only on its two graphs' moments and the series'
//! rule (each graph's moments are computed by one block from the graph
//! alone; the stride is room, not a truncation: a chunk's list holds the
//! pair with the largest bounds of its rows), so a chunk computes the same
//! values as the whole call; the column graphs' moments are recomputed per
//! chunk (one block per graph; the pairs' sums dominate on large sets).

use crate::backend::Precision;
use crate::mgk::gpu::rw_series::{series_gram, SeriesError, SeriesGraph, SeriesOut, SeriesPairs, SeriesRule};
use crate::spread::{spread, ChunkQueue};

/// Rows per chunk at least: the device's pair kernel (one thread per pair)
/// wants many pairs per launch.
const MIN_ROWS: usize = 64;

/// [`series_gram`] on `devices` (one: exactly that call).
pub(super) fn series_on(
    devices: &[usize],
    list: &[SeriesGraph<'_>],
    pairs: SeriesPairs,
    rule: SeriesRule,
    precision: Precision,
) -> Result<SeriesOut, SeriesError> {
    if devices.len() <= 1 || pairs.nx <= MIN_ROWS {
        return series_gram(devices.first().copied().unwrap_or(0), list, pairs, rule, precision);
    }
    let columns = &list[pairs.y0..pairs.y0 + pairs.ny];
    // each chunk recomputes the columns' moments: about two chunks per device
    let queue =
        ChunkQueue::new(&vec![1.0; pairs.nx], devices.len(), MIN_ROWS.max(pairs.nx.div_ceil(2 * devices.len())));
    // per row: (its values, its graph's exponent and bounds); per chunk also the columns'
    type Row = (Vec<f64>, i32, (f64, f64), Option<(Vec<i32>, Vec<(f64, f64)>)>);
    let rows: Vec<Row> = spread(
        devices,
        &queue,
        |&d| Ok::<usize, SeriesError>(d),
        |&mut d, chunk| {
            // the queue hands out consecutive rows (equal costs keep their order)
            let (r0, len) = (chunk[0], chunk.len());
            debug_assert!(chunk.iter().enumerate().all(|(i, &r)| r == r0 + i));
            let sub: Vec<SeriesGraph<'_>> = list[r0..r0 + len].iter().chain(columns).cloned().collect();
            let p = SeriesPairs { nx: len, y0: len, ny: pairs.ny };
            let out = series_gram(d, &sub, p, rule, precision).map_err(|e| match e {
                SeriesError::WeightRange(i) if i < len => SeriesError::WeightRange(r0 + i),
                SeriesError::WeightRange(i) => SeriesError::WeightRange(pairs.y0 + i - len),
                e => e,
            })?;
            let mut cols = Some((out.exp[len..].to_vec(), out.bounds[len..].to_vec()));
            Ok((0..len)
                .map(|i| {
                    let v = out.values[i * pairs.ny..(i + 1) * pairs.ny].to_vec();
                    (v, out.exp[i], out.bounds[i], if i == 0 { cols.take() } else { None })
                })
                .collect())
        },
    )?;
    let mut exp = Vec::with_capacity(list.len());
    let mut bounds = Vec::with_capacity(list.len());
    let mut values = Vec::with_capacity(pairs.nx * pairs.ny);
    let mut cols = None;
    for (v, e, b, c) in rows {
        values.extend(v);
        exp.push(e);
        bounds.push(b);
        cols = cols.or(c);
    }
    // the list's graphs past the rows are the columns' (y0 = nx), or the rows again (y0 = 0)
    if pairs.y0 == pairs.nx {
        let (ce, cb) = cols.unwrap_or_default();
        exp.extend(ce);
        bounds.extend(cb);
    }
    Ok(SeriesOut { exp, bounds, values })
}
