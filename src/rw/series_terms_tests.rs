//! Unit tests of [`WalkSeriesKernel::power_terms`], the number of sums
//! `1ᵀ z_k` the GPU's batched series computes per pair: enough that the
//! host's fold ([`WalkSeriesKernel::fold_sums`], the CPU's own series) never
//! runs out of sums before it stops, for every sequence the bound admits
//! (`1ᵀ z_{k+1} ≤ σ/(k+1) · 1ᵀ z_k`, the extremal one included), at the
//! edges (σ = 0, tiny, at the memo's rounding steps, at the
//! `MAX_WALK_TERMS` limit and beyond it, where the pair falls back to the
//! pair-by-pair path), and equal to a brute-force sum on a dense product.

use super::variants::sum_bound;
use super::{WalkSeriesKernel, MAX_WALK_TERMS};
use crate::graph::{Direction, Graph, GraphBuilder};
use proptest::prelude::*;
use std::collections::HashMap;

fn exponential() -> WalkSeriesKernel {
    WalkSeriesKernel::exponential(0.5).unwrap()
}

/// The sums of the extremal sequence `t_k = σ^k / k!` (the largest the bound
/// admits, so the one that stops last), `len` of them, divided by their
/// largest (computed in logarithms: no overflow for large σ; the first
/// terms of a large σ underflow to 0, negligible beside the peak).
fn extremal(sigma: f64, len: usize) -> Vec<f64> {
    let mut logs = Vec::with_capacity(len);
    let mut lt = 0.0f64;
    for k in 0..len {
        logs.push(lt);
        lt += sigma.ln() - ((k + 1) as f64).ln();
    }
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    logs.iter().map(|l| (l - top).exp()).collect()
}

/// How many sums the fold of `t` reads before it stops (`None`: it runs
/// out or fails on all of `t`).
fn needed(k: &WalkSeriesKernel, t: &[f64], sigma: f64) -> Option<usize> {
    (1..=t.len()).find(|&m| matches!(k.fold_sums(&t[..m], 0.5, sigma), Ok(Some(_))))
}

/// σ values at the edges: tiny, around 1 (where the tail rule starts at
/// k = 0), at and one ulp around the memo's steps `e^(j/64)`, and large.
fn edge_sigmas() -> Vec<f64> {
    let mut s = vec![1e-300, 1e-12, 1e-3, 0.1, 0.5, 0.999, 1.0, 1.0 + 1e-12, 2.5, 7.0, 30.0, 100.0, 700.0];
    for j in [-300i32, -64, -1, 0, 1, 63, 64, 65, 200, 420] {
        let at = (j as f64 / 64.0).exp();
        s.extend([at, f64::from_bits(at.to_bits() - 1), f64::from_bits(at.to_bits() + 1)]);
    }
    s
}

/// The extremal sums at every edge σ: the fold with `power_terms(σ)` sums
/// stops (never runs out); for σ ≤ 1 (where the sum is about `t_0`, so the
/// bound relative to `t_0` is nearly tight) the count is within a few sums
/// of what the fold reads, and the count without its margin runs out at
/// some of them: the margin is needed, and small.
#[test]
fn power_terms_cover_the_extremal_sums() {
    let k = exponential();
    let mut memo = HashMap::new();
    let mut margin_used = false;
    for sigma in edge_sigmas() {
        let count = k.power_terms(sigma, &mut memo).unwrap();
        assert!(count <= MAX_WALK_TERMS + 1, "σ = {sigma}: {count}");
        let t = extremal(sigma, count + 64);
        let need = needed(&k, &t, sigma).unwrap_or_else(|| panic!("σ = {sigma}: the fold never stops"));
        assert!(need <= count, "σ = {sigma}: the fold reads {need} sums, power_terms gives {count}");
        assert!(matches!(k.fold_sums(&t[..count], 0.5, sigma), Ok(Some(_))), "σ = {sigma}");
        if sigma <= 1.0 {
            // the bound's own count (`power_terms` without its margin of 4) runs out at most of these
            margin_used |= need > count - 4;
            assert!(count <= need + 6, "σ = {sigma}: {count} sums for a fold of {need}");
        }
    }
    assert!(margin_used, "the fold never needed power_terms' margin");
    // the memo's key rounds σ up: a cached count is one for a σ at least as large
    let mut fresh = HashMap::new();
    let mut warm = HashMap::new();
    for sigma in edge_sigmas() {
        let _ = k.power_terms(sigma * 1.01, &mut warm);
        assert_eq!(k.power_terms(sigma, &mut warm), k.power_terms(sigma, &mut fresh), "σ = {sigma}");
    }
}

