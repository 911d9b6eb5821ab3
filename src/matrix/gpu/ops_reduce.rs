//! Reductions to a scalar over a semiring's additive monoid.

use super::index::IndexWidth;
use super::objects::{download, upload, DeviceDenseVector};
use super::loaded::{check_output, semiring_kernels};
use super::scan::grid;
use super::GpuElement;
use crate::cuda::device::{check, Device};
use crate::cuda::CudaError;
use crate::semirings::Semiring;
use cudarc::driver::{CudaSlice, PushKernelArg};

/// `⊕` of the present entries of `v` over the semiring's additive monoid
/// (its identity when none). Atomic across blocks: floating-point sums may
/// differ from the CPU's in the last bits.
///
/// # Errors
/// NVRTC and driver errors.
pub fn reduce_dense<S>(s: S, v: &DeviceDenseVector<S::C>) -> crate::Result<S::C>
where
    S: Semiring,
    S::C: GpuElement,
{
    Ok(reduce_raw(&v.dev.dev, &s, &v.val, &v.pres, v.n, IndexWidth::for_sizes(&[v.n]))?)
}

pub(crate) fn reduce_raw<S: Semiring>(
    dev: &Device,
    s: &S,
    val: &CudaSlice<S::C>,
    pres: &CudaSlice<u8>,
    n: usize,
    w: IndexWidth,
) -> Result<S::C, CudaError>
where
    S::C: GpuElement,
{
    let k = semiring_kernels(dev, s, w)?;
    check_output::<S::C>(&k.key)?;
    let st = &dev.stream;
    let mut out = upload(st, "uploading the identity", &[s.zero()])?;
    if n > 0 {
        let n32 = w.val(n);
        let mut lb = st.launch_builder(k.get("gb_reduce"));
        lb.arg(&n32).arg(val).arg(pres).arg(&mut out);
        // SAFETY: matches gb_reduce(m, val, pres, out); 256 threads per block (its shared arrays).
        check("launching gb_reduce", || unsafe { lb.launch(grid(dev, n)) })?;
    }
    Ok(download(st, "downloading a reduction", &out, 1)?[0])
}
