"""Base kernels on node and edge labels, composable in Python.

The names and parameterizations are GraphDot's::

    KroneckerDelta(h)                 1 if a == b else h
    SquareExponential(length_scale)   exp(-(a - b)^2 / (2 length_scale^2))
    RationalQuadratic(length_scale, alpha)
    Constant(c)
    Polynomial(offset, degree)        (a . b + offset)^degree
    CompactPolynomial(radius)         Wendland's compactly supported kernel
    DotProduct()                      a . b (vector fields)
    TensorProduct(label=..., charge=...)  a product over named fields
    Additive(label=..., charge=...)   a sum over named fields
    Convolution(k, mean=True)         R-convolution over set fields
    Expr("exp(-abs(x.charge - y.charge) / h)", h=(1.0, (0.1, 10)))
                                      any formula (value, gradient and CUDA
                                      form from the one expression)
    k1 + k2,  k1 * k2,  k ** p,  Normalize(k) (or k.normalized)

The objects follow scikit-learn's parameter convention:
``get_params(deep=True)`` lists the constructor arguments and, nested with
``__``, those of the kernels inside (``a__h`` for the left operand of a sum,
``label__h`` inside a :class:`TensorProduct`); ``set_params`` sets them.

Each object prints itself as a kernel SPEC (``str(k)``, the same text the
command-line tool takes with ``--node-kernel``); the native library parses it
once per call and binds it to the graphs' fields.  A leaf outside a
:class:`TensorProduct` applies to the field ``label``.  A SPEC string can be
used wherever a kernel object can (wrap it in :class:`Spec` to compose it).

Every ``*_bounds`` argument is ``(low, high)``, ``"fixed"`` (not trained) or
``None`` (the library's default bounds, widened to contain the value).
"""

import inspect
from typing import Any, Dict, Optional, Tuple, Union
import math
import numbers
import re

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

__all__ = [
    "BaseKernel",
    "Spec",
    "Constant",
    "KroneckerDelta",
    "SquareExponential",
    "RationalQuadratic",
    "Polynomial",
    "CompactPolynomial",
    "TensorProduct",
    "Additive",
    "Convolution",
    "DotProduct",
    "Expr",
    "expr",
    "Normalize",
    "to_spec",
]


def _num(x):
    x = float(x)
    if math.isinf(x) and x > 0:
        return "inf"
    if not math.isfinite(x):
        raise ValueError(f"a kernel parameter is {x}; it must be a finite number")
    return repr(x)


def _bounds(b, what):
    if b is None:
        return ""
    if isinstance(b, str):
        if b == "fixed":
            return ", fixed"
        raise ValueError(f"{what}: bounds {b!r}; expected (low, high), 'fixed' or None")
    try:
        lo, hi = b
    except (TypeError, ValueError):
        raise ValueError(f"{what}: bounds {b!r}; expected (low, high), 'fixed' or None") from None
    return f", [{_num(lo)}, {_num(hi)}]"


def _farg(field):
    """The field argument of a leaf's SPEC (none inside a :class:`Convolution`)."""
    return "" if field is None else f"{_field(field)}, "


def _field(name):
    if _NAME.match(name):
        return name
    if '"' in name:
        raise ValueError(f"field name {name!r} contains a double quote, which a kernel SPEC cannot hold")
    return f'"{name}"'


def _wrap(k):
    if isinstance(k, BaseKernel):
        return k
    if isinstance(k, numbers.Real) and not isinstance(k, bool):
        return Constant(k, "fixed")
    if isinstance(k, str):
        return Spec(k)
    raise TypeError(f"cannot combine a base kernel with {type(k).__name__}: use a kernel, a number or a SPEC string")


