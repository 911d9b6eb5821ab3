//! [`DeviceVec`]: a vector in a CUDA device's memory, implementing the
//! solvers' [`Vector`] trait, so that [`cg`](crate::solver::cg),
//! [`bicgstab`](crate::solver::bicgstab) and
//! [`fixed_point`](crate::solver::fixed_point) run on the device for any
//! [`LinOp`](crate::solver::LinOp) over device vectors, a user's included.
//!
//! Every operation is one small kernel of `kernels/device_vector.cu`
//! (compiled by NVRTC once per process and architecture) on the device's
//! stream; a reduction ([`dot`](Vector::dot), [`norm`](Vector::norm), the
//! fused CG step) writes one partial sum per block, in `f64`, and reads
//! them back (a synchronization), adding them on the host in block order:
//! the result depends only on the length, never on timing.
//!
//! The [`Vector`] methods cannot return errors. A failing CUDA call is kept
//! (the first one per device and precision) and reductions then return NaN,
//! so a solver stops with [`SolverError::Breakdown`](crate::solver::SolverError::Breakdown); the
//! device operators of this crate report the kept error from their next
//! `apply` as [`SolverError::Operator`](crate::solver::SolverError::Operator), and
//! [`DeviceVec::check`] returns it (and clears it).

use super::device::{check, device, Device};
use super::{CudaError, GpuDevice};
use crate::solver::{Real, Vector};
use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

const SOURCE: &str = include_str!("../../kernels/device_vector.cu");
const OPS: [&str; 7] = ["fill", "axpy", "xpay", "mul", "inv", "dot", "cg"];
const FILL: usize = 0;
const AXPY: usize = 1;
const XPAY: usize = 2;
const MUL: usize = 3;
const INV: usize = 4;
const DOT: usize = 5;
const CG: usize = 6;
const BLOCK: u32 = 256;
/// Most blocks of one launch (and partial sums of one reduction slot).
const MAX_GRID: usize = 1024;

/// A scalar a [`DeviceVec`] holds: `f32` or `f64`.
pub trait DeviceScalar: Real + DeviceRepr + ValidAsZeroBits {
    /// The kernels' suffix (`"f32"`, `"f64"`).
    const SUFFIX: &'static str;
}

impl DeviceScalar for f64 {
    const SUFFIX: &'static str = "f64";
}

impl DeviceScalar for f32 {
    const SUFFIX: &'static str = "f32";
}

/// The kernels, reduction buffer and kept error of one device and precision.
pub(crate) struct VecContext {
    pub(crate) dev: Arc<Device>,
    fs: Vec<CudaFunction>,
    partials: Mutex<CudaSlice<f64>>,
    error: Mutex<Option<CudaError>>,
}

