import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def oracle():
    """Load a recorded reference file from tests/data/oracles by name."""

    def load(name: str) -> dict:
        return json.loads((DATA / "oracles" / name).read_text())

    return load
