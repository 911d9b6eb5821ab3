"""Where ``backend="auto"`` should run the exponential and p-step random walks:
the CPU (``n_jobs`` threads) against the GPU on growing batches of MUTAG and of
NWS96L (96-node graphs), labeled and unlabeled, in the same process, and what
``"auto"`` did (its time beside the two; ``auto_choice`` is the backend whose
time it is nearer to).  Prints one line per batch with the node pairs per CPU
thread (``sum of n n'`` over the call's pairs, divided by the threads); the
library's rule (``WalkSeriesKernel::auto_uses_device``) also counts the
matched node pairs (equal labels), docs/PERFORMANCE.md.  Median of 5 calls
after a warm-up call of the same batch.

    python python/benches/rw_series_auto.py [--data data] [--device cuda:0] [--jobs 16,4]
"""

import argparse
import collections
import time

import numpy as np

import kronograph as kg


def median_time(k, gs, reps=5):
    k(gs)  # warm-up: NVRTC (cached), first allocations
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        K = k(gs)
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)), K


def node_pairs(gs):
    n = np.array([g.num_nodes for g in gs], dtype=float)
    return (n.sum() ** 2 + (n**2).sum()) / 2


def matched_pairs(gs):
    """``sum over the call's pairs of sum_c count_c count'_c``: node pairs with equal labels (all node fields)."""
    tot, sq = collections.Counter(), collections.Counter()
    for g in gs:
        labs = g.labels
        cols = [labs[name] if np.ndim(labs[name]) == 1 else [tuple(r) for r in labs[name]] for name, _ in g.node_fields]
        for key, c in collections.Counter(zip(*cols)).items():
            tot[key] += c
            sq[key] += c * c
    return sum((tot[k] ** 2 + sq[k]) / 2 for k in tot)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--jobs", default="16,4")
    args = ap.parse_args()
    sets = {
        "MUTAG": (kg.read_tu(f"{args.data}/MUTAG").graphs, [4, 8, 12, 16, 24, 32, 48, 64, 96, 188]),
        "NWS96L": (kg.read_tu(f"{args.data}/synthetic/NWS96L").graphs, [2, 3, 4, 6, 8, 16, 40]),
    }
    kinds = (("exp", dict(kind="exponential", lam=0.25)), ("pstep", dict(kind="p-step", p=6, lam=0.25)))
    print("set graphs jobs kind labeled node_pairs/thread matched/thread cpu_s gpu_s auto_s gpu/cpu auto_choice max_rel")
    for jobs in [int(j) for j in args.jobs.split(",")]:
        for name, (graphs, sizes) in sets.items():
            for size in sizes:
                gs = graphs[:size]
                for kname, kind in kinds:
                    for labeled in (True, False):
                        if not labeled and size not in (sizes[len(sizes) // 2], sizes[-1]):
                            continue  # unlabeled: two sizes are enough to show the CPU wins
                        t = {}
                        for be in ("cpu", args.device, "auto"):
                            k = kg.RandomWalkKernel(labeled=labeled, backend=be, n_jobs=jobs, **kind)
                            t[be] = median_time(k, gs)
                        (tc, kc), (tg, kd), (ta, _) = t["cpu"], t[args.device], t["auto"]
                        rel = float(np.max(np.abs(kd - kc) / np.maximum(np.abs(kc), 1e-300)))
                        # auto's choice as its time says it: nearer to the CPU's or the GPU's
                        choice = "gpu" if abs(np.log(ta / tg)) < abs(np.log(ta / tc)) else "cpu"
                        print(
                            f"{name} {size} {jobs} {kname} {int(labeled)} {node_pairs(gs) / jobs:.0f} {matched_pairs(gs) / jobs:.0f} "
                            f"{tc:.5f} {tg:.5f} {ta:.5f} {tg / tc:.2f} {choice} {rel:.1e}",
                            flush=True,
                        )


if __name__ == "__main__":
    main()
