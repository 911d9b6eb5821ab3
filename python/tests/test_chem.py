"""Molecules from RDKit and SMILES (the [rdkit] extra)."""

import numpy as np
import pytest

import kronograph as kg

Chem = pytest.importorskip("rdkit.Chem", reason="the [rdkit] extra (scripts/test_python.sh installs it)")


def test_from_smiles_fields_and_structure():
    g = kg.from_smiles("c1ccccc1C(=O)[O-]")
    assert g.num_nodes == 9 and g.num_edges == 9
    lab = g.labels
    np.testing.assert_array_equal(lab["atomic_number"], [6] * 7 + [8, 8])
    np.testing.assert_array_equal(lab["charge"], [0] * 8 + [-1])
    np.testing.assert_array_equal(lab["aromatic"], [1] * 6 + [0] * 3)
    assert lab["ring_list"][0] == (6,) and lab["ring_list"][7] == ()
    e = g.edge_labels
    assert sorted(set(e["order"].tolist())) == [1.0, 1.5, 2.0]
    assert int(e["aromatic"].sum()) == 6
    np.testing.assert_array_equal(g.weights, 1.0)
    # the same molecule through from_rdkit; hydrogens as nodes on request
    assert kg.from_rdkit(Chem.MolFromSmiles("c1ccccc1C(=O)[O-]")) == g
    assert kg.from_smiles("C", add_hydrogens=True).num_nodes == 5
    with pytest.raises(ValueError, match="SMILES"):
        kg.from_smiles("C1CC(")


def test_molecules_in_a_kernel_with_single_atoms():
    gs = [kg.from_smiles(s) for s in ("CCO", "C", "c1ccccc1O", "[Na+]", "CC(=O)O")]
    node = kg.TensorProduct(atomic_number=kg.KroneckerDelta(0.5), aromatic=kg.KroneckerDelta(0.8))
    edge = kg.TensorProduct(order=kg.SquareExponential(1.0))
    K = kg.MarginalizedGraphKernel(node, edge, backend="cpu", normalize=True)(gs)
    assert K.shape == (5, 5) and np.all(np.isfinite(K))
    np.testing.assert_allclose(np.diag(K), 1.0)
    # ring sizes as a set field, through Convolution
    conv = kg.TensorProduct(ring_list=kg.Convolution(kg.KroneckerDelta(0.5)))
    K2 = kg.MarginalizedGraphKernel(conv, kg.Constant(1.0, "fixed"), backend="cpu")(gs)
    assert np.all(np.isfinite(K2))
