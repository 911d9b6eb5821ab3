//! The host ↔ device copies of the GPU transform, through page-locked
//! staging buffers kept per device between calls.
//!
//! A copy from or to ordinary (pageable) host memory goes through the
//! driver's own staging, one host thread copying; here the host's threads
//! fill (upload) or empty (download) two page-locked buffers in parallel
//! while the link moves the other one, so the host side runs at the speed of
//! all its cores and the copies at the link's. The upload narrows the
//! graph's `usize` row pointers and column indices to the 32 bits the
//! kernels read as it stages them (half the bytes on the link).

use crate::cuda::device::{check, Device};
use crate::cuda::CudaError;
use cudarc::driver::{sys, CudaEvent, CudaSlice, CudaStream, CudaView, PinnedHostSlice};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Bytes of one staging buffer at most (two for each direction): large
/// enough that each copy runs near the link's speed, small enough to keep
/// page-locked.
const CHUNK_BYTES: usize = 16 << 20;
/// Elements one host task copies.
const PIECE: usize = 1 << 15;

/// The staging buffers of one device, and the copies still reading or
/// writing them.
#[derive(Default)]
pub(super) struct Staging {
    up: Vec<PinnedHostSlice<u32>>,
    down: Vec<PinnedHostSlice<u64>>,
    pending: Vec<CudaEvent>,
}

/// The staging buffers of `dev`, locked for one transform (calls on the
/// same device take turns).
pub(super) fn staging(dev: &Device) -> MutexGuard<'static, Staging> {
    static ALL: OnceLock<Mutex<HashMap<usize, &'static Mutex<Staging>>>> = OnceLock::new();
    let mine: &'static Mutex<Staging> = {
        let mut all = ALL.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        all.entry(dev.info.ordinal).or_insert_with(|| Box::leak(Box::default()))
    };
    mine.lock().unwrap_or_else(|e| e.into_inner())
}

fn record(stream: &CudaStream) -> Result<CudaEvent, CudaError> {
    check("recording an event", || stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)))
}

fn wait(e: &CudaEvent) -> Result<(), CudaError> {
    check("waiting for a copy", || e.synchronize())
}

/// Grows `bufs` to two buffers of at least `len` elements.
fn ensure<T: cudarc::driver::DeviceRepr>(
    dev: &Device,
    bufs: &mut Vec<PinnedHostSlice<T>>,
    len: usize,
    flags: u32,
) -> Result<(), CudaError> {
    if bufs.len() == 2 && bufs.iter().all(|b| b.len() >= len) {
        return Ok(());
    }
    bufs.clear();
    let len = len.next_power_of_two().max(1 << 12);
    for _ in 0..2 {
        // SAFETY: page-locked memory of `len` elements, written before it
        // is read (the upload fills what it copies, the download reads what
        // the device wrote).
        bufs.push(check("allocating page-locked memory", || unsafe {
            dev.ctx.alloc_pinned_with_flags::<T>(len, flags)
        })?);
    }
    Ok(())
}

impl Staging {
    /// Waits for the copies of an earlier call (one that stopped on an
    /// error may have left some in flight).
    fn settle(&mut self) -> Result<(), CudaError> {
        for e in self.pending.drain(..) {
            wait(&e)?;
        }
        Ok(())
    }

