//! The lazy Kronecker product on the device: the generic
//! [`KronProduct`](crate::kron::KronProduct)'s twin over device-resident
//! octile graphs, a [`LinOp`] over [`DeviceVec`], so that the solvers of
//! [`crate::solver`] (and a user's own iteration) run on the GPU.
//!
//! [`DeviceKronSet`] uploads graphs once, packed into octiles as the
//! marginalized graph kernel packs them, and loads the product kernel
//! generated for the edge kernel's CUDA expression: the `_xmv` kernel of the
//! MGK's single-large-pair module (`kernels/mgk_large.cu`, code generation
//! in [`codegen`](super::codegen)), one warp per pair of non-empty octiles.
//! [`DeviceKron`] is one pair `(G, G')` of a set: `y ← y + α A× x` with
//! `A×[(i,i'),(j,j')] = W_ij W'_i'j' κe(e_ij, e'_i'j')`, product node
//! `(i, i')` at `i·n' + i'`, as on the CPU. [`DeviceShiftedKron`] is the
//! system operator `diag(d) − s A×`.

use super::codegen::mgk_large_source;
use super::large::{PairInfo, BLOCK};
use super::pack::pack_graphs_directed;
use super::upload::{real_bytes, upload_batch, GpuGraphs};
use crate::basekernel::BaseKernel;
use crate::cuda::device::check;
use crate::cuda::{CudaError, DeviceScalar, DeviceVec, GpuDevice, GpuLabel, Precision};
use crate::graph::Graph;
use crate::kron::Unlabeled;
use crate::mgk::KronSystem;
use crate::mgk::Tuning;
use crate::solver::{LinOp, SolverError, Vector};
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// The loaded product kernel of one edge kernel and label layout, with its
/// hyperparameters on the device.
struct Module {
    xmv: CudaFunction,
    theta: CudaSlice<u8>,
    /// [`Tuning::dense_min`], a launch argument.
    dense_min: i32,
}

/// The self-loops `(node, weight, label)` of a graph.
type Loops<E> = Vec<(usize, f64, E)>;

fn self_loops<N: crate::graph::Label, E: crate::graph::Label>(g: &Graph<N, E>) -> Loops<E> {
    let (ptr, idx) = (g.indptr(), g.indices());
    (0..g.num_nodes())
        .flat_map(|i| (ptr[i]..ptr[i + 1]).filter(move |&k| idx[k] == i).map(move |k| (i, k)))
        .map(|(i, k)| (i, g.weights()[k], g.edge_labels()[k].clone()))
        .collect()
}

/// `kernel` bound to the schema of the record edge labels of `x` (and `y`),
/// as [`KronProduct::new`](crate::kron::KronProduct::new) binds it.
pub(super) fn bind_edge_kernel<N: GpuLabel, E: GpuLabel, K: BaseKernel<E>>(
    kernel: &K,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
) -> Result<K, CudaError> {
    let schema = |gs: &[Graph<N, E>]| gs.iter().find_map(|g| g.edge_labels().first()).and_then(|l| l.schema()).cloned();
    Ok(crate::kron::bind_kernel(kernel, schema(x), y.and_then(schema))
        .map_err(|source| CudaError::Kernel { which: "edge", source })?
        .into_owned())
}

/// `x` and `y` (or `x` again) packed into octiles with their weights as
/// they are (unit degrees) and uploaded; directed graphs only when
/// `directed` is set.
pub(super) fn upload_lists<N: GpuLabel, E: GpuLabel>(
    dev: &GpuDevice,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
    p: Precision,
    directed: bool,
) -> Result<(Arc<GpuGraphs>, Arc<GpuGraphs>), CudaError> {
    let system = KronSystem::random_walk(1.0);
    let a = Arc::new(upload_batch(&dev.dev, &pack_graphs_directed(x, p, &system, directed)?)?);
    let b = match y {
        Some(y) => Arc::new(upload_batch(&dev.dev, &pack_graphs_directed(y, p, &system, directed)?)?),
        None => a.clone(),
    };
    Ok((a, b))
}

fn precision_of<T: DeviceScalar>() -> Precision {
    if T::SUFFIX == "f32" {
        Precision::F32
    } else {
        Precision::F64
    }
}

/// Graphs uploaded once with the product kernel of an edge kernel: the
/// source of [`DeviceKron`] operators for any pair (graph `i` of the first
/// list, graph `j` of the second). Undirected graphs only (as the GPU
/// marginalized graph kernel); `T` is the precision of the vectors.
pub struct DeviceKronSet<T: DeviceScalar, E, K> {
    dev: GpuDevice,
    module: Arc<Module>,
    a: Arc<GpuGraphs>,
    b: Arc<GpuGraphs>,
    loops: (Vec<Loops<E>>, Option<Vec<Loops<E>>>),
    kernel: K,
    _t: std::marker::PhantomData<T>,
}

