//! The order in which the persistent blocks of a batched launch take their jobs.

/// Indices `0..costs.len()` ordered by cost, costliest first, by buckets of
/// a quarter of an octave (the exponent and the two bits after the leading
/// one: costs within a bucket differ by less than 1.25×, and keep their
/// given order): a counting sort, two
/// passes over the costs rather than a comparison sort of millions of
/// jobs. The persistent blocks take jobs in this order (the large ones
/// first, so that the launch ends on small ones); which slot a job gets
/// does not change its value.
pub(crate) fn costliest_first(costs: impl Iterator<Item = u64> + Clone) -> Vec<usize> {
    // 4 buckets per octave: the exponent and the two bits after the leading one
    let bucket = |c: u64| -> usize {
        let c = c.max(1);
        let e = 63 - c.leading_zeros() as usize;
        let frac = if e >= 2 { (c >> (e - 2)) & 3 } else { (c << (2 - e)) & 3 } as usize;
        255 - (4 * e + frac)
    };
    let mut start = [0usize; 257];
    for c in costs.clone() {
        start[bucket(c) + 1] += 1;
    }
    for k in 1..257 {
        start[k] += start[k - 1];
    }
    let mut order = vec![0usize; start[256]];
    for (k, c) in costs.enumerate() {
        let b = bucket(c);
        order[start[b]] = k;
        start[b] += 1;
    }
    order
}
