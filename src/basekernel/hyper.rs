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
