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
    assert float(rmse) < 0.6 * float(base), r.stdout  # better than predicting the mean
    assert "nodal similarity (12, 13)" in r.stdout


def _code_lines(path):
    """The script's code lines: no docstring, comments or blank lines."""
    text = path.read_text()
    body = text.split('"""', 2)[2] if text.lstrip().startswith('"""') else text
    out = []
    for line in body.splitlines():
        code = line.split("  #", 1)[0].rstrip()
        if code.strip() and not code.lstrip().startswith("#"):
            out.append(code)
    return out


# (GraphDot, kronograph) fragments of the changes a port may make; each is a
# row of docs/PYTHON.md's migration table (checked below)
MIGRATIONS = [
    ("from graphdot import Graph", "import kronograph as kg"),
    ("from graphdot.kernel.marginalized import MarginalizedGraphKernel", "from kronograph import MarginalizedGraphKernel"),
    ("from graphdot.microkernel import", "from kronograph import"),
    ("import Uniform", "p_bounds="),
    ("Uniform(", "p_bounds="),
    ("from graphdot.model.gaussian_process import GaussianProcessRegressor", "from sklearn.gaussian_process import"),
    ("Graph.from_networkx(", "kg.from_networkx("),
    ("Graph.from_networkx(", "dtype=object"),
    ("MicroKernel.from_sympy(", "kg.expr("),
    ("Laplacian(h=", "kg.expr("),
    ("optimizer=True", "n_restarts_optimizer="),
    ("repeat=", "n_restarts_optimizer="),
    ("repeat=", "gpr.fit("),
    ("gpr.kernel", "gpr.kernel_"),
]


def test_graphdot_port_changes_only_what_the_migration_table_lists():
    import difflib

    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "PYTHON.md").read_text()
    table = doc.split("## GraphDot → kronograph", 1)[1]
    rows = [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in table.splitlines() if line.startswith("| ")]
    for g, k in MIGRATIONS:
        assert any(g in r[0] and k in r[1] for r in rows if len(r) >= 2), f"no migration row for {g!r} -> {k!r}"
    orig, port = _code_lines(EXAMPLES / "graphdot_original.py"), _code_lines(EXAMPLES / "graphdot_port.py")
    assert len(port) <= len(orig), (len(port), len(orig))
    changed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, orig, port, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for line in orig[i1:i2]:
            assert any(g in line for g, _ in MIGRATIONS), f"GraphDot line changed without a migration row: {line!r}"
            changed += 1
        for line in port[j1:j2]:
            assert any(k in line for _, k in MIGRATIONS), f"port line without a migration row: {line!r}"
    assert 5 <= changed <= 16, changed  # the imports, the kernel's construction and the GPR calls
