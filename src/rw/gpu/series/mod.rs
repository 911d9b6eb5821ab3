//! The moment series of the geometric random-walk kernel on the GPU
//! (`kernels/rw_series.cu`): per graph, the Collatz–Wielandt bounds of
//! [`RandomWalkKernel::spectral_radius_bounds`](crate::rw::RandomWalkKernel::spectral_radius_bounds)
//! (one warp per graph, the CPU's power steps, rounded as the CPU rounds)
//! and the scaled moments `m_k / ρ̂^k = 1ᵀ (W/ρ̂)^k 1`; per pair, the
//! truncated sum `Σ_k r^k m_k m'_k` (one thread per pair) with the CPU's
//! truncation rule, its constants passed at launch. The host side (which
//! pairs, λ checks, the fallback to the solver) is in `rw/backend.rs`.
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
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub const SOURCE: &str = include_str!("../../../../kernels/rw_series.cu");

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

/// The series' constants, from `rw/prep.rs`.
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

mod layout;
#[cfg_attr(not(feature = "cuda"), allow(unused_imports))]
pub(crate) use self::layout::{pack, SeriesLayout};

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
    use super::layout::as_i32;
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