class BaseKernel:
    """A base kernel: prints as a SPEC; combines with ``+``, ``*``, ``**``."""

    def spec(self, field: str = "label") -> str:
        """The SPEC of this kernel, its leaves applied to ``field``."""
        raise NotImplementedError

    def _slots(self):
        """Every hyperparameter in the library's order: ``(object, attribute, name suffix)``."""
        raise NotImplementedError

    def __str__(self):
        return self.spec()

    @property
    def normalized(self) -> "Normalize":
        """``Normalize(self)``: ``k(a, b) / sqrt(k(a, a) k(b, b))`` (GraphDot's ``.normalized``)."""
        return Normalize(self)

    def _param_names(self):
        sig = inspect.signature(type(self).__init__)
        return [p.name for p in sig.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD]

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        """The constructor arguments, and with ``deep`` those of the kernels
        inside, named ``outer__inner`` (scikit-learn's convention)."""
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if isinstance(value, BaseKernel):
                    params.update((f"{name}__{k}", v) for k, v in value.get_params(True).items())
        return params

    def set_params(self, **params: Any) -> "BaseKernel":
        """Sets constructor arguments (``name=value``) or those of a kernel
        inside (``outer__inner=value``)."""
        valid = self.get_params(deep=False)
        for key, value in params.items():
            name, _, rest = key.partition("__")
            if name not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}; it has {sorted(valid)}")
            if rest:
                if not isinstance(valid[name], BaseKernel):
                    raise ValueError(f"{key!r}: {name!r} of {type(self).__name__} is not a kernel")
                valid[name].set_params(**{rest: value})
            else:
                self._set_param(name, value)
        return self

    def _set_param(self, name, value):
        setattr(self, name, value)

    def __add__(self, other):
        return _Sum(self, _wrap(other))

    def __radd__(self, other):
        return _Sum(_wrap(other), self)

    def __mul__(self, other):
        return _Product(self, _wrap(other))

    def __rmul__(self, other):
        return _Product(_wrap(other), self)

    def __pow__(self, p):
        return _Power(self, p)

    def __eq__(self, other):
        return isinstance(other, BaseKernel) and self.spec() == other.spec()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.spec())

    def __repr__(self):
        return f"{type(self).__name__}<{self.spec()}>"


class Spec(BaseKernel):
    """A kernel given as a SPEC string (see the README), e.g. ``Spec("delta(label, 0.5)")``."""

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"Spec takes a string, not {type(text).__name__}")
        self.text = text

    def spec(self, field: str = "label") -> str:
        return f"({self.text})"

    def _slots(self):
        return None  # unknown to Python: hyperparameters are set through the SPEC text


class _Leaf(BaseKernel):
    _name = ""
    _params = ()  # (attribute, suffix)

    def _slots(self):
        return [(self, attr, suffix) for attr, suffix in self._params]


class Constant(_Leaf):
    """``c`` for every pair (``c > 0``)."""

    _params = (("constant", "constant"),)

    def __init__(self, constant: float, c_bounds: Optional[Union[str, Tuple[float, float]]] = None) -> None:
        self.constant = constant
        self.c_bounds = c_bounds

    def spec(self, field: str = "label") -> str:
        return f"constant({_num(self.constant)}{_bounds(self.c_bounds, 'Constant')})"


class KroneckerDelta(_Leaf):
    """1 if the labels are equal, else ``h`` (``0 <= h <= 1``; integer fields)."""

    _params = (("h", "h"),)

    def __init__(self, h: float, h_bounds: Optional[Union[str, Tuple[float, float]]] = None) -> None:
        self.h = h
        self.h_bounds = h_bounds

    def spec(self, field: str = "label") -> str:
        return f"delta({_farg(field)}{_num(self.h)}{_bounds(self.h_bounds, 'KroneckerDelta')})"


class SquareExponential(_Leaf):
    """``exp(-|a - b|^2 / (2 length_scale^2))`` on real or vector fields."""

    _params = (("length_scale", "scale"),)

    def __init__(self, length_scale: float, length_scale_bounds: Optional[Union[str, Tuple[float, float]]] = None) -> None:
        self.length_scale = length_scale
        self.length_scale_bounds = length_scale_bounds

    def spec(self, field: str = "label") -> str:
        b = _bounds(self.length_scale_bounds, "SquareExponential")
        return f"sqexp({_farg(field)}{_num(self.length_scale)}{b})"


class RationalQuadratic(_Leaf):
    """``(1 + |a - b|^2 / (2 alpha length_scale^2))^(-alpha)``."""

    _params = (("length_scale", "scale"), ("alpha", "alpha"))

    def __init__(
        self,
        length_scale: float,
        alpha: float,
        length_scale_bounds: Optional[Union[str, Tuple[float, float]]] = None,
        alpha_bounds: Optional[Union[str, Tuple[float, float]]] = None,
    ) -> None:
        self.length_scale = length_scale
        self.alpha = alpha
        self.length_scale_bounds = length_scale_bounds
        self.alpha_bounds = alpha_bounds

    def spec(self, field: str = "label") -> str:
        lb, ab = self.length_scale_bounds, self.alpha_bounds
        if (lb is None) != (ab is None):
            # the SPEC takes both bounds or neither
            lb = lb if lb is not None else (1e-3, 1e3)
            ab = ab if ab is not None else (1e-3, 1e3)
        b = _bounds(lb, "RationalQuadratic") + _bounds(ab, "RationalQuadratic")
        return f"rq({_farg(field)}{_num(self.length_scale)}, {_num(self.alpha)}{b})"


