#!/usr/bin/env python3
"""Compare kronograph's geometric random-walk kernels with GraKeL's.

Runs, in the same process run and on the same graphs and lambda:
  * GraKeL 0.1.11 RandomWalk(method_type="fast", kernel_type="geometric") and
    `kronograph rw DATASET --lambda L`, on every data set given (unlabeled);
  * GraKeL RandomWalkLabeled(method_type="fast") and `kronograph rw --labeled`
    on the labeled sets (GraKeL on the first --labeled-subset graphs only:
    it needs about 20-30 ms per pair);
  * a value check of the labeled kernel against GraKeL's "baseline" method
    (dense inverse of the full product, O(|V|^6)) on --baseline-subset small
    graphs of MUTAG.

and prints pairs/s of both, their ratio, and the largest relative difference
of the kernel values. Timings are medians of --repeat runs. GraKeL runs
single-threaded (n_jobs=None, BLAS pinned to one thread: see below);
kronograph uses all cores (rayon).

Notes on the values:
  * GraKeL's unlabeled "fast" method stops CG after 20 iterations at a
    relative residual of 1e-6, so its values are only that accurate;
    kronograph solves to 1e-12 (or sums the exact moment series).
  * GraKeL's labeled kernels work in the full n*n' product space, in which
    node pairs of unequal labels are isolated vertices: each adds 1 (the walk
    of length 0) to its value. kronograph follows the standard definition,
    the product graph restricted to equal-label pairs, so
    grakel_baseline = kronograph + (n*n' - #equal-label pairs); the script
    adds that count before comparing.
  * GraKeL's labeled "fast" method matches labels crosswise (it multiplies by
    Y[(a,b)] where Y[(a,b)]^T = Y[(b,a)] is needed), so it differs from its own
    baseline; that difference is printed too.

Usage:
  python3 scripts/grakel_compare.py [--bin target/release/kronograph]
      [--lambda 0.001] [--repeat 3] [--labeled-subset 40] [--baseline-subset 12]
      data/synthetic/NWS96 data/synthetic/BA96 data/synthetic/NWS96L data/synthetic/BA96L
"""

import argparse
import os

# GraKeL's products are of small (n x n) matrices: a multi-threaded BLAS only
# oversubscribes the cores (10x slower on a loaded 2-core machine). Pin it to
# one thread, GraKeL's fastest set-up, unless the caller chose otherwise.
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np


def read_tu(folder):
    """Graphs of a TU data set as (edges set of (i, j) 0-based local, n, node labels or None)."""
    name = os.path.basename(os.path.normpath(folder))
    path = lambda suffix: os.path.join(folder, f"{name}_{suffix}.txt")
    ind = np.loadtxt(path("graph_indicator"), dtype=np.int64, ndmin=1)
    a = np.loadtxt(path("A"), delimiter=",", dtype=np.int64, ndmin=2)
    labels = np.loadtxt(path("node_labels"), dtype=np.int64, ndmin=1) if os.path.exists(path("node_labels")) else None
    ng = int(ind.max())
    starts = np.zeros(ng + 1, dtype=np.int64)
    for g in ind:
        starts[g] += 1
    starts = np.cumsum(starts)  # starts[g-1] = first node (0-based) of graph g
    graphs = []
    edges = [dict() for _ in range(ng)]
    for u, v in a:
        g = ind[u - 1] - 1
        off = starts[g]
        edges[g][(int(u - 1 - off), int(v - 1 - off))] = 1.0
    for g in range(ng):
        n = int(starts[g + 1] - starts[g])
        lab = None
        if labels is not None:
            lab = {i: int(labels[starts[g] + i]) for i in range(n)}
        graphs.append((edges[g], n, lab))
    return graphs


def to_grakel(graphs, labeled):
    from grakel import Graph
    out = []
    for e, n, lab in graphs:
        adj = np.zeros((n, n))
        for (i, j), w in e.items():
            adj[i, j] = w
        if labeled:
            out.append(Graph(adj, node_labels=lab))
        else:
            out.append(Graph(adj))
    return out


def grakel_gram(graphs, lam, labeled, method):
    from grakel.kernels import RandomWalk, RandomWalkLabeled
    cls = RandomWalkLabeled if labeled else RandomWalk
    k = cls(lamda=lam, method_type=method, kernel_type="geometric")
    gs = to_grakel(graphs, labeled)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        K = k.fit_transform(gs)
        return np.asarray(K), time.perf_counter() - t


