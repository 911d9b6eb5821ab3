//! The moment series of the geometric random-walk kernel on the GPU
//! (`kernels/rw_series.cu`): per graph, the Collatz–Wielandt bounds of
//! [`RandomWalkKernel::spectral_radius_bounds`](crate::mgk::RandomWalkKernel::spectral_radius_bounds)
//! (one warp per graph, the CPU's power steps, rounded as the CPU rounds)
//! and the scaled moments `m_k / ρ̂^k = 1ᵀ (W/ρ̂)^k 1`; per pair, the
//! truncated sum `Σ_k r^k m_k m'_k` (one thread per pair) with the CPU's
//! truncation rule, its constants passed at launch. The host side (which
//! pairs, λ checks, the fallback to the solver) is in `mgk/rw.rs`.
//!
//! Without the `cuda` feature, [`SeriesList::upload`] returns
//! [`CudaError::NotCompiled`].

use crate::backend::Precision;
use crate::cuda::CudaError;

/// The CUDA C++ source of the series kernels.
pub const SOURCE: &str = include_str!("../../../kernels/rw_series.cu");

/// The name the source is compiled (and cached) under.
#[cfg(feature = "cuda")]
const MODULE: &str = "rw_series";

/// The kernels of [`SOURCE`].
#[cfg(feature = "cuda")]
const KERNELS: [&str; 5] = ["rw_bounds", "rw_moments_f64", "rw_moments_f32", "rw_pairs_f64", "rw_pairs_f32"];

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

/// The series' constants, from `mgk/rw.rs`.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct SeriesRule {
    /// λ (unscaled).
    pub(crate) lambda: f64,
    /// The relative tail bound the number of terms is chosen for.
    pub(crate) tail: f64,
    /// The most terms before a pair is left to the solver.
    pub(crate) max_terms: usize,
    /// Moments held per graph (at least the terms of every pair + 1).
    pub(crate) held: usize,
}

#[cfg(not(feature = "cuda"))]
mod imp {
    use super::*;

    /// Without `cuda`: no value of this type exists.
    pub(crate) enum SeriesList {}

    impl SeriesList {
        /// Always [`CudaError::NotCompiled`].
        pub(crate) fn upload(_device: usize, _csr: &SeriesCsr) -> Result<(Self, Vec<(f64, f64)>), CudaError> {
            Err(CudaError::NotCompiled)
        }

        /// Unreachable.
        pub(crate) fn gram(&self, _y: Option<&Self>, _rule: SeriesRule, _p: Precision) -> Result<Vec<f64>, CudaError> {
            match *self {}
        }
    }
}

#[cfg(feature = "cuda")]
mod imp {
    use super::*;
    use crate::cuda::device::{check, device, Device};
    use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
    use std::sync::Arc;

    const BLOCK: u32 = 128;
    /// Graphs per block of the per-graph kernels (one warp each).
    const WARPS: usize = BLOCK as usize / 32;

    /// A list of graphs on the device with their bounds.
    pub(crate) struct SeriesList {
        dev: Arc<Device>,
        graphs: usize,
        nodes: usize,
        node_off: CudaSlice<i64>,
        ptr: CudaSlice<i64>,
        idx: CudaSlice<i32>,
        w: CudaSlice<f64>,
        hi: CudaSlice<f64>,
        exp: CudaSlice<i32>,
    }

    fn functions(dev: &Device) -> Result<Vec<CudaFunction>, CudaError> {
        dev.module_functions(SOURCE, MODULE, &KERNELS)
    }

