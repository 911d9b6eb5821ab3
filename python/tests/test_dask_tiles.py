"""Tiles and the Dask path equal the single-process Gram."""

import numpy as np
import pytest

import kronograph as kg
import kronograph.dask


def kernel(normalize):
    return kg.MarginalizedGraphKernel(
        kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), backend="cpu", normalize=normalize, n_jobs=1
    )


def test_gram_tiles_assemble(mutag):
    g = mutag.graphs[:23]
    for normalize in (False, True):
        k = kernel(normalize)
        ref = k(g)
        tiles = list(k.gram_tiles(g, tile=7))
        assert len(tiles) == 10  # 4 row blocks: 4 + 3 + 2 + 1 tiles on and above the diagonal
        np.testing.assert_allclose(kg.assemble(23, 23, tiles, symmetric=True), ref, rtol=1e-12)
        xy = kg.assemble(10, 13, k.gram_tiles(g[:10], g[10:], tile=4))
        np.testing.assert_allclose(xy, ref[:10, 10:], rtol=1e-12)


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_dask_equals_single_process(client, mutag, tmp_path):
    g = mutag.graphs[:30]
    for normalize in (False, True):
        k = kernel(normalize)
        ref = k(g)
        arr = kronograph.dask.gram(k, g, client=client, tile=8)
        np.testing.assert_allclose(arr.compute(), ref, rtol=1e-12)
        out = tmp_path / f"k{int(normalize)}.npy"
        assert kronograph.dask.gram(k, g, client=client, tile=8, out=out) == str(out)
        np.testing.assert_allclose(np.load(out), ref, rtol=1e-12)
    k = kernel(True)
    xy = kronograph.dask.gram(k, g[:11], g[11:], client=client, tile=5).compute()
    np.testing.assert_allclose(xy, k(g[:11], g[11:]), rtol=1e-12)
    assert len(client.scheduler_info()["workers"]) == 2


def test_zarr_output_without_zarr_says_what_to_install(mutag, tmp_path):
    """``out=".zarr"`` without the zarr package: an ImportError naming the
    package, before any work (the CI environment has no zarr)."""
    import importlib.util

    if importlib.util.find_spec("zarr") is not None:
        pytest.skip("zarr is installed")
    with pytest.raises(ImportError, match="pip install zarr"):
        kronograph.dask.gram(kernel(False), mutag.graphs[:3], out=tmp_path / "K.zarr")
    assert not (tmp_path / "K.zarr").exists()


def test_default_tile_gives_every_worker_thread_many_tiles():
    from kronograph.dask import _default_tile

    for n, threads in [(1000, 1), (1000, 2), (5000, 16), (100_000, 64)]:
        t = _default_tile(n, n, threads)
        side = -(-n // t)
        assert 16 <= t <= 256
        # the upper triangle's tiles: at least 16 per thread unless tiles are at their minimum size
        assert side * (side + 1) // 2 >= 16 * threads or t == 16, (n, threads, t)
    assert _default_tile(40, 40, 8) == 16


def test_worker_envs_pin_one_device_each():
    from kronograph.dask import _worker_envs

    pinned = [e["CUDA_VISIBLE_DEVICES"] for e in _worker_envs(4)]
    assert pinned == ["0", "1", "2", "3"]
    assert all(e["KRONOGRAPH_DEVICES"] == "0" for e in _worker_envs(4))
    assert [e["CUDA_VISIBLE_DEVICES"] for e in _worker_envs(4, [2, 0])] == ["2", "0"]
    # this process's own CUDA_VISIBLE_DEVICES: ordinal i is its i-th entry
    assert [e["CUDA_VISIBLE_DEVICES"] for e in _worker_envs(2, visible="5, GPU-abc")] == ["5", "GPU-abc"]
    assert _worker_envs(0) == []  # no GPU: no GPU worker
    assert _worker_envs(4, []) == []
    for bad in ([4], [0, 0], "some", [-1]):
        with pytest.raises(ValueError):
            _worker_envs(4, bad)
    with pytest.raises(ValueError, match="below the 0 CUDA"):
        _worker_envs(0, [0])


def test_local_cluster_pins_workers_or_falls_back_to_cpu(mutag, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    import os

    g = mutag.graphs[:20]
    k = kernel(False)
    ref = k(g)
    if kg.cuda_status()["devices"] == 0:
        # no GPU: CPU workers, the Gram as in one process
        with kronograph.dask.local_cluster(cpu_workers=2) as cluster, distributed.Client(cluster) as c:
            assert sorted(c.scheduler_info()["workers"][w]["name"] for w in c.scheduler_info()["workers"]) == [
                "cpu-0",
                "cpu-1",
            ]
            np.testing.assert_allclose(kronograph.dask.gram(k, g, client=c, tile=6).compute(), ref, rtol=1e-12)
    # as on a host with two GPUs: one worker per device, each seeing only its own
    monkeypatch.setattr(kg, "cuda_status", lambda: {"nvrtc": True, "devices": 2, "error": None})
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    with kronograph.dask.local_cluster() as cluster, distributed.Client(cluster) as c:
        seen = c.run(lambda: (os.environ.get("CUDA_VISIBLE_DEVICES"), os.environ.get("KRONOGRAPH_DEVICES")))
        names = {c.scheduler_info()["workers"][w]["name"]: v for w, v in seen.items()}
        assert names == {"gpu-0": ("0", "0"), "gpu-1": ("1", "0")}
        # the CPU kernel still computes there (a worker without that device falls back in "auto")
        np.testing.assert_allclose(kronograph.dask.gram(k, g, client=c, tile=6).compute(), ref, rtol=1e-12)
