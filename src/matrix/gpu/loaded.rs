//! The loaded kernels of a semiring's module, found once per device,
//! semiring form and index width and kept (generating and hashing a module's
//! source costs more than a small launch, and every vector product asks).

use super::index::IndexWidth;
use super::kernels::{source, KernelKey, KERNELS};
use crate::cuda::device::Device;
use crate::cuda::CudaError;
use super::GpuElement;
use crate::semirings::Semiring;
use cudarc::driver::CudaFunction;

/// The loaded kernels of one semiring's module, by [`KERNELS`] name.
#[derive(Clone)]
pub(crate) struct SemiringKernels {
    f: Vec<CudaFunction>,
    pub(crate) key: KernelKey,
}

impl SemiringKernels {
    pub(crate) fn get(&self, name: &str) -> &CudaFunction {
        let i = KERNELS.iter().position(|&k| k == name).expect("a kernel of KERNELS");
        &self.f[i]
    }
}

/// The kernels of semiring `s` with indices of width `w` on `dev`
/// (generated, compiled once per key, loaded once per device).
///
/// # Errors
/// [`CudaError::InvalidParameter`] for the finite-field semirings (their
/// operand types have no device form here); NVRTC and driver errors.
pub(crate) fn semiring_kernels<S: Semiring>(dev: &Device, s: &S, w: IndexWidth) -> Result<SemiringKernels, CudaError> {
    let key = KernelKey::of(s, w);
    if key.semiring.starts_with("gf") {
        return Err(CudaError::InvalidParameter(format!(
            "semiring {} has no GPU GraphBLAS form yet; use the CPU backend",
            key.semiring
        )));
    }
    // Generating and hashing the source costs more than a small launch: the
    // kernels found once per device, semiring form and width are kept.
    type Cache = Vec<(usize, IndexWidth, crate::semirings::CudaSemiring, SemiringKernels)>;
    static CACHE: std::sync::Mutex<Cache> = std::sync::Mutex::new(Vec::new());
    let form = s.cuda();
    let ordinal = dev.info.ordinal;
    {
        let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((.., k)) = cache.iter().find(|(o, iw, c, _)| *o == ordinal && *iw == w && *c == form) {
            return Ok(k.clone());
        }
    }
    let src = source(s, w);
    let f = dev.module_functions(&src, &key.module(&src), &KERNELS)?;
    let k = SemiringKernels { f, key };
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).push((ordinal, w, form, k.clone()));
    Ok(k)
}

/// Checks that an operand of element type `T` fits the semiring's C++ type (when read).
pub(crate) fn check_operand<T: GpuElement>(
    what: &str,
    read: bool,
    cuda: &str,
    semiring: &str,
) -> Result<(), CudaError> {
    if read && T::CUDA != cuda {
        return Err(CudaError::Mismatch {
            uploaded: format!("{what} of type {}", T::CUDA),
            expected: format!("{cuda} for semiring {semiring}"),
        });
    }
    Ok(())
}

pub(crate) fn check_output<T: GpuElement>(k: &KernelKey) -> Result<(), CudaError> {
    if T::CUDA != k.c {
        return Err(CudaError::Mismatch {
            uploaded: format!("an output of type {}", T::CUDA),
            expected: format!("{} for semiring {}", k.c, k.semiring),
        });
    }
    Ok(())
}
