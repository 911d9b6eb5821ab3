//! The operations: pull mxv/vxm, SpMSpV with three merge strategies,
//! masked dot-product mxm, reductions.

use super::device_index::Idx;
use super::index::IndexWidth;
pub(crate) use super::loaded::{semiring_kernels, SemiringKernels};
use super::loaded::{check_operand, check_output};
use super::objects::{same_width, DeviceSparseVector};
use super::objects::{zeros, DeviceCompressed, DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask};
use super::scan::{exclusive_scan, grid, util_kernels, Util};
use super::{GpuElement, GpuMergeStrategy};
use crate::cuda::device::{check, Device};
use crate::cuda::{CudaError, GpuDevice};
use crate::matrix::{check_dim, Descriptor};
use crate::semirings::Semiring;
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

/// The mask's launch arguments: bytes (a one-byte dummy when absent), use, complement.
fn mask_args<'a>(dummy: &'a CudaSlice<u8>, m: Option<&'a DeviceMask>) -> (&'a CudaSlice<u8>, i32, i32) {
    match m {
        Some(m) => (&m.bits, 1, m.complement as i32),
        None => (dummy, 0, 0),
    }
}

pub(super) fn same_device(a: &GpuDevice, b: &GpuDevice) -> Result<(), CudaError> {
    if a.info().ordinal != b.info().ordinal {
        return Err(CudaError::InvalidParameter(format!(
            "operands live on CUDA devices {} and {}; upload them to one device",
            a.info().ordinal,
            b.info().ordinal
        )));
    }
    Ok(())
}

/// The checks every vector product makes before it launches: `u` (named
/// `u.0`, of length `u.1`, on device `u.2`) of length `inner`, `w` and the
/// mask of length `out`, `u` on the matrix's device, and the element types
/// against the semiring's (its first operand the matrix when
/// `matrix_first`, else the vector). Returns the semiring's kernels of the
/// matrix's index width `w`.
#[allow(clippy::too_many_arguments)]
fn vector_product_kernels<S, TA, TB>(
    op: &'static str,
    s: &S,
    a: &GpuDevice,
    w: IndexWidth,
    u: (&'static str, usize, &GpuDevice),
    inner: usize,
    w_len: usize,
    out: usize,
    mask: Option<&DeviceMask>,
    matrix_first: bool,
) -> crate::Result<SemiringKernels>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    check_dim(op, u.0, inner, u.1)?;
    check_dim(op, "w", out, w_len)?;
    if let Some(m) = mask {
        check_dim(op, "mask", out, m.len())?;
    }
    same_device(a, u.2)?;
    let k = semiring_kernels(&a.dev, s, w)?;
    let (first, second) = if matrix_first { ("the matrix", "the vector") } else { ("the vector", "the matrix") };
    check_operand::<TA>(first, k.key.read_a, &k.key.a, &k.key.semiring)?;
    check_operand::<TB>(second, k.key.read_b, &k.key.b, &k.key.semiring)?;
    check_output::<S::C>(&k.key)?;
    Ok(k)
}

/// `w⟨mask⟩ = A ⊕.⊗ x` (or `Aᵀ x` with `desc.transpose_first`) with dense
/// `x` and `w`, by pull: one thread per output row, terms `A(i,k) ⊗ x(k)`
/// in increasing `k`, stopping at a terminal value. Where the mask allows,
/// `w` takes the result (or becomes absent); elsewhere `w` keeps its entry,
/// or loses it with `desc.replace`.
///
/// # Errors
/// Shape mismatches ([`MatrixError`](crate::matrix::MatrixError)), operand types that differ from the
/// semiring's ([`CudaError::Mismatch`]), NVRTC and driver errors.
pub fn mxv<S, TA, TB>(
    w: &mut DeviceDenseVector<S::C>,
    mask: Option<&DeviceMask>,
    s: S,
    a: &DeviceMatrix<TA>,
    x: &DeviceDenseVector<TB>,
    desc: &Descriptor,
) -> crate::Result<()>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    let (form, (rows, inner)) = a.oriented(desc.transpose_first);
    same_device(&a.dev, &w.dev)?;
    let k = vector_product_kernels::<S, TA, TB>(
        "gpu mxv",
        &s,
        &a.dev,
        a.index_width(),
        ("x", x.len(), &x.dev),
        inner,
        w.len(),
        rows,
        mask,
        true,
    )?;
    let dev = &a.dev.dev;
    pull(dev, k.get("gb_mxv_pull"), rows, form, &x.val, &x.pres, mask, desc.replace, w)?;
    Ok(())
}

