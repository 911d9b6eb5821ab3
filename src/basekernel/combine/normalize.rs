//! The normalized kernel [`Normalize`] and its CUDA form (shared with the
//! expression kernels' `normalize`).

use crate::basekernel::cuda::dual_name;
use crate::basekernel::point::real_suffix;
use crate::basekernel::{builtin_ops, BaseKernel, CudaGen, KernelError};
use crate::graph::Schema;
use smallvec::SmallVec;

// --------------------------------------------------------------- Normalize

/// The normalized kernel κ(x, y) = κ₁(x, y) / √(κ₁(x, x) κ₁(y, y)), and 0
/// where κ₁(x, x) κ₁(y, y) ≤ 0.
///
/// κ(x, x) = 1 wherever κ₁(x, x) > 0. Hyperparameters are κ₁'s. Range, for a
/// positive semi-definite κ₁ with range (lo, hi) (Cauchy–Schwarz):
/// [max(0, lo/hi), 1] when lo ≥ 0, else [−1, 1]. Three evaluations of κ₁
/// per value; gradient by the quotient rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Normalize<K> {
    /// κ₁.
    pub kernel: K,
}

/// κ₁(x, y) / √(κ₁(x, x) κ₁(y, y)).
pub fn normalize<K>(kernel: K) -> Normalize<K> {
    Normalize { kernel }
}
builtin_ops!(impl[K,] Normalize<K>);

impl<T: ?Sized, K: BaseKernel<T>> BaseKernel<T> for Normalize<K> {
    #[inline]
    fn value(&self, x: &T, y: &T) -> f64 {
        let d = self.kernel.value(x, x) * self.kernel.value(y, y);
        if d > 0.0 {
            self.kernel.value(x, y) / d.sqrt()
        } else {
            0.0
        }
    }
    #[inline]
    fn value_f32(&self, x: &T, y: &T) -> f32 {
        let d = self.kernel.value_f32(x, x) * self.kernel.value_f32(y, y);
        if d > 0.0 {
            self.kernel.value_f32(x, y) / d.sqrt()
        } else {
            0.0
        }
    }
    fn range(&self) -> (f64, f64) {
        let (lo, hi) = self.kernel.range();
        if lo >= 0.0 {
            let m = if hi.is_finite() && hi > 0.0 { (lo / hi).min(1.0) } else { 0.0 };
            (m, 1.0)
        } else {
            (-1.0, 1.0)
        }
    }
    child_hyperparameters!(kernel);
    fn gradient(&self, x: &T, y: &T, grad: &mut [f64]) -> f64 {
        let n = grad.len();
        let mut gxx: SmallVec<[f64; 16]> = SmallVec::from_elem(0.0, n);
        let mut gyy: SmallVec<[f64; 16]> = SmallVec::from_elem(0.0, n);
        let kxx = self.kernel.gradient(x, x, &mut gxx);
        let kyy = self.kernel.gradient(y, y, &mut gyy);
        let kxy = self.kernel.gradient(x, y, grad);
        let d = kxx * kyy;
        if d <= 0.0 {
            grad.iter_mut().for_each(|g| *g = 0.0);
            return 0.0;
        }
        let s = d.sqrt();
        let k = kxy / s;
        for i in 0..n {
            grad[i] = grad[i] / s - 0.5 * k * (gxx[i] / kxx + gyy[i] / kyy);
        }
        k
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.kernel.bind(schema)
    }
    fn cuda(&self, x: &str, y: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        let mark = cg.num_params();
        let kxy = self.kernel.cuda(x, y, cg)?;
        cg.rewind(mark);
        let kxx = self.kernel.cuda(x, x, cg)?;
        cg.rewind(mark);
        let kyy = self.kernel.cuda(y, y, cg)?;
        Ok(cuda_normalize(cg, &kxy, &kxx, &kyy))
    }
}

/// The CUDA form of k(x,y)/√(k(x,x)k(y,y)) from the three values' C
/// expressions (0 where the diagonal product is not positive), its helper
/// function registered in `cg` (shared by [`Normalize`] and the expression
/// kernels' `normalize`).
pub(crate) fn cuda_normalize(cg: &mut CudaGen, kxy: &str, kxx: &str, kyy: &str) -> String {
    let (r, s) = (cg.real, real_suffix(cg));
    cg.helper(&format!(
        "#ifndef KG_NORMALIZE_{s}\n#define KG_NORMALIZE_{s}\n\
         __device__ inline {r} kg_normalize_{s}({r} kxy, {r} kxx, {r} kyy) {{\n  \
         {r} d = kxx * kyy;\n  return d > ({r})0 ? kxy / sqrt(d) : ({r})0;\n}}\n#endif\n"
    ));
    if cg.is_dual() {
        let t = dual_name(r);
        cg.helper(&format!(
            "#ifndef KG_NORMALIZE_DUAL_{s}\n#define KG_NORMALIZE_DUAL_{s}\n\
             template <int D> __device__ inline {t}<D> kg_normalize_{s}(const {t}<D>& kxy, const {t}<D>& kxx, \
             const {t}<D>& kyy) {{\n  {t}<D> d = kxx * kyy;\n  \
             return d > ({r})0 ? kxy / sqrt(d) : {t}<D>(({r})0);\n}}\n#endif\n"
        ));
    }
    format!("kg_normalize_{s}({kxy}, {kxx}, {kyy})")
}
