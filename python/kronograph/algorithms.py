"""Graph algorithms and the random-walk kernel on kronograph, networkx or
scipy.sparse graphs, with numpy results.

Node ``i`` of a result is node number ``i`` of the graph: for a networkx
graph, the ``i``-th node of ``g.nodes``.  The graphlet transform and motif
search take ``backend="auto" | "cpu" | "cuda" | "cuda:N"``.
"""

from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _backend, _native, _progress
from ._sklearn import Hyperparameter, Kernel
from .graphs import Graph, as_graphs, from_scipy, structure
from .kernel import positive_bounds, value_of_theta

__all__ = [
    "bfs",
    "sssp",
    "triangle_count",
    "triangles_per_vertex",
    "graphlets",
    "GRAPHLET_ORBITS",
    "motif_search",
    "MotifResult",
    "RandomWalkKernel",
]


def _graph(g, weight="weight"):
    if isinstance(g, Graph):
        return g
    if hasattr(g, "is_multigraph") and hasattr(g, "nodes"):
        # the package's one weight rule (kronograph.graphs): all edges or none;
        # converted once per graph (networkx's cache of g, see kronograph.graphs)
        return structure(g, weight)
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


def bfs(g: Any, source: int) -> Tuple[np.ndarray, np.ndarray]:
    """Breadth-first search from node ``source``: ``(levels, parents)``,
    int64 arrays with ``-1`` where a node is not reached."""
    levels, parents = _native.bfs(_graph(g), int(source))
    return np.frombuffer(levels, dtype="<i8").copy(), np.frombuffer(parents, dtype="<i8").copy()


def sssp(g: Any, source: int, weight: Optional[str] = "weight") -> np.ndarray:
    """Shortest-path distances from ``source`` along non-negative weights
    (the networkx edge attribute ``weight``, or the matrix values):
    float64, ``inf`` where unreachable."""
    return np.frombuffer(_native.sssp(_graph(g, weight), int(source)), dtype="<f8").copy()


def triangle_count(g: Any) -> int:
    """The number of triangles of an undirected graph."""
    return int(_native.triangle_count(_graph(g)))


def triangles_per_vertex(g: Any) -> np.ndarray:
    """The number of triangles through each node (int64)."""
    return np.frombuffer(_native.triangles_per_vertex(_graph(g)), dtype="<i8").copy()


GRAPHLET_ORBITS = tuple(_native.graphlet_orbit_names())
"""The names of the 16 columns of :func:`graphlets` (``"[0] vertex (==1)"``,
``"[1] degree"``, ... ``"[15] 4-clique"``)."""


def graphlets(g: Any, kind: str = "net", backend: str = "auto") -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
    """The fast graphlet transform: per-node frequencies of the 16 orbits of
    the graphlets with up to 4 nodes, a ``(n, 16)`` uint64 array whose
    column ``k`` is orbit ``GRAPHLET_ORBITS[k]`` (e.g. a pandas
    ``DataFrame(graphlets(g), columns=kg.GRAPHLET_ORBITS)``).

    ``kind="net"`` gives induced counts, ``"raw"`` counts that need not be
    induced, ``"both"`` a ``(raw, net)`` pair.  Self-loops and weights are
    ignored (the counts are of the simple undirected graph underneath).
    """
    if kind not in ("net", "raw", "both"):
        raise ValueError(f"kind must be 'net', 'raw' or 'both', not {kind!r}")
    raw, net, n, _device = _native.graphlets(_graph(g), _backend.resolve(backend))
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

    def __init__(
        self,
        hits: np.ndarray,
        runs: int,
        false_negative_bound: float,
        device: Optional[int],
        matches: Optional[List[List[int]]],
    ) -> None:
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


def motif_search(
    g: Any,
    colors: Sequence[int],
    motif: Sequence[int],
    delta: float = 1e-6,
    seed: int = 0,
    field: str = "gf256",
    backend: str = "auto",
    matches: bool = False,
) -> MotifResult:
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
        _backend.resolve(backend),
        True,
        bool(matches),
    )
    hits = np.frombuffer(hits, dtype=np.uint8).astype(bool)
    return MotifResult(hits, runs, bound, device, found)


