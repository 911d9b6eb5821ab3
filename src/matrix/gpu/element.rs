//! [`GpuElement`]: the entry types the device GraphBLAS holds.

/// A matrix or vector entry type the GPU holds: plain data with a CUDA C++ spelling.
pub trait GpuElement: crate::matrix::Element + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits {
    /// The CUDA C++ type (`double`, `unsigned long long`, …).
    const CUDA: &'static str;

    /// The value's bytes in the low bytes of a `u64` (how a scalar reaches a
    /// kernel whose scalar type is a preface typedef).
    fn to_bits(self) -> u64;
}

macro_rules! gpu_element {
    ($($t:ty => $c:literal, $bits:expr);*) => {$(
        impl GpuElement for $t {
            const CUDA: &'static str = $c;
            fn to_bits(self) -> u64 {
                let f: fn($t) -> u64 = $bits;
                f(self)
            }
        }
    )*};
}
gpu_element!(bool => "bool", |x| x as u64; u8 => "unsigned char", |x| x as u64; i32 => "int", |x| x as u32 as u64;
             u32 => "unsigned int", |x| x as u64; i64 => "long long", |x| x as u64;
             u64 => "unsigned long long", |x| x; f32 => "float", |x| x.to_bits() as u64;
             f64 => "double", |x| x.to_bits());
