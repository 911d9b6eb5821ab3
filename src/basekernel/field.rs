//! Projections: [`Field`] (a field of a [`Record`] label) and [`Project`]
//! (a part of a user's label struct), and [`ValueKernel`].

use super::codegen::schema_identifiers;
use super::{
    builtin_ops, c_identifier, BaseKernel, CompactPolynomial, Constant, CudaGen, Hyperparameter, KernelError,
    KroneckerDelta, Normalize, Polynomial, Power, Product, RConvolution, RationalQuadratic, Scaled, SquareExponential,
    Sum,
};
use crate::graph::{FieldKind, LabelError, Record, Schema, Value};
use std::fmt;
use std::marker::PhantomData;

/// A kernel on record field [`Value`]s that says which field kinds it accepts
/// (checked by [`Field::bind`]).
pub trait ValueKernel: BaseKernel<Value> {
    /// `Ok` if the kernel compares values of kind `kind`, else `Err` with a
    /// description of the kinds it accepts (for the error message).
    ///
    /// # Errors
    /// The description above.
    fn accepts(&self, kind: FieldKind) -> Result<(), String>;
}

impl ValueKernel for Constant {
    fn accepts(&self, _kind: FieldKind) -> Result<(), String> {
        Ok(())
    }
}

impl ValueKernel for KroneckerDelta {
    fn accepts(&self, kind: FieldKind) -> Result<(), String> {
        match kind {
            FieldKind::Int => Ok(()),
            _ => Err("int (delta compares integer labels)".into()),
        }
    }
}

fn numeric(kind: FieldKind, what: &str) -> Result<(), String> {
    match kind {
        FieldKind::Int | FieldKind::Float | FieldKind::Array(_) => Ok(()),
        FieldKind::Set => Err(format!("int, float or float[k] ({what})")),
    }
}

impl ValueKernel for SquareExponential {
    fn accepts(&self, kind: FieldKind) -> Result<(), String> {
        numeric(kind, "sqexp needs a distance")
    }
}

impl ValueKernel for RationalQuadratic {
    fn accepts(&self, kind: FieldKind) -> Result<(), String> {
        numeric(kind, "rq needs a distance")
    }
}

impl ValueKernel for Polynomial {
    fn accepts(&self, kind: FieldKind) -> Result<(), String> {
        numeric(kind, "poly needs a dot product")
    }
}

impl ValueKernel for CompactPolynomial {
    fn accepts(&self, kind: FieldKind) -> Result<(), String> {
        match kind {
            FieldKind::Int | FieldKind::Float => Ok(()),
            FieldKind::Array(k) if k <= 3 => Ok(()),
            _ => Err("int, float or float[k] with k <= 3 (Wendland's phi_3,1 is positive definite up to 3 dimensions)"
                .into()),
        }
    }
}

impl<K: BaseKernel<i64>> ValueKernel for RConvolution<K> {
    fn accepts(&self, kind: FieldKind) -> Result<(), String> {
        match kind {
            FieldKind::Set => Ok(()),
            _ => Err("set (rconv compares sets)".into()),
        }
    }
}

/// [`ValueKernel`] for combinators: a field kind is accepted when every
/// part accepts it.
macro_rules! value_kernel_by_parts {
    ($($t:ident<$($g:ident),+> => $($part:ident),+;)*) => {$(
        impl<$($g: ValueKernel),+> ValueKernel for $t<$($g),+> {
            fn accepts(&self, kind: FieldKind) -> Result<(), String> {
                $(self.$part.accepts(kind)?;)+
                Ok(())
            }
        }
    )*};
}
value_kernel_by_parts! {
    Product<A, B> => a, b;
    Sum<A, B> => a, b;
    Scaled<K> => kernel;
    Power<K> => kernel;
    Normalize<K> => kernel;
}

impl<K: ValueKernel> ValueKernel for Box<K> {
    fn accepts(&self, kind: FieldKind) -> Result<(), String> {
        (**self).accepts(kind)
    }
}

/// Puts `prefix.` before the hyperparameter path of an out-of-bounds error.
fn prefix_error(e: KernelError, prefix: &str) -> KernelError {
    match e {
        KernelError::OutOfBounds { name, value, bounds } => {
            KernelError::OutOfBounds { name: format!("{prefix}.{name}"), value, bounds }
        }
        e => e,
    }
}

