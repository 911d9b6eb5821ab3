"""The marginalized graph kernel as a scikit-learn ``Kernel``."""

import contextlib
import copy
import sys
import time
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _backend, _native, _progress
from ._sklearn import Hyperparameter, Kernel
from .basekernel import BaseKernel, to_spec, with_values
from .graphs import as_graphs

__all__ = ["MarginalizedGraphKernel"]


def positive_bounds(what, bounds):
    """``None`` for ``"fixed"``, else ``(low, high)`` with ``0 < low <= high < inf``."""
    if isinstance(bounds, str) and bounds == "fixed":
        return None
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"{what} = {bounds!r}: expected (low, high) or 'fixed'") from None
    if not (0 < lo <= hi < np.inf):
        raise ValueError(f"{what} = ({lo}, {hi}): expected 0 < low <= high < inf, or 'fixed'")
    return lo, hi


def value_of_theta(k, t, name, lo, hi):
    """The hyperparameter value ``exp(t)`` of ``theta[k]``, an error outside ``[lo, hi]`` (as in scikit-learn)."""
    v = float(np.exp(t))
    # exp(log(hi)) may round past hi by an ulp: accept 1e-9 relative, then clip
    if not (lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)):
        raise ValueError(
            f"theta[{k}] = {t!r} sets {name} = {v!r}, outside its bounds [{lo!r}, {hi!r}] "
            f"(log: [{np.log(lo)!r}, {np.log(hi)!r}]): give a theta inside kernel.bounds, or widen the bounds"
        )
    return min(max(v, lo), hi)


def _nodal_option(nodal, method, allow_block):
    """Checks GraphDot's ``nodal`` option: ``True``/``False`` (and for
    ``diag`` the string ``"block"``); returns whether it is ``"block"``."""
    if isinstance(nodal, str):
        if allow_block and nodal == "block":
            return True
        expected = "True, False or 'block'" if allow_block else "True or False"
        raise ValueError(f"{method}(nodal={nodal!r}): expected {expected}")
    if not isinstance(nodal, (bool, np.bool_)):
        raise ValueError(f"{method}(nodal={nodal!r}): expected True or False")
    return False


@contextlib.contextmanager
def _timed(on, what, X, Y):
    """Prints the wall time of the block to standard error when ``on``."""
    start = time.perf_counter()
    yield
    if on:
        sizes = f"{len(X)}" if Y is None else f"{len(X)} x {len(Y)}"
        print(f"kronograph: {what} of {sizes} graphs in {time.perf_counter() - start:.3f} s", file=sys.stderr)


def _array(data, *shape):
    return np.frombuffer(data, dtype="<f8").reshape(shape).copy()


