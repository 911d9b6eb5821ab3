//! Labels on the GPU: the C layout of a label type and its bytes.
//!
//! A label type becomes either a scalar `typedef` (for integer and real
//! labels) or a `struct` with one member per [`Record`] field, named as the
//! base kernels' CUDA forms expect ([`c_identifier`](crate::basekernel::c_identifier) of the field name, with
//! `_<position>` appended where two names would collide; the same members as
//! [`cuda_label_struct`](crate::basekernel::cuda_label_struct)). Members are
//! laid out with C's alignment rules in schema order, so the bytes written by
//! [`GpuLabel::write`] are exactly the device struct.
//!
//! Base kernels' CUDA forms refer to label `a` as a whole (`a == b`) for
//! scalar labels, and to a field as `a.name` for records.

use super::{CudaError, Precision};
use crate::graph::{FieldKind, Label, Record, Schema, Value};

/// The C type of one label member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    /// `int32_t`.
    Int32,
    /// `real` (the precision's float type).
    Real,
    /// `real[k]`.
    RealArray(usize),
}

impl CType {
    fn size_align(self, precision: Precision) -> (usize, usize) {
        match self {
            CType::Int32 => (4, 4),
            CType::Real => (precision.size(), precision.size()),
            CType::RealArray(k) => (k * precision.size(), precision.size()),
        }
    }
}

/// The device layout of a label type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LabelLayout {
    /// No label data (unit labels): one unused byte per label.
    Empty,
    /// A scalar label: `typedef <type> name;`.
    Scalar(CType),
    /// A struct of named members `(name, type, byte offset)`.
    Struct(Vec<(String, CType, usize)>),
}

impl LabelLayout {
    /// A struct layout of `fields` in order, with C alignment.
    pub fn record(fields: &[(String, CType)], precision: Precision) -> LabelLayout {
        let mut off = 0usize;
        let mut members = Vec::with_capacity(fields.len());
        for (name, ty) in fields {
            let (size, align) = ty.size_align(precision);
            off = off.div_ceil(align) * align;
            members.push((name.clone(), *ty, off));
            off += size;
        }
        LabelLayout::Struct(members)
    }

    /// `(size, alignment)` of one label in bytes, as the C compiler lays it out.
    pub fn size_align(&self, precision: Precision) -> (usize, usize) {
        match self {
            LabelLayout::Empty => (1, 1),
            LabelLayout::Scalar(t) => t.size_align(precision),
            LabelLayout::Struct(m) => {
                if m.is_empty() {
                    return (1, 1);
                }
                let align = m.iter().map(|(_, t, _)| t.size_align(precision).1).max().unwrap_or(1);
                let end = m.iter().map(|(_, t, o)| o + t.size_align(precision).0).max().unwrap_or(0);
                (end.div_ceil(align) * align, align)
            }
        }
    }

    /// The C declaration of this layout under the type name `name`.
    pub fn declaration(&self, name: &str) -> String {
        let c = |t: &CType, member: &str| match t {
            CType::Int32 => format!("int {member}"),
            CType::Real => format!("real {member}"),
            CType::RealArray(k) => format!("real {member}[{k}]"),
        };
        match self {
            LabelLayout::Empty => format!("typedef unsigned char {name};\n"),
            LabelLayout::Scalar(t) => format!("typedef {};\n", c(t, name)),
            LabelLayout::Struct(m) if m.is_empty() => format!("struct {name} {{ unsigned char _unused; }};\n"),
            LabelLayout::Struct(m) => {
                let mut s = format!("struct {name} {{\n");
                for (member, t, _) in m {
                    s.push_str(&format!("    {};\n", c(t, member)));
                }
                s.push_str("};\n");
                s
            }
        }
    }
}

/// A label type that can be copied to the GPU.
///
/// Implemented for `()`, numbers, fixed arrays, [`Record`]
/// and the structs declared with [`label_struct!`](crate::label_struct).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be copied to the GPU (it does not implement `GpuLabel`)",
    label = "labels of this type have no GPU layout",
    note = "declare the label struct with `kronograph::label_struct! {{ pub struct {Self} {{ … }} }}`, which \
            implements `GpuLabel` (numeric fields), or use `Record` labels; for CPU-only labels call the \
            `*_on`-less methods (`gram`, `gram_normalized`) or the CPU backend"
)]
pub trait GpuLabel: Label {
    /// The layout of this type, given some of its values (record layouts are
    /// read from the schema of the first label).
    ///
    /// # Errors
    /// [`CudaError::Label`] for a field kind the GPU does not hold (sets).
    fn layout(labels: &[Self], precision: Precision) -> Result<LabelLayout, CudaError>;

    /// Appends the bytes of `self` in `layout` (exactly
    /// `layout.size_align(precision).0` bytes) to `out`.
    ///
    /// # Errors
    /// [`CudaError::Label`] when the value does not fit the layout.
    fn write(&self, layout: &LabelLayout, precision: Precision, out: &mut Vec<u8>) -> Result<(), CudaError>;
}

fn push_real(x: f64, precision: Precision, out: &mut Vec<u8>) {
    match precision {
        Precision::F32 => out.extend_from_slice(&(x as f32).to_le_bytes()),
        Precision::F64 => out.extend_from_slice(&x.to_le_bytes()),
    }
}

fn push_int(x: i64, out: &mut Vec<u8>) -> Result<(), CudaError> {
    let v = i32::try_from(x).map_err(|_| CudaError::Label(format!("integer label {x} does not fit in int32")))?;
    out.extend_from_slice(&v.to_le_bytes());
    Ok(())
}

impl GpuLabel for () {
    fn layout(_: &[Self], _: Precision) -> Result<LabelLayout, CudaError> {
        Ok(LabelLayout::Empty)
    }

