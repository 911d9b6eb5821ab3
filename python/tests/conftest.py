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
