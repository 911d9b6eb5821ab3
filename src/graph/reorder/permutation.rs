//! [`Permutation`]: a renaming of the nodes `0..n`, with its inverse.

use crate::graph::label::Label;
use crate::graph::{Graph, GraphError};

/// A permutation `π` of `0..n`, read as a renaming of nodes: old node `i`
/// becomes new node `π(i)`.
///
/// Both directions are stored (`new_of_old = π`, `old_of_new = π⁻¹`), so
/// every look-up is `O(1)`. A reordered graph is `G' = P G Pᵀ` with
/// `P[π(i), i] = 1`: `A'[π(i), π(j)] = A[i, j]`.
///
/// # Examples
/// ```
/// use kronograph::graph::reorder::Permutation;
/// // order[new] = old: the new node 0 is the old node 2, …
/// let p = Permutation::from_order(vec![2, 0, 1]).unwrap();
/// assert_eq!(p.new_of_old(), &[1, 2, 0]);
/// let x_new = p.apply_to_slice(&["a", "b", "c"]).unwrap(); // per-node values follow their nodes
/// assert_eq!(x_new, ["c", "a", "b"]);
/// assert_eq!(p.apply_inverse(&x_new).unwrap(), ["a", "b", "c"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Permutation {
    new_of_old: Vec<usize>,
    old_of_new: Vec<usize>,
}

impl Permutation {
    /// The identity on `0..n`.
    pub fn identity(n: usize) -> Self {
        Permutation { new_of_old: (0..n).collect(), old_of_new: (0..n).collect() }
    }

    /// From `new_of_old[i] = π(i)`, the new index of old node `i`.
    ///
    /// # Errors
    /// [`GraphError::InvalidPermutation`] if it is not a permutation of `0..len`.
    pub fn from_new_of_old(new_of_old: Vec<usize>) -> Result<Self, GraphError> {
        let old_of_new = invert(&new_of_old)?;
        Ok(Permutation { new_of_old, old_of_new })
    }

    /// From an order: `order[k]` is the old node placed at new position `k`
    /// (`order = π⁻¹`), what orderings such as RCM produce.
    ///
    /// # Errors
    /// [`GraphError::InvalidPermutation`] if it is not a permutation of `0..len`.
    pub fn from_order(order: Vec<usize>) -> Result<Self, GraphError> {
        let new_of_old = invert(&order)?;
        Ok(Permutation { new_of_old, old_of_new: order })
    }

    /// Number of elements `n`.
    #[inline]
    pub fn len(&self) -> usize {
        self.new_of_old.len()
    }

    /// Whether `n = 0`.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.new_of_old.is_empty()
    }

    /// Whether this is the identity.
    pub fn is_identity(&self) -> bool {
        self.new_of_old.iter().enumerate().all(|(i, &p)| i == p)
    }

    /// `π`: the new index of each old node (what [`Graph::permute`] takes).
    #[inline]
    pub fn new_of_old(&self) -> &[usize] {
        &self.new_of_old
    }

    /// `π⁻¹`: the old node at each new index (the order).
    #[inline]
    pub fn old_of_new(&self) -> &[usize] {
        &self.old_of_new
    }

    /// The inverse permutation `π⁻¹`, `O(1)` beyond the clone.
    pub fn inverse(&self) -> Self {
        Permutation { new_of_old: self.old_of_new.clone(), old_of_new: self.new_of_old.clone() }
    }

    /// `then ∘ self`: first rename by `self`, then by `then`
    /// (old `i` becomes `then(self(i))`). `O(n)`.
    ///
    /// # Errors
    /// [`GraphError::LengthMismatch`] if the lengths differ.
    pub fn then(&self, then: &Permutation) -> Result<Self, GraphError> {
        check_len("permutation to compose", self.len(), then.len())?;
        let new_of_old: Vec<usize> = self.new_of_old.iter().map(|&k| then.new_of_old[k]).collect();
        let old_of_new: Vec<usize> = then.old_of_new.iter().map(|&k| self.old_of_new[k]).collect();
        Ok(Permutation { new_of_old, old_of_new })
    }

    /// The reordered graph `P G Pᵀ`: node labels, edge labels, weights and
    /// start probabilities follow their nodes (see [`Graph::permute`]).
    /// `O(m log d)` for `m` stored entries and maximum degree `d`.
    ///
    /// # Errors
    /// [`GraphError::InvalidPermutation`] if the length is not the number of nodes.
    pub fn apply<N: Label, E: Label>(&self, g: &Graph<N, E>) -> Result<Graph<N, E>, GraphError> {
        g.permute(&self.new_of_old)
    }

    /// Per-node values of the old order moved to the new order:
    /// `out[π(i)] = x[i]`. `O(n)`.
    ///
    /// # Errors
    /// [`GraphError::LengthMismatch`] if `x.len() != n`.
    pub fn apply_to_slice<T: Clone>(&self, x: &[T]) -> Result<Vec<T>, GraphError> {
        check_len("per-node values", self.len(), x.len())?;
        Ok(self.old_of_new.iter().map(|&o| x[o].clone()).collect())
    }

    /// Per-node outputs computed on the reordered graph mapped back to the
    /// original nodes: `out[i] = y[π(i)]`. `O(n)`.
    ///
    /// # Errors
    /// [`GraphError::LengthMismatch`] if `y.len() != n`.
    pub fn apply_inverse<T: Clone>(&self, y: &[T]) -> Result<Vec<T>, GraphError> {
        check_len("per-node values", self.len(), y.len())?;
        Ok(self.new_of_old.iter().map(|&k| y[k].clone()).collect())
    }

    /// Pair-indexed outputs of two reordered graphs (`self` the permutation
    /// of `G` with `n` nodes, `other` that of `G'` with `n'` nodes) mapped
    /// back: `y` is indexed `k·n' + k'` by new indices and
    /// `out[i·n' + i'] = y[π(i)·n' + π'(i')]`. This maps the nodal
    /// similarity `R_{ii'}` of the marginalized graph kernel. `O(n n')`.
    ///
    /// # Errors
    /// [`GraphError::LengthMismatch`] if `y.len() != n·n'`.
    pub fn apply_inverse_pairs<T: Clone>(&self, other: &Permutation, y: &[T]) -> Result<Vec<T>, GraphError> {
        let (n, n2) = (self.len(), other.len());
        check_len("pair-indexed values (n·n')", n * n2, y.len())?;
        let mut out = Vec::with_capacity(n * n2);
        for &k in &self.new_of_old {
            let row = &y[k * n2..(k + 1) * n2];
            out.extend(other.new_of_old.iter().map(|&k2| row[k2].clone()));
        }
        Ok(out)
    }
}

fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), GraphError> {
    if expected == found {
        Ok(())
    } else {
        Err(GraphError::LengthMismatch { what, expected, found })
    }
}

fn invert(p: &[usize]) -> Result<Vec<usize>, GraphError> {
    let n = p.len();
    let mut inv = vec![usize::MAX; n];
    for (i, &k) in p.iter().enumerate() {
        if k >= n {
            return Err(GraphError::InvalidPermutation {
                reason: format!("entry {i} is {k}, not below the length {n}"),
            });
        }
        if inv[k] != usize::MAX {
            return Err(GraphError::InvalidPermutation {
                reason: format!("{k} appears twice (at {} and {i})", inv[k]),
            });
        }
        inv[k] = i;
    }
    Ok(inv)
}
