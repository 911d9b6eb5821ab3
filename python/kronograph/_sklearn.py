"""scikit-learn's ``Kernel`` and ``Hyperparameter`` when scikit-learn is
installed (the kernels are then genuine scikit-learn kernels), else a small
stand-in with the same interface for what kronograph's kernels use alone
(Gram matrices, theta, bounds, get_params/set_params, clone_with_theta).

scikit-learn (and scipy with it) is the ``[sklearn]`` extra rather than a
requirement: installing and importing it is most of the time from ``pip
install`` to the first Gram (docs/PYTHON.md), and a Gram needs neither.
Install scikit-learn before importing kronograph to use the kernels in
``GaussianProcessRegressor`` or combine them with scikit-learn's kernels.
"""

try:
    from sklearn.gaussian_process.kernels import Hyperparameter, Kernel

    HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - exercised by test_inputs_fitting's no-sklearn test
    import copy
    import inspect
    from collections import namedtuple

    import numpy as np

    HAVE_SKLEARN = False

    class Hyperparameter(namedtuple("Hyperparameter", ("name", "value_type", "bounds", "n_elements", "fixed"))):
        """scikit-learn's ``Hyperparameter`` record (name, value type, bounds, count, fixed)."""

        __slots__ = ()

        def __new__(cls, name, value_type, bounds, n_elements=1, fixed=None):
            is_fixed = isinstance(bounds, str) and bounds == "fixed"
            if not is_fixed:
                bounds = np.atleast_2d(bounds)
            return super().__new__(cls, name, value_type, bounds, n_elements, is_fixed if fixed is None else fixed)

    def _needs_sklearn(*_):
        raise ImportError(
            "combining kernels needs scikit-learn: pip install scikit-learn (or kronograph[sklearn]), "
            "then import kronograph again"
        )

    class Kernel:
        """The part of scikit-learn's ``Kernel`` interface kronograph's kernels use."""

        def get_params(self, deep=True):
            """The constructor arguments."""
            sig = inspect.signature(type(self).__init__)
            skip = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
            return {p.name: getattr(self, p.name) for p in sig.parameters.values() if p.name != "self" and p.kind not in skip}

        def set_params(self, **params):
            """Sets parameters, nested ones as ``outer__inner``."""
            valid = self.get_params(deep=True)
            for key, value in params.items():
                name, _, sub = key.partition("__")
                if name not in valid:
                    raise ValueError(f"invalid parameter {name!r} for kernel {self!r}")
                if sub:
                    valid[name].set_params(**{sub: value})
                else:
                    setattr(self, key, value)
            return self

        @property
        def hyperparameters(self):
            """The ``hyperparameter_*`` attributes."""
            return [getattr(self, a) for a in dir(self) if a.startswith("hyperparameter_")]

        @property
        def bounds(self):
            """Log of the active hyperparameters' bounds."""
            b = [h.bounds for h in self.hyperparameters if not h.fixed]
            return np.log(np.vstack(b)) if b else np.empty((0, 2))

        @property
        def n_dims(self):
            """The number of active hyperparameters."""
            return self.theta.shape[0]

        def clone_with_theta(self, theta):
            """A copy with ``theta`` set."""
            c = copy.deepcopy(self)
            c.theta = theta
            return c

        def __eq__(self, other):
            if type(self) is not type(other):
                return False
            a, b = self.get_params(), other.get_params()
            return set(a) == set(b) and all(np.all(a[k] == b[k]) for k in a)

        __hash__ = object.__hash__
        __add__ = __radd__ = __mul__ = __rmul__ = __pow__ = _needs_sklearn
