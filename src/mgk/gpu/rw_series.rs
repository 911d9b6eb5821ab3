//! The moment series of the geometric random-walk kernel on the GPU
//! (`kernels/rw_series.cu`): per graph, the Collatz–Wielandt bounds of
//! [`RandomWalkKernel::spectral_radius_bounds`](crate::mgk::RandomWalkKernel::spectral_radius_bounds)
//! (one warp per graph, the CPU's power steps, rounded as the CPU rounds)
//! and the scaled moments `m_k / ρ̂^k = 1ᵀ (W/ρ̂)^k 1`; per pair, the
//! truncated sum `Σ_k r^k m_k m'_k` (one thread per pair) with the CPU's
//! truncation rule, its constants passed at launch. The host side (which
//! pairs, λ checks, the fallback to the solver) is in `mgk/rw/backend.rs`.
//!
//! A call is one upload (the graphs in one page-locked host buffer kept
//! between calls, written by [`pack`] in one pass per graph: the unit-weight
//! check, the weight scaling of
//! [`unit_weights`](crate::mgk::system::unit_weights) and the 32-bit
//! conversion; no allocation), a device memset poisoning the outputs that
//! follow the graphs in the same device buffer, three launches on one stream with no host round trip between
//! them (each graph's number of moments is chosen on the device from the
//! largest bound of the list), and one download (the bounds and the values, into a kept page-locked buffer). The per-graph
//! kernels run one block per graph (a thread per row), so that a power step
//! costs about one row's latency; the symmetric Gram comes back symmetric to
//! the bit. `KRONOGRAPH_RW_TRACE=1` prints the host phases and the kernels'
//! times (CUDA events) of every call.
//!
//! Without the `cuda` feature, [`series_gram`] returns
//! [`CudaError::NotCompiled`].

use crate::backend::Precision;
use crate::cuda::CudaError;

/// The CUDA C++ source of the series kernels.
pub const SOURCE: &str = include_str!("../../../kernels/rw_series.cu");

/// A list of graphs in CSR form for the series kernels: weights already
/// scaled by `2^−exp` ([`unit_weights`](crate::mgk::system::unit_weights)).
#[derive(Clone, Debug, Default)]
pub(crate) struct SeriesCsr {
    /// First node of each graph, and the total at the end (`graphs + 1`).
    pub(crate) node_off: Vec<i64>,
    /// Global row pointers (`nodes + 1`).
    pub(crate) ptr: Vec<i64>,
    /// Column indices, local to the graph.
    pub(crate) idx: Vec<i32>,
    /// Weights.
    pub(crate) w: Vec<f64>,
    /// The power of two each graph's weights were scaled by.
    pub(crate) exp: Vec<i32>,
}

/// One graph of a series call: its CSR arrays and its weights as they are
/// (the packer scales them as [`unit_weights`](crate::mgk::system::unit_weights) does).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct SeriesGraph<'a> {
    /// Row pointers (`n + 1`).
    pub(crate) indptr: &'a [usize],
    /// Column indices.
    pub(crate) indices: &'a [usize],
    /// Weights (unscaled).
    pub(crate) weights: &'a [f64],
}

#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
impl<'a> SeriesGraph<'a> {
    /// The CSR arrays of `g`.
    pub(crate) fn of<N: crate::graph::Label, E: crate::graph::Label>(g: &'a crate::graph::Graph<N, E>) -> Self {
        SeriesGraph { indptr: g.indptr(), indices: g.indices(), weights: g.weights() }
    }
}

/// The series' constants, from `mgk/rw/prep.rs`.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct SeriesRule {
    /// λ (unscaled).
    pub(crate) lambda: f64,
    /// The relative tail bound the number of terms is chosen for.
    pub(crate) tail: f64,
    /// The most terms before a pair is left to the solver.
    pub(crate) max_terms: usize,
    /// Room for moments per graph (each graph holds what its pairs need, at
    /// most this many) given an upper bound of every `2^e ρ̂` of the list
    /// (the longest row times the largest weight, scaled back).
    pub(crate) stride: fn(lambda: f64, top: f64) -> usize,
}

/// Which pairs of the list: `(a, y0 + b)` for `a < nx`, `b < ny`.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct SeriesPairs {
    pub(crate) nx: usize,
    pub(crate) y0: usize,
    pub(crate) ny: usize,
}

