"""The GPU backend from Python: each test takes the `gpu` fixture (skipped
without a CUDA device, a failure then with KRONOGRAPH_REQUIRE_GPU=1) and is
marked `gpu` (select with ``pytest -m gpu``).  Every result is compared with
the CPU backend's in the same process."""

import networkx as nx
import numpy as np
import pytest

import kronograph as kg

pytestmark = pytest.mark.gpu


def _graphs(seed, count=6, directed=False):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(2, 9))
        g = nx.gnp_random_graph(n, 0.5, seed=int(rng.integers(1 << 30)), directed=directed)
        for v in g:
            g.nodes[v]["label"] = int(rng.integers(0, 3))
        for u, v in g.edges:
            g.edges[u, v]["weight"] = float(rng.uniform(0.5, 2.0))
        out.append(kg.from_networkx(g))
    return out


def _rw(backend, **kw):
    return kg.RandomWalkKernel(backend=backend, **kw)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("labeled", [False, True])
@pytest.mark.parametrize(
    "kind", [dict(kind="exponential", lam=0.4), dict(kind="p-step", p=5, lam=0.6), dict(kind="p-step", p=3, weights="exponential", lam=1.1)]
)
def test_random_walk_series_gpu_equals_cpu(gpu, kind, labeled, directed):
    gs = _graphs(3 + labeled + 2 * directed, directed=directed)
    cpu, dev = _rw("cpu", labeled=labeled, **kind), _rw(gpu, labeled=labeled, **kind)
    np.testing.assert_allclose(dev(gs), cpu(gs), rtol=1e-12, atol=0)
    np.testing.assert_allclose(dev(gs[:2], gs[2:]), cpu(gs[:2], gs[2:]), rtol=1e-12, atol=0)
    # the gradient in log lam and the normalized kernel
    kw = dict(kind, lam_bounds=(1e-3, 10.0), normalize=True)
    kc, gc = _rw("cpu", labeled=labeled, **kw)(gs, eval_gradient=True)
    kd, gd = _rw(gpu, labeled=labeled, **kw)(gs, eval_gradient=True)
    np.testing.assert_allclose(kd, kc, rtol=1e-12, atol=0)
    np.testing.assert_allclose(gd, gc, rtol=1e-10, atol=1e-12)
    # auto: a batch this small stays on the CPU by the series rule (WalkSeriesKernel::auto_uses_device;
    # docs/PERFORMANCE.md, "Random-walk series kinds")
    np.testing.assert_allclose(_rw("auto", labeled=labeled, **kind)(gs), cpu(gs), rtol=1e-12, atol=0)


@pytest.mark.parametrize("labeled", [False, True])
def test_random_walk_geometric_gpu_equals_cpu(gpu, labeled):
    gs = _graphs(11)
    lam = 0.5 * kg.RandomWalkKernel().lambda_limit(gs)
    cpu, dev = _rw("cpu", lam=lam, labeled=labeled), _rw(gpu, lam=lam, labeled=labeled)
    np.testing.assert_allclose(dev(gs), cpu(gs), rtol=1e-9, atol=0)
    # the geometric gradient is the CPU's on any backend
    kw = dict(lam=lam, labeled=labeled, lam_bounds=(1e-6, 1.0))
    np.testing.assert_allclose(_rw(gpu, **kw)(gs, eval_gradient=True)[1], _rw("cpu", **kw)(gs, eval_gradient=True)[1])


def _soap(features, edges=()):
    g = nx.Graph()
    for i, f in enumerate(features):
        g.add_node(i, soap=list(f))
    g.add_edges_from(edges)
    return kg.from_networkx(g)


