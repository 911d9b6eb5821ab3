//! The masked matrix product in both forms, [`GpuMxmStrategy`]: dot
//! products at the mask's positions (`ops::mxm_dot_device`) or Gustavson by
//! rows with a hash accumulator (`kernels/graphblas_mxm_hash.cu`), and the
//! automatic choice between them from their operation counts, measured on
//! the device.

use super::device_index::Idx;
use super::index::IndexWidth;
use super::kernels::{hash_source_for, KernelKey, HASH_KERNELS};
use super::objects::{download, same_width, upload, zeros, DeviceCompressed, DeviceMatrix, DeviceMatrixMask};
use super::sparse_build::{build_kernels, Build};
use super::loaded::{check_operand, check_output};
use super::ops::same_device;
use super::{GpuElement, GpuMxmStrategy};
use crate::cuda::device::{check, Device};
use crate::cuda::CudaError;
use crate::matrix::{check_dim, Descriptor};
use crate::semirings::Semiring;
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

/// Slots of a row's hash table in shared memory (`GBH_SLOTS` of the kernel).
const SHARED_SLOTS: usize = 256;
/// Warps (rows) per block of `gbh_mxm` (`GBH_WARPS`).
const WARPS: u32 = 4;

/// The hash-product kernels of semiring `s` (`gbh_costs`, `gbh_mxm`).
fn hash_kernels<S: Semiring>(dev: &Device, s: &S, w: IndexWidth) -> Result<(Vec<CudaFunction>, KernelKey), CudaError> {
    let c = s.cuda();
    let key = KernelKey::of(s, w);
    if key.semiring.starts_with("gf") {
        return Err(CudaError::InvalidParameter(format!(
            "semiring {} has no GPU GraphBLAS form yet; use the CPU backend",
            key.semiring
        )));
    }
    let src = hash_source_for(&c, w);
    let module = format!("graphblas_hash_{}", &key.module(&src)["graphblas_".len()..]);
    Ok((dev.module_functions(&src, &module, &HASH_KERNELS)?, key))
}

/// The operands of one product `C⟨M⟩ = A B'`: the rows of `A`, of `B'` and
/// of `B'ᵀ` (the columns of `B'`), after the shape checks.
pub(super) struct Operands<'a, TA: GpuElement, TB: GpuElement> {
    pub(super) a: &'a DeviceCompressed<TA>,
    /// The entries of `A`.
    pub(super) a_nnz: usize,
    pub(super) b_rows: &'a DeviceCompressed<TB>,
    pub(super) b_cols: &'a DeviceCompressed<TB>,
    pub(super) nrows: usize,
    ncols: usize,
    pub(super) width: IndexWidth,
}

pub(super) fn operands<'a, TA: GpuElement, TB: GpuElement>(
    mask: &DeviceMatrixMask,
    a: &'a DeviceMatrix<TA>,
    b: &'a DeviceMatrix<TB>,
    desc: &Descriptor,
) -> crate::Result<Operands<'a, TA, TB>> {
    // the rows of Aᵀ are the columns of A: its CSC
    let (a_rows, (nrows, a_inner)) = a.oriented(desc.transpose_first);
    let (b_rows, b_cols, inner, ncols) = if desc.transpose_second {
        (&b.csc, &b.csr, b.ncols(), b.nrows())
    } else {
        (&b.csr, &b.csc, b.nrows(), b.ncols())
    };
    check_dim("gpu mxm", "B", a_inner, inner)?;
    check_dim("gpu mxm", "mask rows", nrows, mask.nrows)?;
    check_dim("gpu mxm", "mask columns", ncols, mask.ncols)?;
    same_device(&a.dev, &b.dev)?;
    let width = a.index_width();
    same_width("gpu mxm", "B", b.index_width(), width)?;
    same_width("gpu mxm", "the mask", mask.index_width(), width)?;
    Ok(Operands { a: a_rows, a_nnz: a.nnz(), b_rows, b_cols, nrows, ncols, width })
}

