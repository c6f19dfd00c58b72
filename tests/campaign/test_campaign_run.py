"""Running a plan: results recorded, failures kept with their message, resume, pool == serial."""

from __future__ import annotations

import json

from warpsim.campaign import Store, load_plan, run_campaign
from warpsim.campaign.executors import PoolExecutor, SerialExecutor
from warpsim.campaign.worker import execute


def _contents(db) -> list[tuple]:
    """Everything in the database except timings, hosts and timestamps."""
    with Store(db) as store:
        out = []
        for r in store.runs():
            kernels = [
                (k.kernel_id, k.name, k.cycles, k.warp_instructions, k.ipc, k.provenance)
                for k in store.kernels(r.id)
            ]
            doc = store.document(r.id)
            out.append(
                (
                    r.id,
                    r.spec,
                    r.status,
                    r.error,
                    r.cycles,
                    r.warp_instructions,
                    r.ipc,
                    r.provenance,
                    kernels,
                    None if doc is None else [k["cycles"] for k in doc["kernels"]],
                )
            )
        return out


def test_serial_records_done_and_failed(serial_db):
    db, summary = serial_db
    assert (summary.total, summary.executed, summary.done, summary.failed) == (4, 4, 2, 2)
    with Store(db) as store:
        runs = store.runs("tiny")
        assert [r.status for r in runs] == ["done", "failed", "done", "failed"]
        for r in runs:
            assert r.finished >= r.started and r.host and r.warpsim_version and r.attempts == 1
            if r.status == "failed":
                assert "sm.count" in r.error and r.spec.variant == "bad" and r.cycles is None
                assert store.kernels(r.id) == [] and store.document(r.id) is None
            else:
                assert r.cycles == 3000 or r.cycles > 0
                assert r.provenance == "simulated" and r.wall_seconds > 0
                doc = store.document(r.id)
                assert doc["total"]["cycles"] == r.cycles
                kernels = store.kernels(r.id)
                assert kernels and [k.cycles for k in kernels] == [k["cycles"] for k in doc["kernels"]]
        assert store.counts("tiny") == {"queued": 0, "running": 0, "done": 2, "failed": 2}
        assert [c.name for c in store.campaigns()] == ["tiny"]


def test_resume_skips_done_and_failed(serial_db, plan_file, tmp_path):
    db, _ = serial_db
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())
    again = run_campaign(plan_file, copy, executor=SerialExecutor())
    assert (again.executed, again.skipped) == (0, 4)
    retry = run_campaign(plan_file, copy, executor=SerialExecutor(), retry_failed=True)
    assert (retry.executed, retry.failed, retry.skipped) == (2, 2, 2)
    with Store(copy) as store:
        assert sorted(r.attempts for r in store.runs()) == [1, 1, 2, 2]


def test_pool_matches_serial(serial_db, plan_file, tmp_path):
    db, _ = serial_db
    pooled = tmp_path / "pool.db"
    summary = run_campaign(load_plan(plan_file), pooled, executor=PoolExecutor(2))
    assert (summary.done, summary.failed) == (2, 2)
    assert _contents(pooled) == _contents(db)


def test_unknown_method_is_a_failed_run(plan_file):
    import dataclasses

    spec = dataclasses.replace(load_plan(plan_file).runs[0], method="no-such-method")
    out = execute(spec)
    assert out.status == "failed" and out.document is None
    assert "no-such-method" in out.error or "sample" in out.error


def test_document_is_json(serial_db):
    db, _ = serial_db
    with Store(db) as store:
        done = store.runs(status="done")
        assert json.loads(json.dumps(store.document(done[0].id)))["gpu"] == "QV100"


def test_timeout_in_worker_is_a_failed_run(plan_file):
    import dataclasses

    spec = dataclasses.replace(load_plan(plan_file).runs[0], timeout_s=0.001)
    out = execute(spec)
    assert out.status == "failed" and out.document is None and "timed out" in out.error
