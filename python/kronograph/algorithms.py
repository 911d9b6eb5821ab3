"""Graph algorithms and the random-walk kernel on kronograph, networkx or
scipy.sparse graphs, with numpy results.

Node ``i`` of a result is node number ``i`` of the graph: for a networkx
graph, the ``i``-th node of ``g.nodes``.  The graphlet transform and motif
search take ``backend="auto" | "cpu" | "cuda" | "cuda:N"``.
"""

import numpy as np
from sklearn.gaussian_process.kernels import Hyperparameter, Kernel

from . import _native, _progress
from .graphs import Graph, as_graphs, from_networkx, from_scipy

__all__ = [
    "bfs",
    "sssp",
    "triangle_count",
    "triangles_per_vertex",
    "graphlets",
    "motif_search",
    "MotifResult",
    "RandomWalkKernel",
]


def _graph(g, weight="weight"):
    if isinstance(g, Graph):
        return g
    if hasattr(g, "is_multigraph") and hasattr(g, "nodes"):
        # the package's one weight rule (kronograph.graphs): all edges or none
        return from_networkx(g, node_attrs=[], edge_attrs=[], weight=weight)
    try:
        import scipy.sparse as sp
    except ImportError:
        sp = None
    if (sp is not None and sp.issparse(g)) or isinstance(g, np.ndarray):
        a = sp.csr_matrix(g) if sp is not None else g
        directed = bool((a != a.T).nnz) if sp is not None else not np.array_equal(g, g.T)
        return from_scipy(a, directed=directed)
    raise TypeError(
        f"expected a kronograph.Graph, a networkx graph or a scipy.sparse adjacency matrix, not {type(g).__name__}"
    )


def bfs(g, source):
    """Breadth-first search from node ``source``: ``(levels, parents)``,
    int64 arrays with ``-1`` where a node is not reached."""
    levels, parents = _native.bfs(_graph(g), int(source))
    return np.frombuffer(levels, dtype="<i8").copy(), np.frombuffer(parents, dtype="<i8").copy()


def sssp(g, source, weight="weight"):
    """Shortest-path distances from ``source`` along non-negative weights
    (the networkx edge attribute ``weight``, or the matrix values):
    float64, ``inf`` where unreachable."""
    return np.frombuffer(_native.sssp(_graph(g, weight), int(source)), dtype="<f8").copy()


def triangle_count(g):
    """The number of triangles of an undirected graph."""
    return int(_native.triangle_count(_graph(g)))


def triangles_per_vertex(g):
    """The number of triangles through each node (int64)."""
    return np.frombuffer(_native.triangles_per_vertex(_graph(g)), dtype="<i8").copy()


def graphlets(g, kind="net", backend="auto"):
    """The fast graphlet transform: per-node frequencies of the 16 orbits of
    the graphlets with up to 4 nodes, a ``(n, 16)`` uint64 array.

    ``kind="net"`` gives induced counts, ``"raw"`` counts that need not be
    induced, ``"both"`` a ``(raw, net)`` pair.  Self-loops and weights are
    ignored (the counts are of the simple undirected graph underneath).
    """
    if kind not in ("net", "raw", "both"):
        raise ValueError(f"kind must be 'net', 'raw' or 'both', not {kind!r}")
    raw, net, n, _device = _native.graphlets(_graph(g), str(backend))
    raw = np.frombuffer(raw, dtype="<u8").reshape(n, 16).copy()
    net = np.frombuffer(net, dtype="<u8").reshape(n, 16).copy()
    return {"raw": raw, "net": net, "both": (raw, net)}[kind]


class MotifResult:
    """The answer of :func:`motif_search`: ``hits`` (bool per node; a ``True``
    is certain), ``runs`` (sieve runs made), ``false_negative_bound`` (the
    per-node probability that a ``False`` is wrong), ``device`` (CUDA device
    or ``None`` for the CPU) and ``matches`` (lists of node numbers when asked
    for and the hits induce isolated matches, else ``None``)."""

    __slots__ = ("hits", "runs", "false_negative_bound", "device", "matches")

    def __init__(self, hits, runs, false_negative_bound, device, matches):
        self.hits = hits
        self.runs = runs
        self.false_negative_bound = false_negative_bound
        self.device = device
        self.matches = matches

    def __repr__(self):
        return (
            f"MotifResult(hits={int(self.hits.sum())} of {self.hits.size} nodes, runs={self.runs}, "
            f"false_negative_bound={self.false_negative_bound:.3g}, device={self.device})"
        )


def motif_search(g, colors, motif, delta=1e-6, seed=0, field="gf256", backend="auto", matches=False):
    """Vertex-localized motif search: for every node of the undirected graph
    ``g`` coloured by ``colors`` (one non-negative integer per node), whether
    it lies in a connected set of ``len(motif)`` nodes whose colours are the
    multiset ``motif``.

    One-sided error: a reported node is always in a match; a node in a match
    is missed with probability at most ``delta``.  ``field`` is ``"gf256"``
    (bit-sliced GF(2^8), CPU and GPU) or ``"gf64"`` (CPU); the same ``seed``
    gives the same answer on every backend.  Returns a :class:`MotifResult`.
    """
    colors = np.asarray(colors)
    motif = np.asarray(motif)
    for name, a in (("colors", colors), ("motif", motif)):
        if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
            raise ValueError(f"{name} must be a 1-d sequence of non-negative integers")
        if a.size and (a.min() < 0 or a.max() > np.iinfo(np.uint32).max):
            raise ValueError(f"{name} must hold non-negative integers below 2^32")
    hits, runs, bound, device, found = _native.motif_search(
        _graph(g),
        colors.astype(np.uint32).tolist(),
        motif.astype(np.uint32).tolist(),
        float(delta),
        int(seed),
        str(field),
        str(backend),
        True,
        bool(matches),
    )
    hits = np.frombuffer(hits, dtype=np.uint8).astype(bool)
    return MotifResult(hits, runs, bound, device, found)