/// `wᵀ⟨mask⟩ = uᵀ ⊕.⊗ A` (or `uᵀ Aᵀ` with `desc.transpose_second`) with
/// dense `u` and `w`, by pull over the columns of `A` (its CSC form): terms
/// `u(k) ⊗ A(k,j)` in increasing `k`. Mask and replace as [`mxv`].
///
/// # Errors
/// As [`mxv`].
pub fn vxm<S, TA, TB>(
    w: &mut DeviceDenseVector<S::C>,
    mask: Option<&DeviceMask>,
    s: S,
    u: &DeviceDenseVector<TA>,
    a: &DeviceMatrix<TB>,
    desc: &Descriptor,
) -> crate::Result<()>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    let (cols, inner, form) =
        if desc.transpose_second { (a.nrows(), a.ncols(), &a.csr) } else { (a.ncols(), a.nrows(), &a.csc) };
    same_device(&a.dev, &w.dev)?;
    let k = vector_product_kernels::<S, TA, TB>(
        "gpu vxm",
        &s,
        &a.dev,
        a.index_width(),
        ("u", u.len(), &u.dev),
        inner,
        w.len(),
        cols,
        mask,
        false,
    )?;
    let dev = &a.dev.dev;
    pull(dev, k.get("gb_vxm_pull"), cols, form, &u.val, &u.pres, mask, desc.replace, w)?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn pull<TM: GpuElement, TV: GpuElement, C: GpuElement>(
    dev: &Device,
    f: &CudaFunction,
    rows: usize,
    m: &DeviceCompressed<TM>,
    xval: &CudaSlice<TV>,
    xpres: &CudaSlice<u8>,
    mask: Option<&DeviceMask>,
    replace: bool,
    w: &mut DeviceDenseVector<C>,
) -> Result<(), CudaError> {
    if rows == 0 {
        return Ok(());
    }
    let s = &dev.stream;
    let dummy = zeros::<u8>(s, 1)?;
    let (mbits, use_mask, comp) = mask_args(&dummy, mask);
    let (rows32, rep) = (m.ptr.width().val(rows), replace as i32);
    let mut lb = s.launch_builder(f);
    lb.arg(&rows32).arg(&m.ptr).arg(&m.ind).arg(&m.val).arg(xval).arg(xpres);
    lb.arg(mbits).arg(&use_mask).arg(&comp).arg(&rep).arg(&mut w.val).arg(&mut w.pres);
    // SAFETY: matches gb_mxv_pull / gb_vxm_pull (same parameter lists); the
    // compressed form has `rows` rows whose indices are below x's length;
    // w and the mask hold `rows` entries (checked by the callers).
    check("launching a pull kernel", || unsafe { lb.launch(grid(dev, rows)) })?;
    Ok(())
}

/// `w⟨mask⟩ = A ⊕.⊗ u` (or `Aᵀ u`) with sparse `u` and `w`: SpMSpV over
/// the columns of `A` that `u` selects (push), merged by `strategy`. `w` is
/// replaced by the result restricted to the mask (GrB_REPLACE; entries
/// outside the mask are not kept).
///
/// # Errors
/// As [`mxv`].
pub fn mxv_sparse<S, TA, TB>(
    w: &mut DeviceSparseVector<S::C>,
    mask: Option<&DeviceMask>,
    s: S,
    a: &DeviceMatrix<TA>,
    u: &DeviceSparseVector<TB>,
    desc: &Descriptor,
    strategy: GpuMergeStrategy,
) -> crate::Result<()>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    sparse_product("gpu mxv_sparse", w, mask, s, a, u, desc.transpose_first, true, strategy)
}

/// `wᵀ⟨mask⟩ = uᵀ ⊕.⊗ A` (or `uᵀ Aᵀ`) with sparse `u` and `w`: SpMSpV over
/// the rows of `A` that `u` selects (push), merged by `strategy`; `w` is
/// replaced as in [`mxv_sparse`].
///
/// # Errors
/// As [`mxv`].
pub fn vxm_sparse<S, TA, TB>(
    w: &mut DeviceSparseVector<S::C>,
    mask: Option<&DeviceMask>,
    s: S,
    u: &DeviceSparseVector<TA>,
    a: &DeviceMatrix<TB>,
    desc: &Descriptor,
    strategy: GpuMergeStrategy,
) -> crate::Result<()>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    sparse_product("gpu vxm_sparse", w, mask, s, a, u, desc.transpose_second, false, strategy)
}