/// Degenerate σ: no walk (`σ ≤ 0`) needs two sums at most; NaN and ∞ have
/// no count (the pair falls back to the pair-by-pair path, whose series
/// gives the CPU's error).
#[test]
fn power_terms_of_degenerate_sigma() {
    let k = exponential();
    let mut memo = HashMap::new();
    assert_eq!(k.power_terms(0.0, &mut memo), Some(2));
    assert_eq!(k.power_terms(-1.0, &mut memo), Some(2));
    assert_eq!(k.power_terms(f64::NAN, &mut memo), None);
    assert_eq!(k.power_terms(f64::INFINITY, &mut memo), None);
    // σ = 0: z_1 = 0, the fold stops at the first sum
    assert!(matches!(k.fold_sums(&[3.0, 0.0], 0.5, 0.0), Ok(Some((v, g))) if v == 3.0 && g == 0.0));
}

/// The p-step kernel reads exactly its `p + 1` sums: one fewer runs out.
#[test]
fn power_terms_of_p_steps_are_exact() {
    let mut memo = HashMap::new();
    for c in [vec![1.0], vec![1.0, 0.5, 0.0, 2.0], WalkSeriesKernel::grakel_steps(12, true)] {
        let k = WalkSeriesKernel::p_step(0.3, c.clone()).unwrap();
        for sigma in [0.0, 0.3, 5.0, 1e4] {
            let count = k.power_terms(sigma, &mut memo).unwrap();
            assert_eq!(count, c.len());
            let t = extremal(sigma.max(1e-3), count);
            let expect: f64 = c.iter().zip(&t).map(|(c, t)| c * t).sum();
            match k.fold_sums(&t, 0.3, sigma) {
                Ok(Some((v, _))) => assert!((v - expect).abs() <= 1e-15 * expect.abs(), "{v} vs {expect}"),
                other => panic!("p-step {c:?}, σ = {sigma}: {other:?}"),
            }
            assert!(matches!(k.fold_sums(&t[..count - 1], 0.3, sigma), Ok(None)), "{c:?}: one sum fewer");
        }
    }
}

