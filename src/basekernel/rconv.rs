//! [`RConvolution`]: kernels on variable-length sets from a kernel on their elements.

use super::codegen::types_helper;
use super::combine::child_hyperparameters;
use super::cuda::dual_name;
use super::point::real_suffix;
use super::{builtin_ops, BaseKernel, CudaGen, KernelError};
use crate::graph::Value;
use smallvec::SmallVec;
use std::hash::{Hash, Hasher};

/// How [`RConvolution`] and [`Additive`](super::Additive) combine their terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Reduction {
    /// Σ of the terms.
    #[default]
    Sum,
    /// Mean of the terms (0 for none).
    Mean,
}

/// The R-convolution kernel on finite sets (or multisets):
///
/// κ(A, B) = Σ_{a ∈ A} Σ_{b ∈ B} κₑ(a, b) ([`Reduction::Sum`]), or that sum
/// divided by |A|·|B| ([`Reduction::Mean`], 0 when a set is empty).
///
/// Works on slices `[T]` and `Vec<T>` for any element kernel κₑ on `T`, and on
/// record [`Value::Set`] fields (elements `i64`) through
/// [`Field`](super::Field). Positive semi-definite when κₑ is (a sum of
/// feature maps; the mean is the normalized feature map). Complexity
/// O(|A|·|B|) element evaluations.
///
/// Range, with κₑ in (lo, hi) and sets of any size including empty: for the
/// sum [0 or −∞, 0 or ∞] (0 when lo ≥ 0, resp. hi ≤ 0); for the mean
/// [min(lo, 0), max(hi, 0)]. Hyperparameters are κₑ's.
///
/// CUDA: the operands must be `kg_set` offset/length pairs into the `int32_t`
/// array named by [`CudaGen::set_values`] (see
/// [`cuda_label_struct`](super::cuda_label_struct)); a helper function loops
/// over the element pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct RConvolution<K> {
    /// κₑ.
    pub kernel: K,
    /// Sum or mean.
    pub reduction: Reduction,
}

impl<K> RConvolution<K> {
    /// Σ_{a, b} κₑ(a, b).
    pub fn sum(kernel: K) -> Self {
        RConvolution { kernel, reduction: Reduction::Sum }
    }

    /// (1/(|A||B|)) Σ_{a, b} κₑ(a, b).
    pub fn mean(kernel: K) -> Self {
        RConvolution { kernel, reduction: Reduction::Mean }
    }

    #[inline(always)]
    fn value_slices<T>(&self, a: &[T], b: &[T]) -> f64
    where
        K: BaseKernel<T>,
    {
        let mut acc = 0.0;
        for x in a {
            for y in b {
                acc += self.kernel.value(x, y);
            }
        }
        self.finish(acc, a.len(), b.len())
    }

    #[inline(always)]
    fn value_slices_f32<T>(&self, a: &[T], b: &[T]) -> f32
    where
        K: BaseKernel<T>,
    {
        let mut acc = 0.0f32;
        for x in a {
            for y in b {
                acc += self.kernel.value_f32(x, y);
            }
        }
        match self.reduction {
            Reduction::Sum => acc,
            Reduction::Mean if a.is_empty() || b.is_empty() => 0.0,
            Reduction::Mean => acc / (a.len() * b.len()) as f32,
        }
    }

    #[inline(always)]
    fn finish(&self, acc: f64, n: usize, m: usize) -> f64 {
        match self.reduction {
            Reduction::Sum => acc,
            Reduction::Mean if n == 0 || m == 0 => 0.0,
            Reduction::Mean => acc / (n * m) as f64,
        }
    }

    fn gradient_slices<T>(&self, a: &[T], b: &[T], grad: &mut [f64]) -> f64
    where
        K: BaseKernel<T>,
    {
        let mut g: SmallVec<[f64; 16]> = SmallVec::from_elem(0.0, grad.len());
        grad.iter_mut().for_each(|x| *x = 0.0);
        let mut acc = 0.0;
        for x in a {
            for y in b {
                acc += self.kernel.gradient(x, y, &mut g);
                grad.iter_mut().zip(&g).for_each(|(s, d)| *s += d);
            }
        }
        let w = self.finish(1.0, a.len(), b.len());
        grad.iter_mut().for_each(|x| *x *= w);
        acc * w
    }

