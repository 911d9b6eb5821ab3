"""The pictures of docs/PERFORMANCE.md, drawn from its own tables (the
figures live in one place: the tables; this script only reads them).

    python scripts/performance_plots.py        (needs matplotlib; writes docs/img/perf_*.png)

Each picture is one table: kronograph beside the peer measured in the same
run (GraKeL, SuiteSparse:GraphBLAS, GraphDot) or, for the FGLT reference,
the figure its table names.  Log scales: the ratios span two orders of
magnitude.
"""

import io
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "PERFORMANCE.md"
OUT = ROOT / "docs" / "img"


def table(text, heading, first=0):
    """The ``first``-th Markdown table under ``## heading``: header and rows (cells as text)."""
    sec = text.split(f"## {heading}", 1)
    if len(sec) < 2:
        sys.exit(f"docs/PERFORMANCE.md has no section {heading!r}")
    body = sec[1].split("\n## ", 1)[0]
    tables, cur = [], []
    for line in body.splitlines():
        if line.startswith("|"):
            cur.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif cur:
            tables.append(cur)
            cur = []
    if cur:
        tables.append(cur)
    t = tables[first]
    return t[0], [r for r in t[2:]]


def num(cell):
    """The first number of a cell (``4,243``, ``0.0978``, ``58.3 GTEPS``, ``230 ms``), in its unit."""
    m = re.search(r"[-+]?\d[\d,]*\.?\d*(?:[eE][-+]?\d+)?", cell)
    if not m or cell.strip() in ("–", "-"):
        return np.nan
    v = float(m.group(0).replace(",", ""))
    if re.search(r"\bms\b", cell):
        v /= 1000.0
    return v


def bars(ax, labels, series, ylabel, title):
    x = np.arange(len(labels))
    w = 0.8 / len(series)
    for k, (name, values) in enumerate(series):
        ax.bar(x + (k - (len(series) - 1) / 2) * w, values, w, label=name)
    ax.set_xticks(x, labels, rotation=20, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)


def save(fig, name):
    from PIL import Image  # comes with matplotlib

    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100)
    buf.seek(0)
    OUT.mkdir(parents=True, exist_ok=True)
    Image.open(buf).convert("RGB").quantize(64).save(OUT / name, optimize=True)
    plt.close(fig)
    print(f"docs/img/{name}")


def main():
    text = DOC.read_text()

    _, rows = table(text, "Random-walk kernel on the CPU, against GraKeL")
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    labels = [f"{r[0]}\n{r[1].split(' ')[0]}" for r in rows]
    bars(ax, labels, [("GraKeL", [num(r[2]) for r in rows]), ("kronograph", [num(r[3]) for r in rows])],
         "pairs per second (log)", "Random-walk kernel, CPU, same run as GraKeL")
    save(fig, "perf_rw_grakel.png")

    _, rows = table(text, "GraphBLAS on the CPU, against SuiteSparse:GraphBLAS", 0)
    rows = [r for r in rows if r[1] == "BFS"]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    bars(ax, [r[0] for r in rows], [("SuiteSparse:GraphBLAS, 1 thread", [num(r[3]) for r in rows]),
                                    ("kronograph, 1 thread", [num(r[2]) for r in rows])],
         "milliseconds (log)", "BFS on the CPU against SuiteSparse:GraphBLAS, same run")
    save(fig, "perf_graphblas_suitesparse.png")

    _, rows = table(text, "Marginalized graph kernel on the GPU, against GraphDot", 0)
    rows = [r for r in rows if not np.isnan(num(r[3]))]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    bars(ax, [r[0] for r in rows], [("GraphDot 0.8.1", [num(r[3]) for r in rows]),
                                    ("kronograph", [num(r[2]) for r in rows])],
         "seconds per Gram (log)", "Marginalized graph kernel, one H200, same run as GraphDot")
    save(fig, "perf_mgk_gpu.png")

    _, rows = table(text, "Graphlet transform (FGLT)", 0)
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    rows = [r for r in rows if not np.isnan(num(r[1]))]
    bars(ax, [r[0] for r in rows], [("FGLT reference, 2 cores", [num(r[1]) for r in rows]),
                                    ("kronograph CPU, 16 threads", [num(r[2]) for r in rows]),
                                    ("kronograph GPU, end to end", [num(r[3]) for r in rows])],
         "seconds (log)", "Graphlet transform")
    save(fig, "perf_fglt.png")


if __name__ == "__main__":
    main()
