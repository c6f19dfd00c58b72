"""The Dask executor on an in-process LocalCluster gives the same results as the serial executor."""

from __future__ import annotations

import pytest

from warpsim.campaign import Store, load_plan, run_campaign

pytest.importorskip("distributed")


def test_dask_local_cluster_matches_serial(serial_db, plan_file, tmp_path):
    from warpsim.campaign.dask_executor import DaskExecutor

    db, _ = serial_db
    out = tmp_path / "dask.db"
    summary = run_campaign(load_plan(plan_file), out, executor=DaskExecutor("local", 1, processes=False))
    assert (summary.done, summary.failed) == (2, 2)
    with Store(db) as a, Store(out) as b:
        ra = [(r.id, r.status, r.cycles, r.ipc) for r in a.runs()]
        rb = [(r.id, r.status, r.cycles, r.ipc) for r in b.runs()]
        assert ra == rb