    fn range_of(&self, (lo, hi): (f64, f64)) -> (f64, f64) {
        match self.reduction {
            Reduction::Sum => {
                (if lo >= 0.0 { 0.0 } else { f64::NEG_INFINITY }, if hi <= 0.0 { 0.0 } else { f64::INFINITY })
            }
            Reduction::Mean => (lo.min(0.0), hi.max(0.0)),
        }
    }

    fn cuda_sets<E: ?Sized>(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError>
    where
        K: BaseKernel<E>,
    {
        types_helper(cg);
        let (r, s) = (cg.real, real_suffix(cg));
        let inner = self.kernel.cuda("kg_x", "kg_y", cg)?;
        // The accumulator and parameter type: the real type, or in a dual
        // generator the dual numbers (the helper then is a template on D).
        let (p, prefix, zero, empty) = if cg.is_dual() {
            let t = dual_name(r);
            let z = format!("{t}<D>(({r})0)");
            (format!("{t}<D>"), "template <int D> ".to_string(), z.clone(), z)
        } else {
            (r.to_string(), String::new(), "0".to_string(), format!("({r})0"))
        };
        let finish = match self.reduction {
            Reduction::Sum => "acc".to_string(),
            Reduction::Mean => format!("(x.length > 0 && y.length > 0 ? acc / ({r})(x.length * y.length) : {empty})"),
        };
        let theta = cg.params_name.clone();
        let body = format!(
            "(const int32_t* kg_values, kg_set x, kg_set y, const {p}* {theta}) {{\n  {p} acc = {zero};\n  \
             for (int32_t i = 0; i < x.length; ++i) {{\n    int32_t kg_x = kg_values[x.offset + i];\n    \
             for (int32_t j = 0; j < y.length; ++j) {{\n      int32_t kg_y = kg_values[y.offset + j];\n      \
             acc += {inner};\n    }}\n  }}\n  return {finish};\n}}\n"
        );
        let mut h = std::collections::hash_map::DefaultHasher::new();
        body.hash(&mut h);
        let name = format!("kg_rconv_{s}_{:016x}", h.finish());
        cg.helper(&format!(
            "#ifndef {name}_DEFINED\n#define {name}_DEFINED\n{prefix}__device__ inline {p} {name}{body}#endif\n"
        ));
        Ok(format!("{name}({}, {a}, {b}, {theta})", cg.set_values))
    }
}
builtin_ops!(impl[K,] RConvolution<K>);

macro_rules! rconv_impl {
    ([$($g:tt)*] $t:ty, $elem:ty, $slice:ident) => {
        impl<$($g)*> BaseKernel<$t> for RConvolution<K>
        where
            K: BaseKernel<$elem>,
        {
            #[inline]
            fn value(&self, a: &$t, b: &$t) -> f64 {
                match ($slice(a), $slice(b)) {
                    (Some(a), Some(b)) => self.value_slices(a, b),
                    _ => f64::NAN,
                }
            }
            #[inline]
            fn value_f32(&self, a: &$t, b: &$t) -> f32 {
                match ($slice(a), $slice(b)) {
                    (Some(a), Some(b)) => self.value_slices_f32(a, b),
                    _ => f32::NAN,
                }
            }
            fn range(&self) -> (f64, f64) {
                self.range_of(self.kernel.range())
            }
            child_hyperparameters!(kernel);
            fn gradient(&self, a: &$t, b: &$t, grad: &mut [f64]) -> f64 {
                match ($slice(a), $slice(b)) {
                    (Some(a), Some(b)) => self.gradient_slices(a, b, grad),
                    _ => f64::NAN,
                }
            }
            fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
                self.cuda_sets::<$elem>(a, b, cg)
            }
        }
    };
}

#[inline(always)]
fn as_slice<T>(s: &[T]) -> Option<&[T]> {
    Some(s)
}

#[inline(always)]
fn vec_slice<T>(s: &Vec<T>) -> Option<&[T]> {
    Some(s.as_slice())
}

#[inline(always)]
fn set_slice(v: &Value) -> Option<&[i64]> {
    match v {
        Value::Set(s) => Some(s.as_slice()),
        _ => None,
    }
}

rconv_impl!([T, K][T], T, as_slice);
rconv_impl!([T, K] Vec<T>, T, vec_slice);
rconv_impl!([K] Value, i64, set_slice);
