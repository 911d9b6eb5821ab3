//! What the GPU marginalized graph kernel returns: Gram values with their
//! iteration counts and work, gradients, nodal similarities.

use crate::cuda::Origin;

/// Result of a Gram computation.
#[derive(Clone, Debug, PartialEq)]
pub struct GramOutput {
    /// Row-major `rows × cols` values (for `diag`, `rows = 1`).
    pub values: Vec<f64>,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// PCG iterations of each pair, in the layout of `values`.
    pub iterations: Vec<u32>,
    /// Effective XMV work: Σ over solved pairs of iterations · nnz · nnz′
    /// (nonzeros of the Kronecker operator applied).
    pub xmv_products: f64,
    /// The kernel's name, where its image came from, and the seconds spent
    /// getting it ready in this call (compile and module load; ~0 when it
    /// was already loaded).
    pub kernel: (String, Origin, f64),
}

impl GramOutput {
    /// Mean PCG iterations per solved pair.
    pub fn mean_iterations(&self) -> f64 {
        if self.iterations.is_empty() {
            return 0.0;
        }
        self.iterations.iter().map(|&i| i as f64).sum::<f64>() / self.iterations.len() as f64
    }
}

/// A Gram matrix and its gradient, from [`GpuGram::gram_with_gradient`](super::GpuGram::gram_with_gradient)
/// (and the `_xy` / `diag` forms).
#[derive(Clone, Debug, PartialEq)]
pub struct GramGradient {
    /// The values. `iterations` counts the PCG iterations of both solves
    /// (the system and its adjoint) of each pair.
    pub gram: GramOutput,
    /// The gradient's slots: `node.<path>` for each of the node kernel's
    /// hyperparameters, `edge.<path>` for the edge kernel's (fixed ones
    /// included, as `BaseKernel::hyperparameters` lists them), then `q`.
    pub names: Vec<String>,
    /// `rows × cols × names.len()`, entry `(i, j, t)` at
    /// `(i·cols + j)·k + t`: ∂K_ij/∂(log θ_t).
    pub gradient: Vec<f64>,
}

/// Nodal similarity of one pair, from [`GpuGram::nodal`](super::GpuGram::nodal).
#[derive(Clone, Debug, PartialEq)]
pub struct NodalOutput {
    /// Nodes of the first graph.
    pub rows: usize,
    /// Nodes of the second graph.
    pub cols: usize,
    /// Row-major `rows × cols` values `K_ii′` in the graphs' own node order.
    pub values: Vec<f64>,
    /// K(G, G′) = Σ K_ii′.
    pub value: f64,
    /// PCG iterations.
    pub iterations: u32,
}
