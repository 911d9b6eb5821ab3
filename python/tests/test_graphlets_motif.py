"""The graphlet transform and motif search against brute force on small graphs."""

import itertools

import networkx as nx
import numpy as np
import pytest

import kronograph as kg


def test_graphlets_low_orbits_match_networkx():
    g = nx.gnp_random_graph(30, 0.2, seed=5)
    raw, net = kg.graphlets(g, kind="both", backend="cpu")
    assert raw.shape == (30, 16) and raw.dtype == np.uint64
    deg = np.array([g.degree(v) for v in range(30)])
    tri = nx.triangles(g)
    # orbit 0: the node itself; 1: degree; 3: 2-path centre, C(d, 2) raw;
    # 4: triangles (net = raw for cliques)
    np.testing.assert_array_equal(raw[:, 0], np.ones(30))
    np.testing.assert_array_equal(raw[:, 1], deg)
    np.testing.assert_array_equal(raw[:, 3], deg * (deg - 1) // 2)
    np.testing.assert_array_equal(net[:, 4], [tri[v] for v in range(30)])
    # raw orbit 2 (paths with the node at an end, not induced) = Σ_(u ~ v) (d(u) - 1)
    np.testing.assert_array_equal(raw[:, 2], [sum(deg[u] - 1 for u in g[v]) for v in range(30)])
    # net orbit 15 (the node in a 4-clique, induced) by brute force
    k4 = np.zeros(30, dtype=np.uint64)
    for q in itertools.combinations(range(30), 4):
        if all(g.has_edge(a, b) for a, b in itertools.combinations(q, 2)):
            k4[list(q)] += 1
    np.testing.assert_array_equal(net[:, 15], k4)
    assert np.array_equal(kg.graphlets(g, backend="cpu"), net)
    # the columns are named
    assert len(kg.GRAPHLET_ORBITS) == 16 and kg.GRAPHLET_ORBITS[1] == "[1] degree"
    assert kg.GRAPHLET_ORBITS[4] == "[4] 3-cycle" and kg.GRAPHLET_ORBITS[15] == "[15] 4-clique"


def test_graphlets_bad_arguments():
    with pytest.raises(ValueError, match="kind"):
        kg.graphlets(nx.path_graph(3), kind="induced")
    with pytest.raises(kg.KronographError, match="backend"):
        kg.graphlets(nx.path_graph(3), backend="tpu")


def brute_force_hits(g, colors, motif):
    want = sorted(motif)
    hits = np.zeros(g.number_of_nodes(), dtype=bool)
    for s in itertools.combinations(range(g.number_of_nodes()), len(motif)):
        if sorted(colors[v] for v in s) == want and nx.is_connected(g.subgraph(s)):
            hits[list(s)] = True
    return hits


@pytest.mark.parametrize("seed", range(4))
def test_motif_search_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    g = nx.gnp_random_graph(12, 0.3, seed=seed)
    colors = rng.integers(0, 3, size=12)
    motif = rng.integers(0, 3, size=3)
    r = kg.motif_search(g, colors, motif, delta=1e-9, seed=seed, backend="cpu")
    np.testing.assert_array_equal(r.hits, brute_force_hits(g, colors, motif))
    assert r.false_negative_bound <= 1e-9
    r64 = kg.motif_search(g, colors, motif, field="gf64", seed=seed, backend="cpu")
    np.testing.assert_array_equal(r64.hits, r.hits)


def test_motif_matches_of_a_planted_path():
    g = nx.path_graph(8)
    colors = [0, 0, 1, 2, 3, 0, 0, 0]
    r = kg.motif_search(g, colors, [1, 2, 3], matches=True, backend="cpu")
    assert r.hits.tolist() == [False, False, True, True, True, False, False, False]
    assert r.matches == [[2, 3, 4]]
    assert "3 of 8" in repr(r)


def test_motif_bad_input_raises_with_the_message():
    g = nx.path_graph(4)
    with pytest.raises(kg.KronographError, match="one colour per vertex"):
        kg.motif_search(g, [0, 1], [0])
    with pytest.raises(ValueError, match="non-negative"):
        kg.motif_search(g, [0, -1, 0, 0], [0])
    with pytest.raises(kg.KronographError, match="k >= 1"):
        kg.motif_search(g, [0, 1, 0, 0], [])
    with pytest.raises(kg.KronographError, match="delta"):
        kg.motif_search(g, [0, 1, 0, 0], [0], delta=2.0)
