//! The factored form of a [`PairSystem`](super::PairSystem): its diagonal,
//! right-hand side and output functional stated per graph instead of per
//! pair,
//!
//! ```text
//! v_(i,i') = s · f_i · f'_i' · κv(v_i, v'_i')^k,      k ∈ {0, 1, −1}
//! ```
//!
//! (`f`, `f'` one vector per node of each graph and [`Part`], `κv` an
//! optional node-label kernel), so that the device generates the `n·n'`
//! entries of each pair inside the batched kernel (from the per-graph
//! vectors and the kernel's generated CUDA form, as the marginalized graph
//! kernel does) instead of receiving them from the host. The marginalized
//! graph kernel is of this form (`d = s (D ⊗ D') V×⁻¹`, `b = s (D ⊗ D') 1`,
//! `o = p ⊗ p'`), and the geometric random walk (`d = b = 1/λ`, `o = 1`).

use crate::basekernel::{BaseKernel, CudaGen, Hyperparameter, KernelError};
use crate::graph::{Graph, Label, Schema};
use crate::mgk::system::{floor_node_kernel, NODE_KERNEL_FLOOR_F64};
use std::fmt;
use std::sync::Arc;

/// One of the three vectors of a pair system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// The diagonal `d`.
    Diagonal,
    /// The right-hand side `b`.
    Rhs,
    /// The output functional `o`.
    Output,
}

impl Part {
    /// The three parts, in the order of [`Factored`]'s fields.
    pub const ALL: [Part; 3] = [Part::Diagonal, Part::Rhs, Part::Output];

    /// The index of the part in [`Part::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// How the node-label kernel `κv` enters one part: `κv^k`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LabelPower {
    /// `k = 0`: the part does not depend on the labels (beyond the per-node
    /// vectors).
    #[default]
    None,
    /// `k = 1`: times `κv(v_i, v'_i')`.
    Times,
    /// `k = −1`: divided by `κv(v_i, v'_i')` (the marginalized graph
    /// kernel's `V×⁻¹`).
    Divide,
}

impl LabelPower {
    /// The exponent `k` (as the device kernel takes it).
    pub fn exponent(self) -> i32 {
        match self {
            LabelPower::None => 0,
            LabelPower::Times => 1,
            LabelPower::Divide => -1,
        }
    }
}

/// One part in factored form: `s · f_i · f'_i' · κv^k`, with `f` from
/// [`PairSystem::node_factor`](super::PairSystem::node_factor).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Factor {
    /// The scale `s`.
    pub scale: f64,
    /// The power of the node-label kernel.
    pub label: LabelPower,
}

impl Factor {
    /// `s · f_i · f'_i'` (no label factor).
    pub fn new(scale: f64) -> Self {
        Factor { scale, label: LabelPower::None }
    }

    /// The same factor with the node-label kernel to the power `label`.
    pub fn with_label(self, label: LabelPower) -> Self {
        Factor { label, ..self }
    }
}

/// A pair system's diagonal, right-hand side and output functional in
/// factored form (see [`PairSystem::factored`](super::PairSystem::factored)).
///
/// `κv` values in `[0, floor)` are raised to a tiny floor (`1.5e-154` in
/// f64, `1.1e-19` in f32) wherever a part uses the label kernel, as the
/// marginalized graph kernel floors its node kernel (no infinite `1/κv`).
#[derive(Clone, Debug)]
pub struct Factored<N> {
    /// The diagonal `d`.
    pub diagonal: Factor,
    /// The right-hand side `b`.
    pub rhs: Factor,
    /// The output functional `o`.
    pub output: Factor,
    /// The node-label kernel `κv` (`None`: no part may use it).
    pub label_kernel: Option<LabelKernel<N>>,
}

impl<N: Label> Factored<N> {
    /// The factor of `part`.
    pub fn part(&self, part: Part) -> Factor {
        match part {
            Part::Diagonal => self.diagonal,
            Part::Rhs => self.rhs,
            Part::Output => self.output,
        }
    }

    /// Whether some part uses the node-label kernel.
    pub fn uses_labels(&self) -> bool {
        Part::ALL.iter().any(|&p| self.part(p).label != LabelPower::None)
    }