/// What a series call returns.
#[derive(Clone, Debug)]
pub(crate) struct SeriesOut {
    /// The power of two each graph's weights were scaled by (`2^−exp`).
    pub(crate) exp: Vec<i32>,
    /// `(lo, hi)` per graph of the list (NaN where the kernel did not run).
    pub(crate) bounds: Vec<(f64, f64)>,
    /// The series per pair, row-major `nx × ny`; `−1` where a pair needs
    /// more terms than the rule allows (the host solves those).
    pub(crate) values: Vec<f64>,
}

/// Why a series call failed.
#[derive(Debug)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) enum SeriesError {
    /// The weights of this graph of the list span more than `f64` holds once
    /// scaled ([`unit_weights`](crate::mgk::system::unit_weights)'s error).
    WeightRange(usize),
    /// The device, the driver or NVRTC.
    Cuda(CudaError),
}

impl From<CudaError> for SeriesError {
    fn from(e: CudaError) -> Self {
        SeriesError::Cuda(e)
    }
}

/// The byte offsets of one call's upload (8-byte aligned sections): the
/// graphs in 32-bit CSR form with global row pointers, the exponents, `hmax`
/// (0) and, last, the scaled weights, which are left out of the upload when
/// every weight is 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct SeriesLayout {
    pub(crate) graphs: usize,
    pub(crate) nodes: usize,
    pub(crate) nnz: usize,
    /// First node of each graph and the total (`graphs + 1` × i32).
    pub(crate) o_node: usize,
    /// Global row pointers (`nodes + 1` × i32).
    pub(crate) o_ptr: usize,
    /// Column indices, local to the graph (`nnz` × i32).
    pub(crate) o_idx: usize,
    /// The exponents (`graphs` × i32).
    pub(crate) o_exp: usize,
    /// `hmax` (one u64, 0).
    pub(crate) o_hmax: usize,
    /// The scaled weights (`nnz` × f64).
    pub(crate) o_w: usize,
    /// The end of the weights: the bytes the packer may write.
    pub(crate) end: usize,
}

#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
impl SeriesLayout {
    /// The layout of `list`.
    pub(crate) fn new(list: &[SeriesGraph<'_>]) -> Self {
        let graphs = list.len();
        let nodes: usize = list.iter().map(|g| g.indptr.len().saturating_sub(1)).sum();
        let nnz: usize = list.iter().map(|g| g.indices.len()).sum();
        // each section at least one element, so that every offset points into the buffer
        let a8 = |bytes: usize| bytes.max(1).div_ceil(8) * 8;
        let o_ptr = a8(4 * (graphs + 1));
        let o_idx = o_ptr + a8(4 * (nodes + 1));
        let o_exp = o_idx + a8(4 * nnz);
        let o_hmax = o_exp + a8(4 * graphs);
        let o_w = o_hmax + 8;
        SeriesLayout { graphs, nodes, nnz, o_node: 0, o_ptr, o_idx, o_exp, o_hmax, o_w, end: o_w + a8(8 * nnz) }
    }

    /// The 8-byte words the packer writes.
    pub(crate) fn words(&self) -> usize {
        self.end / 8
    }
}

/// What [`pack`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct Packed {
    /// Every weight is 1: the weights are not uploaded (the kernels use 1).
    pub(crate) unit: bool,
    /// A bound of every `2^e ρ̂` (longest row × largest scaled weight,
    /// scaled back) for the moments' room.
    pub(crate) top: f64,
    /// The bytes to upload: through the exponents and `hmax`, and through
    /// the weights unless `unit`.
    pub(crate) up: usize,
}

/// `words` as `i32`s (two per word).
fn as_i32(words: &mut [u64]) -> &mut [i32] {
    // SAFETY: the u64s' memory, exclusively borrowed for the result's lifetime, holds twice
    // as many i32s; u64's alignment is a multiple of i32's; every bit pattern is an i32.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<i32>(), 2 * words.len()) }
}

/// `words` as `f64`s.
fn as_f64(words: &mut [u64]) -> &mut [f64] {
    // SAFETY: same size and alignment; every bit pattern is an f64.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<f64>(), words.len()) }
}

