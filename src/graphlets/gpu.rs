//! The GPU backend: the primitives of [`transform`](super::transform) by the
//! CUDA kernels of `kernels/fglt.cu` (NVRTC, through
//! [`jit::compile_cached`](crate::cuda::jit::compile_cached)), exact in
//! 64-bit integers, equal to the CPU's.
//!
//! Kernels, in order: degrees; `A d`, `A (A d)`, `A C(d − 1, 2)` (one warp
//! per row); `W` on every stored entry (one thread per entry, the shorter row
//! walked, the longer binary-searched); the row sums of `W`; `A (W e)`;
//! `diag(A (W − A) A)` (one thread per entry); 4-cycles (a block per vertex
//! with its own counter array); 4-cliques (one warp per edge `u < v`).
//! Indices are 32-bit: graphs with 2³¹ or more stored entries are refused.
//!
//! With the `cuda` feature off, [`primitives`] returns
//! [`CudaError::NotCompiled`].

use super::pattern::Pattern;
use super::transform::Primitives;
use crate::cuda::CudaError;
use std::time::Duration;

pub_for_testing! {
    /// The CUDA C++ source of the FGLT kernels (public with `testing`, for the NVRTC tests).
    pub const SOURCE: &str = include_str!("../../kernels/fglt.cu");
}

pub_for_testing! {
    /// The name the source is compiled (and cached) under.
    pub const MODULE: &str = "fglt";
}

pub_for_testing! {
    /// The kernels of [`SOURCE`], in launch order.
    pub const KERNELS: [&str; 8] =
        ["fglt_fill", "fglt_degrees", "fglt_spmv", "fglt_w", "fglt_w_sums", "fglt_aba", "fglt_c4", "fglt_k4"];
}

