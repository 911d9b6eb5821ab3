//! Device matrices, vectors and masks: uploaded once, reused by every
//! operation, downloaded to the CPU types.

use super::device_index::Idx;
use super::GpuElement;
use crate::cuda::device::check;
use crate::cuda::{CudaError, GpuDevice};
use crate::matrix::{DenseVector, Mask, MatrixMask, SparseMatrix, SparseVector};
use cudarc::driver::{CudaSlice, CudaStream};
use std::sync::Arc;

use super::index::IndexWidth;

/// The width for these sizes: `forced`, when it holds them, or the one
/// [`IndexWidth::for_sizes`] chooses.
pub(crate) fn width_for(
    operation: &str,
    what: &[&str],
    sizes: &[usize],
    forced: Option<IndexWidth>,
) -> Result<IndexWidth, CudaError> {
    match forced {
        Some(w) => w.check_fits(operation, what, sizes).map(|()| w),
        None => Ok(IndexWidth::for_sizes(sizes)),
    }
}

/// Checks that operands of an operation share one index width.
pub(crate) fn same_width(operation: &str, what: &str, have: IndexWidth, want: IndexWidth) -> Result<(), CudaError> {
    if have != want {
        return Err(CudaError::Mismatch {
            uploaded: format!("{what} with {} indices ({operation})", have.name()),
            expected: format!(
                "{} indices as the matrix's: upload it with upload_with_width(.., IndexWidth::{})",
                want.name(),
                want.name().to_uppercase()
            ),
        });
    }
    Ok(())
}

/// Uploads `v` (one padding element when empty: the driver allocates no empty buffer).
pub(crate) fn upload<T: GpuElement>(stream: &Arc<CudaStream>, what: &str, v: &[T]) -> Result<CudaSlice<T>, CudaError> {
    if v.is_empty() {
        check(what, || stream.clone_htod(&[T::default()]))
    } else {
        check(what, || stream.clone_htod(v))
    }
}

/// A zeroed device buffer of `len` elements (at least one).
pub(crate) fn zeros<T: GpuElement>(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<T>, CudaError> {
    check("allocating a device buffer", || stream.alloc_zeros::<T>(len.max(1)))
}

/// Downloads the first `len` elements of `d`.
pub(crate) fn download<T: GpuElement>(
    stream: &Arc<CudaStream>,
    what: &str,
    d: &CudaSlice<T>,
    len: usize,
) -> Result<Vec<T>, CudaError> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let mut h = check(what, || stream.clone_dtoh(&d.slice(0..len)))?;
    check("synchronizing", || stream.synchronize())?;
    h.truncate(len);
    Ok(h)
}

/// One compressed form on the device: row pointers, column indices, values.
pub(crate) struct DeviceCompressed<T: GpuElement> {
    pub(crate) ptr: Idx,
    pub(crate) ind: Idx,
    pub(crate) val: CudaSlice<T>,
}

impl<T: GpuElement> DeviceCompressed<T> {
    fn upload(
        stream: &Arc<CudaStream>,
        w: IndexWidth,
        ptr: &[usize],
        ind: &[usize],
        val: &[T],
    ) -> Result<Self, CudaError> {
        Ok(DeviceCompressed {
            ptr: Idx::upload(stream, w, "uploading row pointers", ptr)?,
            ind: Idx::upload(stream, w, "uploading column indices", ind)?,
            val: upload(stream, "uploading values", val)?,
        })
    }

    /// Downloads this form of an `nrows × ncols` matrix with `nnz` entries.
    pub(crate) fn download(
        &self,
        s: &Arc<CudaStream>,
        nrows: usize,
        ncols: usize,
        nnz: usize,
    ) -> Result<SparseMatrix<T>, CudaError> {
        let ptr = self.ptr.download(s, "downloading row pointers", nrows + 1)?;
        let ind = self.ind.download(s, "downloading column indices", nnz)?;
        let val = download(s, "downloading values", &self.val, nnz)?;
        Ok(SparseMatrix::from_csr_parts(nrows, ncols, ptr, ind, val))
    }
}