/// Writes the device layout of `list` ([`SeriesLayout`]) into `buf` (at
/// least `layout.words()` words) in one pass per graph: the largest weight
/// and the unit-weight check (one sweep of the weights), the exponent of
/// [`unit_weights`](crate::mgk::system::unit_weights), the row pointers made
/// global, the column indices in 32 bits, and the weights scaled by `2^−e`
/// (only once some graph's weights are not all 1; until then no weight is
/// written). No allocation. `O(nodes + nnz)`.
///
/// # Errors
/// `Err(g)` for the first graph whose scaled weights underflow to 0 (where
/// `unit_weights` fails). The caller checks the 32-bit limits first.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn pack(list: &[SeriesGraph<'_>], layout: &SeriesLayout, buf: &mut [u64]) -> Result<Packed, usize> {
    use crate::mgk::system::{scale_pow2, weight_exponent, weight_summary};
    let l = layout;
    let buf = &mut buf[..l.words()];
    let (head, w) = buf.split_at_mut(l.o_w / 8);
    let w = as_f64(w);
    let (head, hmax) = head.split_at_mut(l.o_hmax / 8);
    hmax[0] = 0;
    let (head, exp) = head.split_at_mut(l.o_exp / 8);
    let exp = as_i32(exp);
    let (head, idx) = head.split_at_mut(l.o_idx / 8);
    let idx = as_i32(idx);
    let (node_off, ptr) = head.split_at_mut(l.o_ptr / 8);
    let (node_off, ptr) = (as_i32(node_off), as_i32(ptr));
    ptr[0] = 0;
    let (mut node, mut base, mut unit, mut top) = (0usize, 0usize, true, 0.0f64);
    for (gi, g) in list.iter().enumerate() {
        let (largest, ones) = weight_summary(g.weights);
        let e = weight_exponent(largest);
        exp[gi] = e;
        node_off[gi] = node as i32;
        let n = g.indptr.len().saturating_sub(1);
        let mut longest = 0usize;
        for (d, r) in ptr[node + 1..node + 1 + n].iter_mut().zip(g.indptr.windows(2)) {
            *d = (base + r[1]) as i32;
            longest = longest.max(r[1] - r[0]);
        }
        let len = g.indices.len();
        for (d, &j) in idx[base..base + len].iter_mut().zip(g.indices) {
            *d = j as i32;
        }
        if !ones && unit {
            // the first graph with other weights: the graphs before it have weights 1
            w[..base].fill(1.0);
            unit = false;
        }
        if !unit {
            let wg = &mut w[base..base + len];
            if e == 0 {
                wg.copy_from_slice(g.weights);
            } else {
                let mut lost = false;
                for (d, &x) in wg.iter_mut().zip(g.weights) {
                    *d = scale_pow2(x, -e);
                    lost |= *d == 0.0 && x != 0.0;
                }
                if lost {
                    return Err(gi);
                }
            }
        }
        let wmax = if ones { 1.0 } else { scale_pow2(largest, -e) };
        top = top.max(scale_pow2(longest as f64 * wmax, e));
        node += n;
        base += len;
    }
    node_off[list.len()] = node as i32;
    Ok(Packed { unit, top, up: if unit { l.o_w } else { l.end } })
}

