"""The GraphDot script that graphdot_port.py ports (GraphDot 0.8 API; it needs
GraphDot and a CUDA GPU, so the project's tests do not run it: they compare
it with the port line by line, python/tests/test_examples.py).

Marginalized-kernel Gaussian-process regression on molecules given as
networkx graphs with labels and weights: TensorProduct kernels, a custom
Laplacian kernel from SymPy, a trainable start probability, hyperparameter
optimization with restarts, and the nodal similarity of two molecules.
"""

import networkx as nx
import numpy as np
from graphdot import Graph
from graphdot.kernel.marginalized import MarginalizedGraphKernel
from graphdot.kernel.marginalized.starting_probability import Uniform
from graphdot.microkernel import KroneckerDelta, MicroKernel, TensorProduct
from graphdot.model.gaussian_process import GaussianProcessRegressor

# molecules as networkx graphs: element and a partial charge on atoms; bond order and a weight on bonds
rng = np.random.default_rng(0)
mols = []
for i in range(40):
    n = int(rng.integers(6, 14))
    m = nx.path_graph(n)
    m.add_edges_from((int(u), int(v)) for u, v in rng.integers(0, n, (2, 2)) if u != v)
    for v in m.nodes:
        m.nodes[v]["element"] = int(rng.choice([6, 7, 8], p=[0.6, 0.2, 0.2]))
        m.nodes[v]["charge"] = 0.1 * (m.nodes[v]["element"] - 6) + float(rng.normal(scale=0.05))
    for u, v in m.edges:
        m.edges[u, v]["order"] = int(rng.integers(1, 3))
        m.edges[u, v]["weight"] = 1.0 + 0.5 * (m.edges[u, v]["order"] - 1)
    mols.append(m)
y = np.array([np.mean([d["charge"] for _, d in m.nodes(data=True)]) for m in mols])

graphs = [Graph.from_networkx(m, weight="weight") for m in mols]
Laplacian = MicroKernel.from_sympy("Laplacian", "exp(-|x-y|/h)", "exp(-abs(x - y) / h)", ("x", "y"), ("h", np.float32, 0.01, 10))
laplacian = Laplacian(h=0.2)
kernel = MarginalizedGraphKernel(
    TensorProduct(element=KroneckerDelta(0.5), charge=laplacian),
    TensorProduct(order=KroneckerDelta(0.5)),
    q=0.05,
    p=Uniform(1.0, p_bounds=(0.1, 10)),
)
gpr = GaussianProcessRegressor(kernel, alpha=1e-2, normalize_y=True, optimizer=True)
gpr.fit(graphs[:30], y[:30], repeat=2)
err = gpr.predict(graphs[30:]) - y[30:]
print("trained:", gpr.kernel)
print(f"test RMSE {np.sqrt(np.mean(err ** 2)):.4f} (predicting the mean: {np.std(y[30:]):.4f})")
nodal = gpr.kernel(graphs[:1], graphs[1:2], nodal=True)  # node-by-node similarity of molecules 0 and 1
print(f"nodal similarity {nodal.shape}: sums to K = {nodal.sum():.6g}")
