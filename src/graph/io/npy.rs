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
use npyz::WriterBuilder;
use std::path::Path;

/// A scalar type that can be written to `.npy`: `f64`, `f32`, `i64`, `u64`,
/// `i32`, `u32`, `bool`.
pub trait Element: npyz::AutoSerialize + Copy + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! element {
    ($($t:ty),*) => { $(impl sealed::Sealed for $t {} impl Element for $t {})* };
}
element!(f64, f32, i64, u64, i32, u32);
element!(bool);

/// Writes the dense row-major matrix `data` of shape `(rows, cols)`.
///
/// Cost `O(rows × cols)`, streamed through a buffer.
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
/// the file at `path` is complete or as it was before.
fn write<T: Element>(path: &Path, shape: &[u64], data: &[T]) -> Result<(), IoError> {
    super::output::write_atomically(path, |out| {
        let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(out).begin_nd()?;
        w.extend(data.iter().copied())?;
        w.finish()
    })
}