    fn write(&self, _: &LabelLayout, _: Precision, out: &mut Vec<u8>) -> Result<(), CudaError> {
        out.push(0);
        Ok(())
    }
}

macro_rules! int_label {
    ($($t:ty),*) => {$(
        impl GpuLabel for $t {
            fn layout(_: &[Self], _: Precision) -> Result<LabelLayout, CudaError> {
                Ok(LabelLayout::Scalar(CType::Int32))
            }

            fn write(&self, _: &LabelLayout, _: Precision, out: &mut Vec<u8>) -> Result<(), CudaError> {
                push_int(*self as i64, out)
            }
        }
    )*};
}
int_label!(i32, i64, u8, u16, u32, usize);

macro_rules! real_label {
    ($($t:ty),*) => {$(
        impl GpuLabel for $t {
            fn layout(_: &[Self], _: Precision) -> Result<LabelLayout, CudaError> {
                Ok(LabelLayout::Scalar(CType::Real))
            }

            fn write(&self, _: &LabelLayout, precision: Precision, out: &mut Vec<u8>) -> Result<(), CudaError> {
                push_real(*self as f64, precision, out);
                Ok(())
            }
        }
    )*};
}
real_label!(f32, f64);

/// The C member names of a schema's fields, in order: [`c_identifier`](crate::basekernel::c_identifier) of
/// each name, with `_<position>` appended where two would collide (as the
/// base kernels' CUDA forms name them).
pub(crate) fn member_names(schema: &Schema) -> Vec<String> {
    crate::basekernel::schema_identifiers(schema)
}

/// The device layout of labels with the fields of `schema` (records, and
/// [`label_struct!`](crate::label_struct) types): one member per field in
/// schema order, named as the member names of the CUDA label struct.
///
/// # Errors
/// [`CudaError::Label`] for a set field (sets are not held on the GPU).
pub fn schema_layout(schema: &Schema, precision: Precision) -> Result<LabelLayout, CudaError> {
    let mut fields = Vec::new();
    let members = member_names(schema);
    for ((name, kind), member) in schema.fields().zip(members) {
        let t = match kind {
            FieldKind::Int => CType::Int32,
            FieldKind::Float => CType::Real,
            FieldKind::Array(k) => CType::RealArray(k),
            FieldKind::Set => {
                return Err(CudaError::Label(format!("field {name:?} is a set; sets are not supported on the GPU")))
            }
        };
        fields.push((member, t));
    }
    Ok(LabelLayout::record(&fields, precision))
}

/// Appends the bytes of the field `values` (in schema order) in the struct
/// `layout` of [`schema_layout`].
///
/// # Errors
/// [`CudaError::Label`] when the values do not fit the layout.
pub fn write_values(
    values: &[Value],
    layout: &LabelLayout,
    precision: Precision,
    out: &mut Vec<u8>,
) -> Result<(), CudaError> {
    let LabelLayout::Struct(members) = layout else {
        return Err(CudaError::Label("a record label needs a struct layout".into()));
    };
    let (size, _) = layout.size_align(precision);
    let start = out.len();
    if members.len() != values.len() {
        return Err(CudaError::Label(format!(
            "record with {} fields in a batch whose schema has {}",
            values.len(),
            members.len()
        )));
    }
    for ((_, t, off), v) in members.iter().zip(values) {
        out.resize(start + off, 0);
        match (t, v) {
            (CType::Int32, Value::Int(i)) => push_int(*i, out)?,
            (CType::Real, Value::Float(x)) => push_real(*x, precision, out),
            (CType::Real, Value::Int(i)) => push_real(*i as f64, precision, out),
            (CType::RealArray(k), Value::Array(a)) if a.len() == *k => {
                for &x in a {
                    push_real(x, precision, out);
                }
            }
            _ => return Err(CudaError::Label(format!("value {v:?} does not fit member type {t:?}"))),
        }
    }
    out.resize(start + size, 0);
    Ok(())
}

impl GpuLabel for Record {
    fn layout(labels: &[Self], precision: Precision) -> Result<LabelLayout, CudaError> {
        let Some(first) = labels.first() else { return Ok(LabelLayout::Struct(Vec::new())) };
        schema_layout(first.schema(), precision)
    }

    fn write(&self, layout: &LabelLayout, precision: Precision, out: &mut Vec<u8>) -> Result<(), CudaError> {
        write_values(self.values(), layout, precision, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Schema;
    use std::sync::Arc;

    #[test]
    fn record_layout_follows_c_alignment() {
        let schema = Arc::new(Schema::new().with("atom", FieldKind::Int).with("charge", FieldKind::Float));
        let r = Record::new(schema, [Value::Int(3), Value::Float(0.5)]).unwrap();
        let l64 = Record::layout(std::slice::from_ref(&r), Precision::F64).unwrap();
        assert_eq!(l64.size_align(Precision::F64), (16, 8));
        let mut bytes = Vec::new();
        r.write(&l64, Precision::F64, &mut bytes).unwrap();
        assert_eq!(bytes.len(), 16);
        assert_eq!(&bytes[0..4], &3i32.to_le_bytes());
        assert_eq!(&bytes[8..16], &0.5f64.to_le_bytes());
        let l32 = Record::layout(std::slice::from_ref(&r), Precision::F32).unwrap();
        assert_eq!(l32.size_align(Precision::F32), (8, 4));
        assert!(l32.declaration("node_label").contains("int atom;"));
    }

    #[test]
    fn member_names_are_c_identifiers() {
        assert_eq!(crate::basekernel::c_identifier("bond type"), "bond_type");
        let s = Schema::new().with("a b", FieldKind::Int).with("a_b", FieldKind::Float);
        assert_eq!(member_names(&s), vec!["a_b".to_string(), "a_b_1".to_string()]);
    }
}
