"""Dask scaling of a Gram matrix: the same tiles on a LocalCluster of 1 and
of 2 single-threaded workers (each tile on one thread: n_jobs=1), and the
in-process Gram on every core as the peer.

    python python/benches/dask_gram.py --data data/NCI1 --graphs 1000 [--tile 100]

Prints one line per run (seconds, pairs/s) and the speed-up of 2 workers over 1.
"""

import argparse
import os
import time

import numpy as np

import kronograph as kg
import kronograph.dask


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="data/NCI1")
    p.add_argument("--graphs", type=int, default=1000)
    p.add_argument("--tile", type=int, default=None, help="graphs per tile side (default: the library's choice for the cluster)")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    a = p.parse_args()
    from dask.distributed import Client, LocalCluster

    ds = kg.read_tu(a.data)
    g = ds.graphs[: a.graphs]
    n = len(g)
    pairs = n * (n + 1) // 2
    node = kg.KroneckerDelta(0.5)
    edge = kg.KroneckerDelta(0.5) if ("label", "int") in g[0].edge_fields else kg.Constant(1.0)
    k1 = kg.MarginalizedGraphKernel(node, edge, q=0.05, backend="cpu", n_jobs=1)
    print(f"{os.path.basename(a.data)}: {n} graphs, {pairs} pairs, tile {a.tile}, {os.cpu_count()} CPUs")
    t = time.perf_counter()
    ref = kg.MarginalizedGraphKernel(node, edge, q=0.05, backend="cpu")(g)
    dt = time.perf_counter() - t
    print(f"in-process, all cores: {dt:.2f} s ({pairs / dt:.0f} pairs/s)")
    times = {}
    for w in a.workers:
        with LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            with Client(cluster) as client:
                client.run(lambda: __import__("kronograph"))  # import on the workers before timing
                t = time.perf_counter()
                K = kronograph.dask.gram(k1, g, client=client, tile=a.tile).compute()
                dt = time.perf_counter() - t
        err = np.abs(K - ref).max() / np.abs(ref).max()
        times[w] = dt
        print(f"dask, {w} worker(s) x 1 thread: {dt:.2f} s ({pairs / dt:.0f} pairs/s), max rel. diff {err:.1e}")
    if 1 in times and 2 in times:
        print(f"speed-up 2 workers / 1 worker: {times[1] / times[2]:.2f}x")


if __name__ == "__main__":
    main()
