"""BFS, SSSP, triangles and the random-walk kernel against networkx and dense references."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import kronograph as kg


def test_bfs_sssp_triangles_networkx():
    g = nx.connected_watts_strogatz_graph(60, 4, 0.2, seed=3)
    rng = np.random.default_rng(0)
    for u, v in g.edges:
        g.edges[u, v]["weight"] = float(rng.uniform(0.5, 2.0))
    levels, parents = kg.bfs(g, 0)
    ref = nx.single_source_shortest_path_length(g, 0)
    assert all(levels[v] == d for v, d in ref.items())
    assert parents[0] == 0
    dist = kg.sssp(g, 0)
    ref = nx.single_source_dijkstra_path_length(g, 0)
    np.testing.assert_allclose([dist[v] for v in range(60)], [ref[v] for v in range(60)], rtol=1e-12)
    tri = nx.triangles(g)
    np.testing.assert_array_equal(kg.triangles_per_vertex(g), [tri[v] for v in range(60)])
    assert kg.triangle_count(g) == sum(tri.values()) // 3
    # the same from scipy.sparse
    a = nx.to_scipy_sparse_array(g, nodelist=range(60), weight=None)
    assert kg.triangle_count(sp.csr_matrix(a)) == sum(tri.values()) // 3


def test_random_walk_kernel_dense_reference():
    gs = [nx.cycle_graph(5), nx.path_graph(4), nx.complete_graph(4)]
    lam = 0.02
    K = kg.RandomWalkKernel(lam)(gs)
    for i, a in enumerate(gs):
        for j, b in enumerate(gs):
            wa = nx.to_numpy_array(a)
            wb = nx.to_numpy_array(b)
            w = np.kron(wa, wb)
            x = np.linalg.solve(np.eye(len(w)) - lam * w, np.ones(len(w)))
            np.testing.assert_allclose(K[i, j], x.sum(), rtol=1e-8)


def test_cuda_status_and_nvrtc_extra():
    import importlib.util

    s = kg.cuda_status()
    assert set(s) == {"nvrtc", "devices", "nvrtc_from", "error"}
    # devices, or a reason why none (no driver, no GPU, a failing driver)
    assert isinstance(s["devices"], int)
    if s["devices"] == 0:
        assert isinstance(s["error"], str) and s["error"].strip(), s
        assert any(w in s["error"] for w in ("libcuda", "driver", "CUDA")), s
    else:
        assert s["devices"] > 0 and s["error"] is None, s
    if importlib.util.find_spec("nvidia") is not None:
        # kronograph[cuda] installed the nvidia-cuda-nvrtc wheel: import found and loaded it
        assert s["nvrtc_from"] is not None and s["nvrtc"], s


def test_networkx_conversion_is_cached_until_the_graph_changes():
    from kronograph.graphs import structure

    g = nx.connected_watts_strogatz_graph(40, 4, 0.2, seed=1)
    a = structure(g)
    assert structure(g) is a  # a second call reuses the conversion
    assert structure(g, weight=None) is not a  # another weight attribute, another conversion
    t0 = kg.triangle_count(g)
    # networkx clears its cache when the graph changes through its methods
    u, v = next((u, v) for u in g for v in g if u < v and not g.has_edge(u, v) and set(g[u]) & set(g[v]))
    g.add_edge(u, v)
    b = structure(g)
    assert b is not a
    assert kg.triangle_count(g) == sum(nx.triangles(g).values()) // 3 > t0
    # weights changed in place (no trace in networkx's cache) are caught
    for x, y in g.edges:
        g.edges[x, y]["weight"] = 1.0 + (x + y) % 3
    c = structure(g)
    assert c is not b and structure(g) is c
    np.testing.assert_allclose(kg.sssp(g, 0), [nx.dijkstra_path_length(g, 0, t) for t in range(40)])
    g.edges[u, v]["weight"] = 7.5
    np.testing.assert_allclose(kg.sssp(g, 0), [nx.dijkstra_path_length(g, 0, t) for t in range(40)])
    del g.edges[u, v]["weight"]
    with pytest.raises(ValueError, match="has no 'weight'"):
        kg.sssp(g, 0)
    # without networkx's cache switch, nothing is kept
    g2 = nx.path_graph(4)
    nx.config.cache_converted_graphs = False
    try:
        kg.bfs(g2, 0)
        assert not g2.__networkx_cache__
    finally:
        nx.config.cache_converted_graphs = True


def test_networkx_edges_read_in_networkx_order():
    from kronograph.graphs import _nx_edges

    for g in (nx.gnp_random_graph(30, 0.2, seed=2), nx.gnp_random_graph(30, 0.2, seed=3, directed=True)):
        g.add_edge(5, 5)  # a self-loop, listed once
        g = nx.relabel_nodes(g, {v: f"n{(7 * v) % 30}" for v in g})  # nodes in an order of their own
        nodes = list(g.nodes)
        edges, src, dst = _nx_edges(g, nodes, {v: i for i, v in enumerate(nodes)})
        assert [(u, v) for u, v, _ in edges] == list(g.edges)
        assert [(nodes[i], nodes[j]) for i, j in zip(src, dst)] == list(g.edges)


def test_cpu_fallback_is_a_python_warning():
    import subprocess
    import sys
    import warnings

    from kronograph import _backend

    if kg.cuda_status()["devices"] > 0:
        assert _backend.resolve("auto") == "auto"
        return
    _backend._devices = None  # as in a fresh process
    with pytest.warns(kg.CpuFallbackWarning, match="no usable CUDA device"):
        assert _backend.resolve("auto") == "cpu"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _backend.resolve("auto") == "cpu"  # once per process
        assert _backend.resolve("cuda:1") == "cuda:1"
    # filtered, nothing reaches stderr (the native library's notice is not printed either)
    code = (
        "import warnings, kronograph as kg\n"
        "warnings.filterwarnings('ignore', category=kg.CpuFallbackWarning)\n"
        "k = kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5))\n"
        "print(k(kg.datasets.mutag().graphs[:3]).shape)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert r.returncode == 0 and r.stdout.strip() == "(3, 3)" and r.stderr == "", r.stderr