def test_normalized_dot_product_runs_on_the_gpu(gpu):
    """GraphDot's normalized DotProduct node kernel: checked on the data for
    every backend, so it runs on the GPU (and under auto) and equals the CPU."""
    rng = np.random.default_rng(5)
    G = [_soap(rng.uniform(0, 3, (n, 4)), [(i, i + 1, {"weight": 1.0}) for i in range(n - 1)]) for n in (2, 3, 5, 4)]

    def mk(backend, **kw):
        return kg.MarginalizedGraphKernel(kg.TensorProduct(soap=kg.DotProduct().normalized), kg.Constant(1.0, "fixed"), backend=backend, **kw)

    for kw in (dict(), dict(normalize=True, q=0.05)):
        want = mk("cpu", **kw)(G)
        np.testing.assert_allclose(mk(gpu, **kw)(G), want, rtol=1e-9)
        np.testing.assert_allclose(mk("auto", **kw)(G), want, rtol=1e-9)
    np.testing.assert_allclose(mk(gpu)(G[:1], G[1:], nodal=True), mk("cpu")(G[:1], G[1:], nodal=True), rtol=1e-8, atol=1e-14)
    # a negative dot product is the CPU's error, naming the nodes
    d = _soap([[0.5, 1.5, 2.5, 0.5], [-1.0, -1.0, 0.0, 0.0]], [(0, 1)])
    with pytest.raises(kg.KernelError, match="non-negative features") as e:
        mk(gpu)([G[0], d])
    assert "node 1 of graph 1" in str(e.value)


def test_marginalized_kernel_gpu_equals_cpu(gpu, mutag):
    gs = mutag.graphs[:24]
    kw = dict(q=0.05)
    cpu = kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), backend="cpu", **kw)
    dev = kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), backend=gpu, **kw)
    np.testing.assert_allclose(dev(gs), cpu(gs), rtol=1e-8)


def test_expression_kernel_on_the_gpu_equals_cpu(gpu):
    """A Laplacian-style node kernel written as an expression (GraphDot's
    ``from_sympy`` use) runs on the GPU from its one definition: value and
    gradient equal the CPU's."""
    rng = np.random.default_rng(8)
    gs = []
    for n in (3, 5, 4, 6):
        g = nx.path_graph(n)
        for v in g:
            g.nodes[v]["label"] = int(rng.integers(0, 3))
            g.nodes[v]["charge"] = float(rng.uniform(-1.5, 1.5))
        for u, v in g.edges:
            g.edges[u, v]["label"] = int(rng.integers(0, 2))
        gs.append(kg.from_networkx(g))
    node = kg.expr("delta(label, 0.5, fixed) * exp(-abs(x.charge - y.charge) / h)", h=(0.8, (0.1, 10)))

    def mk(backend):
        return kg.MarginalizedGraphKernel(node, kg.KroneckerDelta(0.5), q=0.05, backend=backend)

    np.testing.assert_allclose(mk(gpu)(gs), mk("cpu")(gs), rtol=1e-8)
    kc, gc = mk("cpu")(gs, eval_gradient=True)
    kd, gd = mk(gpu)(gs, eval_gradient=True)
    np.testing.assert_allclose(kd, kc, rtol=1e-8)
    np.testing.assert_allclose(gd, gc, rtol=1e-6, atol=1e-9 * kc.max())


def test_random_walk_series_batched_on_mutag(gpu, mutag):
    """The exponential and p-step kinds on MUTAG (40 graphs, 820 pairs, one
    batched device launch each): equal to the CPU to 1e-12, plain and
    labeled, value and gradient."""
    gs = mutag.graphs[:40]
    for kind in (dict(kind="exponential", lam=0.25), dict(kind="p-step", p=6, lam=0.4), dict(kind="p-step", p=4, weights="exponential", lam=1.3)):
        for labeled in (False, True):
            kw = dict(kind, labeled=labeled, lam_bounds=(1e-3, 10.0))
            kc, gc = _rw("cpu", **kw)(gs, eval_gradient=True)
            kd, gd = _rw(gpu, **kw)(gs, eval_gradient=True)
            np.testing.assert_allclose(kd, kc, rtol=1e-12, atol=0)
            np.testing.assert_allclose(gd, gc, rtol=1e-10, atol=1e-12 * kc.max())


def test_random_walk_series_auto_on_mutag(gpu, mutag):
    """``backend="auto"`` on MUTAG's whole labeled Gram (above the rule's
    node pairs per thread: the batched GPU path) and on a small batch and
    the unlabeled Gram (the CPU): equal to the CPU's to 1e-12 either way."""
    gs = mutag.graphs
    for kind in (dict(kind="exponential", lam=0.25), dict(kind="p-step", p=6, lam=0.25)):
        for labeled, batch in ((True, gs), (True, gs[:10]), (False, gs)):
            kc = _rw("cpu", labeled=labeled, **kind)(batch)
            ka = _rw("auto", labeled=labeled, **kind)(batch)
            np.testing.assert_allclose(ka, kc, rtol=1e-12, atol=0)
