"""A GraphDot user's script ported to kronograph: each line that differs from
GraphDot carries a ``# GraphDot:`` comment with what it was (docs/PYTHON.md's
migration table lists every such change).

Marginalized-kernel Gaussian-process regression on molecules given as
networkx graphs with labels and weights: TensorProduct kernels, a custom
Laplacian kernel from SymPy, a trainable start probability, hyperparameter
optimization with restarts, and the nodal similarity of two molecules.

    python python/examples/graphdot_port.py       (needs networkx and sympy; runs from any directory)
"""

import networkx as nx
import numpy as np
import sympy
from sklearn.gaussian_process import GaussianProcessRegressor  # GraphDot: graphdot.model.gaussian_process

import kronograph as kg  # GraphDot: from graphdot import Graph
from kronograph import Expr, KroneckerDelta, MarginalizedGraphKernel, TensorProduct  # GraphDot: graphdot.microkernel

# molecules as networkx graphs: element and a partial charge on atoms; bond type and a weight on bonds
rng = np.random.default_rng(0)
mols = []
for g in kg.datasets.mutag().graphs[:32]:
    m = nx.Graph(g.to_networkx())
    for v in m.nodes:
        m.nodes[v]["charge"] = 0.1 * m.nodes[v]["label"] + float(rng.normal(scale=0.05))
    for u, v in m.edges:
        m.edges[u, v]["weight"] = 1.0 + 0.5 * m.edges[u, v]["label"]
    mols.append(m)
y = np.array([sum(d["charge"] for _, d in m.nodes(data=True)) / m.number_of_nodes() for m in mols])

graphs = [kg.from_networkx(m) for m in mols]  # GraphDot: Graph.from_networkx(m, weight="weight")
x_, y_, h = sympy.symbols("x y h")
laplacian = Expr(sympy.exp(-sympy.Abs(x_ - y_) / h), h=(0.2, (0.01, 10)))  # GraphDot: MicroKernel.from_sympy(...)
kernel = MarginalizedGraphKernel(
    TensorProduct(label=KroneckerDelta(0.5), charge=laplacian),
    TensorProduct(label=KroneckerDelta(0.5)),
    q=0.05,
    p=1.0, p_bounds=(0.1, 10),  # GraphDot: p=Uniform(1.0, p_bounds=(0.1, 10))
)
gpr = GaussianProcessRegressor(kernel, alpha=1e-2, normalize_y=True, n_restarts_optimizer=1, random_state=0)
X = np.array(graphs, dtype=object)  # GraphDot's own GPR takes the list
gpr.fit(X[:24], y[:24])
err = gpr.predict(X[24:]) - y[24:]
print("trained:", gpr.kernel_)
print(f"test RMSE {np.sqrt(np.mean(err ** 2)):.4f} (predicting the mean: {np.std(y[24:]):.4f})")
nodal = gpr.kernel_(X[:1], X[1:2], nodal=True)  # node-by-node similarity of molecules 0 and 1
print(f"nodal similarity {nodal.shape}: sums to K = {nodal.sum():.6g}")
