//! Device discovery at run time and the per-device state (context, stream,
//! loaded kernels).

use super::{panic_message, CudaError, DeviceInfo};
use cudarc::driver::{sys, CudaContext, CudaFunction, CudaStream, DriverError};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// Runs a driver call, mapping its error (and a panic from a missing symbol
/// in the dynamically loaded library) to [`CudaError`].
///
/// It is instantiated at every call site (hundreds, each with its own
/// closure type), so the error paths are out-of-line functions: each copy
/// holds the call and two branches, not the formatting.
pub(crate) fn check<T>(context: &str, f: impl FnOnce() -> Result<T, DriverError>) -> Result<T, CudaError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(driver_error(context, e)),
        Err(panic) => Err(driver_missing(panic)),
    }
}

#[cold]
#[inline(never)]
fn driver_error(context: &str, e: DriverError) -> CudaError {
    CudaError::Driver { context: context.to_string(), message: e.to_string() }
}

#[cold]
#[inline(never)]
fn driver_missing(panic: Box<dyn std::any::Any + Send>) -> CudaError {
    CudaError::LibraryNotFound { library: "libcuda", detail: panic_message(&*panic) }
}

/// Whether the driver library (libcuda) can be loaded.
fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the library with libloading.
    *PRESENT.get_or_init(|| catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false))
}

/// Number of CUDA devices: 0 on a machine without the CUDA driver.
///
/// # Errors
/// [`CudaError::Driver`] when the driver is there but fails to initialize.
pub fn device_count() -> Result<usize, CudaError> {
    if !driver_present() {
        return Ok(0);
    }
    driver_device_count()
}

/// [`device_count`], with [`CudaError::LibraryNotFound`] without the driver
/// (for the error of opening a device, which says why there is none).
fn driver_device_count() -> Result<usize, CudaError> {
    if !driver_present() {
        return Err(CudaError::LibraryNotFound { library: "libcuda", detail: "not found by the loader".into() });
    }
    check("counting devices", CudaContext::device_count).map(|n| n.max(0) as usize)
}

/// Opens device `ordinal` (once per process), for
/// [`resolve_backend`](crate::backend::resolve_backend).
pub(crate) fn probe_device(ordinal: usize) -> Result<(), CudaError> {
    device(ordinal).map(|_| ())
}

/// A device in use: its context, stream, properties and loaded kernels.
pub(crate) struct Device {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) info: DeviceInfo,
    /// Loaded kernels by name (name = family + hash of the source).
    pub(crate) functions: RwLock<HashMap<FunctionKey, CudaFunction>>,
}

/// The key of a loaded kernel: its `extern "C"` name (family + hash of the
/// source) and the tier of the image it came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FunctionKey {
    /// The kernel's name.
    pub(crate) name: String,
    /// The image's optimization tier.
    pub(crate) tier: super::jit::Tier,
}

impl FunctionKey {
    /// The fully optimized kernel `name`.
    pub(crate) fn full(name: &str) -> Self {
        FunctionKey { name: name.to_string(), tier: super::jit::Tier::Full }
    }

    /// The fast-tier kernel `name`.
    pub(crate) fn fast(name: &str) -> Self {
        FunctionKey { name: name.to_string(), tier: super::jit::Tier::Fast }
    }
}

/// The device of `ordinal`, opened once per process.
pub(crate) fn device(ordinal: usize) -> Result<Arc<Device>, CudaError> {
    static DEVICES: OnceLock<Mutex<HashMap<usize, Arc<Device>>>> = OnceLock::new();
    let map = DEVICES.get_or_init(Default::default);
    let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(d) = map.get(&ordinal) {
        return Ok(d.clone());
    }
    let count = driver_device_count()?;
    if ordinal >= count {
        return Err(CudaError::NoDevice { requested: ordinal, available: count });
    }
    let ctx = check("creating a context", || CudaContext::new(ordinal))?;
    let attr = |a: sys::CUdevice_attribute| check("reading device attributes", || ctx.attribute(a));
    use sys::CUdevice_attribute as A;
    let info = DeviceInfo {
        ordinal,
        name: check("reading the device name", || ctx.name())?,
        compute_capability: (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        ),
        multiprocessors: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as usize,
        max_shared_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as usize,
        total_memory: check("reading the memory size", || ctx.total_mem())?,
    };
    let stream = check("creating a stream", || ctx.new_stream())?;
    let dev = Arc::new(Device { ctx, stream, info, functions: RwLock::new(HashMap::new()) });
    map.insert(ordinal, dev.clone());
    Ok(dev)
}

impl Device {
    /// Properties of this device.
    pub(crate) fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The kernels `names` of the hand-written CUDA `source` (compiled once
    /// per process and architecture through [`jit::compile_cached`](super::jit::compile_cached),
    /// cached on disk), loaded on this device once and kept in
    /// [`functions`](Self::functions) under `module/name`; in `names` order.
    ///
    /// # Errors
    /// A compile or load failure, naming `module`.
    pub(crate) fn module_functions(
        &self,
        source: &str,
        module: &str,
        names: &[&str],
    ) -> Result<Vec<CudaFunction>, CudaError> {
        let key = |name: &str| FunctionKey::full(&format!("{module}/{name}"));
        {
            let map = self.functions.read().unwrap_or_else(|e| e.into_inner());
            if let Some(found) = names.iter().map(|n| map.get(&key(n)).cloned()).collect::<Option<Vec<_>>>() {
                return Ok(found);
            }
        }
        let compiled = super::jit::compile_cached(source, module, self.info.compute_capability)?;
        let loaded = check(&format!("loading the {module} kernels"), || {
            self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(compiled.image.to_vec()))
        })?;
        let mut map = self.functions.write().unwrap_or_else(|e| e.into_inner());
        names
            .iter()
            .map(|&n| {
                let f = check(&format!("finding the {module} kernel {n}"), || loaded.load_function(n))?;
                map.insert(key(n), f.clone());
                Ok(f)
            })
            .collect()
    }
}

#[cfg(test)]
mod count_tests {
    /// Without the driver library the count is 0, not an error.
    #[test]
    fn no_driver_counts_zero() {
        if !super::driver_present() {
            assert_eq!(super::device_count().unwrap(), 0);
            assert!(super::driver_device_count().is_err());
        }
    }
}
