//! Algorithms prepared once on a backend and run many times: on a device
//! the matrix is uploaded and the kernels compiled and loaded (JIT) once, by
//! `new`, and every `run` (one source each) reuses them. Each keeps apart
//! the time of its preparation ([`setup_seconds`](PreparedBfs::setup_seconds):
//! device opening, upload, JIT, workspace allocation) and of each run's
//! algorithm (the GPU's loop with the device synchronized at both ends,
//! transfers excluded; the CPU's call).
//!
//! [`bfs_on`](super::bfs_on), [`sssp_on`](super::sssp_on) and
//! [`triangles_on`](super::triangles_on) are one preparation and one run.
//!
//! ```
//! use kronograph::algorithms::{BfsOptions, PreparedBfs};
//! use kronograph::graph::generate::{rmat, RmatParams};
//! use kronograph::matrix::SparseMatrix;
//! use kronograph::Backend;
//! use rand::SeedableRng;
//! let g = rmat(&RmatParams::graph500(8), &mut rand_chacha::ChaCha8Rng::seed_from_u64(1)).unwrap();
//! let a = SparseMatrix::from_graph(&g);
//! let mut bfs = PreparedBfs::new(&a, &BfsOptions::default(), Backend::Cpu).unwrap();
//! for s in [0, 1, 2] {
//!     let (r, seconds) = bfs.run(s).unwrap();
//!     assert!(r.reached >= 1 && seconds >= 0.0);
//! }
//! ```

use super::{bfs_matrix, sssp_matrix, triangle_count_matrix, BfsOptions, BfsResult, SsspOptions, SsspResult};
use crate::backend::{resolve_backend, Backend};
use crate::matrix::SparseMatrix;
use std::time::Instant;

#[cfg(feature = "cuda")]
use super::gpu::{GpuBfs, GpuSssp};
#[cfg(feature = "cuda")]
use crate::cuda::GpuDevice;
#[cfg(feature = "cuda")]
use crate::matrix::gpu::{DeviceMatrix, DeviceMatrixMask};

/// The device `backend` resolves to, opened, and its name; `None` for the CPU.
#[cfg(feature = "cuda")]
fn open(backend: Backend) -> crate::Result<Option<GpuDevice>> {
    Ok(match resolve_backend(backend)? {
        None => None,
        Some(i) => Some(GpuDevice::open(i)?),
    })
}

#[cfg(not(feature = "cuda"))]
fn open(backend: Backend) -> crate::Result<Option<std::convert::Infallible>> {
    match resolve_backend(backend)? {
        None => Ok(None),
        Some(_) => Err(crate::Error::CudaNotCompiled),
    }
}

/// Seconds of `f`'s call, with its result.
fn timed<R>(f: impl FnOnce() -> crate::Result<R>) -> crate::Result<(R, f64)> {
    let t0 = Instant::now();
    let r = f()?;
    Ok((r, t0.elapsed().as_secs_f64()))
}

/// A BFS prepared on a backend (on a device: the fused, direction-optimizing
/// [`GpuBfs`](super::gpu::GpuBfs) owning the uploaded matrix).
pub struct PreparedBfs<'a> {
    a: &'a SparseMatrix<f64>,
    opts: BfsOptions,
    setup: f64,
    device: Option<String>,
    #[cfg(feature = "cuda")]
    gpu: Option<GpuBfs<'static, f64>>,
}

impl<'a> PreparedBfs<'a> {
    /// Prepares BFS on `a` (`A(u, v)` stored ⇔ arc `u → v`) with `opts` on
    /// `backend` (on a device: open, upload, compile and load, allocate).
    ///
    /// # Errors
    /// [`AlgorithmError::NotSquare`](super::AlgorithmError); CUDA errors.
    pub fn new(a: &'a SparseMatrix<f64>, opts: &BfsOptions, backend: Backend) -> crate::Result<Self> {
        let t0 = Instant::now();
        let dev = open(backend)?;
        let device = dev.as_ref().map(device_name);
        #[cfg(feature = "cuda")]
        let gpu = match &dev {
            None => None,
            Some(d) => Some(GpuBfs::owning(DeviceMatrix::upload(d, a)?)?),
        };
        Ok(PreparedBfs {
            a,
            opts: *opts,
            setup: t0.elapsed().as_secs_f64(),
            device,
            #[cfg(feature = "cuda")]
            gpu,
        })
    }

    /// Seconds of the preparation (0 on the CPU but for the backend's probe).
    pub fn setup_seconds(&self) -> f64 {
        self.setup
    }

    /// The device's name, `None` on the CPU.
    pub fn device(&self) -> Option<&str> {
        self.device.as_deref()
    }

    /// BFS from `source`: the CPU's [`bfs_matrix`] result (on a device equal
    /// levels; parents form a BFS tree) and the algorithm's seconds.
    ///
    /// # Errors
    /// [`AlgorithmError::SourceOutOfRange`](super::AlgorithmError); CUDA errors.
    pub fn run(&mut self, source: usize) -> crate::Result<(BfsResult, f64)> {
        #[cfg(feature = "cuda")]
        if let Some(g) = &mut self.gpu {
            return g.run(source, self.opts.direction);
        }
        timed(|| Ok(bfs_matrix(self.a, source, &self.opts)?))
    }
}

/// Single-source shortest paths prepared on a backend (on a device:
/// near-far delta-stepping, [`GpuSssp`](super::gpu::GpuSssp), or the
/// frontier Bellman–Ford, as [`SsspOptions`] say).
pub struct PreparedSssp<'a> {
    a: &'a SparseMatrix<f64>,
    opts: SsspOptions,
    setup: f64,
    device: Option<String>,
    #[cfg(feature = "cuda")]
    gpu: Option<GpuSsspForm>,
}

