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
    params: Vec<f64>,
    helpers: Vec<String>,
}

impl CudaGen {
    /// A generator for real type `real` (`"float"` or `"double"`), reading
    /// hyperparameters from the array `params_name`.
    pub fn new(real: &'static str, params_name: &str) -> Self {
        CudaGen { real, params_name: params_name.to_string(), params: Vec::new(), helpers: Vec::new() }
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
