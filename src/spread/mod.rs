//! Work spread over a set of devices: host threads per device take chunks
//! of items from one shared queue (dynamic load balancing), and the results
//! come back in the items' order.
//!
//! The queue ([`ChunkQueue`]) hands items out in *guided* chunks: each chunk
//! carries about `remaining cost / (2 · workers)` (at least `min_items`
//! items), so the first chunks are large (few launches) and the last ones
//! small (the devices finish together even when costs differ by orders of
//! magnitude). A device that is faster, or drew cheaper chunks, simply comes
//! back for more: no static split. Three orders:
//! - [`ChunkQueue::new`]: items sorted by estimated cost, largest first;
//! - [`ChunkQueue::mixed`]: the same sizes, every chunk a cross-section of
//!   the cost order (the ranks in bit-reversed order);
//! - [`ChunkQueue::dealt`]: no costs and no sort (nothing serial before the
//!   first chunk, for millions of items): the items in blocks of
//!   [`DEALT_BLOCK`] consecutive ones, block position `q` holding block
//!   `q · s mod b` (`b` blocks, `s ≈ 0.618 b` coprime to `b`), so that any run
//!   of positions samples the whole index range evenly (a golden-ratio
//!   sequence) and every chunk's mix of costs is the whole set's, while the
//!   items of a block stay together (a chunk reads its inputs and writes its
//!   outputs in runs, not one cache line per item); chunk sizes are guided
//!   by item count, which for such samples is guided by cost.
//!
//! [`spread`] runs a queue: per worker (device) a set-up in its own thread
//! (open the device, upload the inputs), then `threads` host threads per
//! worker take chunk after chunk and share the worker's state (with two, one
//! thread prepares its next launch while the other's runs on the device).
//! The outputs are written straight into the result, each item by the thread
//! that ran it (no lock, no gather pass).
//!
//! With `KRONOGRAPH_SPREAD_TRACE=1` each [`spread`] prints, per worker, its
//! set-up time, chunks, items, time in `run` and the phases the callee
//! recorded with [`trace_phase`] (for the GPU Gram: host preparation, waiting
//! for the device, the launch until its results are back, host
//! post-processing), and when each thread finished.
//!
//! The scheduler knows nothing of devices; the Gram matrices of the
//! marginalized graph kernel (`mgk/gpu/mod.rs`) and the motif sieve use it
//! with CUDA devices as workers, the tests with fake workers.

use std::cell::RefCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Where position `p` of a queue finds its item.
#[derive(Debug)]
enum Order {
    /// `order[p]`.
    Listed(Vec<usize>),
    /// Item `j · block + r` at position `q · block + r` with `j = q · step mod
    /// n.div_ceil(block)` (items from `n` on skipped).
    Blocks { n: usize, block: usize, step: usize },
}

/// Consecutive items kept together by [`ChunkQueue::dealt`].
pub const DEALT_BLOCK: usize = 64;

