"""Algorithms on a networkx graph: the conversion to kronograph's form (once,
then kept in networkx's cache of the graph) against the algorithm itself and
networkx's own, in one run.

    python python/benches/networkx_input.py data/snap/facebook_combined.mtx [--repeat 5]

Prints medians in seconds: the conversion (``from_networkx``), the first
call on the networkx graph (it converts), later calls (cached: the weights
are re-read to catch in-place changes), the same call on a converted
``kg.Graph``, and networkx.
"""

import argparse
import statistics
import time

import networkx as nx
import scipy.io

import kronograph as kg
from kronograph.graphs import from_networkx


def median_time(f, repeat):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mtx", help="a symmetric Matrix Market file (e.g. data/snap/facebook_combined.mtx)")
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    m = scipy.io.mmread(a.mtx).tocsr()
    g = nx.from_scipy_sparse_array(m + m.T if (m != m.T).nnz else m)
    g.remove_edges_from(nx.selfloop_edges(g))
    for u, v in g.edges:
        g.edges[u, v]["weight"] = 1.0 + (u + v) % 5
    print(f"{a.mtx}: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges, weighted")
    r = a.repeat
    print(f"from_networkx (structure and weights)  {median_time(lambda: from_networkx(g, node_attrs=[], edge_attrs=[]), r):.4f}")
    G = from_networkx(g, node_attrs=[], edge_attrs=[])
    for name, ours, theirs in (
        ("triangle_count", kg.triangle_count, lambda x: sum(nx.triangles(x).values()) // 3),
        ("bfs", lambda x: kg.bfs(x, 0), lambda x: nx.single_source_shortest_path_length(x, 0)),
        ("sssp", lambda x: kg.sssp(x, 0), lambda x: nx.single_source_dijkstra_path_length(x, 0)),
    ):
        g.__networkx_cache__.clear()
        t = time.perf_counter()
        ours(g)
        first = time.perf_counter() - t
        cached = median_time(lambda: ours(g), r)
        native = median_time(lambda: ours(G), r)
        peer = median_time(lambda: theirs(g), max(1, r // 2))
        print(f"{name:15s} first call {first:.4f}  cached {cached:.4f}  on kg.Graph {native:.4f}  networkx {peer:.4f}")


if __name__ == "__main__":
    main()