/// The body of [`mxv_sparse`] (`matrix_first`: terms `A(j, k) ⊗ u(k)`) and
/// [`vxm_sparse`] (terms `u(k) ⊗ A(k, j)`): push over the rows `k` of the
/// compressed form whose rows are the inner index — the CSC of `A` for an
/// untransposed mxv or a transposed vxm, else its CSR.
#[allow(clippy::too_many_arguments)]
fn sparse_product<S, TM, TU>(
    op: &'static str,
    w: &mut DeviceSparseVector<S::C>,
    mask: Option<&DeviceMask>,
    s: S,
    a: &DeviceMatrix<TM>,
    u: &DeviceSparseVector<TU>,
    transpose: bool,
    matrix_first: bool,
    strategy: GpuMergeStrategy,
) -> crate::Result<()>
where
    S: Semiring,
    S::C: GpuElement,
    TM: GpuElement,
    TU: GpuElement,
{
    let (out, inner, form) =
        if matrix_first != transpose { (a.nrows(), a.ncols(), &a.csc) } else { (a.ncols(), a.nrows(), &a.csr) };
    let uu = ("u", u.len(), &u.dev);
    let iw = a.index_width();
    if u.nnz > 0 {
        same_width(op, "the sparse vector u", u.idx.width(), iw)?;
    }
    let k = if matrix_first {
        vector_product_kernels::<S, TM, TU>(op, &s, &a.dev, iw, uu, inner, w.len(), out, mask, true)?
    } else {
        vector_product_kernels::<S, TU, TM>(op, &s, &a.dev, iw, uu, inner, w.len(), out, mask, false)?
    };
    let dev = &a.dev.dev;
    let util = util_kernels(dev, iw)?;
    let form_id = matrix_first as i32;
    let (idx, val, nnz, _) = spmspv::<S::C, TM, TU>(dev, &k, &util, form_id, form, out, u, mask, strategy, None)?;
    *w = DeviceSparseVector { dev: a.dev.clone(), n: out, nnz, idx, val };
    Ok(())
}

