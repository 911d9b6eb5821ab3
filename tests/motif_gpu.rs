//! The GPU sieve computes exactly what the CPU computes for the same seed.
//!
//! Skips without a usable GPU; fails then when `KRONOGRAPH_REQUIRE_GPU=1`.

use kronograph::cuda::Backend;
use kronograph::graph::generate;
use kronograph::motif::{self, MotifOptions, MotifTuning};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::device_common::gpu_or_skip;

/// Same per-vertex values Q_i, run by run, on instances with k = 1..12
/// (chunks of one and of several threads per vertex; padded points for k < 5).
#[test]
fn gpu_equals_cpu() {
    if gpu_or_skip().is_none() {
        return;
    }
    for (k, n, d, prune) in [
        (1, 20, 4, false),
        (3, 40, 4, false),
        (5, 64, 6, false),
        (7, 200, 6, false),
        (10, 300, 8, false),
        (12, 128, 10, false),
        (6, 500, 8, true),
    ] {
        let rng = &mut ChaCha8Rng::seed_from_u64(k as u64);
        // colours 0 and 1 uniform, the planted match coloured 2
        let inst = generate::regular_motif(n, d, 2, k, rng).unwrap();
        let mixed: Vec<u32> = (0..k as u32).map(|i| i % 2).collect();
        for (motif, run) in [(&inst.motif, 0), (&mixed, 0), (&mixed, 1)] {
            let opts = |backend| MotifOptions { backend, seed: 11, prune, ..Default::default() };
            let cpu = motif::sieve_run(&inst.graph, &inst.colors, motif, &opts(Backend::Cpu), run).unwrap();
            let gpu = motif::sieve_run(&inst.graph, &inst.colors, motif, &opts(Backend::Cuda(0)), run).unwrap();
            assert_eq!(cpu, gpu, "k = {k}, n = {n}, motif {motif:?}, run {run}");
            eprintln!(
                "k = {k}, n = {n}, motif {motif:?}: {} of {n} values nonzero",
                cpu.iter().filter(|&&v| v != 0).count()
            );
        }
        let opts = MotifOptions { backend: Backend::Cuda(0), seed: 3, ..Default::default() };
        let hits = motif::localized(&inst.graph, &inst.colors, &inst.motif, &opts).unwrap();
        let got: Vec<usize> = (0..hits.hits.len()).filter(|&i| hits.hits[i]).collect();
        assert_eq!(got, inst.planted, "k = {k}");
        assert_eq!(hits.device, Some(0));
    }
}

/// GF(2^64) is CPU-only: an explicit device is refused with a typed error,
/// `auto` runs it on the CPU.
#[test]
fn gf64_on_the_gpu_is_refused() {
    if gpu_or_skip().is_none() {
        return;
    }
    let inst = generate::regular_motif(64, 4, 4, 4, &mut ChaCha8Rng::seed_from_u64(2)).unwrap();
    let opts = |backend| MotifOptions { backend, field: motif::Field::Gf2p64, ..Default::default() };
    let err = motif::localized(&inst.graph, &inst.colors, &inst.motif, &opts(Backend::Cuda(0))).unwrap_err();
    assert!(matches!(err, kronograph::Error::Motif(motif::MotifError::GpuField)), "{err}");
    let hits = motif::localized(&inst.graph, &inst.colors, &inst.motif, &opts(Backend::Auto)).unwrap();
    assert_eq!(hits.device, None);
    assert_eq!((0..64).filter(|&i| hits.hits[i]).collect::<Vec<_>>(), inst.planted);
}

/// On a device set (of 1, 2 and 4 devices where they exist) a run's 2^k
/// points are split over the devices and the partial sums added (XOR in
/// GF(2^8)): the per-vertex values equal one device's to the bit, and
/// `localized` with every δ-run (runs spread over the devices) gives the
/// same hits and run count.
#[test]
fn device_sets_equal_one_device() {
    if gpu_or_skip().is_none() {
        return;
    }
    let sets: Vec<Backend> = crate::mgk_common::device_sets();
    for (k, n, d) in [(3, 40, 4), (8, 200, 6), (12, 256, 8), (14, 128, 6)] {
        let inst = generate::regular_motif(n, d, 2, k, &mut ChaCha8Rng::seed_from_u64(k as u64)).unwrap();
        let mixed: Vec<u32> = (0..k as u32).map(|i| i % 2).collect();
        let opts =
            |backend, early_stop| MotifOptions { backend, seed: 5, prune: false, early_stop, ..Default::default() };
        for set in &sets {
            for run in [0, 3] {
                let one =
                    motif::sieve_run(&inst.graph, &inst.colors, &mixed, &opts(Backend::Cuda(0), true), run).unwrap();
                let many = motif::sieve_run(&inst.graph, &inst.colors, &mixed, &opts(*set, true), run).unwrap();
                assert_eq!(one, many, "k = {k}, run {run} on {set}");
            }
            for early_stop in [true, false] {
                let one =
                    motif::localized(&inst.graph, &inst.colors, &mixed, &opts(Backend::Cuda(0), early_stop)).unwrap();
                let many = motif::localized(&inst.graph, &inst.colors, &mixed, &opts(*set, early_stop)).unwrap();
                assert_eq!((&one.hits, one.runs), (&many.hits, many.runs), "k = {k} on {set}, early stop {early_stop}");
                assert_eq!(one.false_negative_bound, many.false_negative_bound);
                assert_eq!(many.device, Some(0));
                let planted =
                    motif::localized(&inst.graph, &inst.colors, &inst.motif, &opts(*set, early_stop)).unwrap();
                let got: Vec<usize> = (0..n).filter(|&i| planted.hits[i]).collect();
                assert_eq!(got, inst.planted, "k = {k} on {set}");
                let e1 = motif::exists(&inst.graph, &inst.colors, &mixed, &opts(Backend::Cuda(0), true)).unwrap();
                let e2 = motif::exists(&inst.graph, &inst.colors, &mixed, &opts(*set, true)).unwrap();
                assert_eq!(e1, e2, "k = {k} on {set}: exists");
            }
        }
    }
}

/// The device knobs of [`MotifTuning`] (levels per pass, products as masked
/// ANDs) change no value: every setting equals the CPU run by run.
#[test]
fn gpu_tuning_changes_no_value() {
    if gpu_or_skip().is_none() {
        return;
    }
    let inst = generate::regular_motif(300, 8, 2, 10, &mut ChaCha8Rng::seed_from_u64(10)).unwrap();
    let opts = |backend, tuning| MotifOptions { backend, seed: 7, prune: false, tuning, ..Default::default() };
    let cpu = motif::sieve_run(&inst.graph, &inst.colors, &inst.motif, &opts(Backend::Cpu, MotifTuning::default()), 0)
        .unwrap();
    assert!(cpu.iter().any(|&v| v != 0), "a test whose values are all 0 proves nothing");
    for masks in [false, true] {
        for group in [None, Some(1), Some(3), Some(8)] {
            let tuning = MotifTuning::default().with_group_size(group).with_mask_products(masks);
            let gpu =
                motif::sieve_run(&inst.graph, &inst.colors, &inst.motif, &opts(Backend::Cuda(0), tuning), 0).unwrap();
            assert_eq!(gpu, cpu, "group {group:?} masks {masks}");
        }
    }
}
