"""Capped emulations in a warm worker: reused across jobs, killed past the cap, failures reported."""

from __future__ import annotations

from warpsim.workloads import get_workload
from warpsim.workloads.capped import CappedWorker
from warpsim.workloads.counts import capped_counts, emulated_counts

KEYS = ("launches", "ctas", "warp_instructions", "thread_instructions")


def test_worker_is_reused_killed_at_the_cap_and_restarted(tmp_path):
    w = CappedWorker()
    try:
        a = capped_counts(get_workload("micro/vecadd"), "tiny", 120, tmp_path, w)
        b = capped_counts(get_workload("rodinia/bfs"), "tiny", 120, tmp_path, w)
        assert w.started == 1                       # the second job ran in the same process
        for got, name in ((a, "micro/vecadd"), (b, "rodinia/bfs")):
            assert got["status"] == "emulated"
            ref = emulated_counts(get_workload(name), "tiny")
            assert {k: got[k] for k in KEYS} == {k: ref[k] for k in KEYS}
            assert got["cpu_seconds"] >= 0
        # a cap no job meets: the worker is killed and the row says how far it got
        stopped = capped_counts(get_workload("polybench/lu"), "small", 0.05, tmp_path, w)
        assert stopped["status"] == "stopped at cap"
        assert stopped["launches_done"] < stopped["launches"]
        again = capped_counts(get_workload("micro/vecadd"), "tiny", 120, tmp_path, w)
        assert again["status"] == "emulated" and w.started == 2
    finally:
        w.close()


def test_a_failing_job_is_reported_and_the_worker_goes_on(tmp_path):
    w = CappedWorker()
    try:
        bad = w.run(("no/such-workload", "tiny", str(tmp_path / "p"), str(tmp_path / "r")), 120)
        assert bad.finished and "no bundled workload named 'no/such-workload'" in bad.error
        ok = w.run(("micro/vecadd", "tiny", str(tmp_path / "p"), str(tmp_path / "r")), 120)
        assert ok.finished and ok.error is None and (tmp_path / "r").exists()
        assert w.started == 1
    finally:
        w.close()


def test_a_worker_past_its_resident_limit_retires_after_the_job(tmp_path):
    w = CappedWorker(retire_bytes=0)
    try:
        for _ in range(2):
            got = capped_counts(get_workload("micro/vecadd"), "tiny", 120, tmp_path, w)
            assert got["status"] == "emulated"
        assert w.started == 2
    finally:
        w.close()
