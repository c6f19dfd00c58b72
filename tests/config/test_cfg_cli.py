"""`warpsim gpus`: table, JSON listing, one GPU resolved after --set."""

from __future__ import annotations

import json
import tomllib

from typer.testing import CliRunner

from warpsim.cli import app
from warpsim.errors import InputError

runner = CliRunner()
NAMES = ["A100", "H100", "H200", "QV100", "RTX2060", "RTX3070"]


def test_gpus_table_lists_all_five():
    result = runner.invoke(app, ["gpus"])
    assert result.exit_code == 0, result.output
    for name in NAMES:
        assert name in result.output
    assert "6 MB" in result.output and "50 MB" in result.output


def test_gpus_json_listing():
    result = runner.invoke(app, ["gpus", "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert [r["name"] for r in rows] == NAMES
    by = {r["name"]: r for r in rows}
    assert by["QV100"]["sms"] == 80 and by["QV100"]["l2_bytes"] == 6 * 2**20
    assert by["H100"]["kernel_launch_latency"] == 3000 and by["RTX2060"]["warps_per_sm"] == 32


def test_one_gpu_as_toml_after_overrides():
    result = runner.invoke(app, ["gpus", "qv100", "--set", "l2.sets=64", "--set", "sm.scheduler=lrr"])
    assert result.exit_code == 0, result.output
    doc = tomllib.loads(result.output)           # the header line is a TOML comment
    assert doc["name"] == "QV100" and doc["l2"]["sets"] == 64 and doc["sm"]["scheduler"] == "lrr"
    assert doc["fixed_memory"]["global"] == 33         # calibrated L1 hit latency


def test_one_gpu_as_json():
    result = runner.invoke(app, ["gpus", "H100", "--json"])
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["latency"]["tensor"] == [1, 0] and doc["sm"]["count"] == 132


def test_bad_override_is_an_input_error():
    result = runner.invoke(app, ["gpus", "QV100", "--set", "l2.bogus=1"])
    assert result.exit_code != 0
    assert isinstance(result.exception, InputError) and result.exception.key == "l2.bogus"


def test_set_without_name_is_a_usage_error():
    result = runner.invoke(app, ["gpus", "--set", "l2.sets=64"])
    assert result.exit_code == 2
