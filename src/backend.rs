//! Where a computation runs ([`Backend`]) and in which arithmetic
//! ([`Precision`]): one choice for every algorithm of the library that has
//! more than one backend, resolved by one rule ([`resolve_backend`]).
//!
//! ```
//! use kronograph::backend::{resolve_backend, Backend, Precision};
//! let b: Backend = "cpu".parse().unwrap();
//! assert_eq!(resolve_backend(b).unwrap(), None); // None: the CPU
//! assert_eq!("f32".parse::<Precision>().unwrap().default_tolerance(), 1e-6);
//! ```

use crate::cuda::CudaError;
use std::sync::Once;

/// Where a computation runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The first CUDA device when one can be used, else the CPU (with one log
    /// line on standard error, printed once per process).
    #[default]
    Auto,
    /// The CPU (rayon).
    Cpu,
    /// The CUDA device of this ordinal; an error when it cannot be used.
    Cuda(usize),
}

impl std::str::FromStr for Backend {
    type Err = String;

    /// Parses `auto`, `cpu`, `cuda` / `gpu` (device 0) or `cuda:N`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "cuda" | "gpu" => Ok(Backend::Cuda(0)),
            _ => match s.strip_prefix("cuda:") {
                Some(n) => n.parse().map(Backend::Cuda).map_err(|_| format!("bad device ordinal in {s:?}")),
                None => Err(format!("unknown backend {s:?}: expected auto, cpu, cuda or cuda:N")),
            },
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Auto => f.write_str("auto"),
            Backend::Cpu => f.write_str("cpu"),
            Backend::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

/// The floating-point precision of a computation, on every backend.
///
/// Reductions (dot products, kernel values) accumulate in `f64` in both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    /// 64-bit floats (the default; default relative tolerance `1e-12`).
    #[default]
    F64,
    /// 32-bit floats: half the memory traffic (default relative tolerance
    /// `1e-6`; results agree with `f64` to about `1e-5` relative).
    F32,
}

impl Precision {
    /// The C type name: `float` or `double`.
    pub fn c_type(self) -> &'static str {
        match self {
            Precision::F32 => "float",
            Precision::F64 => "double",
        }
    }

    /// Size of one real in bytes.
    pub fn size(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }

    /// The default relative-residual tolerance of iterative solves in this
    /// precision: `1e-12` in `f64`, `1e-6` in `f32` (about 16 roundings of
    /// `f32`; the solutions then agree with `f64` to about `1e-5` relative).
    pub fn default_tolerance(self) -> f64 {
        match self {
            Precision::F32 => 1e-6,
            Precision::F64 => 1e-12,
        }
    }
}

impl std::str::FromStr for Precision {
    type Err = String;

    /// Parses `f32` / `float` / `single` or `f64` / `double`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "f32" | "float" | "single" => Ok(Precision::F32),
            "f64" | "double" => Ok(Precision::F64),
            _ => Err(format!("unknown precision {s:?}: expected f32 or f64")),
        }
    }
}

/// Resolves a [`Backend`] to a CUDA device ordinal, or `None` for the CPU.
///
/// The one rule of the library: `Cpu` is the CPU; `Cuda(i)` is device `i`,
/// an error when it cannot be used; `Auto` is device 0 when it can be used,
/// else the CPU, saying why on standard error once per process (silently when
/// the library was built without the `cuda` feature).
///
/// # Errors
/// For `Cuda(i)`: [`CudaError::NotCompiled`] without the `cuda` feature;
/// [`CudaError::LibraryNotFound`], [`CudaError::NoDevice`] or
/// [`CudaError::Driver`] when device `i` cannot be used.
pub fn resolve_backend(backend: Backend) -> Result<Option<usize>, CudaError> {
    match backend {
        Backend::Cpu => Ok(None),
        Backend::Cuda(i) => crate::cuda::probe_device(i).map(|()| Some(i)),
        Backend::Auto => match crate::cuda::probe_device(0) {
            Ok(()) => Ok(Some(0)),
            Err(CudaError::NotCompiled) => Ok(None),
            Err(e) => {
                static ONCE: Once = Once::new();
                ONCE.call_once(|| eprintln!("kronograph: no usable CUDA device, running on the CPU ({e})"));
                Ok(None)
            }
        },
    }
}