/// The SpMSpV core: `form` 0 (vxm: `u(k) ⊗ M(k, j)`) or 1 (mxv: `M(k, j) ⊗
/// u(k)` over the rows of `Aᵀ`), `m` holding the rows `k` to expand, `n`
/// outputs. Returns the output indices, values, count and the strategy run.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spmspv<C: GpuElement, TM: GpuElement, TU: GpuElement>(
    dev: &Device,
    k: &SemiringKernels,
    util: &Util,
    form: i32,
    m: &DeviceCompressed<TM>,
    n: usize,
    u: &DeviceSparseVector<TU>,
    mask: Option<&DeviceMask>,
    strategy: GpuMergeStrategy,
    offsets: Option<(Idx, usize)>,
) -> Result<(Idx, CudaSlice<C>, usize, GpuMergeStrategy), CudaError> {
    let s = &dev.stream;
    let f = u.nnz;
    let iw = util.width;
    let empty = |st| -> Result<_, CudaError> { Ok((Idx::zeros(s, iw, 1)?, zeros::<C>(s, 1)?, 0, st)) };
    if f == 0 || n == 0 {
        return empty(strategy);
    }
    let f32_ = iw.val(f);
    let (off, terms) = match offsets {
        Some(o) => o,
        None => frontier_offsets(dev, k, util, m, &u.idx, f)?,
    };
    let strategy = match strategy {
        GpuMergeStrategy::Auto => GpuMergeStrategy::choose(terms, n),
        st => st,
    };
    if terms == 0 {
        return empty(strategy);
    }
    let dummy = zeros::<u8>(s, 1)?;
    let (mbits, use_mask, comp) = mask_args(&dummy, mask);
    let (n32, m32) = (iw.val(n), iw.val(terms));
    if strategy == GpuMergeStrategy::Scatter {
        let mut acc = zeros::<C>(s, n)?;
        let mut flag = Idx::zeros(s, iw, n)?;
        let mut lb = s.launch_builder(k.get("gb_fill_identity"));
        lb.arg(&n32).arg(&mut acc);
        // SAFETY: matches gb_fill_identity(n, acc); acc holds n entries.
        check("launching gb_fill_identity", || unsafe { lb.launch(grid(dev, n)) })?;
        let mut lb = s.launch_builder(k.get("gb_spmspv_scatter"));
        lb.arg(&form).arg(&f32_).arg(&u.idx).arg(&u.val).arg(&off).arg(&m32).arg(&m.ptr).arg(&m.ind).arg(&m.val);
        lb.arg(mbits).arg(&use_mask).arg(&comp).arg(&mut acc).arg(&mut flag);
        // SAFETY: matches gb_spmspv_scatter; off is the exclusive scan of the
        // f row lengths (terms in all); acc and flag hold n entries.
        check("launching gb_spmspv_scatter", || unsafe { lb.launch(grid(dev, terms)) })?;
        let (pos, count) = exclusive_scan(dev, util, &flag, n)?;
        let mut oi = Idx::zeros(s, iw, count)?;
        let mut ov = zeros::<C>(s, count)?;
        if count > 0 {
            let mut lb = s.launch_builder(k.get("gb_compact"));
            lb.arg(&n32).arg(&flag).arg(&pos).arg(&acc).arg(&mut oi).arg(&mut ov);
            // SAFETY: matches gb_compact(n, flag, pos, val, out_idx, out_val); outputs hold `count`.
            check("launching gb_compact", || unsafe { lb.launch(grid(dev, n)) })?;
        }
        return Ok((oi, ov, count, strategy));
    }
    // sorting strategies
    let mut keys = Idx::zeros(s, iw, terms)?;
    let mut vals = zeros::<C>(s, terms)?;
    {
        let mut lb = s.launch_builder(k.get("gb_spmspv_expand"));
        lb.arg(&form).arg(&f32_).arg(&u.idx).arg(&u.val).arg(&off).arg(&m32).arg(&m.ptr).arg(&m.ind).arg(&m.val);
        lb.arg(mbits).arg(&use_mask).arg(&comp).arg(&n32).arg(&mut keys).arg(&mut vals);
        // SAFETY: matches gb_spmspv_expand; keys and vals hold `terms` entries.
        check("launching gb_spmspv_expand", || unsafe { lb.launch(grid(dev, terms)) })?;
    }
    let mut keys2 = Idx::zeros(s, iw, terms)?;
    let mut vals2 = zeros::<C>(s, terms)?;
    if strategy == GpuMergeStrategy::MergeSort {
        let mut width: u64 = 1;
        while (width as usize) < terms {
            let mut lb = s.launch_builder(k.get("gb_merge_pass"));
            lb.arg(&m32).arg(&width).arg(&keys).arg(&vals).arg(&mut keys2).arg(&mut vals2);
            // SAFETY: matches gb_merge_pass(m, width, kin, vin, kout, vout); all hold `terms`.
            check("launching gb_merge_pass", || unsafe { lb.launch(grid(dev, terms)) })?;
            std::mem::swap(&mut keys, &mut keys2);
            std::mem::swap(&mut vals, &mut vals2);
            width *= 2;
        }
    } else {
        let bits = usize::BITS - n.leading_zeros(); // the sentinel n needs these bits
        let blocks = terms.div_ceil(256);
        let cfg = LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let mut hist = Idx::zeros(s, iw, 16 * blocks)?;
        let mut shift: i32 = 0;
        while (shift as u32) < bits {
            let mut lb = s.launch_builder(k.get("gb_radix_count"));
            lb.arg(&m32).arg(&keys).arg(&shift).arg(&mut hist);
            // SAFETY: matches gb_radix_count(m, keys, shift, hist); hist holds 16·blocks.
            check("launching gb_radix_count", || unsafe { lb.launch(cfg) })?;
            let (base, _) = exclusive_scan(dev, util, &hist, 16 * blocks)?;
            let mut lb = s.launch_builder(k.get("gb_radix_scatter"));
            lb.arg(&m32).arg(&keys).arg(&vals).arg(&shift).arg(&base).arg(&mut keys2).arg(&mut vals2);
            // SAFETY: matches gb_radix_scatter; the same grid as the count.
            check("launching gb_radix_scatter", || unsafe { lb.launch(cfg) })?;
            std::mem::swap(&mut keys, &mut keys2);
            std::mem::swap(&mut vals, &mut vals2);
            shift += 4;
        }
    }
    let mut head = Idx::zeros(s, iw, terms)?;
    {
        let mut lb = s.launch_builder(k.get("gb_run_heads"));
        lb.arg(&m32).arg(&n32).arg(&keys).arg(&mut head);
        // SAFETY: matches gb_run_heads(m, sentinel, keys, head).
        check("launching gb_run_heads", || unsafe { lb.launch(grid(dev, terms)) })?;
    }
    let (pos, count) = exclusive_scan(dev, util, &head, terms)?;
    let mut oi = Idx::zeros(s, iw, count)?;
    let mut ov = zeros::<C>(s, count)?;
    if count > 0 {
        let mut lb = s.launch_builder(k.get("gb_fold_runs"));
        lb.arg(&m32).arg(&keys).arg(&vals).arg(&head).arg(&pos).arg(&mut oi).arg(&mut ov);
        // SAFETY: matches gb_fold_runs; outputs hold `count` entries.
        check("launching gb_fold_runs", || unsafe { lb.launch(grid(dev, terms)) })?;
    }
    Ok((oi, ov, count, strategy))
}