/// Items taken in guided chunks, in one of three orders (see the module
/// documentation).
#[derive(Debug)]
pub struct ChunkQueue {
    order: Order,
    /// `suffix[i]`: the cost of positions `i..` (empty for [`dealt`](Self::dealt):
    /// chunks guided by item count).
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
        ChunkQueue {
            order: Order::Listed(order),
            suffix,
            cursor: Mutex::new(0),
            workers: workers.max(1),
            min_items: min_items.max(1),
        }
    }

    /// The queue of [`new`](Self::new) with the items dealt across the cost
    /// order: item of cost rank `r` (0 the costliest) goes to position
    /// `bit_reverse(r)` (ranks padded to a power of two), so that every
    /// aligned run of `2^j` positions holds one item of each `2^j`-th of
    /// the ranks, and every chunk's mix of costs is the whole set's.
    pub fn mixed(costs: &[f64], workers: usize, min_items: usize) -> Self {
        let sorted = Self::new(costs, workers, min_items);
        let Order::Listed(sorted_order) = &sorted.order else { unreachable!("new lists its order") };
        let n = sorted_order.len();
        let bits = n.next_power_of_two().trailing_zeros();
        let key = |r: usize| if bits == 0 { 0 } else { (r as u64).reverse_bits() >> (64 - bits) };
        let mut ranks: Vec<usize> = (0..n).collect();
        ranks.sort_by_key(|&r| key(r));
        let order: Vec<usize> = ranks.iter().map(|&r| sorted_order[r]).collect();
        let cost: Vec<f64> = (0..n).map(|r| sorted.suffix[r] - sorted.suffix[r + 1]).collect();
        let mut suffix = vec![0.0; n + 1];
        for (i, &r) in ranks.iter().enumerate().rev() {
            suffix[i] = suffix[i + 1] + cost[r];
        }
        ChunkQueue { order: Order::Listed(order), suffix, ..sorted }
    }

    /// The queue of items `0..n` in blocks of [`DEALT_BLOCK`] dealt in
    /// golden-ratio order (see the module documentation): no cost estimates
    /// and no pass over the items before the first chunk; chunks of about
    /// `remaining items / (2 · workers)`, at least `min_items`, in whole
    /// blocks.
    pub fn dealt(n: usize, workers: usize, min_items: usize) -> Self {
        let block = DEALT_BLOCK;
        ChunkQueue {
            order: Order::Blocks { n, block, step: golden_step(n.div_ceil(block)) },
            suffix: Vec::new(),
            cursor: Mutex::new(0),
            workers: workers.max(1),
            min_items: min_items.max(1),
        }
    }

    /// The next chunk (item indices; costliest first with [`new`](Self::new)),
    /// or `None` when every item has been handed out. Safe to call from many
    /// threads.
    pub fn next_chunk(&self) -> Option<Vec<usize>> {
        let (start, end) = {
            let mut cursor = self.cursor.lock().unwrap_or_else(|e| e.into_inner());
            let start = *cursor;
            let n = self.positions();
            if start >= n {
                return None;
            }
            let end = self.chunk_end(start, n);
            *cursor = end;
            (start, end)
        };
        Some(match &self.order {
            Order::Listed(order) => order[start..end].to_vec(),
            &Order::Blocks { n, block, step } => {
                let blocks = n.div_ceil(block);
                let mut items = Vec::with_capacity(end - start);
                for q in start / block..end / block {
                    let j = ((q as u128 * step as u128) % blocks as u128) as usize;
                    items.extend(j * block..((j + 1) * block).min(n));
                }
                items
            }
        })
    }

    /// Positions of the order: the items, and for [`dealt`](Self::dealt)
    /// the missing items of the last block.
    fn positions(&self) -> usize {
        match &self.order {
            Order::Listed(o) => o.len(),
            Order::Blocks { n, block, .. } => n.div_ceil(*block) * block,
        }
    }

    /// The end of the chunk that starts at `start` (guided, see the type).
    fn chunk_end(&self, start: usize, n: usize) -> usize {
        let mut end = (start + self.min_items).min(n);
        if let Order::Blocks { block, .. } = self.order {
            // by item count, in whole blocks
            let end = end.max(start + (n - start).div_ceil(2 * self.workers));
            return end.next_multiple_of(block).min(n);
        }
        let target = self.suffix[start] / (2 * self.workers) as f64;
        // the first end whose chunk carries the target cost, at least min_items on
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
        end
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        match &self.order {
            Order::Listed(o) => o.len(),
            Order::Blocks { n, .. } => *n,
        }
    }

    /// Whether the queue was made with no item.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The step of [`ChunkQueue::dealt`]: the integer nearest `n (√5 − 1) / 2`
/// that is coprime to `n` (1 for `n ≤ 2`).
fn golden_step(n: usize) -> usize {
    if n <= 2 {
        return 1;
    }
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let mut s = ((n as f64) * 0.618_033_988_749_894_9).round().clamp(1.0, (n - 1) as f64) as usize;
    while gcd(s, n) != 1 {
        s += 1;
    }
    s
}

/// Whether `KRONOGRAPH_SPREAD_TRACE` asks for the timing report (read once).
pub fn tracing() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("KRONOGRAPH_SPREAD_TRACE").is_ok_and(|v| !v.is_empty() && v != "0"))
}