impl VecContext {
    /// The context of device `ordinal` for scalars `T` (created once per process).
    fn of<T: DeviceScalar>(ordinal: usize) -> Result<Arc<Self>, CudaError> {
        type ByDevice = HashMap<(usize, &'static str), Arc<VecContext>>;
        static CONTEXTS: OnceLock<Mutex<ByDevice>> = OnceLock::new();
        let mut map = CONTEXTS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = map.get(&(ordinal, T::SUFFIX)) {
            return Ok(c.clone());
        }
        let dev = device(ordinal)?;
        let names: Vec<String> = OPS.iter().map(|o| format!("kv_{o}_{}", T::SUFFIX)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let fs = dev.module_functions(SOURCE, "device_vector", &names)?;
        let partials = check("allocating reduction slots", || dev.stream.alloc_zeros::<f64>(2 * MAX_GRID))?;
        let c = Arc::new(VecContext { dev, fs, partials: Mutex::new(partials), error: Mutex::new(None) });
        map.insert((ordinal, T::SUFFIX), c.clone());
        Ok(c)
    }

    /// Keeps the first error.
    pub(crate) fn fail(&self, e: CudaError) {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
    }

    /// The kept error, cleared.
    pub(crate) fn take_error(&self) -> Option<CudaError> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Keeps the error of `r`, if any.
    fn keep(&self, r: Result<(), CudaError>) {
        if let Err(e) = r {
            self.fail(e);
        }
    }
}

/// The grid of an element-wise launch over `n` entries.
fn config(n: usize) -> LaunchConfig {
    let grid = n.div_ceil(BLOCK as usize).clamp(1, MAX_GRID) as u32;
    LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// A vector of `f32` or `f64` in a CUDA device's memory. Implements
/// [`Vector`], so the generic solvers run over it; build one with
/// [`zeros`](Self::zeros) or [`from_host`](Self::from_host), read it with
/// [`to_host`](Self::to_host).
///
/// Every operation is one kernel on the device's stream; a reduction reads
/// back one partial sum per block (a synchronization), added on the host in
/// block order, so results depend only on the length. The [`Vector`]
/// methods cannot return errors: the first failing CUDA call is kept,
/// reductions then return NaN (a solver stops with a breakdown), and
/// [`check`](Self::check) (or the next `apply` of a device operator)
/// returns it.
///
/// # Examples
/// ```no_run
/// use kronograph::cuda::{DeviceVec, GpuDevice};
/// use kronograph::solver::Vector;
/// let dev = GpuDevice::open(0)?;
/// let mut x = DeviceVec::from_host(&dev, &[1.0f64, 2.0, 3.0])?;
/// let y = DeviceVec::from_host(&dev, &[1.0f64, 1.0, 1.0])?;
/// x.axpy(2.0, &y);
/// assert_eq!(x.dot(&y), 12.0);
/// assert_eq!(x.to_host()?, vec![3.0, 4.0, 5.0]);
/// # Ok::<(), kronograph::cuda::CudaError>(())
/// ```
pub struct DeviceVec<T: DeviceScalar> {
    ctx: Arc<VecContext>,
    buf: CudaSlice<T>,
    len: usize,
}

impl<T: DeviceScalar> std::fmt::Debug for DeviceVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceVec").field("device", &self.ctx.dev.info.ordinal).field("len", &self.len).finish()
    }
}

impl<T: DeviceScalar> DeviceVec<T> {
    /// `n` zeros on `dev`.
    ///
    /// # Errors
    /// [`CudaError`] from compiling the vector kernels or allocating.
    pub fn zeros(dev: &GpuDevice, n: usize) -> Result<Self, CudaError> {
        let ctx = VecContext::of::<T>(dev.dev.info.ordinal)?;
        let buf = check("allocating a device vector", || ctx.dev.stream.alloc_zeros::<T>(n.max(1)))?;
        Ok(DeviceVec { ctx, buf, len: n })
    }

    /// A copy of `v` on `dev`.
    ///
    /// # Errors
    /// As [`zeros`](Self::zeros), and from the copy.
    pub fn from_host(dev: &GpuDevice, v: &[T]) -> Result<Self, CudaError> {
        let mut d = Self::zeros(dev, v.len())?;
        d.upload(v)?;
        Ok(d)
    }

    /// Another vector of `n` zeros on the same device.
    ///
    /// # Errors
    /// As [`zeros`](Self::zeros).
    pub fn zeros_like(&self, n: usize) -> Result<Self, CudaError> {
        let buf = check("allocating a device vector", || self.ctx.dev.stream.alloc_zeros::<T>(n.max(1)))?;
        Ok(DeviceVec { ctx: self.ctx.clone(), buf, len: n })
    }

    /// `self ← v` (the vector takes `v`'s length).
    ///
    /// # Errors
    /// From the allocation or the copy.
    pub fn upload(&mut self, v: &[T]) -> Result<(), CudaError> {
        Vector::resize(self, v.len());
        if !v.is_empty() {
            let stream = &self.ctx.dev.stream;
            check("copying to a device vector", || stream.memcpy_htod(v, &mut self.buf.slice_mut(0..v.len())))?;
        }
        self.check()
    }

