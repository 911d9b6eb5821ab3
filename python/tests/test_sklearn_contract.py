"""scikit-learn's Kernel contract, and use in GaussianProcessRegressor and SVC."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel
from sklearn.svm import SVC

import kronograph as kg


def make(**kw):
    node = kg.KroneckerDelta(0.5, h_bounds=(0.01, 1.0))
    edge = kg.KroneckerDelta(0.5) * kg.KroneckerDelta(0.8, h_bounds="fixed")
    return kg.MarginalizedGraphKernel(node, edge, q=0.05, backend="cpu", **kw)


def test_hyperparameters_theta_bounds(mutag):
    k = make()
    names = [h.name for h in k.hyperparameters]
    # unique paths (issue 17): the two factors of the edge kernel are told apart by position
    assert names == ["node.label.h", "edge.0.label.h", "edge.1.label.h", "q", "p"]
    assert [h.fixed for h in k.hyperparameters] == [False, False, True, False, True]
    np.testing.assert_allclose(k.theta, np.log([0.5, 0.5, 0.05]))
    assert k.bounds.shape == (3, 2)
    np.testing.assert_allclose(k.bounds[0], np.log([0.01, 1.0]))
    assert k.n_dims == 3
    assert not k.is_stationary()
    assert k.requires_vector_input is False


def test_clone_with_theta_and_params(mutag):
    k = make()
    theta = np.log([0.3, 0.6, 0.1])
    k2 = k.clone_with_theta(theta)
    np.testing.assert_allclose(k2.theta, theta)
    np.testing.assert_allclose(k.theta, np.log([0.5, 0.5, 0.05]))  # the original is untouched
    assert k2.node_kernel.h == pytest.approx(0.3) and k2.q == pytest.approx(0.1)
    assert k.node_kernel.h == 0.5
    k3 = clone(k2)
    assert k3 == k2 and k3 is not k2
    p = k.get_params()
    assert p["q"] == 0.05 and p["normalize"] is False
    k.set_params(q=0.2)
    assert k.q == 0.2 and k.theta[-1] == pytest.approx(np.log(0.2))
    # SPEC strings get new SPEC strings
    ks = kg.MarginalizedGraphKernel("delta(label, 0.5)", "delta(label, 0.5, fixed)", backend="cpu")
    ks2 = ks.clone_with_theta(np.log([0.25, 0.05]))
    assert isinstance(ks2.node_kernel, str) and "0.25" in ks2.node_kernel
    g = mutag.graphs[:5]
    direct = kg.MarginalizedGraphKernel("delta(label, 0.25)", "delta(label, 0.5)", backend="cpu")(g)
    np.testing.assert_allclose(ks2(g), direct, rtol=1e-12)
    # pickling a kernel (for Dask) drops the native cache and keeps the values
    np.testing.assert_allclose(pickle.loads(pickle.dumps(k2))(g), k2(g), rtol=1e-12)


@pytest.mark.parametrize("normalize", [False, True])
def test_gradient_matches_finite_differences(mutag, normalize):
    g = mutag.graphs[:6]
    k = make(normalize=normalize)
    K, dK = k(g, eval_gradient=True)
    assert dK.shape == (6, 6, 3)
    np.testing.assert_allclose(K, k(g), rtol=1e-12)
    eps = 1e-5
    for t in range(3):
        th = k.theta.copy()
        th[t] += eps
        kp = k.clone_with_theta(th)(g)
        th[t] -= 2 * eps
        km = k.clone_with_theta(th)(g)
        fd = (kp - km) / (2 * eps)
        np.testing.assert_allclose(dK[:, :, t], fd, rtol=1e-5, atol=1e-7 * np.abs(K).max())


def test_diag_equals_gram_diagonal(mutag):
    g = mutag.graphs[:10]
    for normalize in (False, True):
        k = make(normalize=normalize)
        np.testing.assert_allclose(k.diag(g), np.diag(k(g)), rtol=1e-12)


def test_xy_and_nodal(mutag):
    g = mutag.graphs[:8]
    k = make()
    full = k(g)
    np.testing.assert_allclose(k(g[:3], g[3:]), full[:3, 3:], rtol=1e-12)
    nodal = k.nodal(g[0], g[1])
    assert nodal.shape == (g[0].num_nodes, g[1].num_nodes)
    np.testing.assert_allclose(nodal.sum(), full[0, 1], rtol=1e-10)


def regression_task(mutag, n=40):
    """A small regression task bundled with MUTAG: the carbon fraction
    (node label 0) of each molecule."""
    g = mutag.graphs[:n]
    y = []
    for x in g:
        labels = dict((name, data) for name, _, _, data in x.state()[5])["label"]
        lab = np.frombuffer(labels, dtype="<i8")
        y.append(np.mean(lab == 0))
    return g, np.array(y)


def test_gpr_fit_improves_likelihood(mutag):
    g, y = regression_task(mutag)
    kernel = ConstantKernel(1.0, (1e-2, 1e2)) * make(normalize=True, q_bounds=(1e-3, 0.5))
    gpr = GaussianProcessRegressor(kernel=kernel, alpha=1e-2, normalize_y=True, random_state=0)
    gpr.fit(np.array(g, dtype=object), y)
    before = gpr.log_marginal_likelihood(kernel.theta)
    after = gpr.log_marginal_likelihood_value_
    assert after > before + 1.0, (before, after)
    assert np.abs(gpr.kernel_.theta - kernel.theta).max() > 1e-3
    pred = gpr.predict(np.array(g[:5], dtype=object))
    assert np.all(np.isfinite(pred))


def test_svc_precomputed(mutag):
    g = mutag.graphs[:60]
    y = mutag.y[:60]
    K = make(normalize=True)(g)
    clf = SVC(kernel="precomputed").fit(K, y)
    assert clf.score(K, y) > 0.7


def test_progress_callback(mutag):
    calls = []
    k = make(progress=lambda done, total: calls.append((done, total)))
    k(mutag.graphs[:20])
    assert (210, 210) in calls
    assert all(d <= t for d, t in calls)


def test_gil_released_during_native_work(mutag):
    import threading
    import time

    k = make(n_jobs=1)
    g = mutag.graphs[:60]
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    start = time.perf_counter()
    k(g)
    end = time.perf_counter()
    done.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    assert len(during) > 5, (len(during), end - start)


# -- scikit-learn's own kernel checks, adapted to graph inputs ---------------------------
# (from sklearn/gaussian_process/tests/test_kernels.py: the same assertions,
# with X a list of graphs, values inside each kernel's bounds, and the
# anisotropic / pairwise-metric checks left out: they need vector inputs)

from inspect import signature  # noqa: E402

from sklearn.gaussian_process.kernels import (  # noqa: E402
    Exponentiation,
    KernelOperator,
    Product,
    Sum,
    WhiteKernel,
)


def _graph_kernels():
    mgk = make
    rw = kg.RandomWalkKernel(lam=0.01, normalize=True)
    return {
        "mgk": mgk(),
        "mgk_normalized": mgk(normalize=True),
        "mgk_expr": kg.MarginalizedGraphKernel(
            kg.Expr("exp(-abs(x.label - y.label) / h)", h=(1.0, (0.1, 10))),
            kg.KroneckerDelta(0.5),
            backend="cpu",
        ),
        "constant_times_mgk": ConstantKernel(2.0, (1e-2, 1e2)) * mgk(normalize=True),
        "mgk_plus_white": mgk(normalize=True) + WhiteKernel(0.1),
        "mgk_squared": Exponentiation(mgk(normalize=True), 2.0),
        "mgk_trainable_p": mgk(p=0.8, p_bounds=(1e-2, 1e2)),
        "random_walk": rw,
        "random_walk_times_constant": ConstantKernel(1.5) * rw,
        "random_walk_trainable": kg.RandomWalkKernel(lam=0.01, lam_bounds=(1e-4, 0.05)),
        "random_walk_trainable_normalized": kg.RandomWalkKernel(lam=0.01, lam_bounds=(1e-4, 0.05), normalize=True),
        "random_walk_labeled_trainable": kg.RandomWalkKernel(lam=0.02, labeled=True, lam_bounds=(1e-4, 0.05)),
        "random_walk_exponential_trainable": kg.RandomWalkKernel(lam=0.1, kind="exponential", lam_bounds=(1e-3, 10)),
        "random_walk_exponential_labeled_normalized": kg.RandomWalkKernel(
            lam=0.2, kind="exponential", labeled=True, normalize=True, lam_bounds=(1e-3, 10)
        ),
        "random_walk_p_step_trainable": kg.RandomWalkKernel(
            lam=0.1, kind="p-step", p=3, weights=[1.0, 0.5, 0.5, 0.1], lam_bounds=(1e-3, 1.0)
        ),
    }


KERNELS = _graph_kernels()
CONTRACT = pytest.mark.parametrize("name", sorted(KERNELS))


@pytest.fixture
def X(mutag):
    return np.array(mutag.graphs[:5], dtype=object)


@pytest.fixture
def Y(mutag):
    return np.array(mutag.graphs[5:8], dtype=object)


def _leaf_kernels(k):
    """The kernel and, for sklearn's operators, the kernels inside."""
    if isinstance(k, KernelOperator):
        return _leaf_kernels(k.k1) + _leaf_kernels(k.k2)
    if isinstance(k, Exponentiation):
        return _leaf_kernels(k.kernel)
    return [k]


