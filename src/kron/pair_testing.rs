//! Pair systems shared by the tests of the pair-system layer (the unit
//! tests, `tests/kron_gpu.rs`; feature `testing`): one copy of each fixture.

use super::{Factor, Factored, LabelKernel, LabelPower, PairSystem, Part};
use crate::basekernel::{Field, KroneckerDelta};
use crate::graph::{Graph, Label, Record};

/// The graphs of the fixtures: `u8` node labels, record edge labels.
pub type TestGraph = Graph<u8, Record>;

/// `(D ⊗ D′ + 1 − c (W ⊗ W′) ⊙ κe) x = b`, `b_(i,i′) = 1 + β [v_i = v′_i′]`,
/// value `Σ x (1 + i′)`, θ = (c, β): a dense system (no factored form).
#[derive(Clone, Debug)]
pub struct OwnSystem {
    /// κe.
    pub kernel: Field<KroneckerDelta>,
    /// The coupling.
    pub c: f64,
    /// The weight of equal node labels in `b`.
    pub beta: f64,
}

impl OwnSystem {
    /// The system with κe = `delta(label, h)`.
    pub fn new(h: f64, c: f64, beta: f64) -> Self {
        OwnSystem { kernel: Field::new("label", KroneckerDelta::new(h)), c, beta }
    }
}

impl PairSystem<u8, Record> for OwnSystem {
    type EdgeKernel = Field<KroneckerDelta>;
    fn edge_kernel(&self) -> &Self::EdgeKernel {
        &self.kernel
    }
    fn coupling(&self) -> f64 {
        self.c
    }
    fn diagonal(&self, g: &TestGraph, h: &TestGraph, d: &mut [f64]) {
        let (dg, dh) = (g.degrees(), h.degrees());
        for (k, v) in d.iter_mut().enumerate() {
            *v = dg[k / h.num_nodes()] * dh[k % h.num_nodes()] + 1.0;
        }
    }
    fn rhs(&self, g: &TestGraph, h: &TestGraph, b: &mut [f64]) {
        let m = h.num_nodes();
        for (k, v) in b.iter_mut().enumerate() {
            *v = 1.0 + if g.node_labels()[k / m] == h.node_labels()[k % m] { self.beta } else { 0.0 };
        }
    }
    fn output(&self, _g: &TestGraph, h: &TestGraph, o: &mut [f64]) {
        for (k, v) in o.iter_mut().enumerate() {
            *v = 1.0 + (k % h.num_nodes()) as f64;
        }
    }
    fn num_params(&self) -> usize {
        2
    }
    fn derivatives(&self, g: &TestGraph, h: &TestGraph, t: usize, _: &mut [f64], db: &mut [f64], _: &mut [f64]) -> f64 {
        if t == 0 {
            return 1.0;
        }
        let m = h.num_nodes();
        for (k, v) in db.iter_mut().enumerate() {
            *v = if g.node_labels()[k / m] == h.node_labels()[k % m] { 1.0 } else { 0.0 };
        }
        0.0
    }
}

/// A system with a factored form AND the same system written densely by
/// hand (for checking one against the other):
///
/// ```text
/// d = s_d (D + 1) ⊗ (D′ + 1) / κv,   b = s_b κv,   o = (1 + i)(1 + i′),
/// ```
///
/// κv = `delta(h_v)` on the node labels, θ = (c, s_b).
#[derive(Clone, Debug)]
pub struct FactoredSystem {
    /// κe.
    pub kernel: Field<KroneckerDelta>,
    /// κv.
    pub node_kernel: KroneckerDelta,
    /// The coupling.
    pub c: f64,
    /// `s_d`.
    pub sd: f64,
    /// `s_b`.
    pub sb: f64,
}

impl FactoredSystem {
    /// κe = `delta(label, 0.5)`, κv = `delta(hv)`.
    pub fn new(hv: f64, c: f64, sd: f64, sb: f64) -> Self {
        FactoredSystem {
            kernel: Field::new("label", KroneckerDelta::new(0.5)),
            node_kernel: KroneckerDelta::new(hv),
            c,
            sd,
            sb,
        }
    }

