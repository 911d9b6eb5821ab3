//! One run of the sieve on the CPU: the 2^k points in lines of
//! [`Lines::POINTS`], lines in parallel (rayon), and within a line the
//! vertices of each level in parallel. Memory: `k · n` lines per line of
//! points in flight (O(n · vector width)), never `2^k · n`.

use super::instance::Instance;
use super::lines::{Bs8, Lines, Wide64};
use super::random::{draw, TAG_ALPHA};
use super::Field;
use rayon::prelude::*;

/// Per-vertex values `Q_i = Σ_L P_{i,k}(ζ^L)` of run `key`, in kept-vertex order.
pub(crate) fn sieve(inst: &Instance, field: Field, key: u64) -> Vec<u64> {
    match field {
        Field::Gf256 => match line_words(inst.k, inst.n()) {
            8 => run::<Bs8<8>>(inst, key),
            4 => run::<Bs8<4>>(inst, key),
            2 => run::<Bs8<2>>(inst, key),
            _ => run::<Bs8<1>>(inst, key),
        },
        Field::Gf2p64 => run::<Wide64>(inst, key),
    }
}

/// Words per bit plane of a GF(2^8) line (64 points each; the words of a
/// plane are what the SIMD units work on, so wider is much faster: on the
/// 2-core AVX-512 VM of docs/PERFORMANCE.md one run at n = 2^10, k = 10 took
/// 0.12 s with 8 words and 0.98 s with 1): the widest of 8, 4, 2, 1 that the
/// 2^k points fill and whose `k · n` lines per thread stay within 2 GiB in
/// all. `KRONOGRAPH_MOTIF_LINE_WORDS` overrides it (for measurements).
fn line_words(k: usize, n: usize) -> usize {
    if let Some(w) = std::env::var("KRONOGRAPH_MOTIF_LINE_WORDS").ok().and_then(|v| v.parse::<usize>().ok()) {
        if [1, 2, 4, 8].contains(&w) {
            return w;
        }
    }
    let threads = rayon::current_num_threads().max(1);
    [8, 4, 2].into_iter().find(|&w| (1usize << k) >= 64 * w && threads * k * n * 64 * w <= 2 << 30).unwrap_or(1)
}

fn run<F: Lines>(inst: &Instance, key: u64) -> Vec<u64> {
    let (n, k) = (inst.n(), inst.k);
    let zeta = inst.labels(key, F::scalar, F::mul_scalar);
    let points = 1usize << k;
    let lines = points.div_ceil(F::POINTS);
    let simd = Simd::detect();
    (0..lines)
        .into_par_iter()
        .map_init(
            || vec![F::zero(); k * n],
            |p, c| {
                let first = c * F::POINTS;
                let count = (points - first).min(F::POINTS);
                // (c) label sums: level 1
                p[..n].par_iter_mut().enumerate().with_min_len(256).for_each(|(i, line)| {
                    *line = F::labels(&zeta[i * k..(i + 1) * k], first as u64);
                });
                // (d) the recurrence, one level at a time
                for s in 2..=k {
                    let (lower, upper) = p.split_at_mut((s - 1) * n);
                    let lower = &*lower;
                    upper[..n].par_chunks_mut(64).enumerate().for_each_init(Vec::new, |alphas, (ci, rows)| {
                        simd.level::<F>(inst, key, lower, s, ci * 64, rows, alphas)
                    });
                }
                // (e) per-vertex sums over this line's points
                let top = &p[(k - 1) * n..k * n];
                top.iter().map(|line| F::sum(line, count)).collect::<Vec<u64>>()
            },
        )
        .reduce(
            || vec![0u64; n],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x ^= y);
                a
            },
        )
}

/// The instruction set the level kernel is compiled for, chosen at run time.
#[derive(Clone, Copy)]
enum Simd {
    Avx512,
    Avx2,
    Plain,
}

impl Simd {
    fn detect() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Simd::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Simd::Avx2;
            }
        }
        Simd::Plain
    }

    #[allow(clippy::too_many_arguments)]
    fn level<F: Lines>(
        self,
        inst: &Instance,
        key: u64,
        lower: &[F::Line],
        s: usize,
        row0: usize,
        rows: &mut [F::Line],
        alphas: &mut Vec<F::Scale>,
    ) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the feature was detected on this CPU.
            Simd::Avx512 => unsafe { level_avx512::<F>(inst, key, lower, s, row0, rows, alphas) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the feature was detected on this CPU.
            Simd::Avx2 => unsafe { level_avx2::<F>(inst, key, lower, s, row0, rows, alphas) },
            _ => level_rows::<F>(inst, key, lower, s, row0, rows, alphas),
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn level_avx512<F: Lines>(
    inst: &Instance,
    key: u64,
    lower: &[F::Line],
    s: usize,
    row0: usize,
    rows: &mut [F::Line],
    alphas: &mut Vec<F::Scale>,
) {
    level_rows::<F>(inst, key, lower, s, row0, rows, alphas)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn level_avx2<F: Lines>(
    inst: &Instance,
    key: u64,
    lower: &[F::Line],
    s: usize,
    row0: usize,
    rows: &mut [F::Line],
    alphas: &mut Vec<F::Scale>,
) {
    level_rows::<F>(inst, key, lower, s, row0, rows, alphas)
}

/// Level `s` of the recurrence (5) for the vertices `row0 ..
/// row0 + rows.len()`, written as
/// `P_{i,s} = Σ_{s1=1}^{s-1} P_{i,s1} ⊙ T_{s-s1}`, `T_{s2} = Σ_{j ∈ Γ(i)} α_{s,(i,j)} P_{j,s2}`
/// (the same sum as (5), with the products by α moved inside; one
/// accumulator `T_{s2}` at a time, so it stays in registers while the
/// neighbours stream by). `lower` holds levels `1 .. s-1` (`n` lines each);
/// `alphas` is scratch for the prepared α of one vertex's arcs.
#[inline(always)]
fn level_rows<F: Lines>(
    inst: &Instance,
    key: u64,
    lower: &[F::Line],
    s: usize,
    row0: usize,
    rows: &mut [F::Line],
    alphas: &mut Vec<F::Scale>,
) {
    let n = inst.n();
    for (r, out) in rows.iter_mut().enumerate() {
        let i = row0 + r;
        let (e0, e1) = (inst.indptr[i] as usize, inst.indptr[i + 1] as usize);
        let nbrs = &inst.indices[e0..e1];
        alphas.clear();
        alphas.extend((e0..e1).map(|e| F::prep(F::scalar(draw(key, TAG_ALPHA, e as u64, s as u64)))));
        let mut acc = F::zero_acc();
        for s2 in 1..s {
            let level = &lower[(s2 - 1) * n..s2 * n];
            let mut t = F::zero_acc();
            for (&j, alpha) in nbrs.iter().zip(alphas.iter()) {
                F::acc_scaled(&mut t, &level[j as usize], alpha);
            }
            F::acc_mul(&mut acc, &lower[(s - s2 - 1) * n + i], &F::reduce(&t));
        }
        *out = F::reduce(&acc);
    }
}
