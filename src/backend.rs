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
//!
//! A set of devices is a backend too ([`Backend::Devices`], parsed from
//! `cuda:all` or `cuda:0,2`): the computations with a multi-device form (the
//! MGK's Gram matrices, the random-walk kernel, the motif sieve) spread over
//! it ([`resolve_devices`]); the others run on the set's first device. A set
//! of one device behaves as `cuda:N`. `KRONOGRAPH_DEVICES` (`all` or
//! `0,2`) names the set that [`Backend::Auto`] uses (Python and scripts).
//!
//! ```
//! use kronograph::backend::{Backend, DeviceSet};
//! let b: Backend = "cuda:0,2".parse().unwrap();
//! assert_eq!(b, Backend::Devices(DeviceSet::of(&[0, 2]).unwrap()));
//! assert_eq!(b.to_string(), "cuda:0,2");
//! assert!("cuda:0,0".parse::<Backend>().is_err()); // a device twice
//! ```

use crate::cuda::CudaError;
pub use crate::precision::Precision;
use std::sync::Once;

/// The most device ordinals a [`DeviceSet`] can name (ordinals `0..64`).
pub const MAX_DEVICES: usize = 64;

/// A set of CUDA devices: every visible device, or the listed ordinals
/// (ascending, each once, below [`MAX_DEVICES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceSet {
    /// Every device the driver reports.
    All,
    /// The devices whose bits are set (bit `i`: ordinal `i`; never empty).
    Listed(u64),
}

/// Why a device set was rejected, with what to change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceSetError {
    /// No ordinal was given.
    #[error("empty device set: list device ordinals such as cuda:0,1, or write cuda:all")]
    Empty,
    /// An entry is not a number.
    #[error("bad device ordinal {0:?} in a device set: expected a list of ordinals such as cuda:0,2, or cuda:all")]
    BadOrdinal(String),
    /// An ordinal appears twice.
    #[error("device {0} appears twice in the device set: list each device once")]
    Duplicate(usize),
    /// An ordinal beyond what a set can hold.
    #[error("device ordinal {0} is out of range: a device set holds ordinals 0 to {max}", max = MAX_DEVICES - 1)]
    OutOfRange(usize),
}

impl DeviceSet {
    /// The set of `ordinals` (any order, each once).
    ///
    /// # Errors
    /// [`DeviceSetError::Empty`], [`DeviceSetError::Duplicate`] or
    /// [`DeviceSetError::OutOfRange`].
    pub fn of(ordinals: &[usize]) -> Result<Self, DeviceSetError> {
        let mut mask = 0u64;
        for &i in ordinals {
            if i >= MAX_DEVICES {
                return Err(DeviceSetError::OutOfRange(i));
            }
            if mask & (1 << i) != 0 {
                return Err(DeviceSetError::Duplicate(i));
            }
            mask |= 1 << i;
        }
        if mask == 0 {
            return Err(DeviceSetError::Empty);
        }
        Ok(DeviceSet::Listed(mask))
    }

    /// The ordinals of the set on a machine with `available` devices,
    /// ascending.
    ///
    /// # Errors
    /// [`CudaError::NoDevice`] for a listed ordinal `≥ available` (or no
    /// device at all).
    pub fn ordinals(self, available: usize) -> Result<Vec<usize>, CudaError> {
        let list: Vec<usize> = match self {
            DeviceSet::All => (0..available).collect(),
            DeviceSet::Listed(mask) => (0..MAX_DEVICES).filter(|&i| mask & (1 << i) != 0).collect(),
        };
        match list.iter().find(|&&i| i >= available) {
            Some(&requested) => Err(CudaError::NoDevice { requested, available }),
            None if list.is_empty() => Err(CudaError::NoDevice { requested: 0, available }),
            None => Ok(list),
        }
    }
}

impl std::str::FromStr for DeviceSet {
    type Err = DeviceSetError;