    fn grid(dev: &Device, items: usize, per_block: usize) -> LaunchConfig {
        let g = items.div_ceil(per_block).clamp(1, dev.info.multiprocessors * 32) as u32;
        LaunchConfig { grid_dim: (g, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    }

    impl SeriesList {
        /// Uploads `csr` to device `device` and computes each graph's bounds
        /// `(lo, hi)` there (returned, in order).
        ///
        /// # Errors
        /// Driver or NVRTC errors.
        pub(crate) fn upload(device_ordinal: usize, csr: &SeriesCsr) -> Result<(Self, Vec<(f64, f64)>), CudaError> {
            let dev = device(device_ordinal)?;
            let fs = functions(&dev)?;
            let stream = &dev.stream;
            let graphs = csr.exp.len();
            let nodes = csr.ptr.len().saturating_sub(1);
            if graphs > i32::MAX as usize || csr.idx.len() > i32::MAX as usize {
                return Err(CudaError::InvalidParameter(format!(
                    "{graphs} graphs, {} stored entries: the random-walk series kernels index with 32 bits; use \
                     the CPU backend",
                    csr.idx.len()
                )));
            }
            let up_i64 =
                |what: &str, v: &[i64]| check(what, || stream.clone_htod(if v.is_empty() { &[0][..] } else { v }));
            let node_off = up_i64("uploading graph offsets", &csr.node_off)?;
            let ptr = up_i64("uploading row pointers", &csr.ptr)?;
            let idx = check("uploading column indices", || {
                stream.clone_htod(if csr.idx.is_empty() { &[0][..] } else { &csr.idx[..] })
            })?;
            let w = check("uploading weights", || {
                stream.clone_htod(if csr.w.is_empty() { &[0.0][..] } else { &csr.w[..] })
            })?;
            let exp = check("uploading exponents", || {
                stream.clone_htod(if csr.exp.is_empty() { &[0][..] } else { &csr.exp[..] })
            })?;
            let mut v = check("allocating vectors", || stream.alloc_zeros::<f64>(nodes.max(1)))?;
            let mut t = check("allocating vectors", || stream.alloc_zeros::<f64>(nodes.max(1)))?;
            // poisoned: a graph the kernel misses shows as NaN
            let mut lo = check("allocating bounds", || stream.clone_htod(&vec![f64::NAN; graphs.max(1)]))?;
            let mut hi = check("allocating bounds", || stream.clone_htod(&vec![f64::NAN; graphs.max(1)]))?;
            if graphs > 0 {
                let g32 = graphs as i32;
                let mut lb = stream.launch_builder(&fs[0]);
                lb.arg(&g32)
                    .arg(&node_off)
                    .arg(&ptr)
                    .arg(&idx)
                    .arg(&w)
                    .arg(&mut v)
                    .arg(&mut t)
                    .arg(&mut lo)
                    .arg(&mut hi);
                // SAFETY: the arguments match rw_bounds's parameters; offsets
                // and pointers index within the uploaded arrays, v and t hold
                // every node.
                check("launching rw_bounds", || unsafe { lb.launch(grid(&dev, graphs, WARPS)) })?;
            }
            let lo_h = check("downloading bounds", || stream.clone_dtoh(&lo))?;
            let hi_h = check("downloading bounds", || stream.clone_dtoh(&hi))?;
            let bounds = lo_h.into_iter().zip(hi_h).take(graphs).collect();
            Ok((SeriesList { dev, graphs, nodes, node_off, ptr, idx, w, hi, exp }, bounds))
        }

        /// Moments `m_k / ρ̂^k`, `k < held`, of every graph, in `precision`.
        fn moments<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
            &self,
            f: &CudaFunction,
            held: usize,
        ) -> Result<CudaSlice<T>, CudaError> {
            let stream = &self.dev.stream;
            let mut v = check("allocating vectors", || stream.alloc_zeros::<T>(self.nodes.max(1)))?;
            let mut t = check("allocating vectors", || stream.alloc_zeros::<T>(self.nodes.max(1)))?;
            let mut m = check("allocating moments", || stream.alloc_zeros::<T>((self.graphs * held).max(1)))?;
            if self.graphs > 0 {
                let (g32, h32) = (self.graphs as i32, held as i32);
                let mut lb = stream.launch_builder(f);
                lb.arg(&g32)
                    .arg(&h32)
                    .arg(&self.node_off)
                    .arg(&self.ptr)
                    .arg(&self.idx)
                    .arg(&self.w)
                    .arg(&self.hi)
                    .arg(&mut v)
                    .arg(&mut t)
                    .arg(&mut m);
                // SAFETY: as in `upload`; m holds graphs × held values.
                check("launching rw_moments", || unsafe { lb.launch(grid(&self.dev, self.graphs, WARPS)) })?;
            }
            Ok(m)
        }

        /// The series values of every pair `(a, b)` of this list and `y`
        /// (this list itself when `None`), row-major; `−1` where a pair
        /// needs more terms than `rule` allows (the host solves those).
        ///
        /// # Errors
        /// Driver or NVRTC errors.
        pub(crate) fn gram(
            &self,
            y: Option<&Self>,
            rule: SeriesRule,
            precision: Precision,
        ) -> Result<Vec<f64>, CudaError> {
            match precision {
                Precision::F64 => self.gram_in::<f64>(y, rule, 1),
                Precision::F32 => self.gram_in::<f32>(y, rule, 2),
            }
        }

        fn gram_in<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
            &self,
            y: Option<&Self>,
            rule: SeriesRule,
            kernel: usize,
        ) -> Result<Vec<f64>, CudaError> {
            let fs = functions(&self.dev)?;
            let stream = &self.dev.stream;
            let mx = self.moments::<T>(&fs[kernel], rule.held)?;
            let my = match y {
                Some(y) => Some(y.moments::<T>(&fs[kernel], rule.held)?),
                None => None,
            };
            let yl = y.unwrap_or(self);
            let total = self.graphs * yl.graphs;
            if total == 0 {
                return Ok(Vec::new());
            }
            let mut out = check("allocating the Gram matrix", || stream.clone_htod(&vec![f64::NAN; total]))?;
            let (nx, ny, held, maxt) = (self.graphs as i32, yl.graphs as i32, rule.held as i32, rule.max_terms as i32);
            let mut lb = stream.launch_builder(&fs[kernel + 2]);
            lb.arg(&nx)
                .arg(&ny)
                .arg(&held)
                .arg(&rule.lambda)
                .arg(&rule.tail)
                .arg(&maxt)
                .arg(&mx)
                .arg(&self.hi)
                .arg(&self.exp)
                .arg(my.as_ref().unwrap_or(&mx))
                .arg(&yl.hi)
                .arg(&yl.exp)
                .arg(&mut out);
            // SAFETY: the arguments match rw_pairs's parameters; moments hold
            // graphs × held values, out nx × ny.
            check("launching rw_pairs", || unsafe { lb.launch(grid(&self.dev, total, BLOCK as usize)) })?;
            check("downloading the Gram matrix", || stream.clone_dtoh(&out))
        }
    }
}

pub(crate) use self::imp::SeriesList;
