"""Honest inputs (start probabilities, weights, missing values, sets,
conversion back), safe fitting (underflowing kernels, theta bounds) and the
GraphDot-style base kernels (Expr, Convolution, Additive, .normalized)."""

import math

import networkx as nx
import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel

import kronograph as kg


def mk(node, edge=None, **kw):
    edge = kg.Constant(1.0, "fixed") if edge is None else edge
    return kg.MarginalizedGraphKernel(node, edge, backend="cpu", **kw)


def molecule(seed, n=6):
    """A small random labelled, weighted networkx graph."""
    rng = np.random.default_rng(seed)
    g = nx.gnp_random_graph(n, 0.5, seed=seed)
    g.add_edges_from((i, i + 1) for i in range(n - 1))  # connected
    for v in g.nodes:
        g.nodes[v]["label"] = int(rng.integers(0, 3))
        g.nodes[v]["charge"] = float(rng.normal())
    for u, v in g.edges:
        g.edges[u, v]["label"] = int(rng.integers(0, 2))
        g.edges[u, v]["weight"] = float(rng.uniform(0.5, 2.0))
    return g


def central_differences(k, gs, eps):
    """``dK / d theta`` by central differences, ``(n, n, len(theta))``."""
    cols = []
    for t in range(len(k.theta)):
        th = k.theta.copy()
        th[t] += eps
        kp = k.clone_with_theta(th)(gs)
        th[t] -= 2 * eps
        cols.append((kp - k.clone_with_theta(th)(gs)) / (2 * eps))
    return np.stack(cols, axis=-1)


def single(**attrs):
    g = nx.Graph()
    g.add_node(0, **attrs)
    return g


# -- safe fitting ---------------------------------------------------------------


def test_gpr_fit_with_default_sqexp_bounds_completes(mutag):
    """sqexp on the atom type with its default bounds (1e-3, 1e3): the
    optimizer may reach length scales where exp(-d^2/(2 l^2)) underflows; the
    fit must complete with a finite likelihood (issue 32)."""
    g = mutag.graphs[:24]
    y = np.array([np.mean(x.labels["label"] == 0) for x in g])
    k = ConstantKernel(1.0, (1e-2, 1e2)) * mk(
        kg.SquareExponential(1.0), kg.KroneckerDelta(0.5, "fixed"), normalize=True, q=0.1, q_bounds="fixed"
    )
    # restarts start from length scales drawn log-uniformly in (1e-3, 1e3): most underflow
    gpr = GaussianProcessRegressor(kernel=k, alpha=1e-2, normalize_y=True, n_restarts_optimizer=3, random_state=0)
    gpr.fit(np.array(g, dtype=object), y)
    assert np.isfinite(gpr.log_marginal_likelihood_value_)
    # at the lower bound itself every unequal pair underflows: finite values, finite gradient
    k0 = mk(kg.SquareExponential(1e-3), kg.KroneckerDelta(0.5))
    K, dK = k0(g[:8], eval_gradient=True)
    assert np.all(np.isfinite(K)) and np.all(np.isfinite(dK)) and np.all(K > 0)


def test_underflowing_kernel_is_its_limit(mutag):
    # l = 1e-3 (every unequal pair underflows) and l = 0.05 (exp(-200) = 1e-87, not
    # underflowed) differ by O(1e-87): the same Gram to rounding
    g = mutag.graphs[:6]
    a = mk(kg.SquareExponential(1e-3), kg.KroneckerDelta(0.5))(g)
    b = mk(kg.SquareExponential(0.05), kg.KroneckerDelta(0.5))(g)
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_theta_outside_bounds_is_an_error():
    k = mk(kg.KroneckerDelta(0.5, h_bounds=(0.1, 0.9)))
    with pytest.raises(ValueError, match="outside its bounds"):
        k.theta = np.log([0.95, 0.05])
    with pytest.raises(ValueError, match="outside its bounds"):
        k.clone_with_theta(np.log([0.5, 0.99995]))
    k.theta = k.bounds[:, 1]  # exactly on the bounds is fine
    assert k.node_kernel.h == pytest.approx(0.9)