@CONTRACT
def test_kernel_gradient(name, X):
    kernel = clone(KERNELS[name])
    K, K_gradient = kernel(X, eval_gradient=True)
    assert K_gradient.shape[0] == X.shape[0]
    assert K_gradient.shape[1] == X.shape[0]
    assert K_gradient.shape[2] == kernel.theta.shape[0]

    def eval_kernel_for_theta(theta):
        return kernel.clone_with_theta(theta)(X, eval_gradient=False)

    eps = 1e-6
    for t in range(kernel.theta.shape[0]):
        th = kernel.theta.copy()
        lo, hi = kernel.bounds[t]
        step = min(eps, (hi - th[t]) / 2) if th[t] + eps > hi else eps
        th[t] += step
        kp = eval_kernel_for_theta(th)
        th[t] -= 2 * step
        km = eval_kernel_for_theta(th)
        np.testing.assert_allclose(K_gradient[:, :, t], (kp - km) / (2 * step), rtol=1e-4, atol=1e-7 * np.abs(K).max())


@CONTRACT
def test_kernel_theta(name, X):
    kernel = clone(KERNELS[name])
    if isinstance(kernel, (KernelOperator, Exponentiation)):
        pytest.skip("sklearn checks this on basic kernels only")
    theta = kernel.theta
    _, K_gradient = kernel(X, eval_gradient=True)
    # every hyperparameter has a value and bounds reachable by name
    params = kernel.get_params()
    for h in kernel.hyperparameters:
        assert h.name in params or hasattr(kernel, h.name)
    # theta holds the logs of the active hyperparameters' values
    active = [h for h in kernel.hyperparameters if not h.fixed]
    for i, h in enumerate(active):
        assert theta[i] == pytest.approx(np.log(getattr(kernel, h.name)))
    # fixed hyperparameters are excluded from theta and the gradient
    if hasattr(kernel, "node_kernel"):
        for i, h in enumerate(active):
            if h.name == "q":
                fixed = clone(kernel).set_params(q_bounds="fixed")
                _, g = fixed(X, eval_gradient=True)
                assert fixed.theta.shape[0] == theta.shape[0] - 1
                np.testing.assert_allclose(g, np.delete(K_gradient, i, axis=2), rtol=1e-12)
    # theta set -> the value changes; the value set -> theta changes
    for i, h in enumerate(active):
        lo, hi = np.exp(kernel.bounds[i])
        v = float(np.sqrt(lo * hi)) if np.isfinite(np.sqrt(lo * hi)) else lo * 2
        th = kernel.theta.copy()
        th[i] = np.log(v)
        kernel.theta = th
        assert getattr(kernel, h.name) == pytest.approx(v)
        v2 = float(min(hi, v * 1.1))
        setattr(kernel, h.name, v2)
        assert kernel.theta[i] == pytest.approx(np.log(v2))


