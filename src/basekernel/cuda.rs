//! [`CudaGen`]: collects what base kernels need to emit their CUDA form.

/// Collects the hyperparameter slots and helper functions that base kernels
/// use in their CUDA expressions.
///
/// Hyperparameters live in one parameter array (`theta` in the generated
/// source; constant memory or a launch argument), so that changing their
/// values never changes the source and never recompiles.
#[derive(Clone, Debug, Default)]
pub struct CudaGen {
    /// The real type of the generated code: `"float"` or `"double"`.
    pub real: &'static str,
    /// Name of the parameter array in the generated code.
    pub params_name: String,
    /// Name of the device array that holds the elements of set-valued
    /// fields (see [`cuda_label_struct`](super::cuda_label_struct)); set by
    /// [`cuda_kappa_function`](super::cuda_kappa_function).
    pub set_values: String,
    params: Vec<f64>,
    helpers: Vec<String>,
}

impl CudaGen {
    /// A generator for real type `real` (`"float"` or `"double"`), reading
    /// hyperparameters from the array `params_name`.
    pub fn new(real: &'static str, params_name: &str) -> Self {
        CudaGen {
            real,
            params_name: params_name.to_string(),
            set_values: "kg_set_values".to_string(),
            params: Vec::new(),
            helpers: Vec::new(),
        }
    }

    /// Reserves a parameter slot holding `value` now, and returns the C
    /// expression that reads it (`theta[k]`).
    pub fn param(&mut self, value: f64) -> String {
        self.params.push(value);
        format!("{}[{}]", self.params_name, self.params.len() - 1)
    }

    /// The parameter values, in slot order (to upload before a launch).
    pub fn params(&self) -> &[f64] {
        &self.params
    }

    /// Number of parameter slots reserved so far.
    pub fn num_params(&self) -> usize {
        self.params.len()
    }

    /// Forgets the slots reserved after the first `len`, so that emitting the
    /// same kernel again reuses the same slots. [`Normalize`](super::Normalize)
    /// emits its child three times this way, keeping the parameter array
    /// equal to the kernel's θ.
    pub fn rewind(&mut self, len: usize) {
        self.params.truncate(len);
    }

    /// A C literal of the real type: `1` → `((float)1)`.
    pub fn lit(&self, x: f64) -> String {
        format!("(({}){x:?})", self.real)
    }

    /// Adds a `__device__` helper function once (identical text is kept once).
    pub fn helper(&mut self, source: &str) {
        if !self.helpers.iter().any(|h| h == source) {
            self.helpers.push(source.to_string());
        }
    }

    /// The helper functions, in the order they were added.
    pub fn helpers(&self) -> &[String] {
        &self.helpers
    }
}