    /// Parses `all` or a comma-separated list of ordinals (`0,2`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s == "all" {
            return Ok(DeviceSet::All);
        }
        let ordinals = s
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| t.parse::<usize>().map_err(|_| DeviceSetError::BadOrdinal(t.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        DeviceSet::of(&ordinals)
    }
}

impl std::fmt::Display for DeviceSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            DeviceSet::All => f.write_str("all"),
            DeviceSet::Listed(mask) => {
                let list: Vec<String> =
                    (0..MAX_DEVICES).filter(|&i| mask & (1 << i) != 0).map(|i| i.to_string()).collect();
                f.write_str(&list.join(","))
            }
        }
    }
}

/// Where a computation runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The first CUDA device when one can be used, else the CPU (with one log
    /// line on standard error, printed once per process). A computation
    /// whose workload the CPU wins runs on the CPU without looking for a
    /// device ([`resolve_devices_for`]; each such computation documents its
    /// rule: a marginalized graph kernel without a CUDA form, the motif
    /// sieve over GF(2^64), the exponential and p-step random walks on
    /// unlabeled graphs or small batches).
    #[default]
    Auto,
    /// The CPU (rayon).
    Cpu,
    /// The CUDA device of this ordinal; an error when it cannot be used.
    Cuda(usize),
    /// A set of CUDA devices (`cuda:all`, `cuda:0,2`): computations with a
    /// multi-device form spread over them, the others run on the first;
    /// an error when one cannot be used. A set of one device is `Cuda(i)`.
    Devices(DeviceSet),
}

impl std::str::FromStr for Backend {
    type Err = String;

    /// Parses `auto`, `cpu`, `cuda` / `gpu` (device 0), `cuda:N`, or a
    /// device set `cuda:all` / `cuda:0,2` ([`DeviceSet`]'s errors, as text).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "cuda" | "gpu" => Ok(Backend::Cuda(0)),
            _ => match s.strip_prefix("cuda:") {
                Some(n) => match n.parse::<usize>() {
                    Ok(i) => Ok(Backend::Cuda(i)),
                    Err(_) => n.parse().map(Backend::Devices).map_err(|e: DeviceSetError| format!("{e} (in {s:?})")),
                },
                None => Err(format!("unknown backend {s:?}: expected auto, cpu, cuda, cuda:N, cuda:0,1 or cuda:all")),
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
            Backend::Devices(set) => write!(f, "cuda:{set}"),
        }
    }
}

/// Resolves a [`Backend`] to a CUDA device ordinal, or `None` for the CPU.
///
/// The one rule of the library: `Cpu` is the CPU; `Cuda(i)` is device `i`,
/// an error when it cannot be used; `Auto` is device 0 when it can be used,
/// else the CPU, saying why on standard error once per process (silently when
/// the library was built without the `cuda` feature). A computation whose
/// workload may favour the CPU states it through [`resolve_devices_for`].
///
/// # Errors
/// For `Cuda(i)`: [`CudaError::NotCompiled`] without the `cuda` feature;
/// [`CudaError::LibraryNotFound`], [`CudaError::NoDevice`] or
/// [`CudaError::Driver`] when device `i` cannot be used.
///
/// A device set ([`Backend::Devices`], or `Auto` with `KRONOGRAPH_DEVICES`
/// set) resolves to its first device here; [`resolve_devices`] gives the
/// whole set to the computations that spread over it.
pub fn resolve_backend(backend: Backend) -> Result<Option<usize>, CudaError> {
    Ok(resolve_devices(backend)?.map(|d| d[0]))
}

/// The environment variable naming the device set of [`Backend::Auto`]
/// (`all`, or ordinals such as `0,2`).
pub const DEVICES_ENV: &str = "KRONOGRAPH_DEVICES";

