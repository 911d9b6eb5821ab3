//! Device matrices, vectors and masks: uploaded once, reused by every
//! operation, downloaded to the CPU types.

use super::GpuElement;
use crate::cuda::device::check;
use crate::cuda::{CudaError, GpuDevice};
use crate::matrix::{DenseVector, Mask, MatrixMask, SparseMatrix, SparseVector};
use cudarc::driver::{CudaSlice, CudaStream};
use std::sync::Arc;

use super::index::IndexWidth;

pub(crate) fn check_size(what: &str, n: usize) -> Result<(), CudaError> {
    IndexWidth::require_u32("the GPU GraphBLAS", &[what], &[n])
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

fn to_u32(v: &[usize]) -> Vec<u32> {
    v.iter().map(|&x| x as u32).collect()
}

/// One compressed form on the device: row pointers, column indices, values.
pub(crate) struct DeviceCompressed<T: GpuElement> {
    pub(crate) ptr: CudaSlice<u32>,
    pub(crate) ind: CudaSlice<u32>,
    pub(crate) val: CudaSlice<T>,
}

impl<T: GpuElement> DeviceCompressed<T> {
    fn upload(stream: &Arc<CudaStream>, ptr: &[usize], ind: &[usize], val: &[T]) -> Result<Self, CudaError> {
        Ok(DeviceCompressed {
            ptr: upload(stream, "uploading row pointers", &to_u32(ptr))?,
            ind: upload(stream, "uploading column indices", &to_u32(ind))?,
            val: upload(stream, "uploading values", val)?,
        })
    }
}

/// A sparse matrix on the GPU, in CSR and in CSC form (the CSR of its
/// transpose), with indices of the width [`IndexWidth::for_sizes`] chooses:
/// 32 bits for dimensions and entry counts up to [`MAX_INDEX`](super::MAX_INDEX); a matrix
/// that needs 64 bits is refused ([`CudaError::Needs64BitIndices`]).
pub struct DeviceMatrix<T: GpuElement> {
    pub(crate) dev: GpuDevice,
    nrows: usize,
    ncols: usize,
    nnz: usize,
    pub(crate) csr: DeviceCompressed<T>,
    pub(crate) csc: DeviceCompressed<T>,
}

impl<T: GpuElement> DeviceMatrix<T> {
    /// Uploads `a` (both forms; the CPU matrix's cached transpose is used or computed).
    ///
    /// # Errors
    /// [`CudaError::Needs64BitIndices`] past [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn upload(dev: &GpuDevice, a: &SparseMatrix<T>) -> Result<Self, CudaError> {
        let sizes = [a.nrows(), a.ncols(), a.nnz()];
        if IndexWidth::for_sizes(&sizes) == IndexWidth::U64 {
            let what = ["the number of rows", "the number of columns", "the number of stored entries"];
            IndexWidth::require_u32("uploading a matrix to the GPU GraphBLAS", &what, &sizes)?;
        }
        let s = &dev.dev.stream;
        let csr = DeviceCompressed::upload(s, a.indptr(), a.indices(), a.values())?;
        let t = a.transposed_csr();
        let csc = DeviceCompressed::upload(s, t.indptr().raw_storage(), t.indices(), t.data())?;
        Ok(DeviceMatrix { dev: dev.clone(), nrows: a.nrows(), ncols: a.ncols(), nnz: a.nnz(), csr, csc })
    }

    /// A copy on the same device.
    ///
    /// # Errors
    /// Driver errors.
    pub fn try_clone(&self) -> Result<Self, CudaError> {
        let s = &self.dev.dev.stream;
        let copy = |f: &DeviceCompressed<T>| -> Result<DeviceCompressed<T>, CudaError> {
            Ok(DeviceCompressed {
                ptr: check("copying a matrix", || s.clone_dtod(&f.ptr))?,
                ind: check("copying a matrix", || s.clone_dtod(&f.ind))?,
                val: check("copying a matrix", || s.clone_dtod(&f.val))?,
            })
        };
        Ok(DeviceMatrix { dev: self.dev.clone(), csr: copy(&self.csr)?, csc: copy(&self.csc)?, ..*self })
    }

    /// The `nrows × ncols` matrix with no entries (an output to fill).
    ///
    /// # Errors
    /// [`CudaError::Needs64BitIndices`] past [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn new(dev: &GpuDevice, nrows: usize, ncols: usize) -> Result<Self, CudaError> {
        IndexWidth::require_u32(
            "creating a GPU matrix",
            &["the number of rows", "the number of columns"],
            &[nrows, ncols],
        )?;
        let s = &dev.dev.stream;
        let empty = |n: usize| -> Result<DeviceCompressed<T>, CudaError> {
            Ok(DeviceCompressed { ptr: zeros(s, n + 1)?, ind: zeros(s, 1)?, val: zeros(s, 1)? })
        };
        Ok(DeviceMatrix { dev: dev.clone(), nrows, ncols, nnz: 0, csr: empty(nrows)?, csc: empty(ncols)? })
    }

    /// A matrix from its two forms (computed on the device; trusted).
    pub(crate) fn from_forms(
        dev: &GpuDevice,
        shape: (usize, usize),
        nnz: usize,
        csr: DeviceCompressed<T>,
        csc: DeviceCompressed<T>,
    ) -> Self {
        DeviceMatrix { dev: dev.clone(), nrows: shape.0, ncols: shape.1, nnz, csr, csc }
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

    /// The width of its indices (always [`IndexWidth::U32`] today: wider
    /// matrices are refused at upload).
    pub fn index_width(&self) -> IndexWidth {
        IndexWidth::for_sizes(&[self.nrows, self.ncols, self.nnz])
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
        let s = &self.dev.dev.stream;
        let ptr = download(s, "downloading row pointers", &self.csr.ptr, self.nrows + 1)?;
        let ind = download(s, "downloading column indices", &self.csr.ind, self.nnz)?;
        let val = download(s, "downloading values", &self.csr.val, self.nnz)?;
        Ok(SparseMatrix::from_csr_parts(
            self.nrows,
            self.ncols,
            ptr.into_iter().map(|x| x as usize).collect(),
            ind.into_iter().map(|x| x as usize).collect(),
            val,
        ))
    }
}