thread_local! {
    static PHASES: RefCell<Vec<(&'static str, f64)>> = const { RefCell::new(Vec::new()) };
}

/// Adds `seconds` to phase `name` of this thread's trace (nothing unless
/// [`tracing`]). [`spread`] reports each worker's phases; a caller outside
/// it takes them with [`take_phases`].
pub fn trace_phase(name: &'static str, seconds: f64) {
    if tracing() {
        PHASES.with(|p| {
            let mut p = p.borrow_mut();
            match p.iter_mut().find(|(n, _)| *n == name) {
                Some((_, s)) => *s += seconds,
                None => p.push((name, seconds)),
            }
        });
    }
}

/// This thread's traced phases since the last call, as `name s, name s`.
pub fn take_phases() -> String {
    let phases = PHASES.with(|p| std::mem::take(&mut *p.borrow_mut()));
    phases.iter().map(|(n, s)| format!("{n} {s:.3} s")).collect::<Vec<_>>().join(", ")
}

/// What one host thread of [`spread`] did (for the trace).
#[derive(Default)]
struct ThreadLog {
    chunks: usize,
    items: usize,
    run_s: f64,
    finished_s: f64,
    phases: Vec<(&'static str, f64)>,
}

/// Where the outputs go: item `i` is written once, by the thread that ran it.
struct Slots<T>(*mut MaybeUninit<T>);

// SAFETY: the threads write disjoint slots (the queue hands every item out
// once) and no slot is read before all threads are joined.
unsafe impl<T: Send> Sync for Slots<T> {}

impl<T> Slots<T> {
    /// # Safety
    /// `i` is in bounds and written by no other call.
    unsafe fn write(&self, i: usize, t: T) {
        unsafe { (*self.0.add(i)).write(t) };
    }
}

/// Runs every item of `queue` on the workers `workers`: `setup(worker)` once
/// per worker in a thread of its own (open a device, upload the inputs),
/// then `threads` host threads per worker (at least 1) share that state and
/// call `run(state, chunk)` for chunk after chunk; `run` returns one output
/// per item of the chunk in the chunk's order. The outputs come back in item
/// order (`0..queue.len()`). After a failure no thread takes a new chunk; the
/// error of the first worker (in `workers` order) that failed is returned.
///
/// # Errors
/// The first error of `setup` or `run`.
///
/// # Panics
/// When `run` returns a number of outputs other than its chunk's length (a
/// bug of the caller), or a worker panics.
pub fn spread<W, S, T, E>(
    workers: &[W],
    threads: usize,
    queue: &ChunkQueue,
    setup: impl Fn(&W) -> Result<S, E> + Sync,
    run: impl Fn(&S, &[usize]) -> Result<Vec<T>, E> + Sync,
) -> Result<Vec<T>, E>
where
    W: Sync,
    S: Sync,
    T: Send,
    E: Send,
{
    let n = queue.len();
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    let mut out: Vec<MaybeUninit<T>> = Vec::with_capacity(n);
    // SAFETY: MaybeUninit needs no initialization; the capacity is n.
    unsafe { out.set_len(n) };
    let slots = Slots(out.as_mut_ptr());
    let threads = threads.max(1);
    // per worker: its result, the chunks its threads wrote, its set-up time and thread logs
    type Outcome<E> = (Result<(), E>, Vec<Vec<usize>>, f64, Vec<ThreadLog>);
    let take = |state: &S, written: &Mutex<Vec<Vec<usize>>>| -> Result<ThreadLog, E> {
        let mut log = ThreadLog::default();
        while !stop.load(Ordering::Relaxed) {
            let Some(chunk) = queue.next_chunk() else { break };
            let t = Instant::now();
            let r = run(state, &chunk).inspect_err(|_| stop.store(true, Ordering::Relaxed));
            log.run_s += t.elapsed().as_secs_f64();
            let r = r?;
            assert_eq!(r.len(), chunk.len(), "one output per item of the chunk");
            for (&i, t) in chunk.iter().zip(r) {
                // SAFETY: i < n, and the queue hands every item out exactly once
                unsafe { slots.write(i, t) };
            }
            log.chunks += 1;
            log.items += chunk.len();
            written.lock().unwrap_or_else(|e| e.into_inner()).push(chunk);
        }
        log.finished_s = started.elapsed().as_secs_f64();
        log.phases = PHASES.with(|p| std::mem::take(&mut *p.borrow_mut()));
        Ok(log)
    };
    let outcomes: Vec<Outcome<E>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter()
            .map(|w| {
                let (stop, setup, take) = (&stop, &setup, &take);
                scope.spawn(move || -> Outcome<E> {
                    let written = Mutex::new(Vec::new());
                    let t = Instant::now();
                    let state = match setup(w) {
                        Ok(s) => s,
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            return (Err(e), Vec::new(), t.elapsed().as_secs_f64(), Vec::new());
                        }
                    };
                    let setup_s = t.elapsed().as_secs_f64();
                    let (state, written_ref) = (&state, &written);
                    let logs: Vec<Result<ThreadLog, E>> = std::thread::scope(|inner| {
                        let others: Vec<_> =
                            (1..threads).map(|_| inner.spawn(move || take(state, written_ref))).collect();
                        let mine = take(state, written_ref);
                        std::iter::once(mine)
                            .chain(
                                others.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
                            )
                            .collect()
                    });
                    let written = written.into_inner().unwrap_or_else(|e| e.into_inner());
                    let mut ok = Vec::new();
                    let mut result = Ok(());
                    for l in logs {
                        match l {
                            Ok(l) => ok.push(l),
                            Err(e) if result.is_ok() => result = Err(e),
                            Err(_) => {}
                        }
                    }
                    (result, written, setup_s, ok)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    if tracing() {
        report(&outcomes.iter().map(|o| (o.2, &o.3[..])).collect::<Vec<_>>(), started.elapsed().as_secs_f64());
    }
    let mut first_err = None;
    let mut written = 0usize;
    for (r, chunks, _, _) in &outcomes {
        written += chunks.iter().map(Vec::len).sum::<usize>();
        if first_err.is_none() && r.is_err() {
            first_err = Some(());
        }
    }
    if first_err.is_some() || written != n {
        // drop what was written, then return the first error
        for (_, chunks, _, _) in &outcomes {
            for &i in chunks.iter().flatten() {
                // SAFETY: slot i was written exactly once and is dropped once
                unsafe { out[i].assume_init_drop() };
            }
        }
        drop(out);
        for (r, _, _, _) in outcomes {
            r?;
        }
        unreachable!("a worker stopped early without an error");
    }
    let mut out = std::mem::ManuallyDrop::new(out);
    // SAFETY: every slot of 0..n was written exactly once (each item once, n items in all);
    // MaybeUninit<T> has T's layout
    Ok(unsafe { Vec::from_raw_parts(out.as_mut_ptr().cast::<T>(), n, out.capacity()) })
}

/// Prints the trace of one [`spread`]: per worker, set-up, chunks, items,
/// time in `run` and its phases, and when its threads finished.
fn report(workers: &[(f64, &[ThreadLog])], wall: f64) {
    eprintln!("spread: {} workers, wall {wall:.3} s", workers.len());
    for (w, (setup, logs)) in workers.iter().enumerate() {
        let mut phases: Vec<(&str, f64)> = Vec::new();
        for l in logs.iter() {
            for &(name, s) in &l.phases {
                match phases.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, t)) => *t += s,
                    None => phases.push((name, s)),
                }
            }
        }
        let sum = |f: fn(&ThreadLog) -> f64| logs.iter().map(f).sum::<f64>();
        let finished: Vec<String> = logs.iter().map(|l| format!("{:.3}", l.finished_s)).collect();
        eprintln!(
            "  worker {w}: setup {setup:.3} s, {} chunks, {} items, run {:.3} s over {} threads [{}], threads done at {} s",
            logs.iter().map(|l| l.chunks).sum::<usize>(),
            logs.iter().map(|l| l.items).sum::<usize>(),
            sum(|l| l.run_s),
            logs.len(),
            phases.iter().map(|(n, s)| format!("{n} {s:.3}")).collect::<Vec<_>>().join(", "),
            finished.join(" / ")
        );
    }
}

#[cfg(test)]
mod tests;
