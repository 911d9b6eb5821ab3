//! Node and edge labels.
//!
//! A graph is generic over its node label type `N` and edge label type `E`
//! ([`Graph<N, E>`](crate::graph::Graph)). Any `Clone + Send + Sync + Debug`
//! type can be a label: `()` for unlabeled graphs, integers, floats, small
//! fixed arrays, or a user's own struct.
//!
//! Data sets read from files whose columns are only known at run time (the TU
//! Dortmund format, say) use [`Record`]: a row of named fields described by a
//! shared [`Schema`]. Fields are
//!
//! | kind | Rust value | GPU column |
//! | --- | --- | --- |
//! | [`FieldKind::Int`] | `i64` | `int32_t[n]` |
//! | [`FieldKind::Float`] | `f64` | `float[n]` / `double[n]` |
//! | [`FieldKind::Array(k)`](FieldKind::Array) | `[f64; k]` | `k` float columns |
//! | [`FieldKind::Set`] | variable-length `i64` set | offsets + values |
//!
//! so a record maps onto a plain structure-of-arrays on the device: one
//! column per field, the field order of the schema.

use smallvec::SmallVec;
use std::fmt;
use std::sync::Arc;

/// The kind of one field of a [`Record`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// A signed integer (categorical labels: atom type, bond order, …).
    Int,
    /// A real number (charge, length, …).
    Float,
    /// A fixed-length real vector of the given length.
    Array(usize),
    /// A variable-length set (or multiset) of integers, for R-convolution kernels.
    Set,
}

impl fmt::Display for FieldKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldKind::Int => write!(f, "int"),
            FieldKind::Float => write!(f, "float"),
            FieldKind::Array(k) => write!(f, "float[{k}]"),
            FieldKind::Set => write!(f, "set"),
        }
    }
}

/// One field value of a [`Record`].
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// See [`FieldKind::Int`].
    Int(i64),
    /// See [`FieldKind::Float`].
    Float(f64),
    /// See [`FieldKind::Array`].
    Array(SmallVec<[f64; 4]>),
    /// See [`FieldKind::Set`]; kept sorted.
    Set(SmallVec<[i64; 4]>),
}

impl Value {
    /// The kind of this value.
    pub fn kind(&self) -> FieldKind {
        match self {
            Value::Int(_) => FieldKind::Int,
            Value::Float(_) => FieldKind::Float,
            Value::Array(a) => FieldKind::Array(a.len()),
            Value::Set(_) => FieldKind::Set,
        }
    }

    /// The value as a real number, for `Int` and `Float` fields.
    #[inline]
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Float(x) => Some(x),
            _ => None,
        }
    }
}

/// The names and kinds of the fields of a family of [`Record`]s.
///
/// Shared (behind an [`Arc`]) by every record of a data set.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Schema {
    fields: Vec<(String, FieldKind)>,
}