    /// The entries, copied to the host (waits for the device).
    ///
    /// # Errors
    /// The kept error of an earlier operation ([`check`](Self::check)), or
    /// one from the copy.
    pub fn to_host(&self) -> Result<Vec<T>, CudaError> {
        self.check()?;
        let stream = &self.ctx.dev.stream;
        let mut v = check("reading a device vector", || stream.clone_dtoh(&self.buf.slice(0..self.len.max(1))))?;
        check("synchronizing", || stream.synchronize())?;
        v.truncate(self.len);
        Ok(v)
    }

    /// The first error of a CUDA call of an operation on this device and
    /// precision since the last check (the [`Vector`] methods cannot return
    /// it), cleared.
    ///
    /// # Errors
    /// That error.
    pub fn check(&self) -> Result<(), CudaError> {
        self.ctx.take_error().map_or(Ok(()), Err)
    }

    /// The device buffer (at least [`len`](Vector::len) entries).
    pub(crate) fn buf(&self) -> &CudaSlice<T> {
        &self.buf
    }

    /// The device buffer, for writing (at least [`len`](Vector::len) entries).
    pub(crate) fn buf_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.buf
    }
}

/// Runs one element-wise kernel: `$f` the function index, then the
/// arguments, on the stream of `$ctx`; keeps the error.
macro_rules! launch {
    ($ctx:expr, $op:expr, $n:expr, $what:literal, $($arg:expr),+) => {{
        let ctx: &VecContext = $ctx;
        let n = $n;
        if n > 0 {
            let n64 = n as i64;
            let mut lb = ctx.dev.stream.launch_builder(&ctx.fs[$op]);
            lb.arg(&n64);
            $(lb.arg($arg);)+
            // SAFETY: the arguments match the kernel's parameter list in
            // kernels/device_vector.cu; every buffer holds at least n entries.
            ctx.keep(check($what, || unsafe { lb.launch(config(n)) }.map(|_| ())));
        }
    }};
}

impl<T: DeviceScalar> Vector for DeviceVec<T> {
    type Scalar = T;

    fn len(&self) -> usize {
        self.len
    }

    fn resize(&mut self, n: usize) {
        let stream = self.ctx.dev.stream.clone();
        if n <= self.buf.len() {
            if n > self.len {
                let r = check("zeroing a device vector", || stream.memset_zeros(&mut self.buf.slice_mut(self.len..n)));
                self.ctx.keep(r);
            }
            self.len = n;
            return;
        }
        let grown = check("allocating a device vector", || stream.alloc_zeros::<T>(n)).and_then(|mut b| {
            if self.len > 0 {
                check("copying a device vector", || stream.memcpy_dtod(&self.buf.slice(0..self.len), &mut b))?;
            }
            Ok(b)
        });
        match grown {
            Ok(b) => {
                self.buf = b;
                self.len = n;
            }
            Err(e) => self.ctx.fail(e),
        }
    }

    fn copy_from(&mut self, src: &Self) {
        let n = self.len.min(src.len);
        if n > 0 {
            let stream = &self.ctx.dev.stream;
            let r = check("copying a device vector", || {
                stream.memcpy_dtod(&src.buf.slice(0..n), &mut self.buf.slice_mut(0..n))
            });
            self.ctx.keep(r);
        }
    }

    fn fill(&mut self, v: T) {
        launch!(&self.ctx.clone(), FILL, self.len, "filling a device vector", &v, &mut self.buf);
    }

    fn axpy(&mut self, a: f64, x: &Self) {
        let a = T::of_f64(a);
        launch!(&self.ctx.clone(), AXPY, self.len, "axpy on device vectors", &a, &x.buf, &mut self.buf);
    }

    fn xpay(&mut self, x: &Self, a: f64) {
        let a = T::of_f64(a);
        launch!(&self.ctx.clone(), XPAY, self.len, "xpay on device vectors", &x.buf, &a, &mut self.buf);
    }

