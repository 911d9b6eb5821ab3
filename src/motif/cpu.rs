//! One run of the sieve on the CPU: the 2^k points in lines of
//! [`Lines::POINTS`]; the random α of every arc and level drawn once per run
//! and shared by all lines. Two plans by size ([`Plan`]): small instances
//! run lines in parallel, each thread with its own `k · n` lines; large ones
//! run one line at a time on every thread and sweep the vertices once per
//! pair of levels, so that a sweep's random reads stay within one level that
//! fits the last-level cache. Memory: `k · n` lines per line of points in
//! flight (O(n · vector width)), never `2^k · n`.

use super::instance::Instance;
use super::lines::{Bs8, Lines, Wide64};
use super::random::{draw, TAG_ALPHA};
use super::{CpuPlan as Plan, Field, MotifTuning};
use rayon::prelude::*;
use std::ops::Range;

/// Bytes of one thread's `k · n` lines up to which lines run in parallel
/// ([`Plan::LinesInParallel`]): about a quarter of the 32 MiB last-level
/// cache of the machines measured in docs/PERFORMANCE.md.
const PER_THREAD_BYTES: usize = 8 << 20;

/// Bytes of one level of lines (`n` lines) a sweep reads at random
/// ([`Plan::Sweep`]); the line width is chosen to stay within it.
const LEVEL_BYTES: usize = 8 << 20;

/// α tables larger than this are not stored: α is drawn where it is used.
const ALPHA_TABLE_BYTES: usize = 1 << 30;

/// Per-vertex values `Q_i = Σ_L P_{i,k}(ζ^L)` of run `key`, in kept-vertex order.
pub(crate) fn sieve(inst: &Instance, field: Field, tuning: &MotifTuning, key: u64) -> Vec<u64> {
    match field {
        Field::Gf256 => {
            let (words, plan) = layout(inst.k, inst.n(), tuning);
            match words {
                8 => run::<Bs8<8>>(inst, key, plan),
                4 => run::<Bs8<4>>(inst, key, plan),
                2 => run::<Bs8<2>>(inst, key, plan),
                _ => run::<Bs8<1>>(inst, key, plan),
            }
        }
        Field::Gf2p64 => {
            let line = 64;
            let by_size =
                if inst.k * inst.n() * line <= PER_THREAD_BYTES { Plan::LinesInParallel } else { Plan::Sweep };
            let plan = tuning.plan.unwrap_or(by_size);
            run::<Wide64>(inst, key, plan)
        }
    }
}

/// Words per bit plane of a GF(2^8) line (64 points each; a line is `64 ·
/// words` bytes, and wider lines use the SIMD units better) and the plan.
/// Small instances (`k · n` lines of 8 words within [`PER_THREAD_BYTES`])
/// run lines in parallel with 8 words; larger ones sweep, with the widest
/// line whose level stays within [`LEVEL_BYTES`]. Lines never hold more
/// points than the 2^k there are. [`MotifTuning::line_words`] and
/// [`MotifTuning::plan`] override the choice (validated before).
fn layout(k: usize, n: usize, tuning: &MotifTuning) -> (usize, Plan) {
    let fits = |w: usize| (1usize << k) >= 64 * w || w == 1;
    let small = k * n * 64 * 8 <= PER_THREAD_BYTES;
    let plan = tuning.plan.unwrap_or(if small { Plan::LinesInParallel } else { Plan::Sweep });
    let words = if small {
        [8, 4, 2, 1].into_iter().find(|&w| fits(w)).unwrap_or(1)
    } else {
        [8, 4, 2, 1].into_iter().find(|&w| fits(w) && n * 64 * w <= LEVEL_BYTES).unwrap_or(1)
    };
    let words = tuning.line_words.unwrap_or(words);
    (words, plan)
}

/// The α of every (level, arc) of one run: drawn once and shared by every
/// line, or drawn where used when the table would exceed
/// [`ALPHA_TABLE_BYTES`].
struct Alphas<F: Lines> {
    table: Option<Vec<F::Alpha>>,
    key: u64,
    arcs: usize,
}

