//! Element-wise operations on device matrices: [`ewise_add`],
//! [`ewise_mult`], [`apply`], [`select`], each `C⟨M, replace⟩ = accum(C,
//! op(A, B))` as on the CPU ([`crate::matrix::ewise_add`] …), with a device
//! operator in place of the CPU closure.
//!
//! One thread per row merges the sorted rows of `A`, `B`, the old `C` and
//! the mask (a count pass, a prefix sum, a fill pass). Every operation here
//! is entry-wise, so the CSC form of the result is the same computation over
//! the CSC forms of the operands (with the operator seeing `(i, j)` swapped
//! back): no device transpose is needed. `O(nnz(A) + nnz(B) + nnz(C) +
//! nnz(M) + m + n)` work, twice.

use super::device_index::Idx;
use super::element_ops::{ElementKey, ElementOp, GpuBinaryOp, GpuSelectOp, GpuUnaryOp};
use super::objects::{same_width, zeros, DeviceCompressed, DeviceMatrix, DeviceMatrixMask};
use super::ops_ewise::{element_kernels, mask_kind, same_device};
use super::scan::{exclusive_scan, grid, util_kernels};
use super::GpuElement;
use crate::cuda::device::check;
use crate::cuda::CudaError;
use crate::matrix::{check_dim, Descriptor};
use cudarc::driver::PushKernelArg;

/// `(CSR, CSC)` of `A` or, transposed, of `Aᵀ`, and that shape.
fn oriented<T: GpuElement>(a: &DeviceMatrix<T>, t: bool) -> ([&DeviceCompressed<T>; 2], (usize, usize)) {
    let (rows, shape) = a.oriented(t);
    let cols = a.oriented(!t).0;
    ([rows, cols], shape)
}