const UNBOUND: usize = usize::MAX;
static MISSING: Value = Value::Float(f64::NAN);

/// A kernel on one field of [`Record`] labels: κ(x, y) = κ_f(x.field, y.field).
///
/// [`bind`](BaseKernel::bind) resolves the field's position in a [`Schema`]
/// once (and checks that the inner kernel accepts the field's kind), so that
/// [`value`](BaseKernel::value) is an indexed load. Unbound, it looks the
/// field up by name on every call (slow; a missing field gives NaN).
///
/// Hyperparameter paths are prefixed with the field name
/// (`Field::new("length", SquareExponential::new(0.1))` has `length.scale`).
/// CUDA: the inner expression on `a.<field>`, the field name made a C
/// identifier as in [`cuda_label_struct`](super::cuda_label_struct).
#[derive(Clone, Debug, PartialEq)]
pub struct Field<K> {
    name: String,
    ident: String,
    index: usize,
    /// The kernel on the field's values.
    pub kernel: K,
}

impl<K> Field<K> {
    /// κ on the field `name`.
    pub fn new(name: &str, kernel: K) -> Self {
        Field { name: name.to_string(), ident: c_identifier(name), index: UNBOUND, kernel }
    }

    /// The field name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The field's position, once bound.
    pub fn index(&self) -> Option<usize> {
        (self.index != UNBOUND).then_some(self.index)
    }

    #[inline(always)]
    fn get<'r>(&self, r: &'r Record) -> &'r Value {
        match r.values().get(self.index) {
            Some(v) => v,
            None => r.get(&self.name).unwrap_or(&MISSING),
        }
    }
}
builtin_ops!(impl[K,] Field<K>);

impl<K: ValueKernel> BaseKernel<Record> for Field<K> {
    #[inline(always)]
    fn value(&self, a: &Record, b: &Record) -> f64 {
        self.kernel.value(self.get(a), self.get(b))
    }
    fn table(&self, a: &[&Record], b: &[&Record], out: &mut Vec<f64>) {
        // each record's field looked up once, not once per pair
        let va: Vec<&Value> = a.iter().map(|r| self.get(r)).collect();
        let vb: Vec<&Value> = b.iter().map(|r| self.get(r)).collect();
        self.kernel.table(&va, &vb, out)
    }
    fn low_rank(&self, a: &[&Record], b: &[&Record]) -> Option<super::LowRank> {
        let va: Vec<&Value> = a.iter().map(|r| self.get(r)).collect();
        let vb: Vec<&Value> = b.iter().map(|r| self.get(r)).collect();
        self.kernel.low_rank(&va, &vb)
    }
    #[inline(always)]
    fn value_f32(&self, a: &Record, b: &Record) -> f32 {
        self.kernel.value_f32(self.get(a), self.get(b))
    }
    fn range(&self) -> (f64, f64) {
        self.kernel.range()
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        self.kernel.hyperparameters().into_iter().map(|h| h.prefixed(&self.name)).collect()
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        self.kernel.num_hyperparameters()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        self.kernel.set_theta(theta).map_err(|e| prefix_error(e, &self.name))
    }
    #[inline]
    fn gradient(&self, a: &Record, b: &Record, grad: &mut [f64]) -> f64 {
        self.kernel.gradient(self.get(a), self.get(b), grad)
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        let index = schema
            .index(&self.name)
            .ok_or_else(|| LabelError::UnknownField { name: self.name.clone(), available: schema.describe() })?;
        let (_, kind) = schema.fields().nth(index).expect("index from the schema");
        self.kernel.accepts(kind).map_err(|expected| LabelError::FieldKind {
            name: self.name.clone(),
            expected,
            found: kind,
        })?;
        self.index = index;
        self.ident = schema_identifiers(schema).swap_remove(index);
        Ok(())
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        self.kernel.cuda(&format!("{a}.{}", self.ident), &format!("{b}.{}", self.ident), cg)
    }
}