    /// Writes `part` of the pair `(g, h)` into `out` (`n·n'`, row-major),
    /// from the per-node vectors `fg` (of `g`) and `fh` (of `h`), in f64: the
    /// dense form the CPU solves and the device path is checked against.
    /// Entries are NaN where a part uses a missing label kernel.
    pub fn fill<E: Label>(
        &self,
        part: Part,
        (g, h): (&Graph<N, E>, &Graph<N, E>),
        fg: &[f64],
        fh: &[f64],
        out: &mut [f64],
    ) {
        let f = self.part(part);
        let m = h.num_nodes().max(1);
        let kernel = match (f.label, &self.label_kernel) {
            (LabelPower::None, _) => None,
            (_, Some(k)) => Some(k),
            (_, None) => {
                out.fill(f64::NAN);
                return;
            }
        };
        for ((row, &a), lg) in out.chunks_exact_mut(m).zip(fg).zip(g.node_labels()) {
            let sa = f.scale * a;
            for ((v, &b), lh) in row.iter_mut().zip(fh).zip(h.node_labels()) {
                *v = match kernel {
                    None => sa * b,
                    Some(k) => {
                        let kv = floor_node_kernel(BaseKernel::value(k, lg, lh), NODE_KERNEL_FLOOR_F64);
                        if f.label == LabelPower::Divide {
                            sa * b / kv
                        } else {
                            sa * b * kv
                        }
                    }
                };
            }
        }
    }
}

/// A node-label kernel as the label factor of a [`Factored`] system: any
/// [`BaseKernel`] on the node labels (its CUDA form is generated into the
/// batched kernel on a device), behind a shared pointer so that the
/// factored form names no kernel type.
pub struct LabelKernel<N>(Arc<dyn DynKernel<N>>);

impl<N: Label> LabelKernel<N> {
    /// `kernel` as a label factor.
    pub fn new<K: BaseKernel<N> + 'static>(kernel: K) -> Self {
        LabelKernel(Arc::new(kernel))
    }
}

impl<N> Clone for LabelKernel<N> {
    fn clone(&self) -> Self {
        LabelKernel(self.0.clone())
    }
}

impl<N> fmt::Debug for LabelKernel<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LabelKernel({})", self.0.type_name())
    }
}

/// The object-safe part of [`BaseKernel`] a label factor needs.
trait DynKernel<N>: Send + Sync {
    fn value(&self, a: &N, b: &N) -> f64;
    fn range(&self) -> (f64, f64);
    fn hyperparameters(&self) -> Vec<Hyperparameter>;
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError>;
    fn bound(&self, schema: &Schema) -> Result<Arc<dyn DynKernel<N>>, KernelError>;
    fn type_name(&self) -> &'static str;
}

impl<N, K: BaseKernel<N> + 'static> DynKernel<N> for K {
    fn value(&self, a: &N, b: &N) -> f64 {
        BaseKernel::value(self, a, b)
    }
    fn range(&self) -> (f64, f64) {
        BaseKernel::range(self)
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        BaseKernel::hyperparameters(self)
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        BaseKernel::cuda(self, a, b, cg)
    }
    fn bound(&self, schema: &Schema) -> Result<Arc<dyn DynKernel<N>>, KernelError> {
        let mut k = self.clone();
        k.bind(schema)?;
        Ok(Arc::new(k))
    }
    fn type_name(&self) -> &'static str {
        std::any::type_name::<K>()
    }
}

/// The label factor is a base kernel itself (for the code generation and
/// the binding to record labels); its hyperparameters are fixed here.
impl<N: Label> BaseKernel<N> for LabelKernel<N> {
    fn value(&self, a: &N, b: &N) -> f64 {
        self.0.value(a, b)
    }
    fn range(&self) -> (f64, f64) {
        self.0.range()
    }
    fn hyperparameters(&self) -> Vec<Hyperparameter> {
        self.0.hyperparameters()
    }
    fn bind(&mut self, schema: &Schema) -> Result<(), KernelError> {
        self.0 = self.0.bound(schema)?;
        Ok(())
    }
    fn cuda(&self, a: &str, b: &str, cg: &mut CudaGen) -> Result<String, KernelError> {
        self.0.cuda(a, b, cg)
    }
}

/// `form` with its label kernel bound to the schema of the record node
/// labels of `x` (and `y`), as the edge kernel is bound where it meets data;
/// refuses a part that uses a missing label kernel and a non-finite scale.
pub(super) fn bind_factored<N: Label, E: Label>(
    form: Factored<N>,
    x: &[Graph<N, E>],
    y: Option<&[Graph<N, E>]>,
) -> Result<Factored<N>, KernelError> {
    if let Some(p) = Part::ALL.into_iter().find(|&p| !form.part(p).scale.is_finite()) {
        return Err(KernelError::InvalidParameter(format!("the factored form's {p:?} scale is not finite")));
    }
    let Some(kernel) = &form.label_kernel else {
        return match Part::ALL.into_iter().find(|&p| form.part(p).label != LabelPower::None) {
            Some(p) => Err(KernelError::InvalidParameter(format!(
                "the factored form's {p:?} uses the node-label kernel, but label_kernel is None"
            ))),
            None => Ok(form),
        };
    };
    let schema = |gs: &[Graph<N, E>]| gs.iter().find_map(|g| g.node_labels().first()).and_then(|l| l.schema()).cloned();
    let bound = super::product::bind_kernel(kernel, schema(x), y.and_then(schema))?.into_owned();
    Ok(Factored { label_kernel: Some(bound), ..form })
}
