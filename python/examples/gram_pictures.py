"""The pictures of docs/PYTHON.md: MUTAG's normalized marginalized-kernel
Gram matrix as a heatmap (graphs sorted by class) and its kernel PCA.

    python python/examples/gram_pictures.py [OUTDIR]     (default: docs/img next to this repository's docs, else .)

Needs matplotlib (``pip install matplotlib``); runs from any directory
(MUTAG ships in the wheel).
"""

import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.decomposition import KernelPCA  # noqa: E402

import kronograph as kg  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
default = here.parent.parent / "docs" / "img"
out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else (default if default.parent.is_dir() else pathlib.Path("."))
out.mkdir(parents=True, exist_ok=True)



def save_small(fig, path):
    """Saves ``fig`` as a 64-colour palette PNG (a few tens of kB)."""
    import io

    from PIL import Image  # comes with matplotlib

    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    buf.seek(0)
    Image.open(buf).convert("RGB").quantize(64).save(path, optimize=True)


ds = kg.datasets.mutag()
k = kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), q=0.05, normalize=True, backend="cpu")
K = k(ds.graphs)
order = np.argsort(ds.y, kind="stable")
Ks = K[np.ix_(order, order)]

fig, ax = plt.subplots(figsize=(3.6, 3.2), dpi=100)
im = ax.imshow(Ks, cmap="viridis", interpolation="nearest")
split = int(np.sum(ds.y[order] == ds.y[order][0]))
ax.axhline(split - 0.5, color="w", lw=0.6)
ax.axvline(split - 0.5, color="w", lw=0.6)
ax.set_title("MUTAG: normalized MGK Gram", fontsize=9)
ax.set_xlabel("graph (sorted by class)", fontsize=8)
ax.tick_params(labelsize=7)
fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04).ax.tick_params(labelsize=7)
fig.tight_layout()
save_small(fig, out / "mutag_gram.png")

Z = KernelPCA(n_components=2, kernel="precomputed").fit_transform(K)
fig, ax = plt.subplots(figsize=(3.6, 3.2), dpi=100)
for label, colour in zip(np.unique(ds.y), ("tab:blue", "tab:orange")):
    sel = ds.y == label
    ax.scatter(Z[sel, 0], Z[sel, 1], s=8, c=colour, label=f"class {int(label)}")
ax.set_title("MUTAG: kernel PCA", fontsize=9)
ax.set_xlabel("component 1", fontsize=8)
ax.set_ylabel("component 2", fontsize=8)
ax.tick_params(labelsize=7)
ax.legend(fontsize=7)
fig.tight_layout()
save_small(fig, out / "mutag_kpca.png")
print(f"wrote {out / 'mutag_gram.png'} and {out / 'mutag_kpca.png'}")
