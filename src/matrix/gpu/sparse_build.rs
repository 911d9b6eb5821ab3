//! Sparse results built on the device: the index-only kernels of
//! `kernels/graphblas_sparse.cu` (part of the util module of each index
//! width) behind the device's matrix product, extract and assign.
//!
//! A result is built in CSR: its entries' columns and, per entry, the
//! position of its value in a source buffer (a permutation); rows are
//! sorted by column ([`Build::sorted_rows`]), then the values are gathered
//! by element size (one kernel per size serves every element type). The
//! CSC form every [`DeviceMatrix`] carries is the transpose of the CSR
//! ([`Build::transpose`]: column counts, a prefix sum, a fill, the columns
//! sorted by row). Every step is `O(entries)` apart from the sort within a
//! row or column (insertion sort for up to 32 entries, heap sort above,
//! a thread per row).

use super::device_index::Idx;
use super::index::IndexWidth;
use super::kernels::{util_source, SPARSE_KERNELS, UTIL_MODULE};
use super::objects::{zeros, DeviceCompressed, DeviceMatrix, DeviceMatrixMask};
use super::scan::{cached, exclusive_scan, grid, util_kernels, Cache, Util};
use super::GpuElement;
use crate::cuda::device::{check, Device};
use crate::cuda::{CudaError, GpuDevice};
use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};
use std::sync::Mutex;

/// The loaded kernels of [`SPARSE_KERNELS`] for one index width, with the
/// util kernels (scan, compaction) they are used with.
#[derive(Clone)]
pub(crate) struct Build {
    util: Util,
    gather: [CudaFunction; 4],
    row_starts: CudaFunction,
    region_flags: CudaFunction,
    remap_count: CudaFunction,
    remap_fill: CudaFunction,
    rows_gather: CudaFunction,
    sort_segments: CudaFunction,
    col_counts: CudaFunction,
    transpose_fill: CudaFunction,
}

/// The kernels of index width `w` on `dev` (compiled once per process with
/// the util module, loaded once per device).
pub(crate) fn build_kernels(dev: &Device, w: IndexWidth) -> Result<Build, CudaError> {
    static CACHE: Cache<Build> = Mutex::new(Vec::new());
    cached(&CACHE, dev, w, || {
        let util = util_kernels(dev, w)?;
        let module = format!("{UTIL_MODULE}_{}", w.name());
        let f = dev.module_functions(&util_source(w), &module, &SPARSE_KERNELS)?;
        let mut it = f.into_iter();
        let mut next =
            || it.next().ok_or_else(|| CudaError::InvalidParameter("the util module lacks a sparse kernel".into()));
        Ok(Build {
            util,
            gather: [next()?, next()?, next()?, next()?],
            row_starts: next()?,
            region_flags: next()?,
            remap_count: next()?,
            remap_fill: next()?,
            rows_gather: next()?,
            sort_segments: next()?,
            col_counts: next()?,
            transpose_fill: next()?,
        })
    })
}

impl Build {
    fn width(&self) -> IndexWidth {
        self.util.width
    }

    /// The gather kernel for elements of `size` bytes.
    fn gather_fn(&self, size: usize) -> Result<&CudaFunction, CudaError> {
        match size {
            1 => Ok(&self.gather[0]),
            2 => Ok(&self.gather[1]),
            4 => Ok(&self.gather[2]),
            8 => Ok(&self.gather[3]),
            s => Err(CudaError::InvalidParameter(format!("no device gather for elements of {s} bytes"))),
        }
    }

    /// `dst[k] = src[perm[k]]` for `k < n`; `dst[k]` is kept where
    /// `perm[k]` is the width's maximum (none).
    pub(crate) fn gather<T: GpuElement>(
        &self,
        dev: &Device,
        n: usize,
        perm: &Idx,
        src: &CudaSlice<T>,
        dst: &mut CudaSlice<T>,
    ) -> Result<(), CudaError> {
        if n == 0 {
            return Ok(());
        }
        let n_ = self.width().val(n);
        let mut lb = dev.stream.launch_builder(self.gather_fn(std::mem::size_of::<T>())?);
        lb.arg(&n_).arg(perm).arg(src).arg(dst);
        // SAFETY: matches gbs_gather_<size>(n, perm, src, dst) for T's size; perm and dst hold n
        // entries, every perm entry other than none indexes src (the callers' invariants).
        check("launching gbs_gather", || unsafe { lb.launch(grid(dev, n)) })?;
        Ok(())
    }