    fn kv(&self, g: &TestGraph, h: &TestGraph, k: usize) -> f64 {
        use crate::basekernel::BaseKernel;
        let m = h.num_nodes();
        self.node_kernel.value(&g.node_labels()[k / m], &h.node_labels()[k % m])
    }
}

impl PairSystem<u8, Record> for FactoredSystem {
    type EdgeKernel = Field<KroneckerDelta>;
    fn edge_kernel(&self) -> &Self::EdgeKernel {
        &self.kernel
    }
    fn coupling(&self) -> f64 {
        self.c
    }
    fn diagonal(&self, g: &TestGraph, h: &TestGraph, d: &mut [f64]) {
        let (dg, dh, m) = (g.degrees(), h.degrees(), h.num_nodes());
        for (k, v) in d.iter_mut().enumerate() {
            *v = self.sd * (dg[k / m] + 1.0) * (dh[k % m] + 1.0) / self.kv(g, h, k);
        }
    }
    fn rhs(&self, g: &TestGraph, h: &TestGraph, b: &mut [f64]) {
        for (k, v) in b.iter_mut().enumerate() {
            *v = self.sb * self.kv(g, h, k);
        }
    }
    fn output(&self, _g: &TestGraph, h: &TestGraph, o: &mut [f64]) {
        let m = h.num_nodes();
        for (k, v) in o.iter_mut().enumerate() {
            *v = (1.0 + (k / m) as f64) * (1.0 + (k % m) as f64);
        }
    }
    fn factored(&self) -> Option<Factored<u8>> {
        Some(Factored {
            diagonal: Factor::new(self.sd).with_label(LabelPower::Divide),
            rhs: Factor::new(self.sb).with_label(LabelPower::Times),
            output: Factor::new(1.0),
            label_kernel: Some(LabelKernel::new(self.node_kernel)),
        })
    }
    fn node_factor(&self, g: &TestGraph, part: Part, out: &mut [f64]) {
        match part {
            Part::Diagonal => out.iter_mut().zip(g.degrees()).for_each(|(o, d)| *o = d + 1.0),
            Part::Rhs => out.fill(1.0),
            Part::Output => out.iter_mut().enumerate().for_each(|(i, o)| *o = 1.0 + i as f64),
        }
    }
    fn num_params(&self) -> usize {
        2
    }
    fn derivatives(&self, g: &TestGraph, h: &TestGraph, t: usize, _: &mut [f64], db: &mut [f64], _: &mut [f64]) -> f64 {
        if t == 0 {
            return 1.0;
        }
        for (k, v) in db.iter_mut().enumerate() {
            *v = self.kv(g, h, k);
        }
        0.0
    }
}

/// `S` through its dense methods only (its factored form hidden): the
/// per-pair host path of the solvers.
#[derive(Clone, Debug)]
pub struct DenseOnly<S>(pub S);

impl<N: Label, E: Label, S: PairSystem<N, E>> PairSystem<N, E> for DenseOnly<S> {
    type EdgeKernel = S::EdgeKernel;
    fn edge_kernel(&self) -> &Self::EdgeKernel {
        self.0.edge_kernel()
    }
    fn coupling(&self) -> f64 {
        self.0.coupling()
    }
    fn diagonal(&self, g: &Graph<N, E>, h: &Graph<N, E>, d: &mut [f64]) {
        self.0.diagonal(g, h, d)
    }
    fn rhs(&self, g: &Graph<N, E>, h: &Graph<N, E>, b: &mut [f64]) {
        self.0.rhs(g, h, b)
    }
    fn output(&self, g: &Graph<N, E>, h: &Graph<N, E>, o: &mut [f64]) {
        self.0.output(g, h, o)
    }
    fn num_params(&self) -> usize {
        self.0.num_params()
    }
    fn derivatives(
        &self,
        g: &Graph<N, E>,
        h: &Graph<N, E>,
        t: usize,
        dd: &mut [f64],
        db: &mut [f64],
        d_o: &mut [f64],
    ) -> f64 {
        self.0.derivatives(g, h, t, dd, db, d_o)
    }
}
