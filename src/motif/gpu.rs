//! One run of the sieve on a CUDA device: the seed's workloads
//! (`kernels/motif.cu`, compiled once by NVRTC through
//! [`jit::compile_cached`](crate::cuda::jit::compile_cached)):
//! label evaluation and the α table (once per run), then, streamed over
//! the 2^k points in chunks of `32·D`, the label-sum initialization, the
//! main recurrence as `k − 1` passes of shape `n × D` (pass `l` reads every
//! neighbour line of level `l` once, for all the levels above it, in groups
//! of at most [`MotifTuning::group_size`] levels), and the per-vertex sums. The runs of
//! a batch (`Prepared::runs`) go to the device as one launch sequence,
//! read back once. Without the `cuda` feature, `Prepared::new` returns
//! [`Error::CudaNotCompiled`](crate::Error::CudaNotCompiled).

use super::instance::Instance;
use super::MotifTuning;

/// The CUDA source of the sieve's kernels.
pub const SOURCE: &str = include_str!("../../kernels/motif.cu");

/// Bytes of the line buffers a run may take on a device with `total`
/// bytes of memory.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn level_budget(total: usize) -> usize {
    (total / 4).min(40 << 30)
}

/// Slots of `n × D` lines a run keeps: the `k` levels and the neighbour
/// sums `T^{(s)}_{i,l}` (`s > 2l`) a pass stores for a later one.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn slots(k: usize) -> usize {
    k + (1..k).take_while(|&l| 2 * l < k).map(|l| k - 2 * l).sum::<usize>()
}

/// Threads per vertex `D` (a power of two): all `2^k / 32` when the
/// `slots(k) · n · D` lines of 32 bytes fit `budget`, else the most
/// that fit.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn threads_per_vertex(k: usize, n: usize, budget: usize) -> usize {
    let max_d = ((1usize << k) / 32).max(1);
    let mut d = max_d;
    while d > 1 && slots(k) * n.max(1) * d * 32 > budget {
        d /= 2;
    }
    d
}

/// The groups of levels of pass `l` (levels `l + 1 ..= k`): as few as
/// `gmax` allows, of sizes differing by at most one; `(first level, size)`.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn pass_groups(k: usize, l: usize, gmax: usize) -> Vec<(usize, usize)> {
    let r = k - l;
    let ng = r.div_ceil(gmax.max(1));
    let (base, extra) = (r / ng, r % ng);
    let mut s = l + 1;
    (0..ng)
        .map(|g| {
            let size = base + usize::from(g < extra);
            s += size;
            (s - size, size)
        })
        .collect()
}

/// An instance uploaded to a device, for any number of runs.
#[cfg(not(feature = "cuda"))]
pub(crate) struct Prepared;

#[cfg(not(feature = "cuda"))]
impl Prepared {
    pub(crate) fn new(_inst: &Instance, _device: usize, _tuning: &MotifTuning) -> crate::Result<Prepared> {
        Err(crate::Error::CudaNotCompiled)
    }

    pub(crate) fn runs(&self, _keys: &[u64]) -> crate::Result<Vec<(Vec<u64>, f64)>> {
        Err(crate::Error::CudaNotCompiled)
    }

    pub(crate) fn run_points(&self, _key: u64, _points: std::ops::Range<usize>) -> crate::Result<(Vec<u64>, f64)> {
        Err(crate::Error::CudaNotCompiled)
    }

    pub(crate) fn points_per_chunk(&self) -> usize {
        1
    }
}

#[cfg(feature = "cuda")]
pub(crate) use imp::Prepared;

