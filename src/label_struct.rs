//! [`label_struct!`](crate::label_struct): plain structs of numbers as
//! labels. The macro makes a struct a label of the graph layer, of the base
//! kernels and of the CUDA layer at once, so it lives above the three (its
//! number types, [`LabelNumber`](crate::graph::LabelNumber), are the graph's).

/// Declares a struct of numbers and makes it a label everywhere: [`Label`](crate::graph::Label)
/// (with a fixed [`Schema`](crate::graph::Schema) of its fields, so field kernels and
/// [`ExprKernel`](crate::basekernel::ExprKernel)s bind to it by field name),
/// [`ExprLabel`](crate::basekernel::ExprLabel) and [`GpuLabel`](crate::cuda::GpuLabel)
/// (the device struct has one member per field, in order, laid out from the same
/// schema as records are). Field types: `u8`…`i64` (`int`, held as `int32` on the
/// GPU) and `f32`, `f64` (`float`). It derives `Clone`, `Copy`, `Debug` and `PartialEq`.
///
/// ```
/// kronograph::label_struct! {
///     /// An atom.
///     pub struct Atom { pub element: u8, pub charge: f32 }
/// }
/// use kronograph::graph::Label;
/// let a = Atom { element: 6, charge: -0.5 };
/// assert_eq!(a.schema().unwrap().describe(), "element: int, charge: float");
/// ```
#[macro_export]
macro_rules! label_struct {
    ($(#[$m:meta])* $vis:vis struct $name:ident { $($(#[$fm:meta])* $fvis:vis $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        $vis struct $name { $($(#[$fm])* $fvis $f: $t),* }

        impl $crate::graph::Label for $name {
            fn schema(&self) -> ::std::option::Option<&::std::sync::Arc<$crate::graph::Schema>> {
                static SCHEMA: ::std::sync::OnceLock<::std::sync::Arc<$crate::graph::Schema>> =
                    ::std::sync::OnceLock::new();
                ::std::option::Option::Some(SCHEMA.get_or_init(|| {
                    ::std::sync::Arc::new($crate::graph::Schema::new()
                        $(.with(stringify!($f), <$t as $crate::graph::LabelNumber>::KIND))*)
                }))
            }
        }

        impl $crate::basekernel::ExprLabel for $name {
            #[inline(always)]
            #[allow(unused_assignments)]
            fn number(&self, i: usize) -> f64 {
                let mut k = 0usize;
                $(
                    if i == k {
                        return <$t as $crate::graph::LabelNumber>::to_f64(self.$f);
                    }
                    k += 1;
                )*
                f64::NAN
            }
        }

        impl $crate::cuda::GpuLabel for $name {
            fn layout(
                _labels: &[Self],
                precision: $crate::Precision,
            ) -> ::std::result::Result<$crate::cuda::label::LabelLayout, $crate::cuda::CudaError> {
                let s = <Self as $crate::graph::Label>::schema(&Self { $($f: <$t>::default()),* })
                    .expect("label_struct has a schema")
                    .clone();
                $crate::cuda::label::schema_layout(&s, precision)
            }

            fn write(
                &self,
                layout: &$crate::cuda::label::LabelLayout,
                precision: $crate::Precision,
                out: &mut ::std::vec::Vec<u8>,
            ) -> ::std::result::Result<(), $crate::cuda::CudaError> {
                let values = [$(<$t as $crate::graph::LabelNumber>::to_value(self.$f)),*];
                $crate::cuda::label::write_values(&values, layout, precision, out)
            }
        }
    };
}