/// Per-row products (`flops[i] = Σ_{k ∈ A(i,:)} |B(k,:)|`, on the device)
/// and the two forms' operation counts `[dot, hash]` (see [`GpuMxmStrategy::choose`]).
fn costs<TA: GpuElement, TB: GpuElement>(
    dev: &Device,
    k: &[CudaFunction],
    mask: &DeviceMatrixMask,
    a: &DeviceCompressed<TA>,
    b_rows: &DeviceCompressed<TB>,
    b_cols: &DeviceCompressed<TB>,
    nrows: usize,
) -> Result<(Idx, [u64; 2]), CudaError> {
    let st = &dev.stream;
    let w = a.ptr.width();
    let mut flops = Idx::zeros(st, w, nrows)?;
    let mut c = zeros::<u64>(st, 2)?;
    if nrows > 0 {
        let n32 = w.val(nrows);
        let mut lb = st.launch_builder(&k[0]);
        lb.arg(&n32).arg(&a.ptr).arg(&a.ind).arg(&b_rows.ptr).arg(&b_cols.ptr).arg(&mask.ptr).arg(&mask.ind);
        lb.arg(&mut flops).arg(&mut c);
        // SAFETY: matches gbh_costs(nrows, aptr, aind, bptr, btptr, mptr, mind, flops, costs): A has
        // nrows rows whose columns index the rows of B'; the mask's columns index the rows of B'ᵀ
        // (checked shapes); flops holds nrows entries, costs 2.
        check("launching gbh_costs", || unsafe { lb.launch(super::scan::grid(dev, nrows)) })?;
    }
    let h = download(st, "downloading the product's costs", &c, 2)?;
    Ok((flops, [h[0], h[1]]))
}

/// The operation counts `[dot, hash]` of `C⟨M⟩ = A ⊕.⊗ B` (with `Bᵀ` by
/// `desc`), measured on the device: what [`GpuMxmStrategy::choose`] compares.
///
/// # Errors
/// As `matrix::mxm` (device operands).
pub fn mxm_masked_costs<S, TA, TB>(
    mask: &DeviceMatrixMask,
    s: S,
    a: &DeviceMatrix<TA>,
    b: &DeviceMatrix<TB>,
    desc: &Descriptor,
) -> crate::Result<[u64; 2]>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    let o = operands(mask, a, b, desc)?;
    let dev = &a.dev.dev;
    let (k, _) = hash_kernels(dev, &s, o.width)?;
    Ok(costs(dev, &k, mask, o.a, o.b_rows, o.b_cols, o.nrows)?.1)
}

/// What the hash kernel left on the device.
pub(super) enum HashOut<C: GpuElement> {
    /// Plain mask: a value and a presence byte per mask position.
    Positions { val: CudaSlice<C>, pres: CudaSlice<u8> },
    /// Complemented mask: row `i`'s entries (unordered) from `off[i]`,
    /// `count[i]` of them (`nrows + 1` counts, the last 0).
    Rows { off: CudaSlice<u64>, total: usize, count: Idx, ind: Idx, val: CudaSlice<C>, pres: CudaSlice<u8> },
}