@CONTRACT
def test_auto_vs_cross(name, X):
    if "white" in name:
        pytest.skip("WhiteKernel is not the same for X and a copy of X (as in sklearn's own test)")
    kernel = KERNELS[name]
    K_auto = kernel(X)
    K_cross = kernel(X, X)
    np.testing.assert_allclose(K_auto, K_cross, rtol=1e-12)


@CONTRACT
def test_kernel_diag(name, X):
    kernel = KERNELS[name]
    np.testing.assert_allclose(np.diag(kernel(X)), kernel.diag(X), rtol=1e-12)


@CONTRACT
def test_kernel_operator_commutative(name, X):
    kernel = KERNELS[name]
    np.testing.assert_allclose((kernel + ConstantKernel(0.5))(X), (ConstantKernel(0.5) + kernel)(X), rtol=1e-12)
    np.testing.assert_allclose((kernel * ConstantKernel(0.5))(X), (ConstantKernel(0.5) * kernel)(X), rtol=1e-12)


@CONTRACT
def test_kernel_stationary(name):
    assert not KERNELS[name].is_stationary()


@CONTRACT
def test_kernel_input_type(name):
    kernel = KERNELS[name]
    assert not kernel.requires_vector_input


@CONTRACT
def test_compound_kernel_input_type(name):
    kernel = KERNELS[name]
    assert not Sum(kernel, ConstantKernel()).requires_vector_input
    assert not Product(kernel, ConstantKernel()).requires_vector_input