class Polynomial(_Leaf):
    """``(a . b + offset)^degree`` on vector fields (normalize it for the graph kernel)."""

    _params = (("offset", "offset"),)

    def __init__(self, offset: float, degree: int, offset_bounds: Optional[Union[str, Tuple[float, float]]] = None) -> None:
        self.offset = offset
        self.degree = degree
        self.offset_bounds = offset_bounds

    def spec(self, field: str = "label") -> str:
        b = _bounds(self.offset_bounds, "Polynomial")
        return f"poly({_farg(field)}{_num(self.offset)}, {int(self.degree)}{b})"


class CompactPolynomial(_Leaf):
    """Wendland's compactly supported kernel of radius ``radius``."""

    _params = (("radius", "radius"),)

    def __init__(self, radius: float, radius_bounds: Optional[Union[str, Tuple[float, float]]] = None) -> None:
        self.radius = radius
        self.radius_bounds = radius_bounds

    def spec(self, field: str = "label") -> str:
        return f"wendland({_farg(field)}{_num(self.radius)}{_bounds(self.radius_bounds, 'CompactPolynomial')})"


class _Sum(BaseKernel):
    def __init__(self, a, b):
        self.a, self.b = a, b

    def spec(self, field: str = "label") -> str:
        return f"{self.a.spec(field)} + {self.b.spec(field)}"

    def _slots(self):
        a, b = self.a._slots(), self.b._slots()
        return None if a is None or b is None else a + b


class _Product(BaseKernel):
    def __init__(self, a, b):
        self.a, self.b = a, b

    def spec(self, field: str = "label") -> str:
        return f"({self.a.spec(field)}) * ({self.b.spec(field)})"

    def _slots(self):
        a, b = self.a._slots(), self.b._slots()
        return None if a is None or b is None else a + b


class _Power(BaseKernel):
    def __init__(self, kernel, exponent):
        if not isinstance(exponent, numbers.Real) or isinstance(exponent, bool) or not exponent > 0:
            raise ValueError(f"kernel ** {exponent!r}: the exponent must be a number > 0")
        self.kernel, self.exponent = kernel, exponent

    def spec(self, field: str = "label") -> str:
        return f"({self.kernel.spec(field)}) ^ {_num(self.exponent)}"

    def _slots(self):
        k = self.kernel._slots()
        return None if k is None else [(self, "exponent", "exponent")] + k


class Normalize(BaseKernel):
    """``k(a, b) / sqrt(k(a, a) k(b, b))``."""

    def __init__(self, kernel: BaseKernel) -> None:
        self.kernel = _wrap(kernel)

    def spec(self, field: str = "label") -> str:
        return f"normalize({self.kernel.spec(field)})"

    def _slots(self):
        return self.kernel._slots()


class TensorProduct(BaseKernel):
    """A product of kernels on named fields: ``TensorProduct(label=KroneckerDelta(0.5), charge=SquareExponential(1.0))``."""

    def __init__(self, **kernels: Any) -> None:
        if not kernels:
            raise ValueError("TensorProduct needs at least one field=kernel argument")
        self.kernels = {name: _wrap(k) for name, k in kernels.items()}

    def spec(self, field: str = "label") -> str:
        return " * ".join(f"({k.spec(name)})" for name, k in self.kernels.items())

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        params = dict(self.kernels)
        if deep:
            for name, k in self.kernels.items():
                params.update((f"{name}__{p}", v) for p, v in k.get_params(True).items())
        return params

    def _set_param(self, name, value):
        self.kernels[name] = _wrap(value)

    def _slots(self):
        out = []
        for k in self.kernels.values():
            s = k._slots()
            if s is None:
                return None
            out += s
        return out


class Additive(TensorProduct):
    """A sum of kernels on named fields (GraphDot's ``Additive``):
    ``Additive(label=KroneckerDelta(0.5), charge=SquareExponential(1.0))``.
    Its values reach the number of fields: use ``.normalized`` (or weights
    that sum to 1) for a node kernel, which must stay in [0, 1]."""

    def spec(self, field: str = "label") -> str:
        return " + ".join(f"({k.spec(name)})" for name, k in self.kernels.items())