    /// [`Build::gather`] of indices (of this width).
    fn gather_idx(&self, dev: &Device, n: usize, perm: &Idx, src: &Idx, dst: &mut Idx) -> Result<(), CudaError> {
        if n == 0 {
            return Ok(());
        }
        let n_ = self.width().val(n);
        let f = self.gather_fn(match self.width() {
            IndexWidth::U32 => 4,
            IndexWidth::U64 => 8,
        })?;
        let mut lb = dev.stream.launch_builder(f);
        lb.arg(&n_).arg(perm).arg(src).arg(dst);
        // SAFETY: as `gather`, with indices of the kernel's element size.
        check("launching gbs_gather", || unsafe { lb.launch(grid(dev, n)) })?;
        Ok(())
    }

    /// The CSR of rows `ptr` (`nrows + 1` entries, `total` in all) whose
    /// entries are `(key, perm)`: each row sorted by `key` (distinct within
    /// a row), the values gathered from `src` by `perm`.
    fn sorted_rows<T: GpuElement>(
        &self,
        dev: &Device,
        nrows: usize,
        ptr: Idx,
        (mut key, mut perm): (Idx, Idx),
        total: usize,
        src: &CudaSlice<T>,
    ) -> Result<DeviceCompressed<T>, CudaError> {
        if total > 0 && nrows > 0 {
            let n_ = self.width().val(nrows);
            let mut lb = dev.stream.launch_builder(&self.sort_segments);
            lb.arg(&n_).arg(&ptr).arg(&mut key).arg(&mut perm);
            // SAFETY: matches gbs_sort_segments(nseg, ptr, key, perm); ptr holds nrows + 1
            // nondecreasing offsets up to total, key and perm hold total entries.
            check("launching gbs_sort_segments", || unsafe { lb.launch(grid(dev, nrows)) })?;
        }
        let mut val = zeros::<T>(&dev.stream, total)?;
        self.gather(dev, total, &perm, src, &mut val)?;
        Ok(DeviceCompressed { ptr, ind: key, val })
    }

    /// The entries of a CSR (`nrows` rows, `nnz` entries) whose `flag` is
    /// set (`nnz + 1` flags, the last 0), in order, and their count.
    pub(crate) fn compact<T: GpuElement>(
        &self,
        dev: &Device,
        nrows: usize,
        (ptr, ind, val): (&Idx, &Idx, &CudaSlice<T>),
        flag: &Idx,
        nnz: usize,
    ) -> Result<(DeviceCompressed<T>, usize), CudaError> {
        let s = &dev.stream;
        let w = self.width();
        let (pos, total) = exclusive_scan(dev, &self.util, flag, nnz + 1)?;
        let mut sel = Idx::zeros(s, w, total)?;
        if total > 0 {
            let n_ = w.val(nnz);
            let mut lb = s.launch_builder(&self.util.compact_indices);
            lb.arg(&n_).arg(flag).arg(&pos).arg(&mut sel);
            // SAFETY: matches gbu_compact_indices(n, flag, pos, out); out holds the `total` flagged.
            check("launching gbu_compact_indices", || unsafe { lb.launch(grid(dev, nnz)) })?;
        }
        let mut out_ptr = Idx::zeros(s, w, nrows + 1)?;
        let n_ = w.val(nrows);
        let mut lb = s.launch_builder(&self.row_starts);
        lb.arg(&n_).arg(ptr).arg(&pos).arg(&mut out_ptr);
        // SAFETY: matches gbs_row_starts(nrows, ptr, pos, out); ptr's nrows + 1 offsets are at
        // most nnz, pos holds nnz + 1 entries, out nrows + 1.
        check("launching gbs_row_starts", || unsafe { lb.launch(grid(dev, nrows + 1)) })?;
        let mut out_ind = Idx::zeros(s, w, total)?;
        self.gather_idx(dev, total, &sel, ind, &mut out_ind)?;
        let mut out_val = zeros::<T>(s, total)?;
        self.gather(dev, total, &sel, val, &mut out_val)?;
        Ok((DeviceCompressed { ptr: out_ptr, ind: out_ind, val: out_val }, total))
    }