/// A sparse matrix on the GPU, in CSR and in CSC form (the CSR of its
/// transpose), with indices of the width [`IndexWidth::for_sizes`] chooses
/// (32 bits for dimensions and entry counts up to
/// [`MAX_INDEX`](super::MAX_INDEX), else 64) or of a forced width
/// ([`DeviceMatrix::upload_with_width`]).
pub struct DeviceMatrix<T: GpuElement> {
    pub(crate) dev: GpuDevice,
    nrows: usize,
    ncols: usize,
    nnz: usize,
    width: IndexWidth,
    pub(crate) csr: DeviceCompressed<T>,
    pub(crate) csc: DeviceCompressed<T>,
}

const MATRIX_SIZES: [&str; 3] = ["the number of rows", "the number of columns", "the number of stored entries"];

impl<T: GpuElement> DeviceMatrix<T> {
    /// The rows of `A`, or of `Aᵀ` with `transpose` (then `A`'s CSC), and
    /// their shape (rows, columns): the operand as an operation reads it.
    pub(crate) fn oriented(&self, transpose: bool) -> (&DeviceCompressed<T>, (usize, usize)) {
        if transpose { (&self.csc, (self.ncols(), self.nrows())) } else { (&self.csr, (self.nrows(), self.ncols())) }
    }

    /// Uploads `a` (both forms; the CPU matrix's cached transpose is used or
    /// computed), its index width chosen by [`IndexWidth::for_sizes`].
    ///
    /// # Errors
    /// Driver errors.
    pub fn upload(dev: &GpuDevice, a: &SparseMatrix<T>) -> Result<Self, CudaError> {
        Self::upload_width(dev, a, None)
    }

    /// [`DeviceMatrix::upload`] with indices of width `w` (e.g. 64 bits on a
    /// small matrix, to run the 64-bit kernels).
    ///
    /// # Errors
    /// [`CudaError::Needs64BitIndices`] for [`IndexWidth::U32`] past
    /// [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn upload_with_width(dev: &GpuDevice, a: &SparseMatrix<T>, w: IndexWidth) -> Result<Self, CudaError> {
        Self::upload_width(dev, a, Some(w))
    }

    fn upload_width(dev: &GpuDevice, a: &SparseMatrix<T>, w: Option<IndexWidth>) -> Result<Self, CudaError> {
        let sizes = [a.nrows(), a.ncols(), a.nnz()];
        let width = width_for("uploading a matrix to the GPU GraphBLAS", &MATRIX_SIZES, &sizes, w)?;
        let s = &dev.dev.stream;
        let csr = DeviceCompressed::upload(s, width, a.indptr(), a.indices(), a.values())?;
        let t = a.transposed_csr();
        let csc = DeviceCompressed::upload(s, width, t.indptr().raw_storage(), t.indices(), t.data())?;
        Ok(DeviceMatrix { dev: dev.clone(), nrows: a.nrows(), ncols: a.ncols(), nnz: a.nnz(), width, csr, csc })
    }

    /// A copy on the same device.
    ///
    /// # Errors
    /// Driver errors.
    pub fn try_clone(&self) -> Result<Self, CudaError> {
        let s = &self.dev.dev.stream;
        let copy = |f: &DeviceCompressed<T>| -> Result<DeviceCompressed<T>, CudaError> {
            Ok(DeviceCompressed {
                ptr: f.ptr.try_clone(s, "copying a matrix")?,
                ind: f.ind.try_clone(s, "copying a matrix")?,
                val: check("copying a matrix", || s.clone_dtod(&f.val))?,
            })
        };
        Ok(DeviceMatrix { dev: self.dev.clone(), csr: copy(&self.csr)?, csc: copy(&self.csc)?, ..*self })
    }

    /// The `nrows × ncols` matrix with no entries (an output to fill), its
    /// index width chosen by [`IndexWidth::for_sizes`] on its dimensions.
    ///
    /// # Errors
    /// Driver errors.
    pub fn new(dev: &GpuDevice, nrows: usize, ncols: usize) -> Result<Self, CudaError> {
        Self::new_width(dev, nrows, ncols, None)
    }

    /// [`DeviceMatrix::new`] with indices of width `w`.
    ///
    /// # Errors
    /// [`CudaError::Needs64BitIndices`] for [`IndexWidth::U32`] past
    /// [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn new_with_width(dev: &GpuDevice, nrows: usize, ncols: usize, w: IndexWidth) -> Result<Self, CudaError> {
        Self::new_width(dev, nrows, ncols, Some(w))
    }

    fn new_width(dev: &GpuDevice, nrows: usize, ncols: usize, w: Option<IndexWidth>) -> Result<Self, CudaError> {
        let width = width_for("creating a GPU matrix", &MATRIX_SIZES[..2], &[nrows, ncols], w)?;
        let s = &dev.dev.stream;
        let empty = |n: usize| -> Result<DeviceCompressed<T>, CudaError> {
            Ok(DeviceCompressed { ptr: Idx::zeros(s, width, n + 1)?, ind: Idx::zeros(s, width, 1)?, val: zeros(s, 1)? })
        };
        Ok(DeviceMatrix { dev: dev.clone(), nrows, ncols, nnz: 0, width, csr: empty(nrows)?, csc: empty(ncols)? })
    }

    /// A matrix from its two forms (computed on the device; trusted).
    pub(crate) fn from_forms(
        dev: &GpuDevice,
        shape: (usize, usize),
        nnz: usize,
        csr: DeviceCompressed<T>,
        csc: DeviceCompressed<T>,
    ) -> Self {
        let width = csr.ptr.width();
        DeviceMatrix { dev: dev.clone(), nrows: shape.0, ncols: shape.1, nnz, width, csr, csc }
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// The width of its indices.
    pub fn index_width(&self) -> IndexWidth {
        self.width
    }

    /// The device this matrix lives on.
    pub fn device(&self) -> &GpuDevice {
        &self.dev
    }

    /// Downloads the CSR form as a [`SparseMatrix`].
    ///
    /// # Errors
    /// Driver errors.
    pub fn download(&self) -> Result<SparseMatrix<T>, CudaError> {
        self.csr.download(&self.dev.dev.stream, self.nrows, self.ncols, self.nnz)
    }
}