#[cfg(feature = "cuda")]
enum GpuSsspForm {
    Delta(GpuSssp<'static>),
    BellmanFord(DeviceMatrix<f64>),
}

impl<'a> PreparedSssp<'a> {
    /// Prepares shortest paths along arcs `u → v` of weight `A(u, v)` with
    /// `opts` on `backend` (on a device: open, upload, weights checked,
    /// compile and load, allocate).
    ///
    /// # Errors
    /// [`AlgorithmError`](super::AlgorithmError) for a non-square matrix, a
    /// bad weight or `Δ`; CUDA errors.
    pub fn new(a: &'a SparseMatrix<f64>, opts: &SsspOptions, backend: Backend) -> crate::Result<Self> {
        let t0 = Instant::now();
        let dev = open(backend)?;
        let device = dev.as_ref().map(device_name);
        #[cfg(feature = "cuda")]
        let gpu = match &dev {
            None => None,
            Some(d) => {
                let m = DeviceMatrix::upload(d, a)?;
                Some(match opts.method {
                    super::SsspMethod::DeltaStepping => GpuSsspForm::Delta(GpuSssp::owning(m, opts.delta)?),
                    super::SsspMethod::BellmanFord => GpuSsspForm::BellmanFord(m),
                })
            }
        };
        Ok(PreparedSssp {
            a,
            opts: *opts,
            setup: t0.elapsed().as_secs_f64(),
            device,
            #[cfg(feature = "cuda")]
            gpu,
        })
    }

    /// Seconds of the preparation.
    pub fn setup_seconds(&self) -> f64 {
        self.setup
    }

    /// The device's name, `None` on the CPU.
    pub fn device(&self) -> Option<&str> {
        self.device.as_deref()
    }

    /// Distances from `source` (as the CPU's [`sssp_matrix`]) and the
    /// algorithm's seconds.
    ///
    /// # Errors
    /// [`AlgorithmError::SourceOutOfRange`](super::AlgorithmError); CUDA errors.
    pub fn run(&mut self, source: usize) -> crate::Result<(SsspResult, f64)> {
        #[cfg(feature = "cuda")]
        match &mut self.gpu {
            Some(GpuSsspForm::Delta(g)) => return g.run(source),
            Some(GpuSsspForm::BellmanFord(m)) => {
                let strategy = crate::matrix::gpu::GpuMergeStrategy::Auto;
                return timed(|| super::gpu::sssp_device(m, source, strategy));
            }
            None => {}
        }
        timed(|| Ok(sssp_matrix(self.a, source, &self.opts)?))
    }
}

/// Triangle counting prepared on a backend (on a device: the degree-ordered
/// lower triangle `L` built, uploaded with its mask, and the masked
/// product's kernels loaded).
pub struct PreparedTriangles<'a> {
    a: &'a SparseMatrix<f64>,
    setup: f64,
    device: Option<String>,
    #[cfg(feature = "cuda")]
    gpu: Option<(DeviceMatrix<bool>, DeviceMatrixMask)>,
}

impl<'a> PreparedTriangles<'a> {
    /// Prepares counting the triangles of the symmetric `a` on `backend`.
    ///
    /// # Errors
    /// [`AlgorithmError::NotSquare`](super::AlgorithmError); CUDA errors.
    pub fn new(a: &'a SparseMatrix<f64>, backend: Backend) -> crate::Result<Self> {
        if a.nrows() != a.ncols() {
            let (rows, cols) = (a.nrows(), a.ncols());
            return Err(super::AlgorithmError::NotSquare { what: "triangle counting", rows, cols }.into());
        }
        let t0 = Instant::now();
        let dev = open(backend)?;
        let device = dev.as_ref().map(device_name);
        #[cfg(feature = "cuda")]
        let gpu = match &dev {
            None => None,
            Some(d) => {
                let l = super::triangles::lower_by_degree(a);
                let dl = DeviceMatrix::upload(d, &l)?;
                let mask = DeviceMatrixMask::upload(d, &crate::matrix::MatrixMask::structural(&l))?;
                crate::matrix::gpu::prepare_mxm(d, crate::semirings::PlusPair::<bool, bool, u64>::new())?;
                Some((dl, mask))
            }
        };
        Ok(PreparedTriangles {
            a,
            setup: t0.elapsed().as_secs_f64(),
            device,
            #[cfg(feature = "cuda")]
            gpu,
        })
    }

    /// Seconds of the preparation.
    pub fn setup_seconds(&self) -> f64 {
        self.setup
    }

    /// The device's name, `None` on the CPU.
    pub fn device(&self) -> Option<&str> {
        self.device.as_deref()
    }

    /// The number of triangles and the algorithm's seconds (on a device the
    /// masked product and its sum; on the CPU the whole count).
    ///
    /// # Errors
    /// CUDA errors.
    pub fn run(&mut self) -> crate::Result<(u64, f64)> {
        #[cfg(feature = "cuda")]
        if let Some((l, mask)) = &self.gpu {
            // the sum is read back: the device is synchronized at the end
            return timed(|| super::gpu::triangles_lower(l, mask));
        }
        timed(|| Ok(triangle_count_matrix(self.a)?))
    }
}

#[cfg(feature = "cuda")]
fn device_name(d: &GpuDevice) -> String {
    format!("cuda:{} ({})", d.info().ordinal, d.info().name)
}

#[cfg(not(feature = "cuda"))]
fn device_name(d: &std::convert::Infallible) -> String {
    match *d {}
}