def ours(binary, folder, lam, labeled, subset=None):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "k.npy")
        cmd = [binary, "--quiet", "rw", folder, "--lambda", str(lam), "--out", out]
        if labeled:
            cmd.append("--labeled")
        if subset:
            cmd += ["--first", str(subset)]
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return np.load(out), time.perf_counter() - t


def unmatched(graphs):
    """(n n' - #equal-label pairs) for every pair."""
    m = len(graphs)
    U = np.zeros((m, m))
    for a in range(m):
        for b in range(m):
            la = list(graphs[a][2].values())
            lb = list(graphs[b][2].values())
            eq = sum(1 for x in la for y in lb if x == y)
            U[a, b] = len(la) * len(lb) - eq
    return U


def median_time(f, repeat):
    ts, res = [], None
    for _ in range(repeat):
        res, t = f()
        ts.append(t)
    return res, float(np.median(ts))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--bin", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "kronograph"))
    ap.add_argument("--lambda", dest="lam", type=float, default=1e-3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--labeled-subset", type=int, default=40)
    ap.add_argument("--baseline-subset", type=int, default=12)
    ap.add_argument("--baseline-set", default="data/MUTAG")
    args = ap.parse_args()
    import grakel
    print(f"GraKeL {grakel.__version__}, lambda = {args.lam}, median of {args.repeat}, {os.cpu_count()} cores")
    print(f"{'set':<10} {'kernel':<22} {'graphs':>6} {'pairs':>7} {'GraKeL pairs/s':>15} "
          f"{'ours pairs/s':>13} {'ratio':>8} {'max rel diff':>13}")
    for folder in args.datasets:
        name = os.path.basename(os.path.normpath(folder))
        graphs = read_tu(folder)
        labeled = graphs[0][2] is not None and name.endswith("L")
        # unlabeled (every set)
        n = len(graphs)
        pairs = n * (n + 1) // 2
        Kg, tg = median_time(lambda: grakel_gram(graphs, args.lam, False, "fast"), args.repeat)
        Ko, to = median_time(lambda: ours(args.bin, folder, args.lam, False), args.repeat)
        diff = np.max(np.abs(Kg - Ko) / np.abs(Ko))
        print(f"{name:<10} {'RandomWalk':<22} {n:>6} {pairs:>7} {pairs / tg:>15.0f} {pairs / to:>13.0f} "
              f"{tg / to:>8.1f} {diff:>13.2e}")
        if labeled:
            s = min(args.labeled_subset, n)
            sp = s * (s + 1) // 2
            Kg, tg = median_time(lambda: grakel_gram(graphs[:s], args.lam, True, "fast"), args.repeat)
            Ko, to = median_time(lambda: ours(args.bin, folder, args.lam, True, s), args.repeat)
            Ko_full, to_full = median_time(lambda: ours(args.bin, folder, args.lam, True), args.repeat)
            U = unmatched(graphs[:s])
            diff = np.max(np.abs(Kg - (Ko + U)) / np.abs(Ko + U))
            print(f"{name:<10} {'RandomWalkLabeled fast':<22} {s:>6} {sp:>7} {sp / tg:>15.0f} {sp / to:>13.0f} "
                  f"{(sp / to) / (sp / tg):>8.1f} {diff:>13.2e}  (GraKeL fast vs ours + unmatched)")
            print(f"{name:<10} {'  ours, all graphs':<22} {n:>6} {pairs:>7} {'':>15} {pairs / to_full:>13.0f} "
                  f"{(pairs / to_full) / (sp / tg):>8.1f}")
    # value check of the labeled kernel against GraKeL's baseline on small graphs
    if args.baseline_subset > 0 and os.path.isdir(args.baseline_set):
        graphs = read_tu(args.baseline_set)[: args.baseline_subset]
        s = len(graphs)
        Kb, tb = grakel_gram(graphs, args.lam, True, "baseline")
        Kf, tf = grakel_gram(graphs, args.lam, True, "fast")
        Ko, to = ours(args.bin, args.baseline_set, args.lam, True, s)
        U = unmatched(graphs)
        d_ours = np.max(np.abs(Kb - (Ko + U)) / np.abs(Kb))
        d_fast = np.max(np.abs(Kb - Kf) / np.abs(Kb))
        name = os.path.basename(os.path.normpath(args.baseline_set))
        print(f"value check on the first {s} graphs of {name}: "
              f"max rel |GraKeL baseline - (ours + unmatched)| = {d_ours:.2e}; "
              f"max rel |GraKeL baseline - GraKeL fast| = {d_fast:.2e}")


if __name__ == "__main__":
    sys.exit(main())