class RandomWalkKernel(Kernel):
    """The geometric random-walk kernel as a scikit-learn ``Kernel``::

        k(G, G') = 1' (I - lam W x W')^-1 1 = sum over l >= 0 of lam^l (walks of length l)

    (GraKeL's ``RandomWalk(lamda=lam, method_type="fast")`` on unlabeled
    graphs, to about 1e-15).  ``lam`` must stay below ``1 / (rho(W) rho(W'))``.

    ``labeled=True`` keeps only walks whose node pairs carry equal labels
    (all node fields equal), ``1_L' (I - lam L (W x W') L)^-1 1_L`` with ``L``
    the diagonal 0/1 matrix of equal-label pairs.  It counts the
    length-zero walks only on equal-label pairs (``sum of L``), where
    GraKeL's ``RandomWalkLabeled`` counts all ``n n'`` pairs at length 0
    and equal labels from length 1 on: the two differ by exactly
    ``n n' - sum of L`` (they agree to 2e-15 after that term).

    :param normalize: return ``K(a, b) / sqrt(K(a, a) K(b, b))``.
    :param lam_bounds: ``"fixed"`` only (the native library gives no
        gradient in ``lam``; ``eval_gradient`` returns an empty gradient).

    Works in ``GaussianProcessRegressor``/``SVC(kernel="precomputed")`` and
    with :func:`kronograph.dask.gram` (``raw_diag``/``tile``).
    """

    def __init__(self, lam=0.01, labeled=False, normalize=False, lam_bounds="fixed", tol=None, n_jobs=None, progress=False):
        self.lam = lam
        self.labeled = labeled
        self.normalize = normalize
        self.lam_bounds = lam_bounds
        self.tol = tol
        self.n_jobs = n_jobs
        self.progress = progress

    @property
    def hyperparameter_lam(self):
        """``lam`` (fixed: no gradient)."""
        if not (isinstance(self.lam_bounds, str) and self.lam_bounds == "fixed"):
            raise ValueError("RandomWalkKernel: lam_bounds must be 'fixed' (no gradient in lam is computed)")
        return Hyperparameter("lam", "numeric", "fixed")

    @property
    def requires_vector_input(self):
        """False: the inputs are graphs."""
        return False

    def is_stationary(self):
        """False."""
        return False

    def _graphs(self, X, what):
        items = as_graphs_or_any(X)
        if self.labeled:
            return as_graphs(items, what)  # node fields kept: the labels to compare
        return [_graph(g) for g in items]

    def _raw(self, x, y=None, progress=None):
        data, r, c = _native.random_walk_gram(x, y, float(self.lam), bool(self.labeled), self.tol, self.n_jobs, progress)
        return np.frombuffer(data, dtype="<f8").reshape(r, c).copy()

    def raw_diag(self, X):
        """The unnormalized ``K(x, x)`` of each graph."""
        x = self._graphs(X, "X")
        return np.array([self._raw([g])[0, 0] for g in x])

    def tile(self, X, Y, diag_x=None, diag_y=None):
        """One tile ``K(X, Y)``, normalized by the given unnormalized diagonals when the kernel normalizes."""
        k = self._raw(self._graphs(X, "X"), self._graphs(Y, "Y"))
        if self.normalize:
            if diag_x is None or diag_y is None:
                raise ValueError("a normalized kernel's tile needs diag_x and diag_y (see raw_diag)")
            k /= np.sqrt(np.outer(diag_x, diag_y))
        return k

    def __call__(self, X, Y=None, eval_gradient=False):
        """The Gram matrix ``K(X, Y)`` (``K(X, X)`` when ``Y`` is None); with
        ``eval_gradient`` also an empty gradient ``(n, m, 0)`` (``lam`` is fixed)."""
        x = self._graphs(X, "X")
        y = None if Y is None else self._graphs(Y, "Y")
        cb, close = _progress.callback(self.progress)
        try:
            k = self._raw(x, y, cb)
        finally:
            if close:
                close()
        if self.normalize:
            dx = np.diag(k).copy() if y is None else self.raw_diag(x)
            dy = dx if y is None else self.raw_diag(y)
            k /= np.sqrt(np.outer(dx, dy))
        if eval_gradient:
            return k, np.empty(k.shape + (0,))
        return k

    def diag(self, X):
        """``K(x, x)`` for each graph (ones when normalized)."""
        d = self.raw_diag(X)
        return np.ones_like(d) if self.normalize else d

    def __repr__(self):
        return f"RandomWalkKernel(lam={self.lam!r}, labeled={self.labeled!r}, normalize={self.normalize!r})"


def as_graphs_or_any(x):
    """The items of ``x`` (graphs of any supported kind), refusing a single graph."""
    if isinstance(x, Graph):
        return as_graphs(x)
    return list(x)
