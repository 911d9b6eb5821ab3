"""``backend="auto"`` without a usable GPU: the CPU, announced by a Python
warning (:class:`CpuFallbackWarning`, once per process) that the warnings
filter can silence, instead of the native library's line on stderr."""

import os
import sys
import warnings

from . import _native

__all__ = ["CpuFallbackWarning", "resolve"]


class CpuFallbackWarning(RuntimeWarning):
    """``backend="auto"`` runs on the CPU because no CUDA device can be used
    (the message says why).  Silence it with ``backend="cpu"`` or
    ``warnings.filterwarnings("ignore", category=kronograph.CpuFallbackWarning)``."""


_devices = None
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _user_level():
    """The ``stacklevel`` of the first caller outside this package (the
    warning then names the user's line)."""
    frame, level = sys._getframe(2), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def resolve(backend):
    """The backend name to give the native library: ``"cpu"`` for ``"auto"``
    when the driver reports no device (and ``KRONOGRAPH_DEVICES`` is unset),
    else ``backend`` unchanged."""
    global _devices
    backend = str(backend)
    if backend != "auto" or os.environ.get("KRONOGRAPH_DEVICES", "").strip():
        return backend
    if _devices is None:
        _nvrtc, _devices, error = _native.cuda_status()
        if _devices == 0:
            warnings.warn(
                f"kronograph: no usable CUDA device, running on the CPU ({error}); "
                "pass backend='cpu' or filter kronograph.CpuFallbackWarning to silence this",
                CpuFallbackWarning,
                stacklevel=_user_level(),
            )
    return "cpu" if _devices == 0 else backend
