//! The launches of the GPU transform ([`super`] says what each stage does).

use super::*;
use crate::cuda::device::{check, device, Device};
use cudarc::driver::{sys, CudaEvent, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;

const BLOCK: u32 = 256;
/// Blocks of the scan's partial sums (`SCAN_PARTS` in kernels/fglt_prep.cu).
const SCAN_PARTS: usize = 1024;
/// Longest row sorted by one warp, and by one block in shared memory
/// (`SORT_WARP`, `SORT_BLOCK` in kernels/fglt_prep.cu).
const SORT_WARP: u64 = 32;
const SORT_BLOCK: u64 = 4096;
/// Largest `|N⁺(u)|` of `fglt_k4_local` (`K4_LOCAL` in kernels/fglt.cu).
const K4_LOCAL: usize = 512;

/// The loaded kernels, looked up by name.
struct Kernels(Vec<CudaFunction>);

impl Kernels {
    fn get(&self, name: &str) -> &CudaFunction {
        let i = KERNELS.iter().position(|k| *k == name).expect("a kernel of KERNELS");
        &self.0[i]
    }
}

/// Queues `kernel` with the arguments, checking the launch.
macro_rules! launch {
    ($stream:expr, $ks:expr, $name:literal, $cfg:expr; $($arg:expr),* $(,)?) => {{
        let mut lb = $stream.launch_builder($ks.get($name));
        $( lb.arg($arg); )*
        // SAFETY: the arguments match the kernel's parameter list in
        // kernels/fglt*.cu (scalars as i32/i64/u64, device buffers of the
        // lengths the kernel reads); every buffer outlives the launch (the
        // stream is synchronized before they are dropped or returned).
        check(concat!("launching ", $name), || unsafe { lb.launch($cfg) })?;
    }};
}

fn event(stream: &CudaStream) -> Result<CudaEvent, CudaError> {
    check("recording an event", || stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)))
}

/// `usize` as the `u64` the kernels read (64-bit targets only).
fn as_u64(v: &[usize]) -> &[u64] {
    const _: () = assert!(std::mem::size_of::<usize>() == 8, "the CUDA backend needs 64-bit usize");
    // SAFETY: usize and u64 have the same size (asserted) and alignment on
    // 64-bit targets, and every bit pattern is valid for both.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u64>(), v.len()) }
}

