"""`warpsim select` on the 79-launch AlexNet trace, and its errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from warpsim.cli import app
from warpsim.sampling import Selection


def test_select_all_on_alexnet(alexnet_path, tmp_path):
    out = tmp_path / "out.json"
    r = CliRunner().invoke(app, ["select", str(alexnet_path), "--method", "all", "--seeds", "3",
                                 "--json", str(out), "--save-selection", str(tmp_path / "sel")])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert doc["true_total"] == 10692.0
    methods = {m["method"]: m for m in doc["methods"]}
    assert set(methods) == {"pks", "pks2", "stem", "sieve", "random", "first", "pername"}
    for m in methods.values():
        assert abs(m["projected_total"] - doc["true_total"]) / doc["true_total"] * 100 == \
            pytest.approx(m["error_pct"])
    assert methods["stem"]["ci95"] is not None and methods["stem"]["seeds"] == 3
    assert methods["pks"]["ci95"] is None
    assert "FALLBACK" in r.output                                    # Kineto has no PKA metrics
    sel = Selection.load(tmp_path / "sel" / "a100_alexnet_79_kernels.pks.selection.json")
    assert sel.n_launches() == 79


def test_select_plots(alexnet_path, tmp_path):
    r = CliRunner().invoke(app, ["select", str(alexnet_path), "--method", "pks", "--plots", str(tmp_path)])
    assert r.exit_code == 0, r.output
    for kind in ("clusters", "groups"):
        assert (tmp_path / f"a100_alexnet_79_kernels.pks.{kind}.png").stat().st_size > 1000


def test_select_rejects_unknown_method(alexnet_path):
    r = CliRunner().invoke(app, ["select", str(alexnet_path), "--method", "magic"])
    assert r.exit_code != 0
    assert "unknown method" in str(r.exception) or "unknown method" in r.output


def test_select_summary_over_two_profiles(alexnet_path, tmp_path):
    out = tmp_path / "o.json"
    r = CliRunner().invoke(app, ["select", str(alexnet_path), str(alexnet_path), "--method", "pername,first",
                                 "--json", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    s = {x["method"]: x for x in doc["summary"]}
    one = doc["profiles"][0]["methods"][0]
    assert s["pername"]["hmean_reduction"] == pytest.approx(one["reduction"])