# -- start probabilities --------------------------------------------------------------


def test_start_probabilities_are_used():
    g, h = molecule(1), molecule(2)
    k = mk(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.7))
    base = k([g], [h])[0, 0]
    # uniform c on one graph scales K by c (p enters linearly)
    for v in g.nodes:
        g.nodes[v]["p"] = 0.3
    g1 = kg.from_networkx(g, node_attrs=["label", "charge"], start="p")
    assert g1.start is not None and np.allclose(g1.start, 0.3)
    np.testing.assert_allclose(k([g1], [h])[0, 0], 0.3 * base, rtol=1e-12)
    # K is linear in each graph's start vector: K(p1 + p2) = K(p1) + K(p2)
    n = g.number_of_nodes()
    rng = np.random.default_rng(0)
    p1, p2 = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    ks = [k([kg.from_networkx(g, node_attrs=["label", "charge"], start=p)], [h])[0, 0] for p in (p1, p2, p1 + p2)]
    np.testing.assert_allclose(ks[2], ks[0] + ks[1], rtol=1e-10)
    assert abs(ks[0] - ks[1]) > 1e-6 * abs(ks[0])
    # a dict node -> value, and the scipy form
    d = {v: float(p1[i]) for i, v in enumerate(g.nodes)}
    np.testing.assert_allclose(k([kg.from_networkx(g, node_attrs=["label", "charge"], start=d)], [h])[0, 0], ks[0])
    with pytest.raises(ValueError, match="start"):
        kg.from_networkx(g, start=[1.0] * (n - 1))
    with pytest.raises(ValueError, match="node 2"):
        kg.from_networkx(g, start=[1.0, 1.0, -1.0] + [1.0] * (n - 3))


def test_start_probabilities_reach_every_entry_point():
    g, h = molecule(3), molecule(4, n=5)
    rng = np.random.default_rng(1)
    gp = kg.from_networkx(g, start=rng.uniform(0.1, 1, g.number_of_nodes()))
    hp = kg.from_networkx(h, start=rng.uniform(0.1, 1, h.number_of_nodes()))
    k = mk(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.7))
    K = k([gp, hp])
    # nodal blocks sum to K; diag, tiles and the raw diagonal agree with the Gram matrix
    np.testing.assert_allclose(k.nodal(gp, hp).sum(), K[0, 1], rtol=1e-10)
    np.testing.assert_allclose(k.diag([gp, hp]), np.diag(K), rtol=1e-10)
    np.testing.assert_allclose(k.raw_diag([gp, hp]), np.diag(K), rtol=1e-10)
    np.testing.assert_allclose(k.tile([gp], [hp]), K[:1, 1:], rtol=1e-10)
    plain = mk(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.7))([kg.from_networkx(g), kg.from_networkx(h)])
    assert not np.allclose(K, plain)