/// The series of `pairs` of the graphs `list` on device `device`, in
/// `precision`.
///
/// # Errors
/// [`SeriesError::WeightRange`]; driver or NVRTC errors; without the `cuda`
/// feature, [`CudaError::NotCompiled`].
#[cfg(not(feature = "cuda"))]
pub(crate) fn series_gram(
    _device: usize,
    _graphs: &[SeriesGraph<'_>],
    _pairs: SeriesPairs,
    _rule: SeriesRule,
    _precision: Precision,
) -> Result<SeriesOut, SeriesError> {
    Err(CudaError::NotCompiled.into())
}

#[cfg(feature = "cuda")]
pub(crate) use self::imp::series_gram;

#[cfg(feature = "cuda")]
mod imp {
    use super::*;
    use crate::cuda::device::{check, device, Device};
    use cudarc::driver::{sys, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PinnedHostSlice, PushKernelArg};
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    use std::time::Instant;

    /// The name the source is compiled (and cached) under.
    const MODULE: &str = "rw_series";

    /// The kernels of [`SOURCE`].
    const KERNELS: [&str; 5] = ["rw_bounds", "rw_moments_f64", "rw_moments_f32", "rw_pairs_f64", "rw_pairs_f32"];

    /// Threads per block of the pair kernel.
    const BLOCK: u32 = 128;
    /// The most warps of a per-graph block (`RW_MAX_WARPS` in the source).
    const MAX_WARPS: usize = 8;
    /// Dynamic shared memory a per-graph block may take for its power
    /// vectors (within the default 48 KiB, no opt-in needed).
    const SHARED_BYTES: usize = 48 * 1024;

    fn grid(dev: &Device, items: usize, per_block: usize) -> LaunchConfig {
        let g = items.div_ceil(per_block).clamp(1, dev.info.multiprocessors * 32) as u32;
        LaunchConfig { grid_dim: (g, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    }

    /// What a device keeps between series calls: the host staging buffers
    /// (page-locked, so that the copies are DMA without a driver bounce;
    /// upload and download) and the device buffers (grown when a call needs
    /// more), so that a call allocates nothing and touches no fresh pages.
    #[derive(Default)]
    struct Stage {
        up: Option<PinnedHostSlice<u64>>,
        down: Option<PinnedHostSlice<f64>>,
        blob: Option<CudaSlice<u8>>,
        scratch: Option<CudaSlice<u8>>,
        /// An upload from `up` may still run (a call stopped between its upload and its
        /// download): wait for the stream before writing `up` again.
        pending: bool,
    }

    fn stages() -> &'static Mutex<HashMap<usize, Stage>> {
        static STAGES: OnceLock<Mutex<HashMap<usize, Stage>>> = OnceLock::new();
        STAGES.get_or_init(Default::default)
    }

    /// `slot`, at least `bytes` long (reallocated a quarter larger when not).
    fn grown<'s>(
        dev: &Device,
        slot: &'s mut Option<CudaSlice<u8>>,
        bytes: usize,
        what: &str,
    ) -> Result<&'s mut CudaSlice<u8>, CudaError> {
        if slot.as_ref().is_none_or(|s| s.len() < bytes) {
            *slot = None;
            // SAFETY: device bytes, every one written (uploaded or by a kernel) before it is read
            *slot = Some(check(what, || unsafe { dev.stream.alloc::<u8>(bytes + bytes / 4) })?);
        }
        Ok(slot.as_mut().expect("allocated above"))
    }

    /// The page-locked host buffer `slot`, at least `len` values long
    /// (reallocated a quarter larger, zeroed, when not), as a slice.
    fn pinned<'s, T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        dev: &Device,
        slot: &'s mut Option<PinnedHostSlice<T>>,
        len: usize,
    ) -> Result<&'s mut [T], CudaError> {
        if slot.as_ref().is_none_or(|s| s.len() < len) {
            *slot = None;
            let n = len + len / 4;
            // SAFETY: zeroed below before any read; flags 0: cached (not write-combined)
            // memory, which the host also reads
            let mut p =
                check("allocating page-locked memory", || unsafe { dev.ctx.alloc_pinned_with_flags::<T>(n, 0) })?;
            let ptr = check("allocating page-locked memory", || p.as_mut_ptr())?;
            // SAFETY: `n` values of `T` allocated above; zero bits are a valid `T`
            unsafe { std::ptr::write_bytes(ptr, 0, n) };
            *slot = Some(p);
        }
        let p = slot.as_mut().expect("allocated above");
        // the buffer's event is never recorded (copies go through raw pointers), so this
        // does not wait; the stream order protects the buffer (see `Stage::pending`)
        check("mapping page-locked memory", || p.as_mut_slice())
    }

    pub(crate) fn series_gram(
        device_ordinal: usize,
        list: &[SeriesGraph<'_>],
        pairs: SeriesPairs,
        rule: SeriesRule,
        precision: Precision,
    ) -> Result<SeriesOut, SeriesError> {
        let trace = std::env::var_os("KRONOGRAPH_RW_TRACE").is_some();
        let t0 = Instant::now();
        let dev = device(device_ordinal)?;
        let fs = dev.module_functions(SOURCE, MODULE, &KERNELS)?;
        let stream = &dev.stream;
        let layout = SeriesLayout::new(list);
        let (graphs, nodes, nnz) = (layout.graphs, layout.nodes, layout.nnz);
        let total = pairs.nx * pairs.ny;
        if graphs > i32::MAX as usize
            || nnz > i32::MAX as usize
            || nodes >= i32::MAX as usize
            || total > i32::MAX as usize
        {
            return Err(CudaError::InvalidParameter(format!(
                "{graphs} graphs, {nnz} stored entries, {total} pairs: the random-walk series kernels index with 32 \
                 bits; use the CPU backend"
            ))
            .into());
        }
        if graphs == 0 {
            return Ok(SeriesOut { exp: Vec::new(), bounds: Vec::new(), values: vec![f64::NAN; total] });
        }
        let mut stages = stages().lock().unwrap_or_else(|e| e.into_inner());
        let stage = stages.entry(device_ordinal).or_default();
        if stage.pending {
            check("waiting for an earlier upload", || stream.synchronize())?;
            stage.pending = false;
        }
        // one pass per graph writes the upload (graphs, exponents, hmax = 0; the weights
        // only when some are not 1) into the kept page-locked buffer
        let words = pinned(&dev, &mut stage.up, layout.words())?;
        let packed = pack(list, &layout, words).map_err(SeriesError::WeightRange)?;
        let exp = as_i32(&mut words[layout.o_exp / 8..layout.o_hmax / 8])[..graphs].to_vec();
        let (o_node, o_ptr, o_idx, o_exp, o_hmax) =
            (layout.o_node as i64, layout.o_ptr as i64, layout.o_idx as i64, layout.o_exp as i64, layout.o_hmax as i64);
        let o_w = if packed.unit { -1 } else { layout.o_w as i64 };
        let stride = (rule.stride)(rule.lambda, packed.top);
        // the outputs (lo, hi, values) follow the upload in the device buffer
        let up = packed.up;
        let o_lo = up as i64;
        let o_hi = o_lo + 8 * graphs as i64;
        let o_out = o_hi + 8 * graphs as i64;
        let out_end = o_out as usize + 8 * total;
        let t1 = Instant::now();
        let blob_d = grown(&dev, &mut stage.blob, out_end, "allocating the series buffer")?;
        check("uploading the graphs", || {
            stream.context().bind_to_thread()?;
            let (ptr, _sync) = blob_d.device_ptr_mut(stream);
            // SAFETY: `up` bytes (whole words) of the page-locked buffer into the allocation,
            // which is longer; the buffer is not written again before the stream passed this
            // copy (the download below waits for it; `pending` if the call stops before)
            unsafe { cudarc::driver::result::memcpy_htod_async(ptr, &words[..up / 8], stream.cu_stream()) }
        })?;
        stage.pending = true;
        // the outputs (lo, hi, values) poisoned: every bit set, a NaN
        check("poisoning the outputs", || {
            let mut out = blob_d.slice_mut(up..out_end);
            let (ptr, _sync) = out.device_ptr_mut(stream);
            // SAFETY: the range lies in the allocation, on its stream
            unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xff, out_end - up, stream.cu_stream()) }
        })?;
        let t2 = Instant::now();
        // scratch: power vectors (f64 for the bounds, reused by the moments), moments, held
        let rs = precision.size();
        let s_v = 0i64;
        let s_t = (8 * nodes.max(1)) as i64;
        let s_m = 2 * s_t;
        let s_held = s_m + ((graphs * stride * rs).div_ceil(8) * 8) as i64;
        let scratch = grown(&dev, &mut stage.scratch, s_held as usize + 4 * graphs, "allocating series scratch")?;
        let g32 = graphs as i32;
        // one block per graph, a thread per row up to MAX_WARPS warps; the block's power
        // vectors in shared memory when the largest graph fits
        let max_n = list.iter().map(|g| g.indptr.len().saturating_sub(1)).max().unwrap_or(0);
        let smem_n = if 2 * max_n * 8 <= SHARED_BYTES { max_n as i32 } else { 0 };
        let per_graph = LaunchConfig {
            grid_dim: (graphs.min(dev.info.multiprocessors * 32) as u32, 1, 1),
            block_dim: (32 * max_n.div_ceil(32).clamp(1, MAX_WARPS) as u32, 1, 1),
            shared_mem_bytes: (2 * smem_n as usize * 8) as u32,
        };
        let event = || check("recording an event", || stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)));
        let e0 = if trace { Some(event()?) } else { None };
        let mut lb = stream.launch_builder(&fs[0]);
        lb.arg(&g32)
            .arg(&mut *blob_d)
            .arg(&o_node)
            .arg(&o_ptr)
            .arg(&o_idx)
            .arg(&o_w)
            .arg(&o_exp)
            .arg(&o_lo)
            .arg(&o_hi)
            .arg(&o_hmax)
            .arg(&mut *scratch)
            .arg(&s_v)
            .arg(&s_t)
            .arg(&smem_n);
        // SAFETY: the arguments match rw_bounds's parameters; every offset is
        // of an array of the blob or the scratch sized for it.
        check("launching rw_bounds", || unsafe { lb.launch(per_graph) })?;
        let e1 = if trace { Some(event()?) } else { None };

        let (stride, maxt) = (stride as i32, rule.max_terms as i32);
        let k = if precision == Precision::F64 { 0 } else { 1 };
        let mut lb = stream.launch_builder(&fs[1 + k]);
        lb.arg(&g32)
            .arg(&stride)
            .arg(&rule.lambda)
            .arg(&rule.tail)
            .arg(&maxt)
            .arg(&mut *blob_d)
            .arg(&o_node)
            .arg(&o_ptr)
            .arg(&o_idx)
            .arg(&o_w)
            .arg(&o_exp)
            .arg(&o_hi)
            .arg(&o_hmax)
            .arg(&mut *scratch)
            .arg(&s_v)
            .arg(&s_t)
            .arg(&s_m)
            .arg(&s_held)
            .arg(&smem_n);
        // SAFETY: as above; the moments hold graphs × stride reals.
        check("launching rw_moments", || unsafe { lb.launch(per_graph) })?;
        let e2 = if trace { Some(event()?) } else { None };

        if total > 0 {
            let (nx, ny, y0) = (pairs.nx as i32, pairs.ny as i32, pairs.y0 as i32);
            let mut lb = stream.launch_builder(&fs[3 + k]);
            lb.arg(&nx)
                .arg(&ny)
                .arg(&y0)
                .arg(&stride)
                .arg(&rule.lambda)
                .arg(&rule.tail)
                .arg(&maxt)
                .arg(&mut *blob_d)
                .arg(&o_exp)
                .arg(&o_hi)
                .arg(&o_out)
                .arg(&mut *scratch)
                .arg(&s_m)
                .arg(&s_held);
            // SAFETY: as above; out holds nx × ny values, y0 + ny <= graphs.
            check("launching rw_pairs", || unsafe { lb.launch(grid(&dev, total, BLOCK as usize)) })?;
        }
        let e3 = if trace { Some(event()?) } else { None };
        // one download: lo, hi and the values, into the kept page-locked buffer
        let t3 = Instant::now();
        let len = 2 * graphs + total;
        let down = pinned(&dev, &mut stage.down, len)?;
        check("downloading the results", || {
            let src = blob_d.slice(up..out_end);
            let (ptr, _sync) = src.device_ptr(stream);
            // SAFETY: `len` f64s of the device range into the page-locked buffer of at least
            // that many, read only after the stream is synchronized below
            unsafe { cudarc::driver::result::memcpy_dtoh_async(&mut down[..len], ptr, stream.cu_stream()) }?;
            stream.synchronize()
        })?;
        stage.pending = false;
        if let (Some(e0), Some(e1), Some(e2), Some(e3)) = (e0, e1, e2, e3) {
            let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
            let t4 = Instant::now();
            let ev = |a: &cudarc::driver::CudaEvent, b| check("timing the kernels", || a.elapsed_ms(b));
            eprintln!(
                "rw_series: setup+pack {:.3} ms, upload+poison {:.3} ms, launches {:.3} ms, kernels+download {:.3} \
                 ms (kernels: bounds {:.3}, moments {:.3}, pairs {:.3} ms)",
                ms(t0, t1),
                ms(t1, t2),
                ms(t2, t3),
                ms(t3, t4),
                ev(&e0, &e1)?,
                ev(&e1, &e2)?,
                ev(&e2, &e3)?
            );
        }
        let (lo, rest) = down[..len].split_at(graphs);
        let (hi, values) = rest.split_at(graphs);
        Ok(SeriesOut { exp, bounds: lo.iter().copied().zip(hi.iter().copied()).collect(), values: values.to_vec() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Direction, Graph, GraphBuilder};
    use crate::mgk::system::unit_weights;

    fn graph(n: usize, seed: u64, w: impl Fn(usize) -> f64) -> Graph<(), ()> {
        let mut b = GraphBuilder::<(), ()>::new(n, Direction::Undirected).default_node_labels();
        let mut k = 0;
        for i in 0..n {
            for j in i + 1..n {
                if (i * 7 + j * 13 + seed as usize) % 3 == 0 {
                    b.push_edge(i, j, w(k), ());
                    k += 1;
                }
            }
        }
        b.build().unwrap()
    }

    fn list(x: &[Graph<(), ()>]) -> Vec<SeriesGraph<'_>> {
        x.iter().map(SeriesGraph::of).collect()
    }

    /// The packed layout is the graphs scaled by `unit_weights`, in 32-bit
    /// CSR with global row pointers; the weights are sent only when some
    /// are not 1, and then for every graph.
    #[test]
    fn pack_is_the_scaled_csr() {
        let unit = graph(9, 1, |_| 1.0);
        let band = graph(7, 2, |k| 0.5 + k as f64);
        let huge = graph(6, 3, |k| 1e150 * (1.0 + k as f64));
        let empty = graph(3, 4, |_| 1.0);
        for (set, want_unit) in [
            (vec![unit.clone(), empty.clone(), unit.clone()], true),
            (vec![unit.clone(), band.clone(), huge.clone(), empty.clone(), unit.clone()], false),
            (vec![huge.clone(), unit.clone()], false),
        ] {
            let l = list(&set);
            let layout = SeriesLayout::new(&l);
            let mut buf = vec![u64::MAX; layout.words() + 3];
            let packed = pack(&l, &layout, &mut buf).unwrap();
            assert_eq!(packed.unit, want_unit);
            assert_eq!(packed.up, if want_unit { layout.o_w } else { layout.end });
            let words = &mut buf[..layout.words()];
            let i32s = |w: &mut [u64], at: usize, n: usize| as_i32(&mut w[at / 8..])[..n].to_vec();
            let node_off = i32s(words, layout.o_node, set.len() + 1);
            let ptr = i32s(words, layout.o_ptr, layout.nodes + 1);
            let idx = i32s(words, layout.o_idx, layout.nnz);
            let exp = i32s(words, layout.o_exp, set.len());
            assert_eq!(words[layout.o_hmax / 8], 0);
            let w = as_f64(&mut words[layout.o_w / 8..])[..layout.nnz].to_vec();
            let (mut node, mut base, mut top) = (0usize, 0usize, 0.0f64);
            for (g, x) in set.iter().enumerate() {
                let (s, e) = unit_weights(x).unwrap();
                assert_eq!(exp[g], e);
                assert_eq!(node_off[g] as usize, node);
                for i in 0..x.num_nodes() {
                    assert_eq!(ptr[node + i + 1] as usize, base + s.indptr()[i + 1]);
                }
                for (k, &j) in s.indices().iter().enumerate() {
                    assert_eq!(idx[base + k] as usize, j);
                    if !want_unit {
                        assert_eq!(w[base + k].to_bits(), s.weights()[k].to_bits());
                    }
                }
                let longest = s.indptr().windows(2).map(|r| r[1] - r[0]).max().unwrap_or(0) as f64;
                let wmax = s.weights().iter().copied().fold(0.0, f64::max);
                top = top.max(crate::mgk::system::scale_pow2(longest * wmax, e));
                node += x.num_nodes();
                base += x.indices().len();
            }
            assert_eq!(node_off[set.len()] as usize, node);
            assert_eq!(packed.top, top);
        }
    }

    /// A graph whose scaled weights underflow is reported by its index, as
    /// `unit_weights` rejects it.
    #[test]
    fn pack_reports_weights_out_of_range() {
        let bad = graph(6, 5, |k| if k == 0 { 1e300 } else { 1e-300 });
        assert!(unit_weights(&bad).is_err());
        let set = [graph(4, 1, |_| 1.0), bad];
        let l = list(&set);
        let layout = SeriesLayout::new(&l);
        let mut buf = vec![0; layout.words()];
        assert_eq!(pack(&l, &layout, &mut buf), Err(1));
    }
}
