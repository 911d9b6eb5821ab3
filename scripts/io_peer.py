#!/usr/bin/env python3
"""The peer of `bench_io`: scipy.io.mmread (fast_matrix_market inside, all
cores) on the same Matrix Market file, in the same run.

usage: python3 scripts/io_peer.py FILE.mtx [REPEATS]
Prints one line: "scipy VERSION mmread median SECONDS s (min SECONDS) nnz N".
"""
import statistics
import sys
import time

import scipy
import scipy.io


def main() -> None:
    path = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    times = []
    nnz = 0
    for _ in range(repeats):
        t = time.perf_counter()
        a = scipy.io.mmread(path)
        times.append(time.perf_counter() - t)
        nnz = a.nnz
        del a
    print(f"scipy {scipy.__version__} mmread median {statistics.median(times):.4f} s "
          f"(min {min(times):.4f}) nnz {nnz}")


if __name__ == "__main__":
    main()