/// `C⟨mask, replace⟩ = accum(C, op(A, B))` for every kind (`B` is `A` for
/// apply and select), `sbits` the scalar.
#[allow(clippy::too_many_arguments)]
fn matrix_op<X, Y, Z>(
    name: &'static str,
    c: &mut DeviceMatrix<Z>,
    mask: Option<&DeviceMatrixMask>,
    accum: Option<&GpuBinaryOp>,
    op: ElementOp,
    a: &DeviceMatrix<X>,
    b: (&DeviceMatrix<Y>, bool),
    sbits: u64,
    desc: &Descriptor,
) -> crate::Result<()>
where
    X: GpuElement,
    Y: GpuElement,
    Z: GpuElement,
{
    let (af, shape) = oriented(a, desc.transpose_first);
    let (bf, bshape) = oriented(b.0, b.1);
    check_dim(name, "rows of B", shape.0, bshape.0)?;
    check_dim(name, "columns of B", shape.1, bshape.1)?;
    check_dim(name, "output rows", shape.0, c.nrows())?;
    check_dim(name, "output columns", shape.1, c.ncols())?;
    if let Some(m) = mask {
        check_dim(name, "mask rows", shape.0, m.nrows)?;
        check_dim(name, "mask columns", shape.1, m.ncols)?;
    }
    same_device(&a.dev, &c.dev)?;
    same_device(&b.0.dev, &c.dev)?;
    let iw = a.index_width();
    same_width(name, "B", b.0.index_width(), iw)?;
    if c.nnz() == 0 && c.index_width() != iw {
        // an empty output takes the operands' width
        *c = DeviceMatrix::new_with_width(&c.dev, c.nrows(), c.ncols(), iw)?;
    }
    same_width(name, "the output C", c.index_width(), iw)?;
    if let Some(m) = mask {
        same_width(name, "the mask", m.index_width(), iw)?;
    }
    let key = ElementKey {
        op,
        accum: accum.cloned(),
        x: X::CUDA,
        y: Y::CUDA,
        z: Z::CUDA,
        mask: mask_kind(mask.map(|m| m.complement)),
        index: iw,
    };
    let gpu = c.dev.clone();
    let dev = &gpu.dev;
    let k = element_kernels(dev, &key)?;
    let util = util_kernels(dev, iw)?;
    let s = &dev.stream;
    let replace = desc.replace as i32;
    let mut forms = Vec::with_capacity(2);
    let mut nnz = [0usize; 2];
    for pass in 0..2 {
        let rows = if pass == 0 { shape.0 } else { shape.1 };
        let cf = if pass == 0 { &c.csr } else { &c.csc };
        // without a mask its arrays are never read: C's stand in
        let (mptr, mind) = match mask {
            Some(m) if pass == 0 => (&m.ptr, &m.ind),
            Some(m) => (&m.tptr, &m.tind),
            None => (&cf.ptr, &cf.ind),
        };
        let (rows32, transposed) = (iw.val(rows), pass);
        let (a_, b_) = (af[pass as usize], bf[pass as usize]);
        let mut counts = Idx::zeros(s, iw, rows + 1)?;
        if rows > 0 {
            let mut lb = s.launch_builder(&k.count);
            lb.arg(&rows32).arg(&transposed).arg(&sbits).arg(&replace);
            lb.arg(&a_.ptr).arg(&a_.ind).arg(&a_.val).arg(&b_.ptr).arg(&b_.ind).arg(&b_.val);
            lb.arg(&cf.ptr).arg(&cf.ind).arg(&cf.val).arg(mptr).arg(mind).arg(&mut counts);
            // SAFETY: matches gbe_matrix_count; every form has `rows` rows of
            // sorted indices (checked shapes); counts holds rows + 1.
            check("launching gbe_matrix_count", || unsafe { lb.launch(grid(dev, rows)) })?;
        }
        let (ptr, total) = exclusive_scan(dev, &util, &counts, rows + 1)?;
        // a union of two 32-bit operands may outgrow 32-bit indices
        iw.check_fits(name, &["the result's number of entries"], &[total])?;
        let mut ind = Idx::zeros(s, iw, total)?;
        let mut val = zeros::<Z>(s, total)?;
        if total > 0 {
            let mut lb = s.launch_builder(&k.fill);
            lb.arg(&rows32).arg(&transposed).arg(&sbits).arg(&replace);
            lb.arg(&a_.ptr).arg(&a_.ind).arg(&a_.val).arg(&b_.ptr).arg(&b_.ind).arg(&b_.val);
            lb.arg(&cf.ptr).arg(&cf.ind).arg(&cf.val).arg(mptr).arg(mind).arg(&ptr).arg(&mut ind).arg(&mut val);
            // SAFETY: matches gbe_matrix_fill; ptr is the scan of the counts
            // of the same inputs, ind and val hold their total.
            check("launching gbe_matrix_fill", || unsafe { lb.launch(grid(dev, rows)) })?;
        }
        nnz[pass as usize] = total;
        forms.push(DeviceCompressed { ptr, ind, val });
    }
    if nnz[0] != nnz[1] {
        return Err(CudaError::InvalidParameter(format!(
            "{name}: the CSR and CSC passes disagree ({} and {} entries); please report this",
            nnz[0], nnz[1]
        ))
        .into());
    }
    let csc = forms.pop().expect("two passes");
    let csr = forms.pop().expect("two passes");
    *c = DeviceMatrix::from_forms(&gpu, shape, nnz[0], csr, csc);
    Ok(())
}

