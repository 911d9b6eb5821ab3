//! `.npy` output (NumPy's array format, through the `npyz` crate): dense
//! matrices, 1-D arrays and per-node feature matrices that
//! `numpy.load(path)` reads directly.
//!
//! Matrices are written in C (row-major) order with shape `(rows, cols)`:
//! entry `(i, j)` is `data[i * cols + j]`, and `numpy.load` gives an array
//! `a` with `a[i, j]` equal to it. Values are little-endian (`<f8`, `<f4`,
//! `<i8`, `<u8`, `<i4`, `<u4`).
//!
//! Every file is written atomically ([`output`](super::output)): to a
//! temporary file in the same folder, `fsync`'d, then renamed over the
//! target, so an interrupted or failed write leaves no partial file and any
//! previous file intact.

use super::IoError;
use crate::graph::Dataset;
use std::io::Write as _;
use std::path::Path;

/// A scalar type that can be written to `.npy`: `f64`, `f32`, `i64`, `u64`,
/// `i32`, `u32`, `bool`.
pub trait Element: npyz::AutoSerialize + Copy + sealed::Sealed {}

mod sealed {
    /// The `.npy` type string and little-endian bytes of an element.
    pub trait Sealed: Copy + Send + Sync {
        const DESCR: &'static str;
        const SIZE: usize;
        fn put(self, out: &mut [u8]);
    }
}

macro_rules! element {
    ($($t:ty => $d:literal),*) => { $(
        impl sealed::Sealed for $t {
            const DESCR: &'static str = $d;
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
        impl Element for $t {}
    )* };
}
element!(f64 => "<f8", f32 => "<f4", i64 => "<i8", u64 => "<u8", i32 => "<i4", u32 => "<u4");

impl sealed::Sealed for bool {
    const DESCR: &'static str = "|b1";
    const SIZE: usize = 1;
    #[inline]
    fn put(self, out: &mut [u8]) {
        out[0] = u8::from(self);
    }
}
impl Element for bool {}

/// Writes the dense row-major matrix `data` of shape `(rows, cols)`.
///
/// Cost `O(rows × cols)`, written in large blocks.
///
/// # Errors
/// [`IoError::Shape`] when `data.len() != rows * cols` (nothing is written);
/// [`IoError::Os`] when the file cannot be written.
///
/// # Examples
/// ```
/// use kronograph::graph::io::npy;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("k.npy");
/// npy::write_matrix(&path, 2, 3, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
/// let bytes = std::fs::read(&path).unwrap();
/// let arr = npyz::NpyFile::new(&bytes[..]).unwrap();
/// assert_eq!(arr.shape(), &[2, 3]);
/// assert_eq!(arr.into_vec::<f64>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// ```
pub fn write_matrix<T: Element>(path: impl AsRef<Path>, rows: usize, cols: usize, data: &[T]) -> Result<(), IoError> {
    let path = path.as_ref();
    let expected = rows.checked_mul(cols);
    if expected != Some(data.len()) {
        return Err(IoError::Shape {
            path: path.into(),
            shape: vec![rows, cols],
            expected: expected.unwrap_or(usize::MAX),
            found: data.len(),
        });
    }
    write(path, &[rows as u64, cols as u64], data)
}

/// Writes the 1-D array `data` (shape `(len,)`).
///
/// # Errors
/// [`IoError::Os`] when the file cannot be written.
pub fn write_vector<T: Element>(path: impl AsRef<Path>, data: &[T]) -> Result<(), IoError> {
    write(path.as_ref(), &[data.len() as u64], data)
}

/// Writes the node fields `fields` of every node of `ds` as an `f64` matrix,
/// one row per node (graphs in order, nodes in order), as
/// [`Dataset::node_features`] builds it. Row `i` of graph `g` is row
/// `offsets[g] + i`, where `offsets` is [`Dataset::node_offsets`] (write
/// those too, with [`write_vector`], when numpy users need them).
///
/// # Errors
/// [`LabelError`](crate::graph::LabelError) for an unknown or non-numeric
/// field; [`IoError::Os`] when the file cannot be written.
///
/// # Examples
/// ```
/// use kronograph::graph::io::{npy, tu};
/// let ds = tu::read_dataset(concat!(env!("CARGO_MANIFEST_DIR"), "/data/PROTEINS")).unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// npy::write_node_features(dir.path().join("x.npy"), &ds, &["label", "attr0"]).unwrap();
/// ```
pub fn write_node_features(path: impl AsRef<Path>, ds: &Dataset, fields: &[&str]) -> crate::Result<()> {
    let f = ds.node_features(fields)?;
    write_matrix(path, f.rows, f.cols, &f.data)?;
    Ok(())
}

/// Writes through [`output::write_atomically`](super::output::write_atomically):
/// the file at `path` is complete or as it was before. The values are
/// converted to little-endian bytes in parallel, 8 MiB at a time, and each
/// block is written with one call.
fn write<T: Element>(path: &Path, shape: &[u64], data: &[T]) -> Result<(), IoError> {
    use rayon::prelude::*;
    const BLOCK: usize = 8 << 20;
    let per = (BLOCK / T::SIZE).max(1);
    let head = header(T::DESCR, shape);
    super::output::write_atomically(path, |out| {
        out.write_all(&head)?;
        let mut buf = vec![0u8; per.min(data.len()) * T::SIZE];
        for chunk in data.chunks(per) {
            let bytes = &mut buf[..chunk.len() * T::SIZE];
            bytes.par_chunks_mut(T::SIZE).zip(chunk.par_iter()).with_min_len(4096).for_each(|(b, &v)| v.put(b));
            out.write_all(bytes)?;
        }
        Ok(())
    })
}

/// The `.npy` 1.0 header of a C-order array of type `descr` and shape
/// `shape`, padded with spaces to a multiple of 64 bytes.
pub(super) fn header(descr: &str, shape: &[u64]) -> Vec<u8> {
    let dims = match shape {
        [d] => format!("({d},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    let total = (10 + dict.len() + 1).div_ceil(64) * 64;
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    h.extend_from_slice(&((total - 10) as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h.resize(total - 1, b' ');
    h.push(b'\n');
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Element + npyz::Deserialize + PartialEq + std::fmt::Debug>(data: &[T], shape: &[u64]) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.npy");
        write(&p, shape, data).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let arr = npyz::NpyFile::new(&bytes[..]).unwrap();
        assert_eq!(arr.shape(), shape);
        assert_eq!(arr.into_vec::<T>().unwrap(), data);
    }

    #[test]
    fn bulk_writes_read_back_with_npyz() {
        round_trip(&[1.5f64, -2.0, 3.25], &[3]);
        round_trip(&(0..10_000_000u32).map(|i| i as f32 * 0.5).collect::<Vec<_>>(), &[2_500_000, 4]);
        round_trip(&[true, false, true, true], &[2, 2]);
        round_trip(&[i64::MIN, 0, 7], &[3]);
        round_trip(&[u64::MAX, 1], &[1, 2]);
        round_trip(&[-5i32, 9], &[2]);
        round_trip::<u32>(&[], &[0]);
        round_trip::<f64>(&[], &[0, 4]);
        assert_eq!(header("<f8", &[2, 3]).len() % 64, 0);
    }
}