/// The product by the hash form; `flops` from [`costs`] (needed for a complemented mask).
fn hash_product<S, TA, TB>(
    dev: &Device,
    k: &[CudaFunction],
    mask: &DeviceMatrixMask,
    o: &Operands<'_, TA, TB>,
    flops: Option<&Idx>,
) -> Result<HashOut<S::C>, CudaError>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    let st = &dev.stream;
    let n = o.nrows;
    let comp = mask.complement;
    // the most entries each row can produce (complemented) and its table size
    let flops_h = match (comp, flops) {
        (true, Some(f)) => f.download(st, "downloading the row products", n)?,
        (true, None) => return Err(CudaError::InvalidParameter("the hash product needs its row costs".into())),
        (false, _) => Vec::new(),
    };
    let iw = o.width;
    let (mut tsz, mut goff, mut ooff) = (vec![0usize; n], vec![0u64; n], vec![0u64; if comp { n } else { 0 }]);
    let (mut gtotal, mut ototal) = (0u64, 0u64);
    for i in 0..n {
        let listed = mask.host_ptr[i + 1] - mask.host_ptr[i];
        let out = if comp { flops_h[i].min(o.ncols) } else { 0 };
        let cap = if comp { listed + out } else { listed };
        if comp {
            ooff[i] = ototal;
            ototal += out as u64;
        }
        if cap == 0 || (comp && out == 0) {
            continue;
        }
        let size = (2 * cap).next_power_of_two().max(32);
        if iw == IndexWidth::U32 && size > u32::MAX as usize / 2 {
            return Err(CudaError::InvalidParameter(format!(
                "row {i} of the masked product needs a hash table of {size} slots; upload the operands \
                 with IndexWidth::U64, or use the CPU backend"
            )));
        }
        tsz[i] = size;
        if size > SHARED_SLOTS {
            goff[i] = gtotal;
            gtotal += size as u64;
        }
    }
    let gtotal = gtotal as usize;
    let tsz_d = Idx::upload(st, iw, "uploading table sizes", &tsz)?;
    let goff_d = upload(st, "uploading table offsets", &goff)?;
    let ooff_d = upload(st, "uploading output offsets", &ooff)?;
    let mut gkey = Idx::zeros(st, iw, gtotal)?;
    let mut gaux = Idx::zeros(st, iw, gtotal)?;
    let mut gval = zeros::<S::C>(st, gtotal)?;
    let (pn, on) = if comp { (0, ototal as usize) } else { (mask.nnz, 0) };
    // the rows' entries are numbered in the width of the indices
    iw.check_fits("gpu mxm", &["the product's candidate entries"], &[on])?;
    let mut cval = zeros::<S::C>(st, pn)?;
    let mut cpres = zeros::<u8>(st, pn)?;
    let mut oind = Idx::zeros(st, iw, on)?;
    let mut oval = zeros::<S::C>(st, on)?;
    let mut opres = zeros::<u8>(st, on)?;
    // one more count than rows: the scan of the counts gives the row pointers
    let mut ocount = Idx::zeros(st, iw, if comp { n + 1 } else { 0 })?;
    if n > 0 {
        let (n32, comp32) = (iw.val(n), comp as i32);
        let blocks = (n as u32).div_ceil(WARPS).clamp(1, (dev.info.multiprocessors * 16) as u32);
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (WARPS * 32, 1, 1), shared_mem_bytes: 0 };
        let mut lb = st.launch_builder(&k[1]);
        lb.arg(&n32).arg(&o.a.ptr).arg(&o.a.ind).arg(&o.a.val).arg(&o.b_rows.ptr).arg(&o.b_rows.ind);
        lb.arg(&o.b_rows.val).arg(&mask.ptr).arg(&mask.ind).arg(&comp32).arg(&tsz_d).arg(&goff_d);
        lb.arg(&mut gkey).arg(&mut gaux).arg(&mut gval).arg(&mut cval).arg(&mut cpres);
        lb.arg(&ooff_d).arg(&mut oind).arg(&mut oval).arg(&mut opres).arg(&mut ocount);
        // SAFETY: matches gbh_mxm (same parameter order); A has n rows whose columns index the rows
        // of B', the mask's columns are below B''s columns (checked shapes); a row's global table
        // [goff, goff + tsz) lies within the gtotal slots when tsz > GBH_SLOTS, and holds at least
        // twice the keys the row inserts; cval/cpres hold the mask's positions (plain mask), and
        // row i's outputs [ooff[i], ooff[i] + min(flops[i], ncols)) lie within oind/oval/opres
        // (complemented; ocount zeroed).
        check("launching gbh_mxm", || unsafe { lb.launch(cfg) })?;
    }
    Ok(if comp {
        HashOut::Rows { off: ooff_d, total: on, count: ocount, ind: oind, val: oval, pres: opres }
    } else {
        HashOut::Positions { val: cval, pres: cpres }
    })
}

/// The form to run: `strategy`, or for `Auto` the hash form on a
/// complemented mask, else [`GpuMxmStrategy::choose`] on the measured counts.
/// Returns it and the row products when measured.
#[allow(clippy::type_complexity)]
pub(super) fn resolve<TA: GpuElement, TB: GpuElement>(
    dev: &Device,
    k: &[CudaFunction],
    mask: &DeviceMatrixMask,
    o: &Operands<'_, TA, TB>,
    strategy: GpuMxmStrategy,
) -> Result<(GpuMxmStrategy, Option<Idx>), CudaError> {
    if strategy == GpuMxmStrategy::Dot && mask.complement {
        return Err(CudaError::InvalidParameter(
            "the dot form of the GPU masked product takes no complemented mask; use GpuMxmStrategy::Hash".into(),
        ));
    }
    let measure = mask.complement || strategy == GpuMxmStrategy::Auto;
    let (flops, c) = if measure {
        let (f, c) = costs(dev, k, mask, o.a, o.b_rows, o.b_cols, o.nrows)?;
        (Some(f), c)
    } else {
        (None, [0, 0])
    };
    let st = match strategy {
        GpuMxmStrategy::Auto if mask.complement => GpuMxmStrategy::Hash,
        GpuMxmStrategy::Auto => GpuMxmStrategy::choose(c[0], c[1]),
        st => st,
    };
    Ok((st, flops))
}