impl Schema {
    /// An empty schema (records with no fields).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a field; returns `self` for chaining.
    ///
    /// # Panics
    /// If a field of that name exists already (a programmer error).
    pub fn with(mut self, name: &str, kind: FieldKind) -> Self {
        assert!(self.index(name).is_none(), "duplicate field name {name:?}");
        self.fields.push((name.to_string(), kind));
        self
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether there are no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Position of the field `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|(n, _)| n == name)
    }

    /// Kind of the field `name`.
    pub fn kind(&self, name: &str) -> Option<FieldKind> {
        self.index(name).map(|i| self.fields[i].1)
    }

    /// The fields in order: `(name, kind)`.
    pub fn fields(&self) -> impl Iterator<Item = (&str, FieldKind)> {
        self.fields.iter().map(|(n, k)| (n.as_str(), *k))
    }

    /// The field names, comma-separated (for error messages).
    pub fn describe(&self) -> String {
        if self.fields.is_empty() {
            return "(no fields)".to_string();
        }
        self.fields.iter().map(|(n, k)| format!("{n}: {k}")).collect::<Vec<_>>().join(", ")
    }
}

/// A label made of named fields, described by a shared [`Schema`].
///
/// Field values are addressed by position (resolve the position once with
/// [`Schema::index`]); [`Record::get`] looks one up by name.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    schema: Arc<Schema>,
    values: SmallVec<[Value; 3]>,
}

impl Record {
    /// A record of `values` in the field order of `schema`.
    ///
    /// # Errors
    /// [`LabelError::RecordShape`] when the number or kinds of the values do
    /// not match the schema.
    pub fn new(schema: Arc<Schema>, values: impl IntoIterator<Item = Value>) -> Result<Self, LabelError> {
        let values: SmallVec<[Value; 3]> = values.into_iter().collect();
        if values.len() != schema.len() {
            return Err(LabelError::RecordShape {
                expected: schema.describe(),
                found: format!("{} values", values.len()),
            });
        }
        for ((name, kind), v) in schema.fields().zip(values.iter()) {
            if v.kind() != kind {
                return Err(LabelError::RecordShape {
                    expected: schema.describe(),
                    found: format!("field {name} of kind {}", v.kind()),
                });
            }
        }
        Ok(Record { schema, values })
    }

    /// The schema of this record.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// The value at field position `i`.
    #[inline]
    pub fn at(&self, i: usize) -> &Value {
        &self.values[i]
    }

    /// The value of the field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.schema.index(name).map(|i| &self.values[i])
    }

    /// All values, in schema order.
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// Replaces the value at position `i` (kind must match).
    ///
    /// # Errors
    /// [`LabelError::RecordShape`] when the kind differs from the schema's.
    pub fn set(&mut self, i: usize, v: Value) -> Result<(), LabelError> {
        let (name, kind) = self.schema.fields().nth(i).ok_or_else(|| LabelError::RecordShape {
            expected: self.schema.describe(),
            found: format!("field position {i}"),
        })?;
        if v.kind() != kind {
            return Err(LabelError::RecordShape {
                expected: self.schema.describe(),
                found: format!("field {name} of kind {}", v.kind()),
            });
        }
        self.values[i] = v;
        Ok(())
    }
}

/// Errors about labels.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum LabelError {
    /// A record's values do not fit its schema.
    #[error("record does not fit its schema: expected fields {expected}, found {found}")]
    RecordShape {
        /// The schema's fields.
        expected: String,
        /// What was given.
        found: String,
    },
    /// A field name not in the schema.
    #[error("no label field {name:?}; the labels have fields {available}")]
    UnknownField {
        /// The field asked for.
        name: String,
        /// The schema's fields.
        available: String,
    },
    /// A field of the wrong kind for an operation.
    #[error("label field {name:?} is of kind {found}, expected {expected}")]
    FieldKind {
        /// The field.
        name: String,
        /// What the operation needs.
        expected: String,
        /// What the field is.
        found: FieldKind,
    },
}

/// Labels that are [`Record`]s expose their schema; other label types have none.
///
/// Implemented for `()`, numbers, fixed arrays and [`Record`]; implement it for
/// your own label type (returning `None`) to use it in graphs with the
/// data-set tools.
pub trait Label: Clone + Send + Sync + fmt::Debug + 'static {
    /// The schema, for record labels.
    fn schema(&self) -> Option<&Arc<Schema>> {
        None
    }
}

impl Label for Record {
    fn schema(&self) -> Option<&Arc<Schema>> {
        Some(&self.schema)
    }
}

macro_rules! plain_label {
    ($($t:ty),*) => { $(impl Label for $t {})* };
}
plain_label!((), bool, u8, u16, u32, u64, i8, i16, i32, i64, usize, f32, f64);
impl<T: Label, const K: usize> Label for [T; K] {}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Arc<Schema> {
        Arc::new(Schema::new().with("element", FieldKind::Int).with("charge", FieldKind::Float))
    }

    #[test]
    fn record_checks_shape() {
        let s = schema();
        let r = Record::new(s.clone(), [Value::Int(6), Value::Float(-0.5)]).unwrap();
        assert_eq!(r.get("charge"), Some(&Value::Float(-0.5)));
        assert_eq!(r.at(0).as_f64(), Some(6.0));
        assert!(Record::new(s.clone(), [Value::Int(6)]).is_err());
        let e = Record::new(s, [Value::Float(6.0), Value::Float(1.0)]).unwrap_err();
        assert!(e.to_string().contains("element"), "{e}");
    }

    #[test]
    fn set_checks_kind() {
        let mut r = Record::new(schema(), [Value::Int(6), Value::Float(-0.5)]).unwrap();
        assert!(r.set(1, Value::Int(1)).is_err());
        r.set(1, Value::Float(2.0)).unwrap();
        assert_eq!(r.at(1), &Value::Float(2.0));
        assert!(r.set(7, Value::Float(2.0)).is_err());
    }

    #[test]
    fn schema_describes() {
        assert_eq!(schema().describe(), "element: int, charge: float");
        assert_eq!(Schema::new().describe(), "(no fields)");
    }
}