    /// The entries a masked product left per mask position (`val`, and
    /// `pres` set where present) as a CSR in the mask's shape, and their count.
    pub(crate) fn positions<T: GpuElement>(
        &self,
        dev: &Device,
        mask: &DeviceMatrixMask,
        val: &CudaSlice<T>,
        pres: &CudaSlice<u8>,
    ) -> Result<(DeviceCompressed<T>, usize), CudaError> {
        let nnz = mask.nnz;
        let mut flag = Idx::zeros(&dev.stream, self.width(), nnz + 1)?;
        if nnz > 0 {
            let (n_, comp) = (self.width().val(nnz), 0i32);
            let mut lb = dev.stream.launch_builder(&self.util.flags_from_bytes);
            lb.arg(&n_).arg(pres).arg(&comp).arg(&mut flag);
            // SAFETY: matches gbu_flags_from_bytes(n, bytes, comp, flag); pres and flag hold nnz.
            check("launching gbu_flags_from_bytes", || unsafe { lb.launch(grid(dev, nnz)) })?;
        }
        self.compact(dev, mask.nrows, (&mask.ptr, &mask.ind, val), &flag, nnz)
    }

    /// The entries of the CSR `c` (`nrows` rows, `nnz` entries) outside the
    /// region `rowmap × colmap` (a row or column is outside where its map is none).
    pub(crate) fn outside_region<T: GpuElement>(
        &self,
        dev: &Device,
        nrows: usize,
        c: &DeviceCompressed<T>,
        nnz: usize,
        rowmap: &Idx,
        colmap: &Idx,
    ) -> Result<(DeviceCompressed<T>, usize), CudaError> {
        let mut flag = Idx::zeros(&dev.stream, self.width(), nnz + 1)?;
        if nrows > 0 && nnz > 0 {
            let n_ = self.width().val(nrows);
            let mut lb = dev.stream.launch_builder(&self.region_flags);
            lb.arg(&n_).arg(&c.ptr).arg(&c.ind).arg(rowmap).arg(colmap).arg(&mut flag);
            // SAFETY: matches gbs_region_flags(nrows, ptr, ind, rowmap, colmap, flag); rowmap holds
            // nrows entries, colmap one per column of c, flag nnz + 1.
            check("launching gbs_region_flags", || unsafe { lb.launch(grid(dev, nrows)) })?;
        }
        self.compact(dev, nrows, (&c.ptr, &c.ind, &c.val), &flag, nnz)
    }