/// A vector on the GPU in bitmap form: values and a presence byte per position.
pub struct DeviceDenseVector<T: GpuElement> {
    pub(crate) dev: GpuDevice,
    pub(crate) n: usize,
    pub(crate) val: CudaSlice<T>,
    pub(crate) pres: CudaSlice<u8>,
    /// [`assign_min`](crate::matrix::assign_min)'s flags (all zero between
    /// calls), kept from one call to the next.
    pub(crate) flags: Option<Box<super::Idx>>,
}

impl<T: GpuElement> DeviceDenseVector<T> {
    /// The vector of size `n` with no entries.
    ///
    /// # Errors
    /// Driver errors.
    pub fn new(dev: &GpuDevice, n: usize) -> Result<Self, CudaError> {
        let s = &dev.dev.stream;
        Ok(DeviceDenseVector { dev: dev.clone(), n, val: zeros(s, n)?, pres: zeros(s, n)?, flags: None })
    }

    /// Uploads `v` (a bitmap: no indices, so no index width).
    ///
    /// # Errors
    /// Driver errors.
    pub fn upload(dev: &GpuDevice, v: &DenseVector<T>) -> Result<Self, CudaError> {
        let s = &dev.dev.stream;
        let pres: Vec<u8> = v.present().iter().map(|&p| p as u8).collect();
        Ok(DeviceDenseVector {
            dev: dev.clone(),
            n: v.len(),
            val: upload(s, "uploading vector values", v.values())?,
            pres: upload(s, "uploading vector presence", &pres)?,
            flags: None,
        })
    }

    /// Size.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the size is 0.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Downloads as a [`DenseVector`] (absent entries hold `T::default()`).
    ///
    /// # Errors
    /// Driver errors.
    pub fn download(&self) -> Result<DenseVector<T>, CudaError> {
        let s = &self.dev.dev.stream;
        let mut values = download(s, "downloading vector values", &self.val, self.n)?;
        let present: Vec<bool> =
            download(s, "downloading vector presence", &self.pres, self.n)?.into_iter().map(|p| p != 0).collect();
        for (v, &p) in values.iter_mut().zip(&present) {
            if !p {
                *v = T::default();
            }
        }
        Ok(DenseVector { values, present })
    }
}

/// A sparse vector on the GPU: `nnz` strictly increasing indices (of the
/// width [`IndexWidth::for_sizes`] chooses for its size, or a forced one)
/// and their values. An operation with a matrix takes vectors of the
/// matrix's width.
pub struct DeviceSparseVector<T: GpuElement> {
    pub(crate) dev: GpuDevice,
    pub(crate) n: usize,
    pub(crate) nnz: usize,
    pub(crate) idx: Idx,
    pub(crate) val: CudaSlice<T>,
}