/// A vector on the GPU in bitmap form: values and a presence byte per position.
pub struct DeviceDenseVector<T: GpuElement> {
    pub(crate) dev: GpuDevice,
    pub(crate) n: usize,
    pub(crate) val: CudaSlice<T>,
    pub(crate) pres: CudaSlice<u8>,
}

impl<T: GpuElement> DeviceDenseVector<T> {
    /// The vector of size `n` with no entries.
    ///
    /// # Errors
    /// Past [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn new(dev: &GpuDevice, n: usize) -> Result<Self, CudaError> {
        check_size("the vector size", n)?;
        let s = &dev.dev.stream;
        Ok(DeviceDenseVector { dev: dev.clone(), n, val: zeros(s, n)?, pres: zeros(s, n)? })
    }

    /// Uploads `v`.
    ///
    /// # Errors
    /// Past [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn upload(dev: &GpuDevice, v: &DenseVector<T>) -> Result<Self, CudaError> {
        check_size("the vector size", v.len())?;
        let s = &dev.dev.stream;
        let pres: Vec<u8> = v.present().iter().map(|&p| p as u8).collect();
        Ok(DeviceDenseVector {
            dev: dev.clone(),
            n: v.len(),
            val: upload(s, "uploading vector values", v.values())?,
            pres: upload(s, "uploading vector presence", &pres)?,
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

/// A sparse vector on the GPU: `nnz` strictly increasing 32-bit indices and their values.
pub struct DeviceSparseVector<T: GpuElement> {
    pub(crate) dev: GpuDevice,
    pub(crate) n: usize,
    pub(crate) nnz: usize,
    pub(crate) idx: CudaSlice<u32>,
    pub(crate) val: CudaSlice<T>,
}

impl<T: GpuElement> DeviceSparseVector<T> {
    /// The empty vector of size `n`.
    ///
    /// # Errors
    /// Past [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn new(dev: &GpuDevice, n: usize) -> Result<Self, CudaError> {
        check_size("the vector size", n)?;
        let s = &dev.dev.stream;
        Ok(DeviceSparseVector { dev: dev.clone(), n, nnz: 0, idx: zeros(s, 1)?, val: zeros(s, 1)? })
    }

    /// Uploads `v`.
    ///
    /// # Errors
    /// Past [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn upload(dev: &GpuDevice, v: &SparseVector<T>) -> Result<Self, CudaError> {
        check_size("the vector size", v.len())?;
        let s = &dev.dev.stream;
        Ok(DeviceSparseVector {
            dev: dev.clone(),
            n: v.len(),
            nnz: v.nnz(),
            idx: upload(s, "uploading vector indices", &to_u32(v.indices()))?,
            val: upload(s, "uploading vector values", v.values())?,
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
        let idx = download(s, "downloading vector indices", &self.idx, self.nnz)?;
        let val = download(s, "downloading vector values", &self.val, self.nnz)?;
        Ok(SparseVector::from_sorted(self.n, idx.into_iter().map(|i| i as usize).collect(), val))
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
    /// Past [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn upload(dev: &GpuDevice, m: &Mask<'_>) -> Result<Self, CudaError> {
        check_size("the mask size", m.len())?;
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
    /// Host row pointers, to assemble a downloaded result.
    pub(crate) host_ptr: Vec<usize>,
    pub(crate) host_ind: Vec<usize>,
    pub(crate) row_of: CudaSlice<u32>,
    pub(crate) ptr: CudaSlice<u32>,
    pub(crate) ind: CudaSlice<u32>,
    /// The pattern of the transpose (column pointers, row indices).
    pub(crate) tptr: CudaSlice<u32>,
    pub(crate) tind: CudaSlice<u32>,
    pub(crate) complement: bool,
}

impl DeviceMatrixMask {
    /// Uploads a CPU [`MatrixMask`] (its complement flag included; the dot
    /// form of the masked product refuses a complemented one, the hash form,
    /// [`GpuMxmStrategy::Hash`](super::GpuMxmStrategy), takes it).
    ///
    /// # Errors
    /// [`CudaError::InvalidParameter`] past [`MAX_INDEX`](super::MAX_INDEX); driver errors.
    pub fn upload(dev: &GpuDevice, m: &MatrixMask<'_>) -> Result<Self, CudaError> {
        let (nrows, ncols) = m.shape();
        check_size("the mask's rows", nrows)?;
        check_size("the mask's columns", ncols)?;
        let mut host_ptr = vec![0usize];
        let (mut row_of, mut host_ind) = (Vec::new(), Vec::new());
        for i in 0..nrows {
            let p = m.row_pattern(i);
            row_of.extend(std::iter::repeat_n(i as u32, p.len()));
            host_ind.extend_from_slice(p);
            host_ptr.push(host_ind.len());
        }
        check_size("the mask's entries", host_ind.len())?;
        // the transpose's pattern by a counting sort (rows stay sorted)
        let mut tptr = vec![0u32; ncols + 1];
        for &j in &host_ind {
            tptr[j + 1] += 1;
        }
        for j in 0..ncols {
            tptr[j + 1] += tptr[j];
        }
        let mut next = tptr.clone();
        let mut tind = vec![0u32; host_ind.len()];
        for (&i, &j) in row_of.iter().zip(&host_ind) {
            tind[next[j] as usize] = i;
            next[j] += 1;
        }
        let s = &dev.dev.stream;
        Ok(DeviceMatrixMask {
            nrows,
            ncols,
            nnz: host_ind.len(),
            row_of: upload(s, "uploading mask rows", &row_of)?,
            ptr: upload(s, "uploading mask row pointers", &to_u32(&host_ptr))?,
            ind: upload(s, "uploading mask columns", &to_u32(&host_ind))?,
            tptr: upload(s, "uploading mask column pointers", &tptr)?,
            tind: upload(s, "uploading mask rows", &tind)?,
            host_ptr,
            host_ind,
            complement: m.is_complemented(),
        })
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