class RandomWalkKernel(Kernel):
    """The geometric random-walk kernel as a scikit-learn ``Kernel``::

        k(G, G') = 1' (I - lam W x W')^-1 1 = sum over l >= 0 of lam^l (walks of length l)

    (GraKeL's ``RandomWalk(lamda=lam, method_type="fast")`` on unlabeled
    graphs, to about 1e-15).  ``lam`` must stay below ``1 / (rho(W) rho(W'))``
    for every pair (:meth:`lambda_limit` gives a bound that holds for a
    whole data set).

    ``labeled=True`` keeps only walks whose node pairs carry equal labels
    (all node fields equal), ``1_L' (I - lam L (W x W') L)^-1 1_L`` with ``L``
    the diagonal 0/1 matrix of equal-label pairs.  It counts the
    length-zero walks only on equal-label pairs (``sum of L``), where
    GraKeL's ``RandomWalkLabeled`` counts all ``n n'`` pairs at length 0
    and equal labels from length 1 on: the two differ by exactly
    ``n n' - sum of L`` (they agree to 2e-15 after that term).

    :param normalize: return ``K(a, b) / sqrt(K(a, a) K(b, b))``.
    :param lam_bounds: ``"fixed"`` (the default) or ``(low, high)``: a
        trainable ``lam`` (hyperparameter ``"lam"``, ``theta = [log lam]``)
        with the exact gradient ``dK/d log lam = lam 1' A^-1 (W x W') A^-1 1``
        (``A = I - lam W x W'``; the moment series' ``sum of l lam^l m_l
        m'_l``, one product after the solve for undirected graphs, one more
        solve for directed ones).  Keep ``high`` below :meth:`lambda_limit`
        of the training graphs: beyond it the walk series diverges and the
        kernel raises :class:`kronograph.KernelError`.

    ``kind`` chooses the weights of the walks of length ``l`` (GraKeL's
    ``kernel_type`` and ``p``; every kind has ``labeled``, ``normalize``,
    a trainable ``lam`` and the Dask path):

    - ``"geometric"`` (the default): ``lam^l``, the formula above;
    - ``"exponential"``: ``lam^l / l!``, ``k = 1' exp(lam W x W') 1``
      (GraKeL's ``kernel_type="exponential"``), defined for every
      ``lam > 0``; the series stops when a rigorous bound on its tail is
      below ``tol`` (default ``1e-15``) times the value;
    - ``"p-step"``: ``weights[l] lam^l`` for ``l = 0..p``, exact; ``p`` (an
      int >= 0) and ``weights`` (``p + 1`` non-negative numbers, default all
      ones: GraKeL's ``RandomWalk(lamda=lam, p=p)``; ``weights="exponential"``
      gives ``1/l!``: GraKeL's ``kernel_type="exponential", p=p``).

    The exponential and p-step kinds' ``dK/d log lam = sum of l w_l lam^l
    (walks of length l)``.

    :param backend: where to compute, as for
        :class:`kronograph.MarginalizedGraphKernel`: ``"auto"`` (the default:
        a CUDA GPU when one can be used, else the CPU), ``"cpu"``,
        ``"cuda"`` or ``"cuda:N"``.  On the CPU the exponential and p-step
        kinds sum the moment series (unlabeled) or the product graph's power
        series (``labeled=True``); on a GPU every pair runs that power
        series in float64, all pairs of a call in one batched launch (equal
        to the CPU's to about 1e-12 relative).  ``"auto"`` runs these kinds
        on the GPU only where it wins: ``labeled=True`` calls with
        ``M / threads >= 6000 + N / 50`` (``M`` the node pairs with equal
        labels and ``N`` all node pairs, summed over the call's pairs;
        ``threads`` from ``n_jobs``), such as MUTAG's whole Gram; unlabeled
        calls and smaller ones stay on the CPU (docs/PYTHON.md).  The geometric kind runs as the
        library's ``RandomWalkKernel::gram_on`` (the moment series and
        batched solves on the GPU); its gradient in ``lam`` is computed on
        the CPU.

    Works in ``GaussianProcessRegressor``/``SVC(kernel="precomputed")`` and
    with :func:`kronograph.dask.gram` (``raw_diag``/``tile``).
    """

    def __init__(
        self,
        lam: float = 0.01,
        labeled: bool = False,
        normalize: bool = False,
        lam_bounds: Union[str, Tuple[float, float]] = "fixed",
        tol: Optional[float] = None,
        n_jobs: Optional[int] = None,
        progress: Union[bool, Callable[[int, int], Any]] = False,
        kind: str = "geometric",
        p: Optional[int] = None,
        weights: Union[None, str, Sequence[float]] = None,
        backend: str = "auto",
    ) -> None:
        self.lam = lam
        self.backend = backend
        self.kind = kind
        self.p = p
        self.weights = weights
        self.labeled = labeled
        self.normalize = normalize
        self.lam_bounds = lam_bounds
        self.tol = tol
        self.n_jobs = n_jobs
        self.progress = progress

    def _fixed(self):
        return isinstance(self.lam_bounds, str) and self.lam_bounds == "fixed"

    @property
    def hyperparameter_lam(self) -> Hyperparameter:
        """``lam``: fixed, or trainable within ``lam_bounds``."""
        b = positive_bounds("lam_bounds", self.lam_bounds)
        return Hyperparameter("lam", "numeric", "fixed" if b is None else np.array(b))

    @property
    def theta(self) -> np.ndarray:
        """``[log lam]`` when ``lam`` is trainable, else empty."""
        return np.empty(0) if self._fixed() else np.log([float(self.lam)])

    @theta.setter
    def theta(self, theta: Sequence[float]) -> None:
        theta = np.asarray(theta, dtype=float).ravel()
        n = 0 if self._fixed() else 1
        if theta.shape[0] != n:
            raise ValueError(f"theta has {theta.shape[0]} values; this kernel has {n} active hyperparameters")
        if n:
            lo, hi = self.hyperparameter_lam.bounds.ravel()
            self.lam = value_of_theta(0, theta[0], "lam", lo, hi)

    @property
    def requires_vector_input(self) -> bool:
        """False: the inputs are graphs."""
        return False

    def is_stationary(self) -> bool:
        """False."""
        return False

    def lambda_limit(self, X: Sequence[Any]) -> float:
        """A ``lam`` below which the geometric kernel is defined for every
        pair of the graphs ``X``: ``1 / rho_max^2`` with ``rho_max`` the
        largest upper bound on their spectral radii (Collatz-Wielandt).
        Infinite for the exponential and p-step kinds (defined for every
        ``lam > 0``)."""
        if self.kind != "geometric":
            return float("inf")
        return float(_native.random_walk_lambda_limit(self._graphs(X, "X")))

    def _graphs(self, X, what):
        items = as_graphs_or_any(X)
        if self.labeled:
            return as_graphs(items, what)  # node fields kept: the labels to compare
        return [_graph(g) for g in items]

    def _steps(self):
        """``(steps, exponential)`` for the native call, checking ``kind``, ``p`` and ``weights``."""
        kind = self.kind
        if kind not in ("geometric", "exponential", "p-step"):
            raise ValueError(f"kind={kind!r}: use 'geometric', 'exponential' or 'p-step'")
        if kind != "p-step":
            if self.p is not None or self.weights is not None:
                raise ValueError(f"p and weights belong to kind='p-step' (kind={kind!r} was given)")
            return None, kind == "exponential"
        p = self.p
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 0:
            raise ValueError(f"kind='p-step' needs p, the largest walk length, an int >= 0 (p={p!r} given)")
        w = self.weights
        if w is None:
            return [1.0] * (int(p) + 1), False
        if isinstance(w, str):
            if w != "exponential":
                raise ValueError(f"weights={w!r}: give p + 1 numbers, or 'exponential' for 1/l!")
            c = [1.0]
            for l in range(1, int(p) + 1):
                c.append(c[-1] / l)
            return c, False
        w = np.asarray(w, dtype=float).ravel()
        if w.shape[0] != int(p) + 1:
            raise ValueError(f"weights has {w.shape[0]} values; kind='p-step' with p={p} needs p + 1 = {int(p) + 1}")
        return w.tolist(), False

    def _raw(self, x, y=None, progress=None, gradient=False):
        steps, exponential = self._steps()
        try:
            data, r, c, grad = _native.random_walk_gram(
                x, y, float(self.lam), bool(self.labeled), self.tol, self.n_jobs, progress, bool(gradient),
                steps, exponential, _backend.resolve(self.backend),
            )
        except _native.KronographError as e:
            # the library's advice names the CLI's option and the Rust method; here they are the
            # lam parameter and this class's lambda_limit
            raise type(e)(_python_advice(str(e))) from None
        k = np.frombuffer(data, dtype="<f8").reshape(r, c).copy()
        if gradient:
            return k, np.frombuffer(grad, dtype="<f8").reshape(r, c).copy()
        return k

    def raw_diag(self, X: Sequence[Any]) -> np.ndarray:
        """The unnormalized ``K(x, x)`` of each graph."""
        x = self._graphs(X, "X")
        return np.array([self._raw([g])[0, 0] for g in x])

    def tile(
        self,
        X: Sequence[Any],
        Y: Sequence[Any],
        diag_x: Optional[np.ndarray] = None,
        diag_y: Optional[np.ndarray] = None,
    ) -> np.ndarray:
        """One tile ``K(X, Y)``, normalized by the given unnormalized diagonals when the kernel normalizes."""
        k = self._raw(self._graphs(X, "X"), self._graphs(Y, "Y"))
        if self.normalize:
            if diag_x is None or diag_y is None:
                raise ValueError("a normalized kernel's tile needs diag_x and diag_y (see raw_diag)")
            k /= np.sqrt(np.outer(diag_x, diag_y))
        return k

    def __call__(
        self, X: Sequence[Any], Y: Optional[Sequence[Any]] = None, eval_gradient: bool = False
    ) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
        """The Gram matrix ``K(X, Y)`` (``K(X, X)`` when ``Y`` is None); with
        ``eval_gradient`` (``Y`` None, as in scikit-learn) also
        ``dK/d theta`` of shape ``(n, n, 1)`` when ``lam`` is trainable, else
        ``(n, n, 0)``."""
        if eval_gradient and Y is not None:
            raise ValueError("eval_gradient=True is only supported when Y is None (as in scikit-learn)")
        x = self._graphs(X, "X")
        y = None if Y is None else self._graphs(Y, "Y")
        grad = eval_gradient and not self._fixed()
        cb, close = _progress.callback(self.progress)
        try:
            out = self._raw(x, y, cb, gradient=grad)
        finally:
            if close:
                close()
        k, dk = out if grad else (out, None)
        if self.normalize:
            dx = np.diag(k).copy() if y is None else self.raw_diag(x)
            dy = dx if y is None else self.raw_diag(y)
            k = k / np.sqrt(np.outer(dx, dy))
            if dk is not None:
                # d log Kn = d log K - (d log dx_i + d log dx_j) / 2, with dx the diagonal
                with np.errstate(invalid="ignore", divide="ignore"):
                    dd = np.diag(dk) / dx
                    raw = k * np.sqrt(np.outer(dx, dx))
                    dk = np.where(raw > 0, k * (dk / raw - 0.5 * (dd[:, None] + dd[None, :])), 0.0)
        if eval_gradient:
            return k, (dk[..., None] if dk is not None else np.empty(k.shape + (0,)))
        return k

    def diag(self, X: Sequence[Any]) -> np.ndarray:
        """``K(x, x)`` for each graph (ones when normalized)."""
        d = self.raw_diag(X)
        return np.ones_like(d) if self.normalize else d

    def __repr__(self):
        kind = "" if self.kind == "geometric" else f", kind={self.kind!r}"
        if self.kind == "p-step":
            kind += f", p={self.p!r}" + ("" if self.weights is None else f", weights={self.weights!r}")
        return f"RandomWalkKernel(lam={self.lam!r}, labeled={self.labeled!r}, normalize={self.normalize!r}{kind})"


def _python_advice(message: str) -> str:
    """The native library's λ advice in this package's names: ``lam`` for the
    CLI's ``--lambda``, :meth:`RandomWalkKernel.lambda_limit` for the Rust
    method."""
    return message.replace("(--lambda)", "(RandomWalkKernel's lam)").replace(
        "RandomWalkKernel::lambda_limit", "RandomWalkKernel.lambda_limit(X)"
    )


def as_graphs_or_any(x: Any) -> List[Any]:
    """The items of ``x`` (graphs of any supported kind), refusing a single graph."""
    if isinstance(x, Graph):
        return as_graphs(x)
    return list(x)