impl<T: GpuElement> DeviceSparseVector<T> {
    /// The empty vector of size `n`.
    ///
    /// # Errors
    /// Driver errors.
    pub fn new(dev: &GpuDevice, n: usize) -> Result<Self, CudaError> {
        let s = &dev.dev.stream;
        let idx = Idx::zeros(s, IndexWidth::for_sizes(&[n]), 1)?;
        Ok(DeviceSparseVector { dev: dev.clone(), n, nnz: 0, idx, val: zeros(s, 1)? })
    }

    /// Uploads `v`, its index width chosen by [`IndexWidth::for_sizes`].
    ///
    /// # Errors
    /// Driver errors.
    pub fn upload(dev: &GpuDevice, v: &SparseVector<T>) -> Result<Self, CudaError> {
        Self::upload_width(dev, v, None)
    }

    /// [`DeviceSparseVector::upload`] with indices of width `w` (that of
    /// the matrices it meets).
    ///
    /// # Errors
    /// [`CudaError::Needs64BitIndices`] for [`IndexWidth::U32`] past
    /// [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn upload_with_width(dev: &GpuDevice, v: &SparseVector<T>, w: IndexWidth) -> Result<Self, CudaError> {
        Self::upload_width(dev, v, Some(w))
    }

    fn upload_width(dev: &GpuDevice, v: &SparseVector<T>, w: Option<IndexWidth>) -> Result<Self, CudaError> {
        let width = width_for("uploading a sparse vector", &["the vector size"], &[v.len()], w)?;
        let s = &dev.dev.stream;
        Ok(DeviceSparseVector {
            dev: dev.clone(),
            n: v.len(),
            nnz: v.nnz(),
            idx: Idx::upload(s, width, "uploading vector indices", v.indices())?,
            val: upload(s, "uploading vector values", v.values())?,
        })
    }

    /// The width of its indices.
    pub fn index_width(&self) -> IndexWidth {
        self.idx.width()
    }

    /// Size.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the size is 0.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Downloads as a [`SparseVector`].
    ///
    /// # Errors
    /// Driver errors.
    pub fn download(&self) -> Result<SparseVector<T>, CudaError> {
        let s = &self.dev.dev.stream;
        let idx = self.idx.download(s, "downloading vector indices", self.nnz)?;
        let val = download(s, "downloading vector values", &self.val, self.nnz)?;
        Ok(SparseVector::from_sorted(self.n, idx, val))
    }
}

/// A vector mask on the GPU: a byte per position and a complement flag;
/// position `i` may be written when `(bits[i] != 0) != complement`.
pub struct DeviceMask {
    pub(crate) n: usize,
    pub(crate) bits: CudaSlice<u8>,
    pub(crate) complement: bool,
}

impl DeviceMask {
    /// Uploads a CPU [`Mask`] (structural or valued, complemented or not;
    /// the complement is folded into the bytes).
    ///
    /// # Errors
    /// Driver errors.
    pub fn upload(dev: &GpuDevice, m: &Mask<'_>) -> Result<Self, CudaError> {
        let bits: Vec<u8> = (0..m.len()).map(|i| m.allows(i) as u8).collect();
        Ok(DeviceMask { n: m.len(), bits: upload(&dev.dev.stream, "uploading a mask", &bits)?, complement: false })
    }

    /// The structural mask of a device vector (a device-to-device copy of its presence bytes).
    ///
    /// # Errors
    /// Driver errors.
    pub fn structural<T: GpuElement>(v: &DeviceDenseVector<T>) -> Result<Self, CudaError> {
        let bits = check("copying a mask", || v.dev.dev.stream.clone_dtod(&v.pres))?;
        Ok(DeviceMask { n: v.n, bits, complement: false })
    }

    /// The complemented mask.
    pub fn complement(mut self) -> Self {
        self.complement = !self.complement;
        self
    }

