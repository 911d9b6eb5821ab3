#!/usr/bin/env bash
# The Python API reference, docs/python-api/ (HTML, by pdoc from PyPI), from
# the docstrings and type hints of the package. It needs the package
# importable: with PYTHON set to an interpreter that has kronograph installed
# (e.g. target/python-venv/bin/python after scripts/test_python.sh), that one;
# else a virtual environment under target/ gets the wheel built by maturin.
# The pages are committed; rerun this after changing a public docstring.
set -euo pipefail
cd "$(dirname "$0")/.."

py=${PYTHON:-}
if [ -z "$py" ]; then
    venv=target/pydoc-venv
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    py="$venv/bin/python"
    "$py" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2"
    rm -rf target/pydoc-wheels
    "$venv/bin/maturin" build --release --quiet -m python/Cargo.toml -o target/pydoc-wheels
    "$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/pydoc-wheels/kronograph-*.whl
    "$py" -m pip install --quiet --disable-pip-version-check numpy scipy scikit-learn networkx "dask[array,distributed]"
fi
"$py" -m pip install --quiet --disable-pip-version-check "pdoc>=14,<17"
rm -rf docs/python-api
# run outside the repository so that `kronograph` is the installed package, not python/kronograph
out="$PWD/docs/python-api"
(cd /tmp && "$py" -m pdoc --docformat restructuredtext --no-search --no-show-source \
    -o "$out" kronograph kronograph.dask)
echo "docs/python-api: $(find "$out" -name '*.html' | wc -l) pages"
