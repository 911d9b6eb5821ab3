//! The launches of the GPU transform ([`super`] says what each stage does).

use super::*;
use crate::cuda::device::{check, device, Device};
use cudarc::driver::{sys, CudaEvent, CudaFunction, CudaSlice, CudaStream, CudaView, LaunchConfig, PushKernelArg};
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
/// Number of per-vertex vectors of the primitives (see [`primitives`]).
const PRIMS: usize = 13;
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
        return Ok(DeviceRun { result: empty, self_loops: 0, weighted: false, kernel_seconds: 0.0 });
    }
    stage("upload and compile");
    let t = Instant::now();
    let dev: Arc<Device> = device(ordinal)?;
    let ks = Kernels(dev.module_functions(source(), MODULE, &KERNELS)?);
    let stream = &dev.stream;
    let sms = dev.info.multiprocessors;
    let mut staging = super::transfer::staging(&dev);
    // the longest row, its self-loop included: an upper bound on the degree
    // that decides the launches below without waiting for the device
    let dmax = g.indptr().par_windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0) as u64;
    let input = staging.upload(&dev, &[g.indptr(), g.indices()])?;
    let (iptr, iidx) = (input.slice(0..n + 1), input.slice(n + 1..));
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

    // Nothing below waits for the device until the download: the arrays
    // sized by the number of entries take the input's count (self-loops
    // included), the kernels read the true count from the row pointers.
    stage("relabel by degree");
    marks.push(("relabel by degree", event(stream)?));
    let mut deg = zeros_i32(n)?;
    let mut hist = zeros_i32(n + 1)?;
    let mut stats = check("allocating FGLT arrays", || stream.alloc_zeros::<u32>(2))?;
    launch!(stream, ks, "fglt_in_degrees", per_thread; &n32, &iptr, &iidx, &mut deg, &mut hist, &mut stats);
    let mut parts = zeros_i32(SCAN_PARTS + 1)?;
    scan(stream, &ks, &mut hist, n, &mut parts)?;
    let (mut order, mut rank, mut len) = (zeros_i32(n)?, zeros_i32(n)?, zeros_i32(n)?);
    let mut ptr = zeros_i32(n + 1)?;
    launch!(stream, ks, "fglt_place", per_thread; &n32, &deg, &mut hist, &mut order, &mut rank, &mut len, &mut ptr);
    drop((deg, hist));
    scan(stream, &ks, &mut ptr, n, &mut parts)?;
    let mut idx = zeros_i32(nnz_in)?;
    let mut row_of = zeros_i32(nnz_in)?;
    launch!(stream, ks, "fglt_relabel", per_warp; &n32, &iptr, &iidx, &order, &rank, &ptr, &mut idx, &mut row_of);
    drop((iptr, iidx, rank));
    drop(input);
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

    let prims = primitives(&dev, &ks, &ptr, &idx, &row_of, n, nnz_in, &mut marks, stage)?;
    drop((bitmaps, row_of, len));

    let result = if dmax <= EXACT_DEGREE {
        stage("raw and net");
        marks.push(("raw and net", event(stream)?));
        let alloc = |what| check(what, || stream.alloc_zeros::<u64>(n * ORBITS));
        let (mut raw_d, mut net_d) = (alloc("allocating the raw table")?, alloc("allocating the net table")?);
        let p: Vec<CudaView<u64>> = (0..PRIMS).map(|k| prims.slice(k * n..(k + 1) * n)).collect();
        launch!(stream, ks, "fglt_assemble", per_thread; &n32, &order, &p[0], &p[3], &p[4], &p[5], &p[6], &p[7], &p[8],
            &p[9], &p[10], &p[11], &p[12], &mut raw_d, &mut net_d);
        marks.push(("download", event(stream)?));
        // the host's own share while the device computes
        let weighted = weighted(g);
        let (mut raw, mut net) = (Frequencies::zeros(n), Frequencies::zeros(n));
        staging.download(&dev, &[raw_d.as_view(), net_d.as_view()], &mut [&mut raw.data, &mut net.data])?;
        (DeviceResult::Frequencies { raw, net }, weighted)
    } else {
        marks.push(("download", event(stream)?));
        let weighted = weighted(g);
        let mut h: Vec<Vec<u64>> = (0..PRIMS).map(|_| vec![0; n]).collect();
        let order_d = {
            let mut o = vec![0i32; n];
            check("downloading the order", || stream.memcpy_dtoh(&order, &mut o))?;
            o
        };
        {
            let srcs: Vec<CudaView<u64>> = (0..PRIMS).map(|k| prims.slice(k * n..(k + 1) * n)).collect();
            let mut dsts: Vec<&mut [u64]> = h.iter_mut().map(|v| &mut v[..]).collect();
            staging.download(&dev, &srcs, &mut dsts)?;
        }
        let mut take = |k: usize| std::mem::take(&mut h[k]);
        let prims = Primitives {
            d: take(0),
            ad: take(3),
            aad: take(4),
            a_c2: take(5),
            w1: take(6),
            a_w1: take(7),
            w_dm2: take(8),
            w_c2: take(9),
            aba: take(10),
            c4: take(11),
            k4: take(12),
        };
        let order = order_d.into_iter().map(|v| v as usize).collect();
        (DeviceResult::Primitives { prims: Box::new(prims), order }, weighted)
    };
    let (result, weighted) = result;
    let end = event(stream)?;
    let st = check("reading the degree statistics", || stream.clone_dtoh(&stats))?;
    check("synchronizing", || stream.synchronize())?;
    let self_loops = st[0] as usize;
    let ms = |a: &CudaEvent, b: &CudaEvent| check("reading the event timer", || a.elapsed_ms(b));
    for (k, (name, ev)) in marks.iter().enumerate() {
        let next = marks.get(k + 1).map_or(&end, |m| &m.1);
        times.push((name, Duration::from_secs_f64(f64::from(ms(ev, next)?).max(0.0) / 1e3)));
    }
    let last_kernel = &marks.last().expect("stages were marked").1;
    let kernel_seconds = f64::from(ms(&marks[0].1, last_kernel)?) / 1e3;
    Ok(DeviceRun { result, self_loops, weighted, kernel_seconds })
}

