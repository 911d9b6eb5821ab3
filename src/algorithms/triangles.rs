//! Triangle counting by masked plus-pair matrix products.

use super::AlgorithmError;
use crate::graph::{Graph, Label};
use crate::matrix::gpu::GpuMxmStrategy;
use crate::matrix::host::{mxm, reduce_rows, select};
use crate::matrix::{
    mxm_costs, reduce_mxm, DenseVector, Descriptor, Element, MatrixMask, MxmMethod, MxmReduceOp, SparseMatrix,
};
use crate::semirings::{Plus, PlusPair};
use rayon::slice::ParallelSliceMut;

/// Number of triangles of an undirected graph (self-loops ignored).
///
/// Relabels the nodes by decreasing degree (hubs first, so each node's
/// lower-numbered neighbours are few), takes the strictly lower triangle
/// `L`, and computes `C⟨L⟩ = L ·(plus, pair) Lᵀ` by masked dot products:
/// `C(i, j) = |{k < j : k ~ i, k ~ j}|` for each edge `j < i`, so every
/// triangle `k < j < i` is counted once; the count is `Σ C`.
/// Cost `O(n log n + nnz(L) + Σ_{(i,j) ∈ L} |L(j,:)|)`.
///
/// # Errors
/// [`GraphError::DirectedNotSupported`](crate::graph::GraphError) for a directed graph.
pub fn triangle_count<N: Label, E: Label>(g: &Graph<N, E>) -> Result<u64, AlgorithmError> {
    g.require_undirected("triangle counting")?;
    triangle_count_matrix(&SparseMatrix::from_graph(g))
}

/// [`triangle_count`] on a symmetric adjacency matrix (values unread).
///
/// # Errors
/// [`AlgorithmError::NotSquare`]. The matrix is assumed symmetric.
pub fn triangle_count_matrix<T: Element>(a: &SparseMatrix<T>) -> Result<u64, AlgorithmError> {
    let n = a.nrows();
    if a.ncols() != n {
        return Err(AlgorithmError::NotSquare { what: "triangle counting", rows: n, cols: a.ncols() });
    }
    let l = lower_by_degree(a);
    triangles_in(&l, &MatrixMask::structural(&l), TriangleForm::Dot).map_err(super::host_error)
}

/// Which masked product of the lower triangle `L` a triangle count reduces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TriangleForm {
    /// `C⟨L⟩ = L ·(plus, pair) Lᵀ` by dot products (on the host each
    /// merges or probes two rows of `L`; on a device `L(i,:)` is hashed
    /// once and each `L(j,:)`, `j ∈ L(i,:)`, probed against it): `C(i, j)`
    /// counts the `k < j` adjacent to both (the CPU's default).
    #[default]
    Dot,
    /// `C⟨L⟩ = L ·(plus, pair) L` row-wise (row `i` gathers the rows
    /// `L(k,:)`, `k ∈ L(i,:)`; on a device probed against the hashed
    /// mask row `L(i,:)`): `C(i, j)` counts the `j < k < i` adjacent to both.
    RowWise,
    /// The cheaper of the two by their operation counts ([`mxm_costs`],
    /// a gathered term weighted as
    /// [`GpuMxmStrategy::HASH_PROBE_COST`] merge steps; the devices' default).
    Auto,
}

