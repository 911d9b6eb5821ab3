"""The examples run from any directory (MUTAG ships in the wheel)."""

import pathlib
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_gram_pictures_runs_from_another_directory(tmp_path):
    out = tmp_path / "img"
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "gram_pictures.py"), str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    for name in ("mutag_gram.png", "mutag_kpca.png"):
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and 1000 < len(data) < 200_000


def test_shipped_mutag_equals_the_repository_copy():
    import kronograph as kg

    shipped = kg.datasets.mutag()
    repo = kg.read_tu(pathlib.Path(__file__).resolve().parents[2] / "data" / "MUTAG")
    assert len(shipped.graphs) == 188 and all(a == b for a, b in zip(shipped.graphs, repo.graphs))
    assert (shipped.y == repo.y).all()


def test_graphdot_port_runs_and_learns(tmp_path):
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "graphdot_port.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stderr
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)
    rmse, _, base = lines["test"].split()[1], None, lines["test"].split()[-1].rstrip(")")
    assert float(rmse) < float(base), r.stdout  # better than predicting the mean
    assert "nodal similarity (17, 13)" in r.stdout
