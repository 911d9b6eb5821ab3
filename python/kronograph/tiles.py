"""Splitting a Gram matrix into tiles that are computed independently
(:meth:`MarginalizedGraphKernel.gram_tiles`, :mod:`kronograph.dask`) and
putting them back together."""

import numpy as np

__all__ = ["tile_grid", "assemble"]


def tile_grid(n, m, tile, symmetric=False):
    """The ``(rows, cols)`` slices of a ``n x m`` matrix cut into ``tile x tile``
    tiles (smaller at the edges); only tiles on or above the diagonal when
    ``symmetric``."""
    tile = int(tile)
    if tile < 1:
        raise ValueError(f"tile = {tile}: give a tile size of at least 1")
    if symmetric and n != m:
        raise ValueError(f"a symmetric grid needs a square matrix, not {n} x {m}")
    out = []
    for a in range(0, n, tile):
        for b in range(a if symmetric else 0, m, tile):
            out.append((slice(a, min(a + tile, n)), slice(b, min(b + tile, m))))
    return out


def assemble(n, m, tiles, symmetric=False, out=None):
    """Writes ``(rows, cols, block)`` tiles into an ``n x m`` array (``out`` or
    a new one), mirroring off-diagonal tiles when ``symmetric``."""
    k = np.empty((n, m)) if out is None else out
    for rows, cols, block in tiles:
        k[rows, cols] = block
        if symmetric and rows != cols:
            k[cols, rows] = block.T
    return k
