"""The campaign database reads straight into pandas (and so into DuckDB, which reads SQLite)."""

from __future__ import annotations

from warpsim.campaign import Store
from warpsim.frames import store_frames


def test_store_tables_as_dataframes(serial_db):
    db, summary = serial_db
    frames = store_frames(db)
    assert {"runs", "kernels", "campaigns", "campaign_runs"} <= set(frames)
    runs = frames["runs"]
    with Store(db) as store:
        records = store.runs()
    assert sorted(runs["id"]) == sorted(r.id for r in records)
    assert (runs["status"] == "done").sum() == summary.done
    kernels = frames["kernels"]
    done = runs[runs["status"] == "done"]
    # every finished run's kernel rows add up to its total cycles
    for _, r in done.iterrows():
        assert kernels.loc[kernels["run_id"] == r["id"], "cycles"].sum() == r["cycles"]
