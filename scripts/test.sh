#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine (Rust + Python 3 with pip).
#
# It installs NVRTC 13.0 from PyPI (no GPU needed) so that the tests compile
# every generated CUDA kernel even where no GPU is present; GPU tests skip
# without a GPU and fail instead when KRONOGRAPH_REQUIRE_GPU=1.
#
# Every phase reuses what the first one compiled: one release build of the
# library with the features the tests use (`cuda` + `testing`), one
# integration-test binary (tests/main.rs), whose CLI the Python tests use too
# (only their wheel compiles the library once more). Each phase prints its time.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
phase_start=$SECONDS
phase() {  # phase NAME: ends the previous phase (printing its time), starts NAME
  local now=$SECONDS
  [ -n "${phase_name:-}" ] && printf '== %s: %d min %02d s\n' "$phase_name" $(((now - phase_start) / 60)) $(((now - phase_start) % 60))
  phase_name=${1:-}
  phase_start=$now
  [ -n "$phase_name" ] && echo "== $phase_name" || true
}

# The Python tests' virtual environment (maturin, pytest and the test
# dependencies: downloads, little CPU) is made in the background while the
# Rust phases compile; the Python phase waits for it (it took 7.5 min of wall
# time, 49 s of CPU, on the loaded 2-core development machine).
mkdir -p target
bash scripts/test_python.sh prepare >target/python-prepare.log 2>&1 &
python_prepare=$!

# the layout claims of docs/ARCHITECTURE.md (file sizes, cuda/ at the bottom,
# the module and file dependency graph: no cycles, the documented edges)
phase "architecture check"
python3 scripts/check_architecture.py

# the API documentation builds without a warning (broken links, private items)
phase "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --workspace --features kronograph/testing
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps -p kronograph --no-default-features

phase "NVRTC from PyPI"
python3 -m pip install --quiet --disable-pip-version-check nvidia-cuda-nvrtc==13.0.88
nvrtc_lib=$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "lib"))')
if [ -e "$nvrtc_lib/libnvrtc.so.13" ]; then
  export LD_LIBRARY_PATH="$nvrtc_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # NVRTC is there: a kernel that does not compile must fail the run.
  export KRONOGRAPH_REQUIRE_NVRTC=1
else
  echo "warning: libnvrtc.so.13 not found under $nvrtc_lib; CUDA compile tests will skip" >&2
fi

phase "cargo test --release --workspace (unit, integration, doc tests; builds the examples)"
cargo test --release --workspace
# the CLI this build made (with `cuda` and `testing`), kept for the Python
# tests: the no_cuda phase below replaces target/release/kronograph
mkdir -p target/ci
cp target/release/kronograph target/ci/kronograph

# the build without the `cuda` feature: every CUDA request must come back as a
# typed `CudaNotCompiled` error and every CPU test must still pass. Only the
# root package (the Python crate enables `cuda` and would unify it back on),
# and only what the feature changes: the integration tests of the backend
# choice (tests/no_cuda.rs), which build the library and the CLI without the
# feature. The library's unit tests are CPU tests the first phase ran; here
# they are only type-checked (with lints), not compiled a second time. The
# library is compiled here at opt-level 0 (its dependencies are those of the
# first phase): these tests check types and answers, not speed, and this
# build took 5 of the 6 minutes of the phase at opt-level 3.
phase "cargo test --release --no-default-features --test no_cuda (kronograph at opt-level 0)"
cargo test --release --no-default-features --test no_cuda --config 'profile.release.package.kronograph.opt-level=0'
cargo clippy --quiet -p kronograph --no-default-features --lib --tests -- -D warnings

# every example must run, not only compile. The first phase built them (with
# the workspace's features); they are run from there, because `cargo run
# --example` builds the root package alone, with other features, and so
# compiled the library once more.
phase "examples"
for ex in examples/*.rs; do
  [ -e "$ex" ] || continue
  name=$(basename "$ex" .rs)
  bin=target/release/examples/$name
  [ -x "$bin" ] || { echo "example $name was not built by the first phase ($bin missing)" >&2; exit 1; }
  echo "example $name"
  "$bin" >/dev/null
done

# the Python package: wheel into a fresh virtual environment, then pytest
phase "Python: wheel and pytest"
wait "$python_prepare" || { cat target/python-prepare.log >&2; echo "the Python test environment could not be made" >&2; exit 1; }
KRONOGRAPH_CLI=target/ci/kronograph bash scripts/test_python.sh

phase
printf '== all tests passed in %d min %02d s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60))