@pytest.mark.parametrize("normalize", [False, True])
def test_trainable_start_scale_p(normalize):
    """GraphDot's Uniform(p): K(p) = p^2 K(1), dK/dlog p = 2K, the last hyperparameter."""
    gs = [molecule(s) for s in range(4)]
    gs[0] = kg.from_networkx(gs[0], start=np.linspace(0.2, 1.0, gs[0].number_of_nodes()))  # scales a graph's own start
    k1 = mk(kg.KroneckerDelta(0.5, h_bounds=(0.1, 0.9)), kg.KroneckerDelta(0.7), normalize=normalize)
    k = mk(kg.KroneckerDelta(0.5, h_bounds=(0.1, 0.9)), kg.KroneckerDelta(0.7), normalize=normalize, p=0.7, p_bounds=(1e-2, 1e2))
    assert [h.name for h in k.hyperparameters][-1] == "p" and not k.hyperparameters[-1].fixed
    assert k1.hyperparameters[-1].fixed and len(k.theta) == len(k1.theta) + 1
    assert k.theta[-1] == pytest.approx(np.log(0.7))
    scale = 1.0 if normalize else 0.49
    np.testing.assert_allclose(k(gs), scale * k1(gs), rtol=1e-12)
    np.testing.assert_allclose(k.diag(gs), scale * k1.diag(gs), rtol=1e-12)
    np.testing.assert_allclose(k.nodal(gs[0], gs[1]), 0.49 * k1.nodal(gs[0], gs[1]), rtol=1e-12)
    K, dK = k(gs, eval_gradient=True)
    assert dK.shape == (4, 4, len(k.theta))
    np.testing.assert_allclose(dK[:, :, -1], 0.0 if normalize else 2 * K, atol=1e-15)
    _, dK1 = k1(gs, eval_gradient=True)
    np.testing.assert_allclose(dK[:, :, :-1], scale * dK1, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(dK, central_differences(k, gs, 1e-6), rtol=1e-5, atol=1e-8 * np.abs(K).max())
    d, dd = k.diag(gs, eval_gradient=True)
    np.testing.assert_allclose(dd[:, -1], 0.0 if normalize else 2 * d)
    # theta sets p; set_params too
    k2 = k.clone_with_theta(np.r_[k.theta[:-1], np.log(2.0)])
    assert k2.p == pytest.approx(2.0)
    assert k.set_params(p=0.5).p == 0.5
    with pytest.raises(ValueError, match="outside its bounds"):
        k.theta = np.r_[k.theta[:-1], np.log(1e3)]
    with pytest.raises(ValueError, match="p = "):
        mk(kg.KroneckerDelta(0.5), p=-1.0)(gs)
    with pytest.raises(ValueError, match="p_bounds"):
        mk(kg.KroneckerDelta(0.5), p_bounds=(0.0, 1.0))(gs)


def test_gpr_trains_start_scale():
    gs = [kg.from_networkx(molecule(s)) for s in range(12)]
    y = np.array([float(np.mean(g.labels["label"] == 0)) for g in gs])
    k = mk(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.7), p=1.0, p_bounds=(1e-2, 1e2))
    gpr = GaussianProcessRegressor(kernel=k, alpha=1e-2, random_state=0).fit(np.array(gs, dtype=object), y)
    p = gpr.kernel_.p
    assert 1e-2 <= p <= 1e2 and p != 1.0


# -- weights ---------------------------------------------------------------------------------


def test_weight_honoured_by_every_entry_point():
    gs = [molecule(s) for s in range(4)]
    k = mk(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.7))
    auto = k(gs)  # the kernel's own conversion
    explicit = k([kg.from_networkx(g) for g in gs])
    unweighted = k([kg.from_networkx(g, weight=None) for g in gs])
    np.testing.assert_array_equal(auto, explicit)
    assert np.abs(auto - unweighted).max() > 1e-3 * np.abs(auto).max()
    # the algorithms use the same rule
    np.testing.assert_allclose(
        kg.sssp(gs[0], 0), [nx.shortest_path_length(gs[0], 0, v, weight="weight") for v in gs[0].nodes]
    )
    # some edges weighted, others not: refused, naming an edge
    del gs[0].edges[0, 1]["weight"]
    for f in (lambda: kg.from_networkx(gs[0]), lambda: k(gs[:1]), lambda: kg.sssp(gs[0], 0)):
        with pytest.raises(ValueError, match=r"edge \(0, 1\) has no 'weight'"):
            f()


# -- missing values, NaN, types -----------------------------------------------------------


def test_missing_or_nan_attribute_names_node_and_field():
    g = molecule(3)
    del g.nodes[4]["charge"]
    with pytest.raises(ValueError, match=r"node 4 has no attribute 'charge'"):
        kg.from_networkx(g)
    g = molecule(3)
    g.nodes[2]["charge"] = float("nan")
    with pytest.raises(ValueError, match=r"node field 'charge'.*node 2"):
        kg.from_networkx(g)
    g = molecule(3)
    g.edges[0, 1]["extra"] = 1
    with pytest.raises(ValueError, match=r"edge \(.*\) has no attribute 'extra'"):
        kg.from_networkx(g)
    assert kg.from_networkx(g, edge_attrs=["label"]).edge_fields == [("label", "int")]


