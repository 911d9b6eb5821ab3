//! One host buffer of several typed arrays, uploaded in one copy: the
//! kernels receive the device buffer and each array's byte offset (8-byte
//! aligned), so a call costs one transfer instead of one per array. Outputs
//! can live in the same buffer, poisoned on the host, and come back in one
//! download of their range.

/// A plain value that can be laid out in a [`Blob`] (its native bytes).
pub(crate) trait BlobValue: Copy {
    /// Writes the native-endian bytes of `self` to `out` (exactly its size).
    fn write(self, out: &mut [u8]);
}

macro_rules! blob_value {
    ($($t:ty),*) => {$(
        impl BlobValue for $t {
            #[inline]
            fn write(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_ne_bytes());
            }
        }
    )*};
}
blob_value!(i32, u32, i64, u64, f32, f64, u8);

/// A host buffer of arrays at 8-byte-aligned offsets.
#[derive(Clone, Debug, Default)]
pub(crate) struct Blob {
    bytes: Vec<u8>,
}

impl Blob {
    /// An empty buffer with room for `capacity` bytes.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Blob { bytes: Vec::with_capacity(capacity) }
    }

    /// Appends `values` (at least one element's room, so that every offset
    /// points into the buffer) and returns their byte offset.
    pub(crate) fn push<T: BlobValue>(&mut self, values: &[T]) -> i64 {
        let off = self.bytes.len();
        self.extend_map(values, |v| v);
        self.align(off + std::mem::size_of::<T>());
        off as i64
    }

    /// Appends `count` copies of `value` and returns their byte offset.
    pub(crate) fn fill<T: BlobValue>(&mut self, value: T, count: usize) -> i64 {
        let off = self.bytes.len();
        let size = std::mem::size_of::<T>();
        self.bytes.resize(off + size * count, 0);
        self.bytes[off..].chunks_exact_mut(size).for_each(|d| value.write(d));
        self.align(off + size);
        off as i64
    }

    /// Appends `f(s)` for every `s` of `src`, unaligned (a section written in
    /// pieces: end it with [`align`](Self::align)).
    pub(crate) fn extend_map<S: Copy, T: BlobValue>(&mut self, src: &[S], f: impl Fn(S) -> T) {
        let off = self.bytes.len();
        let size = std::mem::size_of::<T>();
        self.bytes.resize(off + size * src.len(), 0);
        for (d, &s) in self.bytes[off..].chunks_exact_mut(size).zip(src) {
            f(s).write(d);
        }
    }

    /// Pads to the next multiple of 8 bytes (at least `min_end` bytes in all).
    pub(crate) fn align(&mut self, min_end: usize) {
        let end = self.bytes.len().max(min_end);
        self.bytes.resize(end.div_ceil(8) * 8, 0);
    }

    /// The current length in bytes (the offset of the next array).
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// `count` values of `T` read from `bytes` at byte offset `off` (native
/// endianness; `bytes` came back from the device).
/// Missing values (past the end of `bytes`) read as `T::default()`.
pub(crate) fn read<T: BlobValue + Default>(bytes: &[u8], off: usize, count: usize, f: fn(&[u8]) -> T) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let end = (off + count * size).min(bytes.len());
    let mut v: Vec<T> = bytes.get(off..end).unwrap_or(&[]).chunks_exact(size).map(f).collect();
    v.resize(count, T::default());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_aligned_and_values_round_trip() {
        let mut b = Blob::with_capacity(64);
        let a = b.push(&[1i32, 2, 3]);
        let f = b.push(&[1.5f64, -2.0]);
        let n = b.fill(f64::NAN, 2);
        let e = b.push::<i64>(&[]);
        assert_eq!((a, f % 8, n % 8, e % 8), (0, 0, 0, 0));
        assert_eq!(b.len(), e as usize + 8);
        let back = read(b.bytes(), f as usize, 2, |s| f64::from_ne_bytes(s.try_into().unwrap()));
        assert_eq!(back, vec![1.5, -2.0]);
        assert!(read(b.bytes(), n as usize, 2, |s| f64::from_ne_bytes(s.try_into().unwrap()))[1].is_nan());
        assert_eq!(read(b.bytes(), 0, 3, |s| i32::from_ne_bytes(s.try_into().unwrap())), vec![1, 2, 3]);
    }
}