/// Resolves a [`Backend`] to its CUDA devices (ascending, never empty), or
/// `None` for the CPU: [`resolve_backend`]'s rule, for a set.
///
/// `Cuda(i)` is `[i]`; `Devices(set)` is every device of the set, each
/// opened (an error when one cannot be used); `Auto` is the set
/// `KRONOGRAPH_DEVICES` names when it is set (an error when it is
/// malformed), else device 0, and the CPU when no device can be used (one
/// line on standard error, once per process).
///
/// # Errors
/// As [`resolve_backend`]; [`CudaError::NoDevice`] for an ordinal of the set
/// beyond the visible devices; [`CudaError::InvalidParameter`] for a
/// malformed `KRONOGRAPH_DEVICES`.
pub fn resolve_devices(backend: Backend) -> Result<Option<Vec<usize>>, CudaError> {
    let open = |set: Vec<usize>| -> Result<Option<Vec<usize>>, CudaError> {
        set.iter().try_for_each(|&i| crate::cuda::probe_device(i))?;
        Ok(Some(set))
    };
    match backend {
        Backend::Cpu => Ok(None),
        Backend::Cuda(i) => open(vec![i]),
        Backend::Devices(set) => open(set.ordinals(crate::cuda::device_count()?)?),
        Backend::Auto => {
            let env = env_device_set()?;
            let first = env.map_or(Ok(vec![0]), |set| match crate::cuda::device_count() {
                Ok(n) => set.ordinals(n),
                Err(e) => Err(e),
            });
            match first.and_then(open) {
                Ok(d) => Ok(d),
                Err(CudaError::NotCompiled) => Ok(None),
                Err(e) => {
                    static ONCE: Once = Once::new();
                    ONCE.call_once(|| eprintln!("kronograph: no usable CUDA device, running on the CPU ({e})"));
                    Ok(None)
                }
            }
        }
    }
}

/// [`resolve_devices`] for a computation that knows whether a device wins
/// its workload (`device_wins`): under [`Backend::Auto`] a workload the CPU
/// wins runs on the CPU, without probing a device (so without the log line
/// either); every other case, and every explicit backend, is
/// [`resolve_devices`]'s rule unchanged (an explicit `cuda:N` is honoured
/// whatever the workload).
///
/// ```
/// use kronograph::backend::{resolve_devices_for, Backend};
/// assert_eq!(resolve_devices_for(Backend::Auto, false).unwrap(), None);
/// assert_eq!(resolve_devices_for(Backend::Cpu, true).unwrap(), None);
/// ```
///
/// # Errors
/// As [`resolve_devices`].
pub fn resolve_devices_for(backend: Backend, device_wins: bool) -> Result<Option<Vec<usize>>, CudaError> {
    if backend == Backend::Auto && !device_wins {
        return Ok(None);
    }
    resolve_devices(backend)
}

/// The device set `KRONOGRAPH_DEVICES` names, if it is set and not empty.
fn env_device_set() -> Result<Option<DeviceSet>, CudaError> {
    match std::env::var(DEVICES_ENV) {
        Ok(v) if !v.trim().is_empty() => v
            .parse()
            .map(Some)
            .map_err(|e: DeviceSetError| CudaError::InvalidParameter(format!("{DEVICES_ENV}={v:?}: {e}"))),
        _ => Ok(None),
    }
}

