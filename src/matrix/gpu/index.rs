//! [`IndexWidth`]: the one place that chooses 32- or 64-bit device indices.

use crate::cuda::CudaError;

/// The largest dimension or entry count that 32-bit device indices hold
/// (`2³¹ − 2`: the kernels keep `n` itself as a sort sentinel and read
/// counts as signed 32-bit values in places).
pub const MAX_INDEX: usize = i32::MAX as usize - 1;

/// The width of a device object's indices (row pointers, column indices,
/// vector indices): 32 bits where every dimension and the entry count fit
/// in [`MAX_INDEX`], else 64 bits.
///
/// Every kernel of the GPU GraphBLAS reads its indices as `kg_idx_t`, a
/// typedef of the generated source ([`IndexWidth::preface`]), so each
/// module is compiled once per width from one source. Uploads choose the
/// width by [`IndexWidth::for_sizes`] or take a forced one (the
/// `upload_with_width` constructors); forcing 32 bits on an object that
/// needs 64 is refused with [`CudaError::Needs64BitIndices`], which names
/// the operation, the size and the limit.
///
/// # Examples
/// ```
/// use kronograph::matrix::gpu::{IndexWidth, MAX_INDEX};
/// assert_eq!(IndexWidth::for_sizes(&[1000, 1000, 5000]), IndexWidth::U32);
/// assert_eq!(IndexWidth::for_sizes(&[MAX_INDEX, 3, MAX_INDEX]), IndexWidth::U32);
/// assert_eq!(IndexWidth::for_sizes(&[1 << 20, 1 << 20, 1 << 33]), IndexWidth::U64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexWidth {
    /// `unsigned int` indices.
    U32,
    /// `unsigned long long` indices.
    U64,
}

impl IndexWidth {
    /// The width that holds every size of `sizes` (dimensions and entry counts).
    pub fn for_sizes(sizes: &[usize]) -> IndexWidth {
        if sizes.iter().all(|&n| n <= MAX_INDEX) {
            IndexWidth::U32
        } else {
            IndexWidth::U64
        }
    }

    /// The CUDA C++ index type.
    pub fn cuda(self) -> &'static str {
        match self {
            IndexWidth::U32 => "unsigned int",
            IndexWidth::U64 => "unsigned long long",
        }
    }

    /// The CUDA source lines that define the kernels' index type
    /// `kg_idx_t`, its largest value `KG_IDX_MAX` (a sentinel) and its top
    /// bit `KG_IDX_TOP` (a flag).
    pub fn preface(self) -> String {
        format!(
            "typedef {} kg_idx_t;\n#define KG_IDX_MAX ((kg_idx_t)~(kg_idx_t)0)\n\
             #define KG_IDX_TOP ((kg_idx_t)1 << (8 * sizeof(kg_idx_t) - 1))\n",
            self.cuda()
        )
    }

    /// `u32` or `u64` (module names, messages).
    pub fn name(self) -> &'static str {
        match self {
            IndexWidth::U32 => "u32",
            IndexWidth::U64 => "u64",
        }
    }

    /// Checks that indices of this width hold `sizes` (named by `what`, in
    /// the same order) for `operation`: always for [`IndexWidth::U64`].
    ///
    /// # Errors
    /// [`CudaError::Needs64BitIndices`] naming the first size past [`MAX_INDEX`].
    pub fn check_fits(self, operation: &str, what: &[&str], sizes: &[usize]) -> Result<(), CudaError> {
        match self {
            IndexWidth::U32 => Self::require_u32(operation, what, sizes),
            IndexWidth::U64 => Ok(()),
        }
    }

    /// Checks that `operation` can run with 32-bit indices on objects of
    /// these `sizes` (named by `what`, in the same order).
    ///
    /// # Errors
    /// [`CudaError::Needs64BitIndices`] naming the first size past [`MAX_INDEX`].
    pub fn require_u32(operation: &str, what: &[&str], sizes: &[usize]) -> Result<(), CudaError> {
        match what.iter().zip(sizes).find(|&(_, &n)| n > MAX_INDEX) {
            Some((w, &n)) => Err(CudaError::Needs64BitIndices {
                operation: operation.to_string(),
                what: w.to_string(),
                size: n,
                limit: MAX_INDEX,
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_is_chosen_at_the_limit() {
        assert_eq!(IndexWidth::for_sizes(&[]), IndexWidth::U32);
        assert_eq!(IndexWidth::for_sizes(&[MAX_INDEX; 3]), IndexWidth::U32);
        assert_eq!(IndexWidth::for_sizes(&[10, MAX_INDEX + 1, 10]), IndexWidth::U64);
        assert_eq!(IndexWidth::for_sizes(&[10, 10, usize::MAX]), IndexWidth::U64);
        assert_eq!(IndexWidth::U64.cuda(), "unsigned long long");
    }

    #[test]
    fn wide_objects_are_refused_with_what_to_do() {
        assert!(IndexWidth::require_u32("upload", &["rows", "entries"], &[5, MAX_INDEX]).is_ok());
        let e = IndexWidth::require_u32("uploading a matrix", &["rows", "entries"], &[5, MAX_INDEX + 1]).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, CudaError::Needs64BitIndices { size, .. } if size == MAX_INDEX + 1));
        for part in ["uploading a matrix", "entries", &(MAX_INDEX + 1).to_string(), "CPU backend"] {
            assert!(msg.contains(part), "{msg}");
        }
    }
}