impl<T: DeviceScalar, E: GpuLabel, K: BaseKernel<E>> DeviceKronSet<T, E, K> {
    /// Uploads `x` (and `y`, when given; else pairs are taken within `x`)
    /// to `dev` and loads the product kernel generated for `kernel` (bound
    /// to record labels' schema first, as [`KronProduct::new`](crate::kron::KronProduct::new) does).
    ///
    /// # Errors
    /// [`CudaError::Kernel`] when the kernel has no CUDA form or names a
    /// field the labels do not have; [`CudaError::UnsupportedGraph`] for a
    /// directed graph; driver and compile errors.
    pub fn upload<N: GpuLabel>(
        dev: &GpuDevice,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        kernel: &K,
    ) -> Result<Self, CudaError> {
        Self::upload_tuned(dev, x, y, kernel, &Tuning::default())
    }

    /// [`upload`](Self::upload) with the product kernel generated and
    /// launched with the knobs `tuning` (`upload` takes
    /// [`Tuning::default()`], as the marginalized graph kernel does); they
    /// change speed, never values beyond rounding.
    ///
    /// # Errors
    /// As [`upload`](Self::upload); [`CudaError::InvalidParameter`] for a
    /// knob out of range ([`Tuning::validate`]).
    pub fn upload_tuned<N: GpuLabel>(
        dev: &GpuDevice,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        kernel: &K,
        tuning: &Tuning,
    ) -> Result<Self, CudaError> {
        tuning.validate().map_err(|e| CudaError::InvalidParameter(e.to_string()))?;
        Self::upload_any(dev, x, y, kernel, (false, tuning))
    }

    /// [`upload`](Self::upload), taking directed graphs too when `directed`
    /// is set (their octiles hold the arcs `i → j` at row `i`, as the CPU's,
    /// and the product applies them as they are: the random-walk series of
    /// `rw/series_gpu.rs`), with the knobs `tuning`.
    pub(crate) fn upload_any<N: GpuLabel>(
        dev: &GpuDevice,
        x: &[Graph<N, E>],
        y: Option<&[Graph<N, E>]>,
        kernel: &K,
        (directed, tuning): (bool, &Tuning),
    ) -> Result<Self, CudaError> {
        let kernel = bind_edge_kernel(kernel, x, y)?;
        let p = precision_of::<T>();
        let (a, b) = upload_lists(dev, x, y, p, directed)?;
        let src = mgk_large_source::<N, E, _, _>(&Unlabeled, &kernel, &a.node_layout, &a.edge_layout, p, tuning)?;
        let name = format!("{}_xmv", src.name);
        let xmv = dev.dev.module_functions(&src.source, &src.name, &[&name])?.remove(0);
        let mut theta = src.theta;
        theta.resize(theta.len().max(1), 0.0);
        let theta = check("uploading hyperparameters", || dev.dev.stream.clone_htod(&real_bytes(&theta, p)))?;
        let loops = (x.iter().map(self_loops).collect(), y.map(|y| y.iter().map(self_loops).collect()));
        Ok(DeviceKronSet {
            dev: dev.clone(),
            module: Arc::new(Module { xmv, theta, dense_min: i32::try_from(tuning.dense_min).unwrap_or(i32::MAX) }),
            a,
            b,
            loops,
            kernel,
            _t: std::marker::PhantomData,
        })
    }

    /// The operator of graph `i` of the first list and graph `j` of the
    /// second (of the first when no second was uploaded).
    ///
    /// # Errors
    /// [`CudaError::InvalidParameter`] for an index out of range, and from
    /// the upload of the product's diagonal (non-zero only where both
    /// graphs have self-loops).
    pub fn pair(&self, i: usize, j: usize) -> Result<DeviceKron<T>, CudaError> {
        if i >= self.a.len() || j >= self.b.len() {
            return Err(CudaError::InvalidParameter(format!(
                "pair ({i}, {j}) of graph lists of {} and {} graphs",
                self.a.len(),
                self.b.len()
            )));
        }
        let (n1, n2) = (self.a.num_nodes[i], self.b.num_nodes[j]);
        if n1.checked_mul(n2).is_none_or(|n| n > i32::MAX as usize) {
            return Err(CudaError::PairTooLarge {
                n1,
                n2,
                needed: n1.saturating_mul(n2),
                available: i32::MAX as usize,
            });
        }
        let lb = self.loops.1.as_ref().unwrap_or(&self.loops.0);
        let (la, lb) = (&self.loops.0[i], &lb[j]);
        let diag = if la.is_empty() || lb.is_empty() {
            None
        } else {
            let mut d = vec![T::zero(); n1 * n2];
            for (u, wu, eu) in la {
                for (v, wv, ev) in lb {
                    d[u * n2 + v] += T::of_f64(wu * wv * self.kernel.value(eu, ev));
                }
            }
            Some(DeviceVec::from_host(&self.dev, &d)?)
        };
        Ok(DeviceKron {
            dev: self.dev.clone(),
            module: self.module.clone(),
            a: self.a.clone(),
            b: self.b.clone(),
            info: PairInfo::of(&self.a, i, &self.b, j),
            dims: (n1, n2),
            tile_pairs: self.a.num_tiles[i] as u64 * self.b.num_tiles[j] as u64,
            diag,
            _t: std::marker::PhantomData,
        })
    }

