"""Python results equal the command-line tool's on MUTAG."""

import subprocess

import numpy as np

import kronograph as kg
from conftest import DATA


def cli_gram(cli, tmp_path, *args):
    out = tmp_path / "k.npy"
    subprocess.run(
        [str(cli), "--quiet", "gram", str(DATA / "MUTAG"), "--backend", "cpu", "--out", str(out), *args],
        check=True,
        capture_output=True,
    )
    return np.load(out)


def test_mutag_gram_equals_cli(cli, tmp_path, mutag):
    k_cli = cli_gram(cli, tmp_path)
    mgk = kg.MarginalizedGraphKernel(kg.KroneckerDelta(0.5), kg.KroneckerDelta(0.5), q=0.05, backend="cpu")
    k = mgk(mutag.graphs)
    assert k.shape == (188, 188)
    np.testing.assert_allclose(k, k_cli, rtol=1e-12, atol=0)


def test_mutag_normalized_spec_strings_equal_cli(cli, tmp_path, mutag):
    args = ["--node-kernel", "delta(label, 0.3)", "--edge-kernel", "delta(label, 0.7)", "--q", "0.1", "--first", "40"]
    k_cli = cli_gram(cli, tmp_path, *args, "--normalize")
    mgk = kg.MarginalizedGraphKernel("delta(label, 0.3)", "delta(label, 0.7)", q=0.1, normalize=True, backend="cpu")
    np.testing.assert_allclose(mgk(mutag.graphs[:40]), k_cli, rtol=1e-12, atol=0)


def test_random_walk_kinds_equal_cli(cli, tmp_path, mutag):
    """`kronograph rw --kind …` equals RandomWalkKernel(kind=…), labeled too;
    a p-step without --steps is refused with what to add."""
    out = tmp_path / "rw.npy"
    cases = [
        (["--kind", "exponential"], dict(kind="exponential")),
        (["--kind", "p-step", "--steps", "3", "--step-weights", "1,0.5,0.25,2"], dict(kind="p-step", p=3, weights=[1, 0.5, 0.25, 2])),
    ]
    for labeled in (False, True):
        for args, kw in cases:
            extra = ["--labeled"] if labeled else []
            cmd = [str(cli), "--quiet", "rw", str(DATA / "MUTAG"), "--lambda", "0.3", "--first", "30", "--out", str(out)]
            subprocess.run(cmd + args + extra, check=True, capture_output=True)
            k = kg.RandomWalkKernel(0.3, labeled=labeled, **kw)(mutag.graphs[:30])
            np.testing.assert_allclose(k, np.load(out), rtol=1e-13, atol=0)
    r = subprocess.run(
        [str(cli), "rw", str(DATA / "MUTAG"), "--lambda", "0.3", "--kind", "p-step"], capture_output=True, text=True
    )
    assert r.returncode != 0 and "--steps" in r.stderr
