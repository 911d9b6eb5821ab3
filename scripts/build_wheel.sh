#!/usr/bin/env bash
# The release wheel of the Python package: one abi3 wheel (CPython >= 3.9)
# tagged manylinux2014 (glibc >= 2.17), linked with zig so that it does not
# depend on this machine's newer glibc. Output: dist/kronograph-*.whl.
# (scripts/test_python.sh builds a plain local wheel for the tests instead:
# zig rebuilds every dependency, which takes minutes.)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/wheel-venv
[ -x "$venv/bin/maturin" ] || {
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.5,<2" "ziglang<0.14"
}
PATH="$PWD/$venv/bin:$PATH" maturin build --release --zig --compatibility manylinux2014 -m python/Cargo.toml -o dist
ls dist/kronograph-*manylinux2014*.whl
