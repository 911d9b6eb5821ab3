//! Device index buffers and scalars of either [`IndexWidth`]: what the Rust
//! side passes for every `kg_idx_t` of the generated kernels (row pointers,
//! column and vector indices, counts, prefix sums, flags).

use super::index::IndexWidth;
use crate::cuda::device::check;
use crate::cuda::CudaError;
use cudarc::driver::{CudaSlice, CudaStream, LaunchArgs, PushKernelArg};
use std::sync::Arc;

/// A device buffer of indices of one width (at least one element: the
/// driver allocates no empty buffer).
pub(crate) enum Idx {
    /// 32-bit indices.
    U32(CudaSlice<u32>),
    /// 64-bit indices.
    U64(CudaSlice<u64>),
}

/// A `kg_idx_t` kernel argument.
#[derive(Clone, Copy, Debug)]
pub(crate) enum IdxVal {
    /// A 32-bit index.
    U32(u32),
    /// A 64-bit index.
    U64(u64),
}

impl IndexWidth {
    /// `n` as a kernel argument of this width (`n` fits: the objects'
    /// sizes were checked against the width when they were made).
    pub(crate) fn val(self, n: usize) -> IdxVal {
        match self {
            IndexWidth::U32 => IdxVal::U32(n as u32),
            IndexWidth::U64 => IdxVal::U64(n as u64),
        }
    }
}

impl Idx {
    /// `len` zeroed indices of width `w` (at least one).
    pub(crate) fn zeros(s: &Arc<CudaStream>, w: IndexWidth, len: usize) -> Result<Idx, CudaError> {
        let what = "allocating a device index buffer";
        Ok(match w {
            IndexWidth::U32 => Idx::U32(check(what, || s.alloc_zeros::<u32>(len.max(1)))?),
            IndexWidth::U64 => Idx::U64(check(what, || s.alloc_zeros::<u64>(len.max(1)))?),
        })
    }

    /// Uploads `v` in width `w` (every value fits `w`: checked by the caller).
    pub(crate) fn upload(s: &Arc<CudaStream>, w: IndexWidth, what: &str, v: &[usize]) -> Result<Idx, CudaError> {
        fn up<T: cudarc::driver::DeviceRepr + Default>(
            s: &Arc<CudaStream>,
            what: &str,
            v: Vec<T>,
        ) -> Result<CudaSlice<T>, CudaError> {
            let v = if v.is_empty() { vec![T::default()] } else { v };
            check(what, || s.clone_htod(&v))
        }
        Ok(match w {
            IndexWidth::U32 => Idx::U32(up(s, what, v.iter().map(|&x| x as u32).collect())?),
            IndexWidth::U64 => Idx::U64(up(s, what, v.iter().map(|&x| x as u64).collect())?),
        })
    }

    /// The first `len` indices, on the host (the stream synchronized).
    pub(crate) fn download(&self, s: &Arc<CudaStream>, what: &str, len: usize) -> Result<Vec<usize>, CudaError> {
        self.download_range(s, what, 0, len)
    }

    /// The indices `from..to`, on the host (the stream synchronized).
    pub(crate) fn download_range(
        &self,
        s: &Arc<CudaStream>,
        what: &str,
        from: usize,
        to: usize,
    ) -> Result<Vec<usize>, CudaError> {
        if to <= from {
            return Ok(Vec::new());
        }
        let h: Vec<usize> = match self {
            Idx::U32(d) => check(what, || s.clone_dtoh(&d.slice(from..to)))?.into_iter().map(|x| x as usize).collect(),
            Idx::U64(d) => check(what, || s.clone_dtoh(&d.slice(from..to)))?.into_iter().map(|x| x as usize).collect(),
        };
        check("synchronizing", || s.synchronize())?;
        Ok(h)
    }

    /// A device-to-device copy.
    pub(crate) fn try_clone(&self, s: &Arc<CudaStream>, what: &str) -> Result<Idx, CudaError> {
        Ok(match self {
            Idx::U32(d) => Idx::U32(check(what, || s.clone_dtod(d))?),
            Idx::U64(d) => Idx::U64(check(what, || s.clone_dtod(d))?),
        })
    }

    /// Its width.
    pub(crate) fn width(&self) -> IndexWidth {
        match self {
            Idx::U32(_) => IndexWidth::U32,
            Idx::U64(_) => IndexWidth::U64,
        }
    }

    /// Sets every index to 0.
    pub(crate) fn clear(&mut self, s: &Arc<CudaStream>, what: &str) -> Result<(), CudaError> {
        match self {
            Idx::U32(d) => check(what, || s.memset_zeros(d)),
            Idx::U64(d) => check(what, || s.memset_zeros(d)),
        }
    }
}

// SAFETY: each arm pushes the inner slice through cudarc's own
// implementation (the device pointer, with its stream events).
unsafe impl<'a, 'b: 'a> PushKernelArg<&'b Idx> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b Idx) -> &mut Self {
        match arg {
            Idx::U32(d) => self.arg(d),
            Idx::U64(d) => self.arg(d),
        }
    }
}

// SAFETY: as above, for a written buffer.
unsafe impl<'a, 'b: 'a> PushKernelArg<&'b mut Idx> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut Idx) -> &mut Self {
        match arg {
            Idx::U32(d) => self.arg(d),
            Idx::U64(d) => self.arg(d),
        }
    }
}

// SAFETY: pushes a reference to the plain integer, as cudarc does for any
// `DeviceRepr` scalar; the kernel's parameter is `kg_idx_t` of this width.
unsafe impl<'a, 'b: 'a> PushKernelArg<&'b IdxVal> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b IdxVal) -> &mut Self {
        match arg {
            IdxVal::U32(v) => self.arg(v),
            IdxVal::U64(v) => self.arg(v),
        }
    }
}
