"""Molecules as graphs: :func:`from_rdkit` and :func:`from_smiles` (the
``[rdkit]`` extra: ``pip install "kronograph[rdkit]"``).

The fields follow GraphDot's ``Graph.from_rdkit``, as numbers kronograph's
base kernels take:

- nodes: ``atomic_number``, ``charge`` (formal), ``hcount`` (total
  hydrogens), ``hybridization`` and ``chiral`` (RDKit's enum values as
  integers), ``aromatic`` (0/1), ``ring_list`` (the sizes of the smallest
  rings through the atom, a set field for :class:`kronograph.Convolution`);
- edges: ``order`` (1, 1.5, 2, 3: RDKit's bond order as a real),
  ``aromatic``, ``conjugated`` (0/1), ``stereo`` (enum value), ``ring_list``.

Every edge has weight 1.  Node ``i`` is RDKit's atom ``i``.
"""

from typing import Any

import numpy as np

from ._native import Graph
from .graphs import _fields

__all__ = ["from_rdkit", "from_smiles"]


def _rdkit():
    try:
        from rdkit import Chem
    except ImportError:
        raise ImportError(
            "kronograph.from_rdkit/from_smiles need RDKit: pip install \"kronograph[rdkit]\" (or pip install rdkit)"
        ) from None
    return Chem


def from_rdkit(mol: Any) -> Graph:
    """A :class:`kronograph.Graph` of an RDKit molecule (``rdkit.Chem.Mol``)
    with the fields of the module documentation."""
    _rdkit()
    atoms, bonds = list(mol.GetAtoms()), list(mol.GetBonds())
    rings = mol.GetRingInfo()
    nodes = {
        "atomic_number": [a.GetAtomicNum() for a in atoms],
        "charge": [a.GetFormalCharge() for a in atoms],
        "hcount": [a.GetTotalNumHs() for a in atoms],
        "hybridization": [int(a.GetHybridization()) for a in atoms],
        "aromatic": [int(a.GetIsAromatic()) for a in atoms],
        "chiral": [int(a.GetChiralTag()) for a in atoms],
        "ring_list": [frozenset(len(r) for r in rings.AtomRings() if a.GetIdx() in r) for a in atoms],
    }
    edges = {
        "order": [float(b.GetBondTypeAsDouble()) for b in bonds],
        "aromatic": [int(b.GetIsAromatic()) for b in bonds],
        "conjugated": [int(b.GetIsConjugated()) for b in bonds],
        "stereo": [int(b.GetStereo()) for b in bonds],
        "ring_list": [frozenset(len(r) for r in rings.BondRings() if b.GetIdx() in r) for b in bonds],
    }
    src = np.array([b.GetBeginAtomIdx() for b in bonds], dtype="<i8")
    dst = np.array([b.GetEndAtomIdx() for b in bonds], dtype="<i8")
    return Graph(
        len(atoms),
        False,
        src.tobytes(),
        dst.tobytes(),
        np.ones(len(bonds), dtype="<f8").tobytes(),
        _typed_fields(nodes, len(atoms), "node"),
        _typed_fields(edges, len(bonds), "edge"),
        None,
    )


# the kind of each field, for molecules without atoms or bonds (every graph of
# a data set needs the same fields, a single atom included)
_KINDS = {"order": ("float", 1), "ring_list": ("set", 0)}


def _typed_fields(columns, count, what):
    if count:
        return _fields(columns, count, what)
    return [(name, *_KINDS.get(name, ("int", 1)), b"") for name in columns]


def from_smiles(smiles: str, add_hydrogens: bool = False) -> Graph:
    """A :class:`kronograph.Graph` of a SMILES string (through RDKit);
    ``add_hydrogens`` makes the hydrogens nodes.

    :raises ValueError: when RDKit cannot parse ``smiles``.
    """
    chem = _rdkit()
    mol = chem.MolFromSmiles(smiles)
    if mol is None:
        raise ValueError(f"RDKit could not parse the SMILES {smiles!r}")
    if add_hydrogens:
        mol = chem.AddHs(mol)
    return from_rdkit(mol)