impl<F: Lines> Alphas<F> {
    fn new(inst: &Instance, key: u64) -> Self {
        let arcs = inst.indices.len();
        let len = inst.k.saturating_sub(1) * arcs;
        let table = (len * std::mem::size_of::<F::Alpha>() <= ALPHA_TABLE_BYTES).then(|| {
            (0..len)
                .into_par_iter()
                .with_min_len(4096)
                .map(|x| F::alpha(draw(key, TAG_ALPHA, (x % arcs) as u64, (x / arcs + 2) as u64)))
                .collect()
        });
        Alphas { table, key, arcs }
    }

    /// α of arc `e` at level `s ≥ 2`.
    #[inline(always)]
    fn get(&self, s: usize, e: usize) -> F::Alpha {
        match &self.table {
            Some(t) => t[(s - 2) * self.arcs + e],
            None => F::alpha(draw(self.key, TAG_ALPHA, e as u64, s as u64)),
        }
    }
}

fn run<F: Lines>(inst: &Instance, key: u64, plan: Plan) -> Vec<u64> {
    let (n, k) = (inst.n(), inst.k);
    let zeta = inst.labels(key, F::scalar, F::mul_scalar);
    let alphas = Alphas::<F>::new(inst, key);
    let points = 1usize << k;
    let lines = points.div_ceil(F::POINTS);
    let simd = Simd::detect();
    let one_line = |p: &mut Vec<F::Line>, c: usize| -> Vec<u64> {
        let first = c * F::POINTS;
        let count = (points - first).min(F::POINTS);
        // (c) label sums: level 1
        p[..n].par_iter_mut().enumerate().with_min_len(256).for_each(|(i, line)| {
            *line = F::labels(&zeta[i * k..(i + 1) * k], first as u64);
        });
        // (d) the recurrence, one level at a time
        for s in 2..=k {
            let (lower, upper) = p.split_at_mut((s - 1) * n);
            let (lower, out) = (&*lower, &mut upper[..n]);
            let sweeps: Vec<Range<usize>> = match plan {
                Plan::LinesInParallel => std::iter::once(1..s).collect(),
                Plan::Sweep => (1..s).map(|s2| s2..s2 + 1).collect(),
            };
            for (x, s2s) in sweeps.into_iter().enumerate() {
                let add = x > 0;
                let job = Level { inst, alphas: &alphas, lower, s, s2s, add };
                out.par_chunks_mut(64)
                    .enumerate()
                    .for_each_init(Vec::new, |scratch, (ci, rows)| simd.level(&job, ci * 64, rows, scratch));
            }
        }
        // (e) per-vertex sums over this line's points
        p[(k - 1) * n..k * n].iter().map(|line| F::sum(line, count)).collect()
    };
    let xor = |mut a: Vec<u64>, b: Vec<u64>| {
        a.iter_mut().zip(&b).for_each(|(x, y)| *x ^= y);
        a
    };
    match plan {
        Plan::LinesInParallel => {
            (0..lines).into_par_iter().map_init(|| vec![F::zero(); k * n], one_line).reduce(|| vec![0u64; n], xor)
        }
        Plan::Sweep => {
            let mut p = vec![F::zero(); k * n];
            (0..lines).fold(vec![0u64; n], |acc, c| xor(acc, one_line(&mut p, c)))
        }
    }
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

    fn level<F: Lines>(self, job: &Level<'_, F>, row0: usize, rows: &mut [F::Line], scratch: &mut Vec<F::Scale>) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the feature was detected on this CPU.
            Simd::Avx512 => unsafe { level_avx512(job, row0, rows, scratch) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the feature was detected on this CPU.
            Simd::Avx2 => unsafe { level_avx2(job, row0, rows, scratch) },
            _ => level_rows(job, row0, rows, scratch),
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn level_avx512<F: Lines>(job: &Level<'_, F>, row0: usize, rows: &mut [F::Line], scratch: &mut Vec<F::Scale>) {
    level_rows(job, row0, rows, scratch)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn level_avx2<F: Lines>(job: &Level<'_, F>, row0: usize, rows: &mut [F::Line], scratch: &mut Vec<F::Scale>) {
    level_rows(job, row0, rows, scratch)
}

/// One pass over the vertices at level `s` of the recurrence (5): the
/// terms `s2 ∈ s2s` of
/// `P_{i,s} = Σ_{s2=1}^{s-1} P_{i,s-s2} ⊙ T_{s2}`, `T_{s2} = Σ_{j ∈ Γ(i)} α_{s,(i,j)} P_{j,s2}`
/// (the same sum as (5), with the products by α moved inside; one
/// accumulator `T_{s2}` at a time, so it stays in registers while the
/// neighbours stream by). A vertex's line is set to these terms, or with
/// `add` they are added to it (a sweep). `lower` holds levels `1 .. s-1`
/// (`n` lines each).
struct Level<'a, F: Lines> {
    inst: &'a Instance,
    alphas: &'a Alphas<F>,
    lower: &'a [F::Line],
    s: usize,
    s2s: Range<usize>,
    add: bool,
}

/// [`Level`] for the vertices `row0 .. row0 + rows.len()`; `scratch` holds
/// the prepared α of one vertex's arcs.
#[inline(always)]
fn level_rows<F: Lines>(job: &Level<'_, F>, row0: usize, rows: &mut [F::Line], scratch: &mut Vec<F::Scale>) {
    let Level { inst, alphas, lower, s, ref s2s, add } = *job;
    let n = inst.n();
    for (r, out) in rows.iter_mut().enumerate() {
        let i = row0 + r;
        let (e0, e1) = (inst.indptr[i] as usize, inst.indptr[i + 1] as usize);
        let nbrs = &inst.indices[e0..e1];
        scratch.clear();
        scratch.extend((e0..e1).map(|e| F::prep(alphas.get(s, e))));
        let mut acc = F::zero_acc();
        for s2 in s2s.clone() {
            let level = &lower[(s2 - 1) * n..s2 * n];
            let mut t = F::zero_acc();
            for (&j, alpha) in nbrs.iter().zip(scratch.iter()) {
                F::acc_scaled(&mut t, &level[j as usize], alpha);
            }
            F::acc_mul(&mut acc, &lower[(s - s2 - 1) * n + i], &F::reduce(&t));
        }
        if add {
            F::add_assign(out, &F::reduce(&acc));
        } else {
            *out = F::reduce(&acc);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::generate;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Every plan and line width gives the same per-vertex values, with the
    /// α table and with α drawn where used.
    #[test]
    fn plans_and_widths_agree() {
        for (n, k, colors) in [(96, 5, 3), (64, 8, 2), (40, 9, 2)] {
            let inst = generate::regular_motif(n, 4, colors, k, &mut ChaCha8Rng::seed_from_u64(n as u64)).unwrap();
            // the whole graph, every colour: values at every vertex
            let all: Vec<u32> = inst.colors.iter().map(|_| 0).collect();
            let motif = vec![0; k];
            let inst = Instance::new(&inst.graph, &all, &motif, false).unwrap();
            let key = 0x5EED;
            let want = run::<Bs8<8>>(&inst, key, Plan::LinesInParallel);
            assert!(want.iter().any(|&q| q != 0), "a test whose values are all 0 proves nothing");
            for plan in [Plan::LinesInParallel, Plan::Sweep] {
                assert_eq!(run::<Bs8<1>>(&inst, key, plan), want, "n {n} k {k} {plan:?} 1 word");
                assert_eq!(run::<Bs8<2>>(&inst, key, plan), want, "n {n} k {k} {plan:?} 2 words");
                assert_eq!(run::<Bs8<8>>(&inst, key, plan), want, "n {n} k {k} {plan:?} 8 words");
            }
            let wide = run::<Wide64>(&inst, key, Plan::LinesInParallel);
            assert_eq!(run::<Wide64>(&inst, key, Plan::Sweep), wide, "GF(2^64), n {n} k {k}");
            let untabled = Alphas::<Bs8<2>> { table: None, key, arcs: inst.indices.len() };
            let tabled = Alphas::<Bs8<2>>::new(&inst, key);
            for s in 2..=k {
                for e in 0..inst.indices.len() {
                    assert_eq!(untabled.get(s, e), tabled.get(s, e));
                }
            }
        }
    }
}
