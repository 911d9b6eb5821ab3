#!/usr/bin/env python3
"""Compare kronograph's BFS and triangle counting with SuiteSparse:GraphBLAS.

Runs, in the same process run and on the same graph files, our CLI
(`kronograph bfs|triangles FILE --repeat R`) and python-graphblas
(SuiteSparse:GraphBLAS) with the same number of threads, and prints a table
of best-of-R times and the ratio ours / SuiteSparse (< 1: we are faster).

Graphs: the .mtx files given (default: the bundled SNAP graphs) and, with
--rmat SCALE (repeatable), Graph500 R-MAT graphs (a=0.57, b=c=0.19, edge
factor 16, permuted ids, self-loops dropped, duplicates merged) generated here
with numpy and written to a temporary .mtx that both sides read.

    pip install python-graphblas
    cargo build --release --bin kronograph
    python3 scripts/graphblas_compare.py --threads 2 --repeat 10 --rmat 16 --rmat 18

Timings exclude file reading and matrix construction on both sides. BFS: ours
is direction-optimizing (push/pull) SpMSpV with ANY-SECONDI and a
complemented visited mask; SuiteSparse runs the same algorithm as LAGraph's
BFS (push with vxm ANY_SECONDI, pull with mxv ANY_FIRSTJ on Aᵀ = A, Beamer's
switch, parents). Triangles: ours relabels by degree and computes
sum(L·Lᵀ ∘ L); SuiteSparse is timed on the same formula both with the
same relabelling and without, and the faster of the two is reported.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def parse_args():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("graphs", nargs="*", help=".mtx files (default: data/snap/*.mtx)")
    p.add_argument("--rmat", type=int, action="append", default=[], help="add an R-MAT graph of this scale")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--source", type=int, default=-1, help="BFS source (default: a node of largest degree)")
    p.add_argument("--bin", default=os.path.join(target, "release", "kronograph"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--algorithms", default="bfs,triangles", help="comma-separated subset of bfs,triangles")
    a = p.parse_args()
    if not a.graphs and not a.rmat:
        a.graphs = [os.path.join(root, "data", "snap", f) for f in ("facebook_combined.mtx", "oregon1_010331.mtx")]
    return a


def rmat_mtx(scale, seed, directory):
    """Graph500 R-MAT, undirected, simple; written as a symmetric pattern .mtx."""
    rng = np.random.default_rng(seed)
    n = 1 << scale
    m = 16 * n
    a, b, c = 0.57, 0.19, 0.19
    u = np.zeros(m, dtype=np.int64)
    v = np.zeros(m, dtype=np.int64)
    for bit in range(scale):
        r = rng.random(m)
        bu = (r >= a + b).astype(np.int64)  # bottom half: c or d
        bv = (((r >= a) & (r < a + b)) | (r >= a + b + c)).astype(np.int64)  # right half: b or d
        u |= bu << bit
        v |= bv << bit
    perm = rng.permutation(n)
    u, v = perm[u], perm[v]
    keep = u != v
    lo, hi = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    key = np.unique(hi * n + lo)
    hi, lo = key // n, key % n
    path = os.path.join(directory, f"rmat{scale}.mtx")
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate pattern symmetric\n")
        f.write(f"% Graph500 R-MAT scale {scale}, seed {seed}\n")
        f.write(f"{n} {n} {len(key)}\n")
        np.savetxt(f, np.stack([hi + 1, lo + 1], axis=1), fmt="%d")
    return path


def ours(binary, cmd, path, repeat, source, threads):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    args = [binary, cmd, path, "--repeat", str(repeat)]
    if cmd == "bfs":
        args += ["--source", str(source)]
    out = subprocess.run(args, check=True, capture_output=True, text=True, env=env).stdout
    t = float(re.search(r"time:\s+([0-9.]+) ms", out).group(1)) / 1e3
    if cmd == "bfs":
        return t, int(re.search(r"reached:\s+(\d+)", out).group(1))
    return t, int(re.search(r"triangles: (\d+)", out).group(1))


def best(f, repeat):
    f()  # warm-up: SuiteSparse JIT-compiles kernels on first use
    ts, r = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = f()
        ts.append(time.perf_counter() - t0)
    return min(ts), r


def gb_bfs(gb, A, deg, source):
    """LAGraph-style direction-optimizing BFS (parents), A symmetric; `deg`
    the cached out-degrees (LAGraph caches them in the graph object)."""
    from graphblas import Vector, semiring, dtypes

    n = A.nrows
    nnz = A.nvals
    pi = Vector(dtypes.INT64, n)
    pi.ss.config["sparsity_control"] = ["bitmap"]  # as LAGraph: the visited mask is a bitmap
    pi[source] = source
    q = Vector(dtypes.INT64, n)
    q[source] = source
    pulling = False
    edges_unexplored = nnz
    alpha, beta = 14.0, 24.0  # Beamer's values, as ours: both sides take the same direction per level
    nq = 1
    while nq > 0:
        edges_in_frontier = deg.ewise_mult(q, "first").reduce().get(0) if nq > 0 else 0
        edges_unexplored -= edges_in_frontier
        if not pulling:
            pulling = edges_in_frontier > edges_unexplored / alpha
        else:
            pulling = nq >= n / beta
        # as LAGraph: the frontier is a bitmap for pull, sparse for push
        q.ss.config["sparsity_control"] = ["bitmap"] if pulling else ["sparse"]
        if pulling:
            q(~pi.S, replace=True) << semiring.ss.any_firstj(A @ q)  # pull: A = Aᵀ
        else:
            q(~pi.S, replace=True) << semiring.ss.any_secondi(q @ A)  # push
        nq = q.nvals
        if nq == 0:
            break
        pi(q.S) << q
    return pi.nvals


def gb_triangles(gb, A, presort):
    from graphblas import Matrix, semiring, select, dtypes

    if presort:
        d = A.reduce_rowwise(gb.agg.count).new()
        idx, vals = d.to_coo()
        full = np.zeros(A.nrows, dtype=np.int64)
        full[idx] = vals
        order = np.lexsort((np.arange(A.nrows), -full))  # decreasing degree, ties by id
        A = A[order, order].new()
    L = select.tril(A, -1).new()
    C = Matrix(dtypes.INT64, A.nrows, A.ncols)
    C(L.S) << semiring.plus_pair(L @ L.T)
    return C.reduce_scalar().get(0)


def main():
    a = parse_args()
    import graphblas as gb

    gb.init("suitesparse", blocking=True)
    gb.ss.config["nthreads"] = a.threads
    from graphblas import io as gbio

    print(f"# SuiteSparse:GraphBLAS {gb.ss.about['library_version']}, python-graphblas {gb.__version__}, "
          f"{a.threads} threads, best of {a.repeat}; ratio = ours / SuiteSparse (< 1: ours faster)")
    print(f"{'graph':<22} {'n':>9} {'edges':>10} {'algorithm':<10} {'ours ms':>9} {'SS:GrB ms':>10} {'ratio':>6}  check")
    with tempfile.TemporaryDirectory() as tmp:
        paths = list(a.graphs) + [rmat_mtx(s, a.seed, tmp) for s in a.rmat]
        for path in paths:
            name = os.path.splitext(os.path.basename(path))[0]
            A = gbio.mmread(path)
            A = A.apply(gb.unary.one).new(dtype=gb.dtypes.INT64)  # INT64 ran faster than BOOL here
            n, edges = A.nrows, A.nvals // 2
            algos = a.algorithms.split(",")
            if "bfs" in algos:
                deg = A.reduce_rowwise(gb.agg.count).new(dtype=gb.dtypes.INT64)
                source = a.source
                if source < 0:  # largest degree, smallest id among ties
                    idx, vals = deg.to_coo()
                    source = int(idx[np.lexsort((idx, -vals))[0]])
                ours_t, ours_r = ours(a.bin, "bfs", path, a.repeat, source, a.threads)
                gb_t, gb_r = best(lambda: gb_bfs(gb, A, deg, source), a.repeat)
                ok = "ok" if ours_r == gb_r else f"MISMATCH reached {ours_r} vs {gb_r}"
                print(f"{name:<22} {n:>9} {edges:>10} {'bfs':<10} {ours_t*1e3:>9.3f} {gb_t*1e3:>10.3f} {ours_t/gb_t:>6.2f}  {ok} (source {source}, reached {ours_r})")
                sys.stdout.flush()
            if "triangles" not in algos:
                continue
            ours_t, ours_r = ours(a.bin, "triangles", path, a.repeat, a.source, a.threads)
            gb_t1, r1 = best(lambda: gb_triangles(gb, A, False), a.repeat)
            gb_t2, r2 = best(lambda: gb_triangles(gb, A, True), a.repeat)
            gb_t = min(gb_t1, gb_t2)
            ok = "ok" if ours_r == r1 == r2 else f"MISMATCH {ours_r} vs {r1}/{r2}"
            print(f"{name:<22} {n:>9} {edges:>10} {'triangles':<10} {ours_t*1e3:>9.3f} {gb_t*1e3:>10.3f} {ours_t/gb_t:>6.2f}  {ok} ({ours_r})")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
