#!/usr/bin/env python3
"""SuiteSparse:GraphBLAS (python-graphblas) on the graphs bench_graphblas wrote.

    bench_graphblas --write DIR ...
    python3 scripts/graphblas_gpu_peer.py DIR --threads 16

For each DIR/NAME.bin (u32 n, then the upper triangle's (i, j) pairs) and
NAME.sources (a source and its component's edge count per line, then
"triangles T"): BFS from each source with the LAGraph-style
direction-optimizing BFS of scripts/graphblas_compare.py (gb_bfs, reused),
GTEPS = edges / time, harmonic mean over the sources (one warm-up run
first); triangles with gb_triangles (best of the presorted and plain forms,
each best of 2 after a warm-up), checked against T. Matrix construction is not timed.
"""

import argparse
import glob
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graphblas_compare import gb_bfs, gb_triangles  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir")
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--no-triangles", action="store_true", help="BFS only (SuiteSparse's triangles on rmat22 take minutes)")
    a = p.parse_args()
    import graphblas as gb

    gb.init("suitesparse", blocking=True)
    gb.ss.config["nthreads"] = a.threads
    print(f"# SuiteSparse:GraphBLAS {gb.ss.about['library_version']}, python-graphblas {gb.__version__}, "
          f"{a.threads} threads")
    for path in sorted(glob.glob(os.path.join(a.dir, "*.bin"))):
        name = os.path.splitext(os.path.basename(path))[0]
        raw = np.fromfile(path, dtype="<u4")
        n = int(raw[0])
        ij = raw[1:].reshape(-1, 2).astype(np.int64)
        rows = np.concatenate([ij[:, 0], ij[:, 1]])
        cols = np.concatenate([ij[:, 1], ij[:, 0]])
        A = gb.Matrix.from_coo(rows, cols, 1, nrows=n, ncols=n, dtype=gb.dtypes.INT64)
        deg = A.reduce_rowwise(gb.agg.count).new(dtype=gb.dtypes.INT64)
        lines = open(os.path.join(a.dir, name + ".sources")).read().split("\n")
        srcs = [tuple(map(int, l.split())) for l in lines if l and not l.startswith("triangles")]
        tri = int([l for l in lines if l.startswith("triangles")][0].split()[1])
        head = f"{name} {n} {len(ij)}"
        gb_bfs(gb, A, deg, srcs[0][0])  # warm-up
        teps = []
        for s, edges in srcs:
            t0 = time.perf_counter()
            gb_bfs(gb, A, deg, s)
            teps.append(edges / (time.perf_counter() - t0))
        hm = len(teps) / sum(1.0 / t for t in teps)
        print(f"{head} | bfs suitesparse do | {hm / 1e9:.3f} GTEPS | -")
        sys.stdout.flush()
        if a.no_triangles:
            continue
        best = float("inf")
        got = None
        for presort in (False, True):
            gb_triangles(gb, A, presort)
            for _ in range(2):
                t0 = time.perf_counter()
                got = gb_triangles(gb, A, presort)
                best = min(best, time.perf_counter() - t0)
        print(f"{head} | triangles suitesparse dot | {best * 1e3:.3f} ms | {'ok' if got == tri else f'MISMATCH {got} vs {tri}'}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
