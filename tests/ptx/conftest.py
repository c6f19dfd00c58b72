from pathlib import Path

import pytest

KERNELS = Path(__file__).parent / "kernels"


@pytest.fixture
def kdir() -> Path:
    return KERNELS
