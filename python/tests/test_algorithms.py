"""BFS, SSSP, triangles and the random-walk kernel against networkx and dense references."""

import networkx as nx
import numpy as np
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
    # without a driver the count is 0 (not an error, issue 33); the reason, if any, is in "error"
    assert isinstance(s["devices"], int) and s["devices"] >= 0
    if importlib.util.find_spec("nvidia") is not None:
        # kronograph[cuda] installed the nvidia-cuda-nvrtc wheel: import found and loaded it
        assert s["nvrtc_from"] is not None and s["nvrtc"], s
