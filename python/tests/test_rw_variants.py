"""The exponential and p-step random-walk kernels against dense references
(the product graph built explicitly, scipy's expm), their gradient in lam,
and GraKeL's conventions."""

import math

import networkx as nx
import numpy as np
import pytest
from scipy.linalg import expm

import kronograph as kg


def _graphs(seed, count=5, directed=False):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.integers(2, 7))
        g = nx.gnp_random_graph(n, 0.5, seed=int(rng.integers(1 << 30)), directed=directed)
        for v in g:
            g.nodes[v]["label"] = int(rng.integers(0, 3))
        for u, v in g.edges:
            g.edges[u, v]["weight"] = float(rng.uniform(0.5, 2.0))
        out.append(g)
    return out


def _product(a, b, labeled):
    """The (restricted) product graph's dense adjacency."""
    wa, wb = nx.to_numpy_array(a, nodelist=sorted(a)), nx.to_numpy_array(b, nodelist=sorted(b))
    w = np.kron(wa, wb)
    if labeled:
        la = np.array([a.nodes[v]["label"] for v in sorted(a)])
        lb = np.array([b.nodes[v]["label"] for v in sorted(b)])
        keep = (la[:, None] == lb[None, :]).ravel()
        w = w[np.ix_(keep, keep)]
    return w


def _dense(a, b, lam, labeled, kind, c=None):
    w = _product(a, b, labeled)
    if w.size == 0:
        return 0.0, 0.0
    one = np.ones(len(w))
    if kind == "exponential":
        e = expm(lam * w)
        return one @ e @ one, lam * one @ w @ e @ one
    v = g = 0.0
    x = one
    for l, cl in enumerate(c):
        t = cl * lam**l * x.sum()
        v, g = v + t, g + l * t
        x = w @ x
    return v, g


@pytest.mark.parametrize("labeled", [False, True])
@pytest.mark.parametrize("directed", [False, True])
def test_exponential_equals_scipy_expm(labeled, directed):
    gs = _graphs(1, directed=directed)
    lam = 0.7
    k = kg.RandomWalkKernel(lam, kind="exponential", labeled=labeled, lam_bounds=(1e-3, 10))
    K, dK = k(gs, eval_gradient=True)
    for i, a in enumerate(gs):
        for j, b in enumerate(gs):
            v, g = _dense(a, b, lam, labeled, "exponential")
            np.testing.assert_allclose(K[i, j], v, rtol=1e-12)
            np.testing.assert_allclose(dK[i, j, 0], g, rtol=1e-10, atol=1e-12 * v)
    np.testing.assert_allclose(k(gs[:2], gs[2:]), K[:2, 2:], rtol=1e-13)


@pytest.mark.parametrize("labeled", [False, True])
def test_p_step_equals_dense_powers(labeled):
    gs = _graphs(2)
    c = [1.0, 0.3, 2.0, 0.0, 0.5]
    k = kg.RandomWalkKernel(0.4, kind="p-step", p=4, weights=c, labeled=labeled, lam_bounds=(1e-3, 10))
    K, dK = k(gs, eval_gradient=True)
    for i, a in enumerate(gs):
        for j, b in enumerate(gs):
            v, g = _dense(a, b, 0.4, labeled, "p-step", c)
            np.testing.assert_allclose(K[i, j], v, rtol=1e-12)
            np.testing.assert_allclose(dK[i, j, 0], g, rtol=1e-12, atol=1e-14 * v)