    /// The remapping of `a` (a CSR): output row `r` takes row `rowmap[r]`
    /// (none: empty), an entry in column `j` becomes the entries in columns
    /// `colq[colptr[j]..colptr[j + 1]]`; rows sorted. Also its entry count.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn remap<T: GpuElement>(
        &self,
        dev: &Device,
        what: &str,
        nout: usize,
        rowmap: &Idx,
        a: &DeviceCompressed<T>,
        colptr: &Idx,
        colq: &Idx,
    ) -> crate::Result<(DeviceCompressed<T>, usize)> {
        let (s, w) = (&dev.stream, self.width());
        let n_ = w.val(nout);
        let mut cnt = Idx::zeros(s, w, nout + 1)?;
        if nout > 0 {
            let mut lb = s.launch_builder(&self.remap_count);
            lb.arg(&n_).arg(rowmap).arg(&a.ptr).arg(&a.ind).arg(colptr).arg(&mut cnt);
            // SAFETY: matches gbs_remap_count(nout, rowmap, aptr, aind, colptr, cnt); rowmap's
            // entries are rows of a or none, a's columns index colptr; cnt holds nout + 1.
            check("launching gbs_remap_count", || unsafe { lb.launch(grid(dev, nout)) })?;
        }
        let (ptr, total) = exclusive_scan(dev, &self.util, &cnt, nout + 1)?;
        w.check_fits(what, &["the result's number of entries"], &[total])?;
        let mut key = Idx::zeros(s, w, total)?;
        let mut perm = Idx::zeros(s, w, total)?;
        if total > 0 {
            let mut lb = s.launch_builder(&self.remap_fill);
            lb.arg(&n_).arg(rowmap).arg(&a.ptr).arg(&a.ind).arg(colptr).arg(colq).arg(&ptr);
            lb.arg(&mut key).arg(&mut perm);
            // SAFETY: matches gbs_remap_fill; ptr is the scan of the counts of the same inputs,
            // key and perm hold their total.
            check("launching gbs_remap_fill", || unsafe { lb.launch(grid(dev, nout)) })?;
        }
        Ok((self.sorted_rows(dev, nout, ptr, (key, perm), total, &a.val)?, total))
    }

    /// The unordered rows a kernel left from `off[i]` (`count[i]` entries,
    /// `nrows + 1` counts, the last 0; columns `oind`, values `oval`) as a
    /// sorted CSR, and its entry count.
    pub(crate) fn rows<T: GpuElement>(
        &self,
        dev: &Device,
        nrows: usize,
        off: &CudaSlice<u64>,
        count: &Idx,
        oind: &Idx,
        oval: &CudaSlice<T>,
    ) -> Result<(DeviceCompressed<T>, usize), CudaError> {
        let (s, w) = (&dev.stream, self.width());
        let (ptr, total) = exclusive_scan(dev, &self.util, count, nrows + 1)?;
        let mut key = Idx::zeros(s, w, total)?;
        let mut perm = Idx::zeros(s, w, total)?;
        if total > 0 {
            let n_ = w.val(nrows);
            let mut lb = s.launch_builder(&self.rows_gather);
            lb.arg(&n_).arg(off).arg(&ptr).arg(oind).arg(&mut key).arg(&mut perm);
            // SAFETY: matches gbs_rows_gather(nrows, off, ptr, oind, key, perm); row i's count
            // entries lie within oind from off[i], key and perm hold the total.
            check("launching gbs_rows_gather", || unsafe { lb.launch(grid(dev, nrows)) })?;
        }
        Ok((self.sorted_rows(dev, nrows, ptr, (key, perm), total, oval)?, total))
    }

    /// The CSC of the `shape.0 × shape.1` CSR `csr` with `nnz` entries.
    pub(crate) fn transpose<T: GpuElement>(
        &self,
        dev: &Device,
        shape: (usize, usize),
        csr: &DeviceCompressed<T>,
        nnz: usize,
    ) -> Result<DeviceCompressed<T>, CudaError> {
        let (s, w) = (&dev.stream, self.width());
        let (nrows, ncols) = shape;
        let mut cnt = Idx::zeros(s, w, ncols + 1)?;
        if nnz > 0 {
            let n_ = w.val(nnz);
            let mut lb = s.launch_builder(&self.col_counts);
            lb.arg(&n_).arg(&csr.ind).arg(&mut cnt);
            // SAFETY: matches gbs_col_counts(nnz, ind, cnt); the columns are below ncols.
            check("launching gbs_col_counts", || unsafe { lb.launch(grid(dev, nnz)) })?;
        }
        let (tptr, _) = exclusive_scan(dev, &self.util, &cnt, ncols + 1)?;
        let mut fill = Idx::zeros(s, w, ncols)?;
        let mut key = Idx::zeros(s, w, nnz)?;
        let mut perm = Idx::zeros(s, w, nnz)?;
        if nnz > 0 && nrows > 0 {
            let n_ = w.val(nrows);
            let mut lb = s.launch_builder(&self.transpose_fill);
            lb.arg(&n_).arg(&csr.ptr).arg(&csr.ind).arg(&tptr).arg(&mut fill).arg(&mut key).arg(&mut perm);
            // SAFETY: matches gbs_transpose_fill; tptr is the scan of the column counts, fill
            // holds ncols zeros, key and perm nnz entries.
            check("launching gbs_transpose_fill", || unsafe { lb.launch(grid(dev, nrows)) })?;
        }
        self.sorted_rows(dev, ncols, tptr, (key, perm), nnz, &csr.val)
    }

    /// The device matrix of shape `shape` whose CSR is `csr` (`nnz`
    /// entries): its CSC by [`Build::transpose`].
    pub(crate) fn matrix<T: GpuElement>(
        &self,
        gpu: &GpuDevice,
        shape: (usize, usize),
        csr: DeviceCompressed<T>,
        nnz: usize,
    ) -> Result<DeviceMatrix<T>, CudaError> {
        let csc = self.transpose(&gpu.dev, shape, &csr, nnz)?;
        Ok(DeviceMatrix::from_forms(gpu, shape, nnz, csr, csc))
    }
}
