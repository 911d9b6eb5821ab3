#!/usr/bin/env bash
# The Python package's tests (called by scripts/test.sh): builds the wheel
# once (maturin), installs it into a fresh virtual environment as a user
# would, and runs pytest against it (python/tests/). pytest's exit code 5
# ("no tests collected"), like any non-zero exit, fails the run.
#
# `scripts/test_python.sh prepare` only makes the virtual environment with
# maturin and the test dependencies (downloads, little CPU): scripts/test.sh
# runs it in the background while the Rust tests compile; the plain call
# then reuses it (target/python-venv/.prepared) instead of making it again.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/python-venv
wheels=target/python-wheels
py="$venv/bin/python"
prepare() {
  rm -rf "$venv"
  python3 -m venv "$venv"
  # one resolver run for maturin and every test dependency, wheels only (no
  # source build); matplotlib: tests/test_examples.py runs the picture
  # example; sympy: Expr from SymPy
  # The wheel's extras the tests install it with ([cuda,rdkit,sklearn]) and its
  # test and examples extras, read from python/pyproject.toml, are installed
  # here too: the downloads (rdkit, scipy, scikit-learn, NVRTC: most of the
  # bytes) then happen while the Rust tests compile, and installing the wheel
  # later finds them present.
  mapfile -t extras < <(python3 - <<'PY'
import tomllib
with open("python/pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
optional = project["optional-dependencies"]
for req in project["dependencies"] + [r for x in ("cuda", "rdkit", "sklearn", "test", "examples") for r in optional[x]]:
    print(req)
PY
)
  "$py" -m pip install --quiet --disable-pip-version-check --only-binary :all: \
    "maturin>=1.5,<2" sympy "${extras[@]}"
  touch "$venv/.prepared"
}
if [ "${1:-}" = prepare ]; then
  prepare
  exit 0
fi
[ -e "$venv/.prepared" ] || prepare
rm -f "$venv/.prepared"  # the next run makes a fresh one
rm -rf "$wheels"
# The wheel's library with the crate features the Rust tests built it with
# (`cuda` and `testing`), and the same features of every dependency (the
# test build's dev-dependencies turn on features of either, zerocopy and
# getrandom; python/Cargo.toml asks for them too), so maturin reuses the
# library the test build compiled and compiles only the extension module.
"$venv/bin/maturin" build --release --quiet -m python/Cargo.toml --features kronograph/testing -o "$wheels"
wheel=$(ls "$wheels"/kronograph-*.whl)
# the [cuda] extra: NVRTC from PyPI, found at import (tests/test_algorithms.py checks it); [rdkit]: tests/test_chem.py; [sklearn]: scikit-learn and scipy
"$py" -m pip install --quiet --disable-pip-version-check --only-binary :all: "$wheel[cuda,rdkit,sklearn]"

# the CLI whose results the Python ones must equal: $KRONOGRAPH_CLI when the
# caller has one (scripts/test.sh passes the one its test phase built),
# else built here with `testing` like the test build (its path from cargo:
# target/release/kronograph may be a build without `cuda`)
if [ -z "${KRONOGRAPH_CLI:-}" ]; then
  KRONOGRAPH_CLI=$(cargo build --release --quiet --features testing --bin kronograph --message-format=json |
    python3 -c 'import json, sys; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable")][-1])')
fi
[ -x "$KRONOGRAPH_CLI" ] || { echo "KRONOGRAPH_CLI=$KRONOGRAPH_CLI is not an executable" >&2; exit 1; }
KRONOGRAPH_CLI=$(realpath "$KRONOGRAPH_CLI")
export KRONOGRAPH_CLI
# run from python/tests so that `import kronograph` is the installed wheel, not python/kronograph/
(cd python/tests && "../../$py" -m pytest -q -p no:cacheprovider .)
