//! The device side of [`crate::matrix::op`]'s index operations:
//! [`extract`](crate::matrix::op::extract),
//! [`assign`](crate::matrix::op::assign),
//! [`extract_vector`](crate::matrix::op::extract_vector) and
//! [`assign_vector`](crate::matrix::op::assign_vector), with the host's
//! semantics (index lists in any order; extract's may repeat, assign's may
//! not; `Aᵀ` by `desc.transpose_first`).
//!
//! The index lists are host data: their maps are made on the host and
//! uploaded (`O(|I| + |J|)` or `O(m + n)` indices); the result is built on
//! the device ([`Build`](super::sparse_build::Build)): extract remaps the
//! rows of `A` (or `Aᵀ`) and their columns; assign places `A` into `C`'s
//! coordinates the same way and merges it with `C` by the device's
//! element-wise union (the accumulator, or `C` outside the region without
//! one). The vector forms are gathers of the bitmap's values and presence
//! bytes. Then `C⟨M, replace⟩ = accum(C, T)` as every device operation.

use super::device_index::Idx;
use super::dispatch::write_back;
use super::dispatch_mxm::write_matrix;
use super::element_ops::GpuBinaryOp;
use super::index::IndexWidth;
use super::objects::{same_width, DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask};
use super::ops::same_device;
use super::sparse_build::build_kernels;
use super::{ewise_add, ewise_add_vector, GpuElement};
use crate::matrix::place_mxm::{AssignOp, AssignVectorOp, ExtractOp, ExtractVectorOp};
use crate::matrix::ops_mat::{check_indices, column_groups, positions};
use crate::matrix::{check_dim, Descriptor};