# -- back from a Graph ------------------------------------------------------------------------


def test_graph_round_trip_and_equality(mutag):
    g = molecule(5)
    kgraph = kg.from_networkx(g, start=[0.5] * g.number_of_nodes())
    back = kgraph.to_networkx()
    assert kg.from_networkx(back, start="start") == kgraph
    assert sorted(back.nodes[0]) == ["charge", "label", "start"]
    np.testing.assert_array_equal(kgraph.labels["label"], [g.nodes[v]["label"] for v in g.nodes])
    e = kgraph.edges
    assert e.shape == (g.number_of_edges(), 2)
    for (u, v), w, lab in zip(e, kgraph.weights, kgraph.edge_labels["label"]):
        assert g.edges[u, v]["weight"] == w and g.edges[u, v]["label"] == lab
    m = mutag.graphs[3]
    assert kg.from_networkx(m.to_networkx(), edge_attrs=["label"], weight=None) == m
    assert m != mutag.graphs[4] and m == m and hash(m) == hash(kg.from_networkx(m.to_networkx(), weight=None))
    assert m != "not a graph"


# -- sets and Convolution -----------------------------------------------------------------


def test_convolution_over_set_fields():
    # one-node graphs: K(a, b) / K(a, a) = kappa(a, b) / kappa(a, a)
    a, b = single(atoms=frozenset({1, 2})), single(atoms=frozenset({2, 3}))
    c = nx.Graph()  # integer sequences of different lengths are (multi)sets too
    c.add_node(0, atoms=(4, 2, 3))
    c.add_node(1, atoms=(1,))
    k = mk(kg.TensorProduct(atoms=kg.Convolution(kg.KroneckerDelta(0.5))))
    K = k([kg.from_networkx(x) for x in (a, b)])
    # mean of delta(0.5): {1,2} vs {2,3}: (1 + 3 * 0.5) / 4; {1,2} vs itself: (2 + 2 * 0.5) / 4
    assert K[0, 1] / K[0, 0] == pytest.approx(0.625 / 0.75, rel=1e-12)
    with pytest.raises(TypeError, match="integers"):
        kg.from_networkx(single(atoms=frozenset({1.5})))
    assert kg.from_networkx(c).labels["atoms"] == [(2, 3, 4), (1,)]
    assert kg.from_networkx(c).to_networkx().nodes[0]["atoms"] == frozenset({2, 3, 4})


# -- expression kernels -----------------------------------------------------------------


def test_expr_kernel_value_and_gradient():
    one = [kg.from_networkx(single(charge=c)) for c in (0.0, 0.7, -1.2)]
    lap = kg.Expr("exp(-abs(x.charge - y.charge) / h)", h=(0.8, (0.1, 10)))
    k = mk(kg.TensorProduct(charge=lap))
    K = k(one)
    for i, ci in enumerate((0.0, 0.7, -1.2)):
        for j, cj in enumerate((0.0, 0.7, -1.2)):
            assert K[i, j] / K[i, i] == pytest.approx(math.exp(-abs(ci - cj) / 0.8), rel=1e-12)
    # the string form works directly (no TensorProduct needed), mixed with built-ins
    gs = [kg.from_networkx(molecule(s)) for s in range(4)]
    k2 = mk(
        kg.expr("delta(label, 0.5, fixed) * exp(-abs(x.charge - y.charge) / h)", h=(1.0, (0.1, 10))),
        kg.KroneckerDelta(0.5),
    )
    assert [h.name for h in k2.hyperparameters] == ["node.label.h", "node.h", "edge.label.h", "q", "p"]
    K, dK = k2(gs, eval_gradient=True)
    np.testing.assert_allclose(dK, central_differences(k2, gs, 1e-5), rtol=1e-5, atol=1e-9 * K.max())
    assert getattr(k2.clone_with_theta(np.log([2.0, 0.5, 0.05])), "node.h") == pytest.approx(2.0)
    with pytest.raises(ValueError, match="neither a field"):
        kg.expr("exp(-abs(x.charge - y.charge) / hh)", h=1.0)
    with pytest.raises(kg.KernelError):
        mk(kg.expr("x.charge * y.charge"))(gs)  # range not in [0, 1]