class DotProduct(_Leaf):
    """``a . b`` on vector (or real) fields (GraphDot's ``DotProduct``);
    ``DotProduct().normalized`` is the cosine ``a . b / (|a| |b|)``.

    As a node kernel (which must stay in (0, 1]), the cosine is accepted on
    every backend: its declared range is [-1, 1], so every value the pairs
    use is checked on the data before any backend solves, and a pair of
    nodes whose features have a negative dot product raises
    :class:`kronograph.KernelError` naming the two nodes and graphs
    (non-negative features, as GraphDot's examples use, never do; a zero
    feature vector gives 0, raised to the floor of the Fitting section).
    The plain ``DotProduct()`` is unbounded and refused as a node kernel:
    normalize it."""

    _params = ()

    def __init__(self) -> None:
        pass

    def spec(self, field: str = "label") -> str:
        return f"poly({_farg(field)}0.0, 1, fixed)"


class Convolution(BaseKernel):
    """The R-convolution kernel over set fields (GraphDot's ``Convolution``):
    the mean (``mean=True``, GraphDot's default) or sum over all pairs of
    elements of ``kernel`` on the elements (integers).  Fields of sets or of
    integer sequences of different lengths (``frozenset``, tuples) become set
    fields in :func:`kronograph.from_networkx`."""

    def __init__(self, kernel: BaseKernel, mean: bool = True) -> None:
        self.kernel = _wrap(kernel)
        self.mean = mean

    def spec(self, field: str = "label") -> str:
        if field is None:
            raise ValueError("a Convolution cannot be nested inside another Convolution")
        return f"rconv({_field(field)}, {self.kernel.spec(None)}{', mean' if self.mean else ''})"

    def _slots(self):
        return self.kernel._slots()


_IDENT = re.compile(r'(?<![\w."])([A-Za-z_][A-Za-z0-9_]*)(?![\w"]*\s*[(.])')
_EXPR_WORDS = {"x", "y", "exp", "ln", "log", "abs", "sqrt", "hyper", "inf", "fixed", "sum", "mean"}


class Expr(BaseKernel):
    """A base kernel written as a formula over two labels' fields, ``x.NAME``
    and ``y.NAME`` (int or float fields), and named hyperparameters::

        Expr("exp(-abs(x.charge - y.charge) / h)", h=(1.0, (0.1, 10)))

    A bare ``x`` and ``y`` (GraphDot's scalar microkernel form) stand for the
    field the kernel is applied to: ``TensorProduct(charge=Expr("exp(-abs(x
    - y) / h)", h=1.0))`` is the kernel above (``label`` outside a
    ``TensorProduct``).  ``formula`` may also be a SymPy expression in the
    symbols ``x``, ``y`` and the hyperparameters (GraphDot's
    ``MicroKernel.from_sympy``): ``Expr(sympy.exp(-sympy.Abs(x - y) / h),
    h=(1.0, (0.1, 10)))``.

    Operators ``+ - * /``, ``^`` (a number), functions ``exp``, ``ln``,
    ``abs``, ``sqrt``, and the built-in kernels of a SPEC
    (``delta(label, 0.5)``, ``sqexp(charge, 1.0)``…) may be mixed.  Each
    hyperparameter is ``value`` (fixed) or ``(value, (low, high))`` or
    ``(value, "fixed")``; it trains in log space, so values and bounds must
    be > 0.  The native library derives the value, the exact gradient
    (dual numbers) and the CUDA form from this one expression, and checks
    its range (a node kernel must stay in [0, 1]) by interval arithmetic.
    A hyperparameter used in both operands of one ``+ - * /`` becomes two
    (``0.h`` and ``1.h``), as in every SPEC.  A plain number in the formula
    is a constant kernel (trainable, as in every SPEC; ``constant(2, fixed)``
    keeps it fixed).
    """

    def __init__(self, formula: Any, **hyperparameters: Any) -> None:
        if not isinstance(formula, str) and type(formula).__module__.startswith("sympy"):
            formula = _from_sympy(formula)
        if not isinstance(formula, str):
            raise TypeError(f"Expr takes a formula string or a SymPy expression, not {type(formula).__name__}")
        self.formula = formula
        self._hyper = {}
        # NAME_bounds=... next to NAME=value (get_params' form, which clone uses)
        explicit = {
            k[: -len("_bounds")]: hyperparameters.pop(k)
            for k in list(hyperparameters)
            if k.endswith("_bounds") and k[: -len("_bounds")] in hyperparameters
        }
        for name, v in hyperparameters.items():
            if name in _EXPR_WORDS or name in ("formula", "spec") or not _NAME.match(name):
                raise ValueError(f"hyperparameter name {name!r} is reserved or not a plain name")
            if isinstance(v, tuple):
                if len(v) != 2:
                    raise ValueError(f"hyperparameter {name}: expected value or (value, bounds), not {v!r}")
                value, bounds = v
            else:
                value, bounds = v, "fixed"
            self._hyper[name] = explicit.get(name, bounds)
            object.__setattr__(self, name, value)
        # a name that is no hyperparameter, no function and no field of a built-in kernel call
        for m in _IDENT.finditer(formula):
            n = m.group(1)
            if n not in self._hyper and n not in _EXPR_WORDS and not formula[: m.start()].rstrip().endswith("("):
                raise ValueError(
                    f"Expr: {n!r} in {formula!r} is neither a field (write x.{n} or y.{n}) nor a hyperparameter "
                    "given as a keyword argument"
                )

    def spec(self, field: str = "label") -> str:
        def sub(m):
            name = m.group(1)
            if name not in self._hyper:
                return name
            b = self._hyper[name]
            if isinstance(b, str) and b == "fixed":
                return f"hyper({name}, {_num(getattr(self, name))})"
            lo, hi = b
            return f"hyper({name}, {_num(getattr(self, name))}, [{_num(lo)}, {_num(hi)}])"

        text = _IDENT.sub(sub, self.formula)
        if field is not None:

            def bind(m):
                # `delta(x, 0.5)`: a field named x as a built-in kernel's first argument stays
                before, after = text[: m.start()].rstrip(), text[m.end() :].lstrip()
                if before.endswith("(") and after.startswith(","):
                    return m.group(1)
                return f"{m.group(1)}.{_field(field)}"

            text = _BARE_XY.sub(bind, text)
        return f"({text})"

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        params = {"formula": self.formula}
        params.update((n, getattr(self, n)) for n in self._hyper)
        params.update((f"{n}_bounds", b) for n, b in self._hyper.items())
        return params

    def _set_param(self, name, value):
        if name.endswith("_bounds") and name[: -len("_bounds")] in self._hyper:
            self._hyper[name[: -len("_bounds")]] = value
        elif name in self._hyper:
            object.__setattr__(self, name, value)
        else:
            raise ValueError(f"Expr has no parameter {name!r}")

    def _slots(self):
        # the library lists a formula's hyperparameters in order of appearance
        order = []
        for m in _IDENT.finditer(self.formula):
            n = m.group(1)
            if n in self._hyper and n not in order:
                order.append(n)
        return [(self, n, n) for n in order]

    def __reduce__(self):
        return (_rebuild_expr, (self.formula, {n: (getattr(self, n), b) for n, b in self._hyper.items()}))


