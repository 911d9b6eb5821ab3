"""Data sets shipped in the wheel, so that examples run from any directory.

MUTAG (188 molecules, node labels: atom type, edge labels: bond type; graph
labels: mutagenic or not) is the TU Dortmund benchmark set (see
``MUTAG/README.txt`` for its source and licence).
"""

import pathlib

__all__ = ["mutag", "path"]


def path(name: str = "MUTAG") -> pathlib.Path:
    """The folder of a shipped data set (``"MUTAG"``)."""
    p = pathlib.Path(__file__).resolve().parent / name
    if not p.is_dir():
        shipped = sorted(q.name for q in p.parent.iterdir() if q.is_dir())
        raise FileNotFoundError(f"no shipped data set {name!r}; shipped: {shipped}")
    return p


def mutag():
    """MUTAG as a :class:`kronograph.TUDataset` ``(name, graphs, y)``: 188
    graphs with node field ``label`` (atom type) and edge field ``label``
    (bond type), ``y`` in {-1, 1}."""
    from ..graphs import read_tu

    return read_tu(path("MUTAG"))