/// The backend a resolved device list stands for: the CPU for `None`,
/// `Cuda(i)` for one device, `Devices` for more (so that a set of one
/// device is exactly `cuda:N`).
pub fn backend_of(devices: Option<&[usize]>) -> Backend {
    match devices {
        None | Some([]) => Backend::Cpu,
        Some(&[i]) => Backend::Cuda(i),
        Some(list) => Backend::Devices(DeviceSet::of(list).unwrap_or(DeviceSet::All)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_devices_parse_as_before() {
        assert_eq!("cuda".parse::<Backend>(), Ok(Backend::Cuda(0)));
        assert_eq!("gpu".parse::<Backend>(), Ok(Backend::Cuda(0)));
        assert_eq!("cuda:3".parse::<Backend>(), Ok(Backend::Cuda(3)));
        assert_eq!(Backend::Cuda(3).to_string(), "cuda:3");
        assert!("cuda:x".parse::<Backend>().is_err());
        assert!("tpu".parse::<Backend>().is_err());
    }

    #[test]
    fn device_sets_parse_and_print() {
        assert_eq!("cuda:all".parse::<Backend>(), Ok(Backend::Devices(DeviceSet::All)));
        let b: Backend = "cuda:2,0".parse().unwrap();
        assert_eq!(b, Backend::Devices(DeviceSet::Listed(0b101)));
        assert_eq!(b.to_string(), "cuda:0,2");
        assert_eq!(b.to_string().parse::<Backend>(), Ok(b));
        assert_eq!(Backend::Devices(DeviceSet::All).to_string(), "cuda:all");
        // a trailing comma makes a set of one device, not cuda:N
        assert_eq!("cuda:1,".parse::<Backend>(), Ok(Backend::Devices(DeviceSet::Listed(0b10))));
    }

    #[test]
    fn bad_sets_are_typed_errors() {
        assert_eq!("0,0".parse::<DeviceSet>(), Err(DeviceSetError::Duplicate(0)));
        assert_eq!(",".parse::<DeviceSet>(), Err(DeviceSetError::Empty));
        assert_eq!("".parse::<DeviceSet>(), Err(DeviceSetError::Empty));
        assert_eq!("0,64".parse::<DeviceSet>(), Err(DeviceSetError::OutOfRange(64)));
        assert_eq!("0,a".parse::<DeviceSet>(), Err(DeviceSetError::BadOrdinal("a".into())));
        let e = "cuda:1,1".parse::<Backend>().unwrap_err();
        assert!(e.contains("appears twice") && e.contains("cuda:1,1"), "{e}");
        assert!("cuda:,".parse::<Backend>().unwrap_err().contains("empty device set"));
    }

    #[test]
    fn ordinals_check_the_visible_devices() {
        assert_eq!(DeviceSet::All.ordinals(4).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(DeviceSet::of(&[3, 1]).unwrap().ordinals(4).unwrap(), vec![1, 3]);
        assert!(matches!(
            DeviceSet::of(&[0, 4]).unwrap().ordinals(4),
            Err(CudaError::NoDevice { requested: 4, available: 4 })
        ));
        assert!(matches!(DeviceSet::All.ordinals(0), Err(CudaError::NoDevice { available: 0, .. })));
    }

    #[test]
    fn backend_of_keeps_one_device_as_cuda_n() {
        assert_eq!(backend_of(None), Backend::Cpu);
        assert_eq!(backend_of(Some(&[2])), Backend::Cuda(2));
        assert_eq!(backend_of(Some(&[0, 2])), Backend::Devices(DeviceSet::Listed(0b101)));
    }

    #[test]
    fn the_cpu_resolves_to_no_device() {
        assert_eq!(resolve_devices(Backend::Cpu).unwrap(), None);
    }

    /// A workload the CPU wins keeps `Auto` on the CPU; an explicit device
    /// is the plain rule whatever the workload (device 63 does not exist on
    /// any test machine: an error, as from `resolve_devices`).
    #[test]
    fn workload_rule_only_moves_auto() {
        assert_eq!(resolve_devices_for(Backend::Auto, false).unwrap(), None);
        assert_eq!(resolve_devices_for(Backend::Cpu, true).unwrap(), None);
        assert_eq!(resolve_devices_for(Backend::Cpu, false).unwrap(), None);
        assert!(resolve_devices_for(Backend::Cuda(63), false).is_err());
        assert!(resolve_devices(Backend::Cuda(63)).is_err());
        // with a device wanted, Auto is the plain rule
        assert_eq!(resolve_devices_for(Backend::Auto, true).is_ok(), resolve_devices(Backend::Auto).is_ok());
    }
}