/// `C⟨M⟩ = accum(C, A ⊕ B)`: union of patterns; `op(a, b)` where both are
/// stored, the stored one elsewhere (`Aᵀ`, `Bᵀ` by the descriptor); the
/// device form of [`crate::matrix::ewise_add`].
///
/// # Errors
/// Shapes that differ ([`MatrixError`](crate::matrix::MatrixError)), types
/// that differ from the operator's ([`CudaError::Mismatch`]), NVRTC and
/// driver errors.
pub fn ewise_add<T: GpuElement>(
    c: &mut DeviceMatrix<T>,
    mask: Option<&DeviceMatrixMask>,
    accum: Option<&GpuBinaryOp>,
    op: &GpuBinaryOp,
    a: &DeviceMatrix<T>,
    b: &DeviceMatrix<T>,
    desc: &Descriptor,
) -> crate::Result<()> {
    let bb = (b, desc.transpose_second);
    matrix_op::<T, T, T>("gpu ewise_add", c, mask, accum, ElementOp::Add(op.clone()), a, bb, 0, desc)
}

/// `C⟨M⟩ = accum(C, A ⊗ B)`: intersection of patterns, `op(a, b)`
/// ([`crate::matrix::ewise_mult`]).
///
/// # Errors
/// As [`ewise_add`].
pub fn ewise_mult<A: GpuElement, B: GpuElement, C: GpuElement>(
    c: &mut DeviceMatrix<C>,
    mask: Option<&DeviceMatrixMask>,
    accum: Option<&GpuBinaryOp>,
    op: &GpuBinaryOp,
    a: &DeviceMatrix<A>,
    b: &DeviceMatrix<B>,
    desc: &Descriptor,
) -> crate::Result<()> {
    let bb = (b, desc.transpose_second);
    matrix_op::<A, B, C>("gpu ewise_mult", c, mask, accum, ElementOp::Mult(op.clone()), a, bb, 0, desc)
}

/// `C⟨M⟩ = accum(C, f(A))` on the stored entries (`Aᵀ` by the descriptor;
/// [`crate::matrix::apply`]).
///
/// # Errors
/// As [`ewise_add`].
pub fn apply<A: GpuElement, C: GpuElement>(
    c: &mut DeviceMatrix<C>,
    mask: Option<&DeviceMatrixMask>,
    accum: Option<&GpuBinaryOp>,
    f: &GpuUnaryOp,
    a: &DeviceMatrix<A>,
    desc: &Descriptor,
) -> crate::Result<()> {
    let aa = (a, desc.transpose_first);
    matrix_op::<A, A, C>("gpu apply", c, mask, accum, ElementOp::Apply(f.clone()), a, aa, f.scalar, desc)
}

/// `C⟨M⟩ = accum(C, select(A))`: the entries `A(i, j)` that satisfy `pred`
/// (e.g. the strictly lower triangle: `GpuSelectOp::index(SelectForm::Tril,
/// -1)`; [`crate::matrix::select`]).
///
/// # Errors
/// As [`ewise_add`].
pub fn select<T: GpuElement>(
    c: &mut DeviceMatrix<T>,
    mask: Option<&DeviceMatrixMask>,
    accum: Option<&GpuBinaryOp>,
    pred: &GpuSelectOp,
    a: &DeviceMatrix<T>,
    desc: &Descriptor,
) -> crate::Result<()> {
    let aa = (a, desc.transpose_first);
    matrix_op::<T, T, T>("gpu select", c, mask, accum, ElementOp::Select(pred.clone()), a, aa, pred.scalar, desc)
}

/// `C⟨M, replace⟩ = accum(C, T)`: the accumulation step on its own, for a
/// product computed into `T` (see [`accumulate_vector`](super::accumulate_vector));
/// the descriptor's transposes do not apply.
///
/// # Errors
/// As [`ewise_add`].
pub fn accumulate<T: GpuElement>(
    c: &mut DeviceMatrix<T>,
    mask: Option<&DeviceMatrixMask>,
    accum: &GpuBinaryOp,
    t: &DeviceMatrix<T>,
    desc: &Descriptor,
) -> crate::Result<()> {
    let old = c.try_clone()?;
    let d = Descriptor { replace: desc.replace, ..Descriptor::DEFAULT };
    matrix_op::<T, T, T>("gpu accumulate", c, mask, None, ElementOp::Add(accum.clone()), &old, (t, false), 0, &d)
}
