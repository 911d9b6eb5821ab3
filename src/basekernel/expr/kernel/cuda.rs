//! The CUDA form of [`ExprKernel`]'s compiled tree.

use super::super::{Bin, ExprLabel, Un};
use super::{Code, ExprKernel};
use crate::basekernel::combine::cuda_normalize;
use crate::basekernel::{c_identifier, CudaGen, KernelError};

impl ExprKernel {
    /// The CUDA form of `c`; `base` is the slot of hyperparameter 0.
    pub(super) fn cuda_code<T: ExprLabel>(
        &self,
        c: &Code,
        a: &str,
        b: &str,
        cg: &mut CudaGen,
        base: usize,
    ) -> Result<String, KernelError> {
        let real = cg.real;
        let member = |l: &str, i: u32| -> String {
            if T::SCALAR {
                format!("(({real}){l})")
            } else {
                format!("(({real}){l}.{})", self.member(i))
            }
        };
        let sub = |c: &Code, a: &str, b: &str, cg: &mut CudaGen| self.cuda_code::<T>(c, a, b, cg, base);
        Ok(match c {
            Code::Const(v) => cg.lit(*v),
            Code::Param(i) => format!("{}[{}]", cg.params_name, base + *i as usize),
            Code::X(i) => member(a, *i),
            Code::Y(i) => member(b, *i),
            Code::Un(u, x) => {
                let v = sub(x, a, b, cg)?;
                match u {
                    Un::Neg => format!("(-{v})"),
                    Un::Exp => format!("exp({v})"),
                    Un::Ln => format!("log({v})"),
                    Un::Abs => format!("fabs({v})"),
                    Un::Sqrt => format!("sqrt({v})"),
                }
            }
            Code::Bin(o, l, r) => {
                let (l, r) = (sub(l, a, b, cg)?, sub(r, a, b, cg)?);
                match o {
                    Bin::Add => format!("({l} + {r})"),
                    Bin::Sub => format!("({l} - {r})"),
                    Bin::Mul => format!("({l} * {r})"),
                    Bin::Div => format!("({l} / {r})"),
                    Bin::Pow => format!("pow({l}, {r})"),
                }
            }
            Code::Powf(x, p) => {
                let v = sub(x, a, b, cg)?;
                format!("pow({v}, {})", cg.lit(*p))
            }
            Code::IfEq(q) => {
                let s: Vec<String> = q.iter().map(|c| sub(c, a, b, cg)).collect::<Result<_, _>>()?;
                // a real branch converts to the dual type implicitly in the gradient form
                format!("({} == {} ? {} : {})", s[0], s[1], s[2], s[3])
            }
            Code::Fused(_, generic) => sub(generic, a, b, cg)?,
            Code::Leaf(i) => {
                // the leaf reserves its own slots: rewind to its first, re-reserve the rest after
                let slot = &self.leaves[*i as usize];
                let first = slot.params.first().map_or(self.params.len(), |&p| p as usize);
                let end = first + slot.params.len();
                cg.rewind(base + first);
                let s = match slot.field {
                    Some(f) if slot.values && !T::SCALAR => {
                        let m = self.member(f);
                        slot.kernel.cuda_val(&format!("{a}.{m}"), &format!("{b}.{m}"), cg)?
                    }
                    Some(f) => slot.kernel.cuda_num(&member(a, f), &member(b, f), cg)?,
                    None => slot.kernel.cuda_num(a, b, cg)?,
                };
                if cg.num_params() != base + end {
                    return Err(KernelError::InvalidParameter(format!(
                        "the CUDA form of {} reserved {} parameter slots for {} hyperparameters",
                        slot.kernel.name(),
                        cg.num_params() - base - first,
                        slot.params.len()
                    )));
                }
                for p in &self.params[end..] {
                    cg.param(p.value);
                }
                s
            }
            Code::Normalize(k) => {
                let kxy = sub(k, a, b, cg)?;
                let kxx = sub(k, a, a, cg)?;
                let kyy = sub(k, b, b, cg)?;
                cuda_normalize(cg, &kxy, &kxx, &kyy)
            }
        })
    }

    /// The C member name of field `i` (bound: the schema's identifier).
    pub(super) fn member(&self, i: u32) -> String {
        self.members.get(i as usize).cloned().unwrap_or_else(|| c_identifier(&self.fields[i as usize]))
    }
}
