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
use crate::cuda::GpuDevice;
#[cfg(feature = "cuda")]
use crate::matrix::gpu::{DeviceMatrix, DeviceMatrixMask, DeviceVisited};

/// What a preparation cost: its seconds and the device's name (`None` on the CPU).
struct Setup {
    seconds: f64,
    device: Option<String>,
}

/// Resolves `backend`; on a device opens it and runs `f` on it (upload,
/// JIT, allocation), timing the whole.
#[cfg(feature = "cuda")]
fn prepare<G>(backend: Backend, f: impl FnOnce(&GpuDevice) -> crate::Result<G>) -> crate::Result<(Option<G>, Setup)> {
    let t0 = Instant::now();
    let (gpu, device) = match resolve_backend(backend)? {
        None => (None, None),
        Some(i) => {
            let d = GpuDevice::open(i)?;
            (Some(f(&d)?), Some(format!("cuda:{} ({})", d.info().ordinal, d.info().name)))
        }
    };
    Ok((gpu, Setup { seconds: t0.elapsed().as_secs_f64(), device }))
}

/// Without the `cuda` feature only the CPU resolves.
#[cfg(not(feature = "cuda"))]
fn prepare(backend: Backend) -> crate::Result<Setup> {
    match resolve_backend(backend)? {
        None => Ok(Setup { seconds: 0.0, device: None }),
        Some(_) => Err(crate::Error::CudaNotCompiled),
    }
}

/// The setup accessors every prepared algorithm has.
macro_rules! setup_accessors {
    ($($t:ident),*) => {$(
        impl $t<'_> {
            /// Seconds of the preparation (device opening, upload, JIT,
            /// workspaces; on the CPU only the backend's probe).
            pub fn setup_seconds(&self) -> f64 {
                self.setup.seconds
            }

            /// The device's name, `None` on the CPU.
            pub fn device(&self) -> Option<&str> {
                self.setup.device.as_deref()
            }
        }
    )*};
}
setup_accessors!(PreparedBfs, PreparedSssp, PreparedTriangles);

/// Seconds of `f`'s call, with its result.
fn timed<R>(f: impl FnOnce() -> crate::Result<R>) -> crate::Result<(R, f64)> {
    let t0 = Instant::now();
    let r = f()?;
    Ok((r, t0.elapsed().as_secs_f64()))
}

/// A BFS prepared on a backend (on a device: the uploaded matrix and its
/// visit state, for the one [`bfs_levels`](super::bfs_levels)).
pub struct PreparedBfs<'a> {
    a: &'a SparseMatrix<f64>,
    opts: BfsOptions,
    setup: Setup,
    #[cfg(feature = "cuda")]
    gpu: Option<(DeviceMatrix<f64>, DeviceVisited)>,
}

impl<'a> PreparedBfs<'a> {
    /// Prepares BFS on `a` (`A(u, v)` stored ⇔ arc `u → v`) with `opts` on
    /// `backend` (on a device: open, upload, compile and load, allocate).
    ///
    /// # Errors
    /// [`AlgorithmError::NotSquare`](super::AlgorithmError); CUDA errors.
    pub fn new(a: &'a SparseMatrix<f64>, opts: &BfsOptions, backend: Backend) -> crate::Result<Self> {
        #[cfg(feature = "cuda")]
        let (gpu, setup) = prepare(backend, |d| {
            let m = DeviceMatrix::upload(d, a)?;
            let v = crate::matrix::VisitOp::visited(&m)?;
            Ok((m, v))
        })?;
        #[cfg(not(feature = "cuda"))]
        let setup = prepare(backend)?;
        Ok(PreparedBfs {
            a,
            opts: *opts,
            setup,
            #[cfg(feature = "cuda")]
            gpu,
        })
    }

    /// BFS from `source`: the CPU's [`bfs_matrix`] result (on a device equal
    /// levels; parents form a BFS tree) and the algorithm's seconds (on a
    /// device the level loop's, the device synchronized at both ends, the
    /// download of levels and parents excluded).
    ///
    /// # Errors
    /// [`AlgorithmError::SourceOutOfRange`](super::AlgorithmError); CUDA errors.
    pub fn run(&mut self, source: usize) -> crate::Result<(BfsResult, f64)> {
        #[cfg(feature = "cuda")]
        if let Some((m, v)) = &mut self.gpu {
            let (levels, seconds) = timed(|| super::bfs_levels(m, v, source, &self.opts))?;
            return Ok((levels.result::<DeviceMatrix<f64>>(v)?, seconds));
        }
        timed(|| Ok(bfs_matrix(self.a, source, &self.opts)?))
    }
}

