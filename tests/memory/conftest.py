"""Shared fixtures: the QV100 description and small variants of it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from warpsim.config import load_gpu


@pytest.fixture(scope="session")
def qv100():
    return load_gpu("QV100")


def variant(gpu, **sections):
    """Copy of `gpu` with some fields of some sections replaced: variant(g, dram={"tRP": 5})."""
    changes = {name: dataclasses.replace(getattr(gpu, name), **fields) for name, fields in sections.items()}
    return dataclasses.replace(gpu, **changes)


def lanes(addrs) -> np.ndarray:
    out = np.zeros(32, dtype=np.uint64)
    a = np.asarray(addrs, dtype=np.uint64)
    out[: a.shape[0]] = a
    return out
