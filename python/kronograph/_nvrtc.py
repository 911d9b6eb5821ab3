"""Finds NVRTC from the ``nvidia-cuda-nvrtc`` wheel (``pip install kronograph[cuda]``).

The native library loads ``libcuda`` and ``libnvrtc`` at run time.  A CUDA
toolkit provides NVRTC on the loader's path; without one, the
``nvidia-cuda-nvrtc`` wheel ships it inside ``site-packages/nvidia/cu13/lib``,
where the loader does not look.  :func:`setup` preloads it from there
(``RTLD_GLOBAL``, so the library's later ``dlopen("libnvrtc.so.13")`` finds
it) and adds the folder to ``LD_LIBRARY_PATH`` for child processes (Dask
workers started by a local cluster).
"""

import ctypes
import glob
import os

_found = None


def setup():
    """Preloads NVRTC from the ``nvidia-cuda-nvrtc`` wheel when it is installed.

    Returns the folder it was loaded from, or ``None`` (no wheel, or it could
    not be loaded: the GPU backend then reports that NVRTC is missing).
    """
    global _found
    if _found is not None:
        return _found
    try:
        import nvidia  # namespace package of NVIDIA's wheels
    except ImportError:
        return None
    for base in list(getattr(nvidia, "__path__", [])):
        for sub in ("cu13/lib", "cuda_nvrtc/lib"):
            folder = os.path.join(base, sub)
            libs = sorted(glob.glob(os.path.join(folder, "libnvrtc.so.13*")))
            if not libs:
                continue
            try:
                for builtins in sorted(glob.glob(os.path.join(folder, "libnvrtc-builtins.so.13*"))):
                    ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
                ctypes.CDLL(libs[0], mode=ctypes.RTLD_GLOBAL)
            except OSError:
                continue
            path = os.environ.get("LD_LIBRARY_PATH", "")
            if folder not in path.split(os.pathsep):
                os.environ["LD_LIBRARY_PATH"] = folder + (os.pathsep + path if path else "")
            _found = folder
            return folder
    return None
