//! Tests of the launch plan's job order.
use super::costliest_first;

#[test]
fn costliest_first_is_a_permutation_in_quarter_octave_buckets() {
    let costs: Vec<u64> = (0..5000u64).map(|i| (i * 7919) % 100_003 + (i % 7) * 1_000_000_000).collect();
    let order = costliest_first(costs.iter().copied());
    let mut seen = order.clone();
    seen.sort_unstable();
    assert_eq!(seen, (0..costs.len()).collect::<Vec<_>>());
    // never a job after one 1.25× cheaper or more (a bucket spans [m, 1.25 m) at most)
    let mut cheapest = u64::MAX;
    for &k in &order {
        assert!((costs[k] as f64) < cheapest as f64 * 1.25 + 1.0, "{} after {cheapest}", costs[k]);
        cheapest = cheapest.min(costs[k]);
    }
    assert_eq!(costliest_first([0u64, 1, 1, 0, 5].into_iter()), vec![4, 0, 1, 2, 3]);
    assert!(costliest_first(std::iter::empty()).is_empty());
}