def test_additive_and_normalized():
    gs = [kg.from_networkx(molecule(s)) for s in range(3)]
    add = kg.Additive(label=kg.KroneckerDelta(0.5), charge=kg.SquareExponential(1.0))
    assert add.normalized.spec() == f"normalize({add.spec()})"
    K = mk(add.normalized)(gs)
    assert np.all(np.isfinite(K))
    with pytest.raises(kg.KernelError):
        mk(add)(gs)  # values up to 2: not a node kernel


# -- GraphDot's nodal / diag forms ---------------------------------------------------------


def test_nodal_and_diag_over_lists(mutag):
    g = mutag.graphs[:4]
    k = mk(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), normalize=False)
    R = k(g, nodal=True)
    n = [x.num_nodes for x in g]
    assert R.shape == (sum(n), sum(n))
    off = np.cumsum([0] + n)
    np.testing.assert_allclose(R[off[1] : off[2], off[2] : off[3]], k.nodal(g[1], g[2]), rtol=1e-14)
    np.testing.assert_allclose(R[off[1] : off[2], off[2] : off[3]].sum(), k(g)[1, 2], rtol=1e-10)
    np.testing.assert_allclose(k.diag(g, nodal=True), np.diag(R), rtol=1e-14)
    d, dd = k.diag(g, eval_gradient=True)
    K, dK = k(g, eval_gradient=True)
    np.testing.assert_allclose(d, np.diag(K), rtol=1e-12)
    np.testing.assert_allclose(dd, np.einsum("iik->ik", dK), rtol=1e-10)
    kn = mk(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), normalize=True)
    d, dd = kn.diag(g, eval_gradient=True)
    assert np.all(d == 1) and np.all(dd == 0) and dd.shape == (4, len(kn.theta))
    # networkx graphs in nodal()
    a, b = molecule(1), molecule(2)
    np.testing.assert_allclose(k.nodal(a, b), k.nodal(kg.from_networkx(a), kg.from_networkx(b)))
    # GraphDot's diag(nodal="block"): each graph's nodal matrix with itself, the diagonal blocks of R
    blocks = k.diag(g, nodal="block")
    assert isinstance(blocks, list) and [b.shape for b in blocks] == [(m, m) for m in n]
    for i, blk in enumerate(blocks):
        np.testing.assert_allclose(blk, R[off[i] : off[i + 1], off[i] : off[i + 1]], rtol=1e-14)
    assert k.diag(g[:2], nodal="block", timing=True)[1].shape == (n[1], n[1])
    # anything else is an error naming the options, as GraphDot's "Invalid 'nodal' option"
    for bad, call in [("blocks", k.diag), ("block", k), (2, k.diag), (None, k)]:
        with pytest.raises(ValueError, match="nodal="):
            call(g, nodal=bad)
    with pytest.raises(NotImplementedError):
        k.diag(g, nodal="block", eval_gradient=True)


def test_per_call_lmin_and_timing(mutag, capsys):
    g = mutag.graphs[:5]
    k0 = mk(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5))
    k1 = mk(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), lmin=1)
    np.testing.assert_allclose(k0(g, lmin=1), k1(g), rtol=1e-12)
    np.testing.assert_allclose(k0.diag(g, lmin=1), k1.diag(g), rtol=1e-12)
    np.testing.assert_allclose(k1(g, lmin=0), k0(g), rtol=1e-12)
    assert k0.lmin == 0  # the call's lmin does not stay
    K = k0(g, timing=True)
    np.testing.assert_allclose(K, k0(g))
    err = capsys.readouterr().err
    assert "K(X) of 5 graphs in" in err