#[cfg(feature = "cuda")]
mod imp {
    use super::{level_budget, pass_groups, slots, threads_per_vertex, Instance, MotifTuning, SOURCE};
    use crate::cuda::device::{check, device, Device};
    use crate::cuda::CudaError;
    use cudarc::driver::{sys, CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

    const NAMES: [&str; 12] = [
        "motif_labels",
        "motif_alpha",
        "motif_init",
        "motif_sum",
        "motif_pass1",
        "motif_pass2",
        "motif_pass3",
        "motif_pass4",
        "motif_pass5",
        "motif_pass6",
        "motif_pass7",
        "motif_pass8",
    ];
    /// `f[PASS + G - 1]` is `motif_pass{G}`.
    const PASS: usize = 4;
    const BLOCK: u32 = 256;

    /// The kernels: by default the products by α as integer products of
    /// the planes by α's bits (on the FMA pipe, beside the logic pipe that
    /// sums them); with [`MotifTuning::mask_products`] as masked ANDs,
    /// compiled as a module of its own.
    fn functions(dev: &Device, mask_products: bool) -> Result<Vec<CudaFunction>, CudaError> {
        if mask_products {
            let source = format!("#define MOTIF_MASK_PRODUCTS 1\n{SOURCE}");
            return dev.module_functions(&source, "motif_masks", &NAMES);
        }
        dev.module_functions(SOURCE, "motif", &NAMES)
    }

    fn grid(threads: usize) -> LaunchConfig {
        let blocks = threads.div_ceil(BLOCK as usize).max(1);
        LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    }

    /// An instance uploaded to a device: the graph, the shades and the
    /// buffers of a run.
    pub(crate) struct Prepared {
        dev: std::sync::Arc<Device>,
        f: Vec<CudaFunction>,
        n: usize,
        k: usize,
        m: usize,
        d: usize,
        /// The most levels one pass accumulates ([`MotifTuning::group_size`]).
        gmax: usize,
        indptr_d: CudaSlice<i64>,
        indices_d: CudaSlice<u32>,
        first_d: CudaSlice<u32>,
        count_d: CudaSlice<u32>,
        bufs: std::sync::Mutex<Buffers>,
    }

    struct Buffers {
        zeta: CudaSlice<u8>,
        alpha: CudaSlice<u8>,
        p: CudaSlice<u8>,
    }

    impl Prepared {
        pub(crate) fn new(inst: &Instance, ordinal: usize, tuning: &MotifTuning) -> crate::Result<Prepared> {
            let dev = device(ordinal)?;
            let f = functions(&dev, tuning.mask_products)?;
            let gmax = tuning.levels_per_pass();
            let (n, k, m) = (inst.n(), inst.k, inst.arcs());
            let stream = &dev.stream;
            let d = threads_per_vertex(k, n, level_budget(dev.info.total_memory));
            let indptr: Vec<i64> = inst.indptr.iter().map(|&x| x as i64).collect();
            let up = |what: &str| format!("uploading the {what}");
            let indptr_d = check(&up("row pointers"), || stream.clone_htod(&indptr))?;
            let indices_d = check(&up("column indices"), || stream.clone_htod(&inst.indices[..].to_vec().max_len1()))?;
            let first_d = check(&up("shades"), || stream.clone_htod(&inst.shade_first))?;
            let count_d = check(&up("shades"), || stream.clone_htod(&inst.shade_count))?;
            // labels poisoned (0xFF) so that an unwritten one cannot pass for a value; the α
            // table (written whole by motif_alpha) and the levels (each written before it is
            // read) are zeroed on the device, without a host copy
            let zeta = check("allocating labels", || stream.clone_htod(&vec![0xFFu8; n * k]))?;
            let alpha = check("allocating the α table", || stream.alloc_zeros::<u8>((m * (k - 1)).max(1)))?;
            let p = check("allocating the level buffers", || stream.alloc_zeros::<u8>(slots(k) * n * d * 32))?;
            let bufs = std::sync::Mutex::new(Buffers { zeta, alpha, p });
            Ok(Prepared { dev, f, n, k, m, d, gmax, indptr_d, indices_d, first_d, count_d, bufs })
        }

        /// The per-vertex values of the runs with keys `keys`, and the device
        /// time of each run's kernels in seconds (CUDA events around its
        /// launches): one launch sequence, read back once.
        pub(crate) fn runs(&self, keys: &[u64]) -> crate::Result<Vec<(Vec<u64>, f64)>> {
            self.batch(keys, 0..1usize << self.k)
        }

        /// Points one chunk of a run evaluates on this device (`32 D`).
        pub(crate) fn points_per_chunk(&self) -> usize {
            32 * self.d
        }

        /// The part of the run with key `key` over the evaluation points
        /// `points` (a range of `0..2^k`; over GF(2^8) the sums of disjoint
        /// ranges add, i.e. XOR, to the run's sums), and its device time. A
        /// range shorter than a chunk runs with fewer threads per vertex
        /// (`len / 32`), so that it costs its share of a run.
        pub(crate) fn run_points(&self, key: u64, points: std::ops::Range<usize>) -> crate::Result<(Vec<u64>, f64)> {
            Ok(self.batch(&[key], points)?.remove(0))
        }

        /// The runs `keys` over `points`, enqueued one after the other on
        /// the stream; one read of all their sums at the end.
        fn batch(&self, keys: &[u64], points: std::ops::Range<usize>) -> crate::Result<Vec<(Vec<u64>, f64)>> {
            let n = self.n;
            let mut guard = self.bufs.lock().unwrap_or_else(|e| e.into_inner());
            let stream = &self.dev.stream;
            // the sums of every run, accumulated over chunks from 0
            let mut q_d =
                check("allocating the per-vertex sums", || stream.alloc_zeros::<u32>((n * keys.len()).max(1)))?;
            let event =
                || check("recording an event", || stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)));
            let mut marks = Vec::with_capacity(keys.len());
            for (r, &key) in keys.iter().enumerate() {
                let start = event()?;
                let mut q = q_d.slice_mut(r * n..(r + 1) * n);
                self.enqueue(&mut guard, key, points.clone(), &mut q)?;
                marks.push((start, event()?));
            }
            let q = check("reading the per-vertex sums", || stream.clone_dtoh(&q_d))?;
            check("synchronizing", || stream.synchronize())?;
            if let Some(bad) = q.iter().find(|&&v| v > 0xFF) {
                return Err(CudaError::Driver {
                    context: "checking the per-vertex sums".into(),
                    message: format!("a sum {bad:#x} is not an element of GF(2^8)"),
                }
                .into());
            }
            let mut out = Vec::with_capacity(keys.len());
            for (r, (start, end)) in marks.iter().enumerate() {
                let seconds = check("reading the event timer", || start.elapsed_ms(end))? as f64 / 1e3;
                out.push((q[r * n..(r + 1) * n].iter().map(|&v| u64::from(v)).collect(), seconds));
            }
            Ok(out)
        }

