#!/usr/bin/env bash
# The Python package's tests (called by scripts/test.sh): builds the wheel
# once (maturin), installs it into a fresh virtual environment as a user
# would, and runs pytest against it (python/tests/). pytest's exit code 5
# ("no tests collected"), like any non-zero exit, fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/python-venv
wheels=target/python-wheels
rm -rf "$venv" "$wheels"
python3 -m venv "$venv"
py="$venv/bin/python"
"$py" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$py" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2"
# The wheel's library with the features the Rust tests built it with (`cuda` and
# the crate's `testing`), so that scripts/test.sh compiles the library once.
"$venv/bin/maturin" build --release --quiet -m python/Cargo.toml --features kronograph/testing -o "$wheels"
wheel=$(ls "$wheels"/kronograph-*.whl)
# the [cuda] extra: NVRTC from PyPI, found at import (tests/test_algorithms.py checks it)
# matplotlib: tests/test_examples.py runs the picture example; [rdkit]: tests/test_chem.py; sympy: Expr from SymPy
"$py" -m pip install --quiet --disable-pip-version-check "$wheel[cuda,rdkit,sklearn]" pytest networkx "dask[array,distributed]" matplotlib sympy

# the CLI whose results the Python ones must equal
# (with `testing` like the test build, so that it is not compiled a second time)
cargo build --release --quiet --features testing --bin kronograph
export KRONOGRAPH_CLI="$PWD/target/release/kronograph"
# run from python/tests so that `import kronograph` is the installed wheel, not python/kronograph/
(cd python/tests && "../../$py" -m pytest -q -p no:cacheprovider .)
