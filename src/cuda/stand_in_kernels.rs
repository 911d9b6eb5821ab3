//! A few simple base kernels with CUDA forms, used by the GPU tests and the
//! GPU benchmark until the full base-kernel library is in place.
//!
//! They follow GraphDot's parameterizations: KroneckerDelta(h) = 1 if equal
//! else h; SquareExponential(ℓ) = exp(−(x−y)²/(2ℓ²)); Constant(c) = c.
//! Record fields are read by name (`a.<member>` in CUDA, see
//! [`member_name`](super::label::member_name)).

use super::label::member_name;
use crate::basekernel::{BaseKernel, Bounds, CudaGen, Hyperparameter, KernelError};
use crate::graph::{Label, Record, Value};

/// κ(a, b) = c for all labels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constant(pub f64);

impl<T: Label> BaseKernel<T> for Constant {
    fn value(&self, _: &T, _: &T) -> f64 {
        self.0
    }
    fn range(&self) -> (f64, f64) {
        (self.0, self.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![Hyperparameter::new("c", self.0, Bounds::Range(1e-3, 1e3))]
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        match theta {
            [c] => {
                self.0 = *c;
                Ok(())
            }
            _ => Err(KernelError::ThetaLength { expected: 1, found: theta.len() }),
        }
    }
    fn gradient(&self, _: &T, _: &T, grad: &mut [f64]) -> f64 {
        grad[0] = self.0;
        self.0
    }
    fn cuda(&self, _: &str, _: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        Ok(format!("({})", gen.param(self.0)))
    }
}

/// KroneckerDelta(h) on one field of a [`Record`]: 1 when the two values are
/// equal, else h.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDelta {
    /// The field.
    pub field: String,
    /// Value for unequal labels, in [0, 1].
    pub h: f64,
}

impl FieldDelta {
    /// KroneckerDelta(h) on `field`.
    pub fn new(field: &str, h: f64) -> Self {
        FieldDelta { field: field.to_string(), h }
    }
}

fn field<'a>(r: &'a Record, name: &str) -> &'a Value {
    r.get(name).unwrap_or_else(|| panic!("record has no field {name:?}"))
}

impl BaseKernel<Record> for FieldDelta {
    fn value(&self, a: &Record, b: &Record) -> f64 {
        if field(a, &self.field) == field(b, &self.field) {
            1.0
        } else {
            self.h
        }
    }
    fn range(&self) -> (f64, f64) {
        (self.h.min(1.0), 1.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![Hyperparameter::new("h", self.h, Bounds::Range(1e-3, 1.0))]
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        match theta {
            [h] => {
                self.h = *h;
                Ok(())
            }
            _ => Err(KernelError::ThetaLength { expected: 1, found: theta.len() }),
        }
    }
    fn gradient(&self, a: &Record, b: &Record, grad: &mut [f64]) -> f64 {
        let v = self.value(a, b);
        grad[0] = if v == 1.0 { 0.0 } else { self.h };
        v
    }
    fn cuda(&self, a: &str, b: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        let m = member_name(&self.field);
        let h = gen.param(self.h);
        Ok(format!("(({a}.{m} == {b}.{m}) ? (real)1 : {h})"))
    }
}

/// SquareExponential(ℓ) on one real field of a [`Record`]:
/// exp(−(x − y)² / (2ℓ²)).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldSqExp {
    /// The field.
    pub field: String,
    /// Length scale ℓ > 0.
    pub length_scale: f64,
}

impl FieldSqExp {
    /// SquareExponential(ℓ) on `field`.
    pub fn new(field: &str, length_scale: f64) -> Self {
        FieldSqExp { field: field.to_string(), length_scale }
    }
}

impl BaseKernel<Record> for FieldSqExp {
    fn value(&self, a: &Record, b: &Record) -> f64 {
        let x = field(a, &self.field).as_f64().unwrap_or(f64::NAN);
        let y = field(b, &self.field).as_f64().unwrap_or(f64::NAN);
        (-(x - y) * (x - y) / (2.0 * self.length_scale * self.length_scale)).exp()
    }
    fn range(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        vec![Hyperparameter::new("length_scale", self.length_scale, Bounds::Range(1e-3, 1e3))]
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        match theta {
            [l] => {
                self.length_scale = *l;
                Ok(())
            }
            _ => Err(KernelError::ThetaLength { expected: 1, found: theta.len() }),
        }
    }
    fn gradient(&self, a: &Record, b: &Record, grad: &mut [f64]) -> f64 {
        let v = self.value(a, b);
        let x = field(a, &self.field).as_f64().unwrap_or(f64::NAN);
        let y = field(b, &self.field).as_f64().unwrap_or(f64::NAN);
        grad[0] = v * (x - y) * (x - y) / (self.length_scale * self.length_scale);
        v
    }
    fn cuda(&self, a: &str, b: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        let m = member_name(&self.field);
        let l = gen.param(self.length_scale);
        Ok(format!("exp(-(real)({a}.{m} - {b}.{m}) * (real)({a}.{m} - {b}.{m}) / ((real)2 * {l} * {l}))"))
    }
}

/// The product κ₁(a, b) · κ₂(a, b).
#[derive(Clone, Debug, PartialEq)]
pub struct Product<A, B>(pub A, pub B);

impl<T: Label, A: BaseKernel<T>, B: BaseKernel<T>> BaseKernel<T> for Product<A, B> {
    fn value(&self, a: &T, b: &T) -> f64 {
        self.0.value(a, b) * self.1.value(a, b)
    }
    fn range(&self) -> (f64, f64) {
        let (a, b) = (self.0.range(), self.1.range());
        let c = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
        (c.iter().cloned().fold(f64::INFINITY, f64::min), c.iter().cloned().fold(f64::NEG_INFINITY, f64::max))
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        let mut h = self.0.hyperparameters();
        h.extend(self.1.hyperparameters());
        h
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        let k = self.0.num_hyperparameters();
        if theta.len() != k + self.1.num_hyperparameters() {
            return Err(KernelError::ThetaLength { expected: k + self.1.num_hyperparameters(), found: theta.len() });
        }
        self.0.set_theta(&theta[..k])?;
        self.1.set_theta(&theta[k..])
    }
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        let k = self.0.num_hyperparameters();
        let (g0, g1) = grad.split_at_mut(k);
        let v0 = self.0.gradient(a, b, g0);
        let v1 = self.1.gradient(a, b, g1);
        g0.iter_mut().for_each(|g| *g *= v1);
        g1.iter_mut().for_each(|g| *g *= v0);
        v0 * v1
    }
    fn cuda(&self, a: &str, b: &str, gen: &mut CudaGen) -> Result<String, KernelError> {
        let x = self.0.cuda(a, b, gen)?;
        let y = self.1.cuda(a, b, gen)?;
        Ok(format!("({x} * {y})"))
    }
}
