"""Shared fixtures: the QV100 description and small variants of it."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.config import load_gpu


@pytest.fixture(scope="session")
def qv100():
    return load_gpu("QV100")


def lanes(addrs) -> np.ndarray:
    out = np.zeros(32, dtype=np.uint64)
    a = np.asarray(addrs, dtype=np.uint64)
    out[: a.shape[0]] = a
    return out