    /// The device the graphs are on.
    pub fn device(&self) -> &GpuDevice {
        &self.dev
    }
}

/// The lazy `A× = (W ⊗ W') ⊙ κe(E, E')` of one pair on the device (from
/// [`DeviceKronSet::pair`] or [`DeviceKron::of_pair`]): a [`LinOp`] over
/// [`DeviceVec`], applied in `O(nnz·nnz')` work by the generated kernel,
/// never stored.
///
/// # Examples
/// A user's Chebyshev iteration over the device product is in
/// `tests/kron_gpu.rs`; the solvers run on it as on the CPU product:
/// ```no_run
/// use kronograph::cuda::{DeviceVec, GpuDevice};
/// use kronograph::graph::{Direction, GraphBuilder};
/// use kronograph::kron::{DeviceKron, DeviceShiftedKron, Unlabeled};
/// use kronograph::solver::{cg, CgParams, Workspace};
/// let g = GraphBuilder::<(), ()>::new(3, Direction::Undirected)
///     .node_labels(vec![(); 3]).edge(0, 1, 1.0, ()).edge(1, 2, 1.0, ()).build()?;
/// let dev = GpuDevice::open(0)?;
/// let kron = DeviceKron::<f64>::of_pair(&dev, &g, &g, &Unlabeled)?;
/// let d = DeviceVec::from_host(&dev, &vec![4.0; 9])?;
/// let op = DeviceShiftedKron::new(&d, 1.0, &kron)?; // diag(d) − A×
/// let b = DeviceVec::from_host(&dev, &vec![1.0; 9])?;
/// let mut x = DeviceVec::zeros(&dev, 9)?;
/// let mut ws = Workspace::with_vectors(|| DeviceVec::zeros(&dev, 0).expect("allocation"));
/// cg(&op, &b, &mut x, &CgParams::default(), &mut ws)?;
/// println!("{:?}", x.to_host()?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DeviceKron<T: DeviceScalar> {
    dev: GpuDevice,
    module: Arc<Module>,
    a: Arc<GpuGraphs>,
    b: Arc<GpuGraphs>,
    info: PairInfo,
    dims: (usize, usize),
    tile_pairs: u64,
    diag: Option<DeviceVec<T>>,
    _t: std::marker::PhantomData<T>,
}

impl<T: DeviceScalar> std::fmt::Debug for DeviceKron<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceKron").field("device", &self.dev.info().ordinal).field("nodes", &self.dims).finish()
    }
}

impl<T: DeviceScalar, E, K> std::fmt::Debug for DeviceKronSet<T, E, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceKronSet")
            .field("device", &self.dev.info().ordinal)
            .field("graphs", &(self.a.len(), self.b.len()))
            .finish()
    }
}

impl<T: DeviceScalar> std::fmt::Debug for DeviceShiftedKron<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceShiftedKron").field("scale", &self.scale).field("kron", self.kron).finish()
    }
}

impl<T: DeviceScalar> DeviceKron<T> {
    /// The product of `g` and `h` with edge kernel `kernel` (uploads both;
    /// for many pairs use [`DeviceKronSet`]).
    ///
    /// # Errors
    /// As [`DeviceKronSet::upload`].
    pub fn of_pair<N: GpuLabel, E: GpuLabel, K: BaseKernel<E>>(
        dev: &GpuDevice,
        g: &Graph<N, E>,
        h: &Graph<N, E>,
        kernel: &K,
    ) -> Result<Self, CudaError> {
        DeviceKronSet::<T, E, K>::upload(dev, std::slice::from_ref(g), Some(std::slice::from_ref(h)), kernel)?
            .pair(0, 0)
    }

    /// The number of product nodes `n·n'`.
    pub fn dim(&self) -> usize {
        self.dims.0 * self.dims.1
    }

    /// The numbers of nodes `(n, n')` of the two graphs.
    pub fn num_nodes(&self) -> (usize, usize) {
        self.dims
    }

    /// The device.
    pub fn device(&self) -> &GpuDevice {
        &self.dev
    }