/// A kernel on a part of a user's label struct: κ(x, y) = κ_p(f(x), f(y))
/// for a projection `f: &T → &U`.
///
/// `name` names the hyperparameter prefix and the member of the CUDA label
/// struct (`a.<name>`), so it should be the C member name.
///
/// ```
/// use kronograph::basekernel::*;
/// #[derive(Clone, Debug)]
/// struct Atom { element: u8, charge: f32 }
/// let k = Project::new("element", |a: &Atom| &a.element, KroneckerDelta::new(0.3))
///     * Project::new("charge", |a: &Atom| &a.charge, SquareExponential::new(1.0));
/// let (c, o) = (Atom { element: 6, charge: 0.1 }, Atom { element: 8, charge: -0.2 });
/// assert!((k.value(&c, &o) - 0.3 * (-0.09f64 / 2.0).exp()).abs() < 1e-6);
/// assert_eq!(k.hyperparameters()[1].name, "charge.scale");
/// ```
pub struct Project<U: ?Sized, F, K> {
    name: String,
    f: F,
    /// The kernel on the projected part.
    pub kernel: K,
    _u: PhantomData<fn(&U)>,
}

/// A [`Project`] through a function pointer: a type that can be named (in a
/// struct field, a return type, a type alias) where a closure's cannot:
/// `ProjectFn<Atom, u8, KroneckerDelta>`, built with
/// `Project::new("element", (|a: &Atom| &a.element) as fn(&Atom) -> &u8, KroneckerDelta::new(0.3))`.
/// For numeric fields, [`label_struct!`](crate::label_struct) labels with an
/// [`ExprKernel`](super::ExprKernel) avoid projections altogether.
pub type ProjectFn<T, U, K> = Project<U, fn(&T) -> &U, K>;

impl<U: ?Sized, F, K> Project<U, F, K> {
    /// κ_p on `f(label)`, named `name`.
    pub fn new<T: ?Sized>(name: &str, f: F, kernel: K) -> Self
    where
        F: Fn(&T) -> &U,
    {
        Project { name: name.to_string(), f, kernel, _u: PhantomData }
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl<U: ?Sized, F: Clone, K: Clone> Clone for Project<U, F, K> {
    fn clone(&self) -> Self {
        Project { name: self.name.clone(), f: self.f.clone(), kernel: self.kernel.clone(), _u: PhantomData }
    }
}

impl<U: ?Sized, F, K: fmt::Debug> fmt::Debug for Project<U, F, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Project").field("name", &self.name).field("kernel", &self.kernel).finish_non_exhaustive()
    }
}
builtin_ops!(impl[U: ?Sized, F, K,] Project<U, F, K>);

impl<T: ?Sized, U: ?Sized, F, K> BaseKernel<T> for Project<U, F, K>
where
    F: Fn(&T) -> &U + Clone + Send + Sync,
    K: BaseKernel<U>,
{
    #[inline(always)]
    fn value(&self, a: &T, b: &T) -> f64 {
        self.kernel.value((self.f)(a), (self.f)(b))
    }
    #[inline(always)]
    fn value_f32(&self, a: &T, b: &T) -> f32 {
        self.kernel.value_f32((self.f)(a), (self.f)(b))
    }
    fn range(&self) -> (f64, f64) {
        self.kernel.range()
    }
    fn low_rank(&self, a: &[&T], b: &[&T]) -> Option<super::LowRank> {
        let pa: Vec<&U> = a.iter().map(|&x| (self.f)(x)).collect();
        let pb: Vec<&U> = b.iter().map(|&x| (self.f)(x)).collect();
        self.kernel.low_rank(&pa, &pb)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        self.kernel.hyperparameters().into_iter().map(|h| h.prefixed(&self.name)).collect()
    }
    #[inline]
    fn num_hyperparameters(&self) -> usize {
        self.kernel.num_hyperparameters()
    }
    fn set_theta(&mut self, theta: &[f64]) -> Result<(), KernelError> {
        self.kernel.set_theta(theta).map_err(|e| prefix_error(e, &self.name))
    }
    #[inline]
    fn gradient(&self, a: &T, b: &T, grad: &mut [f64]) -> f64 {
        self.kernel.gradient((self.f)(a), (self.f)(b), grad)
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        self.kernel.cuda(&format!("{a}.{}", self.name), &format!("{b}.{}", self.name), cg)
    }
}
