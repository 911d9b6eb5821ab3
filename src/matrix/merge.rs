//! The walk over the union of two sorted index lists, shared by the masked
//! write-backs (sparse vectors and matrices) and the element-wise matrix
//! operations.

/// Calls `f(j, a(j), b(j))` for every index `j` of the union of the sorted
/// index lists `ai` and `bi`, in increasing `j`, with the value each list
/// holds there (`None` where it has no `j`). `O(|ai| + |bi|)`.
///
/// `ai`/`av` and `bi`/`bv` are parallel (same lengths); indices are strictly
/// increasing within each list.
#[inline]
pub(crate) fn merge_sorted<A: Copy, B: Copy>(
    ai: &[usize],
    av: &[A],
    bi: &[usize],
    bv: &[B],
    mut f: impl FnMut(usize, Option<A>, Option<B>),
) {
    let (mut p, mut q) = (0, 0);
    while p < ai.len() || q < bi.len() {
        let j = match (ai.get(p), bi.get(q)) {
            (Some(&x), Some(&y)) => x.min(y),
            (Some(&x), None) => x,
            (None, Some(&y)) => y,
            (None, None) => unreachable!(),
        };
        let x = if ai.get(p) == Some(&j) {
            p += 1;
            Some(av[p - 1])
        } else {
            None
        };
        let y = if bi.get(q) == Some(&j) {
            q += 1;
            Some(bv[q - 1])
        } else {
            None
        };
        f(j, x, y);
    }
}

#[cfg(test)]
mod tests {
    use super::merge_sorted;

    fn walk(ai: &[usize], av: &[i32], bi: &[usize], bv: &[char]) -> Vec<(usize, Option<i32>, Option<char>)> {
        let mut out = Vec::new();
        merge_sorted(ai, av, bi, bv, |j, x, y| out.push((j, x, y)));
        out
    }

    #[test]
    fn merge_sorted_walks_the_union_in_order() {
        assert!(walk(&[], &[], &[], &[]).is_empty());
        assert_eq!(walk(&[1, 4], &[10, 40], &[], &[]), [(1, Some(10), None), (4, Some(40), None)]);
        assert_eq!(walk(&[], &[], &[0], &['a']), [(0, None, Some('a'))]);
        assert_eq!(
            walk(&[0, 2, 5], &[1, 2, 3], &[2, 3, 7], &['x', 'y', 'z']),
            [
                (0, Some(1), None),
                (2, Some(2), Some('x')),
                (3, None, Some('y')),
                (5, Some(3), None),
                (7, None, Some('z')),
            ]
        );
    }
}
