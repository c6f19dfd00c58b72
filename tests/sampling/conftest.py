"""Shared fixtures: paths to the real Kineto traces (skipped when the shared folder is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

KINETO = Path(__file__).parents[2] / ".." / "shared" / "reference" / "kineto"


def kineto_path(name: str) -> Path:
    p = KINETO / f"{name}.json.gz"
    if not p.exists():
        pytest.skip(f"real Kineto trace {p} not present (needs the shared reference folder)")
    return p


@pytest.fixture
def alexnet_path() -> Path:
    return kineto_path("a100_alexnet_79_kernels")
