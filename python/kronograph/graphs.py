"""Graphs: converted once from networkx, numpy/scipy.sparse or TU folders
into the native form (:class:`kronograph.Graph`), then reused across calls.

A :class:`Graph` pickles as a few flat byte strings, so it travels cheaply
to Dask workers.  Field kinds follow the values: integers (and booleans)
become ``int`` fields (for :class:`KroneckerDelta`), reals ``float`` fields,
fixed-length real vectors ``array`` fields, and sets (``set``,
``frozenset``) or integer sequences of different lengths ``set`` fields
(multisets of integers, for :class:`Convolution`).  A NaN, a missing value
or a value of another type is an error naming the node (or edge) and the
field.

Weights: every entry point (:func:`from_networkx`, the kernels' automatic
conversion of networkx graphs, the algorithms) reads the networkx edge
attribute ``weight`` when every edge has it, uses weight 1 when no edge has
it, and refuses a graph where only some edges have it.

Converting a networkx graph costs time.  The algorithms convert a networkx
graph once and keep the result in the graph's own cache
(``g.__networkx_cache__``, networkx >= 3.3, under
``nx.config.cache_converted_graphs``, as networkx keeps the graphs its
backends convert; see :func:`structure`): networkx clears it when the graph
changes through its methods, and a weight changed in place is caught.  The
kernels convert networkx graphs at each call (their labels can change in
place without a trace): for repeated calls, convert once with
:func:`as_graphs` or :func:`from_networkx` and pass the :class:`Graph` list.

A :class:`Graph` converts back: ``g.labels`` and ``g.edge_labels`` (dicts of
numpy arrays), ``g.edges`` (``(m, 2)`` int64), ``g.weights``, ``g.start``,
``g.to_networkx()``; ``==`` compares values.
"""

import collections
import itertools
import numbers
import operator
import os
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np

from ._native import Graph
from ._native import read_dataset as _read_dataset

__all__ = ["Graph", "from_networkx", "from_scipy", "read_tu", "as_graphs", "TUDataset"]

TUDataset = collections.namedtuple("TUDataset", ["name", "graphs", "y"])
TUDataset.__doc__ = "A data set read by :func:`read_tu`: its name, its graphs and the graph labels (or None)."


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer, np.bool_))


def _set_column(values, what, item):
    """A ``set`` field: each value a set (or a sequence) of integers."""
    out = []
    for i, v in enumerate(values):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
            raise TypeError(f"{what}: {item} {i} has {v!r}; a set field needs a set or sequence of integers on every {item}")
        elems = list(v)
        if not all(_is_int(e) for e in elems):
            raise TypeError(
                f"{what}: {item} {i} has {v!r}; sets and variable-length fields must hold integers "
                "(kronograph's set fields are multisets of int64; encode other elements as integers)"
            )
        out.append(len(elems))
        out.extend(int(e) for e in elems)
    return "set", 0, np.asarray(out, dtype="<i8").tobytes()


def _column(values, what, item="node"):
    """``(kind, width, bytes)`` of one field's values."""
    values = list(values)
    if values and all(isinstance(v, (set, frozenset)) for v in values):
        return _set_column(values, what, item)
    try:
        a = np.asarray(values)
    except ValueError:
        a = None
    if a is None or (a.dtype == object and all(isinstance(v, (set, frozenset, list, tuple, np.ndarray)) for v in values)):
        # sequences of different lengths: integer multisets
        return _set_column(values, what, item)
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        bad = np.argwhere(~np.isfinite(a.reshape(len(values), -1)))[0][0]
        raise ValueError(f"{what}: {item} {bad} has {values[bad]!r}; values must be finite numbers")
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
        kind, width, data = _column(values, f"{what} field {name!r}", what)
        out.append((str(name), kind, width, data))
    return out