    /// `y ← y + α A× x` (`x`, `y` of length [`dim`](Self::dim)).
    ///
    /// # Errors
    /// [`CudaError::InvalidParameter`] for vectors of another length, and a
    /// kept error of an earlier vector operation or the launch's.
    pub fn apply_add(&self, alpha: f64, x: &DeviceVec<T>, y: &mut DeviceVec<T>) -> Result<(), CudaError> {
        let n = self.dim();
        if x.len() != n || y.len() != n {
            return Err(CudaError::InvalidParameter(format!(
                "Kronecker product vectors of {} and {} entries, expected {n}",
                x.len(),
                y.len()
            )));
        }
        y.check()?;
        if self.tile_pairs == 0 {
            return Ok(());
        }
        let sms = self.dev.info().multiprocessors as u32;
        let grid = (self.tile_pairs.div_ceil((BLOCK / 32) as u64) as u32).clamp(1, sms * 32);
        let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        let alpha = T::of_f64(alpha);
        let m = &*self.module;
        let mut lb = self.dev.dev.stream.launch_builder(&m.xmv);
        lb.arg(&self.a.set).arg(&self.b.set).arg(&self.info).arg(&m.theta).arg(&m.dense_min).arg(&alpha);
        lb.arg(x.buf()).arg(y.buf_mut());
        // SAFETY: the arguments match `_xmv` in kernels/mgk_large.cu; the graph
        // sets outlive the launch (held by `self`), x and y hold n reals of the
        // kernel's precision (checked above).
        check("launching the device Kronecker product", || unsafe { lb.launch(cfg) }.map(|_| ()))
    }

    /// `d ← d + α diag(A×)` (non-zero only where both graphs have
    /// self-loops).
    ///
    /// # Errors
    /// As [`apply_add`](Self::apply_add).
    pub fn diagonal_add(&self, alpha: f64, d: &mut DeviceVec<T>) -> Result<(), CudaError> {
        if let Some(diag) = &self.diag {
            d.axpy(alpha, diag);
        }
        d.check()
    }
}

/// A [`CudaError`] as the solvers report an operator's failure.
fn op_err(e: CudaError) -> SolverError {
    SolverError::Operator(Box::new(e))
}

impl<T: DeviceScalar> LinOp<DeviceVec<T>> for DeviceKron<T> {
    fn nrows(&self) -> usize {
        self.dim()
    }
    fn ncols(&self) -> usize {
        self.dim()
    }
    fn apply(&self, x: &DeviceVec<T>, y: &mut DeviceVec<T>) -> Result<(), SolverError> {
        y.fill(T::zero());
        self.apply_add(1.0, x, y).map_err(op_err)
    }
    fn diagonal(&self, d: &mut DeviceVec<T>) -> Result<bool, SolverError> {
        d.resize(self.dim());
        d.fill(T::zero());
        self.diagonal_add(1.0, d).map_err(op_err)?;
        Ok(true)
    }
}

/// The system operator `diag(d) − s A×` on the device (the twin of
/// [`ShiftedKron`](crate::kron::ShiftedKron)), with its diagonal
/// `d − s diag(A×)` for Jacobi preconditioning.
pub struct DeviceShiftedKron<'a, T: DeviceScalar> {
    diag: &'a DeviceVec<T>,
    scale: f64,
    kron: &'a DeviceKron<T>,
}

impl<'a, T: DeviceScalar> DeviceShiftedKron<'a, T> {
    /// `diag(d) − scale · kron`.
    ///
    /// # Errors
    /// [`SolverError::DimensionMismatch`] when `d` does not have
    /// `kron.dim()` entries.
    pub fn new(d: &'a DeviceVec<T>, scale: f64, kron: &'a DeviceKron<T>) -> Result<Self, SolverError> {
        if d.len() != kron.dim() {
            return Err(SolverError::DimensionMismatch {
                what: "DeviceShiftedKron diagonal",
                expected: kron.dim(),
                found: d.len(),
            });
        }
        Ok(DeviceShiftedKron { diag: d, scale, kron })
    }
}

impl<T: DeviceScalar> LinOp<DeviceVec<T>> for DeviceShiftedKron<'_, T> {
    fn nrows(&self) -> usize {
        self.kron.dim()
    }
    fn ncols(&self) -> usize {
        self.kron.dim()
    }
    fn apply(&self, x: &DeviceVec<T>, y: &mut DeviceVec<T>) -> Result<(), SolverError> {
        y.mul_elems(x, self.diag);
        self.kron.apply_add(-self.scale, x, y).map_err(op_err)
    }
    fn diagonal(&self, d: &mut DeviceVec<T>) -> Result<bool, SolverError> {
        d.resize(self.kron.dim());
        d.copy_from(self.diag);
        self.kron.diagonal_add(-self.scale, d).map_err(op_err)?;
        Ok(true)
    }
}
