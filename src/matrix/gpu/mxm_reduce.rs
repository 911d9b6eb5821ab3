//! The masked product reduced to one value under a plain mask, `C` never
//! stored (`kernels/graphblas_mxm_reduce.cu`): each row's set (`A(i,:)` in
//! the dot form, `M(i,:)` by rows) hashed in shared memory, the lists of
//! the other operand probed against it; a warp per short row, a block per
//! piece of a long one, a binary search for a set too large for a block's
//! table. The device side of [`reduce_mxm`](crate::matrix::reduce_mxm)
//! for both forms (a triangle count is its plus-pair case).

use super::device_index::Idx;
use super::mxm_hash::{checked_kernels, operands, plan, resolve, HashOut, Operands};
use super::objects::{download, upload, zeros, DeviceMatrix, DeviceMatrixMask};
use super::ops_reduce::reduce_raw;
use super::{GpuElement, GpuMxmStrategy};
use crate::cuda::device::{check, Device};
use crate::cuda::CudaError;
use crate::matrix::Descriptor;
use crate::semirings::Semiring;
use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

/// Warps (rows) per block of `gbr_rows` (`GBR_WARPS`).
const ROW_WARPS: u32 = 8;
/// Threads per block of `gbr_big` (`GBR_BIG_THREADS`).
const BIG_THREADS: u32 = 512;
/// Entries per item of `gbr_big` the item buffer is sized for: a row goes
/// there when its set has more than `GBR_WSLOTS / 4` keys (at least 64)
/// or its outer list more than `GBR_OUTER_BIG` entries (at least 128), and
/// makes one item per `GBR_PIECE` (at least 256) outer entries, rounded
/// up; so `set entries / 64 + outer entries · (1/128 + 1/256) + 1`, less
/// than `(set entries + outer entries) / 64 + 1`, items always suffice.
const ITEMS_PER: usize = 64;

/// `⊕` of the entries of `C⟨M⟩ = A ⊕.⊗ B'` under the plain mask `mask`
/// with the operands `o`, by the `form` (`Dot`: each row hashes `A(i,:)`
/// and probes the columns of `B'` that `M(i,:)` lists; `Hash`: each row
/// hashes `M(i,:)` and probes the rows of `B'` that `A(i,:)` lists), with
/// the hash module's kernels `k` (`gbr_rows`, `gbr_big` at 2 and 3).
fn reduce_intersections<S, TA, TB>(
    dev: &Device,
    k: &[CudaFunction],
    s: &S,
    mask: &DeviceMatrixMask,
    o: &Operands<'_, TA, TB>,
    form: GpuMxmStrategy,
) -> Result<S::C, CudaError>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    let n = o.nrows;
    if n == 0 || mask.nnz == 0 {
        // no position of C: the identity, without a round trip to the device
        return Ok(s.zero());
    }
    let st = &dev.stream;
    let mut out = upload(st, "uploading the identity", &[s.zero()])?;
    let dot = form == GpuMxmStrategy::Dot;
    // (set rows, outer rows, probe lists)
    let (sptr, sind, optr, oind) =
        if dot { (&o.a.ptr, &o.a.ind, &mask.ptr, &mask.ind) } else { (&mask.ptr, &mask.ind, &o.a.ptr, &o.a.ind) };
    let p = if dot { o.b_cols } else { o.b_rows };
    let cap = (o.a_nnz + mask.nnz) / ITEMS_PER + 1;
    let mut items_row = Idx::zeros(st, o.width, cap)?;
    let mut items_beg = Idx::zeros(st, o.width, cap)?;
    let mut counts = zeros::<u64>(st, 3)?;
    let (n32, form32, cap64) = (o.width.val(n), (!dot) as i32, cap as u64);
    let sms = dev.info.multiprocessors as u32;
    // many more blocks than fit at once: a block that ends early is replaced (rows differ in work)
    let blocks = (n as u32).div_ceil(ROW_WARPS).clamp(1, sms * 32);
    let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (ROW_WARPS * 32, 1, 1), shared_mem_bytes: 0 };
    let mut lb = st.launch_builder(&k[2]);
    lb.arg(&n32).arg(&form32).arg(sptr).arg(sind).arg(optr).arg(oind).arg(&o.a.val);
    lb.arg(&p.ptr).arg(&p.ind).arg(&p.val).arg(&mut items_row).arg(&mut items_beg).arg(&cap64).arg(&mut counts);
    lb.arg(&mut out);
    // SAFETY: matches gbr_rows (same parameter order): the set and outer rows have n rows (the
    // mask's and A's, checked shapes), the outer entries index the probe lists' rows, A's values
    // follow A's entries, B''s its lists'; the items hold cap entries (the kernel writes no more,
    // counting any excess in counts[1]); counts zeroed, out holds the identity.
    check("launching gbr_rows", || unsafe { lb.launch(cfg) })?;
    let cfg = LaunchConfig { grid_dim: (sms * 4, 1, 1), block_dim: (BIG_THREADS, 1, 1), shared_mem_bytes: 0 };
    let mut lb = st.launch_builder(&k[3]);
    lb.arg(&form32).arg(sptr).arg(sind).arg(optr).arg(oind).arg(&o.a.val);
    lb.arg(&p.ptr).arg(&p.ind).arg(&p.val).arg(&items_row).arg(&items_beg).arg(&cap64).arg(&mut counts);
    lb.arg(&mut out);
    // SAFETY: matches gbr_big (same parameter order), on what gbr_rows left: at most cap items,
    // each a row and a position in its outer list; blocks take items through counts[2].
    check("launching gbr_big", || unsafe { lb.launch(cfg) })?;
    let c = download(st, "downloading the reduction's item counts", &counts, 3)?;
    if c[1] > 0 {
        return Err(CudaError::InvalidParameter(format!(
            "the masked reduction needed more than {cap} pieces of long rows ({} rows left over)",
            c[1]
        )));
    }
    Ok(download(st, "downloading a reduction", &out, 1)?[0])
}

