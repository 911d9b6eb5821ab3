//! One run of the sieve on a CUDA device: the seed's workloads
//! (`kernels/motif.cu`, compiled once by NVRTC through
//! [`jit::compile_cached`](crate::cuda::jit::compile_cached)):
//! label evaluation and the α table (once per run), then, streamed over
//! the 2^k points in chunks of `32·D`, the label-sum initialization, the
//! main recurrence as `k − 1` level workloads of shape `n × D`, and the
//! per-vertex sums. Without the `cuda` feature, [`sieve`] returns
//! [`Error::CudaNotCompiled`](crate::Error::CudaNotCompiled).

use super::instance::Instance;

/// The CUDA source of the sieve's kernels.
pub const SOURCE: &str = include_str!("../../kernels/motif.cu");

/// Bytes of the level buffers a run may take on a device with `total`
/// bytes of memory.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn level_budget(total: usize) -> usize {
    (total / 4).min(16 << 30)
}

/// Threads per vertex `D` (a power of two): all `2^k / 32` when the
/// `k · n · D` lines of 32 bytes fit `budget`, else the most that fit.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn threads_per_vertex(k: usize, n: usize, budget: usize) -> usize {
    let max_d = ((1usize << k) / 32).max(1);
    let mut d = max_d;
    while d > 1 && k * n.max(1) * d * 32 > budget {
        d /= 2;
    }
    d
}

/// An instance uploaded to a device, for any number of runs.
#[cfg(not(feature = "cuda"))]
pub(crate) struct Prepared;

#[cfg(not(feature = "cuda"))]
impl Prepared {
    pub(crate) fn new(_inst: &Instance, _device: usize) -> crate::Result<Prepared> {
        Err(crate::Error::CudaNotCompiled)
    }

    pub(crate) fn run(&self, _key: u64) -> crate::Result<(Vec<u64>, f64)> {
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
    use super::{level_budget, threads_per_vertex, Instance, SOURCE};
    use crate::cuda::device::{check, device, Device};
    use crate::cuda::CudaError;
    use cudarc::driver::{sys, CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

    const NAMES: [&str; 5] = ["motif_labels", "motif_alpha", "motif_init", "motif_level", "motif_sum"];
    const BLOCK: u32 = 256;

    fn functions(dev: &Device) -> Result<Vec<CudaFunction>, CudaError> {
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
        pub(crate) fn new(inst: &Instance, ordinal: usize) -> crate::Result<Prepared> {
            let dev = device(ordinal)?;
            let f = functions(&dev)?;
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
            let p = check("allocating the level buffers", || stream.alloc_zeros::<u8>(k * n * d * 32))?;
            let bufs = std::sync::Mutex::new(Buffers { zeta, alpha, p });
            Ok(Prepared { dev, f, n, k, m, d, indptr_d, indices_d, first_d, count_d, bufs })
        }

        /// The per-vertex values of the run with key `key`, and the device
        /// time of its kernels in seconds (CUDA events around the launches).
        pub(crate) fn run(&self, key: u64) -> crate::Result<(Vec<u64>, f64)> {
            self.run_points(key, 0..1usize << self.k)
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
            let (f, n, k, m) = (&self.f, self.n, self.k, self.m);
            let d = self.d.min((points.len() / 32).max(1));
            let (indptr_d, indices_d, first_d, count_d) =
                (&self.indptr_d, &self.indices_d, &self.first_d, &self.count_d);
            let mut guard = self.bufs.lock().unwrap_or_else(|e| e.into_inner());
            let Buffers { zeta: zeta_d, alpha: alpha_d, p: p_d } = &mut *guard;
            let stream = &self.dev.stream;
            let chunk = 32 * d;
            // the sums accumulate over chunks from 0
            let mut q_d = check("allocating the per-vertex sums", || stream.alloc_zeros::<u32>(n))?;
            let (n32, k32, d32, m64) = (n as i32, k as i32, d as i32, m as i64);
            let event =
                || check("recording an event", || stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)));
            let start = event()?;

            // (b) labels and the α table, once per run
            let mut lb = stream.launch_builder(&f[0]);
            lb.arg(&n32).arg(&k32).arg(&key).arg(first_d).arg(count_d).arg(&mut *zeta_d);
            // SAFETY: arguments match motif_labels in kernels/motif.cu; the buffers outlive the run (synchronized below).
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
                // (d) the recurrence, k − 1 workloads
                for s in 2..=k as i32 {
                    let mut lb = stream.launch_builder(&f[3]);
                    lb.arg(&n32).arg(&s).arg(&d32).arg(&m64).arg(indptr_d).arg(indices_d).arg(&*alpha_d).arg(&mut *p_d);
                    // SAFETY: as above (motif_level).
                    check("launching motif_level", || unsafe { lb.launch(grid(n * d)) })?;
                }
                // (e) per-vertex sums
                let count = (points.end - first).min(chunk) as i64;
                let mut lb = stream.launch_builder(&f[4]);
                lb.arg(&n32).arg(&k32).arg(&d32).arg(&count).arg(&*p_d).arg(&mut q_d);
                // SAFETY: as above (motif_sum).
                check("launching motif_sum", || unsafe { lb.launch(grid(n)) })?;
            }
            let end = event()?;
            let q = check("reading the per-vertex sums", || stream.clone_dtoh(&q_d))?;
            check("synchronizing", || stream.synchronize())?;
            let seconds = check("reading the event timer", || start.elapsed_ms(&end))? as f64 / 1e3;
            if let Some(bad) = q.iter().find(|&&v| v > 0xFF) {
                return Err(CudaError::Driver {
                    context: "checking the per-vertex sums".into(),
                    message: format!("a sum {bad:#x} is not an element of GF(2^8)"),
                }
                .into());
            }
            Ok((q.into_iter().map(u64::from).collect(), seconds))
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
