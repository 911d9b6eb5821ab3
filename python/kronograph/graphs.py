"""Graphs: converted once from networkx, numpy/scipy.sparse or TU folders
into the native form (:class:`kronograph.Graph`), then reused across calls.

A :class:`Graph` pickles as a few flat byte strings, so it travels cheaply
to Dask workers.  Field kinds follow the values: integers (and booleans)
become ``int`` fields (for :class:`KroneckerDelta`), reals ``float`` fields,
fixed-length real vectors ``array`` fields.
"""

import collections
import numbers

import numpy as np

from ._native import Graph
from ._native import read_dataset as _read_dataset

__all__ = ["Graph", "from_networkx", "from_scipy", "read_tu", "as_graphs", "TUDataset"]

TUDataset = collections.namedtuple("TUDataset", ["name", "graphs", "y"])
TUDataset.__doc__ = "A data set read by :func:`read_tu`: its name, its graphs and the graph labels (or None)."


def _column(values, what):
    """``(kind, width, bytes)`` of one field's values."""
    try:
        a = np.asarray(values)
    except ValueError:
        raise ValueError(f"{what}: values of different lengths; vector fields need one length") from None
    if a.dtype == object or a.dtype.kind in "USV":
        kinds = sorted({type(v).__name__ for v in values})
        raise TypeError(
            f"{what} has values of type {', '.join(kinds)}; kronograph needs integers, reals or "
            "fixed-length real vectors (encode categories as integers)"
        )
    if a.ndim == 1 and a.dtype.kind in "biu":
        return "int", 1, a.astype("<i8").tobytes()
    if a.ndim == 1 and a.dtype.kind == "f":
        return "float", 1, a.astype("<f8").tobytes()
    if a.ndim == 2 and a.dtype.kind in "biuf" and a.shape[1] > 0:
        return "array", int(a.shape[1]), np.ascontiguousarray(a, dtype="<f8").tobytes()
    raise TypeError(f"{what}: values of shape {a.shape[1:]} and dtype {a.dtype}; expected scalars or 1-D vectors")


def _fields(columns, count, what):
    out = []
    for name, values in columns.items():
        if len(values) != count:
            raise ValueError(f"{what} field {name!r}: {len(values)} values for {count} {what}s")
        kind, width, data = _column(values, f"{what} field {name!r}")
        out.append((str(name), kind, width, data))
    return out


