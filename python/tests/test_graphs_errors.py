"""Graphs from networkx, scipy.sparse and TU folders; pickling; bad input
raises a Python exception carrying the library's message."""

import pickle

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import kronograph as kg
from conftest import DATA


def to_networkx(g):
    """A networkx copy of a kronograph graph, through its array form."""
    n, directed, src, dst, w, nf, ef, _ = g.state()
    h = nx.DiGraph() if directed else nx.Graph()
    nl = {name: np.frombuffer(b, dtype="<i8") for name, _, _, b in nf}
    el = {name: np.frombuffer(b, dtype="<i8") for name, _, _, b in ef}
    for i in range(n):
        h.add_node(i, **{k: int(v[i]) for k, v in nl.items()})
    for e, (u, v) in enumerate(zip(np.frombuffer(src, "<i8"), np.frombuffer(dst, "<i8"))):
        h.add_edge(int(u), int(v), **{k: int(x[e]) for k, x in el.items()})
    return h


def test_networkx_and_pickle_equal_tu(mutag):
    g = mutag.graphs[:12]
    nxg = [to_networkx(x) for x in g]
    conv = [kg.from_networkx(x) for x in nxg]
    assert conv[0].node_fields == [("label", "int")] and conv[0].edge_fields == [("label", "int")]
    k = kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), backend="cpu")
    ref = k(g)
    np.testing.assert_allclose(k(conv), ref, rtol=1e-12)
    np.testing.assert_allclose(k(nxg), ref, rtol=1e-12)  # converted on the fly
    back = pickle.loads(pickle.dumps(g))
    np.testing.assert_allclose(k(back), ref, rtol=1e-12)
    assert len(pickle.dumps(g[0])) < 4000


def test_scipy_and_attributes():
    a = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 2.0], [0, 2.0, 0]]))
    g = kg.from_scipy(
        a,
        node_labels={"label": np.array([1, 2, 1]), "x": np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])},
        edge_labels={"length": a * 0.5},
    )
    assert g.num_nodes == 3 and g.num_edges == 2
    assert g.node_fields == [("label", "int"), ("x", "float[2]")]
    h = nx.Graph()
    h.add_node(0, label=1, x=[0.0, 1.0])
    h.add_node(1, label=2, x=[1.0, 0.0])
    h.add_node(2, label=1, x=[0.5, 0.5])
    h.add_edge(0, 1, w=1.0, length=0.5)
    h.add_edge(1, 2, w=2.0, length=1.0)
    g2 = kg.from_networkx(h, edge_attrs=["length"], weight="w")
    node = kg.TensorProduct(label=kg.KroneckerDelta(0.3), x=0.5 + 0.5 * kg.SquareExponential(1.0))
    k = kg.MarginalizedGraphKernel(node, kg.SquareExponential(0.7), backend="cpu")
    k.edge_kernel = kg.TensorProduct(length=kg.SquareExponential(0.7))
    np.testing.assert_allclose(k([g, g2]), k([g, g]), rtol=1e-12)


def test_bad_input_raises_with_message(tmp_path, mutag):
    g = mutag.graphs[:3]
    with pytest.raises(kg.KernelError, match="invalid kernel spec"):
        kg.MarginalizedGraphKernel("delta(label 0.5)", "delta(label, 0.5)")(g)
    with pytest.raises(kg.KernelError, match="q = 1.5"):
        kg.MarginalizedGraphKernel("delta(label, 0.5)", "delta(label, 0.5)", q=1.5)(g)
    with pytest.raises(kg.KernelError, match="nosuch"):
        kg.MarginalizedGraphKernel("delta(nosuch, 0.5)", "delta(label, 0.5)")(g)
    with pytest.raises(kg.KernelError, match="node kernel"):
        kg.MarginalizedGraphKernel(kg.Constant(2.0), kg.KroneckerDelta(0.5))(g)
    with pytest.raises(kg.KernelError, match="backend"):
        kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), backend="tpu")(g)
    with pytest.raises(kg.FileError, match="BAD_A.txt"):
        bad = tmp_path / "BAD"
        bad.mkdir()
        (bad / "BAD_A.txt").write_text("1, 2\n2, x\n")
        (bad / "BAD_graph_indicator.txt").write_text("1\n1\n")
        kg.read_tu(bad)
    with pytest.raises(kg.FileError):
        kg.read_tu(tmp_path / "missing")
    with pytest.raises(kg.GraphError, match="weight"):
        kg.from_scipy(sp.csr_matrix(np.array([[0, -1.0], [-1.0, 0]])))
    with pytest.raises(ValueError, match="not symmetric"):
        kg.from_scipy(np.array([[0, 1.0], [0, 0]]))
    with pytest.raises(TypeError, match="encode categories"):
        h = nx.path_graph(3)
        nx.set_node_attributes(h, "C", "element")
        kg.from_networkx(h)
    with pytest.raises(TypeError, match="sequence of graphs"):
        kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5))(g[0])
    with pytest.raises(TypeError, match="X\\[1\\]"):
        kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5))([g[0], 3])
    with pytest.raises(kg.KernelError, match="same fields"):
        k = kg.MarginalizedGraphKernel(kg.Constant(1.0), kg.Constant(1.0))
        k([g[0], kg.from_networkx(nx.path_graph(3))])
    with pytest.raises(kg.GraphError, match="out of range"):
        kg.Graph(2, False, np.array([0], "<i8").tobytes(), np.array([5], "<i8").tobytes(), np.ones(1).tobytes(), [], [])
    with pytest.raises(kg.KronographError):
        kg.bfs(g[0], 10_000)
    assert issubclass(kg.FileError, kg.KronographError)