def _nx_weights(edges, weight):
    """The weights of ``edges`` (``(u, v, data)``) by the package's one rule
    (see the module documentation)."""
    if weight is None:
        return np.ones(len(edges))
    have = [weight in d for _, _, d in edges]
    if not any(have):
        return np.ones(len(edges))
    if not all(have):
        u, v, _ = edges[have.index(False)]
        raise ValueError(
            f"edge ({u!r}, {v!r}) has no {weight!r} attribute but other edges do: give every edge a weight, "
            "or pass weight=None to ignore the weights"
        )
    w = np.array([d[weight] for _, _, d in edges], dtype="<f8")
    bad = np.flatnonzero(~np.isfinite(w))
    if bad.size:
        u, v, _ = edges[bad[0]]
        raise ValueError(f"edge ({u!r}, {v!r}) has weight {w[bad[0]]!r}; weights must be finite")
    return w


def _cache_enabled(g):
    cache = getattr(g, "__networkx_cache__", None)
    if not isinstance(cache, dict):
        return None
    try:
        import networkx as nx

        on = bool(getattr(getattr(nx, "config", None), "cache_converted_graphs", True))
    except ImportError:  # pragma: no cover - a networkx graph without networkx
        on = False
    return cache if on else None


def _edge_dicts(g):
    """The edge data dicts of ``g`` in the order of ``g.edges`` (the dicts
    themselves, which in-place attribute changes modify)."""
    nodes = list(g.nodes)
    return [d for _, _, d in _nx_edges(g, nodes, {v: i for i, v in enumerate(nodes)})[0]]


def structure(g: Any, weight: Optional[str] = "weight") -> Graph:
    """The structure and weights of the networkx graph ``g`` as a
    :class:`Graph` without labels (what the algorithms read), converted once
    and kept in networkx's cache of ``g`` (``g.__networkx_cache__``,
    networkx >= 3.3, under ``nx.config.cache_converted_graphs``).  networkx
    clears that cache when ``g`` changes through its methods; a weight
    changed in place (``g.edges[u, v]["weight"] = 2``, ``del ...``) is
    caught by re-reading the weights from the edges' data dicts, a C-level
    pass several times quicker than a conversion."""
    cache = _cache_enabled(g)
    key = ("kronograph.structure", weight)
    if cache is not None and key in cache:
        graph, dicts, w = cache[key]
        if weight is None or _weights_now(dicts, weight) == w:
            return graph
    graph = from_networkx(g, node_attrs=[], edge_attrs=[], weight=weight)
    if cache is not None:
        dicts = _edge_dicts(g) if weight is not None else None
        cache[key] = (graph, dicts, None if dicts is None else _weights_now(dicts, weight))
    return graph


def _weights_now(dicts, weight):
    """The ``weight`` values of the edge dicts as they are now (``None``
    where missing), compared by value with those at the conversion."""
    return list(map(operator.methodcaller("get", weight), dicts))


def _nx_edges(g, nodes, index):
    """``(edges, src, dst)``: the edges ``(u, v, data)`` in the order of
    ``g.edges`` and their node numbers, read from the adjacency dicts with
    C-level iteration (several times quicker than ``g.edges(data=True)`` on
    large graphs).  An undirected edge is listed once, at its endpoint that
    comes first (as networkx lists it)."""
    adj = getattr(g, "_adj", None)
    if not isinstance(adj, dict):
        edges = list(g.edges(data=True))
        src = np.fromiter((index[u] for u, _, _ in edges), dtype="<i8", count=len(edges))
        dst = np.fromiter((index[v] for _, v, _ in edges), dtype="<i8", count=len(edges))
        return edges, src, dst
    nbrs = list(adj.values())
    deg = np.fromiter(map(len, nbrs), dtype=np.int64, count=len(nbrs))
    heads = list(itertools.chain.from_iterable(nbrs))
    data = list(itertools.chain.from_iterable(map(dict.values, nbrs)))
    dst = np.fromiter(map(index.__getitem__, heads), dtype="<i8", count=len(heads))
    src = np.repeat(np.arange(len(nbrs), dtype="<i8"), deg)
    if not g.is_directed():
        keep = np.flatnonzero(dst >= src)
        src, dst = src[keep], dst[keep]
        pick = keep.tolist()
        heads = list(map(heads.__getitem__, pick))
        data = list(map(data.__getitem__, pick))
    edges = list(zip(map(nodes.__getitem__, src.tolist()), heads, data))
    return edges, src, dst


