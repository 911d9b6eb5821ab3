//! Hyperparameters: a value and its bounds.

use std::fmt;

/// Bounds of a hyperparameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bounds {
    /// Not trained: no gradient is reported for it by the graph kernels.
    Fixed,
    /// Closed interval `[lo, hi]`.
    Range(f64, f64),
}

impl Bounds {
    /// Whether `v` lies in the bounds (a fixed hyperparameter accepts any value).
    pub fn contains(&self, v: f64) -> bool {
        match *self {
            Bounds::Fixed => v.is_finite(),
            Bounds::Range(lo, hi) => v >= lo && v <= hi,
        }
    }
}

impl fmt::Display for Bounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bounds::Fixed => write!(f, "fixed"),
            Bounds::Range(lo, hi) => write!(f, "[{lo}, {hi}]"),
        }
    }
}

/// One hyperparameter: its path (e.g. `length.scale`), value and bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Hyperparameter {
    /// Path relative to the kernel that reports it.
    pub name: String,
    /// Current value.
    pub value: f64,
    /// Bounds.
    pub bounds: Bounds,
}

impl Hyperparameter {
    /// A hyperparameter.
    pub fn new(name: impl Into<String>, value: f64, bounds: Bounds) -> Self {
        Hyperparameter { name: name.into(), value, bounds }
    }

    /// Whether the graph kernels report a gradient for it.
    pub fn is_active(&self) -> bool {
        self.bounds != Bounds::Fixed
    }

    /// This hyperparameter with `prefix.` before its path.
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.name = format!("{prefix}.{}", self.name);
        self
    }
}

/// The domain x > 0 (finite): scales, factors, exponents, radii.
pub(crate) fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// The domain 0 ≤ x ≤ 1: the Kronecker delta's h.
pub(crate) fn unit(v: f64) -> bool {
    (0.0..=1.0).contains(&v)
}

/// The domain x ≥ 0 (finite): the polynomial's offset.
pub(crate) fn non_negative(v: f64) -> bool {
    v.is_finite() && v >= 0.0
}

/// One scalar hyperparameter of a kernel: value and bounds (crate-internal helper).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Param {
    pub value: f64,
    pub bounds: Bounds,
}

impl Param {
    /// A parameter with default bounds `[lo, hi]` widened to contain `value`.
    pub fn widened(value: f64, lo: f64, hi: f64) -> Self {
        Param { value, bounds: Bounds::Range(lo.min(value), hi.max(value)) }
    }

    /// `g` for a trained hyperparameter, 0 for a fixed one (the gradient
    /// contract of [`BaseKernel::gradient`](super::BaseKernel::gradient)).
    #[inline(always)]
    pub fn grad(&self, g: f64) -> f64 {
        if matches!(self.bounds, Bounds::Fixed) {
            0.0
        } else {
            g
        }
    }

    /// The public description under `name`.
    pub fn hyper(&self, name: &str) -> Hyperparameter {
        Hyperparameter::new(name, self.value, self.bounds)
    }

    /// Checks `v` against the bounds (and against `valid`, the domain).
    pub fn check(&self, name: &str, v: f64, valid: impl Fn(f64) -> bool) -> Result<(), super::KernelError> {
        if !self.bounds.contains(v) || !valid(v) {
            return Err(super::KernelError::OutOfBounds { name: name.to_string(), value: v, bounds: self.bounds });
        }
        Ok(())
    }

    /// New bounds, checked: `lo <= value <= hi` and within the domain `valid`.
    pub fn rebound(
        &mut self,
        name: &str,
        bounds: Bounds,
        valid: impl Fn(f64) -> bool,
    ) -> Result<(), super::KernelError> {
        if let Bounds::Range(lo, hi) = bounds {
            if lo.is_nan() || hi.is_nan() || lo > hi || !valid(lo) || !(valid(hi) || hi == f64::INFINITY) {
                return Err(super::KernelError::InvalidParameter(format!(
                    "bounds {bounds} for {name} are not a valid interval of the domain"
                )));
            }
        }
        let old = self.bounds;
        self.bounds = bounds;
        if let Err(e) = self.check(name, self.value, valid) {
            self.bounds = old;
            return Err(e);
        }
        Ok(())
    }
}

/// The hyperparameters of a combination of kernels, one group per part, with
/// unique paths: where a path occurs in two groups, every path of group `i`
/// is prefixed `i.` (scikit-learn prefixes always; here paths without a
/// collision stay short). `delta * delta` has `0.h` and `1.h`.
pub(crate) fn unique_paths(groups: Vec<Vec<Hyperparameter>>) -> Vec<Hyperparameter> {
    let mut seen = std::collections::HashSet::new();
    let collide = groups.iter().flatten().any(|h| !seen.insert(h.name.as_str()));
    if !collide {
        return groups.into_iter().flatten().collect();
    }
    groups.into_iter().enumerate().flat_map(|(i, g)| g.into_iter().map(move |h| h.prefixed(&i.to_string()))).collect()
}

/// θ as scikit-learn has it: the logarithms of the trained hyperparameters
/// of `hs`, in order (shared by [`BaseKernel::theta_log`](super::BaseKernel::theta_log)
/// and the graph kernels').
pub(crate) fn theta_log(hs: &[Hyperparameter]) -> Vec<f64> {
    hs.iter().filter(|h| h.is_active()).map(|h| h.value.ln()).collect()
}

/// The bounds of [`theta_log`] in log space: `(ln lo, ln hi)` per trained
/// hyperparameter (a lower bound 0 gives −∞).
pub(crate) fn bounds_log(hs: &[Hyperparameter]) -> Vec<(f64, f64)> {
    hs.iter()
        .filter(|h| h.is_active())
        .map(|h| match h.bounds {
            Bounds::Range(lo, hi) => (lo.ln(), hi.ln()),
            Bounds::Fixed => (h.value.ln(), h.value.ln()),
        })
        .collect()
}

/// Every hyperparameter value of `hs` (linear, fixed ones kept) with the
/// trained ones from their logarithms `theta_log`; `exp(ln v)` that rounds
/// past a bound `v` sat on is clamped back to the bound.
///
/// # Errors
/// [`KernelError::ThetaLength`](super::KernelError::ThetaLength) unless
/// `theta_log` has one entry per trained hyperparameter.
pub(crate) fn theta_from_log(hs: &[Hyperparameter], theta_log: &[f64]) -> Result<Vec<f64>, super::KernelError> {
    let active = hs.iter().filter(|h| h.is_active()).count();
    if theta_log.len() != active {
        return Err(super::KernelError::ThetaLength { expected: active, found: theta_log.len() });
    }
    let mut next = theta_log.iter();
    Ok(hs
        .iter()
        .map(|h| {
            let v = if h.is_active() { next.next().map_or(h.value, |t| t.exp()) } else { h.value };
            match h.bounds {
                Bounds::Range(lo, _) if (v - lo).abs() <= 4.0 * f64::EPSILON * lo.abs() => lo,
                Bounds::Range(_, hi) if (v - hi).abs() <= 4.0 * f64::EPSILON * hi.abs() => hi,
                _ => v,
            }
        })
        .collect())
}
