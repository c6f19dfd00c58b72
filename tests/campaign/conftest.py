"""Shared campaign fixtures: a tiny plan (two fast runs and one impossible override) run once serially."""

from __future__ import annotations

from pathlib import Path

import pytest

from warpsim.campaign import load_plan, run_campaign
from warpsim.campaign.executors import SerialExecutor

VECADD = Path(__file__).resolve().parents[2] / "examples" / "vecadd"

PLAN = """
name = "tiny"
workloads = ["polybench/gesummv", "vecadd/kernelslist.g"]
gpus = ["QV100"]
memory_models = ["fixed"]     # the campaign machinery is under test, not the memory model
max_cycles = 3000
timeout_s = 120
[variants.bad]
set = ["sm.count=0"]
label = "no SMs"
"""


@pytest.fixture(scope="session")
def plan_file(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("plan")
    (d / "vecadd").symlink_to(VECADD)
    p = d / "tiny.toml"
    p.write_text(PLAN)
    return p


@pytest.fixture(scope="session")
def serial_db(plan_file, tmp_path_factory) -> tuple[Path, object]:
    db = tmp_path_factory.mktemp("db") / "serial.db"
    summary = run_campaign(load_plan(plan_file), db, executor=SerialExecutor())
    return db, summary