/// Number of triangles from the strictly lower triangle `l` of a
/// symmetric pattern (e.g. [`lower_by_degree`]) and its structural mask,
/// wherever they live: the host ([`SparseMatrix`], [`MatrixMask`]) or a
/// device ([`DeviceMatrix`](crate::matrix::gpu::DeviceMatrix),
/// [`DeviceMatrixMask`](crate::matrix::gpu::DeviceMatrixMask)). One source
/// for every place, over [`reduce_mxm`]: `Σ C` for the product `form`
/// names (each triangle `k < j < i` is counted once by either); `Auto`
/// measures both forms' operation counts on the place ([`mxm_costs`]).
///
/// # Errors
/// Dimension errors for a mask that does not fit; CUDA errors on a device.
pub fn triangles_in<M>(l: &M, mask: &M::MatrixMask<'_>, form: TriangleForm) -> crate::Result<u64>
where
    M: MxmReduceOp<PlusPair<bool, bool, u64>, M>,
{
    let s = PlusPair::<bool, bool, u64>::new();
    let (dot, rows) = (Descriptor::DEFAULT.transpose_second(), Descriptor::DEFAULT);
    let form = match form {
        TriangleForm::Auto => {
            let d = mxm_costs(mask, s, l, l, &dot)?[0];
            let h = mxm_costs(mask, s, l, l, &rows)?[1];
            match GpuMxmStrategy::choose(d, h) {
                GpuMxmStrategy::Hash => TriangleForm::RowWise,
                _ => TriangleForm::Dot,
            }
        }
        f => f,
    };
    match form {
        TriangleForm::RowWise => reduce_mxm(mask, s, l, l, &rows, MxmMethod::Gustavson),
        _ => reduce_mxm(mask, s, l, l, &dot, MxmMethod::Dot),
    }
}

/// The strictly lower triangle `L` of a square pattern relabelled by
/// decreasing degree (ties by id; hubs first): what [`triangle_count_matrix`]
/// (and the GPU's [`triangles`](super::gpu::triangles)) multiply.
pub fn lower_by_degree<T: Element>(a: &SparseMatrix<T>) -> SparseMatrix<bool> {
    let n = a.nrows();
    // rank[v]: position of v in decreasing-degree order (ties by id).
    let mut order: Vec<usize> = (0..n).collect();
    order.par_sort_unstable_by_key(|&v| (std::cmp::Reverse(a.row(v).0.len()), v));
    let mut rank = vec![0usize; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v] = r;
    }
    // L = strictly lower triangle of the relabelled pattern, built row by row
    // (row r is node order[r]; its neighbours of smaller rank, relabelled, sorted).
    SparseMatrix::from_rows_into(n, n, |r, idx, val| {
        let start = idx.len();
        idx.extend(a.row(order[r]).0.iter().map(|&v| rank[v]).filter(|&c| c < r));
        idx[start..].sort_unstable();
        val.resize(idx.len(), true);
    })
}

/// Number of triangles through each node of an undirected graph.
///
/// `C⟨A⟩ = A ·(plus, pair) A` (masked dot products over the pattern without
/// self-loops): `C(v, j)` counts the common neighbours of the adjacent
/// `v, j`, and `t(v) = ½ Σ_j C(v, j)`. Cost `O(Σ_{(i,j) ∈ A} (d_i + d_j))`.
///
/// # Errors
/// [`GraphError::DirectedNotSupported`](crate::graph::GraphError) for a directed graph.
pub fn triangles_per_vertex<N: Label, E: Label>(g: &Graph<N, E>) -> Result<Vec<u64>, AlgorithmError> {
    g.require_undirected("triangle counting")?;
    let a0 = SparseMatrix::from_graph(g);
    let n = a0.nrows();
    let mut a = SparseMatrix::<f64>::new(n, n);
    select(&mut a, None, None, |i, j, _| i != j, &a0, &Descriptor::DEFAULT)?;
    let mut c = SparseMatrix::<u64>::new(n, n);
    let mask = MatrixMask::structural(&a);
    mxm(&mut c, Some(&mask), None, PlusPair::<f64, f64, u64>::new(), &a, &a, &Descriptor::DEFAULT, MxmMethod::Dot)?;
    let mut t = DenseVector::<u64>::new(n);
    reduce_rows(&mut t, None, None, Plus, &c, &Descriptor::DEFAULT)?;
    Ok((0..n).map(|v| t.get(v).unwrap_or(0) / 2).collect())
}
