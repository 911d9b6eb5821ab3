"""Gram matrices over a Dask cluster: tiles computed on the workers.

::

    from dask.distributed import Client
    client = Client("tcp://scheduler:8786")        # or LocalCluster(n_workers=2)
    K = kronograph.dask.gram(kernel, graphs, client=client)            # a dask.array
    kronograph.dask.gram(kernel, graphs, client=client, out="K.npy")   # or a .npy file

Every tile ``K(X[rows], Y[cols])`` is one task; graphs travel pickled (a few
flat byte strings each), one copy per block of rows or columns.  A symmetric
Gram (``Y`` None) computes only the tiles on and above the diagonal.  On a
multi-node cluster, install the same wheel on every worker; give each worker
``--nthreads 1`` and let kronograph use the worker machine's cores
(``n_jobs`` of the kernel, default all), or run several single-threaded
workers per machine with ``n_jobs=1``.

On one host with several GPUs, :func:`local_cluster` starts one worker
process per GPU, each pinned to its device::

    from dask.distributed import Client
    client = Client(kronograph.dask.local_cluster())   # one worker per visible GPU
    K = kronograph.dask.gram(kernel, graphs, client=client)

(the kernel with ``backend="auto"`` or ``"cuda"``: each worker sees only its
own GPU, as device 0).  Without a GPU the same call starts CPU workers.
"""

import importlib.util
import math
import os
import tempfile
from typing import Any, Optional, Sequence, Union

import numpy as np

from .graphs import as_graphs
from .tiles import tile_grid

__all__ = ["gram", "local_cluster"]


def _raw_diag(kernel, graphs):
    return kernel.raw_diag(graphs)


def _tile(kernel, x, y, dx, dy):
    return kernel.tile(x, y, dx, dy)


