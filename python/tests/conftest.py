"""Shared fixtures: the repository's bundled data and the command-line tool."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "data"


@pytest.fixture(scope="session")
def mutag():
    import kronograph as kg

    return kg.read_tu(DATA / "MUTAG")


@pytest.fixture(scope="session")
def cli():
    """The `kronograph` executable: $KRONOGRAPH_CLI, else target/release/kronograph."""
    path = pathlib.Path(os.environ.get("KRONOGRAPH_CLI", REPO / "target" / "release" / "kronograph"))
    if not path.exists():
        pytest.fail(f"the kronograph CLI is not built at {path} (cargo build --release, or set KRONOGRAPH_CLI)")
    return path


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "gpu: needs a usable CUDA device (the `gpu` fixture): skipped without one, a failure instead "
        "with KRONOGRAPH_REQUIRE_GPU=1; select with -m gpu",
    )


@pytest.fixture(scope="session")
def gpu():
    """The backend name of the first CUDA device, ``"cuda:0"``.  Without a
    usable device (and NVRTC) the test is skipped, or fails when
    ``KRONOGRAPH_REQUIRE_GPU=1`` (as the Rust GPU tests)."""
    import kronograph as kg

    status = kg.cuda_status()
    if status["devices"] > 0 and status["nvrtc"]:
        return "cuda:0"
    why = f"no usable CUDA device (devices={status['devices']}, nvrtc={status['nvrtc']}: {status['error']})"
    if os.environ.get("KRONOGRAPH_REQUIRE_GPU") == "1":
        pytest.fail(f"KRONOGRAPH_REQUIRE_GPU=1 but {why}")
    pytest.skip(why)
