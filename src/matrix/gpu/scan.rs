//! The semiring-independent kernels ([`UTIL_SOURCE`](super::UTIL_SOURCE))
//! and the device prefix sum built on them.

use super::device_index::Idx;
use super::index::IndexWidth;
use super::kernels::{util_source, UTIL_KERNELS, UTIL_MODULE};
use crate::cuda::device::{check, Device};
use crate::cuda::CudaError;
use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use std::sync::Mutex;

/// Threads per block of the grid-stride kernels.
pub(crate) const BLOCK: u32 = 256;
/// Elements per block of the scan.
const SCAN_BLOCK: usize = 1024;

/// The loaded kernels of the util module of one index width.
#[derive(Clone)]
pub(crate) struct Util {
    pub(crate) width: IndexWidth,
    pub(crate) scan_block: CudaFunction,
    pub(crate) scan_add: CudaFunction,
    pub(crate) flags_from_bytes: CudaFunction,
    pub(crate) compact_indices: CudaFunction,
    pub(crate) gather_u64: CudaFunction,
    pub(crate) relax_f64: CudaFunction,
    pub(crate) relax_u64: CudaFunction,
    pub(crate) gather_f64: CudaFunction,
}

/// The util kernels of index width `w` on `dev` (compiled once per process,
/// loaded once per device).
pub(crate) fn util_kernels(dev: &Device, w: IndexWidth) -> Result<Util, CudaError> {
    // kept per device and width: every vector product asks (see `loaded.rs`)
    static CACHE: Cache<Util> = Mutex::new(Vec::new());
    cached(&CACHE, dev, w, || load_util(dev, w))
}

/// Loaded kernels kept per device ordinal and index width.
pub(crate) type Cache<K> = Mutex<Vec<(usize, IndexWidth, K)>>;

/// The entry of `cache` for `dev` and `w`, loaded by `load` the first time.
pub(crate) fn cached<K: Clone>(
    cache: &Cache<K>,
    dev: &Device,
    w: IndexWidth,
    load: impl FnOnce() -> Result<K, CudaError>,
) -> Result<K, CudaError> {
    let ordinal = dev.info.ordinal;
    {
        let c = cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, k)) = c.iter().find(|(o, cw, _)| *o == ordinal && *cw == w) {
            return Ok(k.clone());
        }
    }
    let k = load()?;
    cache.lock().unwrap_or_else(|e| e.into_inner()).push((ordinal, w, k.clone()));
    Ok(k)
}

fn load_util(dev: &Device, w: IndexWidth) -> Result<Util, CudaError> {
    let module = format!("{UTIL_MODULE}_{}", w.name());
    let f = dev.module_functions(&util_source(w), &module, &UTIL_KERNELS)?;
    let mut it = f.into_iter();
    let mut next = || it.next().ok_or_else(|| CudaError::InvalidParameter("the util module lacks a kernel".into()));
    Ok(Util {
        width: w,
        scan_block: next()?,
        scan_add: next()?,
        flags_from_bytes: next()?,
        compact_indices: next()?,
        gather_u64: next()?,
        relax_f64: next()?,
        relax_u64: next()?,
        gather_f64: next()?,
    })
}

/// A grid-stride launch over `items` (at most 32 blocks per multiprocessor).
pub(crate) fn grid(dev: &Device, items: usize) -> LaunchConfig {
    let g = items.div_ceil(BLOCK as usize).clamp(1, dev.info.multiprocessors * 32) as u32;
    LaunchConfig { grid_dim: (g, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// Exclusive prefix sum of the first `n` entries of `input` into a new
/// buffer, and the total (read back: the stream is synchronized). The sum
/// wraps past the width's range: callers bound it (entry counts of objects
/// of this width).
pub(crate) fn exclusive_scan(dev: &Device, u: &Util, input: &Idx, n: usize) -> Result<(Idx, usize), CudaError> {
    let s = &dev.stream;
    let mut out = Idx::zeros(s, u.width, n)?;
    if n == 0 {
        return Ok((out, 0));
    }
    let total_d = scan_into(dev, u, input, &mut out, n)?;
    let total = total_d.download(s, "reading a scan total", 1)?;
    Ok((out, total[0]))
}

/// Scans `input[..n]` into `out`; returns a one-element buffer with the total.
fn scan_into(dev: &Device, u: &Util, input: &Idx, out: &mut Idx, n: usize) -> Result<Idx, CudaError> {
    let s = &dev.stream;
    let blocks = n.div_ceil(SCAN_BLOCK);
    let mut sums = Idx::zeros(s, u.width, blocks)?;
    let cfg =
        LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (SCAN_BLOCK as u32, 1, 1), shared_mem_bytes: 0 };
    let n32 = u.width.val(n);
    let mut lb = s.launch_builder(&u.scan_block);
    lb.arg(&n32).arg(input).arg(&mut *out).arg(&mut sums);
    // SAFETY: matches gbu_scan_block(n, in, out, sums); in and out hold n, sums `blocks` entries.
    check("launching gbu_scan_block", || unsafe { lb.launch(cfg) })?;
    if blocks == 1 {
        return Ok(sums);
    }
    let mut offsets = Idx::zeros(s, u.width, blocks)?;
    let total = scan_into(dev, u, &sums, &mut offsets, blocks)?;
    let mut lb = s.launch_builder(&u.scan_add);
    lb.arg(&n32).arg(&mut *out).arg(&offsets);
    // SAFETY: matches gbu_scan_add(n, out, offsets); the same blocking as gbu_scan_block.
    check("launching gbu_scan_add", || unsafe { lb.launch(cfg) })?;
    Ok(total)
}

/// The positions `i < n` where `flag[i] != 0`, in increasing order, and their count.
pub(crate) fn flagged_indices(dev: &Device, u: &Util, flag: &Idx, n: usize) -> Result<(Idx, usize), CudaError> {
    let (pos, count) = exclusive_scan(dev, u, flag, n)?;
    let mut out = Idx::zeros(&dev.stream, u.width, count)?;
    if count > 0 {
        let n32 = u.width.val(n);
        let mut lb = dev.stream.launch_builder(&u.compact_indices);
        lb.arg(&n32).arg(flag).arg(&pos).arg(&mut out);
        // SAFETY: matches gbu_compact_indices(n, flag, pos, out); out holds `count` entries.
        check("launching gbu_compact_indices", || unsafe { lb.launch(grid(dev, n)) })?;
    }
    Ok((out, count))
}