    /// Size.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the size is 0.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

/// A matrix mask on the GPU (structural or valued, complemented or not):
/// the pattern of the listed positions (the allowed ones, or with
/// `complement` the forbidden ones) row by row and column by column (for the
/// operations that also build the CSC form of their result), and a row index
/// per position (the masked products' work list).
pub struct DeviceMatrixMask {
    pub(crate) nrows: usize,
    pub(crate) ncols: usize,
    pub(crate) nnz: usize,
    /// Host row pointers (the hash product's table sizes).
    pub(crate) host_ptr: Vec<usize>,
    pub(crate) row_of: Idx,
    pub(crate) ptr: Idx,
    pub(crate) ind: Idx,
    /// The pattern of the transpose (column pointers, row indices).
    pub(crate) tptr: Idx,
    pub(crate) tind: Idx,
    pub(crate) complement: bool,
    width: IndexWidth,
}

impl DeviceMatrixMask {
    /// Uploads a CPU [`MatrixMask`] (its complement flag included; the dot
    /// form of the masked product refuses a complemented one, the hash form,
    /// [`GpuMxmStrategy::Hash`](super::GpuMxmStrategy), takes it).
    ///
    /// Its index width is chosen by [`IndexWidth::for_sizes`]; the masked
    /// products and element-wise operations take masks of their matrices'
    /// width.
    ///
    /// # Errors
    /// Driver errors.
    pub fn upload(dev: &GpuDevice, m: &MatrixMask<'_>) -> Result<Self, CudaError> {
        Self::upload_width(dev, m, None)
    }

    /// [`DeviceMatrixMask::upload`] with indices of width `w`.
    ///
    /// # Errors
    /// [`CudaError::Needs64BitIndices`] for [`IndexWidth::U32`] past
    /// [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn upload_with_width(dev: &GpuDevice, m: &MatrixMask<'_>, w: IndexWidth) -> Result<Self, CudaError> {
        Self::upload_width(dev, m, Some(w))
    }

    fn upload_width(dev: &GpuDevice, m: &MatrixMask<'_>, w: Option<IndexWidth>) -> Result<Self, CudaError> {
        let (nrows, ncols) = m.shape();
        let mut host_ptr = vec![0usize];
        let (mut row_of, mut host_ind) = (Vec::new(), Vec::new());
        for i in 0..nrows {
            let p = m.row_pattern(i);
            row_of.extend(std::iter::repeat_n(i, p.len()));
            host_ind.extend_from_slice(p);
            host_ptr.push(host_ind.len());
        }
        let what = ["the mask's rows", "the mask's columns", "the mask's entries"];
        let width = width_for("uploading a matrix mask", &what, &[nrows, ncols, host_ind.len()], w)?;
        // the transpose's pattern by a counting sort (rows stay sorted)
        let mut tptr = vec![0usize; ncols + 1];
        for &j in &host_ind {
            tptr[j + 1] += 1;
        }
        for j in 0..ncols {
            tptr[j + 1] += tptr[j];
        }
        let mut next = tptr.clone();
        let mut tind = vec![0usize; host_ind.len()];
        for (&i, &j) in row_of.iter().zip(&host_ind) {
            tind[next[j]] = i;
            next[j] += 1;
        }
        let s = &dev.dev.stream;
        Ok(DeviceMatrixMask {
            nrows,
            ncols,
            nnz: host_ind.len(),
            row_of: Idx::upload(s, width, "uploading mask rows", &row_of)?,
            ptr: Idx::upload(s, width, "uploading mask row pointers", &host_ptr)?,
            ind: Idx::upload(s, width, "uploading mask columns", &host_ind)?,
            tptr: Idx::upload(s, width, "uploading mask column pointers", &tptr)?,
            tind: Idx::upload(s, width, "uploading mask rows", &tind)?,
            host_ptr,
            complement: m.is_complemented(),
            width,
        })
    }

    /// The complemented mask with no listed position: every position
    /// allowed (what an unmasked product runs with).
    pub(crate) fn everything(dev: &GpuDevice, nrows: usize, ncols: usize, width: IndexWidth) -> Result<Self, CudaError> {
        let s = &dev.dev.stream;
        Ok(DeviceMatrixMask {
            nrows,
            ncols,
            nnz: 0,
            host_ptr: vec![0; nrows + 1],
            row_of: Idx::zeros(s, width, 1)?,
            ptr: Idx::zeros(s, width, nrows + 1)?,
            ind: Idx::zeros(s, width, 1)?,
            tptr: Idx::zeros(s, width, ncols + 1)?,
            tind: Idx::zeros(s, width, 1)?,
            complement: true,
            width,
        })
    }

    /// The width of its indices.
    pub fn index_width(&self) -> IndexWidth {
        self.width
    }

    /// Number of listed positions (the allowed ones, or the forbidden ones
    /// of a complemented mask).
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Whether the mask is complemented.
    pub fn is_complemented(&self) -> bool {
        self.complement
    }

    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.nrows, self.ncols)
    }
}
