"""`warpsim workloads` and `warpsim run`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from warpsim.cli import app
from warpsim.errors import InputError
from warpsim.workloads import all_workloads

runner = CliRunner()


def test_workloads_json_lists_every_workload():
    res = runner.invoke(app, ["workloads", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [r["name"] for r in rows] == [w.name for w in all_workloads()]
    atax = next(r for r in rows if r["name"] == "polybench/atax")
    assert atax["category"] == "polybench"
    assert atax["presets"]["standard"] == {"NX": 4096, "NY": 4096}
    assert atax["counts"]["tiny"]["launches"] == 2


def test_workloads_table():
    res = runner.invoke(app, ["workloads", "--category", "micro"])
    assert res.exit_code == 0, res.output
    assert "micro/vecadd" in res.output and "polybench/atax" not in res.output


def test_run_functional_checks_and_writes_json(tmp_path):
    out = tmp_path / "r.json"
    res = runner.invoke(
        app, ["run", "polybench/gesummv", "--functional", "--size", "N=80", "--json", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "PASS" in res.output and "gesummv_kernel" in res.output
    doc = json.loads(out.read_text())
    assert doc["sizes"] == {"N": 80} and doc["launches"][0]["grid"] == [1, 1, 1]
    assert doc["warp_instructions"] > 0 and len(doc["checks"]) == 2


def test_run_preset_by_size_name_and_bad_input():
    res = runner.invoke(app, ["run", "micro/atomic_lat", "--size", "small"])
    assert res.exit_code == 0 and "ITERS=512" in res.output
    res = runner.invoke(app, ["run", "atax", "--size", "Q=1"])
    assert isinstance(res.exception, InputError)
    with pytest.raises(InputError):
        runner.invoke(app, ["run", "no/such"], catch_exceptions=False)
