//! Work spread over a set of devices: one host thread per device takes
//! chunks of items from one shared queue (dynamic load balancing), and the
//! results come back in the items' order.
//!
//! The queue ([`ChunkQueue`]) holds the items sorted by estimated cost,
//! largest first, and hands them out in *guided* chunks: each chunk carries
//! about `remaining cost / (2 · workers)` (at least `min_items` items), so
//! the first chunks are large (few launches) and the last ones small (the
//! devices finish together even when costs differ by orders of magnitude).
//! A device that is faster, or drew cheaper chunks, simply comes back for
//! more: no static split. [`ChunkQueue::mixed`] keeps the guided sizes but
//! deals every chunk a cross-section of the cost order (the ranks in
//! bit-reversed order), for kernels whose launches are tuned to a mix of
//! sizes (the MGK's batched launch). [`spread`] runs it: per worker a set-up (open the
//! device, upload the inputs once) and then chunk after chunk.
//!
//! The scheduler knows nothing of devices; the Gram matrices of the
//! marginalized graph kernel (`mgk/gpu/multi.rs`) and the motif sieve use it
//! with one worker per CUDA device, the tests with fake workers.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Items in order of decreasing cost, taken in guided chunks.
#[derive(Debug)]
pub struct ChunkQueue {
    order: Vec<usize>,
    /// `suffix[i]`: the cost of `order[i..]`.
    suffix: Vec<f64>,
    cursor: Mutex<usize>,
    workers: usize,
    min_items: usize,
}

impl ChunkQueue {
    /// The queue of items `0..costs.len()` (cost `costs[i]`; a cost that is
    /// not finite or below 0 counts as 0) for `workers` workers, chunks of
    /// at least `min_items` items (both at least 1).
    pub fn new(costs: &[f64], workers: usize, min_items: usize) -> Self {
        let cost = |i: usize| if costs[i].is_finite() && costs[i] > 0.0 { costs[i] } else { 0.0 };
        let mut order: Vec<usize> = (0..costs.len()).collect();
        // stable: equal costs keep their order
        order.sort_by(|&a, &b| cost(b).total_cmp(&cost(a)));
        let mut suffix = vec![0.0; order.len() + 1];
        for i in (0..order.len()).rev() {
            suffix[i] = suffix[i + 1] + cost(order[i]);
        }
        ChunkQueue { order, suffix, cursor: Mutex::new(0), workers: workers.max(1), min_items: min_items.max(1) }
    }

    /// The queue of [`new`](Self::new) with the items dealt across the cost
    /// order: item of cost rank `r` (0 the costliest) goes to position
    /// `bit_reverse(r)` (ranks padded to a power of two), so that every
    /// aligned run of `2^j` positions holds one item of each `2^j`-th of
    /// the ranks, and every chunk's mix of costs is the whole set's.
    pub fn mixed(costs: &[f64], workers: usize, min_items: usize) -> Self {
        let sorted = Self::new(costs, workers, min_items);
        let n = sorted.order.len();
        let bits = n.next_power_of_two().trailing_zeros();
        let key = |r: usize| if bits == 0 { 0 } else { (r as u64).reverse_bits() >> (64 - bits) };
        let mut ranks: Vec<usize> = (0..n).collect();
        ranks.sort_by_key(|&r| key(r));
        let order: Vec<usize> = ranks.iter().map(|&r| sorted.order[r]).collect();
        let cost: Vec<f64> = (0..n).map(|r| sorted.suffix[r] - sorted.suffix[r + 1]).collect();
        let mut suffix = vec![0.0; n + 1];
        for (i, &r) in ranks.iter().enumerate().rev() {
            suffix[i] = suffix[i + 1] + cost[r];
        }
        ChunkQueue { order, suffix, ..sorted }
    }