/// `⊕` of the entries of `C⟨M⟩ = A ⊕.⊗ B` (as `matrix::mxm` (device operands)), reduced on
/// the device without storing `C` (the semiring's identity when `C` is
/// empty); also the form that ran. Under a plain mask both forms run the
/// hashed intersections of [`reduce_intersections`] (the dot form hashes
/// `A(i,:)`, the hash form `M(i,:)`); under a complemented one the hash
/// product, then a reduction of its values. Floating-point sums may differ
/// from the CPU's in the last bits (the terms are folded per thread, then
/// atomically across blocks).
///
/// # Errors
/// As `matrix::mxm` (device operands).
pub fn reduce_mxm_masked<S, TA, TB>(
    mask: &DeviceMatrixMask,
    s: S,
    a: &DeviceMatrix<TA>,
    b: &DeviceMatrix<TB>,
    desc: &Descriptor,
    strategy: GpuMxmStrategy,
) -> crate::Result<(S::C, GpuMxmStrategy)>
where
    S: Semiring,
    S::C: GpuElement,
    TA: GpuElement,
    TB: GpuElement,
{
    let dev = &a.dev.dev;
    if !mask.complement {
        let o = operands(mask, a, b, desc)?;
        let k = checked_kernels::<S, TA, TB>(dev, &s, o.width)?;
        let (st, _) = resolve(dev, &k, mask, &o, strategy)?;
        return Ok((reduce_intersections(dev, &k, &s, mask, &o, st)?, st));
    }
    let v = match plan(mask, &s, a, b, desc, strategy)? {
        Some((_, HashOut::Rows { val, pres, total, .. })) => reduce_raw(dev, &s, &val, &pres, total, a.index_width())?,
        // a complemented mask always takes the hash form
        _ => return Err(CudaError::InvalidParameter("a complemented mask takes the hash form".into()).into()),
    };
    Ok((v, GpuMxmStrategy::Hash))
}
