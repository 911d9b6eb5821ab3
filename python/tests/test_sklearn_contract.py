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
    assert names == ["node.label.h", "edge.0.label.h", "edge.1.label.h", "q"]
    assert [h.fixed for h in k.hyperparameters] == [False, False, True, False]
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
