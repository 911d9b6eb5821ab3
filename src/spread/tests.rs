//! Tests of the chunk queues and `spread`.
use super::*;
use proptest::prelude::*;
use std::sync::atomic::AtomicUsize;

/// Every item exactly once, chunks costliest first and never below the minimum (but the last).
fn drain(q: &ChunkQueue) -> Vec<Vec<usize>> {
    std::iter::from_fn(|| q.next_chunk()).collect()
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
        1,
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
        2,
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
        1,
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

#[test]
fn dealt_chunks_sample_the_whole_range_and_shrink() {
    for n in [1usize, 2, 3, 10, 65, 1000, 8_448_105] {
        let step = golden_step(n);
        assert!(step >= 1 && (n <= 1 || step < n));
        let q = ChunkQueue::dealt(n, 4, 64);
        let chunks = drain(&q);
        let mut seen: Vec<usize> = chunks.concat();
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
        if n < 100_000 {
            continue;
        }
        // guided by count in whole blocks: the first chunk an eighth, the last ones the minimum
        assert!(chunks[0].len().abs_diff(n / 8) <= DEALT_BLOCK, "{}", chunks[0].len());
        assert!(chunks.iter().rev().take(3).all(|c| c.len() <= 64));
        // items of a block stay together
        let next_in_block = |a: usize, b: usize| b == a + 1 || (a + 1) % DEALT_BLOCK == 0 || a + 1 == n;
        assert!(chunks.iter().all(|c| c.windows(2).all(|w| next_in_block(w[0], w[1]))));
        assert!(chunks.iter().all(|c| c.windows(2).filter(|w| w[1] != w[0] + 1).count() < c.len() / 32 + 1));
        // every chunk of at least 4096 items holds items of each sixteenth of the range
        for c in chunks.iter().filter(|c| c.len() >= 4096) {
            for part in 0..16 {
                assert!(c.iter().any(|&i| i * 16 / n == part), "a chunk of {} misses part {part}", c.len());
            }
        }
    }
    assert!(ChunkQueue::dealt(0, 2, 1).next_chunk().is_none());
}

#[test]
fn threads_of_one_worker_share_its_state_and_set_up_once() {
    let setups = AtomicUsize::new(0);
    let q = ChunkQueue::dealt(10_000, 2 * 3, 7);
    let out = spread(
        &[10usize, 20],
        3,
        &q,
        |&w| {
            setups.fetch_add(1, Ordering::Relaxed);
            Ok::<_, ()>(w)
        },
        |&w, chunk| {
            std::thread::sleep(std::time::Duration::from_micros(50));
            Ok(chunk.iter().map(|&i| (i, w)).collect())
        },
    )
    .unwrap();
    assert_eq!(setups.load(Ordering::Relaxed), 2);
    assert!(out.iter().enumerate().all(|(i, &(j, w))| i == j && (w == 10 || w == 20)));
}

#[test]
fn outputs_written_before_a_failure_are_dropped() {
    static LIVE: AtomicUsize = AtomicUsize::new(0);
    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, Ordering::Relaxed);
        }
    }
    let q = ChunkQueue::new(&vec![1.0; 400], 2, 10);
    let r = spread(
        &[0, 1],
        2,
        &q,
        |&w| Ok(w),
        |_, c| {
            if c.contains(&399) {
                return Err("item 399 failed");
            }
            LIVE.fetch_add(c.len(), Ordering::Relaxed);
            Ok(c.iter().map(|_| Counted).collect())
        },
    );
    assert!(matches!(r, Err("item 399 failed")));
    assert_eq!(LIVE.load(Ordering::Relaxed), 0);
}

proptest! {
    #[test]
    fn any_costs_any_workers_every_item_once(
        costs in proptest::collection::vec(0.0f64..1e6, 0..400),
        workers in 1usize..6,
        min_items in 1usize..40,
    ) {
        let n = costs.len();
        for (q, threads) in [
            (ChunkQueue::new(&costs, workers, min_items), 1),
            (ChunkQueue::mixed(&costs, workers, min_items), 2),
            (ChunkQueue::dealt(n, workers, min_items), 3),
        ] {
            let ids: Vec<usize> = (0..workers).collect();
            let out = spread(&ids, threads, &q, |&w| Ok::<_, ()>(w), |_, c| Ok(c.iter().map(|&i| vec![i]).collect())).unwrap();
            prop_assert_eq!(out, (0..n).map(|i| vec![i]).collect::<Vec<_>>());
        }
    }
}