/// Whether some edge weight differs from 1 (weights are not read).
fn weighted<N: Label, E: Label>(g: &Graph<N, E>) -> bool {
    g.weights().par_iter().any(|&w| w != 1.0)
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
/// device (`nnz` at least its number of entries), in 13 vectors of `n`: d, C(d − 1, 2), d − 2, A d, A A d,
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
) -> Result<CudaSlice<u64>, CudaError> {
    let stream = &dev.stream;
    let sms = dev.info.multiprocessors;
    let mut mark = |name: &'static str| -> Result<(), CudaError> {
        stage(name);
        marks.push((name, event(stream)?));
        Ok(())
    };
    // the 13 vectors back to back in one allocation: the first 10 assigned
    // at every vertex (poisoned below, so that one left unwritten shows), the
    // last 3 accumulated (zeroed)
    // SAFETY: every element is filled or zeroed below before a kernel reads it.
    let mut all = check("allocating FGLT vectors", || unsafe { stream.alloc::<u64>(PRIMS * n) })?;
    check("zeroing FGLT vectors", || stream.memset_zeros(&mut all.slice_mut(10 * n..)))?;
    let mut w_d = check("allocating W", || stream.alloc_zeros::<u32>(nnz.max(1)))?;
    // the 4-cycle kernel's per-block counters and lists (n u32 + n i32 per
    // block): as many blocks as an eighth of the device's memory holds
    let by_memory = (dev.info.total_memory / 8) / (8 * n);
    let c4_blocks = (sms * 4).min(by_memory).max(1);
    let acc_d = check("allocating 4-cycle counters", || stream.alloc_zeros::<u32>(c4_blocks * n))?;
    // SAFETY: each block writes an entry of its list before reading it
    let touched_d = check("allocating 4-cycle lists", || unsafe { stream.alloc::<i32>(c4_blocks * n) })?;

    let grid = |items: usize, per_block: usize| -> LaunchConfig {
        let g = items.div_ceil(per_block).clamp(1, sms * 32) as u32;
        LaunchConfig { grid_dim: (g, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    };
    let n32 = n as i32;
    let per_thread = grid(n, BLOCK as usize);
    let per_warp = grid(n, (BLOCK / 32) as usize);
    let per_edge = grid(nnz.div_ceil(2), BLOCK as usize);
    let blocks =
        |g: usize, b: u32| LaunchConfig { grid_dim: (g as u32, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 };
    let poison: u64 = u64::MAX;
    let assigned = (10 * n) as i64;
    launch!(stream, ks, "fglt_fill", grid(10 * n, BLOCK as usize); &assigned, &all, &poison);
    let v: Vec<CudaView<u64>> = (0..PRIMS).map(|k| all.slice(k * n..(k + 1) * n)).collect();
    // (the kernels write through these views: one stream orders every access)
    let [d, c2m1, dm2, ad, aad, a_c2, w1, a_w1, w_dm2, w_c2, aba, c4, k4] = &v[..] else { unreachable!("13 vectors") };
    mark("degrees and A·d")?;
    launch!(stream, ks, "fglt_degrees", per_thread; &n32, ptr_d, d, c2m1, dm2);
    for (x, y) in [(d, ad), (c2m1, a_c2), (ad, aad)] {
        launch!(stream, ks, "fglt_spmv", per_warp; &n32, ptr_d, idx_d, x, y);
    }

    mark("W = A² ∘ A")?;
    // the lower entries, one per edge
    let mut start = check("allocating the edge list", || stream.alloc_zeros::<i32>(n + 1))?;
    let mut list = check("allocating the edge list", || stream.alloc_zeros::<i32>(nnz.div_ceil(2).max(1)))?;
    let mut parts = check("allocating FGLT arrays", || stream.alloc_zeros::<i32>(SCAN_PARTS + 1))?;
    launch!(stream, ks, "fglt_lower_count", per_thread; &n32, ptr_d, idx_d, &mut start);
    scan(stream, ks, &mut start, n, &mut parts)?;
    launch!(stream, ks, "fglt_lower_list", per_warp; &n32, ptr_d, &start, &mut list);
    launch!(stream, ks, "fglt_w", per_edge; &n32, ptr_d, idx_d, row_d, &start, &list, &mut w_d);

    mark("W products")?;
    launch!(stream, ks, "fglt_w_sums", per_warp;
        &n32, ptr_d, idx_d, &w_d, dm2, w1, w_dm2, w_c2);
    launch!(stream, ks, "fglt_spmv", per_warp; &n32, ptr_d, idx_d, w1, a_w1);
    launch!(stream, ks, "fglt_aba", per_edge; &n32, ptr_d, idx_d, row_d, &start, &list, &w_d, aba);

    mark("4-cycles")?;
    let cfg = LaunchConfig { grid_dim: (c4_blocks as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
    launch!(stream, ks, "fglt_c4", cfg; &n32, ptr_d, idx_d, &acc_d, &touched_d, c4);

    mark("4-cliques")?;
    launch!(stream, ks, "fglt_k4_local", blocks(sms * 6, 128); &n32, ptr_d, idx_d, k4);
    // |N⁺(u)| ≤ √nnz in degree order (see kernels/fglt.cu)
    let kmax = (nnz as f64).sqrt() as usize + 1;
    let mut wide = None;
    if kmax > K4_LOCAL {
        let per_block = kmax * kmax.div_ceil(32) * 4 + 2 * kmax * 4;
        let nb = ((dev.info.total_memory / 8) / per_block).clamp(1, sms * 2);
        let rows = check("allocating 4-clique bitsets", || stream.alloc_zeros::<u32>(nb * kmax * kmax.div_ceil(32)))?;
        let list = check("allocating 4-clique lists", || stream.alloc_zeros::<i32>(nb * 2 * kmax))?;
        let (rows, list) = wide.insert((rows, list));
        let kmax32 = kmax as i32;
        launch!(stream, ks, "fglt_k4_wide", blocks(nb, 512); &n32, &kmax32, ptr_d, idx_d, rows, list, k4);
    }
    // the scratch is freed in stream order after the launches that read it
    drop(v);
    drop((w_d, acc_d, touched_d, wide, start, list, parts));
    Ok(all)
}
