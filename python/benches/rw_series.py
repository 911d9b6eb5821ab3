"""The exponential and p-step random-walk Grams of MUTAG (188 graphs, 17,766 pairs,
lam = 0.25, p-step p = 6 with weights 1) on a GPU and on the CPU in the same process: median
of 3 calls after a warm-up (NVRTC, first allocations), and the largest relative difference
of the GPU's Gram from the CPU's.  With ``--old DIR``, also that of Grams written by an
earlier build's CLI (``DIR/old-{exp,exp-lab,pstep,pstep-lab}.npy``, from
``kronograph rw data/MUTAG --lambda 0.25 --kind exponential|p-step --steps 6 [--labeled]
--backend cuda --out ...``).

    python python/benches/rw_series.py [--data data/MUTAG] [--device cuda:0] [--old DIR]
"""

import argparse
import os
import time

import numpy as np

import kronograph as kg


def rel(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(np.maximum(abs(a), abs(b)), 1e-300)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/MUTAG")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--old", default=None)
    args = ap.parse_args()
    gs = kg.read_tu(args.data).graphs
    for name, kind in (("exp", dict(kind="exponential")), ("pstep", dict(kind="p-step", p=6))):
        for labeled in (False, True):
            res = {}
            for be in ("cpu", args.device):
                k = kg.RandomWalkKernel(lam=0.25, labeled=labeled, backend=be, **kind)
                k(gs[:4])  # warm-up
                ts = []
                for _ in range(3):
                    t = time.perf_counter()
                    K = k(gs)
                    ts.append(time.perf_counter() - t)
                res[be] = (float(np.median(ts)), K)
            tag = f"{name}{'-lab' if labeled else ''}"
            (tc, kc), (tg, kd) = res["cpu"], res[args.device]
            line = f"{tag}: GPU {tg:.4f} s, CPU {tc:.4f} s (GPU/CPU {tg / tc:.2f}x); max rel GPU vs CPU {rel(kd, kc):.2e}"
            old = args.old and os.path.join(args.old, f"old-{tag}.npy")
            if old and os.path.exists(old):
                line += f", old GPU vs CPU {rel(np.load(old), kc):.2e}"
            print(line)


if __name__ == "__main__":
    main()