/// At the `MAX_WALK_TERMS` limit: the count grows with σ up to the largest
/// σ the bound covers, is capped at `MAX_WALK_TERMS + 1` (the most sums the
/// series reads), and beyond it there is none (the pair-by-pair fallback).
/// At the last σ with a count, the extremal sums fold without running out;
/// beyond it, the series of `MAX_WALK_TERMS + 1` sums stops or fails with
/// the CPU's "needs more than" error, and never asks for more sums.
#[test]
fn power_terms_at_the_max_walk_terms_limit() {
    let k = exponential();
    let mut memo = HashMap::new();
    // the last 1/64 step of ln σ with a count
    let (mut lo, mut hi) = (1.0f64, 1e6f64);
    assert!(k.power_terms(lo, &mut memo).is_some() && k.power_terms(hi, &mut memo).is_none());
    while hi / lo > 1.0 + 1e-6 {
        let mid = (lo * hi).sqrt();
        if k.power_terms(mid, &mut memo).is_some() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    assert!(lo > 1_000.0 && lo < MAX_WALK_TERMS as f64, "the limit σ = {lo}");
    let mut last = 0;
    for j in 0..=200 {
        let sigma = lo * (j as f64 / 200.0) + 1.0 * (1.0 - j as f64 / 200.0);
        let count = k.power_terms(sigma, &mut memo).unwrap();
        assert!(count >= last, "σ = {sigma}: {count} < {last}");
        last = count;
    }
    let at = k.power_terms(lo, &mut memo).unwrap();
    assert!(at <= MAX_WALK_TERMS + 1);
    assert!(matches!(k.fold_sums(&extremal(lo, at), 0.5, lo), Ok(Some(_))), "at the limit σ = {lo}");
    for sigma in [hi, 2.0 * hi, 1e7] {
        assert_eq!(k.power_terms(sigma, &mut memo), None, "σ = {sigma}");
        match k.fold_sums(&extremal(sigma, MAX_WALK_TERMS + 1), 0.5, sigma) {
            Ok(Some(_)) => {}
            Ok(None) => panic!("σ = {sigma}: the series read more than MAX_WALK_TERMS + 1 sums"),
            Err((_, detail)) => assert!(detail.contains("needs more than"), "σ = {sigma}: {detail}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Any sequence the bound admits (`t_{k+1} = u_k σ/(k+1) t_k`, `u_k`
    /// in [0, 1], long stretches at the bound): the fold with
    /// `power_terms(σ)` sums stops, with the value and gradient it has on a
    /// sequence without end.
    #[test]
    fn power_terms_cover_every_admitted_sequence(
        ln_sigma in -10.0f64..6.5, t0 in 1e-3f64..1e3, us in prop::collection::vec(0.9f64..=1.0, 1..80), cut in 0usize..80
    ) {
        let k = exponential();
        let sigma = ln_sigma.exp();
        let count = k.power_terms(sigma, &mut HashMap::new()).unwrap();
        let mut t = vec![t0];
        for j in 0..count + 64 {
            let u = if j == cut { 0.0 } else { us[j % us.len()] };
            let next = t[j] * u * sigma / (j + 1) as f64;
            t.push(next);
        }
        let long = k.fold_sums(&t, 0.5, sigma);
        let short = k.fold_sums(&t[..count], 0.5, sigma);
        prop_assert!(matches!(short, Ok(Some(_))), "σ = {}: {:?}", sigma, short);
        prop_assert_eq!(short, long);
    }
}

/// A labeled undirected graph: a path through `n` nodes plus chords, labels
/// `i % 3`, weights in [0.5, 2).
fn labeled(n: usize, seed: u64) -> Graph<u8, ()> {
    let mut b = GraphBuilder::<u8, ()>::new(n, Direction::Undirected)
        .node_labels((0..n).map(|i| ((i as u64 * 7 + seed) % 3) as u8).collect());
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    for i in 1..n {
        b.push_edge(i - 1, i, 0.5 + 1.5 * next(), ());
        if i >= 3 && next() < 0.4 {
            b.push_edge(i - 3, i, 0.5 + 1.5 * next(), ());
        }
    }
    b.build().unwrap()
}

/// The sums of a real pair (the dense matched product `L (W ⊗ W') L` of two
/// labeled graphs, iterated `z ← λ/(k+1) M z` from `1_L`, 400 terms): folded
/// with `power_terms(σ)` of them (σ = λ · the graphs' largest row sums, as
/// the GPU path computes it) they give the value and gradient of the whole
/// sequence, equal to the brute-force sums `Σ_k 1ᵀz_k`, `Σ_k k 1ᵀz_k` and to
/// the CPU's labeled Gram entry.
#[test]
fn power_terms_fold_equals_the_dense_brute_force() {
    for (lambda, na, nb, seed) in [(0.05, 5, 6, 1u64), (0.4, 7, 4, 2), (1.3, 6, 6, 3), (3.0, 8, 5, 4)] {
        let (a, b) = (labeled(na, seed), labeled(nb, seed + 10));
        let dense = |g: &Graph<u8, ()>| {
            let n = g.num_nodes();
            let mut w = vec![0.0; n * n];
            for i in 0..n {
                let r = g.row_range(i);
                for (&j, &x) in g.indices()[r.clone()].iter().zip(&g.weights()[r]) {
                    w[i * n + j] += x;
                }
            }
            w
        };
        let (wa, wb) = (dense(&a), dense(&b));
        let d = na * nb;
        let on = |p: usize| a.node_labels()[p / nb] == b.node_labels()[p % nb];
        let mut z: Vec<f64> = (0..d).map(|p| if on(p) { 1.0 } else { 0.0 }).collect();
        let mut t = Vec::new();
        for k in 0..400 {
            t.push(z.iter().sum::<f64>());
            let mut next = vec![0.0; d];
            for p in (0..d).filter(|&p| on(p)) {
                let (i, j) = (p / nb, p % nb);
                for q in (0..d).filter(|&q| on(q)) {
                    next[p] += wa[i * na + q / nb] * wb[j * nb + q % nb] * z[q];
                }
            }
            z = next.iter().map(|x| x * lambda / (k + 1) as f64).collect();
        }
        let brute: f64 = t.iter().sum();
        let brute_g: f64 = t.iter().enumerate().map(|(k, x)| k as f64 * x).sum();
        let ker = WalkSeriesKernel::exponential(lambda).unwrap();
        let sigma = lambda * sum_bound(&a) * sum_bound(&b);
        let count = ker.power_terms(sigma, &mut HashMap::new()).unwrap();
        assert!(count < 400, "λ = {lambda}: {count}");
        let (v, g) = ker.fold_sums(&t[..count], lambda, sigma).unwrap().unwrap();
        assert_eq!(ker.fold_sums(&t, lambda, sigma).unwrap(), Some((v, g)), "λ = {lambda}");
        assert!((v - brute).abs() <= 1e-14 * brute, "λ = {lambda}: {v} vs {brute}");
        assert!((g - brute_g).abs() <= 1e-14 * brute_g.max(brute), "λ = {lambda}: {g} vs {brute_g}");
        let cpu = ker.gram_labeled(&[a.clone(), b.clone()]).unwrap().get(0, 1);
        assert!((v - cpu).abs() <= 1e-12 * cpu, "λ = {lambda}: {v} vs the CPU's {cpu}");
    }
}
