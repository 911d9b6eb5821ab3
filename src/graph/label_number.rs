//! The numbers a [`label_struct!`](crate::label_struct) field may hold.

use super::{FieldKind, Value};

/// The number types a [`label_struct!`](crate::label_struct) field may have:
/// integers become `int` fields, floats `float` fields.
pub trait LabelNumber: Copy {
    /// The field kind.
    const KIND: FieldKind;
    /// The value as a record [`Value`].
    fn to_value(self) -> Value;
    /// The value as `f64`.
    fn to_f64(self) -> f64;
}

macro_rules! label_number {
    ($kind:ident, $variant:ident as $as:ty: $($t:ty),*) => {$(
        impl LabelNumber for $t {
            const KIND: FieldKind = FieldKind::$kind;
            #[inline(always)]
            fn to_value(self) -> Value {
                Value::$variant(self as $as)
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
label_number!(Int, Int as i64: u8, u16, u32, i8, i16, i32, i64);
label_number!(Float, Float as f64: f32, f64);
