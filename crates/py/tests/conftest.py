from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
VECTORS = REPO / "vectors"


@pytest.fixture(scope="session")
def vectors() -> Path:
    assert VECTORS.is_dir(), f"{VECTORS}: the repository's vectors are missing"
    return VECTORS