def test_grakel_conventions():
    """GraKeL's p (geometric: lam^l; exponential: lam^l / l!) and the labeled
    kernel's length-zero term (GraKeL counts all n n' pairs)."""
    gs = _graphs(3)
    lam = 0.05
    ones = kg.RandomWalkKernel(lam, kind="p-step", p=3)(gs)
    fact = kg.RandomWalkKernel(lam, kind="p-step", p=3, weights="exponential")(gs)
    for i, a in enumerate(gs):
        for j, b in enumerate(gs):
            w = _product(a, b, False)
            powers = [np.linalg.matrix_power(w, l).sum() for l in range(4)]
            np.testing.assert_allclose(ones[i, j], sum(lam**l * p for l, p in enumerate(powers)), rtol=1e-12)
            np.testing.assert_allclose(
                fact[i, j], sum(lam**l / math.factorial(l) * p for l, p in enumerate(powers)), rtol=1e-12
            )
    # many steps tend to the full kernels
    small = 0.3 * kg.RandomWalkKernel().lambda_limit(gs)
    np.testing.assert_allclose(
        kg.RandomWalkKernel(small, kind="p-step", p=60)(gs), kg.RandomWalkKernel(small)(gs), rtol=1e-12
    )
    np.testing.assert_allclose(
        kg.RandomWalkKernel(0.9, kind="p-step", p=80, weights="exponential")(gs),
        kg.RandomWalkKernel(0.9, kind="exponential")(gs),
        rtol=1e-12,
    )
    # labeled: GraKeL's value is kronograph's + (n n' - sum of L), for every kind
    a, b = gs[0], gs[1]
    lam = small
    for kind in ("geometric", "exponential"):
        k = kg.RandomWalkKernel(lam, kind=kind, labeled=True)([a], [b])[0, 0]
        w = np.kron(nx.to_numpy_array(a, nodelist=sorted(a)), nx.to_numpy_array(b, nodelist=sorted(b)))
        la = np.array([a.nodes[v]["label"] for v in sorted(a)])
        lb = np.array([b.nodes[v]["label"] for v in sorted(b)])
        keep = (la[:, None] == lb[None, :]).ravel().astype(float)
        grakel_w = w * np.outer(keep, keep)  # GraKeL: sum over label pairs of kron(A_x[t], A_y[t])
        s = expm(lam * grakel_w) if kind == "exponential" else np.linalg.inv(np.eye(len(w)) - lam * grakel_w)
        np.testing.assert_allclose(s.sum(), k + len(w) - keep.sum(), rtol=1e-12)


def test_errors_and_repr():
    gs = _graphs(4, count=3)
    with pytest.raises(ValueError, match="kind="):
        kg.RandomWalkKernel(0.1, kind="harmonic")(gs)
    with pytest.raises(ValueError, match="needs p"):
        kg.RandomWalkKernel(0.1, kind="p-step")(gs)
    with pytest.raises(ValueError, match="p \\+ 1"):
        kg.RandomWalkKernel(0.1, kind="p-step", p=2, weights=[1, 2])(gs)
    with pytest.raises(ValueError, match="belong to kind='p-step'"):
        kg.RandomWalkKernel(0.1, kind="exponential", p=3)(gs)
    with pytest.raises(kg.KernelError, match="c_1 = -1"):
        kg.RandomWalkKernel(0.1, kind="p-step", p=1, weights=[1, -1])(gs)
    with pytest.raises(kg.KernelError, match="lower"):
        kg.RandomWalkKernel(1e5, kind="exponential")(gs)
    assert kg.RandomWalkKernel(kind="exponential").lambda_limit(gs) == np.inf
    assert "kind='p-step', p=2" in repr(kg.RandomWalkKernel(kind="p-step", p=2))


def test_lambda_advice_names_python_not_the_cli_or_rust():
    """A geometric λ beyond the series' limit: the advice names this
    package's ``lam`` and ``RandomWalkKernel.lambda_limit(X)``, not the CLI's
    ``--lambda`` or the Rust method."""
    gs = _graphs(4, count=3)
    limit = kg.RandomWalkKernel().lambda_limit(gs)
    for labeled in (False, True):
        with pytest.raises(kg.KernelError) as e:
            kg.RandomWalkKernel(50 * limit, labeled=labeled, backend="cpu")(gs)
        text = str(e.value)
        assert "lam" in text and "--lambda" not in text and "::" not in text, text
        assert "RandomWalkKernel.lambda_limit(X)" in text or "RandomWalkKernel's lam" in text, text
