//! Large arrays for the readers, first touched in parallel and backed by
//! transparent huge pages where the system allows them (Linux with
//! `transparent_hugepage` set to `madvise` or `always`).
//!
//! A graph of 20 million arcs needs over 300 MB of fresh memory for its
//! indices and weights; with 4 KiB pages that is 80,000 page faults, each
//! zeroing its page, taken one after the other when a single thread fills
//! the array. Here the array is advised to use 2 MiB pages before it is
//! touched, and filled by all threads.

use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, AtomicUsize};

/// With `KRONOGRAPH_IO_TIMES` set, prints to stderr the wall time since
/// `*t` spent in the reader's phase `what` (and, on Linux, the CPU time of
/// the process meanwhile), and restarts `*t`: the phases of a read, for
/// profiling (`bench_io --phases` sets it).
pub(super) fn lap(what: &str, t: &mut (std::time::Instant, f64)) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("KRONOGRAPH_IO_TIMES").is_some()) {
        let cpu = cpu_seconds();
        eprintln!(
            "  io phase {what}: {:.1} ms wall, {:.1} ms cpu",
            t.0.elapsed().as_secs_f64() * 1e3,
            (cpu - t.1) * 1e3
        );
        *t = (std::time::Instant::now(), cpu);
    }
}

/// The start of a [`lap`].
pub(super) fn clock() -> (std::time::Instant, f64) {
    (std::time::Instant::now(), cpu_seconds())
}

/// The CPU time of the process (user and system), in seconds; 0 where unknown.
fn cpu_seconds() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid timespec for the call to write.
        if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0 {
            return ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9;
        }
    }
    0.0
}

/// Elements per task of a parallel fill.
const CHUNK: usize = 1 << 18;

/// A vector of `len` copies of `value`, filled in parallel, with huge
/// pages advised.
pub(super) fn filled<T: Copy + Send + Sync>(len: usize, value: T) -> Vec<T> {
    from_fn(len, |_| value)
}

/// The vector `[f(0), f(1), …, f(len - 1)]`, computed in parallel into
/// memory advised to use huge pages.
pub(super) fn from_fn<T: Send>(len: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    advise_huge(v.spare_capacity_mut());
    v.spare_capacity_mut()[..len].par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
        for (k, x) in out.iter_mut().enumerate() {
            x.write(f(c * CHUNK + k));
        }
    });
    // SAFETY: the first `len` elements were just written.
    unsafe { v.set_len(len) };
    v
}

/// Advises the kernel to back `buf` with transparent huge pages (a hint:
/// nothing happens where they are not available).
pub(super) fn advise_huge<T>(buf: &mut [MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let (start, len) = (buf.as_mut_ptr() as usize, std::mem::size_of_val(buf));
        let first = start.next_multiple_of(HUGE);
        let end = (start + len) / HUGE * HUGE;
        if end > first {
            // SAFETY: madvise only changes how the kernel backs pages of
            // this allocation (its whole 2 MiB pages); no memory is read or written.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// `v` as atomics, for writes from several threads to disjoint slots.
pub(super) fn as_atomic(v: &mut [usize]) -> &[AtomicUsize] {
    // SAFETY: `AtomicUsize` has the size, alignment and bit validity of
    // `usize`, and the exclusive borrow rules out other access meanwhile.
    unsafe { &*(v as *mut [usize] as *const [AtomicUsize]) }
}

const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<f64>());

/// `v`'s bits as atomics (see [`as_atomic`]).
pub(super) fn as_atomic_f64(v: &mut [f64]) -> &[AtomicU64] {
    // SAFETY: `AtomicU64` has the size and alignment of `f64` (both 8 on
    // every target with 64-bit atomics), every bit pattern is a valid `u64`
    // and a valid `f64`, and the exclusive borrow rules out other access.
    unsafe { &*(v as *mut [f64] as *const [AtomicU64]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn fills_and_views() {
        let mut v = filled(3 * CHUNK + 5, 7usize);
        assert!(v.iter().all(|&x| x == 7) && v.len() == 3 * CHUNK + 5);
        as_atomic(&mut v)[4].store(9, Relaxed);
        assert_eq!(v[4], 9);
        let mut w = filled(10, 1.5f64);
        as_atomic_f64(&mut w)[2].store(2.5f64.to_bits(), Relaxed);
        assert_eq!(w[2], 2.5);
        assert!(filled::<u8>(0, 0).is_empty());
        assert_eq!(from_fn(CHUNK + 3, |i| i * 2)[CHUNK + 2], 2 * CHUNK + 4);
    }
}