impl<T: GpuElement> ExtractOp<DeviceMatrix<T>> for DeviceMatrix<T> {
    fn extract_op(
        &mut self,
        mask: Option<&DeviceMatrixMask>,
        accum: Option<&GpuBinaryOp>,
        a: &DeviceMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()> {
        let (af, sa) = a.oriented(desc.transpose_first);
        check_indices("extract row index", rows, sa.0)?;
        check_indices("extract column index", cols, sa.1)?;
        check_dim("extract", "output rows", rows.len(), self.nrows())?;
        check_dim("extract", "output columns", cols.len(), self.ncols())?;
        same_device(&a.dev, &self.dev)?;
        let w = a.index_width();
        w.check_fits("gpu extract", &["the number of row indices", "the number of column indices"], &[
            rows.len(),
            cols.len(),
        ])?;
        // for each column j of A, the output columns q with J[q] = j
        let (colptr, colq) = column_groups(cols, sa.1);
        let dev = &a.dev.dev;
        let s = &dev.stream;
        let b = build_kernels(dev, w)?;
        let rowmap = Idx::upload(s, w, "uploading extract rows", rows)?;
        let colptr = Idx::upload(s, w, "uploading extract columns", &colptr)?;
        let colq = Idx::upload(s, w, "uploading extract columns", &colq)?;
        let (csr, nnz) = b.remap(dev, "gpu extract", rows.len(), &rowmap, af, &colptr, &colq)?;
        let t = b.matrix(&a.dev, (rows.len(), cols.len()), csr, nnz)?;
        write_matrix(self, mask, accum, t, desc, "gpu extract")
    }
}

impl<T: GpuElement> AssignOp<DeviceMatrix<T>> for DeviceMatrix<T> {
    fn assign_op(
        &mut self,
        mask: Option<&DeviceMatrixMask>,
        accum: Option<&GpuBinaryOp>,
        a: &DeviceMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()> {
        let (af, sa) = a.oriented(desc.transpose_first);
        let (m, n) = (self.nrows(), self.ncols());
        check_dim("assign", "rows of A", rows.len(), sa.0)?;
        check_dim("assign", "columns of A", cols.len(), sa.1)?;
        check_indices("assign row index", rows, m)?;
        check_indices("assign column index", cols, n)?;
        let rowmap = positions("assign row index", rows, m)?;
        let colmap = positions("assign column index", cols, n)?;
        if let Some(mk) = mask {
            check_dim("assign", "mask rows", m, mk.nrows)?;
            check_dim("assign", "mask columns", n, mk.ncols)?;
        }
        same_device(&a.dev, &self.dev)?;
        let w = self.index_width();
        same_width("gpu assign", "A", a.index_width(), w)?;
        let dev = &a.dev.dev;
        let s = &dev.stream;
        let b = build_kernels(dev, w)?;
        let rowmap = Idx::upload(s, w, "uploading assign rows", &rowmap)?;
        // A in C's coordinates: row rows[p] takes A(p, :), column q becomes cols[q]
        let ident: Vec<usize> = (0..=cols.len()).collect();
        let ident = Idx::upload(s, w, "uploading assign columns", &ident)?;
        let colq = Idx::upload(s, w, "uploading assign columns", cols)?;
        let (csr, nnz) = b.remap(dev, "gpu assign", m, &rowmap, af, &ident, &colq)?;
        let placed = b.matrix(&a.dev, (m, n), csr, nnz)?;
        let mut z = DeviceMatrix::new_with_width(&a.dev, m, n, w)?;
        match accum {
            // Z = C ∪ A', accum(c, a) where both: the region's old entries stay where A has none
            Some(acc) => ewise_add(&mut z, None, None, acc, self, &placed, &Descriptor::DEFAULT)?,
            // Z = (C outside the region) ∪ A' (disjoint patterns)
            None => {
                let colmap = Idx::upload(s, w, "uploading assign columns", &colmap)?;
                let (out, onnz) = b.outside_region(dev, m, &self.csr, self.nnz(), &rowmap, &colmap)?;
                let outside = b.matrix(&a.dev, (m, n), out, onnz)?;
                ewise_add(&mut z, None, None, &GpuBinaryOp::second::<T>(), &outside, &placed, &Descriptor::DEFAULT)?
            }
        }
        // then C⟨M, replace⟩ = Z over the whole matrix, no accumulator
        write_matrix(self, mask, None, z, desc, "gpu assign")
    }
}

/// The width of the gathers between vectors of these sizes.
fn vector_width(sizes: &[usize]) -> IndexWidth {
    IndexWidth::for_sizes(sizes)
}

impl<T: GpuElement> ExtractVectorOp<DeviceDenseVector<T>> for DeviceDenseVector<T> {
    fn extract_vector_op(
        &mut self,
        mask: Option<&DeviceMask>,
        accum: Option<&GpuBinaryOp>,
        u: &DeviceDenseVector<T>,
        indices: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()> {
        check_indices("extract_vector index", indices, u.len())?;
        check_dim("extract_vector", "output length", indices.len(), self.len())?;
        same_device(&u.dev, &self.dev)?;
        let dev = &u.dev.dev;
        let w = vector_width(&[u.len(), indices.len()]);
        let b = build_kernels(dev, w)?;
        let perm = Idx::upload(&dev.stream, w, "uploading extract indices", indices)?;
        // t(p) = u(I[p]): values and presence bytes
        let mut t = DeviceDenseVector::new(&u.dev, indices.len())?;
        b.gather(dev, indices.len(), &perm, &u.val, &mut t.val)?;
        b.gather(dev, indices.len(), &perm, &u.pres, &mut t.pres)?;
        write_vector(self, mask, accum, t, desc)
    }
}

impl<T: GpuElement> AssignVectorOp<DeviceDenseVector<T>> for DeviceDenseVector<T> {
    fn assign_vector_op(
        &mut self,
        mask: Option<&DeviceMask>,
        accum: Option<&GpuBinaryOp>,
        u: &DeviceDenseVector<T>,
        indices: &[usize],
        desc: &Descriptor,
    ) -> crate::Result<()> {
        let n = self.len();
        check_dim("assign_vector", "u length", indices.len(), u.len())?;
        if let Some(mk) = mask {
            check_dim("assign_vector", "mask length", n, mk.len())?;
        }
        check_indices("assign_vector index", indices, n)?;
        let inv = positions("assign_vector", indices, n)?;
        same_device(&u.dev, &self.dev)?;
        let dev = &u.dev.dev;
        let w = vector_width(&[n, u.len()]);
        let b = build_kernels(dev, w)?;
        let s = &dev.stream;
        // u placed at its indices: u'(I[p]) = u(p), absent elsewhere
        let inv_d = Idx::upload(s, w, "uploading assign indices", &inv)?;
        let mut placed = DeviceDenseVector::new(&u.dev, n)?;
        b.gather(dev, n, &inv_d, &u.val, &mut placed.val)?;
        b.gather(dev, n, &inv_d, &u.pres, &mut placed.pres)?;
        let z = match accum {
            Some(acc) => {
                let mut z = DeviceDenseVector::new(&u.dev, n)?;
                ewise_add_vector(&mut z, None, None, acc, &*self, &placed, &Descriptor::DEFAULT)?;
                z
            }
            None => {
                // w outside the indices, u' at them
                let keep: Vec<usize> =
                    inv.iter().enumerate().map(|(i, &p)| if p == usize::MAX { i } else { usize::MAX }).collect();
                let keep = Idx::upload(s, w, "uploading assign indices", &keep)?;
                b.gather(dev, n, &keep, &self.val, &mut placed.val)?;
                b.gather(dev, n, &keep, &self.pres, &mut placed.pres)?;
                placed
            }
        };
        write_vector(self, mask, None, z, desc)
    }
}

/// `w⟨mask, replace⟩ = accum(w, t)` (`w = t` without mask and accumulator).
fn write_vector<T: GpuElement>(
    w: &mut DeviceDenseVector<T>,
    mask: Option<&DeviceMask>,
    accum: Option<&GpuBinaryOp>,
    t: DeviceDenseVector<T>,
    desc: &Descriptor,
) -> crate::Result<()> {
    if mask.is_none() && accum.is_none() {
        *w = t;
        return Ok(());
    }
    write_back(w, mask, accum, &t, &Descriptor { replace: desc.replace, ..Descriptor::DEFAULT })
}