@CONTRACT
def test_kernel_clone(name):
    kernel = KERNELS[name]
    kernel_cloned = clone(kernel)
    assert kernel == kernel_cloned
    assert id(kernel) != id(kernel_cloned)
    assert kernel.get_params().keys() == kernel_cloned.get_params().keys()
    np.testing.assert_allclose(kernel.theta, kernel_cloned.theta)
    assert kernel.hyperparameters == kernel_cloned.hyperparameters


@CONTRACT
def test_kernel_clone_after_set_params(name):
    kernel = KERNELS[name]
    for leaf in _leaf_kernels(kernel):
        if isinstance(leaf, kg.MarginalizedGraphKernel):
            kernel_cloned = clone(kernel)
            params = kernel.get_params()
            key = next(k for k in params if k == "q" or k.endswith("__q"))
            kernel_cloned.set_params(**{key: 0.123})
            assert kernel_cloned.get_params()[key] == pytest.approx(0.123)
            assert params[key] != 0.123  # the original is untouched
            kernel_cloned2 = clone(kernel_cloned)
            assert kernel_cloned2.get_params()[key] == pytest.approx(0.123)


@CONTRACT
def test_set_get_params(name):
    kernel = clone(KERNELS[name])
    params = kernel.get_params()
    index = 0
    for h in kernel.hyperparameters:
        if isinstance(h.bounds, str) and h.bounds == "fixed":
            continue
        assert np.exp(kernel.theta[index]) == pytest.approx(params[h.name])
        index += 1
    index = 0
    for h in kernel.hyperparameters:
        if isinstance(h.bounds, str) and h.bounds == "fixed":
            continue
        lo, hi = np.exp(kernel.bounds[index])
        value = float(min(hi, lo * 3))
        kernel.set_params(**{h.name: value})
        assert np.exp(kernel.theta[index]) == pytest.approx(value)
        index += 1


@CONTRACT
def test_repr_kernels(name):
    repr(KERNELS[name])


def test_nested_parameters_through_set_params(mutag):
    g = mutag.graphs[:4]
    k = make()
    p = k.get_params()
    assert p["node_kernel__h"] == 0.5 and p["node.label.h"] == 0.5 and p["edge.1.label.h"] == 0.8
    assert p["edge_kernel__a__h"] == 0.5 and p["edge_kernel__b__h_bounds"] == "fixed"
    k.set_params(node_kernel__h=0.3)
    assert k.node_kernel.h == 0.3 and getattr(k, "node.label.h") == 0.3
    k.set_params(**{"edge.0.label.h": 0.4})
    assert k.edge_kernel.a.h == pytest.approx(0.4)
    np.testing.assert_allclose(
        k(g), kg.MarginalizedGraphKernel("delta(label, 0.3)", "delta(label, 0.4) * delta(label, 0.8)", backend="cpu")(g)
    )
    prod = ConstantKernel(2.0) * make()
    assert "k2__node_kernel__h" in prod.get_params() and "k2__node.label.h" in prod.get_params()
    prod.set_params(k2__node_kernel__h=0.2)
    assert prod.k2.node_kernel.h == 0.2
    prod.set_params(**{"k2__node.label.h": 0.25})
    assert prod.k2.node_kernel.h == pytest.approx(0.25)
    with pytest.raises(ValueError):
        k.set_params(node_kernel__nope=1)