    /// The arrays `parts` back to back in one new device array of `u32`
    /// (every value must be below 2³²: the caller checks), queued on
    /// `dev`'s stream; the host waits only for a staging buffer to free up.
    pub(super) fn upload(&mut self, dev: &Device, parts: &[&[usize]]) -> Result<CudaSlice<u32>, CudaError> {
        self.settle()?;
        let stream = &dev.stream;
        let total: usize = parts.iter().map(|p| p.len()).sum();
        // SAFETY: every element is written by the copies below before a
        // kernel reads it.
        let mut out = check("allocating the input arrays", || unsafe { stream.alloc::<u32>(total.max(1)) })?;
        let cap = (CHUNK_BYTES / 4).min(total.max(1));
        // write-combined: the host only writes these
        ensure(dev, &mut self.up, cap, sys::CU_MEMHOSTALLOC_WRITECOMBINED)?;
        let cap = cap.min(self.up[0].len());
        let mut events: [Option<CudaEvent>; 2] = [None, None];
        let (mut at, mut c) = (0, 0);
        while at < total {
            let len = cap.min(total - at);
            let b = c % 2;
            if let Some(e) = events[b].take() {
                wait(&e)?;
            }
            let buf = &mut check("mapping page-locked memory", || self.up[b].as_mut_slice())?[..len];
            buf.par_chunks_mut(PIECE).enumerate().for_each(|(k, piece)| narrow_into(piece, parts, at + k * PIECE));
            let mut dst = out.slice_mut(at..at + len);
            check("uploading the graph", || stream.memcpy_htod(&*buf, &mut dst))?;
            events[b] = Some(record(stream)?);
            at += len;
            c += 1;
        }
        self.pending.extend(events.into_iter().flatten());
        Ok(out)
    }

    /// Copies each device array of `srcs` into the host slice of `dsts`
    /// at the same place (of the same length), after the work queued on
    /// `dev`'s stream; the host threads empty one staging buffer while the
    /// link fills the other.
    pub(super) fn download(
        &mut self,
        dev: &Device,
        srcs: &[CudaView<'_, u64>],
        dsts: &mut [&mut [u64]],
    ) -> Result<(), CudaError> {
        self.settle()?;
        let stream = &dev.stream;
        let longest = dsts.iter().map(|h| h.len()).max().unwrap_or(0);
        if longest == 0 {
            return Ok(());
        }
        let cap = (CHUNK_BYTES / 8).min(longest);
        ensure(dev, &mut self.down, cap, 0)?;
        let cap = cap.min(self.down[0].len());
        // (array, offset, length) of every chunk, in order
        let jobs: Vec<(usize, usize, usize)> = dsts
            .iter()
            .enumerate()
            .flat_map(|(k, h)| (0..h.len()).step_by(cap).map(move |o| (k, o, cap.min(h.len() - o))))
            .collect();
        let mut events: [Option<CudaEvent>; 2] = [None, None];
        let queue = |j: usize, events: &mut [Option<CudaEvent>; 2], down: &mut [PinnedHostSlice<u64>]| {
            let (k, o, len) = jobs[j];
            let buf = &mut check("mapping page-locked memory", || down[j % 2].as_mut_slice())?[..len];
            let src = srcs[k].slice(o..o + len);
            check("downloading the counts", || stream.memcpy_dtoh(&src, buf))?;
            events[j % 2] = Some(record(stream)?);
            Ok::<(), CudaError>(())
        };
        for j in 0..jobs.len().min(2) {
            queue(j, &mut events, &mut self.down)?;
        }
        for (j, &(k, o, len)) in jobs.iter().enumerate() {
            if let Some(e) = events[j % 2].take() {
                wait(&e)?;
            }
            let buf = &check("mapping page-locked memory", || self.down[j % 2].as_slice())?[..len];
            dsts[k][o..o + len]
                .par_chunks_mut(PIECE)
                .zip(buf.par_chunks(PIECE))
                .for_each(|(h, s)| h.copy_from_slice(s));
            if j + 2 < jobs.len() {
                queue(j + 2, &mut events, &mut self.down)?;
            }
        }
        Ok(())
    }
}

/// `dst` from the concatenation of `parts`, starting at element `at`,
/// narrowed to `u32`.
fn narrow_into(dst: &mut [u32], parts: &[&[usize]], mut at: usize) {
    let mut out = 0;
    for p in parts {
        if out == dst.len() {
            break;
        }
        if at >= p.len() {
            at -= p.len();
            continue;
        }
        let take = (p.len() - at).min(dst.len() - out);
        for (d, &s) in dst[out..out + take].iter_mut().zip(&p[at..at + take]) {
            *d = s as u32;
        }
        out += take;
        at = 0;
    }
}