# a bare x or y (not x.NAME, not part of a name or a quoted field)
_BARE_XY = re.compile(r'(?<![\w."])([xy])(?![\w."]|\s*\.)')


def _from_sympy(e):
    """A SymPy expression as an :class:`Expr` formula: SymPy's printer with
    ``**`` as ``^``, ``Abs`` as ``abs``, ``log`` as ``ln``."""
    text = str(e)
    for a, b in (("**", "^"), ("Abs(", "abs("), ("log(", "ln(")):
        text = text.replace(a, b)
    for bad in ("I", "zoo", "nan", "oo", "pi", "E"):
        if re.search(rf"\b{bad}\b", text):
            raise ValueError(
                f"the SymPy expression {e} holds {bad!r}, which a kronograph expression cannot: "
                "write it with numbers, exp, ln, abs, sqrt and + - * / ^"
            )
    return text


def _rebuild_expr(formula, hypers):
    return Expr(formula, **hypers)


def expr(formula: str, **hyperparameters: Any) -> "Expr":
    """``Expr(formula, **hyperparameters)``: a base kernel from a formula (see :class:`Expr`)."""
    return Expr(formula, **hyperparameters)


def to_spec(kernel: Union["BaseKernel", str]) -> str:
    """The SPEC text of a kernel object or a SPEC string."""
    if isinstance(kernel, str):
        return kernel
    if isinstance(kernel, BaseKernel):
        return kernel.spec()
    raise TypeError(
        f"a node or edge kernel must be a kronograph base kernel or a SPEC string, not {type(kernel).__name__}"
    )


def with_values(kernel, names, values, new_spec):
    """``kernel`` with its hyperparameters set to ``values`` (named ``names``,
    the library's order); falls back to the SPEC text ``new_spec`` when the
    Python object cannot take them (a :class:`Spec` inside, say)."""
    if isinstance(kernel, BaseKernel) and not isinstance(kernel, Spec):
        slots = kernel._slots()
        if slots is not None and len(slots) == len(values):
            if all(n.endswith(suffix) for (_, _, suffix), n in zip(slots, names)):
                for (obj, attr, _), v in zip(slots, values):
                    setattr(obj, attr, float(v))
                return kernel
        return Spec(new_spec)
    return new_spec
