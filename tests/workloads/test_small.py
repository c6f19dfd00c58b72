"""Every workload at `small` (slow: about two minutes; run with `pytest -m slow tests/workloads`)."""

from __future__ import annotations

import pytest

from warpsim.workloads import all_workloads, run_workload


@pytest.mark.slow
@pytest.mark.parametrize("wl", all_workloads(), ids=lambda w: w.name)
def test_small_matches_numpy(wl):
    res = run_workload(wl, "small")
    assert res.checks and res.launches