/// Single-source shortest paths prepared on a backend (on a device: the
/// one near-far [`DeltaStepping`](super::DeltaStepping), its state made
/// once, or the frontier Bellman–Ford, as [`SsspOptions`] say).
pub struct PreparedSssp<'a> {
    a: &'a SparseMatrix<f64>,
    opts: SsspOptions,
    setup: Setup,
    #[cfg(feature = "cuda")]
    gpu: Option<GpuSsspForm>,
}

#[cfg(feature = "cuda")]
enum GpuSsspForm {
    Delta(DeviceMatrix<f64>, Box<super::DeltaStepping<DeviceMatrix<f64>>>),
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
        #[cfg(feature = "cuda")]
        let (gpu, setup) = prepare(backend, |d| {
            let m = DeviceMatrix::upload(d, a)?;
            Ok(match opts.method {
                super::SsspMethod::DeltaStepping => {
                    let ds = super::DeltaStepping::new(&m, opts.delta)?;
                    GpuSsspForm::Delta(m, Box::new(ds))
                }
                super::SsspMethod::BellmanFord => GpuSsspForm::BellmanFord(m),
            })
        })?;
        #[cfg(not(feature = "cuda"))]
        let setup = prepare(backend)?;
        Ok(PreparedSssp {
            a,
            opts: *opts,
            setup,
            #[cfg(feature = "cuda")]
            gpu,
        })
    }

    /// Distances from `source` (as the CPU's [`sssp_matrix`]) and the
    /// algorithm's seconds.
    ///
    /// # Errors
    /// [`AlgorithmError::SourceOutOfRange`](super::AlgorithmError),
    /// [`AlgorithmError::DistanceOverflow`](super::AlgorithmError) (checked
    /// on the host for the device's result too); CUDA errors.
    pub fn run(&mut self, source: usize) -> crate::Result<(SsspResult, f64)> {
        #[cfg(feature = "cuda")]
        {
            let device = match &mut self.gpu {
                Some(GpuSsspForm::Delta(m, ds)) => {
                    // the relaxation loop timed, the download of the distances not
                    let (rounds, seconds) = timed(|| ds.relax_from(m, source))?;
                    let r = SsspResult { distances: ds.distances()?, rounds, delta: Some(ds.delta()) };
                    Some((r, seconds))
                }
                Some(GpuSsspForm::BellmanFord(m)) => {
                    let opts = crate::matrix::SpmspvOptions::default();
                    Some(timed(|| super::bellman_ford_in(m, source, &opts))?)
                }
                None => None,
            };
            if let Some(out) = device {
                super::sssp::check_overflow(self.a, &out.0.distances)?;
                return Ok(out);
            }
        }
        timed(|| Ok(sssp_matrix(self.a, source, &self.opts)?))
    }
}

/// Triangle counting prepared on a backend (on a device: the degree-ordered
/// lower triangle `L` built, uploaded with its mask, and the masked
/// product's kernels loaded).
pub struct PreparedTriangles<'a> {
    a: &'a SparseMatrix<f64>,
    setup: Setup,
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
        #[cfg(feature = "cuda")]
        let (gpu, setup) = prepare(backend, |d| {
            let l = super::triangles::lower_by_degree(a);
            let dl = DeviceMatrix::upload(d, &l)?;
            let mask = DeviceMatrixMask::upload(d, &crate::matrix::MatrixMask::structural(&l))?;
            let sr = crate::semirings::PlusPair::<bool, bool, u64>::new();
            crate::matrix::gpu::prepare_mxm(d, sr, dl.index_width())?;
            Ok((dl, mask))
        })?;
        #[cfg(not(feature = "cuda"))]
        let setup = prepare(backend)?;
        Ok(PreparedTriangles {
            a,
            setup,
            #[cfg(feature = "cuda")]
            gpu,
        })
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
            return timed(|| super::triangles_in(l, mask, super::TriangleForm::Auto));
        }
        timed(|| Ok(triangle_count_matrix(self.a)?))
    }
}