        /// Enqueues the run `key` over `points`, its sums added into `q_d`.
        fn enqueue(
            &self,
            bufs: &mut Buffers,
            key: u64,
            points: std::ops::Range<usize>,
            q_d: &mut cudarc::driver::CudaViewMut<'_, u32>,
        ) -> crate::Result<()> {
            let (f, n, k, m) = (&self.f, self.n, self.k, self.m);
            let d = self.d.min((points.len() / 32).max(1));
            let (indptr_d, indices_d, first_d, count_d) =
                (&self.indptr_d, &self.indices_d, &self.first_d, &self.count_d);
            let Buffers { zeta: zeta_d, alpha: alpha_d, p: p_d } = bufs;
            let stream = &self.dev.stream;
            let chunk = 32 * d;
            let (n32, k32, d32, m64) = (n as i32, k as i32, d as i32, m as i64);
            let gmax = self.gmax;

            // (b) labels and the α table, once per run
            let mut lb = stream.launch_builder(&f[0]);
            lb.arg(&n32).arg(&k32).arg(&key).arg(first_d).arg(count_d).arg(&mut *zeta_d);
            // SAFETY: arguments match motif_labels in kernels/motif.cu; the buffers outlive the run (synchronized by the caller).
            check("launching motif_labels", || unsafe { lb.launch(grid(n * k)) })?;
            if k >= 2 && m > 0 {
                let mut lb = stream.launch_builder(&f[1]);
                lb.arg(&m64).arg(&k32).arg(&key).arg(&mut *alpha_d);
                // SAFETY: as above (motif_alpha).
                check("launching motif_alpha", || unsafe { lb.launch(grid(m * (k - 1))) })?;
            }
            for first in points.clone().step_by(chunk) {
                let first64 = first as u64;
                // (c) label sums: level 1
                let mut lb = stream.launch_builder(&f[2]);
                lb.arg(&n32).arg(&k32).arg(&d32).arg(&first64).arg(&*zeta_d).arg(&mut *p_d);
                // SAFETY: as above (motif_init).
                check("launching motif_init", || unsafe { lb.launch(grid(n * d)) })?;
                // (d) the recurrence, k − 1 passes
                for l in 1..k {
                    for (s_lo, size) in pass_groups(k, l, gmax) {
                        let (l32, s32) = (l as i32, s_lo as i32);
                        let mut lb = stream.launch_builder(&f[PASS + size - 1]);
                        lb.arg(&n32).arg(&k32).arg(&l32).arg(&s32).arg(&d32).arg(&m64);
                        lb.arg(indptr_d).arg(indices_d).arg(&*alpha_d).arg(&mut *p_d);
                        // SAFETY: as above (motif_pass{size}, size in 1..=8).
                        check("launching motif_pass", || unsafe { lb.launch(grid(n * d)) })?;
                    }
                }
                // (e) per-vertex sums
                let count = (points.end - first).min(chunk) as i64;
                let mut lb = stream.launch_builder(&f[3]);
                lb.arg(&n32).arg(&k32).arg(&d32).arg(&count).arg(&*p_d).arg(&mut *q_d);
                // SAFETY: as above (motif_sum).
                check("launching motif_sum", || unsafe { lb.launch(grid(n)) })?;
            }
            Ok(())
        }
    }

    trait MaxLen1 {
        fn max_len1(self) -> Self;
    }
    impl MaxLen1 for Vec<u32> {
        /// At least one element (a zero-length device buffer cannot be allocated).
        fn max_len1(mut self) -> Self {
            if self.is_empty() {
                self.push(0);
            }
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{pass_groups, slots, threads_per_vertex};

    /// The groups of a pass cover its levels `l + 1 ..= k` once, in order,
    /// none larger than the limit, sizes within one of each other.
    #[test]
    fn pass_groups_cover_the_levels() {
        for k in 2..=24 {
            for l in 1..k {
                for gmax in 1..=8 {
                    let groups = pass_groups(k, l, gmax);
                    let levels: Vec<usize> = groups.iter().flat_map(|&(s, g)| s..s + g).collect();
                    assert_eq!(levels, (l + 1..=k).collect::<Vec<_>>(), "k {k} l {l} gmax {gmax}");
                    let (lo, hi) = groups.iter().fold((usize::MAX, 0), |(a, b), &(_, g)| (a.min(g), b.max(g)));
                    assert!(hi <= gmax && hi - lo <= 1 && lo >= 1, "k {k} l {l} gmax {gmax}: {groups:?}");
                    assert_eq!(groups.len(), (k - l).div_ceil(gmax));
                }
            }
        }
    }

    /// The slots are the k levels and one per pair `l < s` with `s > 2l`
    /// (the stored neighbour sums), numbered as `tslot` in
    /// kernels/motif.cu numbers them: `(l − 1)k − (l − 1)l + s − 2l − 1`.
    #[test]
    fn slots_count_the_stored_sums() {
        for k in 1..=24usize {
            let mut seen = Vec::new();
            for l in 1..k {
                for s in (2 * l + 1)..=k {
                    seen.push((l - 1) * k - (l - 1) * l + s - 2 * l - 1);
                }
            }
            let want: Vec<usize> = (0..seen.len()).collect();
            assert_eq!(seen, want, "k {k}: the stored sums fill slots k .. without gaps");
            assert_eq!(slots(k), k + seen.len());
        }
        assert_eq!((slots(10), slots(20)), (30, 110));
        // n = 2^20, k = 10 on a device with 36 GB for lines: all 32 threads per vertex
        assert_eq!(threads_per_vertex(10, 1 << 20, 36_000_000_000), 32);
        assert_eq!(threads_per_vertex(10, 1 << 20, 16 << 30), 16);
        assert_eq!(threads_per_vertex(3, 100, 1 << 30), 1);
    }
}