def _threads(client):
    """Worker threads of ``client`` (4 when unknown)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # no client, or not a distributed one
        return 4


def _default_tile(n, m, threads):
    """Graphs per tile side: about 32 tiles per worker thread, so that tiles
    of unequal cost (diagonal tiles hold half the pairs) even out over the
    workers, and 16 to 256 graphs a side."""
    side = max(1, math.ceil(math.sqrt(64 * threads)))  # side² / 2 tiles ≈ 32 per thread
    return max(16, min(256, -(-max(n, m) // side)))


def gram(
    kernel: Any,
    X: Sequence[Any],
    Y: Optional[Sequence[Any]] = None,
    client: Any = None,
    tile: Optional[int] = None,
    out: Optional[str] = None,
) -> Any:
    """The Gram matrix ``kernel(X, Y)`` computed tile by tile with Dask.

    :param kernel: a :class:`kronograph.MarginalizedGraphKernel` (any kernel
        with ``tile`` and ``raw_diag`` methods).
    :param client: a ``dask.distributed.Client``; ``None`` uses Dask's
        current scheduler.
    :param tile: graphs per tile side (default: about 32 tiles per worker
        thread of ``client``, 16 to 256 graphs a side).
    :param out: ``None`` returns a lazy ``dask.array``; a path ending in
        ``.npy`` computes and writes it (written to a temporary file and
        renamed, so a failed run leaves no partial file) and returns the path;
        ``.zarr`` writes a zarr array (needs the ``zarr`` package).
    """
    import dask
    import dask.array as da

    if out is not None and str(out).endswith(".zarr") and importlib.util.find_spec("zarr") is None:
        raise ImportError(
            f"out = {out!r} writes a zarr array, which needs the zarr package: pip install zarr "
            "(or write out='K.npy', which needs nothing more)"
        )
    x = as_graphs(X, "X")
    symmetric = Y is None
    y = x if symmetric else as_graphs(Y, "Y")
    n, m = len(x), len(y)
    tile = _default_tile(n, m, _threads(client)) if tile is None else int(tile)
    grid = tile_grid(n, m, tile, symmetric=symmetric)
    row_starts = list(range(0, n, tile))
    col_starts = list(range(0, m, tile))
    xb = {a: dask.delayed(x[a : a + tile], traverse=False) for a in row_starts}
    yb = xb if symmetric else {b: dask.delayed(y[b : b + tile], traverse=False) for b in col_starts}
    if kernel.normalize:
        dx = {a: dask.delayed(_raw_diag)(kernel, xb[a]) for a in row_starts}
        dy = dx if symmetric else {b: dask.delayed(_raw_diag)(kernel, yb[b]) for b in col_starts}
    else:
        dx = {a: None for a in row_starts}
        dy = {b: None for b in col_starts}
    tiles = {}
    for rows, cols in grid:
        a, b = rows.start, cols.start
        tiles[a, b] = dask.delayed(_tile, pure=True)(kernel, xb[a], yb[b], dx[a], dy[b])

    if out is not None and str(out).endswith(".npy"):
        return _write_npy(tiles, n, m, tile, symmetric, client, str(out))

    blocks = []
    for a in row_starts:
        row = []
        for b in col_starts:
            shape = (min(tile, n - a), min(tile, m - b))
            if (a, b) in tiles:
                row.append(da.from_delayed(tiles[a, b], shape=shape, dtype=float))
            else:  # below the diagonal of a symmetric Gram
                row.append(da.from_delayed(tiles[b, a], shape=shape[::-1], dtype=float).T)
        blocks.append(row)
    arr = da.block(blocks) if blocks else da.zeros((n, m))
    if out is not None:
        if not str(out).endswith(".zarr"):
            raise ValueError(f"out = {out!r}: expected a path ending in .npy or .zarr, or None")
        if client is not None:
            arr.to_zarr(str(out), compute=True)
        else:
            da.to_zarr(arr, str(out))
        return str(out)
    return arr


def _write_npy(tiles, n, m, tile, symmetric, client, path):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(suffix=".npy", dir=folder)
    os.close(fd)
    try:
        k = np.lib.format.open_memmap(tmp, mode="w+", dtype="<f8", shape=(n, m))
        keys = list(tiles)
        if client is not None:
            from dask.distributed import as_completed

            futures = client.compute([tiles[key] for key in keys])
            where = {f.key: key for f, key in zip(futures, keys)}
            for fut in as_completed(futures):
                _put(k, where[fut.key], fut.result(), tile, symmetric)
        else:
            import dask

            for key, block in zip(keys, dask.compute(*[tiles[key] for key in keys])):
                _put(k, key, block, tile, symmetric)
        k.flush()
        del k
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path


def _put(k, key, block, tile, symmetric):
    a, b = key
    r, c = block.shape
    k[a : a + r, b : b + c] = block
    if symmetric and a != b:
        k[b : b + c, a : a + r] = block.T


def _worker_envs(count, devices="all", visible=None):
    """The environment of each GPU worker of :func:`local_cluster`: one per
    device of ``devices`` (``"all"`` or ordinals below ``count``, the number
    of devices this process sees), each with ``CUDA_VISIBLE_DEVICES`` naming
    only that device (its entry of ``visible``, this process's own
    ``CUDA_VISIBLE_DEVICES``, when that is set) and ``KRONOGRAPH_DEVICES=0``
    (so that ``backend="auto"`` uses it)."""
    if isinstance(devices, str):
        if devices != "all":
            raise ValueError(f"devices = {devices!r}: expected 'all' or a list of device ordinals")
        ordinals = list(range(count))
    else:
        ordinals = [int(d) for d in devices]
        if len(set(ordinals)) != len(ordinals):
            raise ValueError(f"devices = {devices!r}: an ordinal is named twice")
        bad = [d for d in ordinals if not 0 <= d < count]
        if bad:
            raise ValueError(
                f"devices = {devices!r}: ordinal {bad[0]} is not below the {count} CUDA device(s) this process sees"
            )
    names = [v.strip() for v in visible.split(",") if v.strip()] if visible else None
    if names is not None and len(names) < count:
        names = None  # a list the driver did not follow: keep the ordinals
    return [
        {"CUDA_VISIBLE_DEVICES": names[d] if names else str(d), "KRONOGRAPH_DEVICES": "0"}
        for d in ordinals
    ]


def local_cluster(
    devices: Union[str, Sequence[int]] = "all",
    cpu_workers: int = 2,
    threads_per_worker: int = 1,
    **scheduler_options: Any,
) -> Any:
    """A ``dask.distributed`` cluster on this host with one worker process per
    GPU, each pinned to its device (``CUDA_VISIBLE_DEVICES`` naming only it,
    so a kernel with ``backend="auto"``, ``"cuda"`` or ``"cuda:0"`` runs
    there); without a usable GPU (or with ``devices=[]``), ``cpu_workers``
    CPU worker processes instead.

    :param devices: ``"all"`` (every device :func:`kronograph.cuda_status`
        counts) or a list of device ordinals.
    :param cpu_workers: workers when there is no GPU.
    :param threads_per_worker: threads of each worker (1: a worker runs one
        tile at a time and the tile uses its whole device, or on the CPU the
        kernel's ``n_jobs`` cores).
    :param scheduler_options: passed to the scheduler (no dashboard
        unless ``dashboard_address`` is given).

    Workers are named ``gpu-<ordinal>`` (``cpu-<k>`` without a GPU). Use it
    with ``dask.distributed.Client(cluster)``; close the client and the
    cluster when done (both are context managers).
    """
    from dask.distributed import Nanny, Scheduler, SpecCluster

    from . import cuda_status

    count = cuda_status()["devices"]
    envs = _worker_envs(count, devices, os.environ.get("CUDA_VISIBLE_DEVICES"))
    if envs:
        ordinals = list(range(count)) if devices == "all" else [int(d) for d in devices]
        specs = {
            f"gpu-{d}": {"cls": Nanny, "options": {"nthreads": threads_per_worker, "env": env}}
            for d, env in zip(ordinals, envs)
        }
    else:
        if int(cpu_workers) < 1:
            raise ValueError(f"cpu_workers = {cpu_workers!r}: expected at least 1")
        specs = {
            f"cpu-{k}": {"cls": Nanny, "options": {"nthreads": threads_per_worker}} for k in range(int(cpu_workers))
        }
    options = {"dashboard": "dashboard_address" in scheduler_options, **scheduler_options}
    return SpecCluster(workers=specs, scheduler={"cls": Scheduler, "options": options})