/// The exclusive scan of the lengths of the rows `idx[..f]` of `m`, and their total.
pub(crate) fn frontier_offsets<TM: GpuElement>(
    dev: &Device,
    k: &SemiringKernels,
    util: &Util,
    m: &DeviceCompressed<TM>,
    idx: &Idx,
    f: usize,
) -> Result<(Idx, usize), CudaError> {
    let s = &dev.stream;
    let f32_ = util.width.val(f);
    let mut deg = Idx::zeros(s, util.width, f)?;
    let mut lb = s.launch_builder(k.get("gb_frontier_degrees"));
    lb.arg(&f32_).arg(idx).arg(&m.ptr).arg(&mut deg);
    // SAFETY: matches gb_frontier_degrees(f, fidx, ptr, deg); fidx holds f row ids of m.
    check("launching gb_frontier_degrees", || unsafe { lb.launch(grid(dev, f)) })?;
    exclusive_scan(dev, util, &deg, f)
}

/// The dot form of `C⟨M⟩ = A ⊕.⊗ B` (or `A ⊕.⊗ Bᵀ` with
/// `desc.transpose_second`) over the positions the mask allows (structural
/// or valued, not complemented), `C(i, j) = ⊕_k A(i,k) ⊗ B(k,j)` over the
/// `k` stored in both, in increasing `k`, left on the device: its values and
/// presence bytes, one per mask position (in the mask's row order).
pub(crate) fn mxm_dot_device<S, TA, TB>(
    mask: &DeviceMatrixMask,
    s: S,
    a: &DeviceMatrix<TA>,
    b: &DeviceMatrix<TB>,
    desc: &Descriptor,
) -> crate::Result<(CudaSlice<S::C>, CudaSlice<u8>)>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    if mask.complement {
        return Err(CudaError::InvalidParameter(
            "the dot form of the GPU masked product takes no complemented mask; use GpuMxmStrategy::Hash".into(),
        )
        .into());
    }
    // rows j of Bᵀ: the CSC of B, or the CSR of B when B is given transposed.
    let (bt, b_rows, b_inner) =
        if desc.transpose_second { (&b.csr, b.nrows(), b.ncols()) } else { (&b.csc, b.ncols(), b.nrows()) };
    // the rows of Aᵀ are the columns of A: its CSC
    let (ar, (a_rows, a_inner)) = a.oriented(desc.transpose_first);
    check_dim("gpu mxm", "B", a_inner, b_inner)?;
    check_dim("gpu mxm", "mask rows", a_rows, mask.nrows)?;
    check_dim("gpu mxm", "mask columns", b_rows, mask.ncols)?;
    same_device(&a.dev, &b.dev)?;
    let iw = a.index_width();
    same_width("gpu mxm", "B", b.index_width(), iw)?;
    same_width("gpu mxm", "the mask", mask.index_width(), iw)?;
    let dev = &a.dev.dev;
    let k = semiring_kernels(dev, &s, iw)?;
    check_operand::<TA>("A", k.key.read_a, &k.key.a, &k.key.semiring)?;
    check_operand::<TB>("B", k.key.read_b, &k.key.b, &k.key.semiring)?;
    check_output::<S::C>(&k.key)?;
    let st = &dev.stream;
    let mut cval = zeros::<S::C>(st, mask.nnz)?;
    let mut cpres = zeros::<u8>(st, mask.nnz)?;
    if mask.nnz > 0 {
        let nnz32 = iw.val(mask.nnz);
        let mut lb = st.launch_builder(k.get("gb_mxm_dot"));
        lb.arg(&nnz32).arg(&mask.row_of).arg(&mask.ind).arg(&ar.ptr).arg(&ar.ind).arg(&ar.val);
        lb.arg(&bt.ptr).arg(&bt.ind).arg(&bt.val).arg(&mut cval).arg(&mut cpres);
        // SAFETY: matches gb_mxm_dot; mask rows index A's rows, mask columns
        // index the rows of bt (checked shapes); outputs hold mask.nnz.
        check("launching gb_mxm_dot", || unsafe { lb.launch(grid(dev, mask.nnz)) })?;
    }
    Ok((cval, cpres))
}