    /// The next chunk (item indices, costliest first with [`new`](Self::new)), or `None` when every
    /// item has been handed out. Safe to call from many threads.
    pub fn next_chunk(&self) -> Option<&[usize]> {
        let mut cursor = self.cursor.lock().unwrap_or_else(|e| e.into_inner());
        let start = *cursor;
        let n = self.order.len();
        if start >= n {
            return None;
        }
        let target = self.suffix[start] / (2 * self.workers) as f64;
        // the first end whose chunk carries the target cost, at least min_items on
        let mut end = (start + self.min_items).min(n);
        if self.suffix[start] - self.suffix[end] < target {
            // suffix is non-increasing: binary search the first end with enough cost
            let (mut lo, mut hi) = (end, n);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if self.suffix[start] - self.suffix[mid] >= target {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            end = lo.max(end);
        }
        *cursor = end;
        Some(&self.order[start..end])
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the queue was made with no item.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// Runs every item of `queue` on the workers `workers` (one host thread
/// each): `setup(worker)` once per worker in its thread (open a device,
/// upload the inputs), then `run(state, chunk)` for chunk after chunk, which
/// returns one output per item of the chunk in the chunk's order. The
/// outputs come back in item order (`0..queue.len()`). After a failure no
/// worker takes a new chunk; the error of the first worker (in `workers`
/// order) that failed is returned.
///
/// # Errors
/// The first error of `setup` or `run`.
///
/// # Panics
/// When `run` returns a number of outputs other than its chunk's length (a
/// bug of the caller), or a worker panics.
pub fn spread<W, S, T, E>(
    workers: &[W],
    queue: &ChunkQueue,
    setup: impl Fn(&W) -> Result<S, E> + Sync,
    run: impl Fn(&mut S, &[usize]) -> Result<Vec<T>, E> + Sync,
) -> Result<Vec<T>, E>
where
    W: Sync,
    T: Send,
    E: Send,
{
    let stop = AtomicBool::new(false);
    let per_worker: Vec<Result<Vec<(usize, T)>, E>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter()
            .map(|w| {
                let (stop, setup, run) = (&stop, &setup, &run);
                scope.spawn(move || {
                    let mut done = Vec::new();
                    let mut state = setup(w).inspect_err(|_| stop.store(true, Ordering::Relaxed))?;
                    while !stop.load(Ordering::Relaxed) {
                        let Some(chunk) = queue.next_chunk() else { break };
                        let out = run(&mut state, chunk).inspect_err(|_| stop.store(true, Ordering::Relaxed))?;
                        assert_eq!(out.len(), chunk.len(), "one output per item of the chunk");
                        done.extend(chunk.iter().copied().zip(out));
                    }
                    Ok(done)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    let mut slots: Vec<Option<T>> = (0..queue.len()).map(|_| None).collect();
    for r in per_worker {
        for (i, t) in r? {
            slots[i] = Some(t);
        }
    }
    Ok(slots.into_iter().map(|t| t.expect("every item handed out exactly once")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::sync::atomic::AtomicUsize;

    /// Every item exactly once, chunks costliest first and never below the minimum (but the last).
    fn drain(q: &ChunkQueue) -> Vec<Vec<usize>> {
        std::iter::from_fn(|| q.next_chunk().map(<[usize]>::to_vec)).collect()
    }

    #[test]
    fn chunks_shrink_with_the_remaining_cost() {
        // costs spanning four orders of magnitude
        let costs: Vec<f64> = (0..10_000).map(|i| 1.0 + (i % 97) as f64 * 100.0).collect();
        let q = ChunkQueue::new(&costs, 4, 16);
        let chunks = drain(&q);
        let mut seen: Vec<usize> = chunks.concat();
        seen.sort_unstable();
        assert_eq!(seen, (0..10_000).collect::<Vec<_>>());
        let cost = |c: &[usize]| c.iter().map(|&i| costs[i]).sum::<f64>();
        let total = cost(&(0..10_000).collect::<Vec<_>>());
        // the first chunk carries about an eighth of the work, the last ones little
        assert!((cost(&chunks[0]) - total / 8.0).abs() <= 9701.0, "{} vs {}", cost(&chunks[0]), total / 8.0);
        assert!(cost(chunks.last().unwrap()) < total / 100.0);
        assert!(chunks.len() < 200, "{} chunks", chunks.len());
        assert!(chunks[..chunks.len() - 1].iter().all(|c| c.len() >= 16));
        // costliest first
        let flat = chunks.concat();
        assert!(flat.windows(2).all(|w| costs[w[0]] >= costs[w[1]]));
    }

    #[test]
    fn mixed_chunks_hold_every_cost_range() {
        let costs: Vec<f64> = (0..4096).map(|i| (i as f64).powi(2) + 1.0).collect();
        let q = ChunkQueue::mixed(&costs, 4, 64);
        let chunks = drain(&q);
        let mut seen = chunks.concat();
        seen.sort_unstable();
        assert_eq!(seen, (0..4096).collect::<Vec<_>>());
        // every chunk of at least 64 items has items of each quarter of the cost order
        for c in chunks.iter().filter(|c| c.len() >= 64) {
            for quarter in 0..4 {
                assert!(c.iter().any(|&i| i / 1024 == quarter), "a chunk of {} misses quarter {quarter}", c.len());
            }
        }
        // guided: the first chunk carries about an eighth of the cost
        let cost = |c: &[usize]| c.iter().map(|&i| costs[i]).sum::<f64>();
        let total: f64 = costs.iter().sum();
        assert!((cost(&chunks[0]) / total - 0.125).abs() < 0.01, "{}", cost(&chunks[0]) / total);
        assert_eq!(drain(&ChunkQueue::mixed(&[2.0], 2, 1)), vec![vec![0]]);
        assert!(ChunkQueue::mixed(&[], 2, 1).next_chunk().is_none());
    }

    #[test]
    fn empty_and_zero_cost_queues() {
        assert!(ChunkQueue::new(&[], 3, 4).next_chunk().is_none());
        let q = ChunkQueue::new(&[0.0, f64::NAN, -1.0, 0.0, 0.0], 2, 2);
        assert_eq!(drain(&q).concat().len(), 5);
    }

    #[test]
    fn fake_devices_share_the_work_and_results_keep_item_order() {
        // worker speeds 1, 2, 4, 8: the fast ones take more chunks
        let costs: Vec<f64> = (0..5000).map(|i| ((i * 7919) % 1000) as f64 + 1.0).collect();
        let q = ChunkQueue::new(&costs, 4, 8);
        let taken: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        // every worker set up before any takes a chunk (as devices opening at once)
        let ready = std::sync::Barrier::new(4);
        let out = spread(
            &[1u64, 2, 4, 8],
            &q,
            |&speed| {
                ready.wait();
                Ok::<_, String>(speed)
            },
            |speed, chunk| {
                let work: f64 = chunk.iter().map(|&i| costs[i]).sum();
                std::thread::sleep(std::time::Duration::from_micros((work / *speed as f64 / 50.0) as u64));
                taken[(*speed as usize).trailing_zeros() as usize].fetch_add(chunk.len(), Ordering::Relaxed);
                Ok(chunk.iter().map(|&i| i * 3).collect())
            },
        )
        .unwrap();
        assert_eq!(out, (0..5000).map(|i| i * 3).collect::<Vec<_>>());
        let t: Vec<usize> = taken.iter().map(|a| a.load(Ordering::Relaxed)).collect();
        assert_eq!(t.iter().sum::<usize>(), 5000);
        assert!(t.iter().all(|&n| n > 0), "{t:?}");
    }

    #[test]
    fn a_failing_worker_stops_the_others() {
        let q = ChunkQueue::new(&vec![1.0; 1000], 3, 1);
        let calls = AtomicUsize::new(0);
        let r = spread(
            &[0, 1, 2],
            &q,
            |&w| if w == 1 { Err(format!("device {w} cannot be opened")) } else { Ok(w) },
            |_, chunk| {
                calls.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(1));
                Ok::<_, String>(chunk.to_vec())
            },
        );
        assert_eq!(r, Err("device 1 cannot be opened".to_string()));
        let r = spread(
            &[0, 1],
            &ChunkQueue::new(&vec![1.0; 50], 2, 1),
            |&w| Ok(w),
            |_, c| {
                if c.contains(&40) {
                    Err("pair 40 failed")
                } else {
                    Ok(c.to_vec())
                }
            },
        );
        assert_eq!(r, Err("pair 40 failed"));
    }

    proptest! {
        #[test]
        fn any_costs_any_workers_every_item_once(
            costs in proptest::collection::vec(0.0f64..1e6, 0..400),
            workers in 1usize..6,
            min_items in 1usize..40,
        ) {
            for q in [ChunkQueue::new(&costs, workers, min_items), ChunkQueue::mixed(&costs, workers, min_items)] {
                let ids: Vec<usize> = (0..workers).collect();
                let out = spread(&ids, &q, |&w| Ok::<_, ()>(w), |_, c| Ok(c.to_vec())).unwrap();
                prop_assert_eq!(out, (0..costs.len()).collect::<Vec<_>>());
            }
        }
    }
}
