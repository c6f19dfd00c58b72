"""Sampled runs with and without replay keyframes give the same document (frontend/ptx/replay.py):
the keyframes change what the run costs (`sampling.replica`), never a result."""

from __future__ import annotations

import json

import pytest

from warpsim.api import simulate


def _result(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    for key in ("wall_seconds", "sim_rate_kips"):
        doc["total"].pop(key, None)
    replica = doc["sampling"].pop("replica")
    return doc, replica


@pytest.mark.parametrize(("method", "isa"), [("photon", "ptx"), ("auto", "ptx"), ("photon", "sass")])
def test_keyframes_change_the_cost_not_the_result(monkeypatch, method, isa):
    monkeypatch.setenv("WARPSIM_KEYFRAME_GB", "0")
    without, cost0 = _result(simulate("rodinia/gaussian", size="tiny", sample=method, isa=isa).document)
    monkeypatch.setenv("WARPSIM_KEYFRAME_GB", "1")
    with_kf, cost1 = _result(simulate("rodinia/gaussian", size="tiny", sample=method, isa=isa).document)
    assert with_kf == without
    assert cost0["keyframes"] == 0 and cost0["keyframe_jumps"] == 0 and cost0["launches_reexecuted"] > 0
    assert cost1["keyframe_jumps"] > 0
    assert cost1["launches_reexecuted"] < cost0["launches_reexecuted"]