def from_networkx(
    g: Any,
    node_attrs: Optional[Sequence[str]] = None,
    edge_attrs: Optional[Sequence[str]] = None,
    weight: Optional[str] = "weight",
    start: Union[None, str, Sequence[float], Mapping[Any, float]] = None,
) -> Graph:
    """A :class:`Graph` from a networkx ``Graph`` or ``DiGraph``.

    Nodes are numbered in the order of ``g.nodes``.

    :param node_attrs: names of the node attributes to keep as fields
        (default: every attribute any node has; each node must have each).
    :param edge_attrs: names of the edge attributes to keep (default: every
        attribute any edge has but the weight; each edge must have each).
    :param weight: the edge attribute holding the weights (default
        ``"weight"``: used when every edge has it, 1 when none has it, an
        error when only some have it); ``None`` for weight 1 everywhere.
    :param start: start probabilities of the random walks: the name of a node
        attribute, or a sequence of one value per node (``g.nodes`` order), or
        a mapping node → value; ``None`` for 1 everywhere (GraphDot's
        default).  The marginalized graph kernel uses them (``p_i`` in its
        definition; values >= 0, finite).
    :raises ValueError, TypeError: a missing, NaN or non-numeric attribute
        (naming the node or edge and the field); :class:`kronograph.GraphError`
        for invalid weights or start probabilities.
    """
    if g.is_multigraph():
        raise TypeError("multigraphs are not supported: merge parallel edges first (e.g. nx.Graph(g))")
    nodes = list(g.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    edges, src, dst = _nx_edges(g, nodes, index)

    def pick(dicts, keys, names, what, skip=()):
        if names is None:
            seen = {}
            for d in dicts:
                for k in d:
                    seen.setdefault(k, None)
            names = [k for k in seen if k not in skip]
        cols = {}
        for name in names:
            col = []
            for d, key in zip(dicts, keys):
                if name not in d:
                    raise ValueError(
                        f"{what} {key!r} has no attribute {name!r} (other {what}s have it): give every {what} a value, "
                        f"or choose the attributes with {what}_attrs=[...]"
                    )
                col.append(d[name])
            cols[name] = col
        return cols

    node_data = g._node if isinstance(getattr(g, "_node", None), dict) else g.nodes
    node_cols = pick([node_data[v] for v in nodes], nodes, node_attrs, "node", skip=(start,) if isinstance(start, str) else ())
    edge_cols = pick([d for _, _, d in edges], [(u, v) for u, v, _ in edges], edge_attrs, "edge", skip=(weight,))
    w = _nx_weights(edges, weight)
    p = None
    if start is not None:
        if isinstance(start, str):
            missing = [v for v in nodes if start not in g.nodes[v]]
            if missing:
                raise ValueError(f"node {missing[0]!r} has no start attribute {start!r}")
            p = [g.nodes[v][start] for v in nodes]
        elif hasattr(start, "keys"):
            p = [start[v] for v in nodes]
        else:
            p = list(start)
        p = _start_bytes(p, len(nodes))
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


def _start_bytes(p, n):
    p = np.asarray(p, dtype="<f8").ravel()
    if p.shape[0] != n:
        raise ValueError(f"start: {p.shape[0]} values for {n} nodes")
    bad = np.flatnonzero(~(np.isfinite(p) & (p >= 0)))
    if bad.size:
        raise ValueError(f"start: node {bad[0]} has {p[bad[0]]!r}; start probabilities must be finite and >= 0")
    return p.tobytes()


def from_scipy(
    adjacency: Any,
    node_labels: Optional[Mapping[str, Any]] = None,
    edge_labels: Optional[Mapping[str, Any]] = None,
    directed: bool = False,
    start: Optional[Sequence[float]] = None,
) -> Graph:
    """A :class:`Graph` from an adjacency matrix (scipy.sparse or a dense numpy array).

    Stored entries are edges, their values the weights (use ``1`` for an
    unweighted graph).  An undirected graph (``directed=False``) needs a
    symmetric matrix; its upper triangle is read.

    :param node_labels: ``{name: array of n values (or n x k)}``.
    :param edge_labels: ``{name: matrix}`` with the adjacency's sparsity
        pattern, the label of edge ``(i, j)`` at ``[i, j]``.
    :param start: start probabilities, an array of ``n`` values.
    """
    try:
        import scipy.sparse as sp
    except ImportError:
        raise ImportError("from_scipy needs scipy: pip install scipy (or kronograph[sklearn], which brings it)") from None

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
    p = None if start is None else _start_bytes(start, n)
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


def read_tu(path: Union[str, "os.PathLike[str]"], weight: Optional[str] = None) -> TUDataset:
    """Reads a TU Dortmund data set folder (or a Matrix Market file, or an edge list).

    :param weight: an edge field to use as the weights (e.g. ``"attr0"``).
    :returns: a :class:`TUDataset` ``(name, graphs, y)``; ``y`` is a numpy
        array of graph labels, or ``None``.
    :raises kronograph.FileError: naming the file, the line and what was expected.
    """
    graphs, y, name = _read_dataset(str(path), weight)
    return TUDataset(name, graphs, None if y is None else np.asarray(y))


def as_graphs(x: Iterable[Any], what: str = "X") -> List[Graph]:
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


# -- back from a Graph (the native Graph's properties call these) -----------


def _state_fields(fields, count):
    out = {}
    for name, kind, width, data in fields:
        if kind == "int":
            out[name] = np.frombuffer(data, dtype="<i8").copy()
        elif kind == "float":
            out[name] = np.frombuffer(data, dtype="<f8").copy()
        elif kind == "array":
            out[name] = np.frombuffer(data, dtype="<f8").reshape(count, width).copy()
        else:  # set: length-prefixed int64 runs
            v = np.frombuffer(data, dtype="<i8")
            sets, at = [], 0
            while at < len(v):
                k = int(v[at])
                sets.append(tuple(int(e) for e in v[at + 1 : at + 1 + k]))
                at += 1 + k
            out[name] = sets
    return out


def _labels(g):
    st = g.state()
    return _state_fields(st[5], st[0])


def _edge_labels(g):
    st = g.state()
    return _state_fields(st[6], len(st[2]) // 8)


def _edges(g):
    st = g.state()
    src = np.frombuffer(st[2], dtype="<i8")
    dst = np.frombuffer(st[3], dtype="<i8")
    return np.stack([src, dst], axis=1).copy()


def _weights(g):
    return np.frombuffer(g.state()[4], dtype="<f8").copy()


def _start(g):
    p = g.state()[7]
    return None if p is None else np.frombuffer(p, dtype="<f8").copy()


def _py(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return tuple(v.tolist())
    return v


def _to_networkx(g):
    import networkx as nx

    st = g.state()
    n, directed = st[0], st[1]
    out = nx.DiGraph() if directed else nx.Graph()
    labels, elabels = _state_fields(st[5], n), _state_fields(st[6], len(st[2]) // 8)
    start = _start(g)
    for i in range(n):
        attrs = {k: _py(v[i]) if not isinstance(v, list) else frozenset(v[i]) for k, v in labels.items()}
        if start is not None:
            attrs["start"] = float(start[i])
        out.add_node(i, **attrs)
    w = np.frombuffer(st[4], dtype="<f8")
    for k, (u, v) in enumerate(_edges(g)):
        attrs = {name: _py(col[k]) if not isinstance(col, list) else frozenset(col[k]) for name, col in elabels.items()}
        attrs.setdefault("weight", float(w[k]))
        out.add_edge(int(u), int(v), **attrs)
    return out
