"""Shared fixtures: paths to the real Kineto traces (skipped when the shared folder is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from smp_paths import kineto_path


@pytest.fixture
def alexnet_path() -> Path:
    return kineto_path("a100_alexnet_79_kernels")