    fn mul_elems(&mut self, x: &Self, d: &Self) {
        launch!(&self.ctx.clone(), MUL, self.len, "multiplying device vectors", &x.buf, &d.buf, &mut self.buf);
    }

    fn invert_elems(&mut self) -> bool {
        let ctx = self.ctx.clone();
        let n64 = self.len as i64;
        let buf = &mut self.buf;
        let [bad, _] = reduce(&ctx, self.len, 1, |part, cfg| {
            let mut lb = ctx.dev.stream.launch_builder(&ctx.fs[INV]);
            lb.arg(&n64).arg(&mut *buf).arg(part);
            // SAFETY: matches kv_inv; the buffer holds n entries, part 2·MAX_GRID.
            check("inverting a device vector", || unsafe { lb.launch(cfg) }.map(|_| ()))
        });
        bad == 0.0
    }

    fn dot(&self, y: &Self) -> f64 {
        let n64 = self.len as i64;
        reduce(&self.ctx, self.len, 1, |part, cfg| {
            let mut lb = self.ctx.dev.stream.launch_builder(&self.ctx.fs[DOT]);
            lb.arg(&n64).arg(&self.buf).arg(&y.buf).arg(part);
            // SAFETY: matches kv_dot; both buffers hold n entries.
            check("a dot product of device vectors", || unsafe { lb.launch(cfg) }.map(|_| ()))
        })[0]
    }

    fn cg_update(x: &mut Self, r: &mut Self, z: &mut Self, p: &Self, q: &Self, m: Option<&Self>, a: f64) -> (f64, f64) {
        let ctx = x.ctx.clone();
        let n = x.len;
        let n64 = n as i64;
        let a = T::of_f64(a);
        let null: u64 = 0;
        let [rr, rz] = reduce(&ctx, n, 2, |part, cfg| {
            let mut lb = ctx.dev.stream.launch_builder(&ctx.fs[CG]);
            lb.arg(&n64).arg(&a).arg(&mut x.buf).arg(&mut r.buf).arg(&mut z.buf).arg(&p.buf).arg(&q.buf);
            match m {
                Some(m) => lb.arg(&m.buf),
                None => lb.arg(&null),
            };
            lb.arg(part);
            // SAFETY: matches kv_cg; every buffer holds n entries (m may be null).
            check("the CG update on device vectors", || unsafe { lb.launch(cfg) }.map(|_| ()))
        });
        (rr, rz)
    }
}

/// A reduction over `n` entries with `slots` partial sums per block:
/// `launch` runs the kernel with the partials buffer; returns the slot
/// totals, added in block order (0 for `n = 0`; NaN after an error, which is
/// kept).
fn reduce(
    ctx: &VecContext,
    n: usize,
    slots: usize,
    launch: impl FnOnce(&mut CudaSlice<f64>, LaunchConfig) -> Result<(), CudaError>,
) -> [f64; 2] {
    if n == 0 {
        return [0.0; 2];
    }
    let cfg = config(n);
    let grid = cfg.grid_dim.0 as usize;
    let stream = &ctx.dev.stream;
    let mut part = ctx.partials.lock().unwrap_or_else(|e| e.into_inner());
    let run = || -> Result<Vec<f64>, CudaError> {
        launch(&mut part, cfg)?;
        let v = check("reading partial sums", || stream.clone_dtoh(&part.slice(0..grid * slots)))?;
        check("synchronizing", || stream.synchronize())?;
        Ok(v)
    };
    match run() {
        Ok(v) => {
            let mut out = [0.0; 2];
            for (k, o) in out.iter_mut().enumerate().take(slots) {
                *o = (0..grid).map(|b| v[b * slots + k]).sum();
            }
            out
        }
        Err(e) => {
            ctx.fail(e);
            [f64::NAN; 2]
        }
    }
}