/// The primitives of `p` on CUDA device `ordinal`, with the time of each
/// stage (wall time, the stream synchronized after each); `stage` is called
/// as each starts.
///
/// # Errors
/// [`CudaError::NotCompiled`] without the `cuda` feature; driver, NVRTC or
/// size errors ([`CudaError::UnsupportedGraph`] past 2³¹ − 1 entries).
#[cfg(not(feature = "cuda"))]
pub fn primitives(
    _p: &Pattern,
    _ordinal: usize,
    _stage: &mut dyn FnMut(&'static str),
    _times: &mut Vec<(&'static str, Duration)>,
) -> Result<Primitives, CudaError> {
    Err(CudaError::NotCompiled)
}

/// The kernel time of one run of [`primitives`] on device `ordinal`,
/// measured with CUDA events around the launches (upload and download
/// excluded), in seconds, with the primitives.
///
/// # Errors
/// As [`primitives`].
#[cfg(all(not(feature = "cuda"), feature = "testing"))]
pub fn timed_primitives(_p: &Pattern, _ordinal: usize) -> Result<(Primitives, f64), CudaError> {
    Err(CudaError::NotCompiled)
}

#[cfg(feature = "cuda")]
pub use self::imp::primitives;
#[cfg(all(feature = "cuda", feature = "testing"))]
pub use self::imp::timed_primitives;

#[cfg(feature = "cuda")]
mod imp {
    use super::*;
    use crate::cuda::device::{check, device, Device};
    use cudarc::driver::{sys, CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
    use std::sync::Arc;
    use std::time::Instant;

    const BLOCK: u32 = 256;

    /// The loaded kernels of [`SOURCE`] on `dev`, in [`KERNELS`] order.
    fn functions(dev: &Device) -> Result<Vec<CudaFunction>, CudaError> {
        dev.module_functions(SOURCE, MODULE, &KERNELS)
    }

    /// The primitives of `p` on CUDA device `ordinal`, with the time of each
    /// stage (the stream synchronized after each); `stage` is called as each
    /// starts.
    ///
    /// # Errors
    /// Driver, NVRTC or size errors ([`CudaError::UnsupportedGraph`] at 2³¹ − 1
    /// entries or more).
    pub fn primitives(
        p: &Pattern,
        ordinal: usize,
        stage: &mut dyn FnMut(&'static str),
        times: &mut Vec<(&'static str, Duration)>,
    ) -> Result<Primitives, CudaError> {
        run(p, ordinal, stage, times, false).map(|(prims, _)| prims)
    }

    /// The kernel time of one run (CUDA events around the launches; upload
    /// and download excluded), in seconds, with the primitives.
    ///
    /// # Errors
    /// As [`primitives`].
    #[cfg(feature = "testing")]
    pub fn timed_primitives(p: &Pattern, ordinal: usize) -> Result<(Primitives, f64), CudaError> {
        run(p, ordinal, &mut |_| {}, &mut Vec::new(), true)
    }

    fn run(
        p: &Pattern,
        ordinal: usize,
        stage: &mut dyn FnMut(&'static str),
        times: &mut Vec<(&'static str, Duration)>,
        events: bool,
    ) -> Result<(Primitives, f64), CudaError> {
        let dev: Arc<Device> = device(ordinal)?;
        let n = p.n();
        let nnz = p.a.nnz();
        if nnz >= i32::MAX as usize || n >= i32::MAX as usize {
            return Err(CudaError::UnsupportedGraph {
                index: 0,
                reason: format!(
                    "{n} vertices and {nnz} stored entries: the FGLT kernels use 32-bit indices (below 2^31); \
                     use the CPU backend"
                ),
            });
        }
        if n == 0 {
            return Ok((Primitives::default(), 0.0));
        }
        let mut timed = |name: &'static str, t: Instant| times.push((name, t.elapsed()));

        stage("upload and compile");
        let t = Instant::now();
        let fs = functions(&dev)?;
        let [f_fill, f_deg, f_spmv, f_w, f_wsums, f_aba, f_c4, f_k4] = <[CudaFunction; 8]>::try_from(fs)
            .map_err(|_| CudaError::InvalidParameter("the FGLT module lacks a kernel".into()))?;
        let stream = &dev.stream;
        let ptr: Vec<i32> = p.a.indptr().iter().map(|&x| x as i32).collect();
        let idx: Vec<i32> = p.a.indices().iter().map(|&x| x as i32).collect();
        let mut row_of = Vec::with_capacity(nnz);
        for i in 0..n {
            row_of.extend(std::iter::repeat_n(i as i32, ptr[i + 1] as usize - ptr[i] as usize));
        }
        let up = |what: &str, v: &[i32]| check(what, || stream.clone_htod(v));
        let ptr_d = up("uploading row pointers", &ptr)?;
        let idx_d = up("uploading column indices", &idx)?;
        let row_d = up("uploading row ids", &row_of)?;
        let alloc = |len: usize| check("allocating FGLT vectors", || stream.alloc_zeros::<u64>(len.max(1)));
        // d, c2m1, dm2, ad, aad, a_c2, w1, a_w1, w_dm2, w_c2 (assigned), aba, c4, k4 (accumulated)
        let mut v: Vec<CudaSlice<u64>> = (0..13).map(|_| alloc(n)).collect::<Result<_, _>>()?;
        let mut w_d = check("allocating W", || stream.alloc_zeros::<u32>(nnz.max(1)))?;
        // the 4-cycle kernel's per-block counters and lists: n u32 + n i32 per block
        let sms = dev.info.multiprocessors;
        let c4_blocks = (sms * 4).min(((1usize << 31) / (8 * n)).max(1)).max(1);
        let acc_d = check("allocating 4-cycle counters", || stream.alloc_zeros::<u32>(c4_blocks * n))?;
        let touched_d = check("allocating 4-cycle lists", || stream.alloc_zeros::<i32>(c4_blocks * n))?;
        check("synchronizing", || stream.synchronize())?;
        timed("upload and compile", t);

        let start = if events {
            Some(check("recording an event", || stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)))?)
        } else {
            None
        };
        let grid = |items: usize, per_block: usize| -> LaunchConfig {
            let g = items.div_ceil(per_block).clamp(1, sms * 32) as u32;
            LaunchConfig { grid_dim: (g, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
        };
        let (n32, n64, nnz64) = (n as i32, n as i64, nnz as i64);
        let per_thread = grid(n, BLOCK as usize);
        let per_warp = grid(n, (BLOCK / 32) as usize);
        let per_entry = grid(nnz, BLOCK as usize);
        let per_entry_warp = grid(nnz, (BLOCK / 32) as usize);
        let poison: u64 = u64::MAX;
        // SAFETY (every launch): the arguments match the kernels' parameter
        // lists in kernels/fglt.cu; vectors hold n u64 (w nnz u32, the 4-cycle
        // scratch c4_blocks·n), index arrays n + 1 / nnz i32; every buffer
        // outlives the launches (the stream is synchronized before returning).
        for s in v.iter_mut().take(10) {
            let mut lb = stream.launch_builder(&f_fill);
            lb.arg(&n64).arg(s).arg(&poison);
            check("launching fglt_fill", || unsafe { lb.launch(per_thread) })?;
        }

        stage("degrees and A·d");
        let t = Instant::now();
        let [d, c2m1, dm2, ad, aad, a_c2, w1, a_w1, w_dm2, w_c2, aba, c4, k4] = &mut v[..] else {
            unreachable!("13 vectors")
        };
        {
            let mut lb = stream.launch_builder(&f_deg);
            lb.arg(&n32).arg(&ptr_d).arg(&mut *d).arg(&mut *c2m1).arg(&mut *dm2);
            check("launching fglt_degrees", || unsafe { lb.launch(per_thread) })?;
        }
        for (x, y) in [(&*d, &mut *ad), (&*c2m1, &mut *a_c2)] {
            let mut lb = stream.launch_builder(&f_spmv);
            lb.arg(&n32).arg(&ptr_d).arg(&idx_d).arg(x).arg(y);
            check("launching fglt_spmv", || unsafe { lb.launch(per_warp) })?;
        }
        {
            let mut lb = stream.launch_builder(&f_spmv);
            lb.arg(&n32).arg(&ptr_d).arg(&idx_d).arg(&*ad).arg(&mut *aad);
            check("launching fglt_spmv", || unsafe { lb.launch(per_warp) })?;
        }
        sync_unless(stream, events)?;
        timed("degrees and A·d", t);

        stage("W = A² ∘ A");
        let t = Instant::now();
        {
            let mut lb = stream.launch_builder(&f_w);
            lb.arg(&n32).arg(&nnz64).arg(&ptr_d).arg(&idx_d).arg(&row_d).arg(&mut w_d);
            check("launching fglt_w", || unsafe { lb.launch(per_entry) })?;
        }
        sync_unless(stream, events)?;
        timed("W = A² ∘ A", t);

        stage("W products");
        let t = Instant::now();
        {
            let mut lb = stream.launch_builder(&f_wsums);
            lb.arg(&n32).arg(&ptr_d).arg(&idx_d).arg(&w_d).arg(&*dm2).arg(&mut *w1).arg(&mut *w_dm2).arg(&mut *w_c2);
            check("launching fglt_w_sums", || unsafe { lb.launch(per_warp) })?;
        }
        {
            let mut lb = stream.launch_builder(&f_spmv);
            lb.arg(&n32).arg(&ptr_d).arg(&idx_d).arg(&*w1).arg(&mut *a_w1);
            check("launching fglt_spmv", || unsafe { lb.launch(per_warp) })?;
        }
        {
            let mut lb = stream.launch_builder(&f_aba);
            lb.arg(&n32).arg(&nnz64).arg(&ptr_d).arg(&idx_d).arg(&row_d).arg(&w_d).arg(&mut *aba);
            check("launching fglt_aba", || unsafe { lb.launch(per_entry) })?;
        }
        sync_unless(stream, events)?;
        timed("W products", t);

        stage("4-cycles");
        let t = Instant::now();
        {
            let cfg =
                LaunchConfig { grid_dim: (c4_blocks as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
            let mut lb = stream.launch_builder(&f_c4);
            lb.arg(&n32).arg(&ptr_d).arg(&idx_d).arg(&acc_d).arg(&touched_d).arg(&mut *c4);
            check("launching fglt_c4", || unsafe { lb.launch(cfg) })?;
        }
        sync_unless(stream, events)?;
        timed("4-cycles", t);

        stage("4-cliques");
        let t = Instant::now();
        {
            let mut lb = stream.launch_builder(&f_k4);
            lb.arg(&n32).arg(&nnz64).arg(&ptr_d).arg(&idx_d).arg(&row_d).arg(&mut *k4);
            check("launching fglt_k4", || unsafe { lb.launch(per_entry_warp) })?;
        }
        let kernel_seconds = match start {
            Some(start) => {
                let end =
                    check("recording an event", || stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)))?;
                check("synchronizing", || stream.synchronize())?;
                check("reading the event timer", || start.elapsed_ms(&end))? as f64 / 1e3
            }
            None => 0.0,
        };
        check("synchronizing", || stream.synchronize())?;
        timed("4-cliques", t);

        let down = |x: &CudaSlice<u64>| -> Result<Vec<u64>, CudaError> {
            let mut h = check("downloading FGLT vectors", || stream.clone_dtoh(x))?;
            h.truncate(n);
            Ok(h)
        };
        let prims = Primitives {
            d: down(d)?,
            ad: down(ad)?,
            aad: down(aad)?,
            a_c2: down(a_c2)?,
            w1: down(w1)?,
            a_w1: down(a_w1)?,
            w_dm2: down(w_dm2)?,
            w_c2: down(w_c2)?,
            aba: down(aba)?,
            c4: down(c4)?,
            k4: down(k4)?,
        };
        check("synchronizing", || stream.synchronize())?;
        Ok((prims, kernel_seconds))
    }

    /// Synchronizes after a stage so its wall time is its own (not when the
    /// run is timed by events: then the launches queue back to back).
    fn sync_unless(stream: &cudarc::driver::CudaStream, events: bool) -> Result<(), CudaError> {
        if events {
            Ok(())
        } else {
            check("synchronizing", || stream.synchronize())
        }
    }
}