class MarginalizedGraphKernel(Kernel):
    """The marginalized graph kernel (GraphDot's formulation) between graphs.

    A scikit-learn ``Kernel``: use it in ``GaussianProcessRegressor`` (the
    hyperparameters train through exact gradients), or compute a Gram matrix
    for ``SVC(kernel="precomputed")``.  ``X`` is a sequence of
    :class:`kronograph.Graph` (or networkx graphs, converted at each call).

    :param node_kernel: a base kernel on node labels with values in (0, 1]
        (a :mod:`kronograph.basekernel` object or a SPEC string).
    :param edge_kernel: a base kernel on edge labels with values in [0, 1].
    :param q: stop probability, in (0, 1).
    :param q_bounds: ``(low, high)`` inside (0, 1), or ``"fixed"``.
    :param backend: ``"auto"`` (a CUDA GPU when one can be used, else the
        CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
    :param precision: ``"f64"`` (relative residual 1e-12) or ``"f32"`` (1e-5).
    :param normalize: return ``K(a, b) / sqrt(K(a, a) K(b, b))``.
    :param lmin: 1 subtracts the length-one walks.
    :param tol: relative residual of the solves (default by precision).
    :param n_jobs: CPU threads (default: every core).
    :param progress: ``True`` for a progress bar, or a callable ``f(done, total)``.
    :param p: a start probability scale (GraphDot's ``Uniform(p)``): node
        ``i`` of a graph starts with ``p * s_i``, ``s_i`` the graph's own
        start probability (``start=`` of :func:`kronograph.from_networkx` /
        :func:`kronograph.from_scipy`) or 1 for graphs without them.  The
        kernel is linear in each graph's start vector, so
        ``K = p**2 K(p=1)``; ``nodal`` scales the same way and a normalized
        kernel does not depend on ``p``.
    :param p_bounds: ``(low, high)`` with ``0 < low <= high``, or ``"fixed"``
        (the default): a trainable ``p`` is the last hyperparameter, its
        gradient ``dK/d log p = 2 K`` exact (0 when normalized).

    Hyperparameters follow scikit-learn: ``theta`` is the log of the active
    ones in the order of ``hyperparameters`` (node kernel's, edge kernel's,
    then ``q``, then ``p``); a theta outside ``bounds`` is an error (not clipped); each
    hyperparameter is also an attribute and a parameter under its path
    (``getattr(k, "node.label.h")``, ``k.set_params(**{"node.label.h": 0.3})``),
    and the base kernels' own parameters nest with ``__``
    (``k.set_params(node_kernel__h=0.3)``; ``k2__node_kernel__h`` inside a
    scikit-learn ``Product``).

    A node kernel value that underflows (an exp-type kernel whose length
    scale is small for the label distances) is raised to a floor far below
    the precision's rounding (``2^-511`` in f64, ``2^-63`` in f32), where its
    pair contributes nothing measurable: the kernel and its gradient are
    their limit there, so an optimizer that reaches such a length scale gets
    finite values and a fit never aborts.
    """

    def __init__(
        self,
        node_kernel: Any,
        edge_kernel: Any,
        q: float = 0.05,
        q_bounds: Union[str, Tuple[float, float]] = (1e-4, 1 - 1e-4),
        backend: str = "auto",
        precision: str = "f64",
        normalize: bool = False,
        lmin: int = 0,
        tol: Optional[float] = None,
        n_jobs: Optional[int] = None,
        progress: Union[bool, Callable[[int, int], Any]] = False,
        p: float = 1.0,
        p_bounds: Union[str, Tuple[float, float]] = "fixed",
    ) -> None:
        self.node_kernel = node_kernel
        self.edge_kernel = edge_kernel
        self.q = q
        self.q_bounds = q_bounds
        self.backend = backend
        self.precision = precision
        self.normalize = normalize
        self.lmin = lmin
        self.tol = tol
        self.n_jobs = n_jobs
        self.progress = progress
        self.p = p
        self.p_bounds = p_bounds

    # -- the native kernel, rebuilt when a parameter changes --------------

    def _key(self):
        qb = None if isinstance(self.q_bounds, str) and self.q_bounds == "fixed" else self.q_bounds
        if qb is not None:
            qb = (float(qb[0]), float(qb[1]))
        return (
            to_spec(self.node_kernel),
            to_spec(self.edge_kernel),
            float(self.q),
            qb,
            int(self.lmin),
            str(self.precision),
            None if self.tol is None else float(self.tol),
            _backend.resolve(self.backend),
            None if self.n_jobs is None else int(self.n_jobs),
        )

    def _native(self):
        key = self._key()
        cached = self.__dict__.get("_cache")
        if cached is None or cached[0] != key:
            cached = (key, _native.Mgk(*key))
            self.__dict__["_cache"] = cached
        return cached[1]

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_cache", None)
        return state

    def __deepcopy__(self, memo):
        new = type(self).__new__(type(self))
        new.__dict__.update(copy.deepcopy(self.__getstate__(), memo))
        return new

    # -- scikit-learn's hyperparameter interface ---------------------------

    def _all(self):
        return self._native().hyperparameters() + [self._p_hyper()]

    def _p_hyper(self):
        """``("p", value, bounds or None)``: the start scale, checked."""
        p = float(self.p)
        if not (np.isfinite(p) and p > 0):
            raise ValueError(f"p = {self.p!r}: the start probability scale must be finite and > 0 (GraphDot's Uniform(p))")
        return ("p", p, positive_bounds("p_bounds", self.p_bounds))

    def _p2(self):
        return self._p_hyper()[1] ** 2

    def _p_active(self):
        return self._p_hyper()[2] is not None

    def __getattr__(self, name):
        # hyperparameter paths ("node.label.h") read as attributes
        if "." in name and not name.startswith("_"):
            for n, v, _ in self._all():
                if n == name:
                    return v
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name, value):
        if "." in name:
            hs = self._all()
            names = [n for n, _, _ in hs]
            if name not in names:
                raise AttributeError(f"this kernel has no hyperparameter {name!r}; it has {names}")
            values = [v for _, v, _ in hs]
            values[names.index(name)] = float(value)
            self._set_values(values)
            return
        object.__setattr__(self, name, value)

    def get_params(self, deep=True):
        """The constructor arguments; with ``deep`` also the base kernels'
        parameters (``node_kernel__h``) and every hyperparameter by its path
        (``node.label.h``)."""
        params = super().get_params(deep=False)
        if deep:
            for key in ("node_kernel", "edge_kernel"):
                k = params[key]
                if isinstance(k, BaseKernel):
                    params.update((f"{key}__{p}", v) for p, v in k.get_params(True).items())
            params.update((n, v) for n, v, _ in self._all() if n not in ("q", "p"))
        return params

    def _set_values(self, values):
        """Sets every hyperparameter (the order of ``hyperparameters``; ``p`` last)."""
        hs = self._all()[:-1]
        values, p = list(values[:-1]), values[-1]
        node_spec, edge_spec, q = self._native().with_theta([float(v) for v in values])
        names = [n for n, _, _ in hs]
        node = [(n, v) for n, v in zip(names, values) if n.startswith("node.")]
        edge = [(n, v) for n, v in zip(names, values) if n.startswith("edge.")]
        object.__setattr__(
            self, "node_kernel", with_values(self.node_kernel, [n for n, _ in node], [v for _, v in node], node_spec)
        )
        object.__setattr__(
            self, "edge_kernel", with_values(self.edge_kernel, [n for n, _ in edge], [v for _, v in edge], edge_spec)
        )
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "p", float(p))

    @property
    def hyperparameters(self):
        """Every hyperparameter (fixed ones marked), as scikit-learn's ``Hyperparameter``."""
        return [
            Hyperparameter(name, "numeric", "fixed" if b is None else np.array(b, dtype=float))
            for name, _, b in self._all()
        ]

    @property
    def theta(self):
        """Log of the active (non-fixed) hyperparameters."""
        return np.log(np.array([v for _, v, b in self._all() if b is not None], dtype=float))

    @theta.setter
    def theta(self, theta):
        hs = self._all()
        active = [i for i, (_, _, b) in enumerate(hs) if b is not None]
        theta = np.asarray(theta, dtype=float).ravel()
        if theta.shape[0] != len(active):
            raise ValueError(f"theta has {theta.shape[0]} values; this kernel has {len(active)} active hyperparameters")
        values = [v for _, v, _ in hs]
        for k, (t, i) in enumerate(zip(theta, active)):
            name, _, (lo, hi) = hs[i]
            values[i] = value_of_theta(k, t, name, lo, hi)
        self._set_values(values)

    @property
    def bounds(self):
        """Log of the bounds of the active hyperparameters, ``(n_active, 2)``."""
        b = [bb for _, _, bb in self._all() if bb is not None]
        return np.log(np.array(b, dtype=float)) if b else np.empty((0, 2))

    @property
    def requires_vector_input(self):
        """False: the inputs are graphs."""
        return False

    def is_stationary(self):
        """False: the kernel is not a function of ``x - y``."""
        return False

    # -- values ------------------------------------------------------------

    def _for_call(self, lmin):
        """This kernel, or a copy with another ``lmin`` (GraphDot's per-call ``lmin``)."""
        if lmin is None or int(lmin) == int(self.lmin):
            return self
        other = copy.copy(self)
        other.__dict__.pop("_cache", None)
        object.__setattr__(other, "lmin", int(lmin))
        return other

    def __call__(
        self,
        X: Sequence[Any],
        Y: Optional[Sequence[Any]] = None,
        eval_gradient: bool = False,
        nodal: bool = False,
        lmin: Optional[int] = None,
        timing: bool = False,
    ) -> Any:
        """The Gram matrix ``K(X, Y)`` (``K(X, X)`` when ``Y`` is None).

        ``lmin`` (0 or 1) overrides the constructor's for this call, and
        ``timing=True`` prints the call's wall time to standard error, as
        GraphDot's ``__call__`` arguments of the same names.

        With ``eval_gradient``, also ``dK / d theta`` of shape
        ``(len(X), len(Y), n_active)`` (log-hyperparameters, in the order of
        ``hyperparameters``: node kernel's, edge kernel's, ``q``, ``p``).  With
        ``nodal=True`` (GraphDot's convention), the node-by-node similarities
        instead: a ``(sum of len(x) for x in X, sum over Y)`` matrix whose
        block ``(i, j)`` is :meth:`nodal` of ``X[i]`` and ``Y[j]``
        (unnormalized; no gradient).
        """
        _nodal_option(nodal, "__call__", allow_block=False)
        if lmin is not None or timing:
            with _timed(timing, "K(X)" if Y is None else "K(X, Y)", X, Y):
                return self._for_call(lmin)(X, Y, eval_gradient=eval_gradient, nodal=nodal)
        x = as_graphs(X, "X")
        y = None if Y is None else as_graphs(Y, "Y")
        if nodal:
            if eval_gradient:
                raise NotImplementedError("nodal=True with eval_gradient=True is not supported: ask for one or the other")
            return self._nodal_blocks(x, x if y is None else y)
        cb, close = _progress.callback(self.progress)
        try:
            data, r, c, grad, _ = self._native().gram(x, y, bool(self.normalize), bool(eval_gradient), cb)
        finally:
            if close:
                close()
        k = _array(data, r, c)
        if eval_gradient:
            n_native = len(self.theta) - int(self._p_active())
            return self._scaled(k, _array(grad, r, c, n_native))
        return self._scaled(k)

    def _scaled(self, k, grad=None):
        """The values (and gradient) for the start scale ``p``: ``p**2``
        times those at ``p = 1`` unless normalized, and ``dK/d log p = 2 K``
        appended when ``p`` is trainable."""
        if not self.normalize:
            p2 = self._p2()
            k = k * p2
            if grad is not None:
                grad = grad * p2
        if grad is None:
            return k
        if self._p_active():
            dp = np.zeros_like(k) if self.normalize else 2.0 * k
            grad = np.concatenate([grad, dp[..., None]], axis=-1)
        return k, grad

    def _nodal_blocks(self, x, y):
        native = self._native()
        rows = [np.hstack([_array(*native.nodal(g, h)) for h in y]) if y else np.empty((g.num_nodes, 0)) for g in x]
        if not rows:
            return np.empty((0, sum(h.num_nodes for h in y)))
        return np.vstack(rows) * self._p2()

    def diag(
        self,
        X: Sequence[Any],
        eval_gradient: bool = False,
        nodal: bool = False,
        lmin: Optional[int] = None,
        timing: bool = False,
    ) -> Any:
        """``K(x, x)`` for each graph (ones when normalized); ``lmin`` and
        ``timing`` as in :meth:`__call__`.

        With ``eval_gradient``, also its gradient ``(len(X), n_active)``
        (zeros when normalized).  With ``nodal=True``, the diagonals of the
        nodal similarities of each graph with itself, concatenated (length
        ``sum of len(x)``; unnormalized); with ``nodal="block"`` (GraphDot's
        option of that name), the list of each graph's whole nodal
        similarity matrix with itself (``len(x) x len(x)``, unnormalized).
        """
        block = _nodal_option(nodal, "diag", allow_block=True)
        if lmin is not None or timing:
            with _timed(timing, "diag(X)", X, None):
                return self._for_call(lmin).diag(X, eval_gradient=eval_gradient, nodal=nodal)
        x = as_graphs(X, "X")
        if block or nodal:
            if eval_gradient:
                raise NotImplementedError(
                    f"nodal={nodal!r} with eval_gradient=True is not supported: ask for one or the other"
                )
            native = self._native()
            if block:
                return [_array(*native.nodal(g, g)) * self._p2() for g in x]
            parts = [np.diag(_array(*native.nodal(g, g))) for g in x]
            return np.concatenate(parts) * self._p2() if parts else np.empty(0)
        n_active = len(self.theta)
        if self.normalize:
            d = np.ones(len(x))
            return (d, np.zeros((len(x), n_active))) if eval_gradient else d
        data, n, _, grad, _ = self._native().diag(x, bool(eval_gradient))
        d = _array(data, n)
        if eval_gradient:
            return self._scaled(d, _array(grad, n, n_active - int(self._p_active())))
        return self._scaled(d)

    def nodal(self, g: Any, h: Any) -> np.ndarray:
        """The nodal similarity matrix of one pair of graphs (``n x n'``,
        unnormalized); ``g`` and ``h`` may be networkx graphs."""
        g, h = as_graphs([g, h], "(g, h)")
        data, r, c = self._native().nodal(g, h)
        return _array(data, r, c) * self._p2()

    # -- tiles: pieces of a Gram matrix computed independently --------------

    def raw_diag(self, X):
        """The unnormalized diagonal ``K(x, x)`` (what tiles are normalized by)."""
        data, n, _, _, _ = self._native().diag(as_graphs(X, "X"), False)
        return _array(data, n) * self._p2()

    def tile(self, X, Y, diag_x=None, diag_y=None):
        """One tile ``K(X, Y)``; normalized by the given unnormalized
        diagonals when the kernel normalizes (see :meth:`raw_diag`)."""
        data, r, c, _, _ = self._native().gram(as_graphs(X, "X"), as_graphs(Y, "Y"), False, False, None)
        k = _array(data, r, c) * self._p2()
        if self.normalize:
            if diag_x is None or diag_y is None:
                raise ValueError("a normalized kernel's tile needs diag_x and diag_y (see raw_diag)")
            k /= np.sqrt(np.outer(diag_x, diag_y))
        return k

    def gram_tiles(self, X, Y=None, tile=256):
        """Yields ``(rows, cols, block)`` tiles covering ``K(X, Y)``, each
        computed independently (on another process or machine if wanted; see
        :func:`kronograph.tiles.tile_grid`).  With ``Y`` None only tiles on
        and above the diagonal are yielded (``K`` is symmetric)."""
        from .tiles import tile_grid

        x = as_graphs(X, "X")
        y = x if Y is None else as_graphs(Y, "Y")
        dx = self.raw_diag(x) if self.normalize else None
        dy = dx if Y is None else (self.raw_diag(y) if self.normalize else None)
        for rows, cols in tile_grid(len(x), len(y), tile, symmetric=Y is None):
            block = self.tile(
                x[rows],
                y[cols],
                None if dx is None else dx[rows],
                None if dy is None else dy[cols],
            )
            yield rows, cols, block

    def __repr__(self):
        return (
            f"MarginalizedGraphKernel(node_kernel={to_spec(self.node_kernel)!r}, "
            f"edge_kernel={to_spec(self.edge_kernel)!r}, q={self.q!r}, p={self.p!r}, normalize={self.normalize!r})"
        )
