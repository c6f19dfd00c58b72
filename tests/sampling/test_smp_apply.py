"""The selection artifact round-trips and `apply` projects from simulated results."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from smp_synth import table_from

from warpsim.errors import InputError
from warpsim.sampling import Selection, Stratum, apply
from warpsim.sampling.baselines import first_n, one_per_name, random_k
from warpsim.sampling.evaluate import evaluate


def hand_selection() -> Selection:
    return Selection("test", "statistical", [
        Stratum("a", np.array([0, 1, 2, 3]), np.array([0, 2]), np.array([2.0, 2.0]), 0.0, "A"),
        Stratum("b", np.array([4]), np.array([4]), np.array([1.0]), 0.0, "B"),
    ], parameters={"x": 1}, seed=7)


def test_apply_projection_and_ci_by_hand():
    sel = hand_selection()
    res = {0: 10, 2: {"cycles": 14}, 4: 5, 1: 999}           # unselected results are ignored
    p = apply(sel, res)
    assert p.total == 2 * 10 + 2 * 14 + 5
    s2 = np.var([10, 14], ddof=1)                              # 8
    var = 4 * 4 * (1 - 2 / 4) * s2 / 2
    assert p.ci95 == pytest.approx((p.total - 1.96 * math.sqrt(var), p.total + 1.96 * math.sqrt(var)))
    assert p.simulated_total == 29
    assert p.provenance[1] == {"provenance": "projected", "represented_by": 0, "stratum": "a"}
    assert p.provenance[2]["provenance"] == "simulated"


def test_apply_accepts_result_document_and_offset():
    sel = hand_selection()
    doc = {"kernels": [{"id": 1, "cycles": 10}, {"id": 3, "cycles": 14}, {"id": 5, "cycles": 5}]}
    assert apply(sel, doc, id_offset=1).total == 53


def test_apply_errors():
    sel = hand_selection()
    with pytest.raises(InputError, match="launch 4"):
        apply(sel, {0: 1, 2: 1})
    with pytest.raises(InputError, match="cycles"):
        apply(sel, {0: 1, 2: {"ipc": 2}, 4: 1})
    with pytest.raises(InputError, match="non-negative"):
        apply(sel, {0: -1, 2: 1, 4: 1})


def test_selection_json_roundtrip(tmp_path):
    sel = hand_selection()
    sel.save(tmp_path / "s.json")
    back = Selection.load(tmp_path / "s.json")
    assert back.to_dict() == sel.to_dict()
    assert back.selected() == [(0, 2.0), (2, 2.0), (4, 1.0)]
    doc = json.loads((tmp_path / "s.json").read_text())
    doc["strata"][0]["samples"] = [[9, 1.0]]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"strata\[0\]"):
        Selection.load(tmp_path / "bad.json")


def test_baselines_by_hand():
    t = [4.0, 1.0, 2.0, 8.0, 1.0, 2.0]
    table = table_from(["x", "y", "x", "z", "y", "x"], t)
    ev = evaluate(first_n(table, 2), table)
    assert ev.projected_total == pytest.approx((4 + 1) * 3)
    assert ev.reduction == pytest.approx(18 / 5)
    ev = evaluate(one_per_name(table), table)
    assert ev.projected_total == pytest.approx(4 * 3 + 1 * 2 + 8)
    assert ev.selected == 3
    r1, r2 = random_k(table, 3, seed=4), random_k(table, 3, seed=4)
    assert r1.selected() == r2.selected() and len(r1.selected()) == 3
    assert all(w == 2.0 for _, w in r1.selected())
    full = evaluate(random_k(table, 6, seed=0), table)
    assert full.error_pct == 0 and full.ci95 == (18.0, 18.0)