/// The transform of `g` on device `ordinal` (see [`super`]).
///
/// # Errors
/// Driver, NVRTC or size errors ([`CudaError::UnsupportedGraph`] at 2³¹ − 1
/// entries or more).
pub fn transform<N: Label, E: Label>(
    g: &Graph<N, E>,
    ordinal: usize,
    stage: &mut dyn FnMut(&'static str),
    times: &mut Vec<(&'static str, Duration)>,
) -> Result<DeviceRun, CudaError> {
    let n = g.num_nodes();
    let nnz_in = g.indices().len();
    if nnz_in >= i32::MAX as usize || n >= i32::MAX as usize {
        return Err(CudaError::UnsupportedGraph {
            index: 0,
            reason: format!(
                "{n} vertices and {nnz_in} stored entries: the FGLT kernels use 32-bit indices (below 2^31); \
                 use the CPU backend"
            ),
        });
    }
    if n == 0 {
        let empty = DeviceResult::Frequencies { raw: Frequencies::zeros(0), net: Frequencies::zeros(0) };
        return Ok(DeviceRun { result: empty, self_loops: 0, kernel_seconds: 0.0 });
    }
    stage("upload and compile");
    let t = Instant::now();
    let dev: Arc<Device> = device(ordinal)?;
    let ks = Kernels(dev.module_functions(source(), MODULE, &KERNELS)?);
    let stream = &dev.stream;
    let sms = dev.info.multiprocessors;
    let iptr = check("uploading row pointers", || stream.clone_htod(as_u64(g.indptr())))?;
    let iidx = check("uploading column indices", || stream.clone_htod(as_u64(g.indices())))?;
    let zeros_i32 = |len: usize| check("allocating FGLT arrays", || stream.alloc_zeros::<i32>(len.max(1)));
    times.push(("upload and compile", t.elapsed()));

    let grid = |items: usize, per_block: usize| -> LaunchConfig {
        let g = items.div_ceil(per_block).clamp(1, sms * 32) as u32;
        LaunchConfig { grid_dim: (g, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    };
    let blocks =
        |g: usize, b: u32| LaunchConfig { grid_dim: (g as u32, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 };
    let per_thread = grid(n, BLOCK as usize);
    let per_warp = grid(n, (BLOCK / 32) as usize);
    let n32 = n as i32;
    // stage boundaries: (name, event at its start)
    let mut marks: Vec<(&'static str, CudaEvent)> = Vec::new();

    stage("relabel by degree");
    marks.push(("relabel by degree", event(stream)?));
    let mut deg = zeros_i32(n)?;
    let mut hist = zeros_i32(n + 1)?;
    let mut stats = check("allocating FGLT arrays", || stream.alloc_zeros::<u32>(2))?;
    launch!(stream, ks, "fglt_in_degrees", per_thread; &n32, &iptr, &iidx, &mut deg, &mut hist, &mut stats);
    let st = check("reading the degree statistics", || stream.clone_dtoh(&stats))?;
    let (self_loops, dmax) = (st[0] as usize, u64::from(st[1]));
    let nnz = nnz_in - self_loops;
    let mut parts = zeros_i32(SCAN_PARTS + 1)?;
    scan(stream, &ks, &mut hist, n, &mut parts)?;
    let (mut order, mut rank, mut len) = (zeros_i32(n)?, zeros_i32(n)?, zeros_i32(n)?);
    let mut ptr = zeros_i32(n + 1)?;
    launch!(stream, ks, "fglt_place", per_thread; &n32, &deg, &mut hist, &mut order, &mut rank, &mut len, &mut ptr);
    drop((deg, hist));
    scan(stream, &ks, &mut ptr, n, &mut parts)?;
    let mut idx = zeros_i32(nnz)?;
    let mut row_of = zeros_i32(nnz)?;
    launch!(stream, ks, "fglt_relabel", per_warp; &n32, &iptr, &iidx, &order, &rank, &ptr, &mut idx, &mut row_of);
    drop((iptr, iidx, rank));
    launch!(stream, ks, "fglt_sort_warp", per_warp; &n32, &len, &ptr, &mut idx);
    if dmax > SORT_WARP {
        launch!(stream, ks, "fglt_sort_block", blocks(sms * 4, 512); &n32, &len, &ptr, &mut idx);
    }
    let mut bitmaps = None;
    if dmax > SORT_BLOCK {
        let words = n.div_ceil(32);
        let nb = ((1usize << 30) / (words * 4)).clamp(1, sms * 2);
        let bits = bitmaps.insert(check("allocating sort bitmaps", || stream.alloc_zeros::<u32>(nb * words))?);
        let words64 = words as i64;
        launch!(stream, ks, "fglt_sort_bitmap", blocks(nb, 1024); &n32, &words64, &len, &ptr, &mut idx, bits);
    }

    let prims = primitives(&dev, &ks, &ptr, &idx, &row_of, n, nnz, &mut marks, stage)?;
    drop((bitmaps, row_of, len));

    let result = if dmax <= EXACT_DEGREE {
        stage("raw and net");
        marks.push(("raw and net", event(stream)?));
        let alloc = |what| check(what, || stream.alloc_zeros::<u64>(n * ORBITS));
        let (mut raw_d, mut net_d) = (alloc("allocating the raw table")?, alloc("allocating the net table")?);
        let p = &prims;
        launch!(stream, ks, "fglt_assemble", per_thread; &n32, &order, &p[0], &p[3], &p[4], &p[5], &p[6], &p[7], &p[8],
            &p[9], &p[10], &p[11], &p[12], &mut raw_d, &mut net_d);
        marks.push(("download", event(stream)?));
        // host pages touched by all threads first: the copies then write to
        // memory already mapped (first-touch faults were most of their time)
        let table = || Frequencies { n, data: rayon::iter::repeat_n(0u64, n * ORBITS).collect() };
        let (mut raw, mut net) = (table(), table());
        check("downloading the raw table", || stream.memcpy_dtoh(&raw_d, &mut raw.data))?;
        check("downloading the net table", || stream.memcpy_dtoh(&net_d, &mut net.data))?;
        DeviceResult::Frequencies { raw, net }
    } else {
        marks.push(("download", event(stream)?));
        let down = |k: usize| -> Result<Vec<u64>, CudaError> {
            let mut h = check("downloading FGLT vectors", || stream.clone_dtoh(&prims[k]))?;
            h.truncate(n);
            Ok(h)
        };
        let order: Vec<usize> = check("downloading the order", || stream.clone_dtoh(&order))?
            .into_iter()
            .take(n)
            .map(|v| v as usize)
            .collect();
        let prims = Primitives {
            d: down(0)?,
            ad: down(3)?,
            aad: down(4)?,
            a_c2: down(5)?,
            w1: down(6)?,
            a_w1: down(7)?,
            w_dm2: down(8)?,
            w_c2: down(9)?,
            aba: down(10)?,
            c4: down(11)?,
            k4: down(12)?,
        };
        DeviceResult::Primitives { prims: Box::new(prims), order }
    };
    let end = event(stream)?;
    check("synchronizing", || stream.synchronize())?;
    let ms = |a: &CudaEvent, b: &CudaEvent| check("reading the event timer", || a.elapsed_ms(b));
    for (k, (name, ev)) in marks.iter().enumerate() {
        let next = marks.get(k + 1).map_or(&end, |m| &m.1);
        times.push((name, Duration::from_secs_f64(f64::from(ms(ev, next)?).max(0.0) / 1e3)));
    }
    let last_kernel = &marks.last().expect("stages were marked").1;
    let kernel_seconds = f64::from(ms(&marks[0].1, last_kernel)?) / 1e3;
    Ok(DeviceRun { result, self_loops, kernel_seconds })
}

/// Exclusive scan of `a[0, len)` in place, the total to `a[len]`.
fn scan(
    stream: &Arc<CudaStream>,
    ks: &Kernels,
    a: &mut CudaSlice<i32>,
    len: usize,
    parts: &mut CudaSlice<i32>,
) -> Result<(), CudaError> {
    let len64 = len as i64;
    let cfg = |b: u32| LaunchConfig { grid_dim: (SCAN_PARTS as u32, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 };
    launch!(stream, ks, "fglt_scan_sums", cfg(256); &len64, &*a, &mut *parts);
    let one = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (SCAN_PARTS as u32, 1, 1), shared_mem_bytes: 0 };
    launch!(stream, ks, "fglt_scan_parts", one; &mut *parts);
    launch!(stream, ks, "fglt_scan_apply", cfg(256); &len64, &mut *a, &*parts);
    Ok(())
}

/// The primitives of the degree-ordered pattern `(ptr, idx, row_of)` on the
/// device, in 13 vectors of `n`: d, C(d − 1, 2), d − 2, A d, A A d,
/// A C(d − 1, 2), W e, A W e, W (d − 2), Σ C(W, 2), diag(A (W − A) A),
/// 4-cycles, 4-cliques.
#[allow(clippy::too_many_arguments)]
fn primitives(
    dev: &Device,
    ks: &Kernels,
    ptr_d: &CudaSlice<i32>,
    idx_d: &CudaSlice<i32>,
    row_d: &CudaSlice<i32>,
    n: usize,
    nnz: usize,
    marks: &mut Vec<(&'static str, CudaEvent)>,
    stage: &mut dyn FnMut(&'static str),
) -> Result<Vec<CudaSlice<u64>>, CudaError> {
    let stream = &dev.stream;
    let sms = dev.info.multiprocessors;
    let mut mark = |name: &'static str| -> Result<(), CudaError> {
        stage(name);
        marks.push((name, event(stream)?));
        Ok(())
    };
    let alloc = |len: usize| check("allocating FGLT vectors", || stream.alloc_zeros::<u64>(len.max(1)));
    let mut v: Vec<CudaSlice<u64>> = (0..13).map(|_| alloc(n)).collect::<Result<_, _>>()?;
    let mut w_d = check("allocating W", || stream.alloc_zeros::<u32>(nnz.max(1)))?;
    // the 4-cycle kernel's per-block counters and lists (n u32 + n i32 per
    // block): as many blocks as an eighth of the device's memory holds
    let by_memory = (dev.info.total_memory / 8) / (8 * n);
    let c4_blocks = (sms * 4).min(by_memory).max(1);
    let acc_d = check("allocating 4-cycle counters", || stream.alloc_zeros::<u32>(c4_blocks * n))?;
    let touched_d = check("allocating 4-cycle lists", || stream.alloc_zeros::<i32>(c4_blocks * n))?;

    let grid = |items: usize, per_block: usize| -> LaunchConfig {
        let g = items.div_ceil(per_block).clamp(1, sms * 32) as u32;
        LaunchConfig { grid_dim: (g, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    };
    let (n32, n64, nnz64) = (n as i32, n as i64, nnz as i64);
    let per_thread = grid(n, BLOCK as usize);
    let per_warp = grid(n, (BLOCK / 32) as usize);
    let per_entry = grid(nnz, BLOCK as usize);
    let blocks =
        |g: usize, b: u32| LaunchConfig { grid_dim: (g as u32, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 };
    let poison: u64 = u64::MAX;
    for s in v.iter_mut().take(10) {
        launch!(stream, ks, "fglt_fill", per_thread; &n64, s, &poison);
    }
    let [d, c2m1, dm2, ad, aad, a_c2, w1, a_w1, w_dm2, w_c2, aba, c4, k4] = &mut v[..] else {
        unreachable!("13 vectors")
    };
    mark("degrees and A·d")?;
    launch!(stream, ks, "fglt_degrees", per_thread; &n32, ptr_d, &mut *d, &mut *c2m1, &mut *dm2);
    for (x, y) in [(&*d, &mut *ad), (&*c2m1, &mut *a_c2)] {
        launch!(stream, ks, "fglt_spmv", per_warp; &n32, ptr_d, idx_d, x, y);
    }
    launch!(stream, ks, "fglt_spmv", per_warp; &n32, ptr_d, idx_d, &*ad, &mut *aad);

    mark("W = A² ∘ A")?;
    launch!(stream, ks, "fglt_w", per_entry; &n32, &nnz64, ptr_d, idx_d, row_d, &mut w_d);

    mark("W products")?;
    launch!(stream, ks, "fglt_w_sums", per_warp;
        &n32, ptr_d, idx_d, &w_d, &*dm2, &mut *w1, &mut *w_dm2, &mut *w_c2);
    launch!(stream, ks, "fglt_spmv", per_warp; &n32, ptr_d, idx_d, &*w1, &mut *a_w1);
    launch!(stream, ks, "fglt_aba", per_entry; &n32, &nnz64, ptr_d, idx_d, row_d, &w_d, &mut *aba);

    mark("4-cycles")?;
    let cfg = LaunchConfig { grid_dim: (c4_blocks as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
    launch!(stream, ks, "fglt_c4", cfg; &n32, ptr_d, idx_d, &acc_d, &touched_d, &mut *c4);

    mark("4-cliques")?;
    launch!(stream, ks, "fglt_k4_local", blocks(sms * 6, 128); &n32, ptr_d, idx_d, &mut *k4);
    // |N⁺(u)| ≤ √nnz in degree order (see kernels/fglt.cu)
    let kmax = (nnz as f64).sqrt() as usize + 1;
    let mut wide = None;
    if kmax > K4_LOCAL {
        let per_block = kmax * kmax.div_ceil(32) * 4 + kmax * 4;
        let nb = ((dev.info.total_memory / 8) / per_block).clamp(1, sms * 2);
        let rows = check("allocating 4-clique bitsets", || stream.alloc_zeros::<u32>(nb * kmax * kmax.div_ceil(32)))?;
        let list = check("allocating 4-clique lists", || stream.alloc_zeros::<i32>(nb * kmax))?;
        let (rows, list) = wide.insert((rows, list));
        let kmax32 = kmax as i32;
        launch!(stream, ks, "fglt_k4_wide", blocks(nb, 512); &n32, &kmax32, ptr_d, idx_d, rows, list, &mut *k4);
    }
    // the scratch is freed in stream order after the launches that read it
    drop((w_d, acc_d, touched_d, wide));
    Ok(v)
}
