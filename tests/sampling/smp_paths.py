"""Where the real Kineto traces are (a uniquely named module: every test folder has a conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest

KINETO = Path(__file__).parents[2] / ".." / "shared" / "reference" / "kineto"


def kineto_path(name: str) -> Path:
    p = KINETO / f"{name}.json.gz"
    if not p.exists():
        pytest.skip(f"real Kineto trace {p} not present (needs the shared reference folder)")
    return p
