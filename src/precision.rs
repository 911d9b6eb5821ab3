//! [`Precision`], the arithmetic of a computation: below every backend
//! (the CUDA layer lays labels out in it, the solvers and kernels compute in
//! it), re-exported as `backend::Precision` and `kronograph::Precision`.

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