/// The hash form's result on the device, with its operands.
pub(super) type Planned<'a, C, TA, TB> = (Operands<'a, TA, TB>, HashOut<C>);

/// The checks, kernels and choice shared by `matrix::mxm` (device operands) and
/// [`reduce_mxm_masked`](super::mxm_reduce::reduce_mxm_masked): `None` for the dot form (not run yet), else the
/// hash form's result on the device with its operands.
pub(super) fn plan<'a, S, TA, TB>(
    mask: &DeviceMatrixMask,
    s: &S,
    a: &'a DeviceMatrix<TA>,
    b: &'a DeviceMatrix<TB>,
    desc: &Descriptor,
    strategy: GpuMxmStrategy,
) -> crate::Result<Option<Planned<'a, S::C, TA, TB>>>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    let o = operands(mask, a, b, desc)?;
    let dev = &a.dev.dev;
    let k = checked_kernels::<S, TA, TB>(dev, s, o.width)?;
    let (st, flops) = resolve(dev, &k, mask, &o, strategy)?;
    if st == GpuMxmStrategy::Dot {
        return Ok(None);
    }
    let out = hash_product::<S, TA, TB>(dev, &k, mask, &o, flops.as_ref())?;
    Ok(Some((o, out)))
}

pub(super) fn checked_kernels<S, TA, TB>(dev: &Device, s: &S, w: IndexWidth) -> crate::Result<Vec<CudaFunction>>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    let (k, key) = hash_kernels(dev, s, w)?;
    check_operand::<TA>("A", key.read_a, &key.a, &key.semiring)?;
    check_operand::<TB>("B", key.read_b, &key.b, &key.semiring)?;
    check_output::<S::C>(&key)?;
    Ok(k)
}

/// A product's CSR on the device.
pub(crate) struct DeviceProduct<C: GpuElement> {
    /// The rows of `C`, sorted.
    pub(crate) csr: DeviceCompressed<C>,
    /// Its number of entries.
    pub(crate) nnz: usize,
    /// The kernels that built it (they build its CSC too).
    pub(crate) build: Build,
}

/// `matrix::mxm` (device operands) leaving `C` on the device, as a CSR in the mask's shape.
/// The dot form and the hash form under a plain mask leave a value and a
/// presence byte per mask position, compacted in the mask's (sorted) order;
/// the hash form under a complemented mask (an unmasked product: the
/// complement of the empty mask) leaves each row's entries unordered, moved
/// to their rows and sorted by column.
pub(crate) fn mxm_device<S, TA, TB>(
    mask: &DeviceMatrixMask,
    s: S,
    a: &DeviceMatrix<TA>,
    b: &DeviceMatrix<TB>,
    desc: &Descriptor,
    strategy: GpuMxmStrategy,
) -> crate::Result<(DeviceProduct<S::C>, GpuMxmStrategy)>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    let dev = &a.dev.dev;
    let build = build_kernels(dev, a.index_width())?;
    let ((csr, nnz), ran) = match plan(mask, &s, a, b, desc, strategy)? {
        None => {
            let (val, pres) = super::ops::mxm_dot_device(mask, s, a, b, desc)?;
            (build.positions(dev, mask, &val, &pres)?, GpuMxmStrategy::Dot)
        }
        Some((_, HashOut::Positions { val, pres })) => (build.positions(dev, mask, &val, &pres)?, GpuMxmStrategy::Hash),
        Some((o, HashOut::Rows { off, count, ind, val, .. })) => {
            (build.rows(dev, o.nrows, &off, &count, &ind, &val)?, GpuMxmStrategy::Hash)
        }
    };
    Ok((DeviceProduct { csr, nnz, build }, ran))
}

/// Compiles (once per process) and loads (once per device) the kernels of
/// both forms of the masked product over semiring `s` with indices of
/// width `w`, so that a timed product that follows pays no JIT.
///
/// # Errors
/// The finite-field semirings (no device form); NVRTC and driver errors.
pub fn prepare_mxm<S: Semiring>(dev: &crate::cuda::GpuDevice, s: S, w: IndexWidth) -> crate::Result<()> {
    super::semiring_kernels(&dev.dev, &s, w)?;
    hash_kernels(&dev.dev, &s, w)?;
    super::scan::util_kernels(&dev.dev, w)?;
    Ok(())
}
