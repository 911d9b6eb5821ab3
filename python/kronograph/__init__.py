"""kronograph: graph kernels and graph algorithms on CPU and CUDA GPUs.

::

    import kronograph as kg
    ds = kg.datasets.mutag()                 # shipped in the wheel (or kg.read_tu(folder))
    k = kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), q=0.05)
    K = k(ds.graphs)                         # numpy Gram matrix

Graphs come from networkx (:func:`from_networkx`), numpy/scipy.sparse
(:func:`from_scipy`), TU folders (:func:`read_tu`) or RDKit
(:func:`from_rdkit`, :func:`from_smiles`, the ``[rdkit]`` extra); errors of the native
library raise :class:`KronographError` subclasses carrying its message.
"""

from . import _native, _nvrtc

_nvrtc.setup()

from ._native import (  # noqa: E402
    CudaError,
    FileError,
    Graph,
    GraphError,
    KernelError,
    KronographError,
    SolverError,
    __version__,
)
from .algorithms import (  # noqa: E402
    GRAPHLET_ORBITS,
    MotifResult,
    RandomWalkKernel,
    bfs,
    graphlets,
    motif_search,
    sssp,
    triangle_count,
    triangles_per_vertex,
)
from ._backend import CpuFallbackWarning  # noqa: E402
from . import datasets  # noqa: E402
from .chem import from_rdkit, from_smiles  # noqa: E402
from .basekernel import (  # noqa: E402
    Additive,
    BaseKernel,
    CompactPolynomial,
    Constant,
    Convolution,
    DotProduct,
    Expr,
    KroneckerDelta,
    Normalize,
    Polynomial,
    RationalQuadratic,
    Spec,
    SquareExponential,
    TensorProduct,
    expr,
)
from .graphs import TUDataset, as_graphs, from_networkx, from_scipy, read_tu  # noqa: E402
from .kernel import MarginalizedGraphKernel  # noqa: E402
from .tiles import assemble, tile_grid  # noqa: E402


def cuda_status():
    """What the GPU backend can use here: ``{"nvrtc": bool, "devices": int,
    "nvrtc_from": folder of the nvidia-cuda-nvrtc wheel or None, "error": why
    no device, or None}``.  ``backend="auto"`` uses the GPU when ``devices > 0``
    and ``nvrtc`` is true."""
    nvrtc, devices, error = _native.cuda_status()
    return {"nvrtc": nvrtc, "devices": devices, "nvrtc_from": _nvrtc.setup(), "error": error}


__all__ = [
    "Additive",
    "BaseKernel",
    "Convolution",
    "CpuFallbackWarning",
    "DotProduct",
    "Expr",
    "datasets",
    "expr",
    "CompactPolynomial",
    "Constant",
    "CudaError",
    "FileError",
    "GRAPHLET_ORBITS",
    "Graph",
    "GraphError",
    "KernelError",
    "KroneckerDelta",
    "KronographError",
    "MarginalizedGraphKernel",
    "MotifResult",
    "Normalize",
    "Polynomial",
    "RandomWalkKernel",
    "RationalQuadratic",
    "SolverError",
    "Spec",
    "SquareExponential",
    "TUDataset",
    "TensorProduct",
    "__version__",
    "as_graphs",
    "assemble",
    "bfs",
    "cuda_status",
    "from_networkx",
    "from_rdkit",
    "from_smiles",
    "from_scipy",
    "graphlets",
    "motif_search",
    "read_tu",
    "sssp",
    "tile_grid",
    "triangle_count",
    "triangles_per_vertex",
]