def from_networkx(g, node_attrs=None, edge_attrs=None, weight=None, start=None):
    """A :class:`Graph` from a networkx ``Graph`` or ``DiGraph``.

    Nodes are numbered in the order of ``g.nodes``.

    :param node_attrs: names of the node attributes to keep as fields
        (default: every attribute that all nodes have).
    :param edge_attrs: names of the edge attributes to keep (default: every
        attribute that all edges have).
    :param weight: name of an edge attribute to use as the edge weight
        (default: weight 1 everywhere).
    :param start: name of a node attribute holding start probabilities.
    :raises ValueError, TypeError: a missing attribute, a value that is not a
        number or a vector; :class:`kronograph.GraphError` for invalid weights.
    """
    if g.is_multigraph():
        raise TypeError("multigraphs are not supported: merge parallel edges first (e.g. nx.Graph(g))")
    nodes = list(g.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    edges = list(g.edges(data=True))

    def pick(items, names, what):
        dicts = [d for d in items]
        if names is None:
            common = set(dicts[0]) if dicts else set()
            for d in dicts[1:]:
                common &= set(d)
            names = [k for k in (dicts[0] if dicts else []) if k in common]
        cols = {}
        for name in names:
            try:
                cols[name] = [d[name] for d in dicts]
            except KeyError:
                missing = next(i for i, d in enumerate(dicts) if name not in d)
                raise ValueError(f"{what} attribute {name!r} is missing on {what} number {missing}") from None
        return cols

    node_cols = pick([g.nodes[v] for v in nodes], node_attrs, "node")
    edge_cols = pick([d for _, _, d in edges], edge_attrs, "edge")
    src = np.array([index[u] for u, _, _ in edges], dtype="<i8")
    dst = np.array([index[v] for _, v, _ in edges], dtype="<i8")
    if weight is None:
        w = np.ones(len(edges))
    else:
        try:
            w = np.array([d[weight] for _, _, d in edges], dtype="<f8")
        except KeyError:
            raise ValueError(f"weight attribute {weight!r} is missing on some edges") from None
    p = None
    if start is not None:
        p = np.array([g.nodes[v][start] for v in nodes], dtype="<f8").tobytes()
    return Graph(
        len(nodes),
        bool(g.is_directed()),
        src.tobytes(),
        dst.tobytes(),
        w.astype("<f8").tobytes(),
        _fields(node_cols, len(nodes), "node"),
        _fields(edge_cols, len(edges), "edge"),
        p,
    )


def from_scipy(adjacency, node_labels=None, edge_labels=None, directed=False, start=None):
    """A :class:`Graph` from an adjacency matrix (scipy.sparse or a dense numpy array).

    Stored entries are edges, their values the weights (use ``1`` for an
    unweighted graph).  An undirected graph (``directed=False``) needs a
    symmetric matrix; its upper triangle is read.

    :param node_labels: ``{name: array of n values (or n x k)}``.
    :param edge_labels: ``{name: matrix}`` with the adjacency's sparsity
        pattern, the label of edge ``(i, j)`` at ``[i, j]``.
    :param start: start probabilities, an array of ``n`` values.
    """
    import scipy.sparse as sp

    a = sp.csr_matrix(adjacency) if not sp.issparse(adjacency) else adjacency.tocsr()
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"the adjacency matrix must be square, not {a.shape}")
    n = a.shape[0]
    a.sum_duplicates()
    if not directed:
        asym = a - a.T
        if asym.count_nonzero():
            raise ValueError("the adjacency matrix is not symmetric: pass directed=True for a directed graph")
        a = sp.triu(a).tocsr()
    coo = a.tocoo()
    rows, cols = coo.row.astype("<i8"), coo.col.astype("<i8")
    edge_cols = {}
    for name, m in (edge_labels or {}).items():
        m = sp.csr_matrix(m) if not sp.issparse(m) else m.tocsr()
        if m.shape != a.shape:
            raise ValueError(f"edge field {name!r}: a {m.shape} matrix for a {a.shape} adjacency matrix")
        edge_cols[name] = np.asarray(m[rows, cols]).ravel()
    node_cols = {k: np.asarray(v) for k, v in (node_labels or {}).items()}
    p = None if start is None else np.asarray(start, dtype="<f8").tobytes()
    return Graph(
        n,
        bool(directed),
        rows.tobytes(),
        cols.tobytes(),
        np.asarray(coo.data, dtype="<f8").tobytes(),
        _fields(node_cols, n, "node"),
        _fields(edge_cols, len(rows), "edge"),
        p,
    )


def read_tu(path, weight=None):
    """Reads a TU Dortmund data set folder (or a Matrix Market file, or an edge list).

    :param weight: an edge field to use as the weights (e.g. ``"attr0"``).
    :returns: a :class:`TUDataset` ``(name, graphs, y)``; ``y`` is a numpy
        array of graph labels, or ``None``.
    :raises kronograph.FileError: naming the file, the line and what was expected.
    """
    graphs, y, name = _read_dataset(str(path), weight)
    return TUDataset(name, graphs, None if y is None else np.asarray(y))


def as_graphs(x, what="X"):
    """A list of :class:`Graph` from a sequence of graphs (native or networkx)."""
    if isinstance(x, Graph):
        raise TypeError(f"{what} must be a sequence of graphs, not a single Graph (wrap it in a list)")
    try:
        items = list(x)
    except TypeError:
        raise TypeError(f"{what} must be a sequence of graphs, not {type(x).__name__}") from None
    out = []
    for i, g in enumerate(items):
        if isinstance(g, Graph):
            out.append(g)
        elif hasattr(g, "is_multigraph") and hasattr(g, "nodes"):
            out.append(from_networkx(g))
        elif isinstance(g, numbers.Number) or isinstance(g, (str, bytes)):
            raise TypeError(f"{what}[{i}] is a {type(g).__name__}, not a graph")
        else:
            raise TypeError(
                f"{what}[{i}] is a {type(g).__name__}; expected a kronograph.Graph or a networkx graph "
                "(convert with kronograph.from_networkx / from_scipy once, then reuse)"
            )
    return out