def test_random_walk_kernel_with_dask_and_gpr(mutag):
    import kronograph.dask

    g = mutag.graphs[:12]
    rw = kg.RandomWalkKernel(lam=0.01, normalize=True)
    K = rw(g)
    assert np.allclose(np.diag(K), 1) and np.all(K <= 1 + 1e-12)
    raw = kg.RandomWalkKernel(lam=0.01)(g)
    np.testing.assert_allclose(K, raw / np.sqrt(np.outer(np.diag(raw), np.diag(raw))), rtol=1e-12)
    np.testing.assert_allclose(rw(g[:3], g[3:]), K[:3, 3:], rtol=1e-12)
    import dask

    with dask.config.set(scheduler="synchronous"):
        Kd = kronograph.dask.gram(rw, g, tile=5).compute()
    np.testing.assert_allclose(Kd, K, rtol=1e-12)
    y = np.array([np.mean(x.labels["label"] == 0) for x in g])
    gpr = GaussianProcessRegressor(kernel=ConstantKernel(1.0) * rw, alpha=1e-2, normalize_y=True).fit(
        np.array(g, dtype=object), y
    )
    assert np.isfinite(gpr.log_marginal_likelihood_value_)
    with pytest.raises(ValueError, match="lam_bounds"):
        kg.RandomWalkKernel(lam_bounds=(0.0, 0.1)).hyperparameters


def test_random_walk_trains_lambda(mutag):
    g = mutag.graphs[:20]
    limit = kg.RandomWalkKernel().lambda_limit(g)
    assert 1 / 16 <= limit < 1  # MUTAG: degree <= 4, so rho <= 4
    for labeled in (False, True):
        rw = kg.RandomWalkKernel(lam=0.01, labeled=labeled, lam_bounds=(1e-4, 0.9 * limit), normalize=True)
        assert [h.name for h in rw.hyperparameters] == ["lam"] and rw.theta == pytest.approx([np.log(0.01)])
        K, dK = rw(g, eval_gradient=True)
        assert dK.shape == (20, 20, 1)
        eps = 1e-5
        fd = (rw.clone_with_theta(rw.theta + eps)(g) - rw.clone_with_theta(rw.theta - eps)(g)) / (2 * eps)
        np.testing.assert_allclose(dK[:, :, 0], fd, rtol=1e-5, atol=1e-9)
        with pytest.raises(ValueError, match="outside its bounds"):
            rw.theta = [np.log(limit)]
        with pytest.raises(ValueError, match="Y is None"):
            rw(g[:2], g[2:4], eval_gradient=True)
        y = np.array([np.mean(x.labels["label"] == 0) for x in g])
        gpr = GaussianProcessRegressor(kernel=ConstantKernel(1.0) * rw, alpha=1e-2, normalize_y=True, random_state=0)
        gpr.fit(np.array(g, dtype=object), y)
        lam = gpr.kernel_.k2.lam
        assert 1e-4 <= lam <= 0.9 * limit and lam != 0.01


# the values compared with and without scikit-learn (run by exec, in this process and in a
# child process that cannot import scikit-learn or scipy)
_NO_SKLEARN_VALUES = """
g = kg.datasets.mutag().graphs[:6]
k = kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), backend="cpu")
K, dK = k(g, eval_gradient=True)
c = k.clone_with_theta(k.theta + 0.1)
c.set_params(node_kernel__h=0.3)
rw = kg.RandomWalkKernel(0.01, lam_bounds=(1e-4, 0.05))
R, dR = rw(g, eval_gradient=True)
values = np.concatenate([K.ravel(), dK.ravel(), c(g).ravel(), R.ravel(), dR.ravel(), rw.bounds.ravel(), [rw.n_dims]])
"""


def test_without_scikit_learn_and_scipy(tmp_path):
    """scikit-learn and scipy are the [sklearn] extra: without them the kernels
    still compute Grams, gradients and hyperparameters (equal to the values
    with them); combining kernels asks for scikit-learn."""
    import subprocess
    import sys

    code = (
        """
import sys
sys.modules["sklearn"] = None  # ImportError on import, as if not installed
sys.modules["scipy"] = None
import numpy as np, kronograph as kg
from kronograph import _sklearn
assert not _sklearn.HAVE_SKLEARN
"""
        + _NO_SKLEARN_VALUES
        + """
np.save(sys.argv[1], values)
try:
    k + k
except ImportError as e:
    assert "scikit-learn" in str(e)
else:
    raise AssertionError("k + k without scikit-learn")
try:
    kg.from_scipy(np.eye(3))
except ImportError as e:
    assert "scipy" in str(e)
else:
    raise AssertionError("from_scipy without scipy")
"""
    )
    out = tmp_path / "v.npy"
    r = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    scope = {"np": np, "kg": kg}
    exec(_NO_SKLEARN_VALUES, scope)
    np.testing.assert_array_equal(np.load(out), scope["values"])