def test_expr_bare_xy_and_sympy_like_graphdot():
    gs = [kg.from_networkx(molecule(s)) for s in range(4)]
    edge = kg.KroneckerDelta(0.7)
    ref = mk(kg.expr("exp(-abs(x.charge - y.charge) / h)", h=(0.8, (0.1, 10))), edge)
    bare = mk(kg.TensorProduct(charge=kg.expr("exp(-abs(x - y) / h)", h=(0.8, (0.1, 10)))), edge)
    np.testing.assert_allclose(bare(gs), ref(gs), rtol=1e-13)
    assert [h.name for h in bare.hyperparameters] == [h.name for h in ref.hyperparameters]
    sp = pytest.importorskip("sympy", reason="scripts/test_python.sh installs sympy")
    x, y, h = sp.symbols("x y h")
    lap = kg.Expr(sp.exp(-sp.Abs(x - y) / h), h=(0.8, (0.1, 10)))
    node = kg.TensorProduct(charge=lap) * kg.TensorProduct(label=kg.KroneckerDelta(0.5))
    ref2 = mk(kg.expr("exp(-abs(x.charge - y.charge) / h)", h=(0.8, (0.1, 10))) * kg.KroneckerDelta(0.5), edge)
    np.testing.assert_allclose(mk(node, edge)(gs), ref2(gs), rtol=1e-13)
    K, dK = mk(node, edge)(gs, eval_gradient=True)
    np.testing.assert_allclose(dK, ref2(gs, eval_gradient=True)[1], rtol=1e-12, atol=1e-300)
    with pytest.raises(ValueError, match="pi"):
        kg.Expr(sp.exp(-sp.pi * sp.Abs(x - y)))


# -- GraphDot's normalized DotProduct as a node kernel ---------------------------------


def test_normalized_dot_product_node_kernel():
    # one-node graphs: K(a, b) / K(a, a) is the node kernel, here the cosine
    a, b, c = single(soap=[0.5, 1.5, 2.5, 0.5]), single(soap=[1.5, 0.0, 0.5, 3.5]), single(soap=[0.0, 0.0, 0.0, 0.0])
    k = mk(kg.TensorProduct(soap=kg.DotProduct().normalized))
    K = k([kg.from_networkx(x) for x in (a, b, c)])
    u, v = np.array(a.nodes[0]["soap"]), np.array(b.nodes[0]["soap"])
    assert K[0, 1] / K[0, 0] == pytest.approx(u @ v / np.linalg.norm(u) / np.linalg.norm(v), rel=1e-12)
    assert K[1, 1] == pytest.approx(K[0, 0], rel=1e-14)
    assert 0 < K[0, 2] < 1e-100 * K[0, 0]  # a zero vector: cosine 0, raised to the floor
    # GraphDot's vector-feature example: normalized graph kernel, whole-graph and nodal
    g1, g2 = nx.Graph(), nx.Graph()
    g1.add_node(0, soap=[0.5, 1.5, 2.5, 0.5])
    g1.add_node(1, soap=[0.5, 1.5, 2.5, 0.5])
    g1.add_edge(0, 1, w=1.0)
    for i, f in enumerate([[0.5, 1.5, 2.5, 3.5], [1.5, 1.5, 0.5, 3.5], [0.5, 2.5, 2.5, 0.5]]):
        g2.add_node(i, soap=f)
    g2.add_edges_from([(0, 1, {"w": 2.0}), (0, 2, {"w": 0.5}), (1, 2, {"w": 0.5})])
    G = [kg.from_networkx(g, weight="w") for g in (g1, g2)]
    kn = mk(kg.TensorProduct(soap=kg.DotProduct().normalized), q=0.05, normalize=True)
    Kn = kn(G)
    assert np.allclose(np.diag(Kn), 1) and 0 < Kn[0, 1] < 1
    assert kn(G[:1], G[1:], nodal=True).shape == (2, 3)
    # a negative dot product is an error naming the nodes and the condition
    d = single(soap=[-1.0, -1.0, 0.0, 0.0])
    with pytest.raises(kg.KernelError, match="non-negative features"):
        k([kg.from_networkx(x) for x in (a, d)])
    # the plain dot product is unbounded: refused with its range
    with pytest.raises(kg.KernelError, match="range"):
        mk(kg.TensorProduct(soap=kg.DotProduct()))([kg.from_networkx(a)])
